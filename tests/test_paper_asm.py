"""The hand-written INCA-A kernels of examples/asm reproduce the INCA paper.

Everything is computed here: each kernel is assembled with its ``.param`` sizes overridden
(``assemble_text(..., defines=...)``), encoded into tuples and executed on the NIC model, and the
results are compared with the paper's figures as read from shared/paper/*.csv at test time (see
paper.py; no figure is written in this file). Outputs are checked against an independent Python
computation on random inputs.
"""
from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

import pytest

import paper
from inca.compiler.assembler import assemble_text
from inca.interpreter.loader import RunResult, execute, time_us_text
from inca.interpreter.profiles import load_profile
from inca.lang.tuples import TupleProgram, encode, from_json, to_json

ASM = Path(__file__).resolve().parents[1] / "examples" / "asm"
SLIDE23 = "dot-product-slide23"

VECTOR_KERNELS = ("dot-product", "dot-product-clobber", "dot-product-parallel",
                  "dot-product-parallel-clobber")
MATRIX_KERNELS = ("hadamard-product", "hadamard-product-clobber", "hadamard-product-parallel",
                  "hadamard-product-parallel-clobber", "matrix-transpose", "matrix-multiplication")
KERNELS = VECTOR_KERNELS + MATRIX_KERNELS

# The dynamic instruction count each kernel's header comment states.
COUNT_FORMULAS = {
    "dot-product": lambda N: 8 * N + 4,
    "dot-product-clobber": lambda N: 7 * N + 4,
    "dot-product-parallel": lambda N: 6 * N + 6,
    "dot-product-parallel-clobber": lambda N: 6 * N + 5,
    "hadamard-product": lambda R, C: 8 * R * C + 9 * R + 4,
    "hadamard-product-clobber": lambda R, C: 6 * R * C + 9 * R + 4,
    "hadamard-product-parallel": lambda R, C: 2,
    "hadamard-product-parallel-clobber": lambda R, C: 1,
    "matrix-transpose": lambda R, C: 6 * R * C + 9 * R + 4,
    "matrix-multiplication": lambda R, C: 8 * R * R * C + 9 * R * R + 9 * R + 4,
}


# ---- running kernels -----------------------------------------------------------------------

def defines_at(kernel: str, payload: int) -> dict[str, int]:
    """The ``-D`` values that size ``kernel`` for a payload of ``payload`` bytes."""
    return paper.vector_defines(payload) if kernel in VECTOR_KERNELS else paper.matrix_defines(payload)


def slide23_text(n: int) -> str:
    """The slide-23 listing (with its declarations) for n elements: every 50 becomes n."""
    text, subs = re.subn(r"\b50\b", str(n), (ASM / f"{SLIDE23}.incaa").read_text(encoding="utf-8"))
    assert subs == 3, "expected 50 in the two shapes and in LT r0, r0, 50"
    return text


@lru_cache(maxsize=None)
def program(kernel: str, defines: tuple[tuple[str, int], ...] = ()) -> TupleProgram:
    """The tuple program of examples/asm/<kernel>.incaa with its params overridden."""
    if kernel == SLIDE23:
        n = dict(defines)["n"]
        return encode(assemble_text(slide23_text(n), f"{SLIDE23}[n={n}]"))
    path = ASM / f"{kernel}.incaa"
    return encode(assemble_text(path.read_text(encoding="utf-8"), str(path), dict(defines)))


def random_inputs(tp: TupleProgram, seed: int) -> dict[str, list[float]]:
    """Random doubles in [-1, 1) for every input and inout buffer (flat, row-major)."""
    out = {}
    for b in tp.buffers:
        if b.role in ("input", "inout"):
            assert b.dtype == "f64"
            rng = random.Random(f"{seed}:{tp.source}:{b.name}")
            out[b.name] = [rng.uniform(-1.0, 1.0) for _ in range(b.size)]
    return out


@lru_cache(maxsize=None)
def _run(kernel: str, defines: tuple[tuple[str, int], ...], profile: str,
         seed: int) -> tuple[dict[str, list[float]], RunResult]:
    tp = program(kernel, defines)
    inputs = random_inputs(tp, seed)
    return inputs, execute(tp, load_profile(profile), inputs)


def run(kernel: str, defines: dict[str, int], profile: str = "scratchpad",
        seed: int = 1) -> tuple[dict[str, list[float]], RunResult]:
    """(inputs, result) of one run; cached, so tests sharing a run pay for it once."""
    return _run(kernel, tuple(sorted(defines.items())), profile, seed)


# ---- independent Python computations -------------------------------------------------------

def dot(a: list[float], b: list[float]) -> float:
    c = 0.0
    for x, y in zip(a, b):
        c = c + x * y
    return c


