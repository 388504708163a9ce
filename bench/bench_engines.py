#!/usr/bin/env python3
"""Speed of each engine (``inca run --engine``) on one kernel, translation and compilation included.

Not a test: a script that prints numbers. From the repository root, after ``pip install -e .``::

    python bench/bench_engines.py                 # matrix multiplication at 8 KiB, 5 runs each
    python bench/bench_engines.py --payload 32768 --runs 3
    python bench/bench_engines.py --kernel examples/kernels/convolution.incaq -O 2
    python bench/bench_engines.py --payload 131072 --engines reference,llvm --runs 3 --end-to-end
    python bench/bench_engines.py --payload 524288 --profile base --engines llvm --max-steps 200000000
    python bench/bench_engines.py --sweep         # issue 13's report sweep, auto against the reference

Workload: ``examples/kernels/matrix-multiplication.incaq --payload 8192`` compiled at -O0
(271,652 tuples), seeded inputs (``--seed 1``). Each run goes through ``execute()``, the entry
point ``inca run`` uses: a fresh NIC, install, the engine, the statistics. ``tuples/s`` is what
``inca run --json`` reports (``tuples_per_s``: executed tuples over the engine's wall time, which
for the python engine includes translating and compiling the program); ``execute()`` adds the
install and the statistics. The two runs' results are checked equal in every field. The python
engine's time is split into translation (block analysis and source), compilation and the run.

The llvm engine's time is split likewise (translation into IR, LLVM optimisation and code
generation with the function cache empty, the compiled function's run on its own), and its rate
*excluding compilation* is the executed tuples over that run. ``--end-to-end`` also times
``inca run --engine E`` as a new process (so with the interpreter's start, compilation, install
and printing), in ``--runs`` rounds of one run of each engine in turn, the reference too, and
prints the ratios of the best runs and the median of the rounds' ratios. The llvm engine is timed
twice: *cold*, each run with an empty object cache (so it compiles), and *warm*, its program's
machine code in the cache from one run before (a later run of the same program, as in a sweep of
link speeds from a shell loop: docs/engines.md, "The object cache"). Rounds, because a shared
machine's speed drifts and not alike for both: in one hour of one machine the reference's run
went from 7.1 to 10.9 s while the llvm engine's cold run stayed within 0.11-0.16 s, so a
reference timed once before the rest gave 49x in one invocation and 99x in another.

``--sweep`` times issue 13's sweep past the paper's sizes, ``inca report --kernels
matrix-multiplication --payloads 8192,32768,131072 --profiles
scratchpad,base,scratchpad-400g,scratchpad-1000g -j 1 --no-cache --format csv``, as a new process
with ``--engine auto`` (``--runs`` times, median) and with ``--engine reference`` (once), checks
that the two CSVs are the same but for the engine column, and prints the ratio (target 20x).

Processes run with Python's bytecode cache, as an installed toolchain does (the script removes
PYTHONDONTWRITEBYTECODE for them).
"""
from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import fields

from inca.compiler.frontend import Options, load_tuples
from inca.interpreter import engine, llvmengine, objcache
from inca.interpreter.blocks import analyse
from inca.interpreter.inputs import gather_inputs
from inca.interpreter.loader import ENGINES, RunResult, execute, install
from inca.interpreter.nic import NIC
from inca.interpreter.profiles import load_profile
from inca.interpreter.pygen import translate

TARGET = 10_000_000  # tuples/s of the python engine, translation included (issue 13)
LLVM_TARGET = 1_000_000_000  # tuples/s of the llvm engine, compilation excluded (issue 13)
END_TO_END_TARGET = 50  # inca run with the llvm engine against the reference, end to end
SWEEP_TARGET = 20  # the report sweep with auto against the reference, end to end
SWEEP = ["--kernels", "matrix-multiplication", "--payloads", "8192,32768,131072", "--profiles",
         "scratchpad,base,scratchpad-400g,scratchpad-1000g", "-j", "1", "--no-cache", "--format", "csv"]
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


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


