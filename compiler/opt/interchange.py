"""Pass ``interchange`` (-O2): a reduction loop innermost in a perfect nest moves outermost.

``for i: for j: for k: M[i][j] = M[i][j] + A[i][k] * B[k][j]`` becomes ``for k: for i: for j:
...``. Each element M[i][j] still receives its terms in the order of k (bit for bit the same
sums), and the loops over i and j, whose iterations now touch distinct elements, can be
vectorised: matrix multiplication becomes a vector product and a vector accumulation per k.

Legal when the body is one reduction ``D = D OP e`` whose destination does not depend on the
moved loop's variable, e does not read D's array, the loop bounds are constants, and distinct
iterations of the outer loops write distinct elements (checked by dependence.py).
"""
from __future__ import annotations

from dataclasses import replace

from ..incaq.ast import Assign, For, Index
from .dependence import Access, NotAffine, conflict
from .ir import Kernel, const_int, is_plain, map_stmts_topdown, names_read
from .reduce import reduction_parts
from .remarks import Remarks


def _nest(s) -> list[For] | None:
    """The loops of a perfect nest of counted loops (outermost first), if s is one."""
    loops = []
    while isinstance(s, For) and const_int(s.lo) is not None and const_int(s.hi) is not None:
        loops.append(s)
        if len(s.body) != 1:
            break
        s = s.body[0]
    return loops if len(loops) >= 2 and len(loops[-1].body) == 1 \
        and isinstance(loops[-1].body[0], Assign) else None


def _try(s: For, k: Kernel, remarks: Remarks) -> For | None:
    loops = _nest(s)
    if loops is None or not is_plain(loops[-1].body):
        return None
    stmt = loops[-1].body[0]
    inner = loops[-1]
    parts = reduction_parts(stmt, k.syms)
    if parts is None or not isinstance(stmt.target, Index):
        return None
    if inner.var in names_read(stmt.target.indices):
        return None
    target = stmt.target
    for outer in loops[:-1]:
        others = {o.var: (const_int(o.lo), const_int(o.hi)) for o in loops[:-1] if o is not outer}
        a = Access(target.base, target.indices, True, 0, target)
        try:
            if conflict(a, a, outer.var, const_int(outer.lo), const_int(outer.hi), k.syms, others):
                return None
        except NotAffine:
            return None
    body = inner.body
    for o in reversed(loops[:-1]):
        body = (replace(o, body=body),)
    moved = replace(inner, body=body)
    names = ", ".join(o.var for o in loops[:-1])
    remarks.done(inner.loc, f"loop over {inner.var} moved outside the loops over {names}: the "
                 f"reduction into {target.base} keeps its order and {names} can be vectorised")
    return moved


def interchange(k: Kernel, remarks: Remarks) -> Kernel:
    """Move the reduction loop of every perfect nest outermost (outermost nests first, so the
    whole nest is reordered rather than its inner part)."""
    def fn(s):
        if isinstance(s, For):
            moved = _try(s, k, remarks)
            if moved is not None:
                return (moved,)
        return None
    return k.but(map_stmts_topdown(k.body, fn))
