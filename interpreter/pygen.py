"""Translation of an installed tuple program into one Python function (the python engine).

The function runs the program's blocks (:mod:`.blocks`) in a dispatch loop: ``_b`` names the
next block and a binary tree of comparisons finds its code, so any PC graph translates, loops or
not; code that goes back to its own start (a loop body with its test written again after it)
runs in a ``while`` loop of its own. Each block adds one to its counter (``c<j>``) and runs its
tuples' statements (:mod:`.pyops`, without the checks :mod:`.ranges` shows cannot fail); the
counters give every tuple's fire count exactly. A loop header first takes
its reserve (the most tuples it can fire before the next header) from ``_fuel``; when the fuel
would go negative the function returns to its caller, which counts the steps exactly and either
calls it again at that header or hands the run to the reference for the last few tuples.

The function is re-entrant at any block: ``_kernel(mem, counts, fuel, block)`` takes the
storage lists, the counters so far, the fuel and the block to start at, loads the cached
scalars from storage and stores them back before it returns ``(status, where, counts, fault)``:

* ``END``, the PC value of END;
* ``OFF_END``, the PC value nothing is armed on;
* ``RECOUNT``, the start of the header whose reserve did not fit;
* ``FAULT``, the line of the source that raised, and the exception (BoundsFault or
  ArithmeticFault); :attr:`Translation.line_pc` names the tuple of every line.
"""
from __future__ import annotations

from collections.abc import Callable

from ..lang.frozen import frozen
from ..lang.isa import OPCODES, ArithmeticFault, Update, to_i64, wrap64
from ..lang.program import Ref
from .blocks import Block, Branch, Cfg, Goto, Stop, Untranslatable, block_successors
from .engine import Armed, BoundsFault
from .nic import NIC
from .pyops import Emitter, Writer, bounds, wrap_all
from .ranges import Ranges

END, OFF_END, RECOUNT, FAULT = range(4)
_INLINE = 4  # tuples of a loop test written again after the blocks that jump to it
_CHUNK = 256  # counters unpacked per statement (a statement's targets go on the value stack)


@frozen
class Translation:
    """The Python source of a program and what its caller needs to run it."""

    source: str
    consts: dict[str, object]  # globals the source names besides the helpers
    line_pc: tuple[int | None, ...]  # line (1-based) -> PC value of its tuple
    storage: tuple[str, ...]  # the buffer naming each storage list the function takes, in order
    order: tuple[int, ...]  # block starts, in the order of the counters
    sizes: tuple[int, ...]  # tuples per block, in the same order

    def compile(self) -> Callable:
        """The kernel function, compiled."""
        from itertools import repeat

        # the operations the source calls are lang.isa's own (one definition of the semantics)
        names = {"_bounds": bounds, "_wrap_all": wrap_all, "_wrap64": wrap64, "_to_i64": to_i64,
                 "_repeat": repeat, "_BoundsFault": BoundsFault, "_ArithmeticFault": ArithmeticFault,
                 "_idiv": OPCODES["DIV"].i64, "_imod": OPCODES["MOD"].i64, "_fdiv": OPCODES["DIV"].f64,
                 "_fmod": OPCODES["MOD"].f64, "_fmin": OPCODES["MIN"].f64, "_fmax": OPCODES["MAX"].f64,
                 "_shl": OPCODES["SHL"].i64, "_shr": OPCODES["SHR"].i64, **self.consts}
        exec(compile(self.source, "<inca python engine>", "exec"), names)
        return names["_kernel"]


def storage(nic: NIC) -> tuple[dict[str, int], tuple[str, ...], set[str]]:
    """Each buffer's storage index (views share their target's), the buffer naming each
    storage first, and the scalars whose storage no other name shares: those may live in
    locals (and the i64 ones have ranges, :mod:`.ranges`)."""
    index: dict[int, int] = {}
    of: dict[str, int] = {}
    first: list[str] = []
    users: dict[int, int] = {}
    for name, buf in nic.buffers.items():
        key = id(buf.data)
        if key not in index:
            index[key] = len(first)
            first.append(name)
        of[name] = index[key]
        users[key] = users.get(key, 0) + 1
    cached = {n for n, b in nic.buffers.items() if not b.shape and users[id(b.data)] == 1}
    return of, tuple(first), cached


