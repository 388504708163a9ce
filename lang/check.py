"""Static checks of an instruction-level program.

Shared by the assembler (on parsed text) and the tuple loader (on JSON nobody has checked), so a
program is validated the same way whatever form it arrives in.
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence

from .diagnostics import Diagnostic, Loc
from .isa import DTYPES, I64_MAX, I64_MIN, OPCODES, Form
from .program import ROLES, Affine, Decl, Imm, Instr, Operand, Ref, Slice, operand_shape

MakeDiag = Callable[[Loc | None, str, str | None], Diagnostic]


def operand_dtype(op: Operand, decls: dict[str, Decl]) -> str:
    """Element type of an operand (the declared type; immediates carry their own)."""
    return op.dtype if isinstance(op, Imm) else decls[op.name].dtype


def broadcasts(src: tuple[int, ...], dest: tuple[int, ...]) -> bool:
    """NumPy broadcasting of ``src`` onto ``dest`` (the result shape is the destination's)."""
    if len(src) > len(dest):
        return False
    return all(s in (1, d) for s, d in zip(reversed(src), reversed(dest)))


def broadcast_map(src: tuple[int, ...], dest: tuple[int, ...]) -> list[int]:
    """For each destination element (row-major), the position of the source element it reads."""
    pad = (1,) * (len(dest) - len(src)) + src
    strides, step = [], 1
    for n in reversed(pad):
        strides.append(step if n != 1 else 0)
        step *= n
    strides.reverse()
    if not dest:
        return [0]
    # the rows' first positions, then each row whole at once (a range or a repeat: a long
    # vector's map was one comprehension step per element, 7 ms for 262,144)
    bases = [0]
    for n, st in zip(dest[:-1], strides[:-1]):
        bases = [b + j * st for b in bases for j in range(n)]
    n, st = dest[-1], strides[-1]
    out: list[int] = []
    for b in bases:
        out += range(b, b + n * st, st) if st else [b] * n
    return out


def check_program(decls: dict[str, Decl], instrs: Iterable[Instr], make: MakeDiag,
                  count: int | None = None) -> list[Diagnostic]:
    """Every static error in ``instrs``, as diagnostics (empty when the program is well formed).

    ``count`` is the program's number of instructions when ``instrs`` are only its distinct ones
    (what a branch may target); by default, ``len(instrs)``."""
    instrs = tuple(instrs)
    count = len(instrs) if count is None else count
    out: list[Diagnostic] = []
    # The shapes of the references checked without error; unrolled code repeats them (a Ref's
    # equality and hash leave out its location, which only an error would need). A scalar's key
    # is its name: a string hashes in C, a Ref through its own __hash__.
    valid: dict[Ref | str, tuple[int, ...]] = {}
    for ins in instrs:
        out.extend(_check_instr(ins, decls, count, make, valid))
    return out


def _check_instr(ins: Instr, decls: dict[str, Decl], count: int, make: MakeDiag,
                 valid: dict[Ref | str, tuple[int, ...]]) -> list[Diagnostic]:
    spec = OPCODES[ins.op]
    out: list[Diagnostic] = []
    loc = ins.loc
    if spec.form in (Form.BRANCH, Form.JUMP):
        if ins.target is None or not 1 <= ins.target <= count:
            out.append(make(loc, f"{ins.op} target {ins.target} is not an instruction of this program",
                            f"targets run from 1 to {count}"))
    shapes: list[tuple[int, ...] | None] = []  # of the destination and the source
    for op in (ins.dest, ins.src):
        if type(op) is Ref:  # (an operand is a Ref, an Imm or None: never of a subclass)
            key = op if op.index else op.name
            shape = valid.get(key)
            if shape is None:
                errors = _check_ref(op, decls, loc, make)
                out.extend(errors)
                if not errors:
                    shape = valid[key] = operand_shape(op, decls)
        else:
            shape = ()
        shapes.append(shape)
    if out or spec.form in (Form.JUMP, Form.NONE):
        return out
    dest = ins.dest
    if dest is None:
        return [make(loc, f"{ins.op} needs a destination", None)]
    dshape, sshape = shapes
    if spec.form is Form.BRANCH:
        if math.prod(dshape) != 1:
            out.append(make(dest.loc or loc, "BLEZ tests one value, not a vector",
                            "reduce the vector into a scalar first, or test a one-element slice"))
        return out
    src = ins.src
    if src is None:
        return [make(loc, f"{ins.op} needs a source operand", None)]
    ddt, sdt = decls[dest.name].dtype, operand_dtype(src, decls)
    if spec.int_only and "f64" in (ddt, sdt):
        which = dest if ddt == "f64" else src
        out.append(make(getattr(which, "loc", None) or loc, f"{ins.op} is defined on i64 only, "
                        f"but '{which}' is f64", "convert with PUTL into an i64 location first"))
    if sshape and not dshape:
        if math.prod(sshape) != 1:  # a one-element vector stands wherever a scalar may
            out.append(make(getattr(src, "loc", None) or loc,
                            f"a vector source of {math.prod(sshape)} elements needs a vector destination",
                            "write the destination with a slice, e.g. T[0:16] (only a one-element "
                            "vector may go into a scalar)"))
    elif not broadcasts(sshape, dshape):
        out.append(make(getattr(src, "loc", None) or loc,
                        f"shape {list(sshape)} of '{src}' does not broadcast to shape {list(dshape)} "
                        f"of '{dest}'", "vector operands must have equal shapes (size-1 dimensions "
                        "and scalars broadcast)"))
    return out


def _check_ref(ref: Ref, decls: dict[str, Decl], loc: Loc | None, make: MakeDiag) -> list[Diagnostic]:
    where = ref.loc or loc
    decl = decls.get(ref.name)
    if decl is None:
        return [make(where, f"'{ref.name}' is not declared", "declare arrays with .input, .output, "
                     ".inout or .var")]
    rank = len(decl.shape)
    if rank == 0 and ref.index:
        return [make(where, f"'{ref.name}' is a scalar and cannot be indexed", None)]
    if rank and len(ref.index) != rank:
        dims = "".join(f"[{d}]" for d in decl.shape)
        given = len(ref.index)
        return [make(where, f"'{ref.name}' has {rank} dimension{'s' * (rank > 1)} ({decl.dtype}{dims}) "
                     f"but {given} {'index was' if given == 1 else 'indices were'} given",
                     f"write {ref.name}" + "[i]" * rank + (" or slices like [0:n] for a vector"
                                                           if not ref.index else ""))]
    out: list[Diagnostic] = []
    for dim, idx in zip(decl.shape, ref.index):
        parts = (idx.lo, idx.hi) if isinstance(idx, Slice) else (idx,)
        for part in parts:
            out.extend(_check_index_names(part, decls, where, make))
        if isinstance(idx, Slice):
            out.extend(_check_slice(ref, idx, dim, where, make))
        elif idx.is_const and not 0 <= idx.const < dim:
            out.append(make(where, f"index {idx.const} is out of bounds for '{ref.name}' "
                            f"(dimension of size {dim})", f"valid indices are 0 to {dim - 1}"))
    return out


def _check_index_names(expr: Affine, decls: dict[str, Decl], where: Loc | None,
                       make: MakeDiag) -> list[Diagnostic]:
    out = []
    for name in expr.names:
        d = decls.get(name)
        if d is None:
            out.append(make(where, f"index name '{name}' is not a known scalar", None))
        elif d.shape:
            out.append(make(where, f"'{name}' is an array and cannot be used inside an index",
                            "load the element into a scalar with PUTL first"))
        elif d.dtype != "i64":
            out.append(make(where, f"index '{name}' is f64; indices must be i64",
                            "convert it with PUTL into an i64 scalar first"))
    return out


def _check_slice(ref: Ref, s: Slice, dim: int, where: Loc | None, make: MakeDiag) -> list[Diagnostic]:
    if s.step <= 0:
        return [make(where, f"slice step {s.step} must be positive", None)]
    if not (s.hi - s.lo).is_const:
        return [make(where, f"slice '{s}' of '{ref.name}' has a length that depends on run-time "
                     "values", "vector shapes must be static: make hi - lo a constant, e.g. i:i+4")]
    if s.length == 0:
        return [make(where, f"slice '{s}' of '{ref.name}' is empty", None)]
    if s.lo.is_const and not (0 <= s.lo.const and s.lo.const + (s.length - 1) * s.step < dim):
        return [make(where, f"slice '{s}' is out of bounds for '{ref.name}' (dimension of size {dim})",
                     None)]
    return []


NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RESERVED = ("inf", "nan")  # float literals in INCA-A, so never names


def check_decls(decls: Sequence[Decl]) -> list[str]:
    """The declaration rules of INCA-A, as messages, for declarations that did not come from
    INCA-A text (a loaded tuple program): what the assembler refuses while reading directives."""
    out: list[str] = []
    seen: dict[str, Decl] = {}
    for d in decls:
        what = f"buffer '{d.name}'"
        if not NAME.fullmatch(d.name) or d.name in RESERVED:
            out.append(f"{what}: not a name INCA-A can write")
        elif d.name in seen:
            out.append(f"{what} is declared twice")
        if d.role not in ROLES or d.dtype not in DTYPES:
            out.append(f"{what} has an unknown role or dtype")
            continue
        if any(n <= 0 for n in d.shape):
            out.append(f"{what} needs positive dimensions")
        if d.role != "var" and d.init != 0:
            out.append(f"{what}: only a var takes an initial value (the host fills .{d.role})")
        table = d.init if isinstance(d.init, tuple) else (d.init,)
        if isinstance(d.init, tuple) and (len(table) != d.size or len(table) < 2):
            out.append(f"{what}: a table of {len(table)} value{'s' * (len(table) != 1)} for "
                       f"{d.size} element{'s' * (d.size != 1)}")
        for v in table:
            if isinstance(v, float) != (d.dtype == "f64"):
                out.append(f"{what}: its initial value is not {d.dtype}")
                break
            if d.dtype == "i64" and not I64_MIN <= v <= I64_MAX:
                out.append(f"{what}: initial value {v} does not fit in i64")
                break
        if d.alias is not None:
            target = seen.get(d.alias)
            if (target is None or target.alias is not None or target.dtype != d.dtype
                    or target.size != d.size):
                out.append(f"{what} must be a view of an earlier buffer that is not itself a view, "
                           "with its element type and element count")
            if d.init != 0 or d.default is not None:
                out.append(f"{what}: a view takes no value of its own (it shares its storage's)")
        if d.default is not None:
            if d.role not in ("input", "inout"):
                out.append(f"{what}: only an input or inout has a default")
            elif isinstance(d.default, float) != (d.dtype == "f64"):
                out.append(f"{what}: its default is not {d.dtype}")
            elif d.dtype == "i64" and not I64_MIN <= d.default <= I64_MAX:
                out.append(f"{what}: default {d.default} does not fit in i64")
        if d.implicit and (d.role != "var" or d.shape or d.init != 0 or d.alias is not None):
            out.append(f"{what}: only a scalar var of initial value 0 can be implicit")
        seen.setdefault(d.name, d)
    return out
