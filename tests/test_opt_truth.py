"""Conditions with ``and``, ``or`` and ``not`` as values (``conditions.truth_bits``): where if-conversion
turns a condition into a number (a count, a 1/0 select, arithmetic arms, a conditional sum, a
conditional append), ``a and b`` is ``a & b``, ``a or b`` is ``a | b`` and ``not`` a negated
compare or ``^ 1``, so the loop has no branch and vectorises; only where what short-circuiting
skips cannot fault (``conditions.eager_safe``). Random conditions against -O0 (60 in the suite,
``INCA_TRUTH_EXAMPLES=N`` for more)."""
from __future__ import annotations

import math
import os
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_opt_passes import FAST, O2, asm, run
from test_opt_programs import close, same

from inca.compiler.incaq.ast import Binary, BoolOp, Compare, Name, Not, Num
from inca.compiler.incaq.checked import Sym
from inca.compiler.opt.conditions import truth_bits
from inca.interpreter.engine import RuntimeFault

HEAD = "input X: i64[64]\ninput Z: f64[64]\n"
SHAPES = {
    "count": "output c: i64\nfor i in 0 .. 64 do {{ if {c} then {{ c = c + 1 }} }}\n",
    "flag": ("output F: i64[64]\n"
             "for i in 0 .. 64 do {{ if {c} then {{ F[i] = 1 }} else {{ F[i] = 0 }} }}\n"),
    "unflag": ("output F: i64[64]\n"
               "for i in 0 .. 64 do {{ if {c} then {{ F[i] = 0 }} else {{ F[i] = 1 }} }}\n"),
    "arms": ("output F: i64[64]\nfor i in 0 .. 64 do {{ if {c} then {{ F[i] = X[i] * 2 }} "
             "else {{ F[i] = X[i] - 7 }} }}\n"),
    "sum": "output s: i64\nfor i in 0 .. 64 do {{ if {c} then {{ s = s + X[i] }} }}\n",
    "append": ("output B: i64[64]\noutput n: i64\n"
               "for i in 0 .. 64 do {{ if {c} then {{ B[n] = X[i]; n = n + 1 }} }}\n"),
}
X = [(-1) ** n * (n * 7919 % 1000) for n in range(62)] + [-(1 << 63), (1 << 63) - 1]
Z = [math.nan, -0.0, 0.0, math.inf, -math.inf] + [(n * 37 % 101) * 0.125 - 6.0 for n in range(59)]
INPUTS = {"X": X, "Z": Z}


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("cond", ("X[i] > 0 and X[i] < 500", "X[i] == 3 or Z[i] > 1.0",
                                  "not (Z[i] < 0.5)", "not (X[i] >= 9) and X[i] % 4 != 1",
                                  "X[i] and not Z[i]"))
def test_a_condition_with_and_or_not_loses_its_branch_and_stays_exact(shape, cond):
    text = HEAD + SHAPES[shape].format(c=cond)
    o0, o2 = run(text, None, INPUTS), run(text, O2, INPUTS)
    assert repr(o2.outputs) == repr(o0.outputs)
    if shape == "append":
        # converted only where that is no slower than a branch never taken: the store and the
        # count cost more than a cheap condition's branch unless the count vectorises
        assert o2.time_ns <= o0.time_ns
        return
    assert asm(text, O2).count("BLEZ") == 0
    assert o2.time_ns * 4 < o0.time_ns, (o2.time_ns, o0.time_ns)


@pytest.mark.parametrize("cond", ("X[i] != 0 and X[i + 1] > X[i]", "X[i] > 0 and 100 / X[i] > 3",
                                  "X[i] != 0 and 100 / Z2[i] > 3"))
@pytest.mark.parametrize("shape", ("count", "flag", "arms", "sum"))
def test_a_guard_that_short_circuiting_needs_keeps_its_branch(shape, cond):
    # X[i + 1] past the end (X[63] is 0), or a division by 0, is what `and` / `or` skips here
    # (a guard on i alone, `i < 63 and ...`, is split off instead: test_opt_split.py; `n != 0`
    # guarding a division by n itself, below)
    text = (HEAD + SHAPES[shape].format(c=cond)).replace("output", "input Z2: i64[64]\noutput", 1)
    inputs = {"X": [n % 3 for n in range(64)], "Z": Z, "Z2": [n % 3 for n in range(64)]}
    assert "BLEZ" in asm(text, O2)
    assert run(text, O2, inputs).outputs == run(text, None, inputs).outputs


@pytest.mark.parametrize("cond", ("X[i] != 0 and 100 / X[i] > 3", "X[i] == 0 or 100 % X[i] > 1",
                                  "not (0 == X[i] or 100 / X[i] > 3)"))
@pytest.mark.parametrize("shape", ("count", "flag", "arms"))
def test_a_division_guarded_by_its_divisor_s_test_loses_its_branch(shape, cond):
    # `n != 0 and x / n ...`: the right side divides by n + (n == 0), n where it ran before and
    # never 0 (rules safe-divisor, safe-divisor-nonzero)
    text = HEAD + SHAPES[shape].format(c=cond)
    inputs = {"X": [n % 3 - (n % 7 == 0) * (1 << 62) for n in range(64)], "Z": Z}
    assert "BLEZ" not in asm(text, O2)
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert o2.outputs == o0.outputs and o2.time_ns * 4 < o0.time_ns


