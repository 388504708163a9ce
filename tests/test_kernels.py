"""The eight INCA-Q kernels of ``examples/kernels``: right answers, and the paper's figures.

Correctness: each kernel is compiled at -O0 for several payloads, run on the NIC model with seeded
inputs (``gather_inputs(decls, [], seed)``, what ``inca run --seed`` uses) and its outputs must
equal the independent reference of ``kernels_ref.py`` **exactly**. Exact equality is sound for
every kernel here, not only where the order of evaluation matches: seeded f64 values are
multiples of 1/64 in [-8, 8), so every product (a multiple of 1/4096 below 64 in magnitude) and
every sum of up to 32 such products needs fewer than 30 significant bits and is computed without
rounding in any order. With arbitrary doubles (``test_arbitrary_inputs``) the order matters: the
reductions (dot product, matrix multiplication, convolution) are compared with a correctly
rounded reference (``math.fsum``) within a relative 1e-12 of the largest term magnitude, and the
others, whose every output is a copy or one fixed expression, exactly.

Paper figures (read from ``shared/paper`` through ``paper.py`` at test time): the four exact
kernels reproduce the instruction counts and the scratchpad and base runtimes at all seven
payloads, and the clobber variants (``--clobber``) the dot-product and Hadamard-product clobber
rows. The four other kernels state their counts beside the paper's in their headers; those
tables are checked against what the model computes and the CSV.
"""
from __future__ import annotations

import math
import random
import re
from functools import lru_cache
from pathlib import Path

import pytest

import paper
from inca.compiler.frontend import Options, load_tuples
from inca.interpreter.inputs import gather_inputs
from inca.interpreter.loader import RunResult, execute, time_us_text
from inca.interpreter.profiles import load_profile
from inca.lang.tuples import TupleProgram
from kernels_ref import REDUCTIONS, REFERENCES, interval

KERNELS_DIR = Path(__file__).resolve().parents[1] / "examples" / "kernels"
EXACT = ("dot-product", "hadamard-product", "matrix-transpose", "matrix-multiplication", "matrix-unpack")
NEW = ("filter", "matrix-unpack", "convolution", "linear-interpolation")
SEEDS = (1, 2, 3)


@lru_cache(maxsize=None)
def program(kernel: str, payload: int, clobber: bool = False) -> TupleProgram:
    """The compiled kernel (cached: several tests run the same one)."""
    return load_tuples(str(KERNELS_DIR / f"{kernel}.incaq"), Options({"PAYLOAD": payload}, 0, (), clobber))


def seeded(tp: TupleProgram, seed: int) -> dict[str, list]:
    return gather_inputs({b.name: b for b in tp.buffers}, [], seed)


@lru_cache(maxsize=None)
def run(kernel: str, payload: int, profile: str = "scratchpad", clobber: bool = False,
        seed: int = 1) -> RunResult:
    tp = program(kernel, payload, clobber)
    return execute(tp, load_profile(profile), seeded(tp, seed))


def test_every_kernel_has_a_reference():
    assert sorted(p.stem for p in KERNELS_DIR.glob("*.incaq")) == sorted(REFERENCES)


# ---- outputs ---------------------------------------------------------------------------------

@pytest.mark.parametrize("payload", paper.PAYLOADS)
@pytest.mark.parametrize("kernel", sorted(REFERENCES))
def test_outputs_equal_reference(kernel, payload):
    tp = program(kernel, payload)
    inputs = seeded(tp, 1)
    got = run(kernel, payload).outputs
    assert got == REFERENCES[kernel](payload, inputs)


@pytest.mark.parametrize("seed", SEEDS[1:])
@pytest.mark.parametrize("kernel", sorted(REFERENCES))
def test_outputs_other_seeds(kernel, seed):
    for payload in (128, 256):
        tp = program(kernel, payload)
        inputs = seeded(tp, seed)
        assert run(kernel, payload, seed=seed).outputs == REFERENCES[kernel](payload, inputs)


@pytest.mark.parametrize("kernel", sorted(REFERENCES))
def test_clobber_keeps_outputs(kernel):
    """--clobber may destroy inputs, never change an output."""
    for payload in (128, 512):
        tp = program(kernel, payload, True)
        inputs = seeded(tp, 1)
        got = run(kernel, payload, clobber=True).outputs
        assert got == REFERENCES[kernel](payload, inputs)


