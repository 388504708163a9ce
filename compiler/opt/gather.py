"""Pass ``gather`` (-O2): a loop that reads an array at a computed position is split in three.

``for k in lo .. hi do { i = f(k); Z[k] = g(k, Y[i], Y[i + 1]) }`` cannot be vectorised as it is:
the reads ``Y[i]`` and ``Y[i + 1]`` are at positions the loop computes (a gather). Only those
reads need a scalar per iteration; the rest is a map. So the loop is distributed:

1. ``I[k] = f(k)``: the statements before the first gathered read, each private scalar they
   assign and a later statement reads expanded into an array (vectorised);
2. ``for k: i = I[k]; G[k][0:2] = Y[i:i+2]``: the gather, one slice per array read at ``i + c``
   for a few constants c (``Y[i + cmin : i + cmax + 1]``; INCA-A computes a slice's start at
   fire time, so the elements a read needs come in one instruction, at one scalar's cost up to
   19 elements), two instructions per iteration, unrolled later;
3. ``Z[k] = g(k, G[k][0], G[k][1])``: the rest (vectorised).

A position computed inside an index from data (``X[I[k] & 31]``) is first assigned to a private
scalar of its own (``at1 = I[k] & 31; ... X[at1]``) when it cannot fault.

Exact when: every scalar the loop assigns is private (assigned before it is read in each
iteration); part 1 neither reads nor writes an array the loop writes (part 3 may, ``Y[k] = Y[k]
+ ...``: the vectoriser checks its own accesses, and only their order among themselves is
kept); the gathered arrays are one-dimensional and not written in the loop; each gathered index
is ``s + c`` for a scalar s assigned in part 1.
Then every iteration computes the same values from the same data, and each element of an output
receives the same value as at -O0. The slice reads only elements between two that -O0 reads in
the same iteration, so it is in bounds whenever -O0's reads are (a fault still faults, at
another point, as docs/optimiser.md allows). Done only when parts 1 and 3 vectorise and the
estimated time (the scalar class costs and the vector rule of MODEL.md) is lower.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, For, Index, Name, Num, nodes
from ..incaq.checked import Sym
from .ir import Kernel, Span, affine, cannot_fault, const_int, is_plain, map_expr, names_read, \
    names_written
from .remarks import Remarks

#: The longest slice one gather reads (a vector costs what a scalar does up to 19 elements).
MAX_SLICE = 19


class Refused(Exception):
    """Why a loop is not split (the remark's text)."""


def _ops(e) -> int:
    """Instructions an expression needs besides its first operand (a rough count)."""
    return sum(1 for n in nodes(e) if not isinstance(n, (Name, Num, Index))
               and type(n).__name__ in ("Binary", "Compare", "Call", "Unary"))


class Gatherer:
    def __init__(self, k: Kernel, remarks: Remarks):
        self.k, self.remarks = k, remarks

    def loop(self, s) -> tuple:
        if not isinstance(s, For):
            return (s,)
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None or hi - lo < 2 or not is_plain(s.body) \
                or not all(isinstance(x, Assign) for x in s.body):
            return (s,)
        syms = dict(self.k.syms)
        try:
            return self.split(self.positions(s, lo, hi), lo, hi)
        except Refused as why:
            self.k.syms.clear()
            self.k.syms.update(syms)
            if str(why):
                self.remarks.missed(s.loc, f"loop over {s.var} not split around its gather: {why}")
            return (s,)

    def split(self, s: For, lo: int, hi: int) -> tuple:
        body, var, trip = s.body, s.var, hi - lo
        written = names_written(body) - {var}
        scalars = {n for n in written if self.k.syms[n].kind == "scalar"}
        # the first statement reading an array at a position a scalar of the loop gives
        first = next((j for j, x in enumerate(body) if self.gathers(x, scalars)), None)
        if first is None:
            raise Refused("")
        for n in scalars:
            if not _private(body, n):
                raise Refused(f"{n} is carried from one iteration to the next")
        part1, part3 = body[:first], body[first:]
        arrays = written - scalars
        if arrays & (names_written(part1) | {x.base for st in part1 for x in nodes(st.value)
                                              if isinstance(x, Index)}):
            # (what the rest writes and reads it checks as it vectorises: only its own order
            # of accesses is kept)
            raise Refused("the positions read or write an array the loop writes")
        shared = sorted(n for n in names_written(part1) & scalars if n in _reads(part3))
        groups = self.groups(part3, set(shared), written)
        # 1: the shared scalars become arrays
        pos = _position(var, lo, s.loc)
        expanded = {}
        for n in shared:
            a = self.k.fresh("g")
            self.k.syms[a] = Sym(a, "array", self.k.syms[n].dtype, (trip,), "var", 0, s.loc)
            expanded[n] = a
        part1 = tuple(_expand(x, expanded, pos) for x in part1)
        # 2: one slice per (array, scalar)
        fills, names = [], {}
        for (y, n), (cmin, cmax) in groups.items():
            g = self.k.fresh("g")
            width = cmax - cmin + 1
            self.k.syms[g] = Sym(g, "array", self.k.syms[y].dtype, (trip, width), "var", 0, s.loc)
            names[(y, n)] = (g, cmin)
            start = _plus(Name(n, s.loc), cmin, s.loc)
            fills.append(Assign(Index(g, (pos, Span(Num(0, False, s.loc), width, 1, "gather", s.loc)), s.loc),
                                Index(y, (Span(start, width, 1, "gather", s.loc),), s.loc), s.loc))
        gather_body = tuple(Assign(Name(n, s.loc), Index(expanded[n], (pos,), s.loc), s.loc)
                            for n in sorted({n for _, n in groups})) + tuple(fills)
        # 3: gathered reads from the slices, shared scalars from their arrays
        part3 = tuple(_expand(_regather(x, names, self.k, pos), expanded, pos) for x in part3)
        from .vectorise import Refused as NotVector, Vectoriser

        try:
            v1 = Vectoriser(self.k, Remarks()).vectorise(replace(s, body=part1))[:-1] if part1 else ()
            v3 = Vectoriser(self.k, Remarks()).vectorise(replace(s, body=part3))[:-1]
        except NotVector as why:
            raise Refused(f"the rest would not vectorise ({why})") from None
        if not self.cheaper(body, v1 + v3, len(gather_body), trip):
            raise Refused("the vector code would not be faster")
        last = tuple(Assign(Name(n, s.loc), Index(a, (Num(trip - 1, False, s.loc),), s.loc), s.loc)
                     for n, a in expanded.items())
        widths = ", ".join(f"{y}[{_slice(n, c, self.k.syms[g].shape[1])}]"
                           for (y, n), (g, c) in names.items())
        self.remarks.done(s.loc, f"loop over {var} split around its gather: the positions and "
                          f"the rest vectorised ({trip} elements), one slice read per element "
                          f"and array: {widths}")
        return (*v1, replace(s, body=gather_body), *v3, *last,
                Assign(Name(var, s.loc), Num(hi, False, s.loc), s.loc))

    def positions(self, s: For, lo: int, hi: int) -> For:
        """s with each position a read computes from data, ``X[I[k] & 31]``, first assigned to a
        private scalar of its own (``j = I[k] & 31; ... X[j]``), where it cannot fault (it is
        then evaluated before the rest of its statement)."""
        body: list = []
        for x in s.body:
            made: list = []

            def fn(e, made=made):
                if isinstance(e, Index) and len(e.indices) == 1 \
                        and affine(e.indices[0], self.k.syms) is None \
                        and any(isinstance(n, Index) for n in nodes(e.indices[0])) \
                        and cannot_fault(e.indices[0], self.k, s, lo, hi):
                    name = self.k.fresh_scalar("at")
                    made.append(Assign(Name(name, e.loc), e.indices[0], e.loc))
                    return replace(e, indices=(Name(name, e.loc),))
                return e
            value = map_expr(x.value, fn)
            body.extend(made)
            body.append(replace(x, value=value))
        return replace(s, body=tuple(body)) if len(body) > len(s.body) else s

    def gathers(self, x: Assign, scalars: set[str]) -> bool:
        return any(isinstance(n, Index) and names_read(n.indices) & scalars
                   for n in (*nodes(x.value), *(nodes(x.target.indices) if isinstance(x.target, Index) else ())))

    def groups(self, part3: tuple, shared: set[str], written: set[str]) -> dict:
        """(array, scalar) -> (lowest, highest offset) of the gathered reads of part 3."""
        out: dict = {}
        for x in part3:
            if isinstance(x.target, Index) and names_read(x.target.indices) & written:
                raise Refused(f"it stores at a position it computes ({x.target.base})")
            for n in nodes(x.value):
                if not (isinstance(n, Index) and names_read(n.indices) & written):
                    continue
                sym = self.k.syms[n.base]
                a = affine(n.indices[0], self.k.syms) if len(n.indices) == 1 else None
                if a is None or len(a[1]) != 1 or set(a[1].values()) != {1} \
                        or not set(a[1]) <= shared or n.base in written:
                    raise Refused(f"the read of {n.base} is not at a computed scalar plus a constant")
                key = (n.base, next(iter(a[1])))
                cmin, cmax = out.get(key, (a[0], a[0]))
                out[key] = (min(cmin, a[0]), max(cmax, a[0]))
                if out[key][1] - out[key][0] + 1 > min(MAX_SLICE, sym.shape[0]):
                    raise Refused(f"the reads of {n.base} are too far apart for one slice")
        return out

    def cheaper(self, body: tuple, vector: tuple, gather_stmts: int, trip: int) -> bool:
        """Estimated time (scratchpad costs) of the split loop below the scalar loop's."""
        scalar = trip * 11.5 * sum(1 + _ops(x.value) for x in body)
        vec = sum(1 + _ops(x.value) for x in vector) * max(12.0, 4.5 + trip / 3)
        return vec + trip * 11 * gather_stmts < scalar


def _slice(n: str, c: int, width: int) -> str:
    """``i+c:i+c+width`` as INCA-A prints it."""
    def at(k: int) -> str:
        return n if k == 0 else f"{n}{k:+d}"
    return f"{at(c)}:{at(c + width)}"


def _private(body: tuple, name: str) -> bool:
    for x in body:
        reads = names_read(x.value) | (names_read(x.target.indices) if isinstance(x.target, Index) else set())
        if name in reads:
            return False
        if x.target == Name(name):
            return True
    return True


def _reads(body: tuple) -> set[str]:
    out: set[str] = set()
    for x in body:
        out |= names_read(x.value)
        if isinstance(x.target, Index):
            out |= names_read(x.target.indices)
    return out


def _position(var: str, lo: int, loc):
    from ..incaq.ast import Binary

    return Binary("-", Name(var, loc), Num(lo, False, loc), loc) if lo else Name(var, loc)


def _plus(e, c: int, loc):
    from ..incaq.ast import Binary

    return Binary("+", e, Num(c, False, loc), loc) if c else e


def _expand(x: Assign, expanded: dict[str, str], pos) -> Assign:
    """Scalars of ``expanded`` read and assigned as elements of their arrays."""
    def fn(e):
        if isinstance(e, Name) and e.id in expanded:
            return Index(expanded[e.id], (pos,), e.loc)
        return e
    return Assign(map_expr(x.target, fn), map_expr(x.value, fn), x.loc)


def _regather(x: Assign, names: dict, k: Kernel, pos) -> Assign:
    """Gathered reads ``Y[i + c]`` become ``G[k][c - cmin]``."""
    def fn(e):
        if isinstance(e, Index) and len(e.indices) == 1:
            a = affine(e.indices[0], k.syms)
            if a is not None and len(a[1]) == 1:
                key = (e.base, next(iter(a[1])))
                if key in names:
                    g, cmin = names[key]
                    return Index(g, (pos, Num(a[0] - cmin, False, e.loc)), e.loc)
        return e
    return Assign(x.target, map_expr(x.value, fn), x.loc)


def gather(k: Kernel, remarks: Remarks) -> Kernel:
    """Split the counted loops whose only obstacle to vectorising is a gather."""
    k = k.copy()
    g = Gatherer(k, remarks)
    out: list = []
    for s in k.body:
        out.extend(g.loop(s))
    k.body = tuple(out)
    return k
