"""Pass ``fold``: constant folding and the identities of the rule table (rules.py).

-O0 substitutes params as literals but computes ``N - 1`` at run time; here every operation on
literals is computed at compile time with INCA-A's own semantics (``lang/isa.py``: wrapping i64,
division toward zero, IEEE f64), so the folded value is the bit the NIC would have computed. An
operation that would fault (a division by zero, an f64 that does not fit an i64) is left alone, so
the fault still happens at run time. Identities (``x * 1``, ``x - 0.0``, ...) apply only when
``x`` has the expression's own type, and only those allowed at the current level's flags.
"""
from __future__ import annotations

import math

from ...lang.isa import ArithmeticFault, lookup, semantics, to_f64, to_i64
from ..incaq.ast import Binary, Call, Compare, Expr, If, Num, Unary, While
from ..incaq.checked import Seq, type_of
from ..incaq.lower import ALU, REL
from .ir import Kernel, map_expr, map_exprs_in, map_stmts
from .remarks import Remarks
from .rules import find


def _value(n: Num, dtype: str) -> int | float:
    return float(n.value) if dtype == "f64" else int(n.value)


def _num(v: int | float, dtype: str, like: Expr) -> Num | None:
    if dtype == "f64" and not math.isfinite(v):
        return None  # INCA-Q has no literal for inf or NaN: keep the operation
    return Num(float(v) if dtype == "f64" else int(v), dtype == "f64", like.loc)


def _may_fault(e) -> bool:
    from ..incaq.lower_flow import may_fault

    return may_fault(e)


class Folder:
    """Folds the expressions of one kernel."""

    def __init__(self, k: Kernel, flags: frozenset[str]):
        self.syms, self.flags = k.syms, flags
        self.folded = 0

    def fold(self, e):
        try:
            dtype = type_of(e, self.syms)
        except (TypeError, KeyError):
            return e
        if isinstance(e, Seq):  # an inlined call: its own ifs may have constant conditions
            pre = tuple(x for s in e.pre for x in _branch(s))
            return e if pre == e.pre else Seq(pre, e.value, e.loc)
        match e:
            case Binary(op=op, left=Num() as a, right=Num() as b) if op in ALU:
                return self.compute(ALU[op], a, b, dtype, e)
            case Call(func="min" | "max" as f, args=(Num() as a, Num() as b)):
                return self.compute(ALU[f], a, b, dtype, e)
            case Compare(op=op, left=Num() as a, right=Num() as b):
                kind = "f64" if a.is_float or b.is_float else "i64"
                return self.compute(REL[op], a, b, kind, e, result="i64")
            case Unary(op="-", operand=Num() as a):
                return self.compute("MUL", a, Num(-1, False, a.loc), dtype, e)
            case Call(func="f64", args=(Num() as a,)):
                return self.done(_num(to_f64(a.value), "f64", e), e)
            case Call(func="i64", args=(Num() as a,)):
                try:
                    return self.done(_num(to_i64(a.value), "i64", e), e)
                except ArithmeticFault:
                    return e
            case Binary(op=op, left=x, right=Num() as c):
                return self.identity(e, op, x, c, True, dtype)
            case Binary(op=op, left=Num() as c, right=x):
                return self.identity(e, op, x, c, False, dtype)
        return e

    def compute(self, mnemonic: str, a: Num, b: Num, dtype: str, e, result: str | None = None):
        fn = semantics(lookup(mnemonic), dtype)
        if fn is None:
            return e
        try:
            v = fn(_value(a, dtype), _value(b, dtype))
        except (ArithmeticFault, OverflowError):
            return e
        return self.done(_num(v, result or dtype, e), e)

    def identity(self, e, op: str, x, c: Num, right: bool, dtype: str):
        try:
            xtype = type_of(x, self.syms)
        except (TypeError, KeyError):
            return e
        const = float(c.value) if dtype == "f64" else c.value
        if dtype == "i64" and c.is_float:
            return e
        rule = find(op, const, right, dtype, self.flags)
        if rule is None:
            return e
        if rule.result == "x":
            return self.done(x, e) if xtype == dtype else e
        if _may_fault(x):
            return e
        return self.done(_num(rule.const, dtype, e), e)

    def done(self, new, old):
        if new is None:
            return old
        self.folded += 1
        return new


def _branch(s) -> tuple:
    """Branch simplification: an if or while whose condition folded to a constant."""
    match s:
        case If(cond=Num(value=v), then=t, orelse=o):
            return t if v != 0 else o
        case While(cond=Num(value=0)):
            return ()
    return (s,)


def fold(k: Kernel, remarks: Remarks, flags: frozenset[str] = frozenset()) -> Kernel:
    """Fold every expression of the kernel; drop the branches constant conditions never take."""
    f = Folder(k, flags)
    body = map_stmts(k.body, lambda s: _branch(map_exprs_in(s, lambda e: f.fold(e))))
    if f.folded:
        remarks.done(None, f"folded {f.folded} constant or identity operation"
                     f"{'s' if f.folded != 1 else ''}")
    return k.but(body)


__all__ = ["fold", "map_expr"]
