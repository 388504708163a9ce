"""Pass ``reduce`` (-O2): reductions ``c = c OP e(i)`` split into a vector part and a sum.

The terms e(i) do not depend on each other, so they are computed at once into a vector
temporary V (by the vectoriser); what is left is the accumulation:

- in the source's order, ``c = c OP V[i]`` for each i (a loop the unroller then flattens), when
  reassociating would change a bit: f64 + and * (unless -Ofast), and any reduction whose
  accumulator has another type than its terms (each step converts);
- as a tree of vector operations (``V[0:h] = V[0:h] OP V[n-h:n]``, halving n each time), then
  ``c = c OP V[0]``, when OP is associative and commutative in the type: wrapping i64 + * min max
  & | ^, f64 min and max (NaN propagates and -0.0 < +0.0, so they are exact), and f64 + and *
  under -Ofast.

A conditional sum ``if c then T = T + e`` is taken as ``T = T + c * e`` (rule ``if-add``) when
that is exact and becomes a tree (:meth:`Reducer.conditional`).

A perfect nest whose loops choose the accumulator (rows) and give its terms is reduced whole
first (:meth:`Reducer.nest`): its terms as one vector of the nest's shape, halved together as a
tree or added in order, every accumulator at once.
"""
from __future__ import annotations

from itertools import permutations
from math import prod

from ...lang.frozen import replace
from ..incaq.ast import Assign, Binary, BoolOp, Call, Compare, For, If, Index, Name, Not, Num
from ..incaq.checked import Sym, type_of
from .conditions import truth_bits
from .dependence import distinct_stores
from .ir import Kernel, Span, affine, affine_expr, assigned_before_read, cannot_fault, const_int, \
    is_plain, map_stmts, map_stmts_topdown, names_read, names_written, perfect_nest
from . import show
from .remarks import Remarks
from .estimate import cost
from .rules import identity
from .vectorise import Refused, Vectoriser

#: The reduction operators, as INCA-Q writes them.
OPS = ("+", "*", "min", "max", "&", "|", "^")
#: The most terms a nest's reduction computes at once (a temporary of this many elements).
MAX_TERMS = 1 << 16
NAMES = {"+": "adds", "*": "multiplies", "min": "mins", "max": "maxes", "&": "ands", "|": "ors",
         "^": "xors"}


def operation(v) -> tuple[str, object, object] | None:
    """``(OP, a, b)`` when v is ``a OP b`` or ``OP(a, b)`` for one of the reduction operators."""
    match v:
        case Binary(op=op, left=a, right=b) if op in OPS:
            return op, a, b
        case Call(func="min" | "max" as op, args=(a, b)):
            return op, a, b
    return None


def reduction_parts(s, syms: dict[str, Sym]) -> tuple[str, object] | None:
    """``(op, e)`` when s is ``T = T OP e`` (or ``T = min(T, e)``, or ``T = T - e``: op ``-``)
    and e does not read T."""
    if not isinstance(s, Assign):
        return None
    t, parts = s.target, operation(s.value)
    if parts is None and isinstance(s.value, Binary) and s.value.op == "-":
        parts = "-", s.value.left, s.value.right
    if parts is None:
        return None
    op, a, e = parts
    base = t.id if isinstance(t, Name) else t.base
    if a != t or base in names_read(e):
        return None
    return op, e


def conditional_sum(x, k: Kernel, loop: For, lo: int, hi: int, fast: bool):
    """(T, c, e) of ``if c then T = T + e`` on a scalar T in ``loop``, when ``T = T + c * e``
    computes the same: for i64 always (rule ``if-add``), for f64 only under -Ofast (0.0 * e is
    NaN for an infinite e, and T + 0.0 is 0.0 where the branch keeps T = -0.0); c and e read no
    T and cannot fault over the loop's range (e is evaluated in every iteration then)."""
    if not (isinstance(x, If) and not x.orelse and len(x.then) == 1):
        return None
    a = x.then[0]
    if not (isinstance(a, Assign) and isinstance(a.target, Name) and isinstance(a.value, Binary)
            and a.value.op == "+" and a.value.left == a.target):
        return None
    name, c, e = a.target.id, x.cond, a.value.right
    sym = k.syms[name]
    if sym.kind != "scalar" or not isinstance(c, (Compare, BoolOp, Not)) \
            or name in names_read(c) | names_read(e) or type_of(e, k.syms) != sym.dtype \
            or (sym.dtype == "f64" and not fast):
        return None
    if not (cannot_fault(c, k, loop, lo, hi) and cannot_fault(e, k, loop, lo, hi)):
        return None
    if sym.dtype == "i64":
        identity("if-add")
    return name, c, e


