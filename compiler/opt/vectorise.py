"""Pass ``vectorise`` (-O2): loops whose iterations are independent become vector statements.

A counted loop ``for i in lo .. hi`` with a body of assignments is replaced by one vector
statement per assignment, each index ``c*i + d`` (c > 0) becoming the span ``d+c*lo, ...`` of
``hi - lo`` positions (tagged ``i``). Nests are handled inside out: the inner loop's statements are
already vectors when the outer loop is looked at, so a 2-D map becomes one 2-D statement. An inner
loop that runs once (a boundary column ``split`` made) is its body with the variable's value.

Legal when no element written in one iteration is read or written in another (dependence.py),
which also makes distributing the body over the loop (all of the first statement, then all of the
second) keep the -O0 order of every access to each element. A scalar assigned before it is read
in every iteration is private: it is expanded into a vector temporary (and its last value copied
back when it is visible or read after the loop). Operands line up with the destination by their
loop tags; a fixed index becomes a one-element span where broadcasting needs a size-1 dimension
(``A[i][k]`` in a loop over i and j reads ``A[lo:hi][k:k+1]``).
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, For, Index, Name, Num, nodes
from ..incaq.checked import Sym, type_of
from .dependence import NotAffine, accesses_of, conflict, store_pairs
from .ir import Kernel, Span, affine, affine_expr, const_int, is_plain, map_expr, names_read, \
    names_read_in, names_written, substitute, uses_outside_index, write_counts
from .remarks import Remarks


#: The longest table of a loop variable's values (32 KiB) made to vectorise a loop that uses the
#: variable as a value: it is data the program loads, in the same memory as the kernel's arrays.
MAX_TABLE = 4096


class Refused(Exception):
    """Why a loop is not vectorised (the remark's text)."""


class NoTrailing(Refused):
    """An operand with one span, in its last index, that must broadcast over ``extra`` more
    dimensions of the destination (``A[k][i]`` in a statement over i and j): a column copy of it
    (shape n x 1) does."""

    def __init__(self, message: str, extra: int):
        super().__init__(message)
        self.extra = extra


def is_vector(x) -> bool:
    """Whether a statement assigns a vector (an index of its target is a span)."""
    return isinstance(x, Assign) and isinstance(x.target, Index) and any(
        isinstance(ix, Span) for ix in x.target.indices)


def _show(e) -> str:
    from .show import expr

    return expr(e)


def _constant_scalars(body: tuple) -> tuple[tuple, tuple]:
    """(the body without them, the assignments): the assignments of a constant to a scalar the
    body assigns only there and does not read (an inner loop's variable's value after it): the
    same in every iteration, so made once after the loop rather than expanded into a vector."""
    written, read = write_counts(body), names_read_in(body)
    once = [x for x in body if isinstance(x.target, Name) and isinstance(x.value, Num)
            and written[x.target.id] == 1 and x.target.id not in read]
    return tuple(x for x in body if not any(x is y for y in once)), tuple(once)


class Vectoriser:
    """Vectorises the loops of one kernel, innermost first."""

    def __init__(self, k: Kernel, remarks: Remarks):
        self.k, self.remarks = k, remarks
        self.temps: set[str] = set()  # vector temporaries made here (private to their loop)
        self.ranges: dict[str, tuple[int, int]] = {}

    def block(self, body: tuple) -> tuple:
        out: list = []
        for s in body:
            if isinstance(s, For):
                lo, hi = const_int(s.lo), const_int(s.hi)
                if lo is not None and hi is not None:
                    self.ranges[s.var] = (lo, hi)
                s = replace(s, body=self.block(s.body))
                self.ranges.pop(s.var, None)
                out.extend(self.loop(s))
            elif hasattr(s, "body") and isinstance(s.body, tuple):
                out.append(replace(s, body=self.block(s.body)))
            elif hasattr(s, "then"):
                out.append(replace(s, then=self.block(s.then), orelse=self.block(s.orelse)))
            else:
                out.append(s)
        return tuple(out)

    def loop(self, s: For) -> tuple:
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is not None and hi is not None and hi - lo < 2:
            if hi - lo == 1 and self.ranges and is_plain(s.body) \
                    and all(isinstance(x, Assign) for x in s.body):
                # one iteration in another loop (a stencil's boundary column, split off): its
                # body, with the variable's one value, in the enclosing loop's, which can then
                # vectorise it (unroll, after this pass, would be too late for that)
                self.remarks.done(s.loc, f"loop over {s.var} runs once: its body joins the "
                                  f"enclosing loop's, with {s.var} = {lo}")
                return substitute(s.body, s.var, s.lo) + (Assign(Name(s.var, s.loc), s.hi, s.loc),)
            return (s,)  # (no remark: there is nothing to vectorise, and unroll takes it)
        syms, temps = dict(self.k.syms), set(self.temps)
        try:
            new = self.vectorise(s)
        except Refused as why:
            self.k.syms.clear()
            self.k.syms.update(syms)  # undo the temporaries an expansion made
            self.temps = temps
            if not self.remarks.is_explained(s.var, s.loc) and (hi is not None or not all(
                    is_vector(x) or (isinstance(x, Assign) and isinstance(x.value, Num))
                    for x in s.body)):
                # (not a loop a pass made or explained, its versions or its reduction kept in
                # order; nor one over a count known at run time of vector statements,
                # stripmine's chunks, the inner loops' last values beside them)
                self.remarks.missed(s.loc, f"loop over {s.var} not vectorised: {why}")
            return (s,)
        trip = const_int(s.hi) - const_int(s.lo)
        self.remarks.done(s.loc, f"vectorised over {s.var} ({trip} elements)")
        return new

    def vectorise(self, s: For) -> tuple:
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None:
            raise Refused("its trip count is not known at compile time")
        trip = hi - lo
        if trip < 2:
            raise Refused(f"it runs {max(trip, 0)} time{'s' if trip != 1 else ''}")
        body = s.body
        if not is_plain(body) or not all(isinstance(x, Assign) for x in body):
            kinds = sorted({type(x).__name__.lower() for x in body if not isinstance(x, Assign)})
            raise Refused(f"its body has {' and '.join(kinds) or 'early exits'} in it, "
                          "not only assignments")
        i = s.var
        if i in names_written(body):
            raise Refused(f"the body assigns the loop variable {i}")
        if uses_outside_index(body, i):
            body = tuple(Assign(x.target, self.counted(x.value, i, hi, s.loc), x.loc) for x in body)
        for x in body:
            for ix in (*x.target.indices, *(n for e in nodes(x.value) if isinstance(e, Index)
                                            for n in e.indices)) if isinstance(x.target, Index) else ():
                if isinstance(ix, Span) and names_read(ix.start) & names_written(body):
                    raise Refused(f"a slice starts at {_show(ix.start)}, which the loop computes "
                                  "(a gather)")
        body, constants = _constant_scalars(body)
        body, after = self.expand(s, body, lo, trip)
        after = constants + after
        self.check_independent(s, body, lo, hi)
        out = tuple(y for x in body for y in self.vector_stmt(x, i, lo, trip))
        return out + after + (Assign(Name(i, s.loc), Num(hi, False, s.loc), s.loc),)

    # ---- the loop variable as a value ---------------------------------------------------------

    def counted(self, e, i: str, hi: int, loc):
        """e with each use of the loop variable i as a value (not in an index: an index is an
        address, spread rather than read) read from the kernel's table of counts, ``C[i][0]``
        (C[n][0] = n: its second dimension is the size-1 one a column of a 2-D statement
        broadcasts over), which vectorises like any operand."""
        def value(x):
            if isinstance(x, Name) and x.id == i:
                return Index(self.table(hi, loc), (Name(i, x.loc), Num(0, False, x.loc)), x.loc)
            return x
        return map_expr(e, value, opaque=(Index, Span))

    def table(self, hi: int, loc) -> str:
        """The name of the constant table of counts 0 .. hi - 1 (at least), made or grown here:
        one per kernel (any private i64[n][1] array that holds 0 .. n - 1 and that nothing
        writes, as an earlier pass may have made; a longer one serves every shorter use)."""
        written = names_written(self.k.body)
        name = next((n for n, sym in self.k.syms.items()
                     if sym.kind == "array" and sym.role == "var" and sym.dtype == "i64"
                     and len(sym.shape) == 2 and sym.shape[1] == 1
                     and sym.value == tuple(range(sym.shape[0])) and n not in written), None)
        if name is not None and self.k.syms[name].shape[0] >= hi:
            return name
        if hi > MAX_TABLE:
            raise Refused(f"the loop variable is used as a value and the loop counts to {hi:,} "
                          f"(a table of its values is made up to {MAX_TABLE:,})")
        name = name or self.k.fresh("count")
        self.k.syms[name] = Sym(name, "array", "i64", (hi, 1), "var", tuple(range(hi)), loc)
        return name

    # ---- private scalars and temporaries ----------------------------------------------------

    def expand(self, s: For, body: tuple, lo: int, trip: int) -> tuple[tuple, tuple]:
        """Give each private scalar and temporary one element (or row) per iteration."""
        after: list = []
        written = names_written(body)
        for name in sorted(written):
            sym = self.k.syms[name]
            if sym.kind == "scalar":
                self.check_private(body, name)
            elif name not in self.temps:
                continue
            new = self.k.fresh("v")
            shape = (trip,) + tuple(sym.shape)
            self.k.syms[new] = Sym(new, "array", sym.dtype, shape, "var", 0, s.loc)
            self.temps.add(new)
            pos = affine_expr((-lo, {s.var: 1}), s.loc)
            body = _rename(body, name, new, pos, sym.kind == "scalar")
            if sym.kind == "scalar":  # its last value, in case it is read later (else dce drops it)
                after.append(Assign(Name(name, s.loc),
                                    Index(new, (Num(trip - 1, False, s.loc),), s.loc), s.loc))
            if name in self.temps:
                self.temps.discard(name)
                del self.k.syms[name]
        return body, tuple(after)

    def check_private(self, body: tuple, name: str) -> None:
        for x in body:
            reads = names_read_in((x,)) if isinstance(x.target, Index) else names_read(x.value)
            if name in reads:
                raise Refused(f"{name} is carried from one iteration to the next "
                              f"(read at line {x.loc.line} before it is assigned)")
            if x.target == Name(name):
                return

    # ---- dependence ------------------------------------------------------------------------

    def check_independent(self, s: For, body: tuple, lo: int, hi: int) -> None:
        written = names_written(body)
        for x in body:
            for node in (*nodes(x.target.indices), *nodes(x.value)):
                if isinstance(node, Name) and node.id in written and node.id != s.var:
                    raise Refused(f"the index {_show(node)} changes inside the loop")
        for a, b in store_pairs(accesses_of(body)):
            try:
                clash = conflict(a, b, s.var, lo, hi, self.k.syms, self.ranges)
            except NotAffine as e:
                raise Refused(f"the index {_show(e.args[0])} is not affine") from None
            if clash:
                raise Refused(f"{_show(a.node)} (line {a.node.loc.line}) may be "
                              f"{_show(b.node)} (line {b.node.loc.line}) of another iteration")

    # ---- building the vector statement ---------------------------------------------------------

    def vector_stmt(self, x: Assign, i: str, lo: int, trip: int) -> tuple[Assign, ...]:
        def spread(e):
            if isinstance(e, Index):
                return Index(e.base, tuple(self.spread_index(ix, i, lo, trip, e) for ix in e.indices),
                             e.loc)
            return e
        target = spread(x.target)
        if not isinstance(target, Index) or not any(isinstance(ix, Span) and ix.tag == i
                                                    for ix in target.indices):
            raise Refused(f"every iteration writes {_show(x.target)}")
        tags = [ix.tag for ix in target.indices if isinstance(ix, Span)]
        if len(set(tags)) != len(tags):
            raise Refused(f"{_show(x.target)} uses one loop variable for two dimensions")
        copies: list[Assign] = []

        def operand(e):
            if not isinstance(e, Index):
                return e
            e = spread(e)
            try:
                return align(e, tags)
            except NoTrailing as why:
                return self.column(e, why, copies, tags)
        value = map_expr(x.value, operand)
        return (*copies, Assign(target, value, x.loc))

    def column(self, e: Index, why: NoTrailing, copies: list, tags: list[str]) -> Index:
        """A column copy of operand e, made by a statement added to ``copies``: ``C[0:n][0] =
        A[k][0:n]`` (a 1-D copy, which INCA-A makes of any two slices of one length), read as
        ``C[0:n][0:1]``, which broadcasts over the destination's last dimension (one ``PUTL``
        where the statement would otherwise stay one per element)."""
        span = next(ix for ix in e.indices if isinstance(ix, Span))
        if any(isinstance(n, Index) for ix in e.indices for n in nodes(ix)):
            raise Refused(str(why))
        name = self.k.fresh("col")
        self.k.syms[name] = Sym(name, "array", self.k.syms[e.base].dtype,
                                (span.length,) + (1,) * why.extra, "var", 0, e.loc)
        self.temps.add(name)
        whole = Span(Num(0, False, e.loc), span.length, 1, span.tag, e.loc)
        fixed = tuple(Num(0, False, e.loc) for _ in range(why.extra))
        copies.append(Assign(Index(name, (whole, *fixed), e.loc), e, e.loc))
        return align(Index(name, (whole, *fixed), e.loc), tags)

    def spread_index(self, ix, i: str, lo: int, trip: int, whole: Index):
        if isinstance(ix, Span):
            if i in names_read(ix.start):
                raise Refused(f"{_show(whole)} would need two loops in one dimension")
            return ix
        a = affine(ix, self.k.syms)
        if a is None:
            raise Refused(f"the index {_show(ix)} is not affine")
        c = a[1].get(i, 0)
        if c == 0:
            return ix
        if c < 0:
            raise Refused(f"{_show(whole)} runs backwards over {i}")
        start = (a[0] + c * lo, {n: v for n, v in a[1].items() if n != i})
        return Span(affine_expr(start, ix.loc), trip, c, i, ix.loc)


def _rename(body: tuple, name: str, new: str, pos, scalar: bool) -> tuple:
    """Accesses of scalar (or temporary array) ``name`` become accesses of ``new[pos]...``."""
    def fn(e):
        if scalar and isinstance(e, Name) and e.id == name:
            return Index(new, (pos,), e.loc)
        if not scalar and isinstance(e, Index) and e.base == name:
            return Index(new, (pos,) + e.indices, e.loc)
        return e
    return tuple(Assign(map_expr(x.target, fn), map_expr(x.value, fn), x.loc) for x in body)


def align(e: Index, tags: list[str]) -> Index:
    """An operand whose spans line up with the destination's dimensions ``tags`` under NumPy
    broadcasting (aligned on the right): fixed indices become one-element spans where a
    size-1 dimension is needed."""
    mine = [ix.tag for ix in e.indices if isinstance(ix, Span)]
    if not mine:
        return e
    if len(set(mine)) != len(mine):  # A[i][i]: a diagonal, which no slice of A is
        raise Refused(f"{e.base} is read along a diagonal (one loop variable in two of its indices)")
    if any(t not in tags for t in mine):
        raise Refused(f"{_show(e)} runs over a loop the destination does not")
    order = [tags.index(t) for t in mine]
    if order != sorted(order):
        raise Refused(f"{_show(e)} would need its dimensions transposed")
    need = tags[order[0]:]
    out = list(e.indices)
    p = 0  # the next position of e's index to use
    for r in need:
        if r in mine:  # skip to its span; fixed indices passed on the way stay plain indices
            while not (isinstance(out[p], Span) and out[p].tag == r):
                p += 1
        elif p < len(out) and not isinstance(out[p], Span):
            out[p] = Span(out[p], 1, 1, r, out[p].loc)
        elif p >= len(out) and len(mine) == 1:
            raise NoTrailing(f"{_show(e)} has no dimension to broadcast over {r}", len(need) - 1)
        else:
            raise Refused(f"{_show(e)} has no dimension to broadcast over {r}")
        p += 1
    return Index(e.base, tuple(out), e.loc)


def vectorise(k: Kernel, remarks: Remarks) -> Kernel:
    """Vectorise every loop that can be (innermost first)."""
    k = k.copy()
    v = Vectoriser(k, remarks)
    k.body = v.block(k.body)
    return k


__all__ = ["vectorise", "align", "is_vector", "type_of"]
