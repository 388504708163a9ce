"""Checking expressions, conditions and indices: a mixin of the checker (:mod:`.checker`).

A checked node that would equal its source node is the source node itself (the kernel's names are
kept as written), so checking a large kernel copies next to nothing; the common nodes are told
apart by their type before any pattern is matched.
"""
from __future__ import annotations

from operator import is_ as _is

from ...lang.diagnostics import did_you_mean
from ...lang.frozen import maker
from ...lang.isa import I64_MAX, I64_MIN
from .ast import Binary, BoolOp, Call, Compare, Expr, IfExpr, Index, Name, Not, Num, Unary
from .checked import Scope, Seq, Sym
from .flow import NUMBERS
from .modules import BUILTINS, calls_in

BITWISE = {"&", "|", "^", "<<", ">>"}
_Num = maker(Num)  # (lang/frozen.py: in fewer instructions; one for each use of a param)


class Expressions:
    """Checks value expressions and conditions (the checker provides error, call, truth_value,
    if_value, cond_operand and no_truth)."""

    def indices(self, e: Index, sym: Sym, scope: Scope) -> tuple | None:
        """Check an element's indices (count, i64, no calls)."""
        if sym.kind != "array":
            self.error(e, f"'{e.base}' is a {'param' if sym.kind == 'param' else 'scalar'} and "
                       "cannot be indexed")
            return None
        if len(e.indices) != len(sym.shape):
            self.error(e, f"'{e.base}' has {len(sym.shape)} dimension{'s' * (len(sym.shape) != 1)} "
                       f"but {len(e.indices)} {'index was' if len(e.indices) == 1 else 'indices were'} given")
            return None
        out = []
        for i in e.indices:
            pre, c, t = self.expr(i, scope)
            if c is None:
                return None
            # (a call's value is a Seq, not in pre; a name or a literal holds no call)
            if pre or (type(i) is not Name and type(i) is not Num and calls_in(i) - BUILTINS.keys()):
                self.error(i, "an index cannot call a function", "compute it into a scalar first")
                return None
            if t != "i64":
                self.error(i, "an index must be i64", "convert with i64(...)")
                return None
            size = sym.shape[len(out)]
            k = None if type(c) is Name else constant(c)
            if k is not None and size is not None and not 0 <= k < size:
                self.error(i, f"index {k} is out of bounds for '{e.base}' (dimension of size {size})",
                           f"valid indices are 0 to {size - 1}")
                return None
            out.append(c)
        return tuple(out)

    # ---- expressions ---------------------------------------------------------------------

    def literal(self, n: Num) -> None:
        """Reject an integer literal that does not fit in i64 (INCA-A has no wider integers)."""
        if not I64_MIN <= n.value <= I64_MAX:
            self.error(n, f"the integer {n.value} does not fit in i64",
                       "i64 values lie between -9223372036854775808 and 9223372036854775807")

    def expr(self, e: Expr, scope: Scope) -> tuple[list, Expr | None, str]:
        """Check a value expression: (statements to run first, checked expression, type).

        A checked node that would equal its source node is the source node itself (the kernel's
        names are kept as written), so checking a large kernel copies next to nothing."""
        kind = type(e)
        if kind is Name:
            n = e.id
            sym = scope.names.get(n)  # scope.lookup(n), its first step inline
            if sym is None:
                sym = scope.lookup(n)
            if sym is None or sym.kind != "scalar":
                return self.name_value(e, sym, scope)
            return [], (e if sym.name == n else Name(sym.name, e.loc)), sym.dtype
        if kind is Num:
            if not e.is_float:
                self.literal(e)
                return [], e, "i64"
            return [], e, "f64"
        if kind is Binary:
            op, a, b = e.op, e.left, e.right
            pa, ca, ta = self.expr(a, scope)
            pb, cb, tb = self.expr(b, scope)
            f64 = ta == "f64" or tb == "f64"
            if f64 and op in BITWISE:
                self.error(a if ta == "f64" else b, f"'{op}' is defined on i64 only",
                           "convert with i64(...)")
                return pa + pb, None, "i64"
            if ca is None or cb is None:
                return pa + pb, None, "i64"
            if f64 and (type(ca) not in NUMBERS or type(cb) not in NUMBERS) and (
                    self.no_truth(ca, f"an operand of '{op}' with an f64")
                    or self.no_truth(cb, f"an operand of '{op}' with an f64")):
                return pa + pb, None, "i64"
            return (pa + pb, e if ca is a and cb is b else Binary(op, ca, cb, e.loc),
                    "f64" if f64 else "i64")
        if kind is Index:
            b = e.base
            sym = scope.lookup(b)
            if sym is None:
                self.error(e, f"'{b}' is not defined", did_you_mean(b, scope.visible()))
                return [], None, "i64"
            idx = self.indices(e, sym, scope)
            if idx is None:
                return [], None, "i64"
            same = sym.name == b and all(map(_is, idx, e.indices))
            return [], e if same else Index(sym.name, idx, e.loc), sym.dtype
        if kind is Compare:
            op, a, b = e.op, e.left, e.right
            pa, ca, _ = self.expr(a, scope)
            pb, cb, _ = self.expr(b, scope)
            if ca is None or cb is None:
                return pa + pb, None, "i64"
            return pa + pb, e if ca is a and cb is b else Compare(op, ca, cb, e.loc), "i64"
        match e:
            case Unary(op=op, operand=x):
                pre, c, t = self.expr(x, scope)
                if op == "+":
                    return pre, c, t
                return pre, (Unary(op, c, e.loc) if c is not None else None), t
            case BoolOp() | Not():
                return self.truth_value(e, scope)
            case IfExpr():
                return self.if_value(e, scope)
            case Call():
                return self.call(e, scope, want_value=True)
        self.error(e, "unexpected expression")
        return [], None, "i64"

    def name_value(self, e: Name, sym: Sym | None, scope: Scope) -> tuple[list, Expr | None, str]:
        """A name that is not a scalar as a value: a param's value, or an error."""
        n = e.id
        if sym is None:
            where = f" in function '{scope.func}'" if scope.func else ""
            hint = did_you_mean(n, scope.visible())
            if scope.func and hint is None:
                hint = "functions see only their parameters and locals; pass it as an argument"
            self.error(e, f"'{n}' is not defined{where}", hint)
            return [], None, "i64"
        if sym.kind == "param":
            return [], _Num(sym.value, False, e.loc), "i64"
        self.error(e, f"'{n}' is an array; use an element such as {n}[i]")
        return [], None, sym.dtype

    def cond(self, e: Expr, scope: Scope):
        """Check a condition: comparisons combined with and/or/not. Calls inside stay as Seq."""
        match e:
            case BoolOp(op=op, left=a, right=b):
                ca, cb = self.cond_operand(a, scope), self.cond_operand(b, scope)
                if ca is None or cb is None:
                    return None
                return e if ca is a and cb is b else BoolOp(op, ca, cb, e.loc)
            case Not(operand=x):
                cx = self.cond_operand(x, scope)
                return Not(cx, e.loc) if cx is not None else None
            case Compare(op=op, left=a, right=b):
                pa, ca, _ = self.expr(a, scope)
                pb, cb, _ = self.expr(b, scope)
                if ca is None or cb is None:
                    return None
                if pa:
                    ca = Seq(tuple(pa), ca, a.loc)
                if pb:
                    cb = Seq(tuple(pb), cb, b.loc)
                return e if ca is a and cb is b else Compare(op, ca, cb, e.loc)
        self.expr(e, scope)
        self.error(e, "a condition must be a comparison", "e.g. while x > 0 do { ... }")
        return None


def constant(e) -> int | None:
    """The value of an integer expression made of literals only (params are literals by now)."""
    match e:
        case Num(value=v, is_float=False):
            return int(v)
        case Unary(op="-", operand=x):
            v = constant(x)
            return -v if v is not None else None
        case Binary(op="+" | "-" | "*", left=a, right=b):
            x, y = constant(a), constant(b)
            if x is None or y is None:
                return None
            return x + y if e.op == "+" else x - y if e.op == "-" else x * y
    return None