def _names(ref: Ref) -> set[str]:
    return {ref.name, *ref.names_read}


@frozen
class Plan:
    """What both translating engines (this one and :mod:`.llvmgen`) work out before writing code."""

    storage_of: dict[str, int]  # buffer -> storage index
    first: tuple[str, ...]  # the buffer naming each storage
    cached: set[str]  # the scalars the code keeps in locals (registers), read and written
    ranges: Ranges
    runs: list[Block]  # the blocks with tuples, in the order of their counters


def plan_code(nic: NIC, armed: Armed, cfg: Cfg) -> Plan:
    """The storage, cached scalars and value ranges of the blocks of ``cfg``; Untranslatable if
    a tuple names a buffer the NIC does not hold."""
    storage_of, first, cacheable = storage(nic)
    used: set[str] = set()
    for block in cfg.blocks.values():
        for pc in block.pcs:
            slot = armed.slots[pc]
            if slot.entry.dest is not None:
                used |= _names(slot.entry.dest)
            if isinstance(slot.op.payload, Ref):
                used |= _names(slot.op.payload)
    unknown = sorted(used - set(storage_of))
    if unknown:
        raise Untranslatable(f"unbound buffer '{unknown[0]}'")
    cached = {n for n in cacheable if n in used}
    ranges = Ranges(armed, cfg, {n for n in cached if nic.buffers[n].dtype == "i64"})
    return Plan(storage_of, first, cached, ranges, [b for b in cfg.blocks.values() if b.pcs])


def translate(nic: NIC, armed: Armed, cfg: Cfg) -> Translation:
    """The kernel function's source for the blocks of ``cfg``."""
    p = plan_code(nic, armed, cfg)
    storage_of, first, cached, runs = p.storage_of, p.first, p.cached, p.runs
    em = Emitter(nic.buffers, storage_of, cached, p.ranges)
    ids = {b.start: j for j, b in enumerate(runs)}
    counters = [f"c{j}" for j in range(len(runs))]
    w = Writer()
    with w.nest("def _kernel(_mem, _counts, _fuel, _b):"):
        if first:  # a program may have no buffers at all
            w.line(f"{''.join(f'm{j}, ' for j in range(len(first)))}= _mem")
        scalars = sorted((storage_of[n], n) for n in cached)
        for j, _ in scalars:
            w.line(f"s{j} = m{j}[0]")
        for i in range(0, len(counters), _CHUNK):
            part = counters[i:i + _CHUNK]
            w.line(f"{', '.join(part)}, = _counts[{i}:{i + len(part)}]")
        store_back = [f"m{j}[0] = s{j}" for j, _ in scalars]
        with w.nest("try:"):
            with w.nest("while True:"):
                if runs:
                    _Blocks(w, em, armed, cfg, ids).tree(runs, 0, len(runs))
                else:  # the entry is END, or nothing is armed on it
                    w.line(f"{_stop(cfg.blocks[cfg.entry].exit)}; break")
        with w.nest("except (_BoundsFault, _ArithmeticFault) as _e:"):
            for line in store_back:
                w.line(line)
            w.line(f"return {FAULT}, _e.__traceback__.tb_lineno, None, _e")
        for line in store_back:
            w.line(line)
        w.line(f"return _x, _p, ({''.join(f'{c}, ' for c in counters)}), None")
    return Translation("\n".join(w.lines) + "\n", em.consts, (None, *w.pcs), first,
                       tuple(b.start for b in runs), tuple(len(b.pcs) for b in runs))


def _stop(ex: Stop) -> str:
    return f"_x = {END if ex.end else OFF_END}; _p = {ex.pc}"


