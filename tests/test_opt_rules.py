"""z3 proofs of the optimiser's rule table (compiler/opt/rules.py) and of the reduction claims.

i64 rules are proven over 64-bit bit-vectors with INCA-A's semantics (wrapping, division toward
zero, shift counts mod 64); f64 rules in IEEE 754 binary64 with round-to-nearest-even, where
z3's ``==`` on floating-point terms is the bit-level identity (NaN equals NaN, -0.0 differs from
+0.0). A rule with flags must be false in IEEE arithmetic (else its flag is not needed) and true
once the flags' assumptions hold, and true over the reals.
"""
from __future__ import annotations

import os

import pytest

z3 = pytest.importorskip("z3")

from inca.compiler.opt.reduce import OPS, tree_ok  # noqa: E402
from inca.compiler.opt.rules import FAST_MATH, RULES, Rule, find  # noqa: E402

F64 = z3.Float64()
RNE = z3.RNE()


def i64_op(op: str, a, b):
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b,
            "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
            "<<": lambda: a << (b & 63), ">>": lambda: a >> (b & 63),
            "min": lambda: z3.If(a < b, a, b), "max": lambda: z3.If(a > b, a, b)}[op]()


def f64_min(a, b):
    """INCA-A's MIN: NaN propagates, -0.0 is below +0.0 (lang/isa.py _fmin)."""
    nan = z3.fpNaN(F64)
    pick = z3.Or(z3.fpLT(a, b), z3.And(z3.fpEQ(a, b), z3.fpIsNegative(a)))
    return z3.If(z3.Or(z3.fpIsNaN(a), z3.fpIsNaN(b)), nan, z3.If(pick, a, b))


def f64_max(a, b):
    nan = z3.fpNaN(F64)
    pick = z3.Or(z3.fpGT(a, b), z3.And(z3.fpEQ(a, b), z3.fpIsPositive(a)))
    return z3.If(z3.Or(z3.fpIsNaN(a), z3.fpIsNaN(b)), nan, z3.If(pick, a, b))


def f64_op(op: str, a, b):
    return {"+": lambda: z3.fpAdd(RNE, a, b), "-": lambda: z3.fpSub(RNE, a, b),
            "*": lambda: z3.fpMul(RNE, a, b), "/": lambda: z3.fpDiv(RNE, a, b),
            "min": lambda: f64_min(a, b), "max": lambda: f64_max(a, b)}[op]()


def real_op(op: str, a, b):
    return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b, "/": lambda: a / b}[op]()


def sides(r: Rule, x, c, op):
    """(lhs, rhs) of the rule for each side it applies on."""
    rhs = x if r.result == "x" else c
    out = []
    if r.side in ("right", "both"):
        out.append((op(r.op, x, c), rhs))
    if r.side in ("left", "both"):
        out.append((op(r.op, c, x), rhs))
    return out


def valid(claim) -> bool:
    s = z3.Solver()
    s.add(z3.Not(claim))
    return s.check() == z3.unsat


@pytest.mark.parametrize("rule", [r for r in RULES if r.dtype == "i64"], ids=lambda r: r.name)
def test_i64_rule_is_an_identity_on_64_bit_vectors(rule):
    x = z3.BitVec("x", 64)
    c = z3.BitVecVal(rule.const, 64)
    for lhs, rhs in sides(rule, x, c, i64_op):
        assert valid(lhs == rhs), rule


@pytest.mark.parametrize("rule", [r for r in RULES if r.dtype == "f64"], ids=lambda r: r.name)
def test_f64_rule_holds_bit_for_bit_exactly_when_it_has_no_flags(rule):
    x = z3.FP("x", F64)
    c = z3.FPVal(rule.const, F64)
    for lhs, rhs in sides(rule, x, c, f64_op):
        assert valid(lhs == rhs) == (not rule.flags), rule
        if rule.flags:  # under its assumptions: finite where nnan/ninf, zeros equal where nsz
            assume = []
            if "nnan" in rule.flags:
                assume.append(z3.Not(z3.fpIsNaN(x)))
            if "ninf" in rule.flags:
                assume.append(z3.Not(z3.fpIsInf(x)))
            same = z3.Or(lhs == rhs, z3.And(z3.fpIsZero(lhs), z3.fpIsZero(rhs))) \
                if "nsz" in rule.flags else lhs == rhs
            assert valid(z3.Implies(z3.And(*assume), same)), rule


@pytest.mark.parametrize("rule", [r for r in RULES if r.dtype == "f64"], ids=lambda r: r.name)
def test_f64_rule_holds_over_the_reals(rule):
    if rule.op not in ("+", "-", "*", "/"):
        pytest.skip("no real counterpart")
    x = z3.Real("x")
    c = z3.RealVal(rule.const)
    for lhs, rhs in sides(rule, x, c, real_op):
        assert valid(lhs == rhs), rule


def test_flags_are_granted_only_by_fast_math():
    flagged = [r for r in RULES if r.flags]
    assert flagged and all(set(r.flags) <= FAST_MATH for r in flagged)
    for r in flagged:
        assert find(r.op, r.const, r.side != "left", r.dtype, frozenset()) is None
        assert find(r.op, r.const, r.side != "left", r.dtype, FAST_MATH) is not None


