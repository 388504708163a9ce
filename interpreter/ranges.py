"""Value ranges of i64 scalars, so a translated program can leave out the bounds checks and the
i64 wrap-around tests that cannot fail.

An abstract interpretation over the blocks of :mod:`.blocks`: at each block's start, an interval
``[lo, hi]`` for every *tracked* scalar (an i64 scalar no other name shares, so only the
program's own writes to it change it) and a few exact facts: ``v == k + off`` (``v`` a copy of
``k`` moved by a constant) and ``v == (k + off OP s ? 1 : 0)`` (``v`` a comparison of such a
copy, with ``s`` in a known interval). A BLEZ on ``v`` then bounds ``k`` on each of its edges: the
loop tests ``PUTL r0, k; LT r0, r0, 32; BLEZ r0, out`` (-O0) and ``ADD k, k, 1; BLEZ k, body``
(-O1) both give ``k`` its range inside the loop. Widening at loop headers jumps to the next of
the program's constants, so the analysis ends and a loop counter stays between its bounds.

Everything here is sound for every run from any values: the entry assumes nothing, an operation
whose result could leave i64 gives the whole of i64, and an edge whose test cannot hold is never
taken. The engine may resume its function at a header with the scalars reloaded from storage;
the header's ranges hold there too, as they hold for every run that reaches it.
"""
from __future__ import annotations

import bisect
import heapq

from ..lang.frozen import frozen
from ..lang.isa import CONVERT, I64_MAX, I64_MIN, ArithmeticFault, Update
from ..lang.program import Affine, Imm, Ref, Slice
from .blocks import Branch, Cfg, Goto, block_successors
from .engine import Armed, Slot

Interval = tuple[int, int]
FULL: Interval = (I64_MIN, I64_MAX)
_WIDEN_AFTER = 1  # visits of a header before its growing bounds jump to the next constant


@frozen
class Fact:
    """``v == k + off`` (``op`` None), or ``v == (1 if k + off OP s else 0)`` with s in ``bound``."""

    k: str
    off: int
    op: str | None = None
    bound: Interval = FULL


@frozen
class State:
    """Intervals of the tracked scalars (absent: the whole of i64) and facts about them; the
    dicts are never changed once made (a new state is made instead)."""

    ranges: dict[str, Interval]
    facts: dict[str, Fact]

    def get(self, name: str) -> Interval:
        return self.ranges.get(name, FULL)


def _state(ranges: dict[str, Interval], facts: dict[str, Fact]) -> State:
    """A state with whole ranges left out, so equal states compare equal."""
    return State({n: r for n, r in ranges.items() if r != FULL}, facts)


def raw(op: str, a: Interval, b: Interval) -> Interval | None:
    """The exact (unwrapped) range of ``a OP b`` for +, -, *; None for other operations."""
    if op == "ADD":
        return a[0] + b[0], a[1] + b[1]
    if op == "SUB":
        return a[0] - b[1], a[1] - b[0]
    if op == "MUL":
        products = [x * y for x in a for y in b]
        return min(products), max(products)
    return None


def fits(r: Interval) -> bool:
    return I64_MIN <= r[0] and r[1] <= I64_MAX


def result_range(op: str, a: Interval, b: Interval) -> Interval:
    """The range of the i64 result of ``a OP b`` (wrapped results: the whole of i64)."""
    exact = raw(op, a, b)
    if exact is not None:
        return exact if fits(exact) else FULL
    if op == "MIN":
        return min(a[0], b[0]), min(a[1], b[1])
    if op == "MAX":
        return max(a[0], b[0]), max(a[1], b[1])
    if op in ("LT", "LE", "GT", "GE", "EQ", "NE"):
        return 0, 1
    if op == "AND" and (a[0] >= 0 or b[0] >= 0):  # a non-negative operand bounds the result
        return 0, min(x[1] for x in (a, b) if x[0] >= 0)
    return FULL


