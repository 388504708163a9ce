"""Pass ``interchange`` (-O2): loops of a nest change places so that a vectorisable one is innermost.

Two forms:

- **Reduction loops move outermost.** ``for i: for j: for k: M[i][j] = M[i][j] + A[i][k] *
  B[k][j]`` becomes ``for k: for i: for j: ...``. Each element M[i][j] still receives its terms
  in the order of k (bit for bit the same sums), and the loops over i and j, whose iterations now
  touch distinct elements, can be vectorised: matrix multiplication becomes a vector product and
  a vector accumulation per k. Every loop whose variable the destination does not read moves,
  in their order: a 2-D convolution's ``for x: for dy: for dx: v[x] = v[x] + I[y + dy][x + dx]
  * K[dy][dx]`` becomes ``for dy: for dx: for x: ...``, each v[x] receiving its terms in the
  order of (dy, dx) as before. Legal when the body is one reduction ``D = D OP e`` whose
  destination does not depend on the moved loops' variables (the innermost among them), e does
  not read D's array, the loop bounds are constants, and distinct iterations of the loops that
  stay, taken together, write distinct elements (``dependence.apart``; ``T[a + b]`` over a and
  b is not such a target).
- **A parallel loop moves inside a carried one.** ``for i: for j: B[i][j] = B[i][j - 1] +
  A[i][j]`` (a recurrence along each row) carries B from one j to the next, so the loop over j
  does not vectorise; but distinct i touch distinct elements, whatever their j (``dependence.
  apart``), so ``for j: for i:`` does every statement instance with the same inputs, row by row
  in the same order of j, and the loop over i vectorises: one vector statement per column.
  Legal when the two loops have constant bounds, the inner body is assignments to elements (no
  scalar is written), and no element one (i, j) stores is touched at another i. Done only when
  the inner loop carries a dependence and the estimate after ``scan``, ``reduce`` and
  ``vectorise`` (tried on copies) is lower than the nest's as it is.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, For, Index
from .dependence import NotAffine, accesses_of, apart, conflict, distinct_stores, store_pairs
from .estimate import cost
from .ir import Kernel, const_int, is_plain, map_stmts_topdown, names_read, perfect_nest
from .reduce import reduction_parts
from .remarks import Remarks


def _try(s: For, k: Kernel, remarks: Remarks, fast: bool) -> For | None:
    loops = perfect_nest(s)
    if loops is None or not is_plain(loops[-1].body):
        return None
    stmt = loops[-1].body[0]
    parts = reduction_parts(stmt, k.syms)
    if parts is None or not isinstance(stmt.target, Index):
        return None
    target = stmt.target
    indexed = names_read(target.indices)
    moving = [o for o in loops if o.var not in indexed]  # the loops the terms come from
    staying = [o for o in loops if o.var in indexed]
    if loops[-1] in staying or not staying or loops[:len(moving)] == moving:
        return None  # (the innermost loop vectorises as it is; or nothing to move)
    # distinct iterations of the loops that stay store distinct elements (else the terms of one
    # element would be reordered)
    if not distinct_stores(target.indices, staying, k.syms):
        return None
    body = loops[-1].body
    for o in reversed(moving + staying):
        body = (replace(o, body=body),)
    if _after(k, body[0], fast) >= _after(k, s, fast):
        return None  # (reduce does the nest's rows at once: a tree, where its OP allows one)
    names = ", ".join(o.var for o in staying)
    which = ", ".join(o.var for o in moving)
    remarks.done(moving[-1].loc, f"loop{'s' if len(moving) > 1 else ''} over {which} moved outside "
                 f"the loops over {names}: the reduction into {target.base} keeps its order and "
                 f"{names} can be vectorised")
    return body[0]


def _carried_inward(s: For, k: Kernel, remarks: Remarks, fast: bool) -> For | None:
    """``for i: for j: body`` as ``for j: for i: body`` when i is parallel and j carries a
    dependence (module docstring), else None."""
    if len(s.body) != 1 or not isinstance(s.body[0], For):
        return None
    inner = s.body[0]
    bounds = [const_int(e) for e in (s.lo, s.hi, inner.lo, inner.hi)]
    if None in bounds or not inner.body or not is_plain(inner.body) or not all(
            isinstance(x, Assign) and isinstance(x.target, Index) for x in inner.body):
        return None
    lo, hi, ilo, ihi = bounds
    if hi - lo < 2 or ihi - ilo < 2 or inner.var in names_read(s.hi) | names_read(s.lo):
        return None
    accesses = accesses_of(inner.body)
    both = {inner.var: (ilo, ihi)}
    try:
        if not all(apart(a.index, both, b.index, both, s.var, lo, hi, k.syms)
                   for a, b in store_pairs(accesses)):
            return None
        if not any(conflict(a, b, inner.var, ilo, ihi, k.syms, {s.var: (lo, hi)})
                   for a, b in store_pairs(accesses)):
            return None
    except NotAffine:
        return None
    moved = replace(inner, body=(replace(s, body=inner.body),))
    if _after(k, moved, fast) >= _after(k, s, fast):
        return None
    remarks.done(s.loc, f"loop over {s.var} moved inside the loop over {inner.var}: {inner.var} "
                 f"carries a dependence, distinct {s.var} touch distinct elements, so the loop "
                 f"over {s.var} can be vectorised")
    return moved


def _after(k: Kernel, loop: For, fast: bool) -> float:
    """The estimated time of ``loop`` after ``scan``, ``reduce`` and ``vectorise``, on a copy of
    the kernel with their remarks dropped."""
    from .reduce import reduce
    from .scan import scan
    from .vectorise import vectorise

    copy = k.copy((loop,))
    scratch = Remarks()
    copy = reduce(scan(copy, scratch, fast), scratch, fast)
    return cost(vectorise(copy, scratch).body)


def interchange(k: Kernel, remarks: Remarks, fast: bool = False) -> Kernel:
    """Move the reduction loop of every perfect nest outermost (outermost nests first, so the
    whole nest is reordered rather than its inner part), and a parallel loop inside the carried
    loop it encloses."""
    def fn(s):
        if isinstance(s, For):
            moved = _try(s, k, remarks, fast) or _carried_inward(s, k, remarks, fast)
            if moved is not None:
                return (moved,)
        return None
    return k.but(map_stmts_topdown(k.body, fn))
