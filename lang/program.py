"""INCA-A programs as plain data: declarations, operands, instructions.

This is the instruction-level IR: what the assembler produces, what the INCA-Q compiler lowers to,
what the printer prints and what the tuple encoder encodes. All types are frozen dataclasses;
source locations ride along but do not take part in equality, so two programs that differ only in
where they came from compare equal.
"""
from __future__ import annotations

import math

from .diagnostics import Loc
from .frozen import field, fields, frozen
from .isa import ELEMENT_BYTES, OPCODES, Form

ROLES = ("input", "output", "inout", "var")


_NAN = object()  # what every NaN compares and hashes as


def _nan_safe(cls):
    """Equality and hash on the compared fields with every NaN as one key, so a program holding a
    NaN equals its own round trip. (A NaN is unequal to itself; dataclass equality only got away
    with that by comparing field tuples, which short-cut on identity, until Python 3.13 began
    comparing field by field. Hashing NaN by identity, as Python 3.10 on does, breaks the same way.)
    Applied over @frozen, whose own __eq__ and __hash__ it replaces."""
    names = tuple(f.name for f in fields(cls) if f.compare)

    def one(v):
        if isinstance(v, tuple):  # a constant table
            return tuple(one(x) for x in v)
        return _NAN if isinstance(v, float) and v != v else v

    def key(self) -> tuple:
        return tuple(one(getattr(self, n)) for n in names)

    def __eq__(self, other):
        return key(self) == key(other) if other.__class__ is self.__class__ else NotImplemented

    def __hash__(self) -> int:
        return hash(key(self))

    cls.__eq__, cls.__hash__ = __eq__, __hash__
    return cls


@frozen
class Affine:
    """``const + sum(coef * name)``: an index expression evaluated at fire time."""

    const: int = 0
    terms: tuple[tuple[str, int], ...] = ()

    @staticmethod
    def of(const: int = 0, **coefs: int) -> "Affine":
        """Build an affine expression, e.g. ``Affine.of(1, k=2)`` is ``2*k+1``."""
        return Affine(const, tuple((n, c) for n, c in coefs.items() if c))

    def __add__(self, other: "Affine") -> "Affine":
        merged = dict(self.terms)
        for n, c in other.terms:
            merged[n] = merged.get(n, 0) + c
        return Affine(self.const + other.const, tuple((n, c) for n, c in merged.items() if c))

    def scale(self, k: int) -> "Affine":
        """This expression times the integer ``k``."""
        if k == 0:
            return Affine()
        return Affine(self.const * k, tuple((n, c * k) for n, c in self.terms))

    def __sub__(self, other: "Affine") -> "Affine":
        return self + other.scale(-1)

    @property
    def is_const(self) -> bool:
        """True when no scalar name takes part."""
        return not self.terms

    @property
    def names(self) -> tuple[str, ...]:
        """The scalar names this expression reads."""
        return tuple(n for n, _ in self.terms)

    def __str__(self) -> str:
        if not self.terms:  # a constant (most indices of unrolled code): no loop, no sign to strip
            return str(self.const)
        if not self.const and len(self.terms) == 1 and self.terms[0][1] == 1:  # a name (A[i])
            return self.terms[0][0]
        parts: list[str] = []
        for n, c in self.terms:
            mag = abs(c)
            term = n if mag == 1 else f"{mag}*{n}"
            parts.append(("-" if c < 0 else "+") + term)
        if self.const or not parts:
            parts.append(("-" if self.const < 0 else "+") + str(abs(self.const)))
        text = "".join(parts)
        return text[1:] if text.startswith("+") else text


