"""The INCA instruction set: the one table every other part of the toolchain reads.

Each opcode's mnemonic, operand form, cost class, semantics (for i64 and f64), the atomic
operation its matching entry carries, and how it moves the program counter are defined here once.
The assembler, tuple encoder, NIC model, cost model and the generated documentation
(``incac --isa``) all read :data:`OPCODES`.
"""
from __future__ import annotations

import math
import operator
from collections.abc import Callable
from enum import Enum

from .frozen import frozen

I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1
_MASK = (1 << 64) - 1

DTYPES = ("i64", "f64")
ELEMENT_BYTES = 8  # both element types are 8 bytes wide


class ArithmeticFault(Exception):
    """An operation with no defined result (i64 division by zero, NaN to i64, ...)."""


class OpClass(Enum):
    """Cost class of an instruction; ``accesses`` is the target-side memory accesses (MODEL.md 3)."""

    PUTL = ("PUTL", 1)
    ALU = ("ALU", 2)
    BLEZ = ("BLEZ", 1)
    JMP = ("JMP", 0)
    END = ("END", 0)  # not an instruction: never counted, costs nothing

    def __init__(self, label: str, accesses: int):
        self.label = label
        self.accesses = accesses

    @property
    def counted(self) -> bool:
        """Whether executing this class counts as an instruction."""
        return self is not OpClass.END


class Form(Enum):
    """Operand shape of an instruction, as written in INCA-A."""

    MOVE = "d, s"  # PUTL d, s
    BINARY = "d, d, s"  # OP d, d, s
    BRANCH = "x, L"  # BLEZ x, L
    JUMP = "L"  # JMP L
    NONE = ""  # END


class Update(Enum):
    """How the atomic moves the program counter after it stores its result (MODEL.md 1.3)."""

    INC = "inc"  # PC += 1
    SET = "set"  # PC <- L
    BLEZ = "blez"  # PC <- value <= 0 ? L : PC + 1
    DONE = "done"  # signal the host's completion counter


def wrap64(v: int) -> int:
    """Two's-complement wrap of an integer into i64."""
    if I64_MIN <= v <= I64_MAX:
        return v
    return ((v - I64_MIN) & _MASK) + I64_MIN


def to_i64(x: float | int) -> int:
    """Convert to i64: floats truncate toward zero; NaN, infinities and out-of-range values fault."""
    if isinstance(x, int):
        return x
    if math.isnan(x) or math.isinf(x):
        raise ArithmeticFault(f"cannot convert {x!r} to i64")
    v = int(x)
    if not I64_MIN <= v <= I64_MAX:
        raise ArithmeticFault(f"{x!r} is out of i64 range")
    return v


#: Convert to f64 (an i64 rounds to the nearest double): Python's ``float`` itself, so that a
#: buffer of them converts in one C loop (``map(to_f64, values)``), not a call per element.
to_f64: Callable[[float | int], float] = float


CONVERT: dict[str, Callable] = {"i64": to_i64, "f64": to_f64}


def _idiv(a: int, b: int) -> int:
    if b == 0:
        raise ArithmeticFault("i64 division by zero")
    q = abs(a) // abs(b)
    return wrap64(q if (a < 0) == (b < 0) else -q)


def _imod(a: int, b: int) -> int:
    if b == 0:
        raise ArithmeticFault("i64 remainder by zero")
    r = abs(a) % abs(b)
    return r if a >= 0 else -r


