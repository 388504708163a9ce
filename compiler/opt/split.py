"""Pass ``split`` (-O2): index-set splitting.

A counted loop whose body branches on the loop variable alone (``if i == 0 or i == N - 1 then
{ ... } else { ... }``, ``if i < 8``) is cut into consecutive loops over the ranges in which
every such condition keeps one value, each with those ``if`` statements replaced by the arm they
take there. The iterations run in the same order and each does what it did, so this is exact
whatever the body computes; the compares and branches are gone, and the parts can vectorise (a
stencil with its two boundary elements: 64 f64, 9,536 -> about 150 ns at -O2).

Done when: the loop has constant bounds and no ``break`` or ``continue`` (one would leave a part,
not the loop) or inlined early return in it; an ``if`` of its body tests comparisons of affine
expressions of the loop variable and constants, combined with ``and``, ``or`` and ``not``
(evaluated here for every i, in 64-bit wrapping arithmetic as the program would); and there are
at most :data:`MAX_PARTS` parts (a part costs a loop's set-up).
"""
from __future__ import annotations

from dataclasses import replace

from ...lang.isa import lookup, semantics
from ..incaq.ast import BoolOp, Break, Compare, Continue, For, If, Not, Num
from ..incaq.checked import Jump, Mark, TailLoop
from ..incaq.lower import REL
from .ir import Kernel, affine, const_int, map_stmts, stmts, wrap
from .remarks import Remarks

MAX_PARTS = 4
#: The longest loop whose conditions are evaluated iteration by iteration here.
MAX_TRIP = 1 << 16



class Splitter:
    def __init__(self, k: Kernel, remarks: Remarks):
        self.k, self.remarks = k, remarks

    def loop(self, s) -> tuple:
        if not isinstance(s, For):
            return (s,)
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None or not 2 <= hi - lo <= MAX_TRIP:
            return (s,)
        tests = {j: self.truth(x.cond, s.var, lo, hi) for j, x in enumerate(s.body)
                 if isinstance(x, If)}
        tests = {j: t for j, t in tests.items() if t is not None}
        if not tests or any(isinstance(x, (Break, Continue, Jump, Mark, TailLoop))
                            for x in stmts(s.body)):
            return (s,)
        cuts = [lo] + [lo + n for n in range(1, hi - lo)
                       if any(t[n] != t[n - 1] for t in tests.values())] + [hi]
        if len(cuts) - 1 > MAX_PARTS:
            return (s,)
        parts = []
        for a, b in zip(cuts, cuts[1:]):
            body = []
            for j, x in enumerate(s.body):
                if j in tests:
                    body.extend(x.then if tests[j][a - lo] else x.orelse)
                else:
                    body.append(x)
            parts.append(replace(s, lo=Num(a, False, s.lo.loc), hi=Num(b, False, s.hi.loc),
                                 body=tuple(body)))
        ranges = ", ".join(f"{a} .. {b}" for a, b in zip(cuts, cuts[1:]))
        self.remarks.done(s.loc, f"loop over {s.var} split into {len(parts)} loop"
                          f"{'s' if len(parts) > 1 else ''} ({ranges}), each without the "
                          f"{'branch' if len(tests) == 1 else 'branches'} on {s.var}")
        return tuple(parts)

    def truth(self, c, i: str, lo: int, hi: int) -> list[bool] | None:
        """The value of condition c for each i in lo .. hi, if c tests only i (else None)."""
        match c:
            case Compare(op=op, left=a, right=b):
                fa, fb = affine(a, self.k.syms), affine(b, self.k.syms)
                if fa is None or fb is None or not set(fa[1]) | set(fb[1]) <= {i}:
                    return None
                test = semantics(lookup(REL[op]), "i64")  # INCA-A's LT ... NE: 1 or 0
                return [test(wrap(fa[0] + fa[1].get(i, 0) * n), wrap(fb[0] + fb[1].get(i, 0) * n)) == 1
                        for n in range(lo, hi)]
            case BoolOp(op=op, left=a, right=b):
                ta, tb = self.truth(a, i, lo, hi), self.truth(b, i, lo, hi)
                if ta is None or tb is None:
                    return None
                return [x and y for x, y in zip(ta, tb)] if op == "and" else \
                    [x or y for x, y in zip(ta, tb)]
            case Not(operand=x):
                t = self.truth(x, i, lo, hi)
                return None if t is None else [not v for v in t]
        return None


def split(k: Kernel, remarks: Remarks) -> Kernel:
    """Split the counted loops of the kernel that branch on their own variable."""
    k = Kernel(dict(k.syms), k.body, k.params, k.inplace)
    k.body = map_stmts(k.body, Splitter(k, remarks).loop)
    return k
