"""Helpers for tests that compare with the INCA paper's published figures.

The figures live in ``shared/paper/*.csv`` next to the repository (``<repo>/../shared/paper``);
set ``INCA_PAPER_DIR`` to point elsewhere, or, when the repository is checked out on its own,
the copy the package ships is used (``interpreter/paper_figures/``, kept byte-equal). Values
are read at test time and kept as the printed text (``"42.16"``), so a comparison is with exactly
what the paper prints. Nothing here hard-codes a figure.

Sizes: a payload of P bytes is an array of n = P/8 eight-byte elements. Two-dimensional kernels
shape n elements as sqrt(n) x sqrt(n) when n is a perfect square, else (2c) x c with
c = sqrt(n/2) (INCA-Q.md, "Lowering at -O0"); a matrix kernel's ``R`` is the rows, ``C`` the
columns.
"""
from __future__ import annotations

import csv
import math
import os
from functools import lru_cache
from pathlib import Path

PAYLOADS = (128, 256, 512, 1024, 2048, 4096, 8192)  # bytes per input array, the paper's sweep
ELEMENT_BYTES = 8
ENV = "INCA_PAPER_DIR"
SHARED_DIR = Path(__file__).resolve().parents[2] / "shared" / "paper"
PACKAGED_DIR = Path(__file__).resolve().parents[1] / "interpreter" / "paper_figures"


def paper_dir() -> Path:
    """The folder of the paper's CSV files: ``<repo>/../shared/paper``, else ``$INCA_PAPER_DIR``,
    else the packaged copy."""
    if SHARED_DIR.is_dir():
        return SHARED_DIR
    env = os.environ.get(ENV)
    if env and Path(env).is_dir():
        return Path(env)
    return PACKAGED_DIR


@lru_cache(maxsize=None)
def read_csv(name: str) -> tuple[dict[str, str], ...]:
    """The rows of ``<paper_dir>/<name>`` (``.csv`` optional) as dicts of the printed text."""
    if not name.endswith(".csv"):
        name += ".csv"
    with open(paper_dir() / name, newline="", encoding="utf-8") as f:
        return tuple(dict(row) for row in csv.DictReader(f))


def _row(name: str, **match: str) -> dict[str, str]:
    rows = [r for r in read_csv(name) if all(r.get(k) == v for k, v in match.items())]
    if len(rows) != 1:
        raise KeyError(f"{name}: {len(rows)} rows match {match}")
    return rows[0]


def runtime_us(kernel: str, variant: str, payload: int) -> str:
    """The printed runtime (us) of ``kernel`` / ``variant`` at ``payload`` bytes (runtimes_us.csv)."""
    return _row("runtimes_us", kernel=kernel, variant=variant)[str(payload)]


def has_runtime(kernel: str, variant: str, payload: int) -> bool:
    """Whether the paper prints a runtime for ``kernel`` / ``variant`` at ``payload`` bytes."""
    return any(r["kernel"] == kernel and r["variant"] == variant and r.get(str(payload))
               for r in read_csv("runtimes_us"))


def instruction_count(kernel: str, payload: int) -> int:
    """The dynamic instruction count of ``kernel`` at ``payload`` bytes (instruction_counts.csv)."""
    return int(_row("instruction_counts", kernel=kernel)[str(payload)])


def link_speeds(kernel: str = "matrix-multiplication") -> list[tuple[int, str, str]]:
    """``(payload, link_gbps, runtime_us)`` rows of link_speed_us.csv for ``kernel``, as printed."""
    return [(int(r["payload"]), r["link_gbps"], r["runtime_us"])
            for r in read_csv("link_speed_us") if r["kernel"] == kernel]


def elements(payload: int) -> int:
    """n = P/8 elements in a payload of P bytes."""
    if payload % ELEMENT_BYTES:
        raise ValueError(f"a payload of {payload} bytes is not a whole number of 8-byte elements")
    return payload // ELEMENT_BYTES


def shape_2d(n: int) -> tuple[int, int]:
    """(rows, cols) for n elements: sqrt(n) x sqrt(n) if n is a perfect square, else (2c) x c."""
    r = math.isqrt(n)
    if r * r == n:
        return r, r
    c = math.isqrt(n // 2)
    if n % 2 or c * c != n // 2:
        raise ValueError(f"{n} elements are neither a square nor twice a square")
    return 2 * c, c


def vector_defines(payload: int) -> dict[str, int]:
    """``-D`` values of a 1-D kernel (``.param N``) at ``payload`` bytes."""
    return {"N": elements(payload)}


def matrix_defines(payload: int) -> dict[str, int]:
    """``-D`` values of a matrix kernel (``.param R``, ``.param C``) at ``payload`` bytes."""
    rows, cols = shape_2d(elements(payload))
    return {"R": rows, "C": cols}


def hundredths(text: str) -> int:
    """A printed two-decimal time as an integer number of hundredths (``"1.15"`` -> 115)."""
    return round(float(text) * 100)
