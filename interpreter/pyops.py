"""Python statements for one tuple, as the python engine's generated code runs it.

Each tuple becomes straight-line Python that does what the reference's fetch and atomic do
(:mod:`.engine`), in the same order wherever the order can be seen: the source is read (its
bounds checked) before anything else; a PUTL converts before it checks its destination, an ALU
op checks its destination before it converts; a vector op converts every value before it checks
its destination, then stores element by element, so a division by zero in element j leaves
elements 0..j-1 written. Which check fails first decides the message, and every message comes
from the same classes and functions the reference raises from (:func:`bounds`, :mod:`lang.isa`).

Scalars whose storage no other name shares live in Python locals (``s<j>``); every other
location is read and written in its storage list (``m<j>``), so views and clobber aliases see one
another's writes. Index arithmetic is Python's unbounded integers, so the bounds check sees the
exact index, as the reference's does.
"""
from __future__ import annotations

import functools
import math
from contextlib import contextmanager

from ..lang.isa import CONVERT, I64_MAX, I64_MIN, OPCODES, ArithmeticFault, Update, semantics, wrap64
from ..lang.program import Affine, Imm, Ref, Slice
from ..lang.check import broadcasts
from ..lang.frozen import frozen
from .blocks import Untranslatable
from .engine import BoundsFault, Slot, broadcast_map
from .nic import Buffer
from .ranges import Ranges, State, fits, raw

MIN, MAX = str(I64_MIN), str(I64_MAX)


def bounds(name: str, dims: tuple[tuple[int, int, int], ...]) -> None:
    """Raise the reference's BoundsFault for the first failing check of ``(lo, span, size)`` per
    dimension: ``lo`` first, then ``lo + span`` (a slice's last index), dimension by dimension."""
    for dim, (lo, span, n) in enumerate(dims):
        for index in (lo, lo + span):
            if not 0 <= index < n:
                raise BoundsFault(name, dim, index, n)


def wrap_all(values: list[int]) -> list[int]:
    """Every value of a vector of i64 results wrapped into i64."""
    return [v if I64_MIN <= v <= I64_MAX else wrap64(v) for v in values]


