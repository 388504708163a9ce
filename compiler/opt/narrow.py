"""Pass ``narrow`` (-O2): a part of a vector statement that has fewer elements than the statement
is computed on its own, at its own shape, before it.

A vector statement computes every operation at its destination's shape, the operands
broadcasting to it: in ``Y[0:16][0:16] = (A[0:16][0:16] - m[0:16]) * (1.0 / (s[0:16] + 0.5))``
the two operations of ``1.0 / (s[0:16] + 0.5)`` would each run over 256 elements although the
part has 16 distinct values, one per column. Computed first as ``w1[0:16] = 1.0 / (s[0:16] +
0.5)``, it costs two 16-element instructions and a copy, and the statement reads ``w1[0:16]``,
which broadcasts as the part did (16 x 16 f64: 629 -> 318 ns at -O2). A count per bucket's
``(X[0:64] & 7) == C[0:8][0:1]`` over 8 x 64 computes ``X[0:64] & 7`` once (740 -> 615 ns).

Exact: the part is evaluated on exactly its distinct elements (broadcasting only repeats them),
from the same operands, just before the statement, which writes nothing the part reads before
reading its operands whole (a vector statement reads its sources before it stores). The shape
of a part is that of its operands broadcast (NumPy's rule, aligned on the right), as INCA-A
computes it. A part is taken whole (the largest that qualifies) when the estimate says it pays:
``(n + 1)`` instructions over its elements against ``n`` over the statement's
(:mod:`.estimate`'s vector rule), n its operations.
"""
from __future__ import annotations

from math import prod

from ..incaq.ast import Assign, Binary, Call, Compare, Index, Name, Num, Unary
from ..incaq.checked import Sym, type_of
from .estimate import operations, vector_ns
from .ir import Kernel, Span, map_stmts
from .remarks import Remarks


def _broadcast(a: tuple | None, b: tuple | None) -> tuple | None:
    if a is None or b is None:
        return None
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    if any(x != y and 1 not in (x, y) for x, y in zip(a, b)):
        return None
    return tuple(max(x, y) for x, y in zip(a, b))


def shape(e) -> tuple[int, ...] | None:
    """The shape of an expression's value (its operands' spans broadcast; a scalar is ``()``),
    None for a kind of node a part is not taken from."""
    match e:
        case Num() | Name():
            return ()
        case Index(indices=ix):
            return tuple(i.length for i in ix if isinstance(i, Span))
        case Binary(left=a, right=b) | Compare(left=a, right=b):
            return _broadcast(shape(a), shape(b))
        case Unary(operand=a):
            return shape(a)
        case Call(func="min" | "max" | "abs" | "f64" | "i64", args=args):
            out: tuple | None = ()
            for a in args:
                out = _broadcast(out, shape(a))
            return out
    return None


class Narrower:
    def __init__(self, k: Kernel, remarks: Remarks):
        self.k, self.remarks = k, remarks

    def stmt(self, s) -> tuple:
        if not (isinstance(s, Assign) and isinstance(s.target, Index)
                and any(isinstance(i, Span) for i in s.target.indices)):
            return (s,)
        whole = prod(shape(s.target) or (1,))
        before: list = []
        value = self.part(s.value, whole, before)
        if not before:
            return (s,)
        self.remarks.done(s.loc, f"{len(before)} part{'s' if len(before) > 1 else ''} of a vector "
                          f"statement of {whole:,} elements computed on {'their' if len(before) > 1 else 'its'} "
                          f"own ({', '.join(f'{prod(shape(x.target)):,}' for x in before)} elements)")
        return (*before, Assign(s.target, value, s.loc))

    def part(self, e, whole: int, before: list):
        """e with its largest parts that pay computed on their own (appended to ``before``)."""
        if isinstance(e, (Num, Name, Index)):
            return e
        sh = shape(e)
        ops = operations(e)
        if sh is not None and ops and (ops + 1) * vector_ns(prod(sh)) < ops * vector_ns(whole):
            name, dtype = self.k.fresh("w"), type_of(e, self.k.syms)
            if sh:
                self.k.syms[name] = Sym(name, "array", dtype, sh, "var", 0, e.loc)
                ref = Index(name, tuple(Span(Num(0, False, e.loc), n, 1, "narrow", e.loc)
                                        for n in sh), e.loc)
            else:  # (a scalar part: one scalar instruction per operation)
                self.k.syms[name] = Sym(name, "scalar", dtype, (), "var", 0, e.loc)
                ref = Name(name, e.loc)
            before.append(Assign(ref, e, e.loc))
            return ref
        match e:
            case Binary() | Compare():
                return type(e)(e.op, self.part(e.left, whole, before),
                               self.part(e.right, whole, before), e.loc)
            case Unary():
                return Unary(e.op, self.part(e.operand, whole, before), e.loc)
            case Call():
                return Call(e.func, tuple(self.part(a, whole, before) for a in e.args), e.loc)
        return e


def narrow(k: Kernel, remarks: Remarks) -> Kernel:
    """Compute the parts of the kernel's vector statements that have fewer elements on their own."""
    k = k.copy()
    n = Narrower(k, remarks)
    k.body = map_stmts(k.body, n.stmt)
    return k
