#!/usr/bin/env python3
"""Speed and memory of the reference NIC model (``inca.interpreter``).

Not a test: a script that prints numbers. Run it from the repository root after installing
(``pip install -e .``)::

    python bench/bench_engine.py               # 5 timed runs, then the memory runs (~1 min)
    python bench/bench_engine.py --runs 9 --no-memory

Workload: matrix multiplication at 8 KiB (A and B are 32 x 32 f64), written in INCA-A as the
-O0 lowering rules of the INCA-Q spec produce it (22 tuples); it executes
8*r*r*c + 9*r*r + 9*r + 4 = 271652 tuples. Each run goes through ``execute()``, the entry point
``inca run`` uses (install on a fresh NIC, run, derive the statistics).

Memory: the same kernel wrapped in a repeat loop (``.param REPS``), so the program and its data
keep the same size while the number of executed tuples grows 10x and 100x over REPS=1; the peak
of Python allocations (tracemalloc) during ``execute()`` is printed for each. tracemalloc slows
allocation-heavy code down several times, so the memory runs are not timed runs.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc

from inca.compiler.assembler import assemble_text
from inca.interpreter.inputs import seeded_values
from inca.interpreter.loader import execute, time_us_text
from inca.interpreter.profiles import load_profile
from inca.lang.tuples import encode

TARGET = 1_000_000  # tuples per second
EXPECTED = 271_652  # 8r^2c + 9r^2 + 9r + 4 at r = c = 32 (MODEL.md 3, INCA-Q.md)

# D = A x B with A r x c and B c x r, lowered by INCA-Q.md's -O0 rules from
#   i = 0
#   while i < R do {
#       j = 0
#       while j < R do {
#           k = 0
#           while k < C do { D[i][j] = D[i][j] + A[i][k] * B[k][j]; k = k + 1 }
#           j = j + 1
#       }
#       i = i + 1
#   }
MATMUL = """\
.param R = 32
.param C = 32
.input  A f64[R][C]
.input  B f64[C][R]
.output D f64[R][R]

 1 PUTL i, 0
 2 PUTL r0, i
 3 LT r0, r0, R
 4 BLEZ r0, 22
 5 PUTL j, 0
 6 PUTL r0, j
 7 LT r0, r0, R
 8 BLEZ r0, 20
 9 PUTL k, 0
10 PUTL r0, k
11 LT r0, r0, C
12 BLEZ r0, 18
13 PUTL r1, A[i][k]
14 MUL r1, r1, B[k][j]
15 ADD D[i][j], D[i][j], r1
16 ADD k, k, 1
17 JMP 10
18 ADD j, j, 1
19 JMP 6
20 ADD i, i, 1
21 JMP 2
22 END
"""

# The same kernel repeated REPS times: same program size and data, REPS times the tuples.
REPEATED = """\
.param R = 32
.param C = 32
.param REPS = 10
.input  A f64[R][C]
.input  B f64[C][R]
.output D f64[R][R]

    PUTL rep, 0
again:
    PUTL r0, rep
    LT r0, REPS
    BLEZ r0, finished
    PUTL i, 0
outer:
    PUTL r0, i
    LT r0, R
    BLEZ r0, next_rep
    PUTL j, 0
middle:
    PUTL r0, j
    LT r0, R
    BLEZ r0, next_i
    PUTL k, 0
inner:
    PUTL r0, k
    LT r0, C
    BLEZ r0, next_j
    PUTL r1, A[i][k]
    MUL r1, B[k][j]
    ADD D[i][j], r1
    ADD k, 1
    JMP inner
next_j:
    ADD j, 1
    JMP middle
next_i:
    ADD i, 1
    JMP outer
next_rep:
    ADD rep, 1
    JMP again
finished:
    END
"""


def build(text: str, name: str, defines: dict[str, int] | None = None):
    """Assemble and encode an INCA-A text; seeded inputs for it."""
    tp = encode(assemble_text(text, name, defines))
    inputs = {b.name: seeded_values(b, 1) for b in tp.buffers if b.role in ("input", "inout")}
    return tp, inputs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="timed runs of the 8 KiB kernel (default 5)")
    ap.add_argument("--no-memory", action="store_true", help="skip the 10x / 100x memory runs")
    args = ap.parse_args(argv)

    tp, inputs = build(MATMUL, "matmul-8KiB.incaa")
    profile = load_profile("scratchpad")
    print(f"python {sys.version.split()[0]}, workload: matrix multiplication at 8 KiB "
          f"(A, B: f64[32][32]), {len(tp.tuples)} tuples in the program")

    walls, result = [], None
    for _ in range(max(1, args.runs)):
        t0 = time.perf_counter()
        result = execute(tp, profile, inputs)
        walls.append(time.perf_counter() - t0)
    n = result.instructions
    best, median = min(walls), statistics.median(walls)
    print(f"tuples executed   {n}  ({'as expected' if n == EXPECTED else f'EXPECTED {EXPECTED}'})")
    print(f"modeled time      {time_us_text(result.time_ns)} us at 102.4 Gb/s, "
          f"{time_us_text(execute(tp, load_profile('scratchpad-400g'), inputs).time_ns)} us at 400, "
          f"{time_us_text(execute(tp, load_profile('scratchpad-1000g'), inputs).time_ns)} us at 1000 "
          f"(paper: 3088.59 / 1067.50 / 650.24)")
    print(f"wall time         best {best:.3f} s, median {median:.3f} s over {len(walls)} runs "
          f"(execute(): install + run + statistics)")
    print(f"speed             best {n / best:,.0f} tuples/s, median {n / median:,.0f} tuples/s")
    print(f"vs target         {n / best / TARGET:.2f}x (best), {n / median / TARGET:.2f}x (median) "
          f"of {TARGET:,} tuples/s")
    if args.no_memory:
        return 0

    peaks = []
    for reps in (1, 10, 100):
        rtp, rinputs = build(REPEATED, "matmul-repeated.incaa", {"REPS": reps})
        tracemalloc.start()
        tracemalloc.reset_peak()
        t0 = time.perf_counter()
        r = execute(rtp, profile, rinputs)
        wall = time.perf_counter() - t0
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        peaks.append(peak)
        print(f"memory REPS={reps:<4} {r.instructions:>11,} tuples executed, {len(rtp.tuples)} tuples "
              f"in the program, peak {peak / 1024:,.1f} KiB during execute() "
              f"({wall:.1f} s under tracemalloc)")
    print(f"memory growth     peak(10x) / peak(1x) = {peaks[1] / peaks[0]:.3f}, "
          f"peak(100x) / peak(10x) = {peaks[2] / peaks[1]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