def _fdiv(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _fmod(a: float, b: float) -> float:
    try:
        return math.fmod(a, b)
    except ValueError:  # fmod(x, 0) and fmod(inf, y)
        return math.nan


def _fmin(a: float, b: float) -> float:
    if a != a or b != b:  # NaN propagates (IEEE 754-2019 minimum)
        return math.nan
    return a if a < b or (a == b and math.copysign(1, a) < 0) else b


def _fmax(a: float, b: float) -> float:
    if a != a or b != b:
        return math.nan
    return a if a > b or (a == b and math.copysign(1, a) > 0) else b


def _shl(a: int, b: int) -> int:
    return wrap64(a << (b & 63))


def _shr(a: int, b: int) -> int:
    return a >> (b & 63)


def _wrapping(op: Callable[[int, int], int]) -> Callable[[int, int], int]:
    def f(a: int, b: int) -> int:
        v = op(a, b)
        return v if I64_MIN <= v <= I64_MAX else wrap64(v)

    return f


def _compare(rel: Callable, one):
    zero = one - one

    def f(a, b):
        return one if rel(a, b) else zero

    return f


@frozen
class OpSpec:
    """One opcode: everything any stage needs to know about it."""

    mnemonic: str
    form: Form
    opclass: OpClass
    update: Update
    atomic: str  # the atomic operation named by the matching entry
    portals: bool  # True if Portals 4 already has this atomic; False for INCA's additions
    i64: Callable | None  # semantics on i64 operands (dest, source) -> value; None = not allowed
    f64: Callable | None  # semantics on f64 operands
    summary: str

    @property
    def int_only(self) -> bool:
        """True for the bitwise operations, which have no f64 form."""
        return self.f64 is None and self.i64 is not None


def _spec(m, form, cls, upd, atomic, portals, i64, f64, summary) -> OpSpec:
    return OpSpec(m, form, cls, upd, atomic, portals, i64, f64, summary)


_ALU, _BIN, _INC = OpClass.ALU, Form.BINARY, Update.INC

OPCODES: dict[str, OpSpec] = {
    s.mnemonic: s
    for s in (
        _spec("PUTL", Form.MOVE, OpClass.PUTL, _INC, "SWAP", True, None, None,
              "d <- s (converts between i64 and f64; f64 to i64 truncates toward zero)"),
        _spec("ADD", _BIN, _ALU, _INC, "SUM", True, _wrapping(operator.add), operator.add, "d <- d + s"),
        _spec("SUB", _BIN, _ALU, _INC, "DIFF", False, _wrapping(operator.sub), operator.sub, "d <- d - s"),
        _spec("MUL", _BIN, _ALU, _INC, "PROD", True, _wrapping(operator.mul), operator.mul, "d <- d * s"),
        _spec("DIV", _BIN, _ALU, _INC, "QUOT", False, _idiv, _fdiv,
              "d <- d / s (i64 truncates toward zero; i64 division by zero is a runtime error)"),
        _spec("MOD", _BIN, _ALU, _INC, "REM", False, _imod, _fmod,
              "d <- d mod s (remainder with the sign of the dividend, as in C)"),
        _spec("MIN", _BIN, _ALU, _INC, "MIN", True, min, _fmin, "d <- min(d, s) (NaN propagates)"),
        _spec("MAX", _BIN, _ALU, _INC, "MAX", True, max, _fmax, "d <- max(d, s) (NaN propagates)"),
        _spec("AND", _BIN, _ALU, _INC, "BAND", True, operator.and_, None, "d <- d & s (i64 only)"),
        _spec("OR", _BIN, _ALU, _INC, "BOR", True, operator.or_, None, "d <- d | s (i64 only)"),
        _spec("XOR", _BIN, _ALU, _INC, "BXOR", True, operator.xor, None, "d <- d ^ s (i64 only)"),
        _spec("SHL", _BIN, _ALU, _INC, "SHL", False, _shl, None,
              "d <- d << (s mod 64) (i64 only, wraps)"),
        _spec("SHR", _BIN, _ALU, _INC, "SHR", False, _shr, None,
              "d <- d >> (s mod 64) (i64 only, arithmetic)"),
        _spec("LT", _BIN, _ALU, _INC, "LT", False, _compare(operator.lt, 1), _compare(operator.lt, 1.0),
              "d <- (d < s) ? 1 : 0"),
        _spec("LE", _BIN, _ALU, _INC, "LE", False, _compare(operator.le, 1), _compare(operator.le, 1.0),
              "d <- (d <= s) ? 1 : 0"),
        _spec("GT", _BIN, _ALU, _INC, "GT", False, _compare(operator.gt, 1), _compare(operator.gt, 1.0),
              "d <- (d > s) ? 1 : 0"),
        _spec("GE", _BIN, _ALU, _INC, "GE", False, _compare(operator.ge, 1), _compare(operator.ge, 1.0),
              "d <- (d >= s) ? 1 : 0"),
        _spec("EQ", _BIN, _ALU, _INC, "EQ", False, _compare(operator.eq, 1), _compare(operator.eq, 1.0),
              "d <- (d == s) ? 1 : 0"),
        _spec("NE", _BIN, _ALU, _INC, "NE", False, _compare(operator.ne, 1), _compare(operator.ne, 1.0),
              "d <- (d != s) ? 1 : 0"),
        _spec("BLEZ", Form.BRANCH, OpClass.BLEZ, Update.BLEZ, "CT_BLEZ", False, None, None,
              "if x <= 0 jump to L, else fall through"),
        _spec("JMP", Form.JUMP, OpClass.JMP, Update.SET, "CT_SET", False, None, None, "jump to L"),
        _spec("END", Form.NONE, OpClass.END, Update.DONE, "CT_INC", True, None, None,
              "stop and signal the host (not counted, free)"),
    )
}

COMPARISONS = ("LT", "LE", "GT", "GE", "EQ", "NE")


def lookup(mnemonic: str) -> OpSpec | None:
    """The opcode for a mnemonic, case-insensitively, or None."""
    return OPCODES.get(mnemonic.upper())


def semantics(spec: OpSpec, dtype: str) -> Callable | None:
    """The (dest, source) -> value function of a binary opcode on ``dtype``, or None if undefined."""
    return spec.i64 if dtype == "i64" else spec.f64


def isa_table_markdown() -> str:
    """The instruction set as a Markdown table (for docs and ``incac --isa``)."""
    rows = ["| mnemonic | operands | class | atomic | Portals 4 | i64 | f64 | meaning |",
            "|---|---|---|---|---|---|---|---|"]
    for s in OPCODES.values():
        ops = f"{s.mnemonic} {s.form.value}".strip()
        binary = s.form is Form.BINARY
        i64 = "yes" if s.i64 is not None or not binary else "no"
        f64 = "yes" if s.f64 is not None or not binary else "no"
        meaning = s.summary.replace("|", "\\|")  # a bare '|' would split the Markdown cell
        rows.append(f"| {s.mnemonic} | `{ops}` | {s.opclass.label} | {s.atomic} | "
                    f"{'yes' if s.portals else 'INCA'} | {i64} | {f64} | {meaning} |")
    return "\n".join(rows)
