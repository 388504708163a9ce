"""Basic blocks of an installed tuple program, found from its PC graph; shared by the engines that
translate a program instead of firing it tuple by tuple.

The PC graph has one node per armed PC value and an edge to every value the atomic may leave in
the counter: ``nxt`` after a data op, the target of JMP, both of BLEZ. A block is a maximal run
of tuples that always fire one after the other: it starts at the entry, at a value with other
than exactly one incoming edge, or after a BLEZ, and it may run through a JMP whose target has no
other way in (so one counter per block gives every tuple's fire count). END and a value nothing
is armed on are blocks of no tuples that stop the run.

The step budget (``--max-steps``) is checked at *headers* only: the entry and the target of
every back edge of a depth-first search, so every cycle passes one. ``reserve`` is the most
tuples any path from a header fires before it reaches the next header or stops: when the steps
so far plus the reserve fit the budget, nothing before the next check can exceed it.
"""
from __future__ import annotations

from ..lang.frozen import frozen
from ..lang.isa import Update
from .engine import Armed


class Untranslatable(Exception):
    """A program the translating engines leave to the reference (only hand-built tuple programs
    that the loader and checker would refuse can be)."""


@frozen
class Goto:
    """The block ends by moving the counter to ``pc`` (the next data op, or a JMP's target)."""

    pc: int


@frozen
class Branch:
    """The block ends with the BLEZ armed on ``test``: to ``taken`` when its value is <= 0."""

    test: int
    taken: int
    fall: int


@frozen
class Stop:
    """The run stops here: END is armed on ``pc`` (``end``), or nothing is (off the end)."""

    pc: int
    end: bool


Exit = Goto | Branch | Stop


@frozen
class Block:
    """Tuples that fire one after the other, from PC value ``start``."""

    start: int
    pcs: tuple[int, ...]  # the PC values of its counted tuples, in firing order
    exit: Exit


@frozen
class Cfg:
    """The blocks reachable from the entry, their loop headers and reserves."""

    entry: int
    blocks: dict[int, Block]  # by start PC value, in PC order
    headers: frozenset[int]
    reserve: dict[int, int]  # header -> most tuples fired before the next header or a stop


def successors(armed: Armed, pc: int) -> tuple[int, ...]:
    """The PC values the tuple armed on ``pc`` may leave in the counter (BLEZ: taken first)."""
    slot = armed.slots[pc]
    if slot is None or slot.entry is None:
        return ()
    update, payload = slot.entry.update, slot.op.payload
    if update is Update.INC:
        out: tuple[int, ...] = (slot.nxt,)
    elif update in (Update.SET, Update.BLEZ) and type(payload) is int:
        out = (payload,) if update is Update.SET else (payload, slot.nxt)
    else:
        raise Untranslatable(f"PC {pc}: a {update.value} atomic with payload {payload!r}")
    for s in out:
        if not 0 <= s < armed.size:  # the reference would index outside its tables
            raise Untranslatable(f"PC {pc}: a move to {s}, outside the armed values")
    return out


def analyse(armed: Armed, entry: int) -> Cfg:
    """The blocks of the program from ``entry`` (the counter's value at the start)."""
    if not 0 <= entry < armed.size:
        raise Untranslatable(f"the run starts at PC {entry}, outside the armed values")
    succ: dict[int, tuple[int, ...]] = {}
    preds: dict[int, int] = {entry: 0}
    todo = [entry]
    while todo:
        pc = todo.pop()
        succ[pc] = successors(armed, pc)
        for s in succ[pc]:
            preds[s] = preds.get(s, 0) + 1
            if s not in succ and s not in todo:
                todo.append(s)

    def stops(pc: int) -> bool:
        slot = armed.slots[pc]
        return slot is None or slot.entry is None

    def leader(pc: int) -> bool:
        return pc == entry or preds[pc] != 1 or stops(pc)

    starts = {entry} | {s for pc, ss in succ.items() for s in ss
                        if leader(s) or len(ss) != 1}
    blocks: dict[int, Block] = {}
    for start in sorted(starts):
        if stops(start):
            blocks[start] = Block(start, (), Stop(start, armed.slots[start] is not None))
            continue
        pcs = [start]
        while len(succ[pcs[-1]]) == 1 and succ[pcs[-1]][0] not in starts:
            pcs.append(succ[pcs[-1]][0])
        last = succ[pcs[-1]]
        blocks[start] = Block(start, tuple(pcs), Goto(last[0]) if len(last) == 1
                              else Branch(pcs[-1], last[0], last[1]))
    headers = _headers(blocks, entry)
    return Cfg(entry, blocks, headers, _reserves(blocks, headers))


def block_successors(block: Block) -> tuple[int, ...]:
    """Start PC values of the blocks that may follow ``block``."""
    ex = block.exit
    if isinstance(ex, Goto):
        return (ex.pc,)
    if isinstance(ex, Branch):
        return (ex.taken, ex.fall)
    return ()


def _headers(blocks: dict[int, Block], entry: int) -> frozenset[int]:
    """The entry and the targets of the back edges of an iterative depth-first search."""
    headers = {entry}
    state: dict[int, int] = {entry: 1}  # 1: on the stack, 2: finished
    stack = [(entry, iter(block_successors(blocks[entry])))]
    while stack:
        start, it = stack[-1]
        for s in it:
            if state.get(s) == 1:
                headers.add(s)
            elif s not in state:
                state[s] = 1
                stack.append((s, iter(block_successors(blocks[s]))))
                break
        else:
            state[start] = 2
            stack.pop()
    return frozenset(headers)


def _reserves(blocks: dict[int, Block], headers: frozenset[int]) -> dict[int, int]:
    """Longest path in tuples from each header to the next header or a stop. Edges into headers
    end a path, and they include every back edge, so what remains has no cycle."""
    longest: dict[int, int] = {}

    def tail(s: int) -> int:
        return 0 if s in headers else longest[s]

    for h in headers:
        stack = [h]
        while stack:
            b = stack[-1]
            if b in longest:
                stack.pop()
                continue
            pending = [s for s in block_successors(blocks[b]) if s not in headers and s not in longest]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            longest[b] = len(blocks[b].pcs) + max(map(tail, block_successors(blocks[b])), default=0)
    return {h: longest[h] for h in headers}


def block_fires(cfg: Cfg, order: tuple[int, ...], counts, size: int) -> list[int]:
    """Fire counts per PC value from one counter per block (``order``: the blocks' starts, in
    the counters' order), as the translating engines keep them."""
    fires = [0] * size
    for start, n in zip(order, counts):
        for pc in cfg.blocks[start].pcs:
            fires[pc] += n
    return fires
