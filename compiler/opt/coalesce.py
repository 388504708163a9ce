"""Pass ``coalesce`` (-O2): an array that holds values only to be copied whole into another one
holds them there instead.

``distribute`` expands a scalar into an array V (an element per iteration) and the statement
that stored the scalar into the result becomes a copy ``Y[S] = V[T]`` after V is complete (the
convolution's ``s``, matvec's ``acc``); the vector statements before it compute V whole. Where V
is private to the kernel, every statement that names it names it as ``V[T]``, T being all of V,
those statements lie in one block and the copy is the last of them, the others name no element of
Y and write nothing S reads, and Y[S] has V's shape and type, the statements compute in Y[S]
itself and the copy goes: one vector PUTL fewer.

Y's elements receive their values earlier than in the source; a run that faults in between is a
fault at every level anyway (the outputs of a faulting run are not the program's), and nothing
reads Y in between.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, Index, nodes
from .ir import Kernel, Span, const_int, map_exprs_in, map_stmts, names_read, names_written, own_exprs, \
    stmts, with_blocks
from .remarks import Remarks


def _refs(body: tuple) -> list[Index]:
    """The array references of a block's statements (nested ones included), targets too."""
    return [n for s in stmts(body) for e in (*own_exprs(s), *_target(s)) for n in nodes(e)
            if isinstance(n, Index)]


def _target(s) -> tuple:
    return (s.target,) if isinstance(s, Assign) and isinstance(s.target, Index) else ()


def _whole(ref: Index, shape: tuple) -> bool:
    """Whether ``ref`` is all of an array of this shape, in order."""
    return len(ref.indices) == len(shape) and all(
        isinstance(x, Span) and const_int(x.start) == 0 and x.step == 1 and x.length == n
        for x, n in zip(ref.indices, shape))


class Coalescer:
    def __init__(self, k: Kernel, remarks: Remarks):
        self.k, self.remarks = k, remarks
        self.total: dict[str, int] = {}
        for n in _refs(k.body):
            self.total[n.base] = self.total.get(n.base, 0) + 1

    def block(self, body: tuple) -> tuple:
        body = tuple(with_blocks(s, self.block) for s in body)
        k = 0
        while k < len(body):
            new = self.at(body, k)
            if new is None:
                k += 1
            else:
                body, k = new
        return body

    def at(self, body: tuple, k: int):
        """The block with the copy ``body[k]`` coalesced, and where to go on; or None."""
        copy = body[k]
        if not (isinstance(copy, Assign) and isinstance(copy.target, Index)
                and isinstance(copy.value, Index)):
            return None
        y, v = copy.target, copy.value
        sv, sy = self.k.syms.get(v.base), self.k.syms.get(y.base)
        if sv is None or sy is None or v.base == y.base or sv.kind != "array" or sv.role != "var" \
                or sv.dtype != sy.dtype or v.base in self.k.inplace or not _whole(v, sv.shape):
            return None
        spans = [x for x in y.indices if isinstance(x, Span)]
        if [x.length for x in spans] != list(sv.shape):
            return None
        first = next(i for i in range(k + 1) if any(n.base == v.base for n in _refs(body[i:i + 1])))
        run = body[first:k]
        mine = [n for n in _refs(run) if n.base == v.base]
        # every mention of V is in the run and is V[T] (T, its tags included, is the dimensions
        # of its statement), the run names no element of Y and writes nothing S reads
        if len(mine) + 1 != self.total[v.base] or any(n != v for n in mine) \
                or any(n.base == y.base for n in _refs(run)) \
                or names_read(y.indices) & names_written(run):
            return None
        tags = iter(x.tag for x in v.indices)
        there = Index(y.base, tuple(replace(x, tag=next(tags)) if isinstance(x, Span) else x
                                    for x in y.indices), y.loc)

        def fn(e):
            return Index(there.base, there.indices, e.loc) if isinstance(e, Index) and e.base == v.base else e
        new = map_stmts(run, lambda x: (map_exprs_in(x, fn),))
        self.total[y.base] += len(mine) - 1
        self.total[v.base] = 0
        self.remarks.done(copy.loc, f"values computed in {y.base} itself, not in an array then "
                          f"copied into it")
        return body[:first] + new + body[k + 1:], first + len(new)


def coalesce(k: Kernel, remarks: Remarks) -> Kernel:
    """Compute the arrays that are only copied whole into another in that other array."""
    return k.but(Coalescer(k, remarks).block(k.body))


__all__ = ["coalesce"]