class Writer:
    """Lines of Python, each tagged with the PC value of the tuple it belongs to (so a fault's
    line number in a traceback names its tuple)."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.pcs: list[int | None] = []
        self.depth = 0
        self.pc: int | None = None

    def line(self, text: str) -> None:
        self.lines.append("    " * self.depth + text)
        self.pcs.append(self.pc)

    @contextmanager
    def nest(self, head: str):
        self.line(head)
        self.depth += 1
        yield
        self.depth -= 1


@frozen
class Layout:
    """A reference's addressing: per dimension (first index, last - first, size) as Python
    text, its base address, and its elements' offsets from the base as (count, step) runs,
    row-major (the reference's order), merged where one run continues another."""

    store: str
    checks: tuple[tuple[str, int, int, Affine], ...]  # (index text, span, size, index)
    base: str
    runs: tuple[tuple[int, int], ...]
    shape: tuple[int, ...]  # slice lengths (the vector's shape; () for an element)

    @property
    def size(self) -> int:
        return math.prod(n for n, _ in self.runs)

    @property
    def offsets(self) -> tuple[int, ...]:
        return _offsets(self.runs)

    def step(self) -> int | None:
        """The stride of the offsets when they are evenly spaced (1 for one element)."""
        if not self.runs:
            return 1
        return self.runs[0][1] if len(self.runs) == 1 else None

    def region(self) -> str | None:
        """The elements as a Python slice of the storage list, when they form one."""
        st = self.step()
        if st is None:
            return None
        stop = _add(self.base, (self.size - 1) * st + 1)
        return f"{self.store}[{self.base}:{stop}{f':{st}' if st != 1 else ''}]"


@functools.cache
def _offsets(runs: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    offs = [0]
    for n, step in runs:
        offs = [o + j * step for o in offs for j in range(n)]
    return tuple(offs)


def data_parts(slot: Slot, buffers: dict[str, Buffer]):
    """A data op's (mnemonic, whether it is PUTL, destination, its dtype, source, the dtype the
    source converts to or None); Untranslatable for anything else."""
    me, src = slot.entry, slot.op.payload
    spec = OPCODES.get(me.op)
    if (me.dest is None or spec is None or spec.update is not Update.INC
            or not isinstance(src, (Imm, Ref))):
        raise Untranslatable(f"tuple {slot.op.k}: not a data op")
    dtype = buffers[me.dest.name].dtype
    put = spec.mnemonic == "PUTL"
    if not put and semantics(spec, dtype) is None:
        raise Untranslatable(f"{me.op} on {dtype}")
    return me.op, put, me.dest, dtype, src, dtype if slot.src_dtype != dtype else None


def element_runs(dims: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """(count, step) per dimension, without single elements, a run merged into the one before
    it when it continues it (rows of a full matrix are one run)."""
    out: list[tuple[int, int]] = []
    for n, step in dims:
        if n == 1:
            continue
        if out and out[-1][1] == n * step:
            out[-1] = (out[-1][0] * n, step)
        else:
            out.append((n, step))
    return tuple(out)


def _add(expr: str, c: int) -> str:
    if c == 0:
        return expr
    if expr.lstrip("-").isdigit():
        return str(int(expr) + c)
    return f"{expr} + {c}" if c > 0 else f"{expr} - {-c}"


def _atomic(expr: str) -> bool:
    return expr.isidentifier() or expr.lstrip("-").isdigit()


class Emitter:
    """Writes the statements of tuples; names storage, cached scalars and constants."""

    def __init__(self, buffers: dict[str, Buffer], storage: dict[str, int], cached: set[str],
                 ranges: Ranges):
        self.buffers = buffers
        self.storage = storage  # buffer name -> storage index
        self.cached = cached  # buffer names held in locals
        self.ranges = ranges
        self.state: State | None = None  # the ranges before the tuple being written
        self.consts: dict[str, object] = {}  # global name -> a value with no short literal
        self.tables: dict[tuple[int, ...], str] = {}
        self.temps = 0

    # ---- names and values --------------------------------------------------------------

    def store(self, name: str) -> str:
        return f"m{self.storage[name]}"

    def scalar(self, name: str) -> str:
        """A scalar location as a Python expression (a local when cached)."""
        j = self.storage[name]
        return f"s{j}" if name in self.cached else f"m{j}[0]"

    def lit(self, value: object) -> str:
        """An exact Python literal, or a global holding the very object (NaN keeps its bits)."""
        if type(value) is int or (type(value) is float and math.isfinite(value)):
            return repr(value)
        name = f"_k{len(self.consts)}"
        self.consts[name] = value
        return name

    def table(self, values: tuple[int, ...]) -> str:
        """A tuple of offsets or positions: a literal when short, else a global (one per
        distinct table), since long literals make the source slow to compile."""
        if len(values) <= 8:
            return repr(values)
        name = self.tables.get(values)
        if name is None:
            name = self.tables[values] = f"_tab{len(self.tables)}"
            self.consts[name] = values
        return name

    def temp(self, w: Writer, expr: str) -> str:
        """``expr`` as an atom: itself, or a new local holding its value."""
        if _atomic(expr):
            return expr
        self.temps += 1
        name = f"_i{self.temps}"
        w.line(f"{name} = {expr}")
        return name

    def affine(self, a: Affine) -> str:
        parts = []
        for name, c in a.terms:
            if self.buffers[name].dtype != "i64":
                raise Untranslatable(f"index name '{name}' is not i64")
            x = self.scalar(name)
            parts.append(x if c == 1 else f"-{x}" if c == -1 else f"{c}*{x}")
        if a.const or not parts:
            parts.append(str(a.const))
        return " + ".join(parts).replace("+ -", "- ")

    # ---- addressing ----------------------------------------------------------------------

    def layout(self, w: Writer, ref: Ref) -> Layout:
        """Compute a reference's indices into locals and describe its addressing."""
        buf = self.buffers[ref.name]
        if len(ref.index) != len(buf.shape):
            raise Untranslatable(f"'{ref}' does not index every dimension of '{ref.name}'")
        checks, base, dims, shape = [], [], [], []
        const = 0
        for idx, n, stride in zip(ref.index, buf.shape, buf.strides):
            lo, length, step = (idx.lo, idx.length, idx.step) if isinstance(idx, Slice) else (idx, 1, 1)
            if length < 1:
                raise Untranslatable(f"'{ref}' selects no element")
            if isinstance(idx, Slice):
                shape.append(length)
            dims.append((length, step * stride))
            span = (length - 1) * step
            if lo.is_const:
                checks.append((str(lo.const), span, n, lo))
                const += lo.const * stride
                continue
            x = self.temp(w, self.affine(lo))
            checks.append((x, span, n, lo))
            base.append(x if stride == 1 else f"{x}*{stride}")
        if const or not base:
            base.append(str(const))
        return Layout(self.store(ref.name), tuple(checks), " + ".join(base), element_runs(dims), tuple(shape))

    def check(self, w: Writer, name: str, lay: Layout) -> None:
        """The bounds check of a layout: one test in the common case, the reference's fault
        (dimension, index, size in its order) from :func:`bounds` when it fails. A dimension
        whose index is always in range (a constant, or by :mod:`.ranges`) needs no test."""
        conds = []
        always = False
        for x, span, n, index in lay.checks:
            r = (index.const, index.const) if index.is_const else self.ranges.index(self.state, index)
            if r is not None and 0 <= r[0] and r[1] <= n - 1 - span:
                continue
            if index.is_const:
                always = True
            else:
                conds.append(f"0 <= {x} <= {n - 1 - span}")
        if not conds and not always:
            return
        call = f"_bounds({name!r}, ({''.join(f'({x}, {s}, {n}), ' for x, s, n, _ in lay.checks)}))"
        w.line(call if always else f"if not ({' and '.join(conds)}): {call}")

    def element(self, w: Writer, ref: Ref, atom: bool = False) -> str:
        """Check and name the one element a scalar, element or vector reference reads (a vector
        is checked whole and read at its first element, as the reference's address generator
        does); with ``atom``, its address is computed once, into a local."""
        if not ref.index:
            if self.buffers[ref.name].shape:
                raise Untranslatable(f"'{ref.name}' is an array used as a scalar")
            return self.scalar(ref.name)
        lay = self.layout(w, ref)
        self.check(w, ref.name, lay)
        return f"{lay.store}[{self.temp(w, lay.base) if atom else lay.base}]"

    def vector(self, w: Writer, ref: Ref) -> Layout:
        """A vector reference's layout, checked, with its base address in a local."""
        lay = self.layout(w, ref)
        self.check(w, ref.name, lay)
        return Layout(lay.store, lay.checks, self.temp(w, lay.base), lay.runs, lay.shape)

    # ---- one tuple -----------------------------------------------------------------------

    def blez_value(self, w: Writer, slot: Slot) -> str:
        dest = slot.entry.dest
        if dest is None:
            raise Untranslatable("BLEZ without a location to test")
        return self.element(w, dest)

    def data_op(self, w: Writer, slot: Slot) -> None:
        """PUTL or an ALU op (the atomic of Update.INC)."""
        self.temps = 0  # temporaries live within one tuple
        op, put, dest, dtype, src, conv = data_parts(slot, self.buffers)
        if dest.is_vector:
            self.vector_op(w, op, put, dest, dtype, src, conv)
        else:
            self.scalar_op(w, op, put, dest, dtype, src, conv)

    def convert(self, w: Writer, value: str, conv: str | None, imm: Imm | None,
                into: str) -> tuple[str, object]:
        """The source converted to the destination's type ``conv`` (None: no conversion), and
        its value when known. An immediate's conversion is done here, unless it faults: the
        fault must then happen at run time, in its place."""
        known = imm.value if imm is not None else None
        if conv is None:
            return value, known
        if imm is not None:
            try:
                folded = CONVERT[conv](imm.value)
                return self.lit(folded), folded
            except ArithmeticFault:
                pass
        w.line(f"{into} = {'float' if conv == 'f64' else '_to_i64'}({value})")
        return into, None

    def scalar_op(self, w: Writer, op: str, put: bool, dest: Ref, dtype: str, src, conv) -> None:
        imm = src if isinstance(src, Imm) else None
        value = self.lit(src.value) if imm else self.element(w, src)
        if put:
            value, _ = self.convert(w, value, conv, imm, "_v")
            w.line(f"{self.element(w, dest)} = {value}")
            return
        target = self.element(w, dest, atom=True)
        value, known = self.convert(w, value, conv, imm, "_v")
        exact = None
        if not dest.index and dest.name in self.ranges.tracked and self.state is not None:
            exact = raw(op, self.state.get(dest.name), self.ranges.operand(self.state, src))
        w.line(f"{target} = {binary(op, dtype, target, value, known, exact is not None and fits(exact))}")

    def vector_op(self, w: Writer, op: str, put: bool, dest: Ref, dtype: str, src, conv) -> None:
        # fetch: the whole source in the destination's shape (``_l``), or its one value (``_vs``)
        dshape = tuple(i.length for i in dest.index if isinstance(i, Slice))
        n = math.prod(dshape)
        imm = src if isinstance(src, Imm) else None
        many = False
        if imm:
            value = self.lit(imm.value)
        elif not src.is_vector:
            value = self.element(w, src)
        else:
            lay = self.vector(w, src)
            if _broadcast_plan(lay.shape, dshape)[0] == "one":
                value = f"{lay.store}[{lay.base}]"
            else:
                value, many = "_l", True
                w.line(f"_l = {self.read(lay)}")
                self.broadcast(w, lay.shape, dshape)
        if not many and not imm:  # read before any store, held apart from the scalar's local
            w.line(f"_vs = {value}")
            value = "_vs"
        known = imm.value if imm else None
        if many and conv is not None:
            w.line(f"_l = list(map({'float' if conv == 'f64' else '_to_i64'}, _l))")
        elif not many:
            value, known = self.convert(w, value, conv, imm, "_vs")
        # the atomic: the destination checked, then stored element by element
        lay = self.vector(w, dest)
        if put:
            self.write(w, lay, "_l" if many else f"[{value}] * {n}")
            return
        pairs = "_l" if many else None if known is not None else f"_repeat({value})"
        if op in ("DIV", "MOD") and dtype == "i64":  # may fault part way: element by element
            st = lay.step()
            offs = f"range(0, {lay.size * st}, {st})" if st else self.table(lay.offsets)
            head = f"for _d in {offs}:" if pairs is None else f"for _d, _y in zip({offs}, {pairs}):"
            with w.nest(head):
                w.line(f"_a = {lay.base} + _d")
                w.line(f"{lay.store}[_a] = {binary(op, dtype, f'{lay.store}[_a]', value if pairs is None else '_y', None)}")
            return
        old = self.read(lay)
        # comprehensions name only their own variables, literals and globals: a local of the
        # kernel named inside one would become a closure cell, slower everywhere it is used
        expr, wraps = raw_binary(op, dtype, "_x", value if pairs is None else "_y", known)
        loop = f"for _x in {old}" if pairs is None else f"for _x, _y in zip({old}, {pairs})"
        new = f"[{expr} {loop}]"
        self.write(w, lay, f"_wrap_all({new})" if wraps else new)

    def read(self, lay: Layout) -> str:
        """A new list of a layout's elements, in order."""
        region = lay.region()
        if region is not None:
            return region
        return f"[*map({lay.store}.__getitem__, map(({lay.base}).__add__, {self.table(lay.offsets)}))]"

    def write(self, w: Writer, lay: Layout, values: str) -> None:
        region = lay.region()
        if region is not None:
            w.line(f"{region} = {values}")
            return
        with w.nest(f"for _d, _y in zip({self.table(lay.offsets)}, {values}):"):
            w.line(f"{lay.store}[{lay.base} + _d] = _y")

    def broadcast(self, w: Writer, src: tuple[int, ...], dest: tuple[int, ...]) -> None:
        """Reorder ``_l`` (the source, row-major) into the destination's elements."""
        how, arg = _broadcast_plan(src, dest)
        if how == "tile":
            w.line(f"_l = _l * {arg}")
        elif how == "map":
            w.line(f"_l = [*map(_l.__getitem__, {self.table(arg)})]")


@functools.cache
def _broadcast_plan(src: tuple[int, ...], dest: tuple[int, ...]) -> tuple[str, object]:
    """How a source of shape ``src`` spreads over ``dest``: one value everywhere (``one``), as it
    is (``same``), repeated whole (``tile``, how many times) or element by element (``map``, the
    source position of each)."""
    if not broadcasts(src, dest):
        raise Untranslatable(f"shape {src} does not broadcast to {dest}")
    bmap = tuple(broadcast_map(src, dest))
    size = math.prod(src)
    if size == 1:
        return "one", None
    if bmap == tuple(range(size)) * (len(bmap) // size):
        return ("tile", len(bmap) // size) if len(bmap) > size else ("same", None)
    return "map", bmap


# ---- the operations ----------------------------------------------------------------------------

_F64 = {"ADD": "{r} + {s}", "SUB": "{r} - {s}", "MUL": "{r} * {s}", "MOD": "_fmod({r}, {s})",
        "MIN": "_fmin({r}, {s})", "MAX": "_fmax({r}, {s})"}
_I64 = {"ADD": "{r} + {s}", "SUB": "{r} - {s}", "MUL": "{r} * {s}", "DIV": "_idiv({r}, {s})",
        "MOD": "_imod({r}, {s})", "MIN": "({s} if {s} < {r} else {r})",
        "MAX": "({s} if {s} > {r} else {r})", "AND": "{r} & {s}", "OR": "{r} | {s}",
        "XOR": "{r} ^ {s}", "SHL": "_shl({r}, {s})", "SHR": "_shr({r}, {s})"}
_RELATIONS = {"LT": "<", "LE": "<=", "GT": ">", "GE": ">=", "EQ": "==", "NE": "!="}


def raw_binary(op: str, dtype: str, r: str, s: str, const) -> tuple[str, bool]:
    """``dest OP source`` on atoms ``r`` and ``s`` as an expression, and whether the result must
    still be wrapped into i64 (the sums, differences and products of i64)."""
    if op in _RELATIONS:
        one, zero = ("1.0", "0.0") if dtype == "f64" else ("1", "0")
        return f"({one} if {r} {_RELATIONS[op]} {s} else {zero})", False
    if dtype == "f64":
        if op == "DIV":  # nonzero divisors (NaN too) never raise: only zero needs _fdiv
            if const is not None and const != 0:
                return f"{r} / {s}", False
            return f"({r} / {s} if {s} else _fdiv({r}, {s}))", False
        return _F64[op].format(r=r, s=s), False
    return _I64[op].format(r=r, s=s), op in ("ADD", "SUB", "MUL")


def binary(op: str, dtype: str, r: str, s: str, const, in_range: bool = False) -> str:
    """``dest OP source`` with i64 results wrapped; a known source's sign spares one test, a
    result known to be ``in_range`` of i64 both."""
    expr, wraps = raw_binary(op, dtype, r, s, const)
    if not wraps or in_range:
        return expr
    if type(const) is int and (op == "MUL" and const in (0, 1) or op != "MUL" and const == 0):
        return expr
    test = f"{MIN} <= (_t := {expr}) <= {MAX}"
    if type(const) is int and op != "MUL":
        up = (const > 0) == (op == "ADD")  # only one end can be crossed
        test = f"(_t := {expr}) <= {MAX}" if up else f"(_t := {expr}) >= {MIN}"
    return f"(_t if {test} else _wrap64(_t))"