def test_the_sign_of_a_zero_constant_matters():
    assert find("+", -0.0, True, "f64", frozenset()).name == "fadd-negzero"
    assert find("+", 0.0, True, "f64", frozenset()) is None


# ---- the reduction claims (reduce.py): which operators may become trees at -O2 ------------------

#: Witnesses that f64 + and * do not reassociate (z3 takes long to find its own).
WITNESS = {"+": (0.1, 0.2, 0.3), "*": (1e308, 10.0, 0.1)}


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("dtype", ("i64", "f64"))
def test_tree_reductions_are_exactly_those_that_reassociate(op, dtype):
    if dtype == "f64" and op in ("&", "|", "^"):
        pytest.skip("i64 only")
    assert tree_ok(op, dtype, fast=True)
    if not tree_ok(op, dtype, fast=False):  # f64 + and *: a witness shows the difference
        a, b, c = (z3.FPVal(v, F64) for v in WITNESS[op])
        left, right = f64_op(op, f64_op(op, a, b), c), f64_op(op, a, f64_op(op, b, c))
        assert z3.is_false(z3.simplify(left == right)), op
        return
    if dtype == "i64":
        a, b, c = (z3.BitVec(n, 64) for n in "abc")
        f = i64_op
    else:
        a, b, c = (z3.FP(n, F64) for n in "abc")
        f = f64_op
    assert valid(f(op, f(op, a, b), c) == f(op, a, f(op, b, c)))
    assert valid(f(op, a, b) == f(op, b, a))


def _term(t, v: dict, dtype: str):
    """A rules.Identity term over z3 (INCA-A's semantics in dtype)."""
    if isinstance(t, str):
        return v[t]
    if isinstance(t, int):
        return z3.BitVecVal(t, 64) if dtype == "i64" else z3.FPVal(float(t), F64)
    op, *args = t
    a = [_term(x, v, dtype) for x in args]
    if op == "ite":
        return z3.If(*a)
    if op in ("and", "or", "not"):
        return {"and": z3.And, "or": z3.Or, "not": z3.Not}[op](*a)
    if op == "bool":
        one, zero = (z3.BitVecVal(1, 64), z3.BitVecVal(0, 64)) if dtype == "i64" else \
            (z3.FPVal(1.0, F64), z3.FPVal(0.0, F64))
        return z3.If(a[0], one, zero)
    if op in ("max", "min"):
        return (i64_op if dtype == "i64" else f64_op)(op, *a)
    if dtype == "i64":
        return {"+": lambda: a[0] + a[1], "-": lambda: a[0] - a[1], "*": lambda: a[0] * a[1],
                "&": lambda: a[0] & a[1], "|": lambda: a[0] | a[1], "^": lambda: a[0] ^ a[1],
                "<": lambda: a[0] < a[1],
                "<=": lambda: a[0] <= a[1], ">": lambda: a[0] > a[1], ">=": lambda: a[0] >= a[1],
                "==": lambda: a[0] == a[1], "!=": lambda: a[0] != a[1]}[op]()
    return {"+": lambda: z3.fpAdd(RNE, *a), "-": lambda: z3.fpSub(RNE, *a), "*": lambda: z3.fpMul(RNE, *a),
            "<": lambda: z3.fpLT(*a), "<=": lambda: z3.fpLEQ(*a), ">": lambda: z3.fpGT(*a),
            ">=": lambda: z3.fpGEQ(*a), "==": lambda: z3.fpEQ(*a),
            "!=": lambda: z3.Not(z3.fpEQ(*a))}[op]()


def _vars(t, out: set) -> set:
    if isinstance(t, str):
        out.add(t)
    elif isinstance(t, tuple):
        for x in t[1:]:
            _vars(x, out)
    return out


from inca.compiler.opt.rules import IDENTITIES, identity  # noqa: E402


#: Rows z3 proves in binary64 only in minutes (bit-blasting two adders: 3 minutes for + and half a
#: minute for *): the default suite proves them in binary16, whose IEEE arithmetic z3 defines by
#: the same rules at another width (2 s); INCA_FULL_PROOFS=1 proves them in binary64.
SLOW = ("commute+-f64", "commute*-f64")


@pytest.mark.parametrize("row", IDENTITIES, ids=lambda r: r.name)
def test_every_identity_of_the_table_is_proven(row):
    names = _vars(row.lhs, set()) | _vars(row.rhs, set())
    sort = z3.Float16() if row.name in SLOW and not os.environ.get("INCA_FULL_PROOFS") else F64
    v = {n: z3.Bool(n) if n in ("c", "d") else z3.BitVec(n, 64) if row.dtype == "i64" else z3.FP(n, sort)
         for n in names}
    assert valid(_term(row.lhs, v, row.dtype) == _term(row.rhs, v, row.dtype)), row.name


def test_a_pass_names_only_rules_of_the_table():
    with pytest.raises(KeyError):
        identity("no-such-rule")
