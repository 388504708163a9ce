"""The assembler's fast path: common INCA-A instruction lines read with regular expressions.

The LALR parser of ``lang/incaa.lark`` costs about 200 us a line, which made a 100,000-line
program (what an optimiser that unrolls loops produces) take most of a minute. Almost every line
of such a program has one of a few shapes: ``[N] [label:] OP operand, ...`` where each operand is a
literal, a name, or a name with simple indices (``A[i+1]``, ``B[0:16]``). This module recognises
exactly those shapes and builds the same :class:`~inca.lang.program.Instr` the parser path would.

Declarations have one common shape too, ``.KIND NAME [TYPE[DIM]...] [= NUMBER]`` with each
dimension a number or a name (:func:`scan_directive`); with them a whole program of the usual
kind is read without the parser, whose import and tables were a third of ``inca run`` of an
``.incaa`` file.

It never reports anything: a line it does not recognise (an expression, a table of values, a view,
a slice with a step, anything unusual), and a line it recognises but that has any semantic problem
(unknown mnemonic, wrong operand count, a literal out of range, an unknown label, a declaration
the assembler would refuse...), goes through the lark parser and the assembler's own checks, so
every diagnostic is the one that path gives.
"""
from __future__ import annotations

import re

from ..lang.diagnostics import Source
from ..lang.frozen import frozen, maker
from ..lang.isa import I64_MAX, I64_MIN, Form, lookup
from ..lang.numbers import NumberError, parse_float
from ..lang.program import Affine, Imm, Instr, Operand, Ref, Slice

# [N] [label:] MNEMONIC [operands]; no comment, no characters other than these.
_LINE = re.compile(
    r"[ \t]*(?:([0-9]{1,9})[ \t]+)?(?:([A-Za-z_][A-Za-z0-9_]*)[ \t]*:[ \t]*)?"
    r"([A-Za-z_][A-Za-z0-9_]*)(?:[ \t]+([^;#]*?))?[ \t]*(?:[;#].*)?")
# One operand: a literal, a name, or a name with indices.
_OPERAND = re.compile(
    r"(?P<int>-?(?:0|[1-9][0-9]{0,17}))"
    r"|(?P<float>-?(?:[0-9]+\.[0-9]*(?:[eE][+-]?[0-9]{1,3})?|[0-9]+[eE][+-]?[0-9]{1,3}))"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<index>(?:\[[^\[\]]*\])*)")
_INDEX = re.compile(r"\[([^\[\]]*)\]")
# An index part: a constant, a name, or a name plus or minus a constant.
_AFFINE = re.compile(r"[ \t]*(?:(?P<c>-?(?:0|[1-9][0-9]{0,17}))|(?P<n>[A-Za-z_][A-Za-z0-9_]*)"
                     r"(?:[ \t]*(?P<s>[+-])[ \t]*(?P<k>0|[1-9][0-9]{0,17}))?)[ \t]*")

# .KIND NAME [TYPE[DIM]...] [= VALUE]: each dimension a number or a name, the value one operand text
_DIRECTIVE = re.compile(
    r"[ \t]*\.([A-Za-z_][A-Za-z0-9_]*)[ \t]+([A-Za-z_][A-Za-z0-9_]*)"
    r"(?:[ \t]+([A-Za-z_][A-Za-z0-9_]*)((?:[ \t]*\[[ \t]*[A-Za-z0-9_]+[ \t]*\])*))?"
    r"(?:[ \t]*=[ \t]*([^;#,=]*?))?[ \t]*(?:[;#].*)?")
_DIM = re.compile(r"\[[ \t]*([A-Za-z0-9_]+)[ \t]*\]")
_NUMBER = re.compile(r"0|[1-9][0-9]{0,17}")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

# the forms as plain names: an enum member's lookup costs more than the test it is for
_NONE, _JUMP, _BRANCH, _MOVE, _BINARY = Form.NONE, Form.JUMP, Form.BRANCH, Form.MOVE, Form.BINARY


# Names that are float literals in INCA-A (``inf``, ``nan``) or keywords of its constant
# expressions (which the parser reads as keywords where an operand may start): such lines take
# the parser path.
_RESERVED_WORD = re.compile(
    r"(?<![A-Za-z0-9_])(?:inf|nan|if|then|else|and|or|not)(?![A-Za-z0-9_])")


