"""The NIC's execution engine: the reference implementation of MODEL.md section 1.

At load time every triggered operation gets a *fetch* (the address generator that reads its
first argument at fire time) and every matching entry an *apply* (the atomic unit: resolve the
destination, convert, compute, store, move the counter). At run time each step is exactly the
model's: the op armed on ``PC == k`` fires, its message is matched by its match bits, the atomic
executes and the counter moves. Nothing is skipped; the work is only prepared in advance.

Memory use is bounded by the program and its data: the engine keeps one fire count per tuple and
no history (a trace is streamed as it happens).

:func:`arm` (what fires on each PC value), the fault messages and :func:`run_fast` are shared with
the engines that translate a program instead (docs/engines.md): they read the installed program
through the same table, fault with the same messages, and hand the last tuples of a run that
reaches its step budget to this engine.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable

from ..lang.check import broadcast_map
from ..lang.frozen import frozen, record
from ..lang.isa import CONVERT, OPCODES, ArithmeticFault, Update, semantics
from ..lang.program import Affine, Imm, Ref, Slice, format_value
from .nic import NIC, Buffer, CountingEvent, MatchingEntry, TriggeredOp

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (2 ms of every start)
if TYPE_CHECKING:
    from typing import TextIO


class BoundsFault(Exception):
    """An address outside its buffer (a real NIC would fault the DMA)."""

    def __init__(self, name: str, dim: int, index: int, size: int):
        super().__init__(f"index {index} is out of bounds for '{name}' "
                         f"(dimension {dim} has size {size})")


class RuntimeFault(Exception):
    """The kernel stopped with an error at tuple ``k`` (a fault, running off the end, no END)."""

    def __init__(self, message: str, k: int | None, kind: str = "fault"):
        super().__init__(message)
        self.message, self.k, self.kind = message, k, kind


class StepLimit(RuntimeFault):
    """The kernel ran more tuples than allowed (``--max-steps``)."""


class LLVMUnavailable(Exception):
    """llvmlite cannot be imported or cannot load LLVM (raised by :mod:`.llvmengine`; here so
    the front ends can catch it without importing the llvm engine's code generator)."""


# ---- address generation ---------------------------------------------------------------------

def _index_fn(expr: Affine, buffers: dict[str, Buffer]) -> Callable[[], int]:
    """A function evaluating an affine index from the current scalar values."""
    c = expr.const
    terms = [(buffers[n].data, k) for n, k in expr.terms]
    if not terms:
        return lambda: c
    if len(terms) == 1:
        cell, k = terms[0]
        if k == 1 and c == 0:
            return lambda: cell[0]
        return lambda: cell[0] * k + c
    return lambda: c + sum(cell[0] * k for cell, k in terms)


def element_address(ref: Ref, buf: Buffer, buffers: dict[str, Buffer]) -> Callable[[], int]:
    """Flat address of a scalar or element reference, bounds-checked at every call."""
    if not ref.index:
        return lambda: 0
    fns = [_index_fn(i, buffers) for i in ref.index]
    shape, strides, name = buf.shape, buf.strides, buf.name
    if len(fns) == 1:
        f0, n0 = fns[0], shape[0]

        def addr1() -> int:
            a = f0()
            if 0 <= a < n0:
                return a
            raise BoundsFault(name, 0, a, n0)
        return addr1
    if len(fns) == 2:
        f0, f1 = fns
        n0, n1 = shape

        def addr2() -> int:
            a, b = f0(), f1()
            if 0 <= a < n0 and 0 <= b < n1:
                return a * n1 + b
            raise BoundsFault(name, 0 if not 0 <= a < n0 else 1, a if not 0 <= a < n0 else b,
                              n0 if not 0 <= a < n0 else n1)
        return addr2

    def addrn() -> int:
        flat = 0
        for dim, (f, n, s) in enumerate(zip(fns, shape, strides)):
            v = f()
            if not 0 <= v < n:
                raise BoundsFault(name, dim, v, n)
            flat += v * s
        return flat
    return addrn


def scalar_address(ref: Ref, buf: Buffer, buffers: dict[str, Buffer]) -> Callable[[], int]:
    """Flat address of the one value a scalar, element or one-element vector reference names."""
    if ref.is_vector:
        addrs = vector_addresses(ref, buf, buffers)
        return lambda: addrs()[0]
    return element_address(ref, buf, buffers)


def vector_addresses(ref: Ref, buf: Buffer, buffers: dict[str, Buffer]) -> Callable[[], list[int]]:
    """Flat addresses of every element a vector reference selects, row-major over its slices."""
    parts = []
    for dim, (idx, n, s) in enumerate(zip(ref.index, buf.shape, buf.strides)):
        if isinstance(idx, Slice):
            parts.append((dim, _index_fn(idx.lo, buffers), idx.length, idx.step, n, s))
        else:
            parts.append((dim, _index_fn(idx, buffers), 1, 1, n, s))
    name = buf.name

    def addrs() -> list[int]:
        out = [0]
        for dim, lo_fn, length, step, n, s in parts:
            lo = lo_fn()
            hi = lo + (length - 1) * step
            if not 0 <= lo < n:
                raise BoundsFault(name, dim, lo, n)
            if not 0 <= hi < n:
                raise BoundsFault(name, dim, hi, n)
            offs = [(lo + j * step) * s for j in range(length)]
            out = [a + o for a in out for o in offs]
        return out
    return addrs


def _shape(ref: Ref) -> tuple[int, ...]:
    return tuple(i.length for i in ref.index if isinstance(i, Slice))


# ---- fetch (the triggered put reading its first argument) ------------------------------------

def make_fetch(payload, dest: Ref | None, buffers: dict[str, Buffer]) -> Callable[[], object]:
    """Read the first argument at fire time; for vector instructions a list in the dest's shape."""
    vector = dest is not None and dest.is_vector
    n = math.prod(_shape(dest)) if vector else 1
    if isinstance(payload, int) and not isinstance(payload, bool):  # a branch target
        return lambda: payload
    if isinstance(payload, Imm):
        v = payload.value
        if vector:
            values = [v] * n
            return lambda: values
        return lambda: v
    buf = buffers[payload.name]
    data = buf.data
    if payload.is_vector:
        addrs = vector_addresses(payload, buf, buffers)
        if not vector:  # a one-element vector read as a scalar (lang.check admits only those)
            return lambda: data[addrs()[0]]
        src, shape = _shape(payload), _shape(dest)
        if src == shape:  # every element onto its own
            return lambda: [data[a] for a in addrs()]
        bmap: list[int] = []  # made when the op first fires (preparing a run fires nothing)

        def spread() -> list:
            if not bmap:
                bmap.extend(broadcast_map(src, shape))
            vals = [data[a] for a in addrs()]
            return [vals[i] for i in bmap]
        return spread
    if not payload.index:
        if vector:
            return lambda: [data[0]] * n
        return lambda: data[0]
    addr = element_address(payload, buf, buffers)
    if vector:
        return lambda: [data[addr()]] * n
    return lambda: data[addr()]


# ---- apply (the atomic unit) -----------------------------------------------------------------

def make_apply(me, buffers: dict[str, Buffer], src_dtype: str | None, nxt: int) -> Callable[[object], int]:
    """The atomic of a matching entry: returns the counter's new value (``nxt`` after a data op)."""
    if me.update is Update.SET:
        return lambda target: target
    dest: Ref = me.dest
    buf = buffers[dest.name]
    data = buf.data
    if me.update is Update.BLEZ:
        addr = scalar_address(dest, buf, buffers)

        def blez(target: int) -> int:
            return target if data[addr()] <= 0 else nxt
        return blez
    spec = OPCODES[me.op]
    dtype = buf.dtype
    convert = CONVERT[dtype] if src_dtype != dtype else None
    fn = None if spec.mnemonic == "PUTL" else semantics(spec, dtype)
    if dest.is_vector:
        addrs = vector_addresses(dest, buf, buffers)

        def vector_apply(values: list) -> int:
            if convert is not None:
                values = [convert(v) for v in values]
            if fn is None:
                for a, v in zip(addrs(), values):
                    data[a] = v
            else:
                for a, v in zip(addrs(), values):
                    data[a] = fn(data[a], v)
            return nxt
        return vector_apply
    if not dest.index:
        if fn is None:
            if convert is None:
                def put_scalar(v) -> int:
                    data[0] = v
                    return nxt
                return put_scalar

            def put_scalar_conv(v) -> int:
                data[0] = convert(v)
                return nxt
            return put_scalar_conv
        if convert is None:
            def alu_scalar(v) -> int:
                data[0] = fn(data[0], v)
                return nxt
            return alu_scalar

        def alu_scalar_conv(v) -> int:
            data[0] = fn(data[0], convert(v))
            return nxt
        return alu_scalar_conv
    addr = element_address(dest, buf, buffers)
    conv = convert or (lambda v: v)
    if fn is None:
        def put_elem(v) -> int:
            data[addr()] = conv(v)
            return nxt
        return put_elem

    def alu_elem(v) -> int:
        a = addr()
        data[a] = fn(data[a], conv(v))
        return nxt
    return alu_elem


# ---- what is armed ---------------------------------------------------------------------------

@frozen
class Slot:
    """What fires on one PC value: the triggered op armed on it and the atomic its message meets.

    ``src_dtype`` and ``nxt`` belong to the atomic: the element type it converts the first
    argument from and the counter's value after a data op. They come from the op that posted
    the atomic for these match bits, which is this op unless two ops send the same bits."""

    op: TriggeredOp
    entry: MatchingEntry | None  # None for END, a counter increment nothing matches
    src_dtype: str | None
    nxt: int


@frozen
class Armed:
    """The installed program as every engine reads it, indexed by PC value."""

    slots: tuple[Slot | None, ...]  # None: nothing is armed on this value
    k_at: tuple[int | None, ...]  # PC value -> tuple number, for statistics and messages
    size: int  # one past the PC value after the last armed op


def arm(nic: NIC, counter: CountingEvent) -> Armed:
    """Index triggered ops by threshold (equality triggering) and find each one's atomic;
    raises RuntimeFault for two ops on one value or a put that no entry matches."""
    ops = [t for t in nic.triggered if t.counter is counter]
    size = max((t.threshold for t in ops), default=0) + 2
    armed: list = [None] * size
    k_at: list = [None] * size
    entries = nic.entries
    atomic: dict = {}  # match bits -> (src dtype, next PC) of the last op sending them
    for to in ops:
        if armed[to.threshold] is not None:
            raise RuntimeFault(f"two triggered operations are armed on {counter.name} == "
                               f"{to.threshold}", to.k)
        k_at[to.threshold] = to.k
        if to.kind == "ct_inc":
            armed[to.threshold] = (to, None)
            continue
        me = entries.get(to.match_bits)
        if me is None:
            raise RuntimeFault(f"no matching entry is posted for match bits {to.match_bits}", to.k)
        src = to.payload
        src_dtype = src.dtype if isinstance(src, Imm) else (
            nic.buffers[src.name].dtype if isinstance(src, Ref) else None)
        armed[to.threshold] = (to, me)
        atomic[me.match_bits] = (src_dtype, to.threshold + 1)
    slots: list[Slot | None] = []
    for a in armed:
        if a is None:
            slots.append(None)
            continue
        to, me = a
        src_dtype, nxt = atomic[me.match_bits] if me is not None else (None, 0)
        slots.append(Slot(to, me, src_dtype, nxt))
    return Armed(tuple(slots), tuple(k_at), size)


def fires_by_tuple(fires: list[int], k_at: tuple[int | None, ...]) -> list[int]:
    """Per-PC-value fire counts summed per tuple (index 0 unused)."""
    by_k = [0] * (max((k for k in k_at if k is not None), default=0) + 1)
    for pc, n in enumerate(fires):
        if n:
            by_k[k_at[pc]] += n
    return by_k


# ---- running ---------------------------------------------------------------------------------

@record
class Prepared:
    """The installed program, prepared for execution (indexed by PC value / match bits)."""

    fetch: list  # PC value -> fetch of the put armed on it (None: nothing armed; END: marker)
    bits: list  # PC value -> match bits that put sends
    apply: dict  # match bits -> atomic of the persistent ME posted for them
    k_at: tuple  # PC value -> tuple number, for statistics
    size: int
    armed: Armed  # what was prepared


_END = object()


def prepare(nic: NIC, counter: CountingEvent, armed: Armed | None = None) -> Prepared:
    """Build every fetch and apply once (``armed``: what :func:`arm` made of the program)."""
    armed = arm(nic, counter) if armed is None else armed
    fetch: list = [None] * armed.size
    bits: list = [None] * armed.size
    apply: dict = {}
    for pc, slot in enumerate(armed.slots):
        if slot is None:
            continue
        if slot.entry is None:
            fetch[pc] = _END
            continue
        fetch[pc] = make_fetch(slot.op.payload, slot.entry.dest, nic.buffers)
        bits[pc] = slot.op.match_bits
        apply[slot.entry.match_bits] = make_apply(slot.entry, nic.buffers, slot.src_dtype, slot.nxt)
    return Prepared(fetch, bits, apply, armed.k_at, armed.size, armed)


@record
class Execution:
    """What a run leaves behind: per-tuple fire counts and how it ended."""

    fires: list[int]  # fires[k] for tuple k (index 0 unused)
    steps: int
    wall_s: float
    engine: str = "reference"  # the engine that ran it


def run(nic: NIC, counter: CountingEvent, done: CountingEvent, max_steps: int = 100_000_000,
        trace: TextIO | None = None, describe: Callable[[int], str] | None = None,
        cost: Callable[[int], object] | None = None, steps_before: int = 0) -> Execution:
    """Run from the counter's current value until the host's ``done`` counter moves.

    Raises RuntimeFault on a fault or when the PC reaches a value nothing is armed on, and
    StepLimit after ``max_steps`` tuples. With ``trace``, one line per fired tuple is written
    (``describe(k)`` names tuple k, ``cost(k)`` is its modeled time). ``steps_before``: tuples
    another engine fired before handing an untraced run over (they count against ``max_steps``).
    """
    prep = prepare(nic, counter)
    fires = [0] * prep.size
    start = time.perf_counter()
    if trace is not None:
        steps = _run_traced(nic, prep, counter, fires, max_steps, trace, describe, cost)
    else:
        steps = run_fast(prep, counter, fires, max_steps, steps_before)
    return finish(done, prep.k_at, fires, steps, start)


def finish(done: CountingEvent, k_at: tuple, fires: list[int], steps: int, start: float,
           engine: str = "reference") -> Execution:
    """A run reached END: signal the host and return what it leaves (fires per PC value, the
    wall time since ``start``)."""
    done.value += 1
    return Execution(fires_by_tuple(fires, k_at), steps, time.perf_counter() - start, engine)


def fault_at(prep: Prepared | Armed, pc: int, exc: Exception) -> RuntimeFault:
    """A fault of the tuple armed on ``pc`` (shared with the stepper and the other engines so
    messages agree)."""
    return RuntimeFault(str(exc), prep.k_at[pc])


def off_end(prep: Prepared | Armed, pc: int) -> RuntimeFault:
    """The PC reached a value nothing is armed on (past the end without END, or a gap)."""
    if pc == prep.size - 1:
        return RuntimeFault(f"the PC reached {pc}, past the last instruction, without END",
                            None, "off-end")
    return RuntimeFault(f"nothing is armed on PC == {pc}", None, "off-end")


def run_fast(prep: Prepared, counter: CountingEvent, fires: list[int], max_steps: int,
             steps: int = 0) -> int:
    """Fire tuples from the counter's value until END, counting into ``fires`` (per PC value);
    ``steps`` tuples have already run (another engine hands its run over at a block boundary).
    Returns the number of steps in all."""
    steps, finished = run_some(prep, counter, fires, max_steps, steps)
    pc = counter.value
    if not finished:
        raise StepLimit(f"the kernel did not finish within {max_steps} steps", prep.k_at[pc], "steps")
    if prep.fetch[pc] is None:
        raise off_end(prep, pc)
    return steps


def run_some(prep: Prepared, counter: CountingEvent, fires: list[int], budget: int,
             steps: int = 0) -> tuple[int, bool]:
    """Fire tuples from the counter's value until END, a value nothing is armed on, or the
    ``budget``-th step in all; returns (steps in all, whether the run stopped before the budget).
    The counter is left on the next tuple to fire, so another engine can go on from there."""
    fetch, bits, apply = prep.fetch, prep.bits, prep.apply
    pc = counter.value
    try:
        while True:
            f = fetch[pc]  # the triggered op armed on PC == pc fires
            if f is None or f is _END:
                break
            fires[pc] += 1
            steps += 1
            if steps > budget:
                break
            # its loopback message is matched by its match bits; the ME's atomic runs and
            # returns the counter's new value
            pc = apply[bits[pc]](f())
    except (BoundsFault, ArithmeticFault) as exc:
        counter.value = pc
        raise fault_at(prep, pc, exc) from None
    counter.value = pc
    if steps > budget:
        fires[pc] -= 1
        return budget, False
    return steps, True


def _run_traced(nic: NIC, prep: Prepared, counter: CountingEvent, fires: list[int], max_steps: int,
                out: TextIO, describe, cost) -> int:
    fetch, bits, apply = prep.fetch, prep.bits, prep.apply
    entries = nic.entries
    pc = counter.value
    steps = 0
    total = 0
    while True:
        f = fetch[pc]
        if f is None:
            counter.value = pc
            raise off_end(prep, pc)
        k = prep.k_at[pc]
        if f is _END:
            out.write(f"{k:>6}  {describe(k)} pc {pc} -> done{'':>18} "
                      f"t={_fmt_ns(total)}\n")
            break
        if steps >= max_steps:
            counter.value = pc
            raise StepLimit(f"the kernel did not finish within {max_steps} steps", k, "steps")
        before = pc
        try:
            pc = apply[bits[pc]](f())
        except (BoundsFault, ArithmeticFault) as exc:
            counter.value = pc
            raise fault_at(prep, pc, exc) from None
        fires[before] += 1
        steps += 1
        total += cost(k)
        me = entries[bits[before]]
        written = "-"
        if me.update is Update.INC:
            written = _read_dest(nic, me.dest)
        out.write(f"{k:>6}  {describe(k)} pc {before} -> {pc:<6} {written:>16} "
                  f"t={_fmt_ns(total)}\n")
    counter.value = pc
    return steps


def _fmt_ns(t) -> str:
    return f"{float(t):.2f}ns"


def _read_dest(nic: NIC, dest: Ref) -> str:
    buf = nic.buffers[dest.name]
    if dest.is_vector and math.prod(_shape(dest)) != 1:
        return f"[{math.prod(_shape(dest))} elements]"
    addr = scalar_address(dest, buf, nic.buffers)()
    return format_value(buf.data[addr], buf.dtype)

