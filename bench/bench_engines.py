#!/usr/bin/env python3
"""Speed of each engine (``inca run --engine``) on one kernel, translation and compilation included.

Not a test: a script that prints numbers. From the repository root, after ``pip install -e .``::

    python bench/bench_engines.py                 # matrix multiplication at 8 KiB, 5 runs each
    python bench/bench_engines.py --payload 32768 --runs 3
    python bench/bench_engines.py --kernel examples/kernels/convolution.incaq -O 2

Workload: ``examples/kernels/matrix-multiplication.incaq --payload 8192`` compiled at -O0
(271,652 tuples), seeded inputs (``--seed 1``). Each run goes through ``execute()``, the entry
point ``inca run`` uses: a fresh NIC, install, the engine, the statistics. ``tuples/s`` is what
``inca run --json`` reports (``tuples_per_s``: executed tuples over the engine's wall time, which
for the python engine includes translating and compiling the program); ``execute()`` adds the
install and the statistics. The two runs' results are checked equal in every field. The python
engine's time is split into translation (block analysis and source), compilation and the run.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import fields

from inca.compiler.frontend import Options, load_tuples
from inca.interpreter import engine
from inca.interpreter.blocks import analyse
from inca.interpreter.inputs import gather_inputs
from inca.interpreter.loader import ENGINES, RunResult, execute, install
from inca.interpreter.nic import NIC
from inca.interpreter.profiles import load_profile
from inca.interpreter.pygen import translate

TARGET = 10_000_000  # tuples/s of the python engine, translation included (issue 13)


def phases(tp, profile, inputs) -> tuple[float, float, float]:
    """Seconds the python engine spends translating, compiling and running the function it
    compiled (once, from the start, with the default step budget), in one run."""
    nic = NIC(profile)
    pc, _ = install(tp, nic, inputs)
    nic.ct_set(pc, 1)
    t0 = time.perf_counter()
    armed = engine.arm(nic, pc)
    cfg = analyse(armed, pc.value)
    tr = translate(nic, armed, cfg)
    t1 = time.perf_counter()
    kernel = tr.compile()
    t2 = time.perf_counter()
    mem = [nic.buffers[name].data for name in tr.storage]
    start = tr.order.index(cfg.entry) if cfg.entry in tr.order else 0
    kernel(mem, (0,) * len(tr.order), 100_000_000, start)
    return t1 - t0, t2 - t1, time.perf_counter() - t2


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", default="examples/kernels/matrix-multiplication.incaq")
    ap.add_argument("--payload", type=int, default=8192, help="bytes per input array (default 8192)")
    ap.add_argument("-O", dest="opt", default="0", choices=("0", "1", "2", "fast"))
    ap.add_argument("--profile", default="scratchpad")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per engine (default 5)")
    args = ap.parse_args(argv)

    tp = load_tuples(args.kernel, Options({"PAYLOAD": args.payload}, 2 if args.opt == "fast" else
                                          int(args.opt), (), False, args.opt == "fast"))
    profile = load_profile(args.profile)
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 1)
    print(f"python {sys.version.split()[0]}, {args.kernel} --payload {args.payload} -O{args.opt}, "
          f"{len(tp.tuples)} tuples in the program, profile {args.profile}")
    results: dict[str, list[RunResult]] = {}
    walls: dict[str, list[float]] = {}
    for _ in range(max(1, args.runs)):
        for name in ENGINES:  # interleaved, so a slow spell of the machine hits both
            t0 = time.perf_counter()
            r = execute(tp, profile, inputs, engine=name)
            walls.setdefault(name, []).append(time.perf_counter() - t0)
            results.setdefault(name, []).append(r)
    ref, py = results["reference"][0], results["python"][0]
    same = all(getattr(ref, f.name) == getattr(py, f.name) for f in fields(RunResult)
               if f.name not in ("wall_s", "tuples_per_s", "engine"))
    print(f"tuples executed   {ref.instructions:,}; results of the two engines "
          f"{'equal in every field' if same else 'DIFFER'}")
    best = {}
    for name in ENGINES:
        rates = [r.tuples_per_s for r in results[name]]
        best[name] = max(rates)
        print(f"{name:<10}        best {max(rates) / 1e6:6.2f} M tuples/s, median "
              f"{statistics.median(rates) / 1e6:6.2f} M tuples/s (engine); execute() best "
              f"{min(walls[name]) * 1e3:7.1f} ms, median {statistics.median(walls[name]) * 1e3:7.1f} ms")
    tr, comp, run = min((phases(tp, profile, inputs) for _ in range(3)), key=sum)
    print(f"python engine     translation {tr * 1e3:.2f} ms, compile {comp * 1e3:.2f} ms, "
          f"run {run * 1e3:.1f} ms (best of 3)")
    ratio = best["python"] / best["reference"]
    print(f"ratio             python / reference = {ratio:.2f}x (best rates)")
    print(f"vs target         python {best['python'] / TARGET:.2f}x of {TARGET:,} tuples/s "
          f"(translation and compilation included)")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
