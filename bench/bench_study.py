#!/usr/bin/env python3
"""The design-space study of issue 14: time, cached rerun, and a local two-worker Dask cluster.

Not a test: a script that prints numbers. From the repository root after
``pip install -e '.[cluster]'``::

    python bench/bench_study.py

Workload: 8 kernels x 7 payloads x 2 opt levels (0, 2) x 50 link speeds x 4 access costs ``m``
on the scratchpad profile, default variant: 22,400 rows from 112 executions. Timed as the
command a user types (``python -m inca.interpreter.cli report ...``): once with ``--no-cache``
(target: under 60 s), once into a fresh cache and once again from it (target: at least 10x
faster than the uncached run), then on a Dask cluster started here (``dask scheduler`` and two
``dask worker --nthreads 1``), whose CSV must equal the local one byte for byte. The uncached and
the cached figures are each the median of ``--runs`` runs (default 3).

The commands run as an installed toolchain runs: with Python's bytecode cache. (An environment
with PYTHONDONTWRITEBYTECODE set recompiles every module at every start, about 0.15 s a process,
which no pip install does; the script removes the variable for its commands.)
"""
from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STUDY = ["--kernels", "all", "--payloads", "128,256,512,1024,2048,4096,8192", "--opt", "0,2",
         "--profiles", "scratchpad", "--variants", "default",
         "--grid", "link_gbps=20:1000:20", "--grid", "m=1,2,3,4", "--format", "csv", "-q"]


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def report(*extra: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "inca.interpreter.cli", "report", *STUDY, *extra],
                          cwd=ROOT, capture_output=True, text=True, env=ENV)
    wall = time.perf_counter() - start
    if proc.returncode:
        sys.exit(f"inca report failed ({proc.returncode}):\n{proc.stderr}")
    return wall, proc.stdout


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def median_of(runs: int, *extra: str) -> tuple[float, str]:
    """The median wall time of ``runs`` runs, and the output (the same every time, checked)."""
    walls, texts = zip(*(report(*extra) for _ in range(runs)))
    if len(set(texts)) != 1:
        sys.exit("inca report printed different CSVs for the same study")
    return statistics.median(walls), texts[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per figure (median)")
    runs = parser.parse_args().runs
    report("--no-cache")  # once to write the bytecode cache, as an install does
    cold, text = median_of(runs, "--no-cache")
    rows = len(text.splitlines()) - 1
    print(f"workload        {rows} rows (8 kernels x 7 payloads x 2 opt x 50 link_gbps x 4 m)")
    print(f"--no-cache      {cold:.2f} s ({'within' if cold < 60 else 'OVER'} the 60 s target)")
    with tempfile.TemporaryDirectory() as cache:
        fill, filled = report("--cache", cache)
        warm, cached = median_of(runs, "--cache", cache)
    print(f"into a cache    {fill:.2f} s; rerun from it {warm:.2f} s: {cold / warm:.1f}x faster than "
          f"--no-cache ({'meets' if cold / warm >= 10 else 'MISSES'} the 10x target)")
    print(f"cached CSV      {'identical' if filled == cached == text else 'DIFFERS'}")
    address = f"tcp://127.0.0.1:{free_port()}"
    procs = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                               "127.0.0.1", "--port", address.rsplit(":", 1)[1], "--no-dashboard"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    try:
        procs += [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                                    "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True) for _ in range(2)]
        from distributed import Client

        with Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        dask, remote = report("--no-cache", "--scheduler", address)
        print(f"dask (2 workers) {dask:.2f} s; CSV {'identical to' if remote == text else 'DIFFERS from'} "
              f"the local run")
    finally:
        for p in procs:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
