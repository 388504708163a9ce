"""Pass ``combine`` (-O1): an operation's computed operand goes first, so the lowering computes it
in the destination.

The lowering evaluates ``a OP e`` left first: ``PUTL T, a``, e into a temporary, ``OP T, t``.
Written ``e OP a`` it computes e in T itself and then ``OP T, a``: one instruction (and a
temporary) fewer. So where a is a leaf and e an operation, an operation that commutes exactly is
turned round (rules ``commute+`` ... in rules.py, proven by z3): i64 ``+ * & | ^`` always; f64
``+`` and ``*`` only when a is a number (IEEE's + and * commute, but of two NaNs the first one's
bits are kept, as INCA-A's ADD keeps its destination's, and a scalar may hold a NaN; no literal
is one). And ``T = a`` followed by ``T = T OP e``, e not reading T, is ``T = e OP a`` (a of T's
own type): the convolution's ``s = 0.0; s = s + F[0][0] * P[i][j]``, made one vector statement
at -O2, is three instructions, not four.

e may not run statements (an inlined call's, which might write a), so evaluating it first reads
the same a; a leaf cannot fault, so no fault moves.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, Binary, DoWhile, For, If, Index, Name, Num, While, nodes
from ..incaq.checked import Seq, type_of
from .ir import Kernel, map_expr, names_read, with_blocks
from .remarks import Remarks
from .rules import IDENTITIES, identity

#: The operators the rule table says commute, by type (in f64, used only with a number).
_COMMUTING = {t: frozenset(r.lhs[0] for r in IDENTITIES if r.used_by == "combine" and r.dtype == t)
              for t in ("i64", "f64")}


def _commutes(op: str, leaf, e, dtype: str) -> bool:
    """Whether ``leaf OP e`` may be computed as ``e OP leaf`` in ``dtype`` (the operation's type)."""
    if any(isinstance(n, Seq) for n in nodes(e)):
        return False
    if dtype == "i64":
        return op in _COMMUTING["i64"] and isinstance(leaf, (Num, Name))
    return op in _COMMUTING["f64"] and isinstance(leaf, Num)


class Combiner:
    def __init__(self, k: Kernel):
        self.syms = k.syms
        self.turned = 0

    def turn(self, e):
        """``a OP e`` as ``e OP a`` where that is exact and e is an operation."""
        if isinstance(e, Binary) and isinstance(e.left, (Num, Name)) \
                and not isinstance(e.right, (Num, Name, Index)):
            try:
                dtype = type_of(e, self.syms)
            except (TypeError, KeyError):
                return e
            if _commutes(e.op, e.left, e.right, dtype):
                identity(f"commute{e.op}-{dtype}")
                self.turned += 1
                return Binary(e.op, e.right, e.left, e.loc)
        return e

    def pair(self, first, second):
        """``T = a; T = T OP e`` as the one statement ``T = e OP a``, or None."""
        if not (isinstance(first, Assign) and isinstance(second, Assign)
                and isinstance(first.value, (Num, Name)) and isinstance(second.value, Binary)):
            return None
        t, a, v = first.target, first.value, second.value
        base = t.id if isinstance(t, Name) else t.base
        if second.target != t or v.left != t or base in names_read(v.right) \
                or base in names_read(a) or (isinstance(t, Index) and base in names_read(t.indices)):
            return None
        dtype = self.syms[base].dtype
        try:
            if type_of(a, self.syms) != dtype:
                return None
            op_type = type_of(v, self.syms)
        except (TypeError, KeyError):
            return None
        if isinstance(v.right, (Num, Name, Index)) or not _commutes(v.op, a, v.right, op_type):
            return None
        identity(f"commute{v.op}-{op_type}")
        self.turned += 1
        return Assign(t, Binary(v.op, v.right, a, v.loc), second.loc)

    def stmt(self, s):
        """A statement with its operations turned (not ``T = T OP e``'s own: T is computed in
        place there)."""
        match s:
            case Assign(target=t, value=Binary(left=left) as v) if left == t:
                return replace(s, value=replace(v, right=self.turned_in(v.right)))
            case Assign(value=v):
                return replace(s, value=self.turned_in(v))
            case For(lo=lo, hi=hi):
                return replace(s, lo=self.turned_in(lo), hi=self.turned_in(hi))
            case While(cond=c) | If(cond=c) | DoWhile(cond=c):
                return replace(s, cond=self.turned_in(c))
        return s

    def turned_in(self, e):
        # (not inside indices: fire-time addressing computes an affine one whatever its order)
        return map_expr(e, self.turn, opaque=(Index,))

    def block(self, body: tuple) -> tuple:
        out: list = []
        for s in body:
            s = with_blocks(s, self.block)
            joined = self.pair(out[-1], s) if out else None
            if joined is not None:
                out[-1] = self.stmt(joined)
            else:
                out.append(self.stmt(s))
        return tuple(out)


def combine(k: Kernel, remarks: Remarks) -> Kernel:
    """Turn the operations whose left operand is a leaf and right one computed round, where exact."""
    c = Combiner(k)
    body = c.block(k.body)
    if c.turned:
        remarks.done(None, f"turned {c.turned} operation{'s' if c.turned != 1 else ''} a OP e into "
                     "e OP a, so that e is computed in the destination")
    return k.but(body)


__all__ = ["combine"]