def _well_formed(operand: str) -> bool:
    """Whether an operand is one of the fast path's shapes (syntax only)."""
    m = _OPERAND.fullmatch(operand)
    if m is None:
        return False
    for index in _INDEX.findall(m.group("index") or ""):
        parts = index.split(":")
        if len(parts) > 2 or not all(_AFFINE.fullmatch(p) for p in parts):
            return False
    return True


class Unrecognised(Exception):
    """The line is not one of the fast path's shapes, or needs a check only the parser path does."""


@frozen
class FastLine:
    """An instruction line as the scanner found it: mnemonic and operand texts with their columns.

    ``data``, ``column`` and ``end_column`` make it look like the parser's instruction tree to
    the assembler's line bookkeeping (numbering, labels, style checks)."""

    text: str
    mnemonic: str
    col: int
    operands: tuple[tuple[str, int, int], ...]  # text, column, end column
    end_column: int
    data: str = "instruction"

    @property
    def column(self) -> int:
        return self.col


@frozen
class FastDirective:
    """A declaration line as the scanner found it (``data`` makes it look like the parser's
    directive tree to the assembler's line bookkeeping)."""

    text: str
    kind: str  # as written, without its dot
    name: str
    name_col: int
    dtype: str | None
    dims: tuple[str, ...]  # each a number or a name, as written
    value: str | None  # the text after '=', a number if the assembler is to take it here
    data: str = "directive"


Scanned = tuple[int | None, int, tuple[str, int] | None, FastLine | FastDirective]
# What makes the records made for each line (lang/frozen.py's makers: fewer instructions)
_FastLine, _Instr, _Ref, _Imm = maker(FastLine), maker(Instr), maker(Ref), maker(Imm)


def scan(text: str, well_formed: set[str]) -> Scanned | None:
    """Line number (and its column), label and instruction of a common instruction line, or None.

    A line this accepts is one the grammar accepts too, with the same parts, so only semantic
    problems are left for :class:`Builder` to detect. ``well_formed`` remembers the operand texts
    seen to be well formed, which unrolled code repeats."""
    m = _LINE.fullmatch(text)
    if m is None or _RESERVED_WORD.search(text):
        return None
    mnemonic = m.group(3)
    body = m.group(4)
    operands: list[tuple[str, int, int]] = []
    end = m.end(3)
    if body:
        start = m.start(4)
        for part in body.split(","):
            stripped = part.strip(" \t")
            if stripped not in well_formed:
                if not _well_formed(stripped):
                    return None
                well_formed.add(stripped)
            col = start + (len(part) - len(part.lstrip(" \t"))) + 1
            operands.append((stripped, col, col + len(stripped)))
            start += len(part) + 1
        end = operands[-1][2] - 1
    lineno = int(m.group(1)) if m.group(1) else None
    label = (m.group(2), m.start(2) + 1) if m.group(2) else None
    line = _FastLine(text, mnemonic, m.start(3) + 1, tuple(operands), end + 1)
    return lineno, m.start(1) + 1 if lineno is not None else 1, label, line


def scan_directive(text: str) -> Scanned | None:
    """The parts of a declaration of the common shape, or None (the parser's business)."""
    m = _DIRECTIVE.fullmatch(text)
    if m is None or _RESERVED_WORD.search(text):
        return None
    kind, name, dtype, dims, value = m.groups()
    sizes = tuple(_DIM.findall(dims or ""))
    # only what the grammar reads the same: each dimension a number or a name, the value a number
    if not all(_NUMBER.fullmatch(d) or _NAME.fullmatch(d) for d in sizes) or (
            value is not None and number(value) is None):
        return None
    return None, 1, None, FastDirective(text, kind, name, m.start(2) + 1, dtype, sizes, value)


def dimension(text: str, params: dict[str, int]) -> int | None:
    """A dimension written as a number or a .param, if it is one and positive."""
    size = int(text) if _NUMBER.fullmatch(text) else params.get(text)
    return size if size is not None and size > 0 else None


def number(text: str) -> int | float | None:
    """A literal of the operand forms (the parser reads it the same), or None."""
    m = _OPERAND.fullmatch(text)
    if m is None or m.group("name") is not None:
        return None
    if m.group("int") is not None:
        return int(m.group("int"))
    try:
        return parse_float(m.group("float"))
    except NumberError:
        return None