@frozen
class _Blocks:
    """What writing a block's code needs."""

    w: Writer
    em: Emitter
    armed: Armed
    cfg: Cfg
    ids: dict[int, int]  # block start -> the block's number (``_b``, its counter ``c<j>``)

    def tree(self, runs: list[Block], lo: int, hi: int) -> None:
        """Dispatch on ``_b`` among blocks ``lo .. hi-1``: halves while more than three remain."""
        w = self.w
        if hi - lo > 3:
            mid = (lo + hi) // 2
            with w.nest(f"if _b < {mid}:"):
                self.tree(runs, lo, mid)
            with w.nest("else:"):
                self.tree(runs, mid, hi)
            return
        for j in range(lo, hi):
            if hi - lo == 1:
                self.block(runs[j])
                continue
            with w.nest("else:" if j == hi - 1 and j > lo else f"{'if' if j == lo else 'elif'} _b == {j}:"):
                self.block(runs[j])

    def block(self, block: Block) -> None:
        """A block's code. A small test block it jumps to is written again at its end, so a
        loop's body and test are one piece of code; code that goes back to its own start runs in
        a ``while`` loop of its own instead of through the dispatch."""
        parts = [block]
        ex = block.exit
        if isinstance(ex, Goto) and ex.pc != block.start:
            test = self.cfg.blocks[ex.pc]
            if 0 < len(test.pcs) <= _INLINE and isinstance(test.exit, Branch):
                parts.append(test)
        if block.start not in block_successors(parts[-1]):
            for n, part in enumerate(parts):
                self.part(part, None, n + 1 < len(parts))
            return
        with self.w.nest("while True:"):
            for n, part in enumerate(parts):
                self.part(part, block.start, n + 1 < len(parts))
        self.w.line("if _b < 0: break")

    def part(self, block: Block, loop: int | None, falls: bool) -> None:
        """One block's statements: in the ``while`` loop of block ``loop`` if not None; when
        ``falls``, the block it goes to is written next."""
        w, em = self.w, self.em
        w.pc = None
        if block.start in self.cfg.headers:
            w.line(f"_fuel -= {self.cfg.reserve[block.start]}")
            with w.nest("if _fuel < 0:"):
                self.leave(f"_x = {RECOUNT}; _p = {block.start}", True, loop)
        w.line(f"c{self.ids[block.start]} += 1")
        st = em.ranges.entry[block.start]
        for pc in block.pcs:
            slot = self.armed.slots[pc]
            w.pc = pc
            em.state = st
            st = st and em.ranges.step(st, slot)
            update = slot.entry.update
            if update is Update.INC:
                em.data_op(w, slot)
            elif update is Update.BLEZ:
                em.temps = 0
                with w.nest(f"if {em.blez_value(w, slot)} <= 0:"):
                    self.goto(slot.op.payload, loop)
                with w.nest("else:"):
                    self.goto(slot.nxt, loop)
            elif update is not Update.SET:  # JMP only moves the counter, which the blocks do
                raise Untranslatable(f"PC {pc}: atomic {slot.entry.atomic} with update {update.value}")
        w.pc = None
        if isinstance(block.exit, Goto) and not falls:
            self.goto(block.exit.pc, loop)

    def goto(self, pc: int, loop: int | None) -> None:
        target = self.cfg.blocks[pc]
        if pc == loop:
            self.w.line("continue")
        elif not target.pcs:
            self.leave(_stop(target.exit), True, loop)
        else:
            self.leave(f"_b = {self.ids[pc]}", False, loop)

    def leave(self, what: str, stop: bool, loop: int | None) -> None:
        """Go on at another block (``stop``: leave the function) from code in the dispatch, or
        in the ``while`` loop of a block (``_b = -1`` then tells the dispatch to stop too)."""
        if loop is None:
            self.w.line(f"{what}; break" if stop else what)
        else:
            self.w.line(f"{what}; _b = -1; break" if stop else f"{what}; break")
