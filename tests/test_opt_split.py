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
from inca.interpreter.engine import RuntimeFault

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


GUARD = ("param N = 64\ninput X: i64[N]\noutput c: i64\nfor i in 0 .. N do {\n"
         "    if i < N - 1 and X[i + 1] > X[i] then { c = c + 1 }\n}\n")


def test_a_boundary_guard_in_an_and_is_split_off_and_the_rest_vectorised():
    # i < N - 1 decides the condition in the last iteration (false: X[i + 1] is never read)
    # and leaves X[i + 1] > X[i] to test in the others, a count that reduces
    text = remarks(GUARD, O2)
    assert "split into 2 loops (0 .. 63, 63 .. 64), each without the test of i" in text
    xs = [(n * 37) % 11 for n in range(64)]
    o0, o2 = run(GUARD, None, {"X": xs}), run(GUARD, O2, {"X": xs})
    assert o2.outputs == o0.outputs and o0.outputs["c"] == sum(b > a for a, b in zip(xs, xs[1:]))
    assert o2.time_ns * 40 < o0.time_ns, (o2.time_ns, o0.time_ns)


@pytest.mark.parametrize("cond, parts", (
    ("X[i] > 0.0 and i < 8", "(0 .. 8, 8 .. 64)"),  # X[i] cannot fault: dropped where i >= 8
    ("X[i] > 0.0 or i >= 60", "(0 .. 60, 60 .. 64)"),
    ("not (i > 3 or X[i] < 1.0)", "(0 .. 4, 4 .. 64)"),
    ("X[i + 30] < 1.0 and i < 40", None),  # X[i + 30] faults for i >= 34: -O0 evaluates it
))
def test_what_is_left_of_a_condition_runs_where_it_ran(cond, parts):
    text = (f"input X: f64[64]\noutput Y: f64[64]\nfor i in 0 .. 64 do {{\n"
            f"    if {cond} then {{ Y[i] = X[i] * 2.0 }} else {{ Y[i] = 1.0 }}\n}}\n")
    said = remarks(text, O2)
    assert (f"split into 2 loops {parts}" in said) if parts else "[split]" not in said
    o0, o2 = outcome(text, None, {"X": XS}), outcome(text, O2, {"X": XS})
    assert (o0 is None) == (o2 is None) == (parts is None)
    if o0 is not None:
        assert repr(o2.outputs) == repr(o0.outputs)


def test_conditions_are_evaluated_with_wrapping_arithmetic():
    # 2**62 * i wraps to a negative number at i = 2 and to 0 at i = 4
    text = ("output Y: i64[8]\nfor i in 0 .. 8 do {\n"
            "    if i * 4611686018427387904 > 0 then { Y[i] = 1 } else { Y[i] = 2 }\n}\n")
    assert run(text, O2, {}).outputs == run(text, None, {}).outputs
    assert run(text, None, {}).outputs["Y"] == [2, 1, 2, 2, 2, 1, 2, 2]


_TERMS = ("i", "2 * i", "0 - i", "i - 17", "3 * i + 5")
# Conditions i does not decide: one that cannot fault, one the loop changes, one out of bounds for
# i >= 34 (a fault where -O0 evaluates it), one dividing by an input that may be 0.
_DATA = ("X[i] > 0.5", "Y[i] < s", "X[i + 30] < 1.0", "100 / K[i] > 3")


def _condition():
    compare = st.tuples(st.sampled_from(_TERMS), st.sampled_from(("<", "<=", ">", ">=", "==", "!=")),
                        st.integers(-20, 60)).map(lambda t: f"{t[0]} {t[1]} {t[2]}")
    compare = st.one_of(compare, compare, st.sampled_from(_DATA))
    return st.recursive(compare, lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(("and", "or")), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda c: f"not ({c})")), max_leaves=3)


_ARMS = ("Y[i] = X[i] * 2.0", "s = s * 0.75 + X[i]", "Y[i] = X[i - 1] + 1.0", "s = s - Y[i]", "")


@settings(max_examples=int(os.environ.get("INCA_SPLIT_EXAMPLES", "60")), deadline=None)
@given(_condition(), st.sampled_from(_ARMS), st.sampled_from(_ARMS), st.sampled_from(_ARMS),
       st.integers(1, 8), st.integers(20, 40))
def test_random_splits_equal_O0(cond, a, b, rest, lo, hi):
    text = (f"input X: f64[64]\ninput K: i64[64]\noutput Y: f64[64]\noutput s: f64\n"
            f"for i in {lo} .. {hi} do {{\n    if {cond} then {{ {a} }} else {{ {b} }}\n    {rest}\n}}\n")
    inputs = {"X": XS, "K": [n % 7 for n in range(64)]}
    assert_as_at_O0(text, inputs)


def outcome(text: str, level, inputs: dict):
    """The run's results, or None if it faults."""
    try:
        return run(text, level, inputs)
    except RuntimeFault:
        return None


def assert_as_at_O0(text: str, inputs: dict, level=O2) -> None:
    """The program at ``level`` gives -O0's outputs bit for bit in no more modeled time, or
    faults where -O0 faults (maybe at another instruction, as docs/optimiser.md allows)."""
    o0, opt = outcome(text, None, inputs), outcome(text, level, inputs)
    if o0 is None:
        assert opt is None, text
        return
    assert opt is not None, text
    assert all(same(opt.outputs[n], o0.outputs[n]) for n in o0.outputs), text
    assert opt.time_ns <= o0.time_ns, text