def llvm_phases(tp, profile, inputs, max_steps: int, full: bool | None = None, objects: str = "off"
                ) -> tuple[float, float, float, str]:
    """Seconds the llvm engine spends translating into IR, compiling (the process's cache emptied
    first; ``objects``: the object cache's folder, "off" for none) and running the compiled
    function once from the start, and how it compiled: as the engine's first tier does (``full``
    None), or at its level with the whole pass pipeline (True) or as the first tier (False)."""
    nic = NIC(profile)
    pc, _ = install(tp, nic, inputs)
    nic.ct_set(pc, 1)
    t0 = time.perf_counter()
    armed = engine.arm(nic, pc)
    cfg = analyse(armed, pc.value)
    tr = llvmengine.translate(nic, armed, cfg)
    t1 = time.perf_counter()
    llvmengine._cache.clear()
    ir, level, first = llvmengine.first_tier(tr.ir)
    full = first if full is None else full
    with objcache.setting(objects):
        hits = objcache.stats["hits"]
        keep, address = llvmengine.compile_ir(ir, level, full=full)
        loaded = objcache.stats["hits"] > hits
    t2 = time.perf_counter()
    arrays = llvmengine.pack(nic, tr.storage)
    kernel = llvmengine.kernel_function(address, len(arrays))
    counts = (ctypes.c_int64 * max(1, len(tr.order)))()
    where = ctypes.c_int64()
    work = llvmengine.scratch(tr)
    pointers = [work.buffer_info()[0], *(a.buffer_info()[0] for a in arrays)]
    t3 = time.perf_counter()
    kernel(counts, ctypes.byref(where), max_steps, cfg.entry, *pointers)
    how = f"LLVM -O{level}" + ("" if full else " code generation after SROA alone")
    return t1 - t0, t2 - t1, time.perf_counter() - t3, how + (", loaded from the object cache" if loaded else "")


def end_to_end(args, name: str, objects: str = "off") -> float:
    """Seconds of ``inca run --engine name`` as a new process, with the llvm engine's object
    cache in the folder ``objects`` ("off": none)."""
    cmd = [sys.executable, "-m", "inca.interpreter.cli", "run", args.kernel, "--payload",
           str(args.payload), f"-O{args.opt}", "--profile", args.profile, "--seed", "1",
           "--max-steps", str(args.max_steps), "--engine", name]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env={**ENV, "INCA_OBJECT_CACHE": objects})
    return time.perf_counter() - t0


def end_to_end_rounds(args, names: list[str]) -> dict[str, dict[str, list[float]]]:
    """The walls of ``inca run --engine NAME`` for each of ``names``, in ``--runs`` rounds of one
    run of each in turn: {name: {how: walls}}, ``how`` "" but for llvm's "cold" (an empty object
    cache each time) and "warm" (the program's machine code cached by a run before the first)."""
    walls = {n: {"cold": [], "warm": []} if n == "llvm" else {"": []} for n in names}
    with tempfile.TemporaryDirectory() as warm:
        if "llvm" in names:
            end_to_end(args, "llvm", warm)  # stores the program's machine code
        for _ in range(args.runs):
            for n in names:
                if n != "llvm":
                    walls[n][""].append(end_to_end(args, n))
                    continue
                with tempfile.TemporaryDirectory() as cold:
                    walls[n]["cold"].append(end_to_end(args, n, cold))
                walls[n]["warm"].append(end_to_end(args, n, warm))
    return walls


def sweep(engine: str) -> tuple[float, list[list[str]]]:
    """Seconds of the sweep's ``inca report --engine engine`` as a new process, and its CSV rows
    without the engine column."""
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "inca.interpreter.cli", "report", *SWEEP,
                           "--engine", engine], check=True, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - t0
    rows = [line.split(",") for line in proc.stdout.splitlines()]
    drop = rows[0].index("engine")
    return wall, [r[:drop] + r[drop + 1:] for r in rows]


