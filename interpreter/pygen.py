"""Translation of an installed tuple program into one Python function (the python engine).

The function runs the program's blocks (:mod:`.blocks`) in a dispatch loop: ``_b`` names the
next block and a binary tree of comparisons finds its code, so any PC graph translates, loops or
not. Each block adds one to its counter (``c<j>``) and runs its tuples' statements
(:mod:`.pyops`); the counters give every tuple's fire count exactly. A loop header first takes
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

from dataclasses import dataclass
from typing import Callable

from ..lang.isa import OPCODES, ArithmeticFault, Update, to_i64, wrap64
from ..lang.program import Ref
from .blocks import Block, Cfg, Goto, Stop, Untranslatable
from .engine import Armed, BoundsFault
from .nic import NIC
from .pyops import Emitter, Writer, bounds, wrap_all

END, OFF_END, RECOUNT, FAULT = range(4)
_CHUNK = 256  # counters unpacked per statement (a statement's targets go on the value stack)


@dataclass(frozen=True)
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


def _storage(nic: NIC) -> tuple[dict[str, int], tuple[str, ...], set[str]]:
    """Each buffer's storage index (views share their target's), and the scalars whose storage
    no other name shares: those may live in locals."""
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


def translate(nic: NIC, armed: Armed, cfg: Cfg) -> Translation:
    """The kernel function's source for the blocks of ``cfg``."""
    storage, first, cacheable = _storage(nic)
    used: set[str] = set()
    for block in cfg.blocks.values():
        for pc in block.pcs:
            slot = armed.slots[pc]
            if slot.entry.dest is not None:
                used |= _names(slot.entry.dest)
            if isinstance(slot.op.payload, Ref):
                used |= _names(slot.op.payload)
    unknown = sorted(used - set(storage))
    if unknown:
        raise Untranslatable(f"unbound buffer '{unknown[0]}'")
    cached = {n for n in cacheable if n in used}
    em = Emitter(nic.buffers, storage, cached)
    runs = [b for b in cfg.blocks.values() if b.pcs]
    ids = {b.start: j for j, b in enumerate(runs)}
    counters = [f"c{j}" for j in range(len(runs))]
    w = Writer()
    with w.nest("def _kernel(_mem, _counts, _fuel, _b):"):
        w.line(f"{''.join(f'm{j}, ' for j in range(len(first)))}= _mem")
        scalars = sorted((storage[n], n) for n in cached)
        for j, _ in scalars:
            w.line(f"s{j} = m{j}[0]")
        for i in range(0, len(counters), _CHUNK):
            part = counters[i:i + _CHUNK]
            w.line(f"{', '.join(part)}, = _counts[{i}:{i + len(part)}]")
        store_back = [f"m{j}[0] = s{j}" for j, _ in scalars]
        with w.nest("try:"):
            with w.nest("while True:"):
                if runs:
                    _tree(w, em, armed, cfg, runs, ids, 0, len(runs))
                else:  # the entry is END, or nothing is armed on it
                    w.line(_stop(cfg.blocks[cfg.entry].exit))
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
    return f"_x = {END if ex.end else OFF_END}; _p = {ex.pc}; break"


def _tree(w: Writer, em: Emitter, armed: Armed, cfg: Cfg, runs: list[Block], ids: dict[int, int],
          lo: int, hi: int) -> None:
    """Dispatch on ``_b`` among blocks ``lo .. hi-1``: halves while more than three remain."""
    if hi - lo > 3:
        mid = (lo + hi) // 2
        with w.nest(f"if _b < {mid}:"):
            _tree(w, em, armed, cfg, runs, ids, lo, mid)
        with w.nest("else:"):
            _tree(w, em, armed, cfg, runs, ids, mid, hi)
        return
    for j in range(lo, hi):
        head = "else:" if j == hi - 1 and j > lo else f"{'if' if j == lo else 'elif'} _b == {j}:"
        if hi - lo == 1:
            _block(w, em, armed, cfg, runs[j], ids)
            continue
        with w.nest(head):
            _block(w, em, armed, cfg, runs[j], ids)


def _block(w: Writer, em: Emitter, armed: Armed, cfg: Cfg, block: Block, ids: dict[int, int]) -> None:
    j = ids[block.start]
    w.pc = None
    if block.start in cfg.headers:
        w.line(f"_fuel -= {cfg.reserve[block.start]}")
        with w.nest("if _fuel < 0:"):
            w.line(f"_x = {RECOUNT}; _p = {block.start}; break")
    w.line(f"c{j} += 1")
    for pc in block.pcs:
        slot = armed.slots[pc]
        w.pc = pc
        update = slot.entry.update
        if update is Update.INC:
            em.data_op(w, slot)
        elif update is Update.BLEZ:
            em.temps = 0
            with w.nest(f"if {em.blez_value(w, slot)} <= 0:"):
                _goto(w, cfg, ids, slot.op.payload)
            with w.nest("else:"):
                _goto(w, cfg, ids, slot.nxt)
        elif update is not Update.SET:  # JMP only moves the counter, which the blocks do
            raise Untranslatable(f"PC {pc}: atomic {slot.entry.atomic} with update {update.value}")
    w.pc = None
    if isinstance(block.exit, Goto):
        _goto(w, cfg, ids, block.exit.pc)


def _goto(w: Writer, cfg: Cfg, ids: dict[int, int], pc: int) -> None:
    target = cfg.blocks[pc]
    w.line(_stop(target.exit) if not target.pcs else f"_b = {ids[pc]}")
