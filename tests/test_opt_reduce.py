"""Pass ``reduce`` on differences, ``c = c - e(i)``: the terms as one vector, then for i64 a tree
of adds subtracted once (rule ``sub-sum``, exact in wrapping arithmetic), for f64 in order at -O2
(bit for bit) and as a tree at -Ofast (within rounding)."""
from __future__ import annotations

import math
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from test_opt_passes import FAST, O2, asm, remarks, run
from test_opt_programs import same

SUB = ("input X: i64[64]\ninput Y: f64[64]\noutput s: i64\noutput t: f64\ns = 1000\nt = 1.5\n"
       "for i in 0 .. 64 do { s = s - X[i] * 3 }\nfor i in 0 .. 64 do { t = t - Y[i] * 0.5 }\n")
EDGES = [-(1 << 63), (1 << 63) - 1, 0, -1]


def test_a_difference_reduction_sums_its_terms_and_subtracts_once():
    said = remarks(SUB, O2)
    assert "reduction over i turned into a tree of 6 vector adds" in said
    assert "f64 reduction over i kept in order: use -Ofast to reassociate" in said
    assert remarks(SUB, FAST).count("reduction over i turned into a tree of 6 vector adds") == 2
    assert asm(SUB, O2).count("SUB s, s,") == 1
    xs = [EDGES[n % 4] if n % 9 == 0 else n * 7919 % 1000 - 500 for n in range(64)]
    ys = [((n * 37) % 101) * 0.125 - 6.0 for n in range(64)]
    o0, o2, fast = (run(SUB, level, {"X": xs, "Y": ys}) for level in (None, O2, FAST))
    assert repr(o2.outputs) == repr(o0.outputs)
    assert fast.outputs["s"] == o0.outputs["s"] and math.isclose(fast.outputs["t"], o0.outputs["t"],
                                                                 rel_tol=1e-12)
    assert o2.time_ns * 4 < o0.time_ns and fast.time_ns * 30 < o0.time_ns


@settings(max_examples=int(os.environ.get("INCA_OPT_FUZZ_EXAMPLES", "60")), deadline=None)
@given(st.lists(st.integers(-(1 << 63), (1 << 63) - 1) | st.sampled_from(EDGES), min_size=16, max_size=16),
       st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=16, max_size=16),
       st.sampled_from(("X[i]", "X[i] * X[i]", "X[i] - 5", "abs(X[i])")), st.integers(0, 3))
def test_random_difference_reductions_equal_O0(xs, ys, term, lo):
    text = (f"input X: i64[16]\ninput Y: f64[16]\noutput s: i64\noutput t: f64\n"
            f"for i in {lo} .. 16 do {{ s = s - {term} }}\nfor i in {lo} .. 16 do {{ t = t - Y[i] * 2.0 }}\n")
    o0, o2 = run(text, None, {"X": xs, "Y": ys}), run(text, O2, {"X": xs, "Y": ys})
    assert all(same(o2.outputs[n], o0.outputs[n]) for n in o0.outputs), text
    assert o2.time_ns <= o0.time_ns