def sweep_figures(runs: int) -> None:
    sweep("auto")  # once to write the bytecode cache, as an install does
    auto = [sweep("auto") for _ in range(max(1, runs))]
    ref_wall, ref_rows = sweep("reference")
    wall = statistics.median(w for w, _ in auto)
    same = all(rows == ref_rows for _, rows in auto)
    print(f"sweep             inca report {' '.join(SWEEP)}")
    print(f"sweep             --engine auto {wall:.2f} s (median of {len(auto)}), --engine reference "
          f"{ref_wall:.2f} s: {ref_wall / wall:.1f}x (target {SWEEP_TARGET}x); reports "
          f"{'the same' if same else 'DIFFER'} but for the engine column ({len(ref_rows) - 1} rows)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernel", default="examples/kernels/matrix-multiplication.incaq")
    ap.add_argument("--payload", type=int, default=8192, help="bytes per input array (default 8192)")
    ap.add_argument("-O", dest="opt", default="0", choices=("0", "1", "2", "fast"))
    ap.add_argument("--profile", default="scratchpad")
    ap.add_argument("--runs", type=int, default=5, help="timed runs per engine (default 5)")
    ap.add_argument("--engines", default=",".join(ENGINES),
                    help=f"engines to run, comma-separated (default {','.join(ENGINES)})")
    ap.add_argument("--max-steps", type=int, default=100_000_000, help="step budget (default 1e8)")
    ap.add_argument("--end-to-end", action="store_true",
                    help="also time `inca run` as a new process (the reference once)")
    ap.add_argument("--sweep", action="store_true",
                    help="only time issue 13's report sweep with auto and with the reference")
    args = ap.parse_args(argv)
    if args.sweep:
        sweep_figures(args.runs)
        return 0
    names = [e for e in args.engines.split(",") if e]
    if any(e not in ENGINES for e in names):
        ap.error(f"--engines: choose from {', '.join(ENGINES)}")

    tp = load_tuples(args.kernel, Options({"PAYLOAD": args.payload}, 2 if args.opt == "fast" else
                                          int(args.opt), (), False, args.opt == "fast"))
    profile = load_profile(args.profile)
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 1)
    print(f"python {sys.version.split()[0]}, {args.kernel} --payload {args.payload} -O{args.opt}, "
          f"{len(tp.tuples)} tuples in the program, profile {args.profile}")
    results: dict[str, list[RunResult]] = {}
    walls: dict[str, list[float]] = {}
    for _ in range(max(1, args.runs)):
        for name in names:  # interleaved, so a slow spell of the machine hits each
            t0 = time.perf_counter()
            r = execute(tp, profile, inputs, args.max_steps, engine=name)
            walls.setdefault(name, []).append(time.perf_counter() - t0)
            results.setdefault(name, []).append(r)
    first = results[names[0]][0]
    same = all(all(getattr(first, f.name) == getattr(results[n][0], f.name) for n in names)
               for f in fields(RunResult) if f.name not in ("wall_s", "tuples_per_s", "engine"))
    print(f"tuples executed   {first.instructions:,}; results of {', '.join(names)} "
          f"{'equal in every field' if same else 'DIFFER'}")
    best = {}
    for name in names:
        rates = [r.tuples_per_s for r in results[name]]
        best[name] = max(rates)
        print(f"{name:<10}        best {max(rates) / 1e6:8.2f} M tuples/s, median "
              f"{statistics.median(rates) / 1e6:8.2f} M tuples/s (engine); execute() best "
              f"{min(walls[name]) * 1e3:8.1f} ms, median {statistics.median(walls[name]) * 1e3:8.1f} ms")
    if "python" in names:
        tr, comp, run = min((phases(tp, profile, inputs) for _ in range(3)), key=sum)
        print(f"python engine     translation {tr * 1e3:.2f} ms, compile {comp * 1e3:.2f} ms, "
              f"run {run * 1e3:.1f} ms (best of 3)")
        print(f"vs target         python {best['python'] / TARGET:.2f}x of {TARGET:,} tuples/s "
              f"(translation and compilation included)")
    if "llvm" in names:
        # the first tier, then the full pipeline: which runs a whole run depends on its length
        # (llvmengine.TIER_STEPS); the rate of each, excluding compilation
        for full in (None, True):
            tr, comp, run, how = min((llvm_phases(tp, profile, inputs, args.max_steps, full)
                                      for _ in range(3)), key=lambda p: p[2])
            rate = first.instructions / run
            print(f"llvm engine       translation {tr * 1e3:.2f} ms, compile ({how}) "
                  f"{comp * 1e3:.1f} ms, run {run * 1e3:.2f} ms (best run of 3)")
            print(f"llvm run          {rate / 1e6:,.0f} M tuples/s excluding compilation: "
                  f"{rate / LLVM_TARGET:.2f}x of {LLVM_TARGET / 1e6:,.0f} M tuples/s")
        with tempfile.TemporaryDirectory() as objects:  # the first tier's code, stored then loaded
            llvm_phases(tp, profile, inputs, args.max_steps, None, objects)
            _, load, _, how = min(llvm_phases(tp, profile, inputs, args.max_steps, None, objects)
                                  for _ in range(3))
            print(f"llvm engine       {how.split(', ')[-1]}: {load * 1e3:.2f} ms (best of 3)")
    for name in names[1:]:
        print(f"ratio             {name} / {names[0]} = {best[name] / best[names[0]]:.2f}x (best rates)")
    if args.end_to_end:
        walls_e2e = end_to_end_rounds(args, names)
        for n in names:
            for how, walls in walls_e2e[n].items():
                print(f"inca run          --engine {n}{' ' + how if how else ''}: best {min(walls):.3f} s, "
                      f"median {statistics.median(walls):.3f} s over {len(walls)} run(s) as a new process")
        if "reference" in names:
            reference = walls_e2e["reference"][""]
            for n in names:
                for how, walls in walls_e2e[n].items() if n != "reference" else ():
                    rounds = statistics.median(r / w for r, w in zip(reference, walls))
                    print(f"end to end        {n}{' ' + how if how else ''} {min(reference) / min(walls):.1f}x "
                          f"faster than the reference (best runs), {rounds:.1f}x (median of the rounds)"
                          + (f" (target {END_TO_END_TARGET}x)" if n == "llvm" else ""))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