def test_a_for_loop_that_assigns_its_variable_is_no_counted_loop_for_any_pass():
    # split took `i < 4` as true in 0 .. 4 although i jumps by 2 there: canon now makes such a
    # loop the while loop it means, so no pass sees it as counted (the kernel fuzzer's
    # `if c then { i = i + 1 }` statements found it)
    text = ("output Y: i64[16]\nfor i in 0 .. 8 do {\n    if i < 4 then { i = i + 2 } else { Y[i] = 5 }\n"
            "    Y[i] = Y[i] + 1\n}\n")
    said = remarks(text, O2)
    assert "[canon] for loop over i is not a counted loop: its body assigns i" in said
    assert "[split]" not in said
    o0, o2 = run(text, None, {}), run(text, O2, {})
    assert o2.outputs == o0.outputs and o0.outputs["Y"][:8] == [0, 0, 1, 0, 0, 1, 6, 6]
    assert o2.time_ns <= o0.time_ns


def test_continue_in_a_for_loop_that_assigns_its_variable_still_steps_it():
    text = ("output Y: i64[16]\noutput c: i64\nfor i in 0 .. 12 do {\n    c = c + 1\n"
            "    if i % 3 == 0 then { i = i + 1; continue }\n    Y[i] = i\n}\n")
    o0, o2 = run(text, None, {}), run(text, O2, {})
    assert o2.outputs == o0.outputs and o0.outputs["c"] == 8


JACOBI = ("param N = 10\ninput A: f64[N][N]\noutput B: f64[N][N]\nfor i in 0 .. N do {\n"
          "    for j in 0 .. N do {\n        if i == 0 or j == 0 or i == N - 1 or j == N - 1 then {\n"
          "            B[i][j] = A[i][j]\n        } else {\n"
          "            B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1])\n"
          "        }\n    }\n}\n")


def test_a_2d_stencil_with_its_boundary_in_the_loop_is_split_in_both_dimensions():
    # the inner loop splits on j, leaving `i == 0 or i == N - 1` to test in its middle part,
    # which the outer loop then splits on; in the middle rows the boundary columns' loops run
    # once and join the rows' body, so the interior is one 2-D statement and each column a vector
    said = remarks(JACOBI, O2)
    assert "loop over j split into 3 loops (0 .. 1, 1 .. 9, 9 .. 10)" in said
    assert "loop over i split into 3 loops (0 .. 1, 1 .. 9, 9 .. 10)" in said
    assert "loop over j runs once: its body joins the enclosing loop's, with j = 0" in said
    listing = asm(JACOBI, O2)
    assert "MUL B[1:9][1:9], B[1:9][1:9]" in listing and "PUTL B[1:9][0], A[1:9][0]" in listing
    a = [((n * 37) % 101) * 0.125 - 6.0 for n in range(100)]
    o0, o2 = run(JACOBI, None, {"A": a}), run(JACOBI, O2, {"A": a})
    assert repr(o2.outputs) == repr(o0.outputs)
    assert o2.time_ns * 100 < o0.time_ns, (o2.time_ns, o0.time_ns)


def test_an_inner_loop_over_the_same_variable_makes_the_outer_one_uncounted():
    # one variable (INCA-Q's for is i = lo; while i < hi ...): the inner loop steps the outer i
    text = ("output Y: i64[8]\nfor i in 0 .. 8 do {\n    if i < 4 then { Y[i] = 1 }\n"
            "    for i in i .. 5 do { Y[i] = Y[i] + 2 }\n}\n")
    said = remarks(text, O2)
    assert "not a counted loop: its body assigns i" in said and "[split]" not in said
    o0, o2 = run(text, None, {}), run(text, O2, {})
    assert o2.outputs == o0.outputs and o0.outputs["Y"] == [3, 2, 2, 2, 2, 0, 0, 0]


_INNER = ("j", "j - 2", "i + j", "i - j")


@settings(max_examples=int(os.environ.get("INCA_SPLIT_EXAMPLES", "60")), deadline=None)
@given(st.data(), st.sampled_from(_ARMS[:2] + ("Y[i * 4 + j] = X[j] + 1.0",)),
       st.sampled_from(_ARMS[:2] + ("s = s + X[i + j]",)), st.integers(0, 3), st.integers(5, 12))
def test_random_nested_splits_equal_O0(data, a, b, lo, hi):
    compare = st.tuples(st.sampled_from(_TERMS + _INNER), st.sampled_from(("<", "<=", ">", "==")),
                        st.integers(-4, 14)).map(lambda t: f"{t[0]} {t[1]} {t[2]}")
    cond = data.draw(st.recursive(st.one_of(compare, st.sampled_from(_DATA)), lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(("and", "or")), inner).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        inner.map(lambda c: f"not ({c})")), max_leaves=4))
    text = (f"input X: f64[64]\ninput K: i64[64]\noutput Y: f64[64]\noutput s: f64\n"
            f"for i in {lo} .. {hi} do {{\n    for j in 0 .. 4 do {{\n"
            f"        if {cond} then {{ {a} }} else {{ {b} }}\n    }}\n}}\n")
    inputs = {"X": XS, "K": [n % 7 for n in range(64)]}
    assert_as_at_O0(text, inputs)
