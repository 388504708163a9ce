"""Pass ``unroll``: full unrolling of counted loops with constant bounds.

-O1 unrolls short loops (at most 4 iterations of a small body); -O2 every loop whose trip count is
a constant (a param) as long as the unrolled code stays under a size budget. Each copy of the body
has the loop variable replaced by its value; the variable's final value (``hi``) is assigned after
the copies, as the loop would leave it (dce removes it when nothing reads it).
"""
from __future__ import annotations

from ..incaq.ast import Assign, For, Name, Num
from .ir import Kernel, const_int, is_plain, map_stmts, names_written, size, substitute
from .remarks import Remarks

#: -O1: at most this many iterations and this much unrolled code.
SHORT_TRIP, SHORT_SIZE = 4, 64
#: -O2: at most this many iterations and this much unrolled code.
LONG_TRIP, LONG_SIZE = 4096, 40000


def unroll(k: Kernel, remarks: Remarks, level: int = 1) -> Kernel:
    """Unroll the counted loops within the level's budget, innermost first."""
    max_trip, max_size = (SHORT_TRIP, SHORT_SIZE) if level < 2 else (LONG_TRIP, LONG_SIZE)

    def fn(s):
        if not isinstance(s, For):
            return (s,)
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None:
            return (s,)
        trip = max(hi - lo, 0)
        if not is_plain(s.body) or s.var in names_written(s.body):
            return (s,)
        if trip > max_trip or trip * size(s.body) > max_size:
            remarks.missed(s.loc, f"loop over {s.var} not unrolled: {trip} iterations of "
                           f"{size(s.body)} nodes is over the budget")
            return (s,)
        out = []
        for t in range(lo, lo + trip):
            out.extend(substitute(s.body, s.var, Num(t, False, s.loc)))
        remarks.done(s.loc, f"loop over {s.var} fully unrolled ({trip} iteration{'s' if trip != 1 else ''})")
        return (*out, Assign(Name(s.var, s.loc), Num(max(hi, lo), False, s.loc), s.loc))
    return k.but(map_stmts(k.body, fn))
