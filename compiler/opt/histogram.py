"""Pass ``histogram`` (-O2): an accumulation into a computed element becomes a count per bucket.

``for i in lo .. hi do { H[e(i)] = H[e(i)] + w(i) }`` stores at a position the loop computes,
so it cannot be vectorised as it is: each iteration loads e(i), then adds at that element. When
e's values are known to lie in a few buckets ``a .. z`` inside H (``X[i] & 7``: 0 .. 7), the loop
is the same as

    for b in a .. z + 1 do { for i in lo .. hi do { H[b] = H[b] + (e(i) == b) * w(i) } }

(``(e(i) == b)`` alone when w is 1; ``-`` the same way): each H[b] receives the terms of the
iterations whose e(i) is b, in the order of i, and a 0 from every other iteration, which changes
nothing in wrapping i64 arithmetic (rule ``if-add`` with the condition ``e(i) == b``). That nest
is a reduction whose outer loop chooses the accumulator: ``reduce`` computes every bucket's terms
as one 2-D vector (a compare against a column of the bucket numbers) and sums the rows as a tree.

Only for an index computed from the data (e reads an element: ``S[i / 4]`` is a constant in each
copy of an unrolled loop). Legal when H is one-dimensional, e and w read no H, neither can fault over the loop's range (each
is evaluated once per bucket now), the buckets are inside H (as every index at -O0 was, so no
fault is lost), and the type is i64 (f64 only at -Ofast: 0.0 * w is NaN for an infinite w, and
adding 0.0 turns -0.0 into 0.0). Done only when the estimate after the loop passes that follow
(tried on a copy) is lower; at most :data:`MAX_BUCKETS` buckets.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, Binary, Call, Compare, For, Index, Name, Num, nodes
from ..incaq.checked import type_of
from .distribute import after_loop_passes
from .estimate import cost
from .ir import I64_MAX, I64_MIN, Kernel, cannot_fault, const_int, is_plain, map_stmts, \
    names_read
from .reduce import reduction_parts
from .remarks import Remarks
from .rules import identity
from . import show

#: The most buckets a histogram is counted in (each costs a row of the loop's trip count).
MAX_BUCKETS = 64


def value_range(e, ranges: dict[str, tuple[int, int]]) -> tuple[int, int] | None:
    """The least and greatest value an i64 expression can take, the loop variables in ``ranges``
    running over ``lo .. hi``, where simple bounds show it (None: not known)."""
    lo, hi = _bounds(e, ranges)
    return None if lo is None or hi is None else (lo, hi)


Bound = tuple[int | None, int | None]


def _bounds(e, ranges: dict[str, tuple[int, int]]) -> Bound:
    """A least and a greatest value of e, each None where not known (``max(x, 0)`` has only
    the first; ``min`` of that and 9 both)."""
    match e:
        case Num(value=v, is_float=False):
            return int(v), int(v)
        case Name(id=n) if n in ranges and ranges[n][0] < ranges[n][1]:
            return ranges[n][0], ranges[n][1] - 1
        case Compare():
            return 0, 1
        case Call(func="min" | "max" as f, args=(a, b)):
            (la, ha), (lb, hb) = _bounds(a, ranges), _bounds(b, ranges)
            if f == "min":  # at most either's greatest; at least the lesser least
                his = [h for h in (ha, hb) if h is not None]
                return (min(la, lb) if None not in (la, lb) else None), (min(his) if his else None)
            los = [x for x in (la, lb) if x is not None]
            return (max(los) if los else None), (max(ha, hb) if None not in (ha, hb) else None)
        case Binary(op=op, left=a, right=b):
            (la, ha), (lb, hb) = _bounds(a, ranges), _bounds(b, ranges)
            if op == "&":  # x & k lies in 0 .. k for any x when k >= 0
                his = [h for lo_, h in ((la, ha), (lb, hb)) if lo_ is not None and lo_ >= 0 and h is not None]
                if his:
                    return 0, min(his)
                return (0, None) if la is not None and lb is not None and min(la, lb) >= 0 else (None, None)
            if op == "%" and la is not None and la >= 0 and lb is not None and lb > 0 and hb is not None:
                return 0, (hb - 1 if ha is None else min(ha, hb - 1))
            if op in (">>", "/") and None not in (la, ha) and la >= 0 and lb == hb and lb is not None \
                    and (0 <= lb < 64 if op == ">>" else lb > 0):
                f = (lambda x: x >> lb) if op == ">>" else (lambda x: x // lb)
                return f(la), f(ha)
            if op in ("+", "-", "*") and None not in (la, ha, lb, hb):
                if op == "-":
                    lb, hb = -hb, -lb
                ends = [x * y for x in (la, ha) for y in (lb, hb)] if op == "*" else [la + lb, ha + hb]
                if I64_MIN <= min(ends) and max(ends) <= I64_MAX:  # (no wrap-around)
                    return min(ends), max(ends)
    return None, None


class Histograms:
    def __init__(self, k: Kernel, remarks: Remarks, fast: bool):
        self.k, self.remarks, self.fast = k, remarks, fast

    def loop(self, s) -> tuple:
        if not (isinstance(s, For) and len(s.body) == 1 and isinstance(s.body[0], Assign)
                and isinstance(s.body[0].target, Index) and is_plain(s.body)):
            return (s,)
        lo, hi = const_int(s.lo), const_int(s.hi)
        stmt = s.body[0]
        parts = reduction_parts(stmt, self.k.syms)
        if lo is None or hi is None or hi - lo < 2 or parts is None or parts[0] not in ("+", "-"):
            return (s,)
        op, w = parts
        h, (e,) = stmt.target.base, stmt.target.indices if len(stmt.target.indices) == 1 else (None,)
        if e is None or not any(isinstance(n, Index) for n in nodes(e)) or h in names_read(e):
            return (s,)  # (an index computed from i alone, `S[i / 4]`, is a constant once unrolled)
        dtype = self.k.syms[h].dtype
        if type_of(w, self.k.syms) != dtype or type_of(e, self.k.syms) != "i64":
            return (s,)
        buckets = value_range(e, {s.var: (lo, hi)})
        size = self.k.syms[h].shape[0]
        where = show.expr(stmt.target)
        if buckets is None or not (0 <= buckets[0] and buckets[1] < (size or 0)):
            self.remarks.missed(s.loc, f"accumulation into {where} kept as it is: its index is "
                                f"not known to stay in a few buckets inside {h}")
            return (s,)
        a, z = buckets
        if z - a + 1 > MAX_BUCKETS:
            self.remarks.missed(s.loc, f"accumulation into {where} kept as it is: its index "
                                f"takes {z - a + 1:,} values (counted per bucket up to {MAX_BUCKETS})")
            return (s,)
        if dtype == "f64" and not self.fast:
            self.remarks.missed(s.loc, f"accumulation into {where} kept as it is: adding 0.0 for "
                                "the other buckets would change -0.0 and infinities (use -Ofast)")
            return (s,)
        if not (cannot_fault(e, self.k, s, lo, hi) and cannot_fault(w, self.k, s, lo, hi)):
            return (s,)
        loc = stmt.loc
        b = self.k.fresh_scalar("bucket")
        hit = Compare("==", e, Name(b, loc), loc)
        one = isinstance(w, Num) and not w.is_float and w.value == 1
        term = hit if one else Binary("*", hit, w, loc)
        target = Index(h, (Name(b, loc),), loc)
        inner = replace(s, body=(Assign(target, Binary(op, target, term, loc), loc),))
        nest = For(b, Num(a, False, loc), Num(z + 1, False, loc), (inner,), s.loc)
        if after_loop_passes(self.k, (nest,), self.fast) >= cost((s,)):
            return (s,)
        if dtype == "i64":
            identity("if-add")
        self.remarks.done(s.loc, f"accumulation into {where} counted per bucket: the index takes "
                          f"values {a} .. {z}, and each bucket's terms are a reduction")
        self.remarks.call(b, f"the buckets of {h}")
        return (nest,)


def histogram(k: Kernel, remarks: Remarks, fast: bool = False) -> Kernel:
    """Count the accumulations of the kernel's loops into computed elements per bucket."""
    k = k.copy()
    h = Histograms(k, remarks, fast)
    k.body = map_stmts(k.body, h.loop)
    return k
