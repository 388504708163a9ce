"""Conditions as values: the truth of a condition as an i64 1 or 0 without a branch
(:func:`truth_bits`), when that may be computed whole (:func:`eager_safe`), and divisions a test
for 0 guards made safe (:func:`safe_divisions`). The vocabulary of the passes that if-convert
(``ifconvert``, ``compact``, ``reduce``'s conditional sums)."""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Binary, BoolOp, Compare, Expr, For, Not, Num
from ..incaq.checked import Sym, type_of
from .ir import Kernel, cannot_fault, const_int, map_expr, safe_divisor
from .rules import NEGATED, identity


def nonzero_guard(c, when: bool) -> Expr | None:
    """The n of a condition c that is ``n != 0`` where c is ``when`` (``n == 0`` where it is
    not; ``0 != n`` and ``0 == n`` too), else None."""
    if not (isinstance(c, Compare) and c.op in ("!=", "==")):
        return None
    n = c.left if c.right == Num(0, False) else c.right if c.left == Num(0, False) else None
    return n if (c.op == "!=") == when else None


def safe_divisions(e, n, syms: dict[str, Sym]) -> Expr:
    """e with each i64 division or remainder by n dividing by :func:`safe_divisor` (n) instead:
    the same value wherever n != 0, and never a fault (rules ``safe-divisor``,
    ``safe-divisor-nonzero``)."""
    if n is None or type_of(n, syms) != "i64":
        return e

    def fn(x):
        if isinstance(x, Binary) and x.op in ("/", "%") and x.right == n and type_of(x, syms) == "i64":
            identity("safe-divisor")
            identity("safe-divisor-nonzero")
            return replace(x, right=safe_divisor(n))
        return x
    return map_expr(e, fn)


def _guarded_right(c: BoolOp, syms: dict[str, Sym]) -> Expr:
    """The right side of ``a and b`` (``a or b``), its divisions by n safe when a is ``n != 0``
    (``n == 0``): b is evaluated only where n != 0, so its value is the same there."""
    return safe_divisions(c.right, nonzero_guard(c.left, c.op == "and"), syms)


def truth_bits(c, syms: dict[str, Sym]) -> Expr:
    """The truth of the condition c as an i64 1 or 0, computed without a branch: a comparison is
    its own value; ``a and b`` is ``a & b`` and ``a or b`` is ``a | b`` (rules ``and-bits``,
    ``or-bits``); ``not`` negates an i64 comparison (``not<`` ...; an f64 one differs on NaN)
    and takes anything else ``^ 1`` (``not-bits``); any other value v is ``v != 0``, the truth
    a branch tests. Both sides of ``and`` and ``or`` are evaluated now: the caller has made sure
    that c cannot fault (:func:`eager_safe`), the right side's divisions by an n the left side
    tests for 0 dividing by a safe divisor (``n != 0 and x / n > 3``)."""
    match c:
        case Compare():
            return c
        case BoolOp(op=op, left=a):
            identity(f"{op}-bits")
            return Binary("&" if op == "and" else "|", truth_bits(a, syms),
                          truth_bits(_guarded_right(c, syms), syms), c.loc)
        case Not(operand=Compare(op=op) as x) if type_of(x.left, syms) == type_of(x.right, syms) \
                == "i64":
            identity(f"not{op}")
            return replace(x, op=NEGATED[op])
        case Not(operand=x):
            identity("not-bits")
            return Binary("^", truth_bits(x, syms), Num(1, False, c.loc), c.loc)
    zero = Num(0.0, True, c.loc) if type_of(c, syms) == "f64" else Num(0, False, c.loc)
    return Compare("!=", c, zero, c.loc)


def eager_safe(c, k: Kernel, loop: For | None) -> bool:
    """Whether the condition c may be evaluated whole (:func:`truth_bits`) in every iteration of
    ``loop`` (a counted loop with constant bounds): every operand ``and`` and ``or`` may skip
    cannot fault there (with its divisions by an n the other side tests for 0 made safe, as
    :func:`truth_bits` makes them)."""
    if loop is None:
        return False
    lo, hi = const_int(loop.lo), const_int(loop.hi)
    if lo is None or hi is None:
        return False
    match c:
        case BoolOp(left=a):
            return eager_safe(a, k, loop) and cannot_fault(_guarded_right(c, k.syms), k, loop, lo, hi)
        case Not(operand=x):
            return eager_safe(x, k, loop)
    return True