def _close(got, want, scale: float) -> bool:
    return abs(got - want) <= 1e-12 * scale


@pytest.mark.parametrize("kernel", sorted(REFERENCES))
def test_arbitrary_inputs(kernel):
    """Doubles with full mantissas: reductions within 1e-12 (relative to the largest term)."""
    payload = 512
    tp = program(kernel, payload)
    rng = random.Random(f"arbitrary:{kernel}")
    inputs = {b.name: [rng.uniform(-10, 10) for _ in range(b.size)]
              for b in tp.buffers if b.role in ("input", "inout") and b.default is None}
    got = execute(tp, load_profile("scratchpad"), inputs).outputs
    if kernel not in REDUCTIONS:
        assert got == REFERENCES[kernel](payload, inputs)
        return
    want = REFERENCES[kernel](payload, inputs, sequential=False)
    scale = 100.0 * 64  # |term| <= 10 * 10, at most 64 terms per output at 512 bytes
    for name, value in want.items():
        values = value if isinstance(value, list) else [value]
        out = got[name] if isinstance(got[name], list) else [got[name]]
        assert len(out) == len(values)
        bad = [(i, g, w) for i, (g, w) in enumerate(zip(out, values)) if not _close(g, w, scale)]
        assert not bad, bad[:5]


def test_filter_threshold_param():
    tp = load_tuples(str(KERNELS_DIR / "filter.incaq"), Options({"PAYLOAD": 256, "T": 3}))
    inputs = seeded(tp, 1)
    got = execute(tp, load_profile("scratchpad"), inputs).outputs
    want = REFERENCES["filter"](256, inputs, threshold=3)
    assert got == want and 0 < want["n"] < 32


def test_matrix_unpack_keeps_the_gaps_between_blocks():
    payload = 128
    tp = program("matrix-unpack", payload)
    inputs = seeded(tp, 1)
    assert (inputs["nbytes"], inputs["bl"]) == ([payload], [4])  # the defaults, not the seed
    m = run("matrix-unpack", payload).outputs["M"]
    rows, cols = paper.shape_2d(paper.elements(payload))
    width = cols + 2
    gaps = [k for k in range(len(m)) if k % width >= cols]
    assert len(gaps) == 2 * rows
    assert [m[k] for k in gaps] == [inputs["M"][k] for k in gaps]


def test_matrix_unpack_takes_its_datatype_at_run_time():
    """Another datatype through the same compiled kernel: blocks of 3 every 5, 10 elements."""
    tp = program("matrix-unpack", 128)
    inputs = seeded(tp, 2) | {"nbytes": [80], "bl": [3], "st": [5]}
    got = execute(tp, load_profile("scratchpad"), inputs)
    assert got.outputs["M"] == REFERENCES["matrix-unpack"](128, inputs)["M"]
    assert got.instructions == 15 * 10 + 6


def test_convolution_border_is_zero_padding():
    """A filter that only picks the upper-left neighbour shifts the image, bringing in zeros."""
    payload = 128
    tp = program("convolution", payload)
    rows, cols = paper.shape_2d(paper.elements(payload))
    x = [float(v + 1) for v in range(rows * cols)]
    f = [0.0] * 9
    f[8] = 1.0  # F[2][2] weighs X[i-1][j-1]
    y = execute(tp, load_profile("scratchpad"), {"X": x, "F": f}).outputs["Y"]
    for i in range(rows):
        for j in range(cols):
            want = x[(i - 1) * cols + j - 1] if i > 0 and j > 0 else 0.0
            assert y[i * cols + j] == want


def test_linear_interpolation_edges_and_negative_floor():
    payload = 128
    n = paper.elements(payload)
    tp = program("linear-interpolation", payload)
    y = [float(v * v) for v in range(n)]
    t = [-2.5, -1.0, -0.25, 0.0, 0.5, 3.0, 3.75, n - 2.0, n - 1.0, n + 1.5] + [1.5] * (n - 10)
    z = execute(tp, load_profile("scratchpad"), {"Y": y, "T": t}).outputs["Z"]
    assert z[:10] == [-2.5, -1.0, -0.25, 0.0, 0.5, 9.0, 14.25, (n - 2.0) ** 2, (n - 1.0) ** 2,
                      (n - 1.0) ** 2 + 2.5 * (2 * n - 3)]


# ---- counts: the formulas in the kernels' headers -------------------------------------------------

