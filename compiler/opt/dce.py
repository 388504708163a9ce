"""Pass ``dce``: assignments to kernel-private locations that nothing reads are removed.

A scalar or array of role ``var`` that no expression anywhere in the kernel reads (no value, index or
condition) holds nothing the host sees; its assignments go, unless evaluating the value may fault
(a division, an index that may be out of bounds, a conversion), which -O0 would report.
"""
from __future__ import annotations

from ..incaq.ast import Assign, Binary, Call, Index, Name, nodes
from ..incaq.checked import Seq
from .ir import Kernel, Span, const_int, map_stmts, own_exprs, stmts
from .remarks import Remarks


def may_fault(e, syms) -> bool:
    """Whether evaluating e may fault: a division, a conversion to i64, an inlined call, or an
    index that is not a constant inside the array."""
    for n in nodes(e):
        if isinstance(n, Index) and not _in_bounds(n, syms):
            return True
        if (isinstance(n, Binary) and n.op in ("/", "%")) or isinstance(n, Seq) or (
                isinstance(n, Call) and n.func == "i64"):
            return True
    return False


def _in_bounds(t: Index, syms) -> bool:
    """Whether an access's indices are constants inside the array, spans included (an access
    out of bounds faults, so it is not dead)."""
    for ix, dim in zip(t.indices, syms[t.base].shape):
        if isinstance(ix, Span):
            first, last = const_int(ix.start), None
            if first is not None:
                last = first + (ix.length - 1) * ix.step
            if first is None or dim is None or first < 0 or last >= dim:
                return False
        elif const_int(ix) is None or dim is None or not 0 <= const_int(ix) < dim:
            return False
    return True


def dce(k: Kernel, remarks: Remarks) -> Kernel:
    """Remove dead assignments until none is left (a remark at each statement that had
    some, naming what they assigned)."""
    removed: dict = {}  # the location of each statement removed from -> the names it assigned
    body = k.body
    # how often each name is read; a removed assignment's reads are taken off, so the next
    # round needs no walk over the whole kernel (compact.py's chains are thousands of statements)
    reads: dict[str, int] = {}
    _count_reads(stmts(body), reads, 1)
    while True:
        unread = {n for n, sym in k.syms.items() if sym.role == "var" and not reads.get(n)}
        if not unread:
            break

        def dead(s) -> bool:
            if not isinstance(s, Assign):
                return False
            t = s.target
            name = t.id if isinstance(t, Name) else t.base
            return name in unread \
                and not may_fault(s.value, k.syms) and (isinstance(t, Name) or not any(
                    may_fault(ix, k.syms) for ix in t.indices) and _in_bounds(t, k.syms))
        gone: list = []

        def drop(s) -> tuple:
            if dead(s):
                gone.append(s)
                return ()
            return (s,)
        new = map_stmts(body, drop)
        if not gone:
            break
        for s in gone:
            t = s.target
            removed.setdefault(s.loc, []).append(t.id if isinstance(t, Name) else t.base)
        body = new
        _count_reads(gone, reads, -1)
    for loc, names in removed.items():
        n = len(names)
        named = sorted(set(names))
        remarks.done(loc, f"removed {n} assignment{'s' if n != 1 else ''} to {', '.join(named)}: "
                     f"nothing reads {'it' if len(named) == 1 else 'them'}")
    return k.but(body)


def _count_reads(statements, reads: dict[str, int], step: int) -> None:
    """Add ``step`` to the count of every name each statement's own expressions read."""
    for s in statements:
        for x in own_exprs(s):
            for n in nodes(x):
                if isinstance(n, Name):
                    reads[n.id] = reads.get(n.id, 0) + step
                elif isinstance(n, Index):
                    reads[n.base] = reads.get(n.base, 0) + step
