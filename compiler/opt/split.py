"""Pass ``split`` (-O2): index-set splitting.

A counted loop whose body branches on the loop variable (``if i == 0 or i == N - 1 then
{ ... } else { ... }``, ``if i < 8``, ``if i < N - 1 and X[i + 1] > X[i]``) is cut into
consecutive loops over the ranges in which what the variable decides of every such condition
stays the same, each with those ``if`` statements replaced by the arm they take there, or testing
only what is left of the condition (``X[i + 1] > X[i]`` in ``0 .. N - 1``; nothing in the last
iteration). The iterations run in the same order and each does what it did, so this is exact
whatever the body computes; the compares and branches on i are gone, and the parts can vectorise
(a stencil with its two boundary elements: 64 f64, 9,536 -> about 150 ns at -O2).

Done when: the loop has constant bounds and no ``break`` or ``continue`` (one would leave a part,
not the loop) or inlined early return in it; an ``if`` of its body (or nested in the body's inner
loops and ``if`` statements: a 2-D stencil's boundary test splits the inner loop on j, then the
outer one on what is left) tests comparisons of affine expressions of the loop variable and
constants, combined with ``and``, ``or`` and ``not`` with each other and with any other condition
(evaluated here for every i, in 64-bit wrapping arithmetic as the program would; see
:class:`_Truth` for what is left); and there are at most :data:`MAX_PARTS` parts (a part costs a
loop's set-up).
"""
from __future__ import annotations

from ...lang.frozen import replace
from ...lang.isa import lookup, semantics
from ..incaq.ast import BoolOp, Break, Compare, Continue, For, If, Not, Num
from ..incaq.checked import Jump, Mark, TailLoop
from ..incaq.lower import REL
from .ir import Kernel, affine, cannot_fault, const_int, map_stmts, map_stmts_topdown, stmts, wrap
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
        if any(isinstance(x, (Break, Continue, Jump, Mark, TailLoop)) for x in stmts(s.body)):
            return (s,)
        truth = _Truth(self.k, s, lo, hi)
        tests = {}
        # the ifs nested in inner loops too: i is the same in all their iterations, since no for
        # loop the passes see assigns its variable in its body (canon)
        for x in (y for y in stmts(s.body) if isinstance(y, If)):
            t = truth.of(x.cond)
            if t is not None and any(v is not x.cond for v in t):
                tests[id(x)] = t
        if not tests:
            return (s,)
        cuts = [lo] + [lo + n for n in range(1, hi - lo)
                       if any(t[n] is not t[n - 1] for t in tests.values())] + [hi]
        if len(cuts) - 1 > MAX_PARTS:
            return (s,)
        parts = []
        for a, b in zip(cuts, cuts[1:]):
            def choose(x, n=a - lo):
                v = tests[id(x)][n] if isinstance(x, If) and id(x) in tests else None
                if v is None:
                    return None
                if v is True or v is False:
                    return map_stmts_topdown(x.then if v else x.orelse, choose)
                return (replace(x, cond=v, then=map_stmts_topdown(x.then, choose),
                                orelse=map_stmts_topdown(x.orelse, choose)),)
            parts.append(replace(s, lo=Num(a, False, s.lo.loc), hi=Num(b, False, s.hi.loc),
                                 body=map_stmts_topdown(s.body, choose)))
        ranges = ", ".join(f"{a} .. {b}" for a, b in zip(cuts, cuts[1:]))
        self.remarks.done(s.loc, f"loop over {s.var} split into {len(parts)} loop"
                          f"{'s' if len(parts) > 1 else ''} ({ranges}), each without the "
                          f"{'test' if len(tests) == 1 else 'tests'} of {s.var}")
        return tuple(parts)


class _Truth:
    """A condition evaluated as far as the loop variable decides it: for each i of the loop, True,
    False, or the condition that is left to test (a residual; the same object for every i that
    leaves the same one). A residual is evaluated in exactly the iterations, and as far, as the
    original condition evaluated it, except where ``and``/``or`` decide without it after it ran
    (``X[i] > 0 and i < 8`` at i = 8): it is then dropped only if it cannot fault (a condition
    has no other effect), else the condition is not split on (None)."""

    def __init__(self, k: Kernel, loop: For, lo: int, hi: int):
        self.k, self.loop, self.lo, self.hi = k, loop, lo, hi
        self.made: dict[tuple, object] = {}  # ids of (c, its residual operands) -> c with them

    def of(self, c) -> list | None:
        i, lo, hi = self.loop.var, self.lo, self.hi
        match c:
            case Compare(op=op, left=a, right=b):
                fa, fb = affine(a, self.k.syms), affine(b, self.k.syms)
                if fa is None or fb is None or not set(fa[1]) | set(fb[1]) <= {i}:
                    return [c] * (hi - lo)
                test = semantics(lookup(REL[op]), "i64")  # INCA-A's LT ... NE: 1 or 0
                return [test(wrap(fa[0] + fa[1].get(i, 0) * n), wrap(fb[0] + fb[1].get(i, 0) * n)) == 1
                        for n in range(lo, hi)]
            case BoolOp(op=op, left=a, right=b):
                ta, tb = self.of(a), self.of(b)
                if ta is None or tb is None:
                    return None
                values = [self.both(c, x, y) for x, y in zip(ta, tb)]
                return None if any(v is None for v in values) else values
            case Not(operand=x):
                t = self.of(x)
                return None if t is None else [
                    (not v) if v is True or v is False else self.make(c, v) for v in t]
        return [c] * (hi - lo)

    def both(self, c: BoolOp, x, y):
        """``x and y`` (``or``) for one i, x and y each a truth or a residual; None where a
        residual that may fault would be dropped after it ran."""
        decides = c.op == "or"  # the value of x (then y) that decides the condition alone
        if x is decides or x is (not decides):
            return decides if x is decides else y  # short-circuit: y never ran, or is the value
        if y is (not decides):
            return x  # x and True: x's truth
        if y is decides:  # x ran, then y decided: x goes only if it cannot fault
            return decides if cannot_fault(x, self.k, self.loop, self.lo, self.hi) else None
        return self.make(c, x, y)

    def make(self, c, *operands):
        """c with these residual operands (c itself when they are its own)."""
        key = (id(c), *map(id, operands))
        if key not in self.made:
            if isinstance(c, Not):
                self.made[key] = c if operands[0] is c.operand else replace(c, operand=operands[0])
            else:
                x, y = operands
                self.made[key] = c if x is c.left and y is c.right else replace(c, left=x, right=y)
        return self.made[key]


def split(k: Kernel, remarks: Remarks) -> Kernel:
    """Split the counted loops of the kernel that branch on their own variable."""
    k = k.copy()
    k.body = map_stmts(k.body, Splitter(k, remarks).loop)
    return k
