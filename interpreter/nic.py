"""The INCA NIC as a network programming API, in the style of Portals 4 with INCA's extensions.

The host (here: :mod:`inca.interpreter.loader`) uses it the way a Portals program would:

* :meth:`NIC.alloc` binds a buffer in scratchpad or host memory (capacity checked);
* :meth:`NIC.ct_alloc` allocates a counting event (the program counter, the host's completion
  counter);
* :meth:`NIC.me_append` posts a *persistent* matching entry that names its destination, element
  type and the atomic operation to apply (INCA's changed ME: the ME chooses the op);
* :meth:`NIC.triggered_put` arms a *persistent* triggered put on ``counter == threshold``
  (INCA's changed trigger: equality, re-armed after firing, so loops work);
* :meth:`NIC.triggered_ct_inc` arms the triggered counter increment END becomes;
* :meth:`NIC.ct_set` writes a counter (setting PC to 1 starts the kernel).

The NIC is the state and its API only. Its execution is :func:`inca.interpreter.engine.run`,
which takes a NIC: the host installs through this API, then asks the engine to run the NIC until
the host's completion counter moves. So the API sits below the engine and never calls into it.
"""
from __future__ import annotations

import math

from ..lang.diagnostics import Loc
from ..lang.frozen import field, record
from ..lang.isa import CONVERT, ELEMENT_BYTES, Update
from ..lang.program import Operand, Ref
from .profiles import Profile


class NICError(Exception):
    """Misuse of the NIC API (a bad install), as opposed to a fault of the running kernel."""


@record
class CountingEvent:
    """A Portals counting event: a counter that triggered operations watch."""

    name: str
    value: int = 0


@record
class Memory:
    """A memory of the NIC's world: the NIC scratchpad or host memory over PCIe."""

    name: str
    capacity: int | None  # bytes; None = not limited by the model
    used: int = 0


