"""Pass ``delinearise``: a loop whose body divides its variable by a constant c (``i / c``,
``i % c``) becomes a nest over the quotient and the remainder, whose indices are affine."""
from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_opt_passes import O2, asm, remarks, run
from test_opt_split import assert_as_at_O0

F = [((n * 37) % 101) * 0.125 - 6.0 for n in range(64)]
SPECIALS = [math.nan, math.inf, -math.inf, -0.0]
BLOCKS = "input X: f64[64]\noutput S: f64[16]\nfor i in 0 .. 64 do {\n    S[i / 4] = S[i / 4] + X[i]\n}\n"


def test_block_sums_add_a_strided_slice_per_position_in_the_block_bit_for_bit():
    # each S[q] still receives X[4q], X[4q + 1], ... in order (768 ns at -O2 before: 64 scalar adds)
    said = remarks(BLOCKS, O2)
    assert "[delinearise] loop over i made a nest over i_q1 (= i / 4) and i_r1 (= i % 4)" in said
    assert "ADD S[0:16], S[0:16], X[3:64:4]" in asm(BLOCKS, O2)
    xs = [SPECIALS[n % 4] if n % 9 == 0 else v for n, v in enumerate(F)]
    o0, o2 = run(BLOCKS, None, {"X": xs}), run(BLOCKS, O2, {"X": xs})
    assert repr(o2.outputs) == repr(o0.outputs)
    assert o2.time_ns <= 48 and o0.time_ns > 5000


def test_a_matrix_walked_by_one_flat_index_is_a_2d_map():
    text = ("input A: f64[8][8]\noutput B: f64[8][8]\nfor i in 0 .. 64 do {\n"
            "    B[i / 8][i % 8] = A[i / 8][i % 8] * 2.0 + 1.0\n}\n")
    assert "MUL B[0:8][0:8], B[0:8][0:8], 2.0" in asm(text, O2)
    assert_as_at_O0(text, {"A": F})


@pytest.mark.parametrize("text, why", (
    (BLOCKS.replace("0 .. 64", "2 .. 64"), "kept flat: 4 does not divide its bounds 2 .. 64"),
    (BLOCKS.replace("S[i / 4] = S[i / 4]", "S[i / 4] = S[i % 8]").replace("f64[16]", "f64[16]"), None),
))
def test_loops_that_stay_flat(text, why):
    said = remarks(text, O2)
    assert "[delinearise] loop over i made a nest" not in said
    if why:
        assert why in said
    assert_as_at_O0(text, {"X": F})


_BODIES = ("S[i / {c}] = S[i / {c}] + X[i]", "L[i % {c}] = max(L[i % {c}], X[i])",
           "B[i / {c}][i % {c}] = X[i] * 2", "Y[i] = X[i / {c}] + i % {c}", "s = s + (i % {c}) * X[i]",
           "if i % {c} == 0 then {{ Y[i] = X[i] }}")


@settings(max_examples=int(os.environ.get("INCA_DELINEARISE_EXAMPLES", "60")), deadline=None)
@given(st.sampled_from((2, 3, 4, 8)), st.integers(0, 2), st.integers(1, 4),
       st.lists(st.sampled_from(_BODIES), min_size=1, max_size=3), st.booleans(),
       st.lists(st.integers(-50, 50), min_size=48, max_size=48))
def test_random_flat_loops_equal_O0(c, qlo, qn, body, f64, xs):
    t = "f64" if f64 else "i64"
    lo, hi = qlo * c + (1 if qlo == 2 else 0), (qlo + qn) * c  # (sometimes c does not divide lo)
    hi = min(hi, 48)
    lines = "".join(f"    {b.format(c=c)}\n" for b in body)
    text = (f"input X: {t}[48]\noutput S: {t}[48]\noutput L: {t}[48]\noutput B: {t}[48][8]\n"
            f"output Y: {t}[48]\noutput s: {t}\nfor i in {lo} .. {hi} do {{\n{lines}}}\n")
    values = [x * 0.5 for x in xs] if f64 else xs
    assert_as_at_O0(text, {"X": values})