def _trip(loop: For) -> int:
    return const_int(loop.hi) - const_int(loop.lo)


def _positions(order, loc) -> tuple:
    """The index of a nest's terms array whose dimensions are the loops in ``order``."""
    return tuple(affine_expr((-const_int(o.lo), {o.var: 1}), loc) for o in order)


def _layouts(loops: list):
    """The orders of a nest's loops its terms array is tried in: the nest's own first (then each
    other one, for a nest of up to 4 loops: ``A[i][k] * B[k][j]`` vectorises over (i, k, j),
    where B's dimensions line up, not over (i, j, k))."""
    yield tuple(loops)
    if len(loops) <= 4:
        yield from (p for p in permutations(loops) if p != tuple(loops))


def combine(op: str, a, b, loc):
    """``a OP b`` (``OP(a, b)`` for min and max)."""
    return Call(op, (a, b), loc) if op in ("min", "max") else Binary(op, a, b, loc)


def tree_ok(op: str, dtype: str, fast: bool) -> bool:
    """Whether OP may be reassociated and commuted in this type without changing a bit (``-``:
    whether the terms may be summed first, ``c - (e1 + e2 + ...)``)."""
    return dtype == "i64" or op in ("min", "max") or (fast and op in ("+", "*", "-"))


class Reducer:
    def __init__(self, k: Kernel, remarks: Remarks, fast: bool):
        self.k, self.remarks, self.fast = k, remarks, fast

    def loop(self, s):
        if isinstance(s, For) and len(s.body) == 1 and isinstance(s.body[0], If):
            return self.conditional(s) or (s,)
        if isinstance(s, For) and len(s.body) > 1 and is_plain(s.body):
            return self.hoist(s)
        if not isinstance(s, For) or len(s.body) != 1 or not is_plain(s.body):
            return (s,)
        lo, hi = const_int(s.lo), const_int(s.hi)
        parts = reduction_parts(s.body[0], self.k.syms)
        if lo is None or hi is None or hi - lo < 2 or parts is None:
            return (s,)
        op, e = parts
        stmt = s.body[0]
        if isinstance(stmt.target, Index) and s.var in names_read(stmt.target.indices):
            return (s,)
        if s.var not in names_read(e):
            return (s,)
        ttype, etype = type_of(stmt.target, self.k.syms), type_of(e, self.k.syms)
        tree = ttype == etype and tree_ok(op, etype, self.fast)
        simple = isinstance(e, (Num, Name, Index))
        if simple and not tree:
            return (s,)
        trip = hi - lo
        v, base = self.storage(e, s.var, etype)
        made = v is None
        if made:
            v = self.k.fresh("v")
            self.k.syms[v] = Sym(v, "array", etype, (trip,), "var", 0, s.loc)
        else:
            self.remarks.done(s.loc, f"terms of the reduction over {s.var} computed in the "
                              f"input {v} (--clobber)")
        pos = affine_expr((base - lo, {s.var: 1}), s.loc)
        fill = For(s.var, s.lo, s.hi, (Assign(Index(v, (pos,), s.loc), e, stmt.loc),), s.loc)
        try:
            terms = Vectoriser(self.k, Remarks()).vectorise(fill)
        except Refused as why:
            if made:
                del self.k.syms[v]
            self.remarks.missed(s.loc, f"reduction over {s.var} kept as it is: {why}")
            return (s,)
        if tree:
            return terms + self.tree(stmt, op, v, base, trip, s)
        if etype == "f64" and op in ("+", "*", "-"):
            self.remarks.missed(s.loc, f"f64 reduction over {s.var} kept in order: use -Ofast "
                                "to reassociate")
        else:
            self.remarks.missed(s.loc, f"reduction over {s.var} kept in order: the accumulator "
                                f"is {ttype} and the terms {etype}")
        self.remarks.done(s.loc, f"terms of the reduction over {s.var} computed as a vector "
                          f"({trip} elements)")
        self.remarks.explained(s.var, s.loc)
        step = Assign(stmt.target, combine(op, stmt.target, Index(v, (pos,), s.loc), stmt.loc),
                      stmt.loc)
        return terms + (For(s.var, s.lo, s.hi, (step,), s.loc),)

    def nest(self, s) -> tuple | None:
        """A perfect nest some of whose loops choose the accumulator (the rows) while the others
        give its terms, ``for b: for i: D[b] = D[b] OP e(b, i)``: the terms of every accumulator
        at once as one vector V[b][i], then, when OP is a tree in the type, the dimensions of the
        terms halved together (``V[:][0:h] = V[:][0:h] OP V[:][n-h:n]``) and ``D[b] = D[b] OP
        V[b][0]`` for every b (accumulators that are one element get their sums in some order,
        which a tree's OP allows); otherwise ``D[b] = D[b] OP V[b][i]`` for each i in order,
        every b at once, when distinct rows store distinct elements and e is not an operand
        (interchange reads that where it is). Rows inside a loop of terms vectorise as they are,
        so there this is done only where the estimate is lower. None (the nest as it is) when
        the nest is not one or its terms do not vectorise."""
        loops = perfect_nest(s)
        if loops is None or not is_plain(loops[-1].body):
            return None
        stmt = loops[-1].body[0]
        parts = reduction_parts(stmt, self.k.syms)
        if parts is None:
            return None
        op, e = parts
        indexed = names_read(stmt.target.indices) if isinstance(stmt.target, Index) else set()
        rows = [o for o in loops if o.var in indexed]  # (each accumulator's terms come in the
        inner = [o for o in loops if o.var not in indexed]  # order of these, wherever the rows are)
        etype = type_of(e, self.k.syms)
        trips = [_trip(o) for o in loops]
        if len(inner) < (1 if rows else 2) or inner[-1].var not in names_read(e) or min(trips) < 1 \
                or _trip(inner[-1]) < 2:
            return None
        tree = type_of(stmt.target, self.k.syms) == etype and tree_ok(op, etype, self.fast)
        if not tree and (not rows or isinstance(e, (Num, Name, Index))
                         or not distinct_stores(stmt.target.indices, rows, self.k.syms)):
            return None  # (in order, a term that is an operand is read where it is: interchange)
        if prod(trips) > MAX_TERMS:
            self.remarks.missed(s.loc, f"the reduction of this nest is not done at once: its "
                                f"{prod(trips):,} terms are more than {MAX_TERMS:,}")
            return None
        before, mine = dict(self.k.syms), self.remarks
        self.remarks = mine.trial()
        try:
            out = self.whole(s, stmt, op, e, etype, loops, rows, inner, tree)
            if out is not None and loops[:len(rows)] != rows:
                # the rows inside a loop of terms (``for i: for j: y[j] = y[j] + A[i][j] *
                # x[i]``) vectorise as they are: the terms at once only where that costs less
                copy = Kernel(dict(before), (s,), self.k.params, self.k.inplace)
                if cost(out) >= cost(Vectoriser(copy, Remarks()).block((s,))):
                    self.k.syms.clear()
                    self.k.syms.update(before)
                    return None
            mine.adopt(self.remarks)
            return out
        finally:
            self.remarks = mine

    def whole(self, s, stmt, op: str, e, etype: str, loops: list, rows: list, inner: list,
              tree: bool) -> tuple | None:
        """The nest's terms as one vector, then a tree or the accumulation in order (:meth:`nest`),
        with its remark; None when the terms do not vectorise."""
        loc = stmt.loc
        v = self.k.fresh("v")
        for order in _layouts(loops):  # V's dimensions: the loops in this order
            syms = dict(self.k.syms)
            self.k.syms[v] = Sym(v, "array", etype, tuple(_trip(o) for o in order), "var", 0, s.loc)
            fill: object = Assign(Index(v, _positions(order, loc), loc), e, loc)
            for o in reversed(order):
                fill = replace(o, body=(fill,))
            terms = Vectoriser(self.k, Remarks()).block((fill,))
            if not any(isinstance(x, For) for x in terms):
                break
            self.k.syms.clear()
            self.k.syms.update(syms)  # (no temporary of the trial's left declared)
        else:
            return None
        if not tree:
            return terms + self.in_order(stmt, op, v, order, rows, inner)
        last, op = op, "+" if op == "-" else op
        if last == "-" and etype == "i64":
            identity("sub-sum")
        halves = []
        summed = [d for d, o in enumerate(order) if o in inner]
        for d in reversed(summed):  # the last first: the summed dimensions after d are then
            # down to their first element

            def part(start: int, d=d, h=0):
                return Index(v, tuple(Span(Num(start if j == d else 0, False, loc),
                                           h if j == d else (1 if j in summed and j > d else _trip(o)),
                                           1, o.var, loc)
                                      for j, o in enumerate(order)), loc)
            m = _trip(order[d])
            while m > 1:
                h = m // 2
                halves.append(Assign(part(0, h=h), combine(op, part(0, h=h), part(m - h, h=h), loc), loc))
                m -= h
        first = Index(v, tuple(Num(0, False, loc) if o in inner else p
                               for o, p in zip(order, _positions(order, loc))), loc)
        step: object = Assign(stmt.target, combine(last, stmt.target, first, loc), loc)
        for o in reversed(rows):
            step = replace(o, body=(step,))
        done = Vectoriser(self.k, Remarks()).block((step,))
        what = f"for all {prod(_trip(o) for o in rows):,} accumulators at once" if rows else "into one sum"
        self.remarks.done(s.loc, f"reduction of the nest over {', '.join(o.var for o in loops)} "
                          f"turned into a tree of {len(halves)} vector {NAMES[op]} {what}")
        return terms + tuple(halves) + done

    def in_order(self, stmt, op: str, v: str, order: tuple, rows: list, inner: list) -> tuple:
        """``D[b] = D[b] OP V[b][i]`` for each i in order, every b at once: each accumulator
        receives its terms in the order of -O0 (the rows storing distinct elements), as f64 at
        -O2 needs."""
        loc = stmt.loc
        step: object = Assign(stmt.target, combine(op, stmt.target, Index(v, _positions(order, loc), loc),
                                                   loc), loc)
        for o in reversed(inner + rows):
            step = replace(o, body=(step,))
        self.remarks.done(stmt.loc, f"terms of the nest over {', '.join(o.var for o in rows + inner)} "
                          f"computed as one vector ({prod(_trip(o) for o in order):,} elements), "
                          "added in order for all accumulators at once")
        for o in rows + inner:
            self.remarks.explained(o.var, o.loc)
        return Vectoriser(self.k, Remarks()).block((step,))

    def conditional(self, s: For) -> tuple | None:
        """``for i { if c then T = T + e }`` as the reduction of ``T = T + c * e`` (rule if-add:
        the terms, 0 where c is false, computed as a vector and added as a tree), when that is
        exact (:func:`conditional_sum`) and it is a tree; None otherwise: a scalar loop
        adding c * e costs more than the branch it replaces."""
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None:
            return None
        parts = conditional_sum(s.body[0], self.k, s, lo, hi, self.fast)
        if parts is None:
            if not self.fast and conditional_sum(s.body[0], self.k, s, lo, hi, True) is not None:
                self.remarks.missed(s.body[0].loc, f"conditional sum over {s.var} kept as a branch: "
                                    "adding 0.0 where the condition is false would change -0.0 "
                                    "and infinities (use -Ofast)")
            return None
        name, c, e = parts
        x = s.body[0]
        target = Name(name, x.loc)
        c = truth_bits(c, self.k.syms)
        step = Assign(target, Binary("+", target, Binary("*", c, e, x.loc), x.loc), x.loc)
        mine, self.remarks = self.remarks, self.remarks.trial()
        syms = dict(self.k.syms)
        try:
            out = self.loop(replace(s, body=(step,)))
            if any(isinstance(y, For) for y in out):  # not a tree: keep the branch
                self.k.syms.clear()
                self.k.syms.update(syms)  # (no temporary of the trial's left declared)
                return None
            mine.done(x.loc, f"if on {name} turned into {name} = {name} + {show.expr(c)} * "
                      f"{show.expr(e)}, a reduction")
            mine.adopt(self.remarks)
            return out
        finally:
            self.remarks = mine

    def hoist(self, s: For) -> tuple:
        """In a body of several statements: the terms of each ``T = T OP e`` whose e reads
        nothing the loop writes are computed before the loop as one vector."""
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None or hi - lo < 2:
            return (s,)
        written = names_written(s.body) - {s.var}
        before, body = [], list(s.body)
        for j, stmt in enumerate(body):
            parts = reduction_parts(stmt, self.k.syms)
            if parts is None:
                continue
            op, e = parts
            if isinstance(e, (Num, Name, Index)) or names_read(e) & written or s.var not in names_read(e):
                continue
            if isinstance(stmt.target, Name) and assigned_before_read(s.body, stmt.target.id):
                continue  # reset every iteration: the vectoriser expands it instead
            etype = type_of(e, self.k.syms)
            v = self.k.fresh("v")
            self.k.syms[v] = Sym(v, "array", etype, (hi - lo,), "var", 0, s.loc)
            pos = affine_expr((-lo, {s.var: 1}), s.loc)
            fill = For(s.var, s.lo, s.hi, (Assign(Index(v, (pos,), s.loc), e, stmt.loc),), s.loc)
            try:
                before.extend(Vectoriser(self.k, Remarks()).vectorise(fill))
            except Refused:
                del self.k.syms[v]
                continue
            body[j] = Assign(stmt.target, combine(op, stmt.target, Index(v, (pos,), s.loc),
                                                   stmt.loc), stmt.loc)
            self.remarks.done(stmt.loc, f"terms of the accumulation into {show.expr(stmt.target)} "
                              f"computed as a vector before the loop ({hi - lo} elements)")
        return (*before, replace(s, body=tuple(body))) if before else (s,)

    def storage(self, e, i: str, etype: str) -> tuple[str | None, int]:
        """Where the terms go: with --clobber, the input e's first operand reads (``X[i + d]``,
        each element read only there), as ``(X, d)``; else ``(None, 0)``, a new temporary."""
        first = e
        while isinstance(first, (Binary, Call)):
            first = first.left if isinstance(first, Binary) else first.args[0]
        if not (isinstance(first, Index) and first.base in self.k.inplace):
            return None, 0
        sym = self.k.syms[first.base]
        a = affine(first.indices[0], self.k.syms) if len(first.indices) == 1 else None
        if sym.dtype != etype or a is None or a[1] != {i: 1}:
            return None, 0
        return first.base, a[0]

    def tree(self, stmt, op: str, v: str, base: int, n: int, s: For) -> tuple:
        """The terms V[base .. base + n] combined by halves, then into the accumulator: a
        difference ``c = c - e`` sums its terms and subtracts the sum once (rule ``sub-sum`` for
        wrapping i64; f64 only under -Ofast)."""
        loc = stmt.loc
        last, op = op, "+" if op == "-" else op
        if last == "-" and type_of(stmt.target, self.k.syms) == "i64":
            identity("sub-sum")
        out = []
        while n > 1:
            h = n // 2

            def part(start: int, h=h):
                return Index(v, (Span(Num(base + start, False, loc), h, 1, "tree", loc),), loc)
            out.append(Assign(part(0), combine(op, part(0), part(n - h), loc), loc))
            n -= h
        first = Index(v, (Num(base, False, loc),), loc)
        out.append(Assign(stmt.target, combine(last, stmt.target, first, loc), loc))
        self.remarks.done(s.loc, f"reduction over {s.var} turned into a tree of {len(out) - 1} "
                          f"vector {NAMES[op]}")
        return tuple(out)


def reduce(k: Kernel, remarks: Remarks, fast: bool = False) -> Kernel:
    """Split the reductions of the kernel's nests (all rows at once), then of its innermost
    loops."""
    k = k.copy()
    r = Reducer(k, remarks, fast)
    k.body = map_stmts(map_stmts_topdown(k.body, r.nest), r.loop)
    return k
