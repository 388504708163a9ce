"""The split pass (index-set splitting): a counted loop that branches on its own variable becomes
consecutive loops without the branch; exact whatever the body does (the iterations keep their
order), checked against -O0 on hand-made and random conditions."""
from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_opt_passes import O2, asm, remarks, run
from test_opt_programs import same

from inca.compiler.opt.split import MAX_PARTS

STENCIL = ("param N = 64\ninput X: f64[N]\noutput Y: f64[N]\nfor i in 0 .. N do {\n"
           "    if i == 0 or i == N - 1 then { Y[i] = X[i] } else "
           "{ Y[i] = (X[i - 1] + X[i] + X[i + 1]) / 3.0 }\n}\n")
XS = [((n * 37) % 101) * 0.125 - 6.0 for n in range(64)]


def test_a_stencil_with_its_boundary_in_the_loop_is_split_and_vectorised():
    assert "split into 3 loops (0 .. 1, 1 .. 63, 63 .. 64)" in remarks(STENCIL, O2)
    assert "BLEZ" not in asm(STENCIL, O2)
    o0, o2 = run(STENCIL, None, {"X": XS}), run(STENCIL, O2, {"X": XS})
    assert repr(o2.outputs) == repr(o0.outputs)
    assert o2.time_ns * 50 < o0.time_ns, (o2.time_ns, o0.time_ns)


def test_an_order_dependent_f64_sum_stays_exact_when_split():
    # the iterations keep their order, so even a sum -O2 may not reassociate is split
    text = ("input X: f64[64]\noutput s: f64\nfor i in 0 .. 64 do {\n"
            "    if i < 10 or i >= 50 then { s = s + X[i] * 0.5 } else { s = s * 0.999 + X[i] }\n}\n")
    assert "split into 3 loops" in remarks(text, O2)
    assert same(run(text, O2, {"X": XS}).outputs["s"], run(text, None, {"X": XS}).outputs["s"])


@pytest.mark.parametrize("body, why", (
    ("if i == 3 then { break }\n    Y[i] = X[i]", "a break would leave the part, not the loop"),
    ("if i % 2 == 0 then { Y[i] = X[i] }", "not affine in i"),
    ("if X[i] > 0.0 then { Y[i] = X[i] }", "not a test of i alone"),
    (" or ".join(f"i == {k}" for k in (3, 9, 27, 40)).join(("if ", " then { Y[i] = X[i] }")),
     f"more than {MAX_PARTS} parts"),
))
def test_loops_that_may_not_or_should_not_be_split_are_left_alone(body, why):
    text = f"input X: f64[64]\noutput Y: f64[64]\nfor i in 0 .. 64 do {{\n    {body}\n}}\n"
    assert "[split]" not in remarks(text, O2), why
    assert repr(run(text, O2, {"X": XS}).outputs) == repr(run(text, None, {"X": XS}).outputs)


def test_conditions_are_evaluated_with_wrapping_arithmetic():
    # 2**62 * i wraps to a negative number at i = 2 and to 0 at i = 4
    text = ("output Y: i64[8]\nfor i in 0 .. 8 do {\n"
            "    if i * 4611686018427387904 > 0 then { Y[i] = 1 } else { Y[i] = 2 }\n}\n")
    assert run(text, O2, {}).outputs == run(text, None, {}).outputs
    assert run(text, None, {}).outputs["Y"] == [2, 1, 2, 2, 2, 1, 2, 2]


_TERMS = ("i", "2 * i", "0 - i", "i - 17", "3 * i + 5")


def _condition():
    compare = st.tuples(st.sampled_from(_TERMS), st.sampled_from(("<", "<=", ">", ">=", "==", "!=")),
                        st.integers(-20, 60)).map(lambda t: f"{t[0]} {t[1]} {t[2]}")
    return st.recursive(compare, lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(("and", "or")), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda c: f"not ({c})")), max_leaves=3)


_ARMS = ("Y[i] = X[i] * 2.0", "s = s * 0.75 + X[i]", "Y[i] = X[i - 1] + 1.0", "s = s - Y[i]", "")


@settings(max_examples=int(os.environ.get("INCA_SPLIT_EXAMPLES", "60")), deadline=None)
@given(_condition(), st.sampled_from(_ARMS), st.sampled_from(_ARMS), st.sampled_from(_ARMS),
       st.integers(1, 8), st.integers(20, 40))
def test_random_splits_equal_O0(cond, a, b, rest, lo, hi):
    text = (f"input X: f64[64]\noutput Y: f64[64]\noutput s: f64\nfor i in {lo} .. {hi} do {{\n"
            f"    if {cond} then {{ {a} }} else {{ {b} }}\n    {rest}\n}}\n")
    inputs = {"X": XS}
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert all(same(o2.outputs[n], o0.outputs[n]) for n in o0.outputs), text
    assert o2.time_ns <= o0.time_ns, text
