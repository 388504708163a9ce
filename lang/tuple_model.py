"""Tuple programs as data: instruction k as the triple (TO_k, ME_k, AOP_k) of MODEL.md section 1,
and :func:`encode`, which makes them from a :class:`Program`. :mod:`.tuples` prints and writes
them, :mod:`.tuples_load` reads them back.
"""
from __future__ import annotations

from dataclasses import field
from typing import Callable

from .diagnostics import Loc
from .gcpause import collector_paused
from .frozen import frozen
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


@frozen
class Tuple:
    """One instruction as a tuple."""

    k: int
    op: str
    trigger: Trigger
    entry: Entry | None  # None for END, which only signals the host
    loc: Loc | None = field(default=None, compare=False)

    def instr(self) -> Instr:
        """The instruction this tuple encodes."""
        dest, src, target = operands(self)
        return Instr(self.op, dest, src, target, self.loc)


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
    :meth:`Tuple.instr` without making the instruction)."""
    form = _FORMS[t.op]
    if form is _MOVE or form is _BINARY:
        return t.entry.dest, t.trigger.payload, None
    if form is _BRANCH:
        return t.entry.dest, None, t.trigger.payload
    if form is _JUMP:
        return None, None, t.trigger.payload
    return None, None, None


def encode(prog: Program) -> TupleProgram:
    """Encode each instruction k as tuple k (MODEL.md 1)."""
    with collector_paused():  # many small objects, no cycles
        dtypes = {d.name: d.dtype for d in prog.decls}
        tuples = []
        append, tuple_, trigger, entry, parts = tuples.append, Tuple, Trigger, Entry, _PARTS
        for k, ins in enumerate(prog.instrs, 1):
            op, dest = ins.op, ins.dest
            signals, sends_src, jumps, atomic, update = parts[op]
            if signals:
                append(tuple_(k, op, trigger(PC, k, None, None), None, ins.loc))
                continue
            target = ins.target if jumps else None
            append(tuple_(k, op, trigger(PC, k, k, ins.src if sends_src else target),
                          entry(k, dest, None if dest is None else dtypes[dest.name], atomic, update,
                                target), ins.loc))
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
