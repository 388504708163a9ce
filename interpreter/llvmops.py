"""LLVM IR for one tuple, as the llvm engine's generated function runs it (:mod:`.llvmgen`).

A tuple's code first does everything that can fault: it reads its source (bounds checked),
converts it, checks its destination, and for an i64 division or remainder checks every
divisor. Any failed check branches to the tuple's fault exit before the tuple has written
anything; the engine then fires that tuple on the reference, which writes what it writes before
the fault (a vector division's first elements) and raises its own message. So the IR only needs
to know *whether* a tuple faults, never which message.

The operations follow :mod:`lang.isa` bit for bit: i64 arithmetic wraps (no ``nsw``/``nuw``, no
poison), ``INT64_MIN / -1`` wraps and ``INT64_MIN % -1`` is 0 (the divisor -1 is replaced so
``sdiv`` never overflows), shift counts are taken mod 64, f64 comparisons give 1.0/0.0, MIN/MAX
propagate NaN and order signed zeros as :func:`lang.isa._fmin` does. IEEE f64 with no fast-math
flags (so no FMA contraction); a NaN result gets the bits the reference's Python float
operations give (:data:`NAN_RULES`, found by running them once), since LLVM leaves NaN payloads
unspecified. Indices are checked on their exact value: an index that could leave i64 is
computed in 128 bits (additions and multiplications only, which need no runtime helper).
"""
from __future__ import annotations

import math
import operator
import struct
from contextlib import contextmanager

from ..lang.check import broadcasts
from ..lang.frozen import frozen
from ..lang.isa import CONVERT, I64_MAX, I64_MIN, ArithmeticFault
from ..lang.program import Affine, Imm, Ref, Slice
from .blocks import Untranslatable
from .engine import Slot
from .nic import Buffer
from .pyops import data_parts, element_runs
from .ranges import Ranges, State

QUIET = 0x0008000000000000
PLAIN_NAN = struct.unpack("<Q", struct.pack("<d", math.nan))[0]  # what lang.isa returns as NaN
_SMALL = 1 << 62  # offsets and sizes below this cannot make a wrapped i64 index look in range


