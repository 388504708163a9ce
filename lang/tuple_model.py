"""Tuple programs as data: instruction k as the triple (TO_k, ME_k, AOP_k) of MODEL.md section 1,
and :func:`encode`, which makes them from a :class:`Program`. :mod:`.tuples` prints and writes
them, :mod:`.tuples_load` reads them back.
"""
from __future__ import annotations

from collections.abc import Callable

from .diagnostics import Loc
from .gcpause import collector_paused
from .frozen import frozen, refuse_assignment, refuse_deletion
from .isa import OPCODES, Form, Update
from .program import Decl, Instr, Operand, Program, Ref

FORMAT = "inca-tuples/2"
PC = "pc"  # the counting event every tuple of a program shares
DONE = "done"  # the host's completion counter, incremented by END


@frozen
class Trigger:
    """TO_k: armed on ``counter == threshold``; sends ``payload`` with ``match_bits`` (None for END)."""

    counter: str
    threshold: int
    match_bits: int | None
    payload: Operand | int | None  # source operand, branch target, or nothing (END)


@frozen
class Entry:
    """ME_k: persistent, matches ``match_bits``; applies ``atomic`` to ``dest`` then moves the counter."""

    match_bits: int
    dest: Ref | None  # None for JMP, whose atomic only writes the counter
    dtype: str | None
    atomic: str
    update: Update
    target: int | None = None


class Tuple:
    """One instruction as a tuple: ``Tuple(k, op, trigger, entry, loc)``, ``entry`` None for END,
    which only signals the host.

    It behaves as a frozen dataclass of those fields would (``==`` and ``hash`` without ``loc``,
    ``repr``, class patterns, pickling; assigning a field raises ``FrozenInstanceError``), but a
    tuple :func:`encode` makes holds its instruction and its destination's element type instead
    of a trigger and an entry, and makes the two (once) when one is first read: they follow from
    the instruction (MODEL.md 1), and making them for every tuple was two thirds of encoding, for
    a trigger and an entry that writing the JSON never reads."""

    __slots__ = ("k", "op", "loc", "_trigger", "_entry")
    __match_args__ = ("k", "op", "trigger", "entry", "loc")

    # While ``_trigger`` holds an Instr the parts are still to be made from it, and ``_entry``
    # holds the element type of its destination (encode makes such tuples). Making them stores
    # the entry before the trigger, a reader tests only ``_trigger``, and the element type is read
    # back from an entry already stored, so two threads reading one tuple at once at worst both
    # make equal parts.

    def __init__(self, k: int, op: str, trigger: Trigger, entry: Entry | None,
                 loc: Loc | None = None) -> None:
        _set_k(self, k)
        _set_op(self, op)
        _set_loc(self, loc)
        _set_trigger(self, trigger)
        _set_entry(self, entry)

    @property
    def trigger(self) -> Trigger:
        """TO_k."""
        if type(self._trigger) is Instr:
            self._make_parts()
        return self._trigger

    @property
    def entry(self) -> Entry | None:
        """ME_k (None for END)."""
        if type(self._trigger) is Instr:
            self._make_parts()
        return self._entry

    def _make_parts(self) -> None:
        ins, dtype, k = self._trigger, self._entry, self.k
        if type(dtype) is Entry:  # (another thread's, made from the same instruction)
            dtype = dtype.dtype
        signals, sends_src, jumps, atomic, update = _PARTS[ins.op]
        if signals:
            trigger, entry = Trigger(PC, k, None, None), None
        else:
            target = ins.target if jumps else None
            trigger = Trigger(PC, k, k, ins.src if sends_src else target)
            entry = Entry(k, ins.dest, dtype, atomic, update, target)
        _set_entry(self, entry)  # the entry first: a reader of the pair tests _trigger's type
        _set_trigger(self, trigger)

    def instr(self) -> Instr:
        """The instruction this tuple encodes."""
        dest, src, target = operands(self)
        ins = self._trigger
        if type(ins) is Instr and ins.dest is dest and ins.src is src and ins.target is target:
            return ins  # (encode's instruction, at the tuple's location)
        return Instr(self.op, dest, src, target, self.loc)

    def _key(self) -> tuple:
        return (self.k, self.op, self.trigger, self.entry)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"Tuple(k={self.k!r}, op={self.op!r}, trigger={self.trigger!r}, "
                f"entry={self.entry!r}, loc={self.loc!r})")

    __setattr__ = refuse_assignment
    __delattr__ = refuse_deletion

    def __reduce__(self):
        # the slots as they are (an instruction and a type while the parts are not made)
        return Tuple, (self.k, self.op, self._trigger, self._entry, self.loc)