@pytest.mark.parametrize("payload", paper.PAYLOADS)
def test_new_kernel_count_formulas(payload):
    n = paper.elements(payload)
    rows, cols = paper.shape_2d(n)
    kept = run("filter", payload).outputs["n"]
    assert run("filter", payload).instructions == 9 * n + 2 * kept + 4
    assert run("matrix-unpack", payload).instructions == 15 * n + 6
    assert run("convolution", payload).instructions == 40 * rows * cols + 18 * rows + 8
    t = seeded(program("linear-interpolation", payload), 1)["T"]
    floor_fix = sum(1 for v in t if math.trunc(v) > v)
    low = sum(1 for v in t if math.floor(v) < 0)
    high = sum(1 for v in t if math.floor(v) > n - 2)
    assert run("linear-interpolation", payload).instructions == 26 * n + 4 + floor_fix + low + high
    assert all(0 <= interval(v, n) <= n - 2 for v in t)


def header_table(kernel: str) -> dict[str, list[int]]:
    """The ``this`` and ``paper`` rows of a kernel header's count table, by payload row."""
    text = (KERNELS_DIR / f"{kernel}.incaq").read_text(encoding="utf-8")
    rows = {}
    for key in ("payload", "this", "paper"):
        m = re.search(rf"^#\s+{key}\s+([\d ]+)$", text, re.M)
        assert m, f"{kernel}.incaq: no '{key}' row in the header's count table"
        rows[key] = [int(v) for v in m.group(1).split()]
    return rows


@pytest.mark.parametrize("kernel", NEW)
def test_header_tables_are_what_the_model_and_paper_say(kernel):
    table = header_table(kernel)
    assert table["payload"] == list(paper.PAYLOADS)
    assert table["this"] == [run(kernel, p).instructions for p in paper.PAYLOADS]
    assert table["paper"] == [paper.instruction_count(kernel, p) for p in paper.PAYLOADS]


# ---- the paper's figures -----------------------------------------------------------------------

@pytest.mark.parametrize("payload", paper.PAYLOADS)
@pytest.mark.parametrize("kernel", EXACT)
def test_exact_kernels_reproduce_paper(kernel, payload):
    sp = run(kernel, payload, "scratchpad")
    base = run(kernel, payload, "base")
    assert sp.instructions == base.instructions == paper.instruction_count(kernel, payload)
    assert time_us_text(sp.time_ns) == paper.runtime_us(kernel, "scratchpad", payload)
    assert time_us_text(base.time_ns) == paper.runtime_us(kernel, "base", payload)


@pytest.mark.parametrize("kernel", ("dot-product", "hadamard-product"))
def test_clobber_reproduces_paper_row(kernel):
    got = [time_us_text(run(kernel, p, "scratchpad", True).time_ns) for p in paper.PAYLOADS]
    assert got == [paper.runtime_us(kernel, "clobber", p) for p in paper.PAYLOADS]


def test_new_kernels_stay_near_paper():
    """Not a reproduction (the paper's programs were never published): within a factor of two."""
    for kernel in NEW:
        for p in paper.PAYLOADS:
            ratio = run(kernel, p).instructions / paper.instruction_count(kernel, p)
            assert 0.45 < ratio < 1.2, (kernel, p, ratio)


MIX_LINE = re.compile(r"^#\s+(paper|this)\s.*at 8 KiB E = (\d+),\s+D = (\d+)$", re.M)


@pytest.mark.parametrize("kernel", ["filter", "convolution", "linear-interpolation", "matrix-unpack"])
def test_header_mixes_are_computed(kernel):
    """Each header's mix lines: the paper's derived from its CSV rows (to the 10 ns the printed
    times resolve), ours from a seeded 8 KiB run."""
    mixes = {who: (int(e), int(d)) for who, e, d in MIX_LINE.findall(
        (KERNELS_DIR / f"{kernel}.incaq").read_text())}
    count = paper.instruction_count(kernel, 8192)
    scratch = round(float(paper.runtime_us(kernel, "scratchpad", 8192)) * 1000)
    base = round(float(paper.runtime_us(kernel, "base", 8192)) * 1000)
    assert mixes["paper"] == ((base - 310 * count) // 250, scratch - 11 * count)
    ours, ours_base = run(kernel, 8192), run(kernel, 8192, "base")
    assert mixes["this"] == ((ours_base.time_ns - 310 * ours.instructions) / 250,
                             ours.time_ns - 11 * ours.instructions)
