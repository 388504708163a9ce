"""Pass ``triangular`` (-O2): a loop whose inner loops run over a range that depends on its
variable is unrolled, so that each copy's inner loops have constant bounds.

``for i in 0 .. N do { for j in 0 .. i + 1 do { ... } }`` (a triangular matrix, a forward
substitution, the pairs ``j > i``) and ``for i { for j in 0 .. N do { if j <= i then ... } }`` (a
mask on the outer variable) leave every later pass a loop it cannot vectorise: the inner trip
count or the test changes from one i to the next, and a vector instruction has one length. With
the outer loop unrolled, i is a constant in each copy: the bounds fold (``0 .. 3 + 1`` is
``0 .. 4``), ``split`` cuts a masked inner loop where ``j <= 3`` changes, and each inner loop
vectorises or reduces on its own (lower-triangular matrix-vector product, 16 x 16 f64: 8,262 ->
2,352 ns at -O2, 1,500 at -Ofast, where the rows' sums become trees).

Exact: the copies run in the loop's order, each with i replaced by its value (no for loop the
passes see assigns its variable: ``canon``), and i's final value is assigned after them, as
``unroll`` does. Done when the loop has constant bounds, no early exit, at most :data:`MAX_TRIP`
iterations and at most :data:`MAX_SIZE` nodes unrolled, and an inner for loop's bound reads i (each
bound affine in the loops' variables, so that it folds once they are known) or a test inside an
inner loop compares an affine expression of i; outermost first, so a nest of three triangular
loops unrolls its two outer ones.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, Compare, For, If, Name, Num, nodes
from .ir import Kernel, affine, const_int, is_plain, map_stmts_topdown, names_read, size, stmts, \
    substitute, wrap
from .remarks import Remarks

MAX_TRIP = 64
MAX_SIZE = 8000


def _depends(s: For, syms) -> bool:
    """Whether an inner loop's bounds read s's variable i, or a test inside an inner loop
    compares an affine expression of i (``j <= i``; not ``A[i][j] > 0``, which reads i only to
    address an element)."""
    i = s.var
    for inner in stmts(s.body):
        if not isinstance(inner, For):
            continue
        if i in names_read((inner.lo, inner.hi)):
            return True
        for x in stmts(inner.body):
            if isinstance(x, If) and any(
                    isinstance(c, Compare) and any(i in (affine(e, syms) or (0, {}))[1]
                                                   for e in (c.left, c.right))
                    for c in nodes(x.cond)):
                return True
    return False


class Triangular:
    def __init__(self, k: Kernel, remarks: Remarks):
        self.k, self.remarks = k, remarks

    def loop(self, s):
        if not isinstance(s, For) or not _depends(s, self.k.syms):
            return None
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None or not is_plain(s.body):
            return None
        trip = max(hi - lo, 0)
        if trip > MAX_TRIP or trip * size(s.body) > MAX_SIZE:
            self.remarks.missed(s.loc, f"loop over {s.var} not unrolled for its inner loops: "
                                f"{trip} iterations of {size(s.body)} nodes is over the budget")
            return None
        loops = {s.var} | {x.var for x in stmts(s.body) if isinstance(x, For)}
        for x in stmts(s.body):
            if isinstance(x, For) and s.var in names_read((x.lo, x.hi)) and not all(
                    (a := affine(e, self.k.syms)) is not None and set(a[1]) <= loops
                    for e in (x.lo, x.hi)):
                return None  # (a bound not affine in the loops' variables: no constant to gain)
        copies = [self.bounds(substitute(s.body, s.var, Num(n, False, s.loc))) for n in range(lo, hi)]
        inner = sorted({x.var for x in stmts(s.body) if isinstance(x, For)})
        self.remarks.done(s.loc, f"loop over {s.var} unrolled ({trip} copies), so that the inner "
                          + (f"loops over {', '.join(inner)} get" if len(inner) > 1 else
                             f"loop over {inner[0]} gets") + " constant bounds and tests")
        out = tuple(x for body in copies for x in body)
        final = Assign(Name(s.var, s.loc), Num(max(hi, lo), False, s.loc), s.loc)
        return map_stmts_topdown(out, self.loop) + (final,)

    def bounds(self, body: tuple) -> tuple:
        """The block with every for loop's bounds that are affine constants folded."""
        def fold(x):
            if not isinstance(x, For):
                return None
            return (replace(x, lo=self.constant(x.lo), hi=self.constant(x.hi),
                            body=map_stmts_topdown(x.body, fold)),)
        return map_stmts_topdown(body, fold)

    def constant(self, e):
        a = affine(e, self.k.syms)
        if a is None or a[1] or isinstance(e, Num):
            return e
        return Num(wrap(a[0]), False, e.loc)


def triangular(k: Kernel, remarks: Remarks) -> Kernel:
    """Unroll the loops whose inner loops' bounds or tests depend on their variable."""
    return k.but(map_stmts_topdown(k.body, Triangular(k, remarks).loop))
