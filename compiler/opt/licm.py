"""Pass ``licm`` (-O1): loop-invariant code motion.

In a counted loop with constant bounds that runs at least twice, an operation whose operands the
loop never changes (``x = x + s * t`` with s and t invariant) is computed once before the loop
into a new private scalar, and the loop reads that. Only expressions of statements directly in
the loop's body move (one nested in an ``if`` might never have run, and it might fault), and the
loop certainly runs, so the work moved is work -O0 does too: never slower, same values (the
expression is evaluated in its own type either way).
"""
from __future__ import annotations

from ...lang.frozen import fields, is_record, replace
from ..incaq.ast import (Assign, Binary, BoolOp, Call, Compare, For, IfExpr, Index, Name, Not, Num,
                         Unary, nodes)
from ..incaq.checked import Seq, Sym, type_of
from . import show
from .ir import Kernel, const_int, map_stmts, names_read, names_written
from .remarks import Remarks

#: Nodes whose value is an operand already (nothing to save by moving them), that hold
#: statements (an inlined call runs where it is), or whose parts may not all run (short circuits).
_LEAVES = (Num, Name, Index, Seq, IfExpr, BoolOp, Not)
#: The operations that may move.
_MOVABLE = (Binary, Unary, Compare, Call)


class Mover:
    def __init__(self, k: Kernel, remarks: Remarks):
        self.k, self.remarks = k, remarks

    def loop(self, s):
        if not isinstance(s, For):
            return (s,)
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None or hi - lo < 2:
            return (s,)
        written = names_written(s.body) | {s.var}
        before, body = [], []
        for x in s.body:
            if isinstance(x, Assign):
                hoisted: dict = {}

                def move(e, hoisted=hoisted):
                    if not isinstance(e, _MOVABLE) or not self.invariant(e, written):
                        return e
                    if e not in hoisted:
                        name = self.k.fresh("inv")
                        self.k.syms[name] = Sym(name, "scalar", type_of(e, self.k.syms),
                                                implicit=True)
                        hoisted[e] = name
                        before.append(Assign(Name(name, e.loc), e, e.loc))
                        self.remarks.done(e.loc, f"{show.expr(e)} computed once before the loop "
                                          f"over {s.var}")
                    return Name(hoisted[e], e.loc)
                x = Assign(x.target, _outermost(x.value, move), x.loc)
            body.append(x)
        if not before:
            return (s,)
        return (*before, replace(s, body=tuple(body)))

    def invariant(self, e, written: set[str]) -> bool:
        if names_read(e) & written:
            return False
        return not any(isinstance(n, (Seq, IfExpr, BoolOp, Not)) or
                       (isinstance(n, Call) and n.func not in ("min", "max", "abs", "i64", "f64"))
                       for n in nodes(e))


def _outermost(e, move):
    """Apply ``move`` to the largest sub-expressions it replaces (top-down; indices are left
    alone: the address generator computes them for free)."""
    new = move(e)
    if new is not e or isinstance(e, _LEAVES):
        return new
    changes = {}
    for f in fields(e):
        if f.name == "loc":
            continue
        v = getattr(e, f.name)
        if isinstance(v, tuple):
            nv = tuple(_outermost(x, move) if is_record(x) else x for x in v)
        elif is_record(v):
            nv = _outermost(v, move)
        else:
            continue
        if nv != v:
            changes[f.name] = nv
    return replace(e, **changes) if changes else e


def licm(k: Kernel, remarks: Remarks) -> Kernel:
    """Move the invariant operations of counted loops before them."""
    return k.but(map_stmts(k.body, Mover(k, remarks).loop))