def expected_outputs(kernel: str, d: dict[str, int], x: dict[str, list[float]]) -> dict:
    """What each kernel must leave in its outputs and inouts, computed in Python."""
    A, B = x["A"], x.get("B")
    if kernel in ("dot-product", "dot-product-parallel", SLIDE23):
        return {"c": dot(A, B)}
    if kernel in ("dot-product-clobber", "dot-product-parallel-clobber"):
        products = [a * b for a, b in zip(A, B)]
        return {"A": products, "c": dot(A, B)}
    if kernel in ("hadamard-product", "hadamard-product-parallel"):
        return {"D": [a * b for a, b in zip(A, B)]}
    if kernel in ("hadamard-product-clobber", "hadamard-product-parallel-clobber"):
        return {"A": [a * b for a, b in zip(A, B)]}
    R, C = d["R"], d["C"]
    if kernel == "matrix-transpose":  # B is C x R
        return {"B": [A[i * C + j] for j in range(C) for i in range(R)]}
    if kernel == "matrix-multiplication":  # A is R x C, B is C x R, D is R x R
        D = []
        for i in range(R):
            for j in range(R):
                acc = 0.0
                for k in range(C):
                    acc = acc + A[i * C + k] * B[k * R + j]
                D.append(acc)
        return {"D": D}
    raise KeyError(kernel)


# ---- (a) the slide-23 listing --------------------------------------------------------------

@pytest.mark.parametrize("n", range(16, 1025, 16))
def test_slide23_counts_and_value(n):
    x, r = run(SLIDE23, {"n": n})
    assert r.instructions == 8 * n + 4
    assert r.outputs == expected_outputs(SLIDE23, {}, x)  # the same sum, in the same order


@pytest.mark.parametrize("variant", ["scratchpad", "base"])
@pytest.mark.parametrize("payload", paper.PAYLOADS)
def test_slide23_paper_runtimes(payload, variant):
    n = paper.elements(payload)
    _, r = run(SLIDE23, {"n": n}, variant)
    assert r.instructions == paper.instruction_count("dot-product", payload)
    assert time_us_text(r.time_ns) == paper.runtime_us("dot-product", variant, payload)


# ---- (b) the hand-written kernels reproduce the paper's runtime rows -----------------------

# (file, paper kernel, paper variant, profile, exact); inexact rows must agree within 0.01 us
# and are exact at every payload but those in INEXACT (MODEL.md 3: of the 14 dot-product
# "parallel" cells, only parallel-clobber at 8 KiB prints 70.02 against the paper's 70.03).
PAPER_ROWS = [
    ("dot-product", "dot-product", "scratchpad", "scratchpad", True),
    ("dot-product", "dot-product", "base", "base", True),
    ("dot-product-clobber", "dot-product", "clobber", "scratchpad", True),
    ("dot-product-parallel", "dot-product", "parallel", "scratchpad", True),
    ("dot-product-parallel-clobber", "dot-product", "parallel-clobber", "scratchpad", False),
    ("hadamard-product", "hadamard-product", "scratchpad", "scratchpad", True),
    ("hadamard-product", "hadamard-product", "base", "base", True),
    ("hadamard-product-clobber", "hadamard-product", "clobber", "scratchpad", True),
    ("hadamard-product-parallel", "hadamard-product", "parallel", "scratchpad", True),
    ("hadamard-product-parallel-clobber", "hadamard-product", "parallel-clobber", "scratchpad", True),
    ("matrix-transpose", "matrix-transpose", "scratchpad", "scratchpad", True),
    ("matrix-transpose", "matrix-transpose", "base", "base", True),
    ("matrix-multiplication", "matrix-multiplication", "scratchpad", "scratchpad", True),
    ("matrix-multiplication", "matrix-multiplication", "base", "base", True),
]


INEXACT = {("dot-product-parallel-clobber", 8192)}


def test_dot_product_parallel_rows_are_exact_in_13_of_14_cells():
    exact = 0
    for kernel, variant in (("dot-product-parallel", "parallel"),
                            ("dot-product-parallel-clobber", "parallel-clobber")):
        for payload in paper.PAYLOADS:
            _, r = run(kernel, defines_at(kernel, payload), "scratchpad")
            exact += time_us_text(r.time_ns) == paper.runtime_us("dot-product", variant, payload)
    assert exact == 13


@pytest.mark.parametrize("payload", paper.PAYLOADS)
@pytest.mark.parametrize("kernel,row,variant,profile,exact", PAPER_ROWS,
                         ids=[f"{k}:{v}" for k, _, v, _, _ in PAPER_ROWS])
def test_paper_runtime_rows(kernel, row, variant, profile, exact, payload):
    _, r = run(kernel, defines_at(kernel, payload), profile)
    got, want = time_us_text(r.time_ns), paper.runtime_us(row, variant, payload)
    if exact and (kernel, payload) not in INEXACT:
        assert got == want, f"{kernel} under {profile} at {payload} B: {got} us, paper {want} us"
    else:
        assert abs(paper.hundredths(got) - paper.hundredths(want)) <= 1, \
            f"{kernel} at {payload} B: {got} us, paper {want} us (more than 0.01 us apart)"


