#!/usr/bin/env python3
"""The optimiser's goals table: modeled times of the paper's kernels at every level.

Not a test: a script that prints numbers. Run it from the repository root after installing::

    python bench/bench_opt.py                    # all kernels, 128 B and 8 KiB
    python bench/bench_opt.py --payloads all     # every payload of the paper
    python bench/bench_opt.py --kernels dot-product,matrix-multiplication

For each kernel of examples/kernels/ and payload: the modeled time (scratchpad profile, ns; inputs
from ``--seed 1`` where the kernel has no defaults) at -O0, -O1, -O2 and -Ofast --clobber, the
ratio of -O2 to the hand-written bound and of -Ofast --clobber to the paper's best published row,
how many times faster than -O0 -O1 and -O2 are (the goals: filter's -O2 at least 5x, matrix
unpack's -O1 at least 1.5x), and how long -O2 takes to compile in a fresh process. The bounds are the fastest INCA-A known for
each kernel under the model (issue 12's table, written by hand, not published); they are targets
to compare with, never used by the compiler.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

from inca.compiler.frontend import Options, load_tuples
from inca.interpreter.inputs import seeded_values
from inca.interpreter.loader import execute
from inca.interpreter.paper import PAYLOADS, find_paper_dir, load_paper
from inca.interpreter.profiles import load_profile

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "examples" / "kernels"

#: Issue 12's bounds in ns at 128 B and 8 KiB: (-O2 exact, -Ofast --clobber).
BOUNDS = {
    "dot-product": {128: (226, 71), 8192: (12991, 770)},
    "matrix-transpose": {128: (44, 44), 8192: (485, 485)},
    "hadamard-product": {128: (23, 12), 8192: (692, 346)},
    "matrix-multiplication": {128: (111, 90), 8192: (33061, 32472)},
    "convolution": {128: (271, 224), 8192: (9186, 8500)},
    "linear-interpolation": {128: (446, 435), 8192: (25295, 24949)},
    "filter": {128: (362, 362), 8192: (12795, 12795)},
}
LEVELS = (("-O0", 0, False, False), ("-O1", 1, False, False), ("-O2", 2, False, False),
          ("-Ofast --clobber", 2, True, True))


def modeled_ns(kernel: str, payload: int, opt: int, fast: bool, clobber: bool) -> Fraction:
    """The modeled time of one kernel at one level (scratchpad, --seed 1 inputs)."""
    tp = load_tuples(str(KERNELS / f"{kernel}.incaq"),
                     Options({"PAYLOAD": payload}, opt, (), clobber, fast))
    inputs = {b.name: seeded_values(b, 1) for b in tp.buffers
              if b.role in ("input", "inout") and b.alias is None and b.default is None}
    return execute(tp, load_profile("scratchpad"), inputs).time_ns


def paper_best(kernel: str, payload: int) -> float | None:
    """The paper's fastest published scratchpad-family row for a kernel, in ns."""
    figures = load_paper(find_paper_dir())
    rows = [float(v) for (k, variant, p), v in figures.runtimes.items()
            if k == kernel and p == payload and variant != "base"]
    return min(rows) * 1000 if rows else None


def compile_seconds(kernel: str) -> float:
    """Wall time of ``incac -O2`` at 8 KiB in a fresh process."""
    script = Path(sys.executable).parent / "incac"
    argv = [str(script)] if script.is_file() else [sys.executable, "-m", "inca.compiler.driver"]
    start = time.perf_counter()
    subprocess.run(argv + [str(KERNELS / f"{kernel}.incaq"), "-O2", "--payload", "8192",
                           "-o", "/dev/null"], check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernels", default=",".join(sorted(BOUNDS) + ["matrix-unpack"]))
    ap.add_argument("--payloads", default="128,8192", help="comma list, or 'all'")
    ap.add_argument("--no-compile-time", action="store_true")
    args = ap.parse_args()
    payloads = PAYLOADS if args.payloads == "all" else tuple(int(p) for p in args.payloads.split(","))
    head = f"{'kernel':22} {'bytes':>5} " + " ".join(f"{name:>16}" for name, *_ in LEVELS)
    print(head + f" {'O0/O1':>6} {'O0/O2':>6} {'O2/bound':>9} {'fast/bound':>10} {'fast/paper':>10}")
    for kernel in args.kernels.split(","):
        for p in payloads:
            times = [modeled_ns(kernel, p, o, f, c) for _, o, f, c in LEVELS]
            bound = BOUNDS.get(kernel, {}).get(p)
            best = paper_best(kernel, p)
            r_o2 = f"{float(times[2]) / bound[0]:9.2f}" if bound else f"{'':9}"
            r_fast = f"{float(times[3]) / bound[1]:10.2f}" if bound else f"{'':10}"
            r_paper = f"{float(times[3]) / best:10.2f}" if best else f"{'':10}"
            speedups = f" {float(times[0] / times[1]):6.2f} {float(times[0] / times[2]):6.2f}"
            print(f"{kernel:22} {p:5} " + " ".join(f"{float(t):16.2f}" for t in times)
                  + f"{speedups} {r_o2} {r_fast} {r_paper}")
    if not args.no_compile_time:
        for kernel in args.kernels.split(","):
            print(f"compile -O2 at 8 KiB, fresh process: {kernel:22} {compile_seconds(kernel):.2f} s")


if __name__ == "__main__":
    main()
