#!/usr/bin/env python3
"""Wall time of the full default ``inca report`` against its 60-second target.

Not a test: a script that prints numbers. Run it from the repository root after installing
(``pip install -e .``)::

    python bench/bench_report.py              # 3 timed runs, one worker per core
    python bench/bench_report.py --runs 5 -j 2

Workload: ``inca report`` with its defaults, i.e. every kernel in examples/kernels (8) x the
paper's 7 payloads x 2 profiles (scratchpad, base) x 2 variants (default, clobber): 112 compile
jobs in the process pool, 224 rows. Each run is the command a user types, timed as a whole
(``python -m inca.interpreter.cli report``: interpreter start-up, compiling, running, the pool,
formatting); its CSV output is parsed to print how many rows there are and how many equal the
paper's published figures.
"""
from __future__ import annotations

import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_S = 60.0
ROOT = Path(__file__).resolve().parents[1]


def run_once(jobs: int | None) -> tuple[float, str]:
    """(wall seconds, CSV text) of one full default report."""
    cmd = [sys.executable, "-m", "inca.interpreter.cli", "report", "--format", "csv", "-q"]
    if jobs:
        cmd += ["-j", str(jobs)]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"inca report failed with exit code {proc.returncode}:\n{proc.stderr}")
    return wall, proc.stdout


def summary(text: str) -> str:
    """Rows, and how many of those with published figures equal them."""
    rows = list(csv.DictReader(io.StringIO(text)))
    compared = exact = 0
    for r in rows:
        checks = [(r["instructions"], r["paper_instructions"]), (r["time_us"], r["paper_time_us"])]
        checks = [(a, b) for a, b in checks if b]
        if checks:
            compared += 1
            exact += all(a == b for a, b in checks)
    kernels = len({r["kernel"] for r in rows})
    return f"{len(rows)} rows ({kernels} kernels); {compared} with published figures, {exact} equal them"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=3, help="timed runs (default 3)")
    p.add_argument("-j", "--jobs", type=int, help="worker processes (default: inca's, one per core)")
    args = p.parse_args()
    times = []
    text = ""
    for _ in range(args.runs):
        wall, text = run_once(args.jobs)
        times.append(wall)
    workers = args.jobs or os.cpu_count()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"{workers} worker{'s' * (workers != 1)}")
    print(f"workload          inca report (defaults): {summary(text)}")
    print(f"wall time         best {min(times):.2f} s, median {statistics.median(times):.2f} s "
          f"over {len(times)} runs")
    verdict = "within" if min(times) <= TARGET_S else "OVER"
    print(f"vs target         {verdict} the {TARGET_S:.0f} s target "
          f"({min(times) / TARGET_S:.1%} of it, best run)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
