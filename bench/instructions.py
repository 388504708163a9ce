"""Instructions of a whole process, counted by valgrind's cachegrind: the ``--instructions``
figures of bench_compile.py and bench_selection.py.

A count is the same on a busy machine as on a quiet one, where timed figures of these benches
swing by 2x; it leaves out what the instructions wait for (caches, memory, system calls), so it
measures work, not time. Cachegrind without its cache simulation is the quickest of valgrind's
tools that counts (tens of times the process's own time), and the hash seed is fixed so that
Python's dicts and sets do the same work in every run.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys

COUNTER = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]


def require_valgrind() -> None:
    """Exit with a message when valgrind is not on PATH."""
    if shutil.which("valgrind") is None:
        sys.exit("--instructions needs valgrind on PATH")


def count(argv: list[str], env: dict[str, str]) -> tuple[int | None, subprocess.CompletedProcess]:
    """The instructions of ``argv`` run in ``env`` (hash seed 0), and the finished process (None
    when it failed or valgrind printed no count)."""
    proc = subprocess.run([*COUNTER, *argv], capture_output=True,
                          env={**env, "PYTHONHASHSEED": "0"})
    found = re.search(rb"I\s+refs:\s+([\d,]+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        return None, proc
    return int(found.group(1).replace(b",", b"")), proc
