"""The triangular pass: a loop whose inner loops' bounds or tests depend on its variable is
unrolled, so each copy's inner loops have constant bounds and vectorise; exact against -O0 on
hand-made and random nests (60 in the suite, ``INCA_TRIANGULAR_EXAMPLES=N`` for more)."""
from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_opt_passes import FAST, O2, remarks, run
from test_opt_programs import same
from test_opt_split import assert_as_at_O0

from inca.compiler.opt.triangular import MAX_TRIP

TRIMV = ("param N = 16\ninput L: f64[N][N]\ninput x: f64[N]\noutput y: f64[N]\n"
         "for i in 0 .. N do {\n    acc = 0.0\n    for j in 0 .. i + 1 do {\n"
         "        acc = acc + L[i][j] * x[j]\n    }\n    y[i] = acc\n}\n")
MASKED = TRIMV.replace("for j in 0 .. i + 1 do {\n        acc = acc + L[i][j] * x[j]\n    }",
                       "for j in 0 .. N do {\n        if j <= i then { acc = acc + L[i][j] * x[j] }\n    }")
PAIRS = ("param N = 32\ninput X: i64[N]\noutput c: i64\nfor i in 0 .. N do {\n"
         "    for j in i + 1 .. N do {\n        if X[i] == X[j] then { c = c + 1 }\n    }\n}\n")
SPECIAL = [math.nan, math.inf, -math.inf, -0.0]
L = [SPECIAL[n % 4] if n % 53 == 7 else ((n * 37) % 101) * 0.125 - 6.0 for n in range(256)]
X = [((n * 13) % 17) * 0.5 - 4.0 for n in range(16)]


@pytest.mark.parametrize("text, inputs, times", (
    (TRIMV, {"L": L, "x": X}, 7),
    (MASKED, {"L": L, "x": X}, 12),
    (PAIRS, {"X": [(n * 7) % 5 for n in range(32)]}, 18),
))
def test_a_triangular_nest_is_unrolled_and_its_rows_vectorise(text, inputs, times):
    said = remarks(text, O2)
    assert "[triangular] loop over i unrolled" in said
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert all(same(o2.outputs[n], o0.outputs[n]) for n in o0.outputs)
    assert o2.time_ns * times < o0.time_ns, (o2.time_ns, o0.time_ns)


def test_at_Ofast_the_rows_sum_as_trees():
    o2, fast = run(TRIMV, O2, {"L": L, "x": X}), run(TRIMV, FAST, {"L": L, "x": X})
    assert fast.time_ns < o2.time_ns


def test_a_mask_on_the_outer_variable_splits_each_copy():
    text = ("input A: f64[8][8]\noutput B: f64[8][8]\nfor i in 0 .. 8 do {\n    for j in 0 .. 8 do {\n"
            "        if j <= i then { B[i][j] = A[i][j] } else { B[i][j] = 0.0 }\n    }\n}\n")
    said = remarks(text, O2)
    assert "loop over j split into 2 loops (0 .. 4, 4 .. 8)" in said
    a = L[:64]
    o0, o2 = run(text, None, {"A": a}), run(text, O2, {"A": a})
    assert repr(o2.outputs) == repr(o0.outputs) and o2.time_ns * 40 < o0.time_ns


def test_a_test_that_reads_i_only_in_an_index_is_no_reason_to_unroll():
    # the column maximum: A[i][j] > M[j] addresses with i; it vectorises over j as it is
    text = ("input A: i64[16][16]\noutput M: i64[16]\nfor i in 1 .. 16 do {\n    for j in 0 .. 16 do {\n"
            "        if A[i][j] > M[j] then { M[j] = A[i][j] }\n    }\n}\n")
    assert "[triangular]" not in remarks(text, O2)


@pytest.mark.parametrize("bound, why", (
    ("K[i]", "a bound read from the data"),
    ("i + 1", f"{MAX_TRIP + 1} iterations"),
))
def test_loops_that_are_not_unrolled(bound, why):
    n = MAX_TRIP + 1 if "iterations" in why else 8
    text = (f"input K: i64[{n}]\ninput X: i64[{n}]\noutput c: i64\nfor i in 0 .. {n} do {{\n"
            f"    for j in 0 .. {bound} do {{ c = c + X[j] }}\n}}\n")
    said = remarks(text, O2)
    assert "[triangular] loop over i unrolled" not in said, why
    if "iterations" in why:
        assert "not unrolled for its inner loops" in said
    inputs = {"K": [k % n for k in range(n)], "X": list(range(n))}
    assert run(text, O2, inputs).outputs == run(text, None, inputs).outputs


def test_a_nest_of_three_triangular_loops_unrolls_its_two_outer_ones():
    text = ("output c: i64\noutput Y: i64[6]\nfor i in 0 .. 6 do {\n    for j in 0 .. i do {\n"
            "        for k in j .. i do { c = c + k; Y[k] = Y[k] + j }\n    }\n}\n")
    said = remarks(text, O2)
    assert "loop over i unrolled" in said and "loop over j unrolled" in said
    assert run(text, O2, {}).outputs == run(text, None, {}).outputs


_LO = ("0", "i", "i + 1", "i - 2", "2 * i - 3")
_HI = ("i", "i + 1", "N", "N - i", "i + 4")
_BODY = ("s = s + A[i][j]", "B[i][j] = A[j][i] * 2.0", "B[j][i] = B[j][i] + A[i][j]",
         "if j <= i then { s = s * 0.5 + A[i][j] } else { B[i][j] = 1.0 }",
         "if j == i or j > i + 2 then { B[i][j] = s }", "s = s + A[i][j] * A[j][j]")


@settings(max_examples=int(os.environ.get("INCA_TRIANGULAR_EXAMPLES", "60")), deadline=None)
@given(st.sampled_from(_LO), st.sampled_from(_HI), st.lists(st.sampled_from(_BODY), min_size=1, max_size=2),
       st.integers(0, 2), st.integers(3, 8), st.booleans())
def test_random_triangular_nests_equal_O0(lo, hi, body, first, n, after):
    # bounds may leave the arrays (i - 2, N - i ...): a run that faults at -O0 faults when
    # optimised too
    text = (f"param N = {n}\ninput A: f64[N][N]\noutput B: f64[N][N]\noutput s: f64\n"
            f"for i in {first} .. N do {{\n    for j in {lo} .. {hi} do {{\n"
            + "".join(f"        {x}\n" for x in body) + "    }\n"
            + ("    B[i][0] = s\n" if after else "") + "}\n")
    assert_as_at_O0(text, {"A": L[:n * n]})