@pytest.mark.parametrize("preset", ["scratchpad", "scratchpad-400g", "scratchpad-1000g"])
def test_matrix_multiplication_link_speeds(preset):
    gbps = load_profile(preset)["link_gbps"]
    rows = [r for r in paper.link_speeds("matrix-multiplication") if Fraction(r[1]) == gbps]
    assert len(rows) == 1, f"no single link_speed_us.csv row at {gbps} Gb/s"
    payload, _, want = rows[0]
    _, r = run("matrix-multiplication", defines_at("matrix-multiplication", payload), preset)
    assert time_us_text(r.time_ns) == want


# ---- (c) instruction counts ----------------------------------------------------------------

@pytest.mark.parametrize("payload", paper.PAYLOADS)
@pytest.mark.parametrize("kernel", ["dot-product", "matrix-transpose", "hadamard-product",
                                    "matrix-multiplication"])
def test_paper_instruction_counts(kernel, payload):
    _, r = run(kernel, defines_at(kernel, payload))
    assert r.instructions == paper.instruction_count(kernel, payload)


@pytest.mark.parametrize("kernel", KERNELS)
def test_instruction_count_formulas(kernel):
    sizes = [{"N": n} for n in (1, 2, 3, 10, 33)] if kernel in VECTOR_KERNELS else \
        [{"R": r, "C": c} for r, c in ((1, 1), (1, 4), (4, 1), (4, 3), (3, 5), (8, 4))]
    for d in sizes:
        _, r = run(kernel, d)
        assert r.instructions == COUNT_FORMULAS[kernel](**d), d


@pytest.mark.parametrize("kernel", KERNELS)
def test_default_size_is_8_kib(kernel):
    """Without -D, every kernel is sized for the paper's largest payload (8 KiB inputs)."""
    path = ASM / f"{kernel}.incaa"
    tp = encode(assemble_text(path.read_text(encoding="utf-8"), str(path)))
    assert tp == program(kernel, tuple(sorted(defines_at(kernel, 8192).items())))
    assert {b.name: b.size * 8 for b in tp.buffers if b.role == "input"} == \
        {b.name: 8192 for b in tp.buffers if b.role == "input"}


# ---- (d) outputs equal an independent Python computation -----------------------------------

SIZES = {"small": None, "256B": 256, "8KiB": 8192}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("kernel", KERNELS)
def test_outputs(kernel, size):
    payload = SIZES[size]
    if payload is None:
        d = {"N": 7} if kernel in VECTOR_KERNELS else {"R": 4, "C": 3}
    else:
        d = defines_at(kernel, payload)
    x, r = run(kernel, d, seed=7)
    assert r.outputs == expected_outputs(kernel, d, x)


# ---- (e) the JSON tuple form round-trips ---------------------------------------------------

def _small(kernel: str) -> dict[str, int]:
    return {"N": 7} if kernel in VECTOR_KERNELS else {"R": 4, "C": 3}


@pytest.mark.parametrize("kernel", KERNELS)
def test_json_round_trip(kernel, tmp_path):
    d = _small(kernel)
    tp = program(kernel, tuple(sorted(d.items())))
    path = tmp_path / f"{kernel}.json"
    path.write_text(to_json(tp), encoding="utf-8")
    loaded = from_json(path.read_text(encoding="utf-8"), str(path))
    assert loaded.tuples == tp.tuples
    assert to_json(loaded) == to_json(tp)
    x, r = run(kernel, d)
    r2 = execute(loaded, load_profile("scratchpad"), x)
    assert (r2.outputs, r2.instructions, r2.by_class, r2.time_ns) == \
        (r.outputs, r.instructions, r.by_class, r.time_ns)


def _flatten(v):
    if isinstance(v, list):
        return [y for item in v for y in _flatten(item)]
    return [v]


@pytest.mark.parametrize("kernel", ["dot-product", "matrix-multiplication",
                                    "hadamard-product-parallel-clobber"])
@pytest.mark.parametrize("profile", ["scratchpad", "base"])
def test_json_through_inca_run(kernel, profile, tmp_path):
    d = _small(kernel)
    tp = program(kernel, tuple(sorted(d.items())))
    path = tmp_path / f"{kernel}.json"
    path.write_text(to_json(tp), encoding="utf-8")
    x, r = run(kernel, d, profile)
    cmd = [sys.executable, "-m", "inca.interpreter.cli", "run", str(path), "--json",
           "--profile", profile]
    for name, values in x.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(values), encoding="utf-8")
        cmd += ["--input", f"{name}=@{tmp_path / f'{name}.json'}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    outputs = {n: (_flatten(v) if isinstance(v, list) else v) for n, v in doc["outputs"].items()}
    assert outputs == r.outputs
    assert doc["instructions"] == r.instructions
    assert doc["by_class"] == r.by_class
    assert doc["time_ns"] == float(r.time_ns)
    assert f"{doc['time_us']:.2f}" == time_us_text(r.time_ns)