@frozen
class Slice:
    """A vector index ``lo:hi:step``; ``hi - lo`` must be a constant so the shape is static."""

    lo: Affine
    hi: Affine
    step: int = 1

    @property
    def length(self) -> int:
        """Number of elements selected (requires a constant ``hi - lo``)."""
        span = self.hi.const - self.lo.const  # (hi - lo).const, without making the difference
        return max(0, -(-span // self.step))

    def __str__(self) -> str:
        text = f"{self.lo}:{self.hi}"
        return text + (f":{self.step}" if self.step != 1 else "")


Index = Affine | Slice


@_nan_safe
@frozen
class Imm:
    """An immediate: rides in the triggered operation's header."""

    value: int | float
    dtype: str
    loc: Loc | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return format_value(self.value, self.dtype)


@frozen
class Ref:
    """A named location: a scalar (no index), an element, or a vector (some index is a slice)."""

    name: str
    index: tuple[Index, ...] = ()
    loc: Loc | None = field(default=None, compare=False)

    @property
    def is_vector(self) -> bool:
        """True when some index is a slice."""
        return any(isinstance(i, Slice) for i in self.index)

    @property
    def names_read(self) -> tuple[str, ...]:
        """Scalar names that the address generator reads to resolve this reference."""
        if not self.index:  # a scalar (most operands)
            return ()
        # from the terms of each index (an Affine, or a Slice's two bounds), without a tuple
        # made for each part: about 10,000 instructions an element that way
        return tuple([n for i in self.index
                      for n, _ in (i.terms if type(i) is Affine else i.lo.terms + i.hi.terms)])

    def __str__(self) -> str:
        index = self.index
        if not index:  # a scalar (most operands)
            return self.name
        if len(index) == 1:  # an element or a vector of one dimension (most of the others)
            return f"{self.name}[{index[0]}]"
        return self.name + "".join([f"[{i}]" for i in index])


Operand = Imm | Ref


@_nan_safe
@frozen
class Decl:
    """A named location with an element type and a shape (``()`` for a scalar)."""

    name: str
    role: str
    dtype: str
    shape: tuple[int, ...] = ()
    init: int | float | tuple = 0  # one value for every element, or a tuple of one per element
    implicit: bool = False  # an undeclared scalar whose type the assembler inferred
    alias: str | None = None  # stored in the buffer of this other declaration (--clobber)
    loc: Loc | None = field(default=None, compare=False)
    # An input's (or inout's) value when the host gives none (INCA-Q ``input n: i64 = PAYLOAD``,
    # INCA-A ``.input n i64 = 128``); None: the host must give it (or a seed makes it).
    default: int | float | None = None

    @property
    def size(self) -> int:
        """Number of elements."""
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        """Storage footprint in bytes."""
        return self.size * ELEMENT_BYTES


@frozen
class Instr:
    """One INCA-A instruction; ``target`` is the resolved instruction number for BLEZ/JMP."""

    op: str
    dest: Ref | None = None
    src: Operand | None = None
    target: int | None = None
    loc: Loc | None = field(default=None, compare=False)

    def text(self, target_name: str | None = None) -> str:
        """The canonical INCA-A spelling (three-operand form for binary ops)."""
        form = OPCODES[self.op].form
        tgt = target_name if target_name is not None else str(self.target)
        if form is Form.MOVE:
            return f"{self.op} {self.dest}, {self.src}"
        if form is Form.BINARY:
            return f"{self.op} {self.dest}, {self.dest}, {self.src}"
        if form is Form.BRANCH:
            return f"{self.op} {self.dest}, {tgt}"
        if form is Form.JUMP:
            return f"{self.op} {tgt}"
        return self.op


@frozen
class Program:
    """An INCA-A program: instruction k (1-based) is ``instrs[k-1]``.

    ``labels`` maps label names to instruction numbers when the source used labels; an empty
    tuple means the numbered-line style.
    """

    decls: tuple[Decl, ...]
    instrs: tuple[Instr, ...]
    labels: tuple[tuple[str, int], ...] = ()
    name: str = field(default="<program>", compare=False)

    def decl(self, name: str) -> Decl | None:
        """The declaration of ``name``, if any."""
        for d in self.decls:
            if d.name == name:
                return d
        return None


def format_value(value: int | float, dtype: str) -> str:
    """Fixed text form of a value: i64 as an integer, f64 in shortest round-trip form."""
    if dtype == "i64":
        return str(int(value))
    v = float(value)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def operand_shape(op: Operand, decls: dict[str, Decl]) -> tuple[int, ...]:
    """Shape of an operand: ``()`` for immediates, scalars and elements; slice lengths otherwise."""
    if isinstance(op, Imm) or not op.is_vector:
        return ()
    return tuple(i.length for i in op.index if isinstance(i, Slice))


def vector_elements(instr: Instr, decls: dict[str, Decl]) -> int | None:
    """Element count of a vector instruction (the destination's shape), None for scalar ones.

    A vector source must broadcast to the destination (checked by :mod:`lang.check`), except that
    a one-element vector may stand wherever a scalar may: an instruction with any vector operand
    is a vector instruction, priced by the vector rule over its destination's elements (1 for a
    scalar destination).
    """
    if instr.dest is None:
        return None
    if instr.dest.is_vector:
        return math.prod(operand_shape(instr.dest, decls))
    src = instr.src
    return 1 if isinstance(src, Ref) and src.is_vector else None