_set_k, _set_op, _set_loc, _set_trigger, _set_entry = (
    Tuple.__dict__[n].__set__ for n in Tuple.__slots__)


class _Encoded(Tuple):
    """What :func:`encode` makes a tuple with (in fewer instructions than through the setters):
    ``_Encoded(k, op, loc, ins, dtype)`` is the ``Tuple`` of instruction ``ins`` as tuple k, its
    parts still to be made. Made as :func:`.frozen.maker`'s classes make a record: stored as a
    mutable object's slots, then made a ``Tuple``."""

    __slots__ = ()
    __setattr__ = object.__setattr__
    __delattr__ = object.__delattr__

    def __init__(self, k: int, op: str, loc: Loc | None, ins: Instr, dtype: str | None) -> None:
        self.k = k
        self.op = op
        self.loc = loc
        self._trigger = ins
        self._entry = dtype
        self.__class__ = Tuple


@frozen
class TupleProgram:
    """A loadable program: the buffers to allocate and one tuple per instruction."""

    buffers: tuple[Decl, ...]
    tuples: tuple[Tuple, ...]
    source: str = ""

    def program(self) -> Program:
        """The instruction-level program (for printing a loaded JSON program as INCA-A)."""
        return Program(self.buffers, tuple(t.instr() for t in self.tuples), (), self.source)


def operands(t: Tuple) -> tuple[Ref | None, Operand | None, int | None]:
    """The destination, source and target of the instruction tuple ``t`` encodes (its
    :meth:`Tuple.instr` without making the instruction, nor its trigger and entry)."""
    form, trigger = _FORMS[t.op], t._trigger
    if type(trigger) is Instr:  # the parts not made yet: what they would hold
        ins = trigger
        dest, payload = ins.dest, (ins.src if form is _MOVE or form is _BINARY else ins.target)
    else:
        entry = t._entry
        dest, payload = (None if entry is None else entry.dest), trigger.payload
    if form is _MOVE or form is _BINARY:
        return dest, payload, None
    if form is _BRANCH:
        return dest, None, payload
    if form is _JUMP:
        return None, None, payload
    return None, None, None


def encode(prog: Program) -> TupleProgram:
    """Encode each instruction k as tuple k (MODEL.md 1): the tuple holds the instruction and the
    element type of its destination, from which it makes its trigger and entry when read."""
    with collector_paused():  # many small objects, no cycles
        dtypes = {d.name: d.dtype for d in prog.decls}
        tuples = []
        parts, encoded = _PARTS, _Encoded
        for k, ins in enumerate(prog.instrs, 1):
            op, dest = ins.op, ins.dest
            parts[op]  # an opcode the model does not know fails here, as it did when encoded
            tuples.append(encoded(k, op, ins.loc, ins, None if dest is None else dtypes[dest.name]))
        return TupleProgram(prog.decls, tuple(tuples), prog.name)


def encoder(ins: Instr, dtype: str | None) -> Callable[[int, Loc | None], Tuple]:
    """A function making the tuple of ``ins`` as tuple k at a location; ``dtype`` is the element
    type of its destination.

    An instruction's tuple differs from place to place only in k and the location; the tuple
    loader encodes each distinct instruction at many places (unrolled code repeats them), so
    what does not vary is worked out once."""
    op, spec = ins.op, OPCODES[ins.op]
    if spec.form is Form.NONE:
        return lambda k, loc: Tuple(k, op, Trigger(PC, k, None, None), None, loc)
    payload = ins.src if spec.form in (Form.MOVE, Form.BINARY) else ins.target
    target = ins.target if spec.form in (Form.BRANCH, Form.JUMP) else None
    dest, atomic, update = ins.dest, spec.atomic, spec.update
    return lambda k, loc: Tuple(k, op, Trigger(PC, k, k, payload),
                                Entry(k, dest, dtype, atomic, update, target), loc)


#: Per opcode, what its tuples share, as :func:`encoder` works it out: whether it only signals the
#: host (END), whether its payload is the source operand (else the branch target), whether it has
#: a target, its atomic and its counter update. (Plain values: an enum member's attribute lookup
#: cost more than the rest of a tuple's decoding.)
_PARTS = {op: (spec.form is Form.NONE, spec.form in (Form.MOVE, Form.BINARY),
               spec.form in (Form.BRANCH, Form.JUMP), spec.atomic, spec.update)
          for op, spec in OPCODES.items()}
#: Each opcode's form, and the forms as plain names, for :func:`operands`.
_FORMS = {op: spec.form for op, spec in OPCODES.items()}
_MOVE, _BINARY, _BRANCH, _JUMP = Form.MOVE, Form.BINARY, Form.BRANCH, Form.JUMP