class Builder:
    """Builds instructions from :class:`FastLine` s with the assembler's .param values and labels."""

    def __init__(self, src: Source, params: dict[str, int]):
        self.src = src
        self.params = params
        # Unrolled code writes the same operands over and over: each text is converted once, to
        # a value (int or float), a name, or a name and its indices, which every use shares.
        self.shapes: dict[str, tuple[str, object]] = {}

    def affine(self, text: str) -> Affine:
        m = _AFFINE.fullmatch(text)
        if m is None:
            raise Unrecognised
        if m.group("c") is not None:
            return Affine(int(m.group("c")))
        name = m.group("n")
        k = 0 if m.group("k") is None else int(m.group("k")) * (-1 if m.group("s") == "-" else 1)
        if name in self.params:
            value = self.params[name] + k
            if not I64_MIN <= value <= I64_MAX:  # the parser path reports it, as param arithmetic
                raise Unrecognised
            return Affine(value)
        return Affine(k, ((name, 1),))

    def index(self, text: str) -> Affine | Slice:
        lo, colon, hi = text.partition(":")  # scan() let through no step and no omitted bound
        return Slice(self.affine(lo), self.affine(hi), 1) if colon else self.affine(text)

    def operand(self, text: str, n: int, col: int, end: int) -> Operand:
        shape = self.shapes.get(text)
        if shape is None:
            shape = self.shapes[text] = self.shape(text)
        kind, value = shape
        loc = self.src.loc(n, col, end)
        if kind == "ref":
            return _Ref(*value, loc)
        return _Imm(value, kind, loc)

    def shape(self, text: str) -> tuple[str, object]:
        """``("i64", int)``, ``("f64", float)`` or ``("ref", (name, indices))``."""
        m = _OPERAND.fullmatch(text)
        if m is None:
            raise Unrecognised
        if m.group("int") is not None:
            return "i64", int(m.group("int"))
        if m.group("float") is not None:
            try:
                return "f64", parse_float(m.group("float"))
            except NumberError:
                raise Unrecognised from None
        name = m.group("name")
        if m.group("index"):
            return "ref", (name, tuple(self.index(i) for i in _INDEX.findall(m.group("index"))))
        if name in self.params:
            value = self.params[name]
            if not I64_MIN <= value <= I64_MAX:
                raise Unrecognised
            return "i64", value
        return "ref", (name, ())

    def target(self, text: str, labels: dict[str, int]) -> int:
        if text.isdigit() and text.isascii() and (text == "0" or text[0] != "0") and len(text) < 10:
            return int(text)
        if text in self.params:
            return self.params[text]
        if text in labels:
            return labels[text]
        raise Unrecognised

    def instruction(self, line: FastLine, n: int, labels: dict[str, int]) -> Instr:
        """The instruction of a scanned line; :class:`Unrecognised` for the parser path."""
        spec = lookup(line.mnemonic)
        if spec is None:
            raise Unrecognised
        ops = line.operands
        form, op = spec.form, spec.mnemonic
        loc = self.src.loc(n, line.col, line.col + len(line.mnemonic))
        count = len(ops)
        if form is _NONE and count == 0:
            return _Instr(op, loc=loc)
        if form is _JUMP and count == 1:
            return _Instr(op, target=self.target(ops[0][0], labels), loc=loc)
        if form is _BRANCH and count == 2:
            return _Instr(op, dest=self.dest(ops[0], n), target=self.target(ops[1][0], labels), loc=loc)
        if form is _MOVE and count == 2 or form is _BINARY and count in (2, 3):
            dest = self.dest(ops[0], n)
            if count == 3 and self.operand(ops[1][0], n, ops[1][1], ops[1][2]) != dest:
                raise Unrecognised
            text, col, end = ops[-1]
            return _Instr(op, dest=dest, src=self.operand(text, n, col, end), loc=loc)
        raise Unrecognised

    def dest(self, op: tuple[str, int, int], n: int) -> Ref:
        v = self.operand(op[0], n, op[1], op[2])
        if not isinstance(v, Ref):
            raise Unrecognised
        return v

