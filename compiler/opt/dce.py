"""Pass ``dce``: assignments to kernel-private locations that nothing reads are removed.

A scalar or array of role ``var`` that no expression anywhere in the kernel reads (no value, index or
condition) holds nothing the host sees; its assignments go, unless evaluating the value may fault
(a division, an index that may be out of bounds, a conversion), which -O0 would report. An index
is known in bounds when it is affine in the variables of the counted loops around it, with
constant bounds, and inside its array over their ranges (``push1_v = A[i]`` in ``for i in 0 ..
8``, A of 8 elements, goes before ``unroll`` rather than after it, in 8 copies).

A for loop left with an empty body goes too when its variable is such a location and its bounds
cannot fault (a loop whose every statement was dead, or a copy ``stripmine`` made of a loop
for the version where its inner loop runs no time); the remarks were its statements'.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, Binary, Call, DoWhile, For, If, Index, Loop, Name, While, nodes
from ..incaq.checked import Jump, Mark, Seq, TailLoop
from .ir import Kernel, Span, affine, const_int, free_reads, names_read_in, names_written, own_exprs, \
    stmts
from .remarks import Remarks


def may_fault(e, syms, ranges: dict[str, tuple[int, int]] | None = None) -> bool:
    """Whether evaluating e may fault: a division, a conversion to i64, an inlined call, or an
    index that may be outside the array (``ranges``: the values of the enclosing counted loops'
    variables, ``lo .. hi``)."""
    for n in nodes(e):
        if isinstance(n, Index) and not _in_bounds(n, syms, ranges or {}):
            return True
        if (isinstance(n, Binary) and n.op in ("/", "%")) or isinstance(n, Seq) or (
                isinstance(n, Call) and n.func == "i64"):
            return True
    return False


def _in_bounds(t: Index, syms, ranges: dict[str, tuple[int, int]]) -> bool:
    """Whether an access's indices, spans included, are inside the array for every value of the
    loop variables in ``ranges`` (an access out of bounds faults, so it is not dead)."""
    for ix, dim in zip(t.indices, syms[t.base].shape):
        start, extra = (ix.start, (ix.length - 1) * ix.step) if isinstance(ix, Span) else (ix, 0)
        a = affine(start, syms)
        if a is None or dim is None or set(a[1]) - set(ranges):
            return False
        low = a[0] + sum(c * (ranges[n][0] if c > 0 else ranges[n][1] - 1) for n, c in a[1].items())
        high = a[0] + sum(c * (ranges[n][1] - 1 if c > 0 else ranges[n][0]) for n, c in a[1].items())
        if low < 0 or high + extra >= dim:
            return False
    return True


def _map_ranged(body: tuple, fn, ranges: dict[str, tuple[int, int]]) -> tuple:
    """:func:`~.ir.map_stmts` with ``fn(s, ranges)``: ``ranges`` the variables of the counted
    loops with constant bounds whose iterations run s (canon made every for loop that assigns
    its variable a while loop) and their ranges; a loop that runs no iteration adds none."""
    out: list = []
    for s in body:
        match s:
            case For(body=b):
                lo, hi = const_int(s.lo), const_int(s.hi)
                inner = {k: v for k, v in ranges.items() if k != s.var}
                if lo is not None and hi is not None and lo < hi:
                    inner[s.var] = (lo, hi)
                s = replace(s, body=_map_ranged(b, fn, inner))
            case While(body=b) | Loop(body=b) | DoWhile(body=b) | TailLoop(body=b):
                written = names_written(b)
                s = replace(s, body=_map_ranged(b, fn, {k: v for k, v in ranges.items() if k not in written}))
            case If(then=t, orelse=o):
                s = replace(s, then=_map_ranged(t, fn, ranges), orelse=_map_ranged(o, fn, ranges))
        out.extend(fn(s, ranges))
    return tuple(out)


def dce(k: Kernel, remarks: Remarks) -> Kernel:
    """Remove dead assignments until none is left (a remark at each statement that had
    some, naming what they assigned)."""
    removed: dict = {}  # the location of each statement removed from -> the names it assigned
    body = k.body
    # how often each name is read; a removed assignment's reads are taken off, so the next
    # round needs no walk over the whole kernel (compact.py's chains are thousands of statements)
    reads: dict[str, int] = {}
    _count_reads(stmts(body), reads, 1)
    # scalars read only inside for loops over them, each setting them first: their assignments
    # elsewhere (a loop's last value, strength.py's `i = lo` where the loop runs no time) are dead
    free = free_reads(body)
    loop_only = {n for n, sym in k.syms.items()
                 if sym.role == "var" and sym.kind == "scalar" and reads.get(n) and not free.get(n)}
    while True:
        unread = {n for n, sym in k.syms.items() if sym.role == "var" and not reads.get(n)} | loop_only
        if not unread:
            break

        def dead(s, ranges) -> bool:
            if isinstance(s, For):  # nothing left in it: all it does is set its variable
                return not s.body and s.var in unread and not may_fault(s.lo, k.syms, ranges) \
                    and not may_fault(s.hi, k.syms, ranges)
            if not isinstance(s, Assign):
                return False
            t = s.target
            name = t.id if isinstance(t, Name) else t.base
            return name in unread \
                and not may_fault(s.value, k.syms, ranges) and (isinstance(t, Name) or not any(
                    may_fault(ix, k.syms, ranges) for ix in t.indices) and _in_bounds(t, k.syms, ranges))
        gone: list = []

        def drop(s, ranges) -> tuple:
            if dead(s, ranges):
                gone.append(s)
                return ()
            return (s,)
        new = _map_ranged(body, drop, {})
        if not gone:
            break
        for s in gone:
            if isinstance(s, For):
                continue  # (its body's assignments, removed, had their remarks)
            t = s.target
            name = t.id if isinstance(t, Name) else t.base
            # (no remark on what a pass wrote: its names, a loop's last value it placed)
            if not remarks.made(name) and not remarks.placed(s.loc):
                removed.setdefault(s.loc, []).append(name)
        body = new
        _count_reads(gone, reads, -1)
    body = _dead_at_end(body, k, remarks, removed)
    for loc, names in removed.items():
        for group in (sorted(set(names) - loop_only), sorted(set(names) & loop_only)):
            if not group:
                continue
            n = sum(names.count(g) for g in group)
            it = "it" if len(group) == 1 else "them"
            why = f"nothing reads {it}" if group[0] not in loop_only else \
                f"only for loops over {it} read {it}, each setting {it} first"
            remarks.done(loc, f"removed {n} assignment{'s' if n != 1 else ''} to {', '.join(group)}: "
                         f"{why}")
    return k.but(body)


def _dead_at_end(body: tuple, k: Kernel, remarks: Remarks, removed: dict) -> tuple:
    """The kernel without its top-level assignments to private scalars that no statement after
    them reads (the top level runs once: nothing before it reads again what it writes; gather's
    `i = g1[15]`, the last value of a position no one reads after the loop). Not past a jump,
    which may run earlier statements again."""
    if any(isinstance(s, (Jump, Mark)) for s in stmts(body)):
        return body
    later: set[str] = set()
    out: list = []
    for s in reversed(body):
        if isinstance(s, Assign) and isinstance(s.target, Name) and s.target.id not in later:
            sym = k.syms[s.target.id]
            if sym.role == "var" and sym.kind == "scalar" and not may_fault(s.value, k.syms):
                if not remarks.made(sym.name) and not remarks.placed(s.loc):
                    removed.setdefault(s.loc, []).append(sym.name)
                continue
        later |= names_read_in((s,))
        out.append(s)
    return tuple(reversed(out))


def _count_reads(statements, reads: dict[str, int], step: int) -> None:
    """Add ``step`` to the count of every name each statement's own expressions read."""
    for s in statements:
        for x in own_exprs(s):
            for n in nodes(x):
                if isinstance(n, Name):
                    reads[n.id] = reads.get(n.id, 0) + step
                elif isinstance(n, Index):
                    reads[n.base] = reads.get(n.base, 0) + step