def _bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def _float(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def _nan_rules() -> tuple[dict[str, bool], int]:
    """Which operand's NaN the reference's f64 ``+ - * /`` and fmod return when both are NaN
    (True: the first), and the NaN an invalid operation makes (inf - inf), as this Python does
    them: the reference is Python's float arithmetic, and C compilers may swap the operands of
    a commutative operation."""
    a, b = _float(0x7FF8000000000001), _float(0xFFF8000000000002)
    ops = {"ADD": operator.add, "SUB": operator.sub, "MUL": operator.mul,
           "DIV": operator.truediv, "MOD": math.fmod}
    return {k: _bits(f(a, b)) == _bits(a) | QUIET for k, f in ops.items()}, _bits(math.inf - math.inf)


NAN_RULES, DEFAULT_NAN = _nan_rules()
_F64_OPS = {"ADD": "fadd", "SUB": "fsub", "MUL": "fmul", "DIV": "fdiv"}
_ICMP = {"LT": "slt", "LE": "sle", "GT": "sgt", "GE": "sge", "EQ": "eq", "NE": "ne"}
_FCMP = {"LT": "olt", "LE": "ole", "GT": "ogt", "GE": "oge", "EQ": "oeq", "NE": "une"}
_I64_OPS = {"ADD": "add", "SUB": "sub", "MUL": "mul", "AND": "and", "OR": "or", "XOR": "xor"}


def f64_literal(x: float) -> str:
    """An f64 constant in LLVM's exact hexadecimal form (NaN payloads kept)."""
    return f"0x{_bits(x):016X}"


def ty(dtype: str) -> str:
    return "double" if dtype == "f64" else "i64"


class IR:
    """Lines of one LLVM function body, fresh names, and the fault exits of tuples."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.allocas: list[str] = []
        self.n = 0
        self.faults: dict[int, str] = {}  # PC value -> label of its fault exit
        self.functions: list[str] = []  # the element loops' functions (Lowering.element_loop)
        self.outlined: dict[tuple, str] = {}  # what a loop's body is made from -> its function

    def name(self, base: str = "t") -> str:
        self.n += 1
        return f"{base}{self.n}"

    def op(self, text: str) -> str:
        v = f"%{self.name()}"
        self.lines.append(f"  {v} = {text}")
        return v

    def emit(self, text: str) -> None:
        self.lines.append(f"  {text}")

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")

    def alloca(self, t: str) -> str:
        v = f"%{self.name('a')}"
        self.allocas.append(f"  {v} = alloca {t}")
        return v

    def fault(self, pc: int) -> str:
        if pc not in self.faults:
            self.faults[pc] = f"fault{pc}"
        return self.faults[pc]

    def unless(self, ok: str, pc: int) -> None:
        """Go on when ``ok`` holds, else to tuple ``pc``'s fault exit."""
        cont = self.name("ok")
        self.emit(f"br i1 {ok}, label %{cont}, label %{self.fault(pc)}")
        self.label(cont)

    @contextmanager
    def loop(self, n: int):
        """``for e in range(n)``, yielding ``e`` (an i64 value)."""
        if n == 1:
            yield "0"
            return
        iv = self.alloca("i64")
        head, body, done = self.name("lh"), self.name("lb"), self.name("lx")
        self.emit(f"store i64 0, ptr {iv}")
        self.emit(f"br label %{head}")
        self.label(head)
        e = self.op(f"load i64, ptr {iv}")
        more = self.op(f"icmp ult i64 {e}, {n}")
        self.emit(f"br i1 {more}, label %{body}, label %{done}")
        self.label(body)
        yield e
        self.emit(f"store i64 {self.op(f'add i64 {e}, 1')}, ptr {iv}")
        self.emit(f"br label %{head}")
        self.label(done)


@frozen
class Layout:
    """A checked reference: its storage pointer, element type, base address and the (count,
    step) runs of its elements' offsets, row-major (the reference's order)."""

    ptr: str
    ty: str
    base: str
    runs: tuple[tuple[int, int], ...]
    shape: tuple[int, ...]
    steps: tuple[int, ...]  # the step of each dimension of ``shape``

    def spread(self, dshape: tuple[int, ...]) -> Layout:
        """This layout read as ``dshape``'s elements in row-major order, by NumPy broadcasting:
        a dimension it lacks or has once steps by 0."""
        pad = len(dshape) - len(self.shape)
        shape, steps = (1,) * pad + self.shape, (0,) * pad + self.steps
        dims = [(d, st if n == d else 0) for d, n, st in zip(dshape, shape, steps)]
        return Layout(self.ptr, self.ty, self.base, element_runs(dims), dshape,
                      tuple(st for _, st in dims))

    @property
    def size(self) -> int:
        return math.prod(n for n, _ in self.runs)


def _i64(v: int, what: str) -> str:
    if not I64_MIN <= v <= I64_MAX:
        raise Untranslatable(f"{what} {v} is outside i64")
    return str(v)


class Lowering:
    """Writes the IR of tuples; names storage pointers and scalar slots."""

    def __init__(self, ir: IR, buffers: dict[str, Buffer], storage: dict[str, int],
                 cached: set[str], ranges: Ranges | None):
        self.ir = ir
        self.buffers = buffers
        self.storage = storage
        self.cached = cached
        self.ranges = ranges
        self.state: State | None = None
        self.pc = 0
        self.scratch = 0  # elements of the largest source a vector op reads whole first

    # ---- locations ---------------------------------------------------------------------------

    def mem(self, name: str) -> str:
        return f"%m{self.storage[name]}"

    def scalar_ptr(self, name: str) -> str:
        """Where a scalar lives: its slot (promoted to a register) when cached, else its storage."""
        return f"%s{self.storage[name]}" if name in self.cached else self.mem(name)

    def ty(self, name: str) -> str:
        return ty(self.buffers[name].dtype)

    def affine(self, a: Affine) -> str:
        """An index expression in wrapping i64 (exact whenever the index is in bounds)."""
        ir = self.ir
        acc = _i64(a.const, "an index constant")
        for name, c in a.terms:
            if self.buffers[name].dtype != "i64":
                raise Untranslatable(f"index name '{name}' is not i64")
            x = ir.op(f"load i64, ptr {self.scalar_ptr(name)}")
            term = x if c == 1 else ir.op(f"mul i64 {x}, {_i64(c, 'a coefficient')}")
            acc = term if acc == "0" else ir.op(f"add i64 {acc}, {term}")
        return acc

    def in_bounds(self, a: Affine, lo: str, limit: int) -> str | None:
        """An i1 that holds when the exact index ``a`` (``lo`` in wrapping i64) is in
        ``0 .. limit``; None when it always is."""
        if a.is_const:
            if 0 <= a.const <= limit:
                return None
            return "false"
        r = self.ranges.index(self.state, a) if self.ranges is not None else None
        if r is not None and 0 <= r[0] and r[1] <= limit:
            return None
        ir = self.ir
        if limit < 0:
            return "false"
        if len(a.terms) == 1 and a.terms[0][1] == 1 and abs(a.const) < _SMALL and limit < _SMALL:
            # x + c wraps only far outside 0 .. limit: one unsigned test of the i64 value
            return ir.op(f"icmp ule i64 {lo}, {limit}")
        acc = str(a.const)
        for name, c in a.terms:  # exact, in 128 bits
            x = ir.op(f"load i64, ptr {self.scalar_ptr(name)}")
            wide = ir.op(f"sext i64 {x} to i128")
            term = ir.op(f"mul i128 {wide}, {c}")
            acc = ir.op(f"add i128 {acc}, {term}")
        return ir.op(f"icmp ule i128 {acc}, {limit}")

    def layout(self, ref: Ref) -> Layout:
        """Check a reference's bounds (every dimension; a slice's first and last index) and
        compute its base address."""
        buf = self.buffers[ref.name]
        if len(ref.index) != len(buf.shape):
            raise Untranslatable(f"'{ref}' does not index every dimension of '{ref.name}'")
        ir = self.ir
        oks, base, dims, shape, steps = [], [], [], [], []
        const = 0
        for idx, n, stride in zip(ref.index, buf.shape, buf.strides):
            lo, length, step = (idx.lo, idx.length, idx.step) if isinstance(idx, Slice) else (idx, 1, 1)
            if length < 1 or step < 1:
                raise Untranslatable(f"'{ref}' selects no element")
            if isinstance(idx, Slice):
                shape.append(length)
                steps.append(step * stride)
            dims.append((length, step * stride))
            value = str(lo.const) if lo.is_const else self.affine(lo)
            ok = self.in_bounds(lo, value, n - 1 - (length - 1) * step)
            if ok is not None:
                oks.append(ok)
            if lo.is_const:
                const += lo.const * stride
            else:
                base.append(value if stride == 1 else ir.op(f"mul i64 {value}, {stride}"))
        if "false" in oks:  # always out of bounds: the code after the fault is never reached
            ir.emit(f"br label %{ir.fault(self.pc)}")
            ir.label(ir.name("dead"))
            return Layout(self.mem(ref.name), self.ty(ref.name), "0", element_runs(dims),
                          tuple(shape), tuple(steps))
        for ok in oks:
            ir.unless(ok, self.pc)
        addr = str(const)
        for b in base:
            addr = b if addr == "0" else ir.op(f"add i64 {addr}, {b}")
        return Layout(self.mem(ref.name), self.ty(ref.name), addr, element_runs(dims), tuple(shape),
                      tuple(steps))

    def element_ptr(self, ref: Ref) -> str:
        """The checked address of the one element a scalar, element or vector reference reads
        first (a vector is checked whole, as the reference's address generator does)."""
        if not ref.index:
            if self.buffers[ref.name].shape:
                raise Untranslatable(f"'{ref.name}' is an array used as a scalar")
            return self.scalar_ptr(ref.name)
        lay = self.layout(ref)
        return self.ir.op(f"getelementptr inbounds {lay.ty}, ptr {lay.ptr}, i64 {lay.base}")

    def offset(self, lay: Layout, e: str) -> str:
        """The address of element ``e`` (row-major) of a layout."""
        ir = self.ir
        off, inner = "0", lay.size
        for n, step in lay.runs:
            inner //= n
            if step == 0:  # a dimension a source is broadcast along
                continue
            j = e if inner == 1 else ir.op(f"udiv i64 {e}, {inner}")
            if n * inner != lay.size:
                j = ir.op(f"urem i64 {j}, {n}")
            part = j if step == 1 else ir.op(f"mul i64 {j}, {step}")
            off = part if off == "0" else ir.op(f"add i64 {off}, {part}")
        addr = off if lay.base == "0" else lay.base if off == "0" else ir.op(f"add i64 {lay.base}, {off}")
        return ir.op(f"getelementptr inbounds {lay.ty}, ptr {lay.ptr}, i64 {addr}")

    # ---- values ------------------------------------------------------------------------------

    def literal(self, value: object, t: str) -> str:
        if t == "double":
            return f64_literal(float(value))
        return _i64(value, "an immediate")

    def convert(self, v: str, conv: str | None) -> str:
        """``v`` converted to ``conv`` (None: no conversion); f64 to i64 faults outside i64."""
        ir = self.ir
        if conv is None:
            return v
        if conv == "f64":
            return ir.op(f"sitofp i64 {v} to double")
        ge = ir.op(f"fcmp oge double {v}, {f64_literal(-2.0 ** 63)}")
        lt = ir.op(f"fcmp olt double {v}, {f64_literal(2.0 ** 63)}")
        ir.unless(ir.op(f"and i1 {ge}, {lt}"), self.pc)
        return ir.op(f"fptosi double {v} to i64")

    def immediate(self, imm: Imm, conv: str | None) -> tuple[str, object]:
        """An immediate converted at translation time (a conversion that faults happens at run
        time, in its place); returns its IR constant and value."""
        if conv is None:
            return self.literal(imm.value, ty(imm.dtype)), imm.value
        try:
            v = CONVERT[conv](imm.value)
        except ArithmeticFault:
            return self.convert(self.literal(imm.value, ty(imm.dtype)), conv), None
        return self.literal(v, ty(conv)), v

    def nonzero(self, v: str) -> None:
        self.ir.unless(self.ir.op(f"icmp ne i64 {v}, 0"), self.pc)

    def binary(self, op: str, dtype: str, r: str, s: str) -> str:
        """``r OP s`` exactly as lang.isa computes it (an i64 divisor already checked nonzero)."""
        ir = self.ir
        if dtype == "i64":
            if op in _I64_OPS:
                return ir.op(f"{_I64_OPS[op]} i64 {r}, {s}")
            if op in _ICMP:
                return ir.op(f"zext i1 {ir.op(f'icmp {_ICMP[op]} i64 {r}, {s}')} to i64")
            if op in ("MIN", "MAX"):
                c = ir.op(f"icmp {'slt' if op == 'MIN' else 'sgt'} i64 {s}, {r}")
                return ir.op(f"select i1 {c}, i64 {s}, i64 {r}")
            if op in ("SHL", "SHR"):
                k = ir.op(f"and i64 {s}, 63")
                return ir.op(f"{'shl' if op == 'SHL' else 'ashr'} i64 {r}, {k}")
            if op in ("DIV", "MOD"):  # -1 would overflow sdiv: r / -1 is -r, r % -1 is 0
                m1 = ir.op(f"icmp eq i64 {s}, -1")
                d = ir.op(f"select i1 {m1}, i64 1, i64 {s}")
                if op == "MOD":
                    return ir.op(f"srem i64 {r}, {d}")
                q = ir.op(f"sdiv i64 {r}, {d}")
                return ir.op(f"select i1 {m1}, i64 {ir.op(f'sub i64 0, {r}')}, i64 {q}")
            raise Untranslatable(f"{op} on i64")
        if op in _FCMP:
            c = ir.op(f"fcmp {_FCMP[op]} double {r}, {s}")
            return ir.op(f"select i1 {c}, double 1.0, double 0.0")
        if op in ("MIN", "MAX"):
            return self._fminmax(op, r, s)
        if op == "MOD":
            return self._fmod(r, s)
        if op not in _F64_OPS:
            raise Untranslatable(f"{op} on f64")
        x = self._nan_fixed(op, r, s, ir.op(f"{_F64_OPS[op]} double {r}, {s}"))
        if op != "DIV":
            return x
        # Python raises ZeroDivisionError for any zero divisor; lang.isa then gives NaN for 0/0
        # and NaN/0, else an infinity with the sign of a * b
        zero = ir.op(f"fcmp oeq double {s}, 0.0")
        ri, si = ir.op(f"bitcast double {r} to i64"), ir.op(f"bitcast double {s} to i64")
        sign = ir.op(f"and i64 {ir.op(f'xor i64 {ri}, {si}')}, {1 << 63}")
        inf = ir.op(f"or i64 {sign}, {0x7FF0000000000000}")
        bad = ir.op(f"fcmp ueq double {r}, 0.0")
        special = ir.op(f"select i1 {bad}, i64 {PLAIN_NAN}, i64 {inf}")
        return ir.op(f"select i1 {zero}, double {ir.op(f'bitcast i64 {special} to double')}, double {x}")

    def _quiet_pick(self, op: str, r: str, s: str) -> str:
        """The NaN the reference returns when an operand is NaN (quieted), else its default."""
        ir = self.ir
        first, second = (r, s) if NAN_RULES[op] else (s, r)
        pick = str(DEFAULT_NAN if op != "MOD" else PLAIN_NAN)
        for v in (second, first):  # the first one tested last, so it wins
            isnan = ir.op(f"fcmp uno double {v}, 0.0")
            q = ir.op(f"or i64 {ir.op(f'bitcast double {v} to i64')}, {QUIET}")
            pick = ir.op(f"select i1 {isnan}, i64 {q}, i64 {pick}")
        return pick

    def _nan_fixed(self, op: str, r: str, s: str, x: str) -> str:
        """``x``, or the reference's NaN when ``x`` is NaN."""
        isnan = self.ir.op(f"fcmp uno double {x}, 0.0")
        return self._rarely(isnan, x, lambda: self.ir.op(
            f"bitcast i64 {self._quiet_pick(op, r, s)} to double"))

    def _rarely(self, cond: str, x: str, other) -> str:
        """The double ``x``, or when ``cond`` holds (rarely: a NaN) the one ``other()`` emits.
        Chosen by a branch, not a select: a select puts the test between ``x`` and its next use
        (on matrix multiplication's sum, in the chain from one iteration to the next), where a
        predicted branch leaves the chain at the arithmetic (the first tier runs that kernel
        1.6x faster, the -O2 tier 4x)."""
        ir = self.ir
        slot = ir.alloca("double")
        ir.emit(f"store double {x}, ptr {slot}")
        rare, done = ir.name("rare"), ir.name("usual")
        ir.emit(f"br i1 {cond}, label %{rare}, label %{done}")
        ir.label(rare)
        ir.emit(f"store double {other()}, ptr {slot}")
        ir.emit(f"br label %{done}")
        ir.label(done)
        return ir.op(f"load double, ptr {slot}")

    def _fmod(self, r: str, s: str) -> str:
        """math.fmod as lang.isa uses it: a NaN operand's NaN; NaN for an infinite dividend
        or a zero divisor; ``r`` for an infinite divisor; else C's fmod (exact)."""
        ir = self.ir
        x = ir.op(f"frem double {r}, {s}")
        r_inf = ir.op(f"fcmp oeq double {ir.op(f'call double @llvm.fabs.f64(double {r})')}, "
                      f"{f64_literal(math.inf)}")
        s_inf = ir.op(f"fcmp oeq double {ir.op(f'call double @llvm.fabs.f64(double {s})')}, "
                      f"{f64_literal(math.inf)}")
        x = ir.op(f"select i1 {s_inf}, double {r}, double {x}")
        invalid = ir.op(f"or i1 {r_inf}, {ir.op(f'fcmp oeq double {s}, 0.0')}")
        x = ir.op(f"select i1 {invalid}, double {f64_literal(math.nan)}, double {x}")
        return self._nan_fixed("MOD", r, s, x)  # x is NaN whenever an operand is

    def _fminmax(self, op: str, r: str, s: str) -> str:
        """lang.isa's _fmin/_fmax: NaN if either is NaN; equal values ordered by sign. Equal
        values have the same bits but for zeros of two signs, so the ordered one is their bits'
        OR (min: -0 if either is) or AND (max), with no test of a sign bit on the way (such a
        test moved the value out of the FP registers and back: a max reduction took 8 times as
        long as a sum, now 2.3 times)."""
        ir = self.ir
        strict = ir.op(f"fcmp {'olt' if op == 'MIN' else 'ogt'} double {r}, {s}")
        eq = ir.op(f"fcmp oeq double {r}, {s}")
        bits = ir.op(f"{'or' if op == 'MIN' else 'and'} i64 {ir.op(f'bitcast double {r} to i64')}, "
                     f"{ir.op(f'bitcast double {s} to i64')}")
        x = ir.op(f"select i1 {strict}, double {r}, double {s}")
        x = ir.op(f"select i1 {eq}, double {ir.op(f'bitcast i64 {bits} to double')}, double {x}")
        anynan = ir.op(f"fcmp uno double {r}, {s}")
        return self._rarely(anynan, x, lambda: f64_literal(math.nan))

    def _loop_body(self, op: str, put: bool, dtype: str, n: int, dlay: Layout,
                   get: tuple[Layout, str | None] | None) -> str:
        """The body of :meth:`element_loop`'s function, in names of its own."""
        d = Layout("%d", dlay.ty, "%db", dlay.runs, dlay.shape, dlay.steps)
        if get is not None:
            src, conv = get
            get = Layout("%s", src.ty, "%sb", src.runs, src.shape, src.steps), conv
        sub = IR()
        ir, self.ir = self.ir, sub
        try:
            with sub.loop(n) as e:
                self._store(op, put, dtype, d, "%v", get, e)
        finally:
            self.ir = ir
        if sub.faults:  # (everything that can fault is checked before the loop)
            raise Untranslatable(f"PC {self.pc}: an element loop that can fault")
        return "\n".join([*sub.allocas, *sub.lines])

    def _store(self, op: str, put: bool, dtype: str, dlay: Layout, value: str | None,
               get: tuple[Layout, str | None] | None, e: str) -> None:
        """Element ``e`` of an op: its value (``value``, or read through ``get``), combined with
        the destination's unless the op is a put, stored."""
        ir, t = self.ir, ty(dtype)
        p = self.offset(dlay, e)
        v = value if get is None else self.convert(
            ir.op(f"load {get[0].ty}, ptr {self.offset(get[0], e)}"), get[1])
        if not put:
            v = self.binary(op, dtype, ir.op(f"load {t}, ptr {p}"), v)
        ir.emit(f"store {t} {v}, ptr {p}")

    # ---- one tuple ---------------------------------------------------------------------------

    def blez(self, slot: Slot) -> str:
        """The i1 that takes a BLEZ's branch (its value <= 0)."""
        dest = slot.entry.dest
        if dest is None:
            raise Untranslatable("BLEZ without a location to test")
        t = self.ty(dest.name)
        v = self.ir.op(f"load {t}, ptr {self.element_ptr(dest)}")
        return self.ir.op(f"fcmp ole double {v}, 0.0" if t == "double" else f"icmp sle i64 {v}, 0")

    def data_op(self, slot: Slot) -> None:
        """PUTL or an ALU op (the atomic of Update.INC)."""
        op, put, dest, dtype, src, conv = data_parts(slot, self.buffers)
        if dest.is_vector:
            self.vector_op(op, put, dest, dtype, src, conv)
        else:
            self.scalar_op(op, put, dest, dtype, src, conv)

    def read(self, src: Imm | Ref, conv: str | None) -> tuple[str, object]:
        """A source's one value, converted; and its value when it is a known immediate."""
        if isinstance(src, Imm):
            return self.immediate(src, conv)
        t = self.ty(src.name)
        return self.convert(self.ir.op(f"load {t}, ptr {self.element_ptr(src)}"), conv), None

    def scalar_op(self, op: str, put: bool, dest: Ref, dtype: str, src, conv) -> None:
        ir, t = self.ir, ty(dtype)
        value, known = self.read(src, conv)
        target = self.element_ptr(dest)
        if put:
            ir.emit(f"store {t} {value}, ptr {target}")
            return
        if op in ("DIV", "MOD") and dtype == "i64":
            if known == 0:
                ir.emit(f"br label %{ir.fault(self.pc)}")
                ir.label(ir.name("dead"))
            elif known is None:
                self.nonzero(value)
        old = ir.op(f"load {t}, ptr {target}")
        ir.emit(f"store {t} {self.binary(op, dtype, old, value)}, ptr {target}")

    def vector_op(self, op: str, put: bool, dest: Ref, dtype: str, src, conv) -> None:
        """The source checked and converted, the destination checked, every divisor checked,
        then the elements stored in order: nothing is stored before the op would fault, so the
        reference can fire it again. A source in the destination's storage (which it may
        overlap), or one whose conversion may fault, is read whole first, into the scratch
        memory the caller passes (``%scratch``, :attr:`scratch` elements; on the stack, a long
        vector overflowed it); any other is read as the elements are stored."""
        ir, t = self.ir, ty(dtype)
        dshape = tuple(i.length for i in dest.index if isinstance(i, Slice))
        n = math.prod(dshape)
        if isinstance(src, Imm) or not src.is_vector:
            value, known = self.read(src, conv)
            get = None
        else:
            lay = self.layout(src)
            if not broadcasts(lay.shape, dshape):
                raise Untranslatable(f"shape {lay.shape} does not broadcast to {dshape}")
            known = None
            if lay.size == 1:
                value, get = self.convert(ir.op(f"load {lay.ty}, ptr {self.offset(lay, '0')}"), conv), None
            elif self.storage[src.name] == self.storage[dest.name] or conv == "i64":
                self.scratch = max(self.scratch, lay.size)
                steps = tuple(math.prod(lay.shape[k + 1:]) for k in range(len(lay.shape)))
                whole = Layout("%scratch", t, "0", ((lay.size, 1),), lay.shape, steps)
                with ir.loop(lay.size) as e:
                    v = self.convert(ir.op(f"load {lay.ty}, ptr {self.offset(lay, e)}"), conv)
                    ir.emit(f"store {t} {v}, ptr {self.offset(whole, e)}")
                value, get = None, (whole, whole.spread(dshape), None)
            else:  # nothing the op stores changes it, and reading it cannot fault
                value, get = None, (lay, lay.spread(dshape), conv)
        dlay = self.layout(dest)
        divides = op in ("DIV", "MOD") and dtype == "i64"

        def load(lay: Layout, e: str, conv: str | None) -> str:
            return self.convert(ir.op(f"load {lay.ty}, ptr {self.offset(lay, e)}"), conv)

        if divides:
            if known == 0:
                ir.emit(f"br label %{ir.fault(self.pc)}")
                ir.label(ir.name("dead"))
            elif known is None and get is None:
                self.nonzero(value)
            elif get is not None:
                with ir.loop(get[0].size) as e:
                    self.nonzero(load(get[0], e, get[2]))
        self.element_loop(op, put, dtype, n, dlay, value, None if get is None else get[1:])

    def element_loop(self, op: str, put: bool, dtype: str, n: int, dlay: Layout,
                     value: str | None, get: tuple[Layout, str | None] | None) -> None:
        """Store the op's ``n`` elements in order (each from ``value``, or read through ``get``:
        the source's layout spread to the destination's shape and its conversion, which cannot
        fault here). A loop is a function of its own, called with the storage pointers and base
        offsets, and each distinct one is made once: the -O0 code of a long program (what -O2
        makes of matrix multiplication at 1 MiB, 768 vector ops) keeps its loops optimised
        (:func:`.llvmengine.first_tier`), and the ops of one shape share their code, which the
        translation makes once (it took half the translation of those 768 ops)."""
        ir, t = self.ir, ty(dtype)
        if n == 1:
            self._store(op, put, dtype, dlay, value, get, "0")
            return
        params, args = ["ptr noalias %d", "i64 %db"], [f"ptr {dlay.ptr}", f"i64 {dlay.base}"]
        if get is None:
            params.append(f"{t} %v")
            args.append(f"{t} {value}")
        else:
            params += ["ptr noalias %s", "i64 %sb"]
            args += [f"ptr {get[0].ptr}", f"i64 {get[0].base}"]
        # what the body is made from (its pointers and bases are the parameters)
        key = (op, put, dtype, n, dlay.ty, dlay.runs,
               None if get is None else (get[0].ty, get[0].runs, get[1]))
        name = ir.outlined.get(key)
        if name is None:
            name = ir.outlined[key] = f"@loop{len(ir.outlined)}"
            ir.functions.append(f"define internal void {name}({', '.join(params)}) #1 {{\n"
                                f"entry:\n{self._loop_body(op, put, dtype, n, dlay, get)}\n"
                                f"  ret void\n}}")
        ir.emit(f"call void {name}({', '.join(args)})")