def refine(fact: Fact, r: Interval, holds: bool) -> Interval:
    """The range of ``fact.k`` knowing ``k + off OP s`` holds (or not), from ``r``."""
    (c, d), off = fact.bound, fact.off
    op = fact.op if holds else {"LT": "GE", "LE": "GT", "GT": "LE", "GE": "LT", "EQ": "NE",
                                "NE": "EQ"}[fact.op]
    lo, hi = r
    if op == "LT":
        hi = min(hi, d - 1 - off)
    elif op == "LE":
        hi = min(hi, d - off)
    elif op == "GT":
        lo = max(lo, c + 1 - off)
    elif op == "GE":
        lo = max(lo, c - off)
    elif op == "EQ":
        lo, hi = max(lo, c - off), min(hi, d - off)
    return lo, hi


class Ranges:
    """The ranges at every block's start (None: no run reaches it), and the transfer function
    the code generator replays through each block's tuples."""

    def __init__(self, armed: Armed, cfg: Cfg, tracked: set[str]):
        self.armed, self.cfg, self.tracked = armed, cfg, tracked
        self.thresholds = self._constants()
        self.entry: dict[int, State | None] = {b: None for b in cfg.blocks}
        visits = dict.fromkeys(cfg.blocks, 0)
        self.entry[cfg.entry] = State({}, {})
        order = {b: n for n, b in enumerate(_reverse_postorder(cfg))}  # fewest passes
        todo = [(0, cfg.entry)]
        while todo:
            start = heapq.heappop(todo)[1]
            block = cfg.blocks[start]
            st = self.entry[start]
            for pc in block.pcs:
                st = self.step(st, self.armed.slots[pc])
            for target, out in self.exits(block, st):
                old = self.entry[target]
                new = out if old is None else self._join(old, out)
                if target in cfg.headers and old is not None:
                    visits[target] += 1
                    if visits[target] > _WIDEN_AFTER:
                        new = self._widen(old, new)
                if new != old:
                    self.entry[target] = new
                    if (order[target], target) not in todo:
                        heapq.heappush(todo, (order[target], target))

    # ---- transfer ----------------------------------------------------------------------------

    def operand(self, st: State, src: object) -> Interval:
        """The range of a data op's source as an i64 (after its conversion)."""
        if isinstance(src, Imm):
            try:
                v = CONVERT["i64"](src.value)
            except ArithmeticFault:  # the op always faults: nothing after it runs
                return FULL
            return v, v
        if isinstance(src, Ref) and not src.index and src.name in self.tracked:
            return st.get(src.name)
        return FULL

    def target(self, slot: Slot) -> str | None:
        """The tracked scalar a data op writes, if any."""
        dest = slot.entry.dest if slot.entry is not None else None
        if slot.entry is None or slot.entry.update is not Update.INC or dest is None:
            return None
        return dest.name if not dest.index and dest.name in self.tracked else None

    def step(self, st: State, slot: Slot) -> State:
        """The state after a tuple."""
        x = self.target(slot)
        if x is None:
            return st
        op, src = slot.entry.op, slot.op.payload
        s = self.operand(st, src)
        ranges, facts = dict(st.ranges), st.facts
        old = facts.get(x)
        fact = None
        if op == "PUTL":
            value = s
            if isinstance(src, Ref) and not src.index and src.name in self.tracked and src.name != x:
                fact = Fact(src.name, 0)
        else:
            value = result_range(op, st.get(x), s)
            if old is not None and old.op is None:
                exact = raw(op, st.get(x), s)
                if op in ("ADD", "SUB") and isinstance(src, Imm) and s[0] == s[1] and fits(exact):
                    fact = Fact(old.k, old.off + (s[0] if op == "ADD" else -s[0]))
                elif op in ("LT", "LE", "GT", "GE", "EQ", "NE"):  # s as it was: k may be it
                    fact = Fact(old.k, old.off, op, s)
        ranges[x] = value
        facts = {v: f for v, f in facts.items() if v != x and f.k != x}
        if fact is not None:
            facts[x] = fact
        return _state(ranges, facts)

    def exits(self, block, st: State) -> list[tuple[int, State]]:
        """The states leaving a block along each of its edges (an edge that cannot be taken is
        left out)."""
        ex = block.exit
        if isinstance(ex, Goto):
            return [(ex.pc, st)]
        if not isinstance(ex, Branch):
            return []
        out = []
        for target, taken in ((ex.taken, True), (ex.fall, False)):
            refined = self.branch(st, self.armed.slots[ex.test].entry.dest, taken)
            if refined is not None:
                out.append((target, refined))
        return out

    def branch(self, st: State, test: Ref, taken: bool) -> State | None:
        """The state on one edge of ``BLEZ test`` (taken: the value is <= 0); None if no run
        takes it."""
        if test.index or test.name not in self.tracked:
            return st
        ranges = dict(st.ranges)
        lo, hi = st.get(test.name)
        ranges[test.name] = (lo, min(hi, 0)) if taken else (max(lo, 1), hi)
        fact = st.facts.get(test.name)
        if fact is not None:
            k = st.get(fact.k)
            if fact.op is None:  # test == k + off
                ranges[fact.k] = (k[0], min(k[1], -fact.off)) if taken else (max(k[0], 1 - fact.off), k[1])
            else:  # test is the comparison's 1 or 0: taken when it does not hold
                ranges[fact.k] = refine(fact, k, not taken)
        if any(a > b for a, b in ranges.values()):
            return None
        return _state(ranges, st.facts)

    def index(self, st: State | None, a: Affine) -> Interval | None:
        """The range of an index expression, None when not known."""
        if st is None:
            return None
        lo = hi = a.const
        for name, c in a.terms:
            if name not in self.tracked:
                return None
            r = st.get(name)
            lo, hi = lo + min(c * r[0], c * r[1]), hi + max(c * r[0], c * r[1])
        return lo, hi

    # ---- lattice -------------------------------------------------------------------------------

    def _join(self, a: State, b: State) -> State:
        ra, rb = a.ranges, b.ranges
        ranges = {}
        for n in ra.keys() & rb.keys():  # absent means the whole of i64
            ranges[n] = (min(ra[n][0], rb[n][0]), max(ra[n][1], rb[n][1]))
        return _state(ranges, {v: f for v, f in a.facts.items() if b.facts.get(v) == f})

    def _widen(self, old: State, new: State) -> State:
        """Bounds that grew jump to the next constant of the program beyond them."""
        ro, t = old.ranges, self.thresholds
        ranges = {}
        for n, (lo, hi) in new.ranges.items():
            olo, ohi = ro.get(n, FULL)
            if lo < olo:
                lo = t[bisect.bisect_right(t, lo) - 1]
            if hi > ohi:
                hi = t[bisect.bisect_left(t, hi)]
            ranges[n] = (lo, hi)
        return _state(ranges, new.facts)

    def _constants(self) -> list[int]:
        """The integers a range may widen to: the program's constants, each give or take one,
        and the ends of i64."""
        found = {0, 1, -1, I64_MIN, I64_MAX}
        for block in self.cfg.blocks.values():
            for pc in block.pcs:
                slot = self.armed.slots[pc]
                for ref in (slot.entry.dest, slot.op.payload):
                    if isinstance(ref, Imm) and type(ref.value) is int:
                        found.add(ref.value)
                    elif isinstance(ref, Ref):
                        for idx in ref.index:
                            for part in (idx.lo, idx.hi) if isinstance(idx, Slice) else (idx,):
                                found.add(part.const)
        found |= {v + d for v in found for d in (-1, 1)}
        return sorted(v for v in found if I64_MIN <= v <= I64_MAX)


def _reverse_postorder(cfg: Cfg) -> list[int]:
    """Block starts in reverse postorder of a depth-first search from the entry."""
    post: list[int] = []
    seen = {cfg.entry}
    stack = [(cfg.entry, iter(block_successors(cfg.blocks[cfg.entry])))]
    while stack:
        start, it = stack[-1]
        for s in it:
            if s not in seen:
                seen.add(s)
                stack.append((s, iter(block_successors(cfg.blocks[s]))))
                break
        else:
            post.append(start)
            stack.pop()
    return post[::-1]
