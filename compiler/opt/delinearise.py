"""Pass ``delinearise`` (-O2): a loop that divides its variable by a constant becomes a nest.

``for i in 0 .. 64 do { S[i / 4] = S[i / 4] + X[i] }`` (block sums), ``L[i % 4] = ...`` (lanes),
``B[i / C][i % C] = ...`` (a matrix walked by one flat index): the indices are not affine in i,
so no loop pass can vectorise the loop. With ``i = c*q + r``, ``0 <= r < c``, the same iterations
are

    for q in lo/c .. hi/c do { for r in 0 .. c do { ...with i / c as q, i % c as r, i as c*q + r } }

in the same order, and every index is affine in q and r: block sums become a reduction nest
(``interchange`` then adds ``X[r:64:4]`` into ``S[0:16]`` for each r, bit for bit), a flat walk
of a matrix a 2-D map.

Exact: i is never negative in the loop (lo >= 0), where ``/`` truncating toward zero is floor
division and ``%`` is the remainder r; the loop is counted (``canon`` made every loop that assigns
its variable a while loop), so i takes each value once, in order, and its value after the loop
(hi) is assigned after the nest. Done when the bounds are constants, lo >= 0, every ``i / c`` and
``i % c`` of the body has the one constant c >= 2, c divides lo and hi, and the estimate after the
loop passes that follow (tried on a copy) is lower.
"""
from __future__ import annotations

from ..incaq.ast import Assign, Binary, For, If, Name, Num, nodes
from .distribute import after_loop_passes
from .ir import Kernel, affine_expr, const_int, is_plain, map_exprs_in, map_stmts, own_exprs, \
    stmts, substitute
from .remarks import Remarks


def _divisors(body: tuple, i: str) -> set[int]:
    """The constants c of the body's ``i / c`` and ``i % c``."""
    return {int(n.right.value) for s in stmts(body) for e in own_exprs(s) for n in nodes(e)
            if isinstance(n, Binary) and n.op in ("/", "%") and n.left == Name(i)
            and isinstance(n.right, Num) and not n.right.is_float}


class Delineariser:
    def __init__(self, k: Kernel, remarks: Remarks, fast: bool):
        self.k, self.remarks, self.fast = k, remarks, fast

    def loop(self, s) -> tuple:
        if not isinstance(s, For):
            return (s,)
        lo, hi = const_int(s.lo), const_int(s.hi)
        divisors = _divisors(s.body, s.var)
        if lo is None or hi is None or not 0 <= lo < hi or len(divisors) != 1 \
                or not is_plain(s.body) or not all(isinstance(x, (Assign, For, If)) for x in stmts(s.body)):
            return (s,)  # (every read of i must be one the substitution reaches)
        (c,) = divisors
        if c < 2 or lo % c or hi % c:
            if c >= 2:
                self.remarks.missed(s.loc, f"loop over {s.var} kept flat: {c} does not divide its "
                                    f"bounds {lo} .. {hi}")
            return (s,)
        loc = s.loc
        q, r = self.k.fresh_scalar(f"{s.var}_q"), self.k.fresh_scalar(f"{s.var}_r")

        def split(e):
            if isinstance(e, Binary) and e.op in ("/", "%") and e.left == Name(s.var) \
                    and e.right == Num(c, False):
                return Name(q if e.op == "/" else r, e.loc)
            return e
        body = map_stmts(s.body, lambda x: (map_exprs_in(x, split),))
        body = substitute(body, s.var, affine_expr((0, {q: c, r: 1}), loc))
        inner = For(r, Num(0, False, loc), Num(c, False, loc), body, loc)
        nest = (For(q, Num(lo // c, False, loc), Num(hi // c, False, loc), (inner,), loc),
                Assign(Name(s.var, loc), Num(hi, False, loc), loc))
        if after_loop_passes(self.k, nest, self.fast) >= after_loop_passes(self.k, (s,), self.fast):
            del self.k.syms[q], self.k.syms[r]
            return (s,)
        self.remarks.done(s.loc, f"loop over {s.var} made a nest over {q} (= {s.var} / {c}) and "
                          f"{r} (= {s.var} % {c}), so that its indices are affine")
        return nest


def delinearise(k: Kernel, remarks: Remarks, fast: bool = False) -> Kernel:
    """Make the loops that divide their variable by a constant nests (innermost first)."""
    k = k.copy()
    d = Delineariser(k, remarks, fast)
    k.body = map_stmts(k.body, d.loop)
    return k
