"""Dependence: can two iterations of a loop touch the same element? Decided exactly by z3.

An access is an array name and its index expressions, affine in the loop variable, in scalars the
loop does not write (the same value in both iterations) and, for a vector index (:class:`Span`),
in a position variable running over the span. Two accesses conflict when some pair of distinct
iterations ``i1 != i2`` in the loop's range makes every index equal. The question is a small
linear integer problem; z3 answers it exactly (z3 is imported only when a loop is analysed).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..incaq.ast import Index
from ..incaq.checked import Sym
from .ir import Span, affine


@dataclass(frozen=True)
class Access:
    """One array access of a loop body: ``write`` tells a store from a load."""

    array: str
    index: tuple
    write: bool
    stmt: int
    node: Index


class NotAffine(Exception):
    """An index is not an affine expression of loop-invariant scalars."""


def _linear(z3, e, syms: dict[str, Sym], env: dict, fresh: list):
    if isinstance(e, Span):
        t = z3.Int(f"t{len(fresh)}")
        fresh.append((t, e.length))
        return _linear(z3, e.start, syms, env, fresh) + t * e.step
    a = affine(e, syms)
    if a is None:
        raise NotAffine(e)
    out = z3.IntVal(a[0])
    for n, c in a[1].items():
        out = out + c * env.get(n, z3.Int(n))  # z3.Int(n) is one symbol wherever it is made
    return out


def conflict(a: Access, b: Access, var: str, lo: int, hi: int, syms: dict[str, Sym],
             ranges: dict[str, tuple[int, int]]) -> bool:
    """Whether iterations ``i1 != i2`` of ``for var in lo .. hi`` give a and b a common element.

    ``ranges`` bounds other scalars (enclosing loop variables), which are the same in both
    iterations. Raises NotAffine when an index cannot be analysed."""
    import z3

    i1, i2 = z3.Int("__i1"), z3.Int("__i2")
    solver = z3.Solver()
    solver.set("timeout", 2000)
    fresh: list = []
    for x, y in zip(a.index, b.index):
        solver.add(_linear(z3, x, syms, {var: i1}, fresh) == _linear(z3, y, syms, {var: i2}, fresh))
    for t, n in fresh:
        solver.add(t >= 0, t < n)
    for n, (rlo, rhi) in ranges.items():
        solver.add(z3.Int(n) >= rlo, z3.Int(n) < rhi)
    solver.add(i1 >= lo, i1 < hi, i2 >= lo, i2 < hi, i1 != i2)
    return solver.check() != z3.unsat