@record
class Buffer:
    """A bound region holding one named location, row-major, as a flat list of elements."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    memory: Memory
    data: list

    @property
    def strides(self) -> tuple[int, ...]:
        """Elements to skip per step in each dimension (row-major)."""
        out, step = [], 1
        for n in reversed(self.shape):
            out.append(step)
            step *= n
        return tuple(reversed(out))


@record
class MatchingEntry:
    """A persistent ME: matches ``match_bits``; its atomic updates ``dest`` then the counter."""

    match_bits: int
    dest: Ref | None
    dtype: str | None
    atomic: str
    op: str  # the instruction's opcode, which selects the atomic unit's function
    update: Update
    counter: CountingEvent
    target: int | None = None


@record
class TriggeredOp:
    """A persistent triggered operation armed on ``counter == threshold``.

    ``kind`` is ``put`` (a loopback put of ``payload`` with ``match_bits``) or ``ct_inc`` (END:
    increment ``signal``, the host's completion counter).
    """

    kind: str
    counter: CountingEvent
    threshold: int
    match_bits: int | None = None
    payload: Operand | int | None = None
    signal: CountingEvent | None = None
    k: int = 0  # the tuple this op belongs to, for statistics and error messages
    loc: Loc | None = field(default=None, compare=False)


class NIC:
    """One INCA-capable NIC with a cost profile."""

    def __init__(self, profile: Profile):
        self.profile = profile
        self.scratchpad = Memory("scratchpad", profile.capacity)
        self.host = Memory("host", None)
        self.buffers: dict[str, Buffer] = {}
        self.counters: dict[str, CountingEvent] = {}
        self.entries: dict[int, MatchingEntry] = {}
        self.triggered: list[TriggeredOp] = []

    # ---- memory --------------------------------------------------------------------------

    def alloc(self, name: str, dtype: str, shape: tuple[int, ...], init: int | float | tuple = 0) -> Buffer:
        """Bind a buffer in the memory the profile puts data in; raises NICError when full."""
        if name in self.buffers:
            raise NICError(f"buffer '{name}' is already bound")
        memory = self.scratchpad if self.profile.memory == "scratchpad" else self.host
        size = math.prod(shape)
        nbytes = size * ELEMENT_BYTES
        if memory.capacity is not None and memory.used + nbytes > memory.capacity:
            raise NICError(f"data does not fit in the {memory.capacity}-byte {memory.name}: "
                           f"'{name}' needs {nbytes} bytes and {memory.capacity - memory.used} are free")
        memory.used += nbytes
        convert = CONVERT[dtype]
        data = list(map(convert, init)) if isinstance(init, tuple) else [convert(init)] * size
        buf = Buffer(name, dtype, tuple(shape), memory, data)
        self.buffers[name] = buf
        return buf

    def alias(self, name: str, of: str, shape: tuple[int, ...] | None = None) -> Buffer:
        """Bind ``name`` as a view of the buffer already bound as ``of``: one storage (and one
        use of memory), two names, each with its own shape (``None``: ``of``'s)."""
        if name in self.buffers:
            raise NICError(f"buffer '{name}' is already bound")
        if of not in self.buffers:
            raise NICError(f"cannot bind '{name}' to unbound buffer '{of}'")
        target = self.buffers[of]
        shape = target.shape if shape is None else tuple(shape)
        if math.prod(shape) != len(target.data):
            raise NICError(f"view '{name}' has {math.prod(shape)} elements but '{of}' has {len(target.data)}")
        view = Buffer(name, target.dtype, shape, target.memory, target.data)
        self.buffers[name] = view
        return view

    def write(self, name: str, values: list) -> None:
        """Host writes a buffer's elements (flat, row-major), converting to its element type."""
        buf = self.buffers[name]
        if len(values) != len(buf.data):
            raise NICError(f"'{name}' holds {len(buf.data)} elements, not {len(values)}")
        buf.data[:] = map(CONVERT[buf.dtype], values)

    def read(self, name: str) -> list:
        """Host reads a buffer's elements (flat, row-major)."""
        return list(self.buffers[name].data)

    # ---- counters, entries, triggers -----------------------------------------------------

    def ct_alloc(self, name: str) -> CountingEvent:
        """Allocate a counting event at zero."""
        ct = CountingEvent(name)
        self.counters[name] = ct
        return ct

    def ct_set(self, ct: CountingEvent, value: int) -> None:
        """Set a counter (the host starts a kernel by setting PC to 1)."""
        ct.value = value

    def me_append(self, match_bits: int, dest: Ref | None, dtype: str | None, atomic: str, op: str,
                  update: Update, counter: CountingEvent, target: int | None = None) -> MatchingEntry:
        """Post a persistent matching entry; match bits are unique on an INCA NIC."""
        if match_bits in self.entries:
            raise NICError(f"a matching entry for match bits {match_bits} is already posted")
        if dest is not None and dest.name not in self.buffers:
            raise NICError(f"matching entry {match_bits} names unbound buffer '{dest.name}'")
        me = MatchingEntry(match_bits, dest, dtype, atomic, op, update, counter, target)
        self.entries[match_bits] = me
        return me

    def triggered_put(self, counter: CountingEvent, threshold: int, match_bits: int,
                      payload: Operand | int, k: int = 0, loc: Loc | None = None) -> TriggeredOp:
        """Arm a persistent loopback put on ``counter == threshold``."""
        to = TriggeredOp("put", counter, threshold, match_bits, payload, None, k, loc)
        self.triggered.append(to)
        return to

    def triggered_ct_inc(self, counter: CountingEvent, threshold: int, signal: CountingEvent,
                         k: int = 0, loc: Loc | None = None) -> TriggeredOp:
        """Arm a counter increment of ``signal`` on ``counter == threshold`` (END)."""
        to = TriggeredOp("ct_inc", counter, threshold, None, None, signal, k, loc)
        self.triggered.append(to)
        return to
