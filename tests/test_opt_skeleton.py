"""The skeleton check (compiler/opt/skeleton.py) is sound: whenever it says two terms are equal,
z3 finds no input that tells them apart; and it settles the choices verify.py needs it for."""
from __future__ import annotations

import os

import z3
from hypothesis import given, settings
from hypothesis import strategies as st

from inca.compiler.opt.skeleton import Skeleton
from inca.compiler.opt.symexec import F64

X = [z3.FP(f"x{k}", F64) for k in range(3)]
V = [z3.BitVec(f"v{k}", 64) for k in range(3)]
ZERO = z3.FPVal(0.0, F64)


def conds():
    return st.sampled_from([z3.fpGT(X[0], ZERO), z3.fpLT(X[1], X[0]), z3.fpIsNaN(X[2]),
                            V[0] < 3, V[1] == V[2], z3.BoolVal(True)])


def fp_terms():
    leaves = st.sampled_from(X + [ZERO, z3.FPVal(-0.0, F64), z3.fpAdd(z3.RNE(), X[0], X[1])])
    return st.recursive(leaves, lambda t: st.builds(z3.If, conds(), t, t), max_leaves=8)


def bv_terms():
    leaves = st.sampled_from(V + [z3.BitVecVal(0, 64), z3.BitVecVal(1, 64), V[0] + 1])
    counts = st.recursive(st.sampled_from([z3.BitVecVal(0, 64), z3.BitVecVal(1, 64)]),
                          lambda t: st.builds(lambda c, a, b: z3.If(c, a + 1, b), conds(), t, t),
                          max_leaves=4)
    return st.recursive(leaves | counts, lambda t: st.builds(z3.If, conds(), t, t), max_leaves=8)


def differ(ok, x, y) -> z3.CheckSatResult:
    s = z3.Solver()
    s.add(ok, x != y)
    return s.check()


@settings(max_examples=int(os.environ.get("INCA_SKELETON_EXAMPLES", "150")), deadline=None)
@given(st.one_of(st.tuples(fp_terms(), fp_terms()), st.tuples(bv_terms(), bv_terms())),
       st.sampled_from([z3.BoolVal(True), z3.fpGT(X[0], ZERO), V[0] < 3]))
def test_equal_skeletons_mean_equal_terms(pair, ok):
    x, y = pair
    if Skeleton().proves_equal(ok, x, y, 5000):
        assert differ(ok, x, y) == z3.unsat


def test_a_reordered_choice_is_proven_and_a_swapped_one_is_not():
    p, q = z3.fpGT(X[0], ZERO), z3.fpGT(X[1], ZERO)
    x = z3.If(p, z3.If(q, X[0], X[1]), X[2])
    y = z3.If(z3.And(p, q), X[0], z3.If(z3.Not(p), X[2], X[1]))
    assert Skeleton().proves_equal(z3.BoolVal(True), x, y, 5000)
    assert not Skeleton().proves_equal(z3.BoolVal(True), x, z3.If(p, X[2], X[1]), 5000)


def test_a_count_stays_exact_and_data_becomes_leaves():
    p = z3.fpGT(X[0], ZERO)
    count = z3.If(p, z3.BitVecVal(1, 64), z3.BitVecVal(0, 64))
    sk = Skeleton()
    assert sk.of(count + 1).sort() == z3.BitVecSort(64)  # the count: rebuilt, not a leaf
    assert sk.of(z3.If(p, V[0], V[1])).sort() == z3.BitVecSort(sk.width)  # data: leaf numbers
    assert len(sk.atoms) == 1 and len(sk.leaves) == 2
