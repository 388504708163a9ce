"""Pass ``distribute``: a loop split into loops whose parts vectorise or reduce, and the loops it
must leave whole (a value carried from a later statement to an earlier one).

The random loop bodies draw 200 programs in the suite; ``INCA_DISTRIBUTE_EXAMPLES=5000`` makes a
long run."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inca.compiler.opt.estimate import cost
from inca.compiler.incaq.parser import parse
from inca.compiler.incaq.checker import check
from inca.compiler.opt.ir import Kernel
from inca.lang.diagnostics import Source
from test_opt_passes import FAST, O2, asm, remarks, run
from test_opt_programs import same

DIST = ("input X: f64[64]\ninput Y: f64[64]\noutput d: f64\nfor i in 0 .. 64 do {\n"
        "    t = X[i] - Y[i]\n    d = d + t * t\n}\n")
MINMAX = ("input X: i64[64]\noutput lo: i64\noutput hi: i64\nlo = X[0]\nhi = X[0]\n"
          "for i in 1 .. 64 do {\n    if X[i] < lo then { lo = X[i] }\n"
          "    if X[i] > hi then { hi = X[i] }\n}\n")
MATVEC = ("input A: f64[16][16]\ninput x: f64[16]\noutput y: f64[16]\nfor i in 0 .. 16 do {\n"
          "    acc = 0.0\n    for j in 0 .. 16 do {\n        acc = acc + A[i][j] * x[j]\n    }\n"
          "    y[i] = acc\n}\n")
SUMABS = ("input X: i64[64]\noutput s: i64\nfor i in 0 .. 64 do {\n    v = X[i]\n"
          "    if v < 0 then { v = 0 - v }\n    s = s + v\n}\n")

F64 = [(n * 37 % 101) * 0.125 - 6.0 for n in range(64)]
I64 = [(-1) ** n * (n * 7919 % 1000) for n in range(62)] + [-(1 << 63), (1 << 63) - 1]


@pytest.mark.parametrize("text, inputs, level, said, times", (
    (DIST, {"X": F64, "Y": F64[::-1]}, O2, "distributed into 2 loops (t expanded", 4),
    (DIST, {"X": F64, "Y": F64[::-1]}, FAST, "distributed into 2 loops (t expanded", 30),
    (MINMAX, {"X": I64}, O2, "distributed into 2 loops,", 20),
    (MATVEC, {"A": F64 * 4, "x": F64[:16]}, O2, "distributed into 3 loops (acc expanded", 30),
    (SUMABS, {"X": I64}, O2, "distributed into 3 loops (v expanded", 25),
))
def test_a_loop_whose_parts_vectorise_or_reduce_is_distributed(text, inputs, level, said, times):
    assert f"[distribute] loop over i {said}" in remarks(text, level)
    o0, opt = run(text, None, inputs), run(text, level, inputs)
    for name, value in o0.outputs.items():
        assert opt.outputs[name] == value if level is O2 else abs(opt.outputs[name] - value) < 1e-9
    assert opt.time_ns * times < o0.time_ns, (opt.time_ns, o0.time_ns)


def test_matrix_vector_product_becomes_one_vector_statement_per_column():
    # the products as one 16 x 16 vector, then added column by column in the order of j (one
    # vector statement per column of products before: 582 ns, now 394), into y itself (coalesce)
    text = asm(MATVEC, O2)
    assert "MUL v2[0:16][0:16], v2[0:16][0:16], x[0:16]" in text
    assert [f"ADD y[0:16], y[0:16], v2[0:16][{j}]" in text for j in range(16)] == [True] * 16
    assert "v1" not in text


ROWNORM = ("input A: f64[8][8]\noutput B: f64[8][8]\noutput S: f64[8]\nfor i in 0 .. 8 do {\n"
           "    for j in 0 .. 8 do { B[i][j] = A[i][j] * A[i][j] }\n    s = 0.0\n"
           "    for j in 0 .. 8 do { s = s + B[i][j] }\n    S[i] = s\n    B[i][0] = s\n}\n")


def test_statements_touching_an_array_at_different_elements_are_distributed():
    # B[i][0] (the last statement) and B[i][j] (the inner loops, j in 0 .. 8) are not one index
    # tuple, but two distinct rows never meet (dependence.apart), so each part is its own loop
    said = remarks(ROWNORM, O2)
    assert "loop over i distributed into" in said
    a = [(n * 37 % 101) * 0.125 - 6.0 for n in range(64)]
    o0, o2 = run(ROWNORM, None, {"A": a}), run(ROWNORM, O2, {"A": a})
    assert repr(o2.outputs) == repr(o0.outputs)
    assert o2.time_ns * 30 < o0.time_ns, (o2.time_ns, o0.time_ns)
    # B[i][0] = s against B[i + 1][j]: the next row's loop reads what this row's end wrote
    text = ROWNORM.replace("B[i][0] = s", "B[i + 1][0] = s").replace("B: f64[8][8]", "B: f64[9][8]")
    assert "distributed" not in remarks(text, O2)
    assert repr(run(text, O2, {"A": a}).outputs) == repr(run(text, None, {"A": a}).outputs)


@pytest.mark.parametrize("body", (
    # a value of the second statement read by the first in the next iteration
    "    B[i] = A[i - 1] * 2\n    A[i] = X[i] + 1\n",
    # a scalar carried from the last statement to the first
    "    B[i] = X[i] + c\n    c = B[i] * 2\n",
    # one element written by every iteration and read by the next
    "    A[0] = A[0] + X[i]\n    B[i] = A[0]\n",
))
def test_a_dependence_on_a_later_statement_keeps_the_loop_whole(body):
    text = (f"input X: i64[16]\noutput A: i64[16]\noutput B: i64[16]\noutput c: i64\n"
            f"for i in 1 .. 16 do {{\n{body}}}\n")
    assert "[distribute]" not in remarks(text, O2)
    inputs = {"X": I64[:16]}
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert o2.outputs == o0.outputs


def test_a_private_scalar_read_after_the_loop_keeps_its_last_value():
    text = DIST.replace("output d: f64", "output d: f64\noutput t: f64")
    inputs = {"X": F64, "Y": F64[::-1]}
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert same(o2.outputs["t"], o0.outputs["t"]) and same(o2.outputs["d"], o0.outputs["d"])


def test_a_fault_in_a_distributed_loop_still_faults():
    text = ("input X: i64[64]\ninput Z: i64[64]\noutput d: i64\nfor i in 0 .. 64 do {\n"
            "    t = X[i] / Z[i]\n    d = d + t * t\n}\n")
    assert "distributed into 2 loops" in remarks(text, O2)
    from inca.interpreter.engine import RuntimeFault

    zs = [1] * 63 + [0]
    for level in (None, O2):
        with pytest.raises(RuntimeFault):
            run(text, level, {"X": I64, "Z": zs})


def test_a_loop_that_would_stay_scalar_is_not_split():
    # each part is a scalar loop: splitting would only add a loop
    text = ("input X: i64[16]\noutput s: i64\noutput p: i64\nfor i in 0 .. 16 do {\n"
            "    s = s * 3 + X[i]\n    p = p * 5 + X[i]\n}\n")
    assert "[distribute]" not in remarks(text, O2)


def kernel_of(text: str) -> Kernel:
    src = Source("k.incaq", text)
    return Kernel.of(check(parse(src), src, None, (), False))


def test_the_estimate_prices_a_vector_below_its_scalar_loop():
    scalar = kernel_of("input X: f64[64]\noutput Y: f64[64]\nfor i in 0 .. 64 do {\n    Y[i] = X[i] * 2.0\n}\n")
    from inca.compiler.opt.vectorise import vectorise
    from inca.compiler.opt.remarks import Remarks

    vector = vectorise(scalar, Remarks())
    assert cost(vector.body) < cost(scalar.body) / 10
    # -O2's unroll takes the loop whole: no ADD and BLEZ per iteration; a longer one keeps them
    # (each iteration a PUTL of X[i] into Y[i] and a MUL)
    assert cost(scalar.body) == 64 * 2 * 11.5
    long = kernel_of("input X: f64[5000]\noutput Y: f64[5000]\nfor i in 0 .. 5000 do {\n    Y[i] = X[i] * 2.0\n}\n")
    assert cost(long.body) == 5000 * (2 * 11.5 + 22.0)


def test_the_estimate_counts_the_instructions_the_lowering_emits():
    from inca.compiler.opt.estimate import instructions

    def count(line: str) -> int:
        k = kernel_of("input X: i64[4]\ninput Y: i64[4]\noutput T: i64\noutput s: i64\n" + line + "\n")
        return instructions(k.body[0].target, k.body[0].value)
    assert count("T = X[0]") == 1  # PUTL
    assert count("s = s + X[0] * Y[0]") == 3  # PUTL t, MUL t, ADD s
    assert count("T = X[0] * Y[0] + 3") == 3  # PUTL T, MUL T, ADD T
    assert count("T = 3 + X[0] * Y[0]") == 4  # PUTL T, PUTL t, MUL t, ADD T
    assert count("T = max(X[0], Y[0] + 1)") == 4


def test_rows_mean_and_variance_are_distributed_at_Ofast_too():
    # the distributed form's inner loops (16 vector additions each) were priced with the loop
    # overhead unroll removes, so at -Ofast the per-row trees looked cheaper: 2,144 ns against
    # 1,391 at -O2
    text = ("input A: f64[8][16]\noutput M: f64[8]\noutput V: f64[8]\nfor r in 0 .. 8 do {\n"
            "    s = 0.0\n    for c in 0 .. 16 do { s = s + A[r][c] }\n    m = s / 16.0\n    M[r] = m\n"
            "    q = 0.0\n    for c in 0 .. 16 do { q = q + (A[r][c] - m) * (A[r][c] - m) }\n"
            "    V[r] = q / 16.0\n}\n")
    inputs = {"A": [((n * 37) % 101) * 0.125 - 6.0 for n in range(128)]}
    assert "[distribute] loop over r distributed" in remarks(text, FAST)
    assert run(text, FAST, inputs).time_ns <= run(text, O2, inputs).time_ns


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-1000, 1000), min_size=16, max_size=16),
       st.sampled_from(("+", "*", "min", "max")))
def test_two_reductions_in_one_loop_equal_the_plain_loop(xs, op):
    step = {"+": "{a} + X[i]", "*": "{a} * (X[i] % 7)", "min": "min({a}, X[i])", "max": "max({a}, X[i])"}[op]
    text = ("input X: i64[16]\noutput a: i64\noutput b: i64\na = 1\nb = 2\nfor i in 0 .. 16 do {\n"
            f"    a = {step.format(a='a')}\n    t = X[i] - 3\n    b = b + t * t\n}}\n")
    inputs = {"X": xs}
    assert run(text, O2, inputs).outputs == run(text, None, inputs).outputs


# ---- random loop bodies: statements over shared arrays and scalars at -O2 equal -O0 --------

_INDEX = ("i", "i - 1", "i + 1", "0", "15 - i", "j")
_TERMS = ("X[i]", "A[{ix}]", "B[{ix}]", "s", "t", "3", "i")


@st.composite
def _term(draw, inner: bool):
    t = draw(st.sampled_from(_TERMS))
    ix = draw(st.sampled_from(_INDEX if inner else _INDEX[:-1]))
    return t.format(ix=ix)


@st.composite
def _assign(draw, inner: bool = False):
    ix = draw(st.sampled_from(_INDEX if inner else _INDEX[:-1]))
    target = draw(st.sampled_from(("A[{ix}]", "B[{ix}]", "s", "t"))).format(ix=ix)
    parts = draw(st.lists(_term(inner), min_size=1, max_size=3))
    ops = draw(st.lists(st.sampled_from(("+", "-", "*")), min_size=len(parts) - 1,
                        max_size=len(parts) - 1))
    value = parts[0] + "".join(f" {op} {p}" for op, p in zip(ops, parts[1:]))
    return f"{target} = {value}"


@st.composite
def _statement(draw):
    if draw(st.integers(0, 4)) == 0:
        return f"for j in 1 .. 4 do {{ {draw(_assign(inner=True))} }}"
    return draw(_assign())


@settings(max_examples=int(os.environ.get("INCA_DISTRIBUTE_EXAMPLES", "200")), deadline=None)
@given(st.lists(_statement(), min_size=2, max_size=4),
       st.lists(st.integers(-50, 50), min_size=17, max_size=17))
def test_random_loop_bodies_at_O2_equal_O0(body, xs):
    text = ("input X: i64[17]\noutput A: i64[17]\noutput B: i64[17]\noutput s: i64\noutput t: i64\n"
            "for i in 1 .. 16 do {\n" + "".join(f"    {x}\n" for x in body) + "}\n")
    inputs = {"X": xs}
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert o2.outputs == o0.outputs, text
    assert o2.time_ns <= o0.time_ns, text


def test_matrix_multiplication_with_a_scalar_accumulator_vectorises_in_two_dimensions():
    # the loop over j gives s one element per j; that array is then made by this pass and
    # overwritten first in each iteration of i, so the loop over i gives it one row per i, and
    # the products are one 3-D vector, added in the order of k (2,416 ns at -O2 before, one row
    # at a time; 672 with k moved outside i and j)
    text = ("input A: f64[8][8]\ninput B: f64[8][8]\noutput C: f64[8][8]\nfor i in 0 .. 8 do {\n"
            "    for j in 0 .. 8 do {\n        s = 0.0\n        for k in 0 .. 8 do { s = s + A[i][k] * B[k][j] }\n"
            "        C[i][j] = s\n    }\n}\n")
    said = remarks(text, O2)
    assert "loop over i distributed into 4 loops (v1 expanded into one row per iteration)" in said
    assert "terms of the nest over i, j, k computed as one vector (512 elements), added in order" in said
    inputs = {"A": [((n * 37) % 101) * 0.125 - 6.0 for n in range(64)],
              "B": [((n * 53) % 97) * 0.25 - 12.0 for n in range(64)]}
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert all(same(o2.outputs["C"][n], v) for n, v in enumerate(o0.outputs["C"]))
    assert o2.time_ns * 60 < o0.time_ns, (o2.time_ns, o0.time_ns)


def test_a_column_read_along_a_row_is_copied_once_per_step_to_broadcast():
    # C = A^T B: A[k][i] runs over i in its last index, and a statement over i and j needs it
    # as a column (8 x 1); one PUTL copies it into one, where the statement stayed one row per
    # i (2,292 ns at -O2 before)
    text = ("input A: f64[8][8]\ninput B: f64[8][8]\noutput C: f64[8][8]\nfor i in 0 .. 8 do {\n"
            "    for j in 0 .. 8 do {\n        s = 0.0\n        for k in 0 .. 8 do { s = s + A[k][i] * B[k][j] }\n"
            "        C[i][j] = s\n    }\n}\n")
    listing = asm(text, O2)
    assert ".var col1 f64[8][1]" in listing and "PUTL col1[0:8][0], A[3][0:8]" in listing
    inputs = {"A": [((n * 37) % 101) * 0.125 - 6.0 for n in range(64)],
              "B": [((n * 53) % 97) * 0.25 - 12.0 for n in range(64)]}
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert all(same(o2.outputs["C"][n], v) for n, v in enumerate(o0.outputs["C"]))
    assert o2.time_ns * 60 < o0.time_ns, (o2.time_ns, o0.time_ns)