def test_truth_bits_builds_bitwise_operations_and_negated_compares():
    syms = {"a": Sym("a", "scalar", "i64"), "x": Sym("x", "scalar", "f64")}
    a, x = Name("a"), Name("x")
    lt, flt = Compare("<", a, Num(3, False)), Compare("<", x, Num(0.5, True))
    assert truth_bits(lt, syms) is lt
    assert truth_bits(BoolOp("and", lt, flt), syms) == Binary("&", lt, flt)
    assert truth_bits(BoolOp("or", lt, flt), syms) == Binary("|", lt, flt)
    assert truth_bits(Not(lt), syms) == Compare(">=", a, Num(3, False))
    # not of an f64 compare is true on NaN, where the negated compare is false
    assert truth_bits(Not(flt), syms) == Binary("^", flt, Num(1, False))
    assert truth_bits(a, syms) == Compare("!=", a, Num(0, False))
    assert truth_bits(Not(x), syms) == Binary("^", Compare("!=", x, Num(0.0, True)), Num(1, False))


def test_a_division_by_a_nonzero_constant_and_min_max_abs_cannot_fault():
    # so a condition or an arm with them is evaluated in every iteration
    text = HEAD + SHAPES["sum"].format(c="X[i] / 7 > 2 and max(X[i] % 5, 0) < abs(X[i] / -1)")
    o0, o2 = run(text, None, INPUTS), run(text, O2, INPUTS)
    assert o2.outputs == o0.outputs and o2.time_ns * 5 < o0.time_ns
    # i64() of an f64 may fault (NaN): the branch stays
    text = HEAD + SHAPES["sum"].format(c="X[i] > 0 and i64(Z[i]) > 2")
    assert "BLEZ" in asm(text, O2)
    inputs = {"X": X, "Z": [math.nan if x <= 0 else 2.5 for x in X]}
    assert run(text, O2, inputs).outputs == run(text, None, inputs).outputs


_LEAVES = ("X[i] > 5", "X[i] <= -3", "X[i] == 0", "Z[i] < 0.5", "Z[i] != Z[i]", "X[i]", "Z[i]",
           "X[i] % 3 == 1", "100 / X[i] > 7", "X[i] != 0", "7 % X[i] != 1")


def _conditions():
    leaf = st.sampled_from(_LEAVES)
    return st.recursive(leaf, lambda inner: st.one_of(
        st.tuples(st.sampled_from(("and", "or")), inner, inner).map(
            lambda t: f"({t[1]} {t[0]} {t[2]})"),
        inner.map(lambda c: f"not {c}" if c.startswith("(") else f"not ({c})")),
        max_leaves=4).filter(lambda c: c not in ("X[i]", "Z[i]"))  # (a bare value is no condition)


@settings(max_examples=int(os.environ.get("INCA_TRUTH_EXAMPLES", "60")), deadline=None)
@given(_conditions(), st.sampled_from(sorted(SHAPES)),
       st.lists(st.integers(-4, 6), min_size=64, max_size=64))
def test_random_conditions_equal_O0(cond, shape, xs):
    text = HEAD + SHAPES[shape].format(c=cond)
    inputs = {"X": xs, "Z": [math.nan if x == 6 else x * 0.25 for x in xs]}
    o0 = _outcome(text, None, inputs)
    for level, equal in ((O2, same), (FAST, close)):
        opt = _outcome(text, level, inputs)
        if isinstance(o0, str):  # a fault at -O0: the same one at every level
            assert opt == o0, (text, level)
            continue
        assert not isinstance(opt, str), (text, level, opt)
        assert all(equal(opt.outputs[n], o0.outputs[n]) for n in o0.outputs), (text, level)
        assert opt.time_ns <= o0.time_ns, (text, level)


def _outcome(text, level, inputs):
    """The run's result, or the message of its fault."""
    try:
        return run(text, level, inputs)
    except RuntimeFault as fault:
        return fault.message


def test_an_f64_compare_read_as_a_value_is_not_converted_first():
    # n = n + (X[i] < Z[i]): ADD converts the compare's 1.0 / 0.0 itself (INCA-A's mixed
    # operands), so the step costs what the untaken branch did (the loop stays scalar: it
    # assigns its variable)
    text = ("input X: f64[8]\ninput Z: f64[8]\noutput n: i64\noutput Y: f64[8]\nfor i in 0 .. 8 do {\n"
            "    Y[i] = X[i]\n    if X[i] < Z[i] then { n = n + 1 }\n    if X[i] > 9.0 then { i = i + 1 }\n}\n")
    # the compare into an f64 temporary, then straight into the ADD
    assert re.search(r"LT (r\d+), \1, Z\[i\]\n *\d+ ADD n, n, \1\n", asm(text, O2))
    xs, zs = [0.5, float("nan"), -1.0, 3.0, 9.5, 2.0, -0.0, 1.0], [1.0, 0.0, -2.0, 4.0, 0.0, 2.0, 0.0, 7.0]
    o0, o2 = run(text, None, {"X": xs, "Z": zs}), run(text, O2, {"X": xs, "Z": zs})
    assert repr(o2.outputs) == repr(o0.outputs) and o2.time_ns <= o0.time_ns


def test_an_f64_compare_read_by_a_bitwise_operation_is_converted_first():
    # XOR, AND and OR are i64 only: there the compare's 1.0 / 0.0 is put into an i64 temporary
    # (the optimiser fuzzer found `... ^ (0.0 < p0)` refused by the assembler)
    text = ("input A: f64[4]\ninput V: i64[4]\noutput Y: i64[4]\noutput z: i64\n"
            "for i in 0 .. 4 do { Y[i] = V[i] ^ (A[i] < 0.5) }\nz = (z + 3) ^ (A[0] < 1.0) | (A[1] > 0.0)\n")
    from inca.compiler.assembler import assemble_text

    listing = asm(text, O2)
    assemble_text(listing)  # the assembler checks every operand's type
    inputs = {"A": [0.25, float("nan"), 1.5, -0.0], "V": [6, -71, 9, 0]}
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert o2.outputs == o0.outputs and o0.outputs["Y"] == [7, -71, 9, 1]
