"""Differential fuzzing of the engines: random tuple programs run on the reference and on another
engine, every observable compared (``tests/test_engines.py`` runs it briefly, ``bench/fuzz_engines.py``
long).

Programs are built as :class:`Program` objects (no assembler in the loop) over a fixed set of
buffers: i64 and f64 scalars, vectors and matrices, a scalar and reshaped arrays that are views of
others (so some scalars cannot live in locals), every opcode on scalars, elements and vectors
(broadcasting, strides, overlapping source and destination), index expressions that go out of
bounds (by a little, or past i64), forward and backward branches, endless loops, programs that run
off their end, and step budgets from 1 up. Values include NaN, -0.0, infinities, INT64_MIN and
shift counts past 63.
"""
from __future__ import annotations

import math
import struct

from hypothesis import strategies as st

from inca.interpreter.engine import RuntimeFault
from inca.interpreter.loader import install
from inca.interpreter.nic import NIC
from inca.interpreter.profiles import load_profile
from inca.lang.check import broadcasts, check_decls, check_program
from inca.lang.isa import I64_MAX, I64_MIN
from inca.lang.program import Affine, Decl, Imm, Instr, Program, Ref, Slice
from inca.lang.tuples import TupleProgram, encode

PROFILE = load_profile("scratchpad")

DECLS = (
    Decl("a", "inout", "i64"), Decl("b", "inout", "i64"), Decl("i", "inout", "i64"),
    Decl("x", "inout", "f64", init=0.0), Decl("y", "inout", "f64", init=0.0),
    Decl("A", "inout", "i64", (8,)), Decl("F", "inout", "f64", (8,), init=0.0),
    Decl("M", "inout", "i64", (2, 4)), Decl("G", "inout", "f64", (2, 3), init=0.0),
    Decl("O", "inout", "i64", (1,)),
    Decl("q", "var", "i64", alias="b"),  # b under a second name: neither may live in a local
    Decl("V", "var", "i64", (4, 2), alias="A"),  # A reshaped
    Decl("H", "var", "f64", (6,), init=0.0, alias="G"),
    Decl("z", "var", "i64", alias="O"),  # a scalar view of a one-element array
)
DTYPE = {d.name: d.dtype for d in DECLS}
ROOTS = ("a", "b", "i", "x", "y", "A", "F", "M", "G", "O")  # the buffers inputs fill


def E(c: int = 0, **terms: int) -> Affine:
    return Affine.of(c, **terms)


def span(lo: Affine, n: int, step: int = 1) -> Slice:
    return Slice(lo, lo + E(n * step - (step - 1)), step)


_I, _A = E(i=1), E(a=1)
SCALARS = [Ref(n) for n in ("a", "b", "i", "q", "z", "x", "y")]
COUNTERS = [Ref(n) for n in ("i", "a", "b")]  # i and a live in locals, b has a view
ELEMENTS = [Ref("A", (E(0),)), Ref("A", (E(7),)), Ref("A", (_I,)), Ref("A", (E(1, i=2),)),
            Ref("A", (E(7, i=-1),)), Ref("A", (E(-1, i=1),)), Ref("M", (E(1), _I)),
            Ref("M", (_I, E(3))), Ref("V", (_I, E(1))), Ref("O", (E(0),)), Ref("F", (E(3),)),
            Ref("F", (_I,)), Ref("F", (E(-1, i=1),)), Ref("G", (E(1), _I)), Ref("H", (E(5, i=-1),))]
WILD = [Ref("A", (_A,)), Ref("F", (E(3, a=2),)), Ref("M", (_I, _A))]  # indices past i64 too
VECTORS = [Ref("A", (span(E(0), 4),)), Ref("A", (span(E(4), 4),)), Ref("A", (span(E(0), 4, 2),)),
           Ref("A", (span(E(1), 4, 2),)), Ref("A", (span(_I, 4),)), Ref("A", (span(E(0), 1),)),
           Ref("A", (span(_I, 1),)), Ref("M", (span(E(0), 2), span(E(0), 4))),
           Ref("M", (E(1), span(E(0), 4))), Ref("M", (span(E(0), 2), span(E(1), 1))),
           Ref("M", (span(E(0), 2), span(E(1), 2))), Ref("M", (span(E(0), 2), E(0))),
           Ref("M", (span(E(0), 2), _I)), Ref("M", (_I, span(E(0), 4))),
           Ref("V", (span(E(0), 4), span(E(0), 2))), Ref("V", (span(E(0), 4), E(1))),
           Ref("V", (span(_I, 2), span(E(0), 2))), Ref("V", (span(E(0), 2, 2), span(E(1), 1))),
           Ref("O", (span(E(0), 1),)), Ref("F", (span(E(0), 4),)), Ref("F", (span(E(1), 4, 2),)),
           Ref("F", (span(_I, 4),)), Ref("F", (span(E(7), 1),)), Ref("G", (span(E(0), 2), span(E(0), 3))),
           Ref("G", (E(1), span(E(0), 3))), Ref("G", (span(E(0), 2), _I)),
           Ref("G", (span(E(0), 2), span(E(0), 2))), Ref("H", (span(E(0), 6),)),
           Ref("H", (span(_I, 3),))]


def shape(ref: Ref) -> tuple[int, ...]:
    return tuple(s.length for s in ref.index if isinstance(s, Slice))


ONE = [v for v in VECTORS if math.prod(shape(v)) == 1]
BINARY = ["ADD", "SUB", "MUL", "DIV", "MOD", "MIN", "MAX", "AND", "OR", "XOR", "SHL", "SHR",
          "LT", "LE", "GT", "GE", "EQ", "NE"]
INT_ONLY = ("AND", "OR", "XOR", "SHL", "SHR")

BIG = [I64_MIN, I64_MAX, I64_MIN + 1, I64_MAX - 1, 1 << 62, -(1 << 62), 3 << 61, 1 << 32]
i64s = st.one_of(st.integers(-9, 9), st.integers(I64_MIN, I64_MAX),
                 st.sampled_from([0, 1, -1, 2, 63, 64, 65, -64] + BIG), st.sampled_from(BIG))
f64s = st.one_of(st.floats(-100, 100), st.floats(allow_nan=True, allow_infinity=True),
                 st.sampled_from([0.0, -0.0, 0.5, -1.5, 3.0, 1e308, -1e308, 5e-324, 9.3e18, -9.3e18,
                                  9.2e18, math.inf, -math.inf, math.nan, -math.nan]))


@st.composite
def data_instr(draw) -> Instr:
    kind = draw(st.sampled_from(["scalar", "element", "vector"]))
    elements = st.sampled_from(ELEMENTS) | st.sampled_from(WILD) if draw(st.integers(0, 9)) == 0 else \
        st.sampled_from(ELEMENTS)
    dest = draw(st.sampled_from(SCALARS + COUNTERS[:2] * 2) if kind == "scalar" else elements
                if kind == "element" else st.sampled_from(VECTORS))
    dshape = shape(dest)
    skind = draw(st.sampled_from(["imm-i64", "imm-f64", "scalar", "element", "vector"]))
    if skind == "imm-i64":
        src = Imm(draw(i64s), "i64")
    elif skind == "imm-f64":
        src = Imm(draw(f64s), "f64")
    elif skind == "scalar":
        src = draw(st.sampled_from(SCALARS))
    elif skind == "element":
        src = draw(elements)
    else:
        fits = [v for v in VECTORS + [Ref("F", (span(_A, 2),))] if broadcasts(shape(v), dshape)] \
            if dshape else ONE
        src = draw(st.sampled_from(fits))
    dtypes = (DTYPE[dest.name], src.dtype if isinstance(src, Imm) else DTYPE[src.name])
    ops = ["PUTL"] + [op for op in BINARY if op not in INT_ONLY or "f64" not in dtypes]
    return Instr(draw(st.sampled_from(ops)), dest, src)


BOUNDS = st.sampled_from([0, 1, 2, 3, 4, 6, 7, 8, 9]) | st.integers(-3, 12)  # near the sizes


@st.composite
def loop_idiom(draw) -> list[Instr | str]:
    """The shapes loops take (what ``ranges`` learns bounds from), "BLEZ x" and "JMP" standing
    for branches whose targets are drawn later: a counter set or stepped, or tested through a
    copy (``PUTL t, i; LT t, t, 8; BLEZ t, L`` as -O0 writes it, ``SUB t, t, 8`` as by hand)."""
    k = draw(st.sampled_from(COUNTERS + [Ref("i")] * 2))
    t = draw(st.sampled_from([Ref("a")] * 3 + [Ref("b"), Ref("z")]))
    kind = draw(st.sampled_from(["init", "step", "compare", "offset", "direct"]))
    if kind == "init":
        return [Instr("PUTL", k, Imm(draw(BOUNDS), "i64"))]
    if kind == "step":
        return [Instr(draw(st.sampled_from(["ADD", "SUB"])), k, Imm(draw(st.integers(-2, 2)), "i64"))]
    if kind == "direct":
        return [Instr("ADD", k, Imm(draw(st.integers(-1, 1)), "i64")), Instr("BLEZ", dest=k)]
    bound = Imm(draw(BOUNDS), "i64") if draw(st.integers(0, 3)) else draw(st.sampled_from(COUNTERS))
    op = draw(st.sampled_from(["LT", "LE", "GT", "GE", "EQ", "NE"] if kind == "compare" else ["SUB", "ADD"]))
    return [Instr("PUTL", t, k), Instr(op, t, bound), Instr("BLEZ", dest=t)]


@st.composite
def programs(draw) -> tuple[TupleProgram, dict[str, list], int]:
    """A well-formed tuple program, inputs for it and a step budget."""
    body: list[Instr] = []
    for _ in range(draw(st.integers(1, 14))):
        choice = draw(st.integers(0, 99))
        if choice < 52:
            body.append(draw(data_instr()))
        elif choice < 72:
            body.extend(draw(loop_idiom()))
        elif choice < 88:
            body.append(Instr("BLEZ", dest=draw(st.sampled_from(SCALARS + ELEMENTS + ONE))))
        elif choice < 97:
            body.append(Instr("JMP"))
        else:
            body.append(Instr("END"))
    ends = draw(st.integers(0, 9)) > 0  # else the run may go past the last instruction
    last = len(body) + 1 if ends else len(body)
    instrs = [Instr(i.op, i.dest, target=draw(st.integers(1, last))) if i.op in ("BLEZ", "JMP")
              else i for i in body] + [Instr("END")] * ends
    prog = Program(DECLS, tuple(instrs), (), "fuzz.incaa")
    problems = check_decls(DECLS) + check_program({d.name: d for d in DECLS}, prog.instrs,
                                                  lambda loc, msg, hint: msg)
    assert not problems, problems  # the generator writes well-formed programs only
    inputs = {}
    for d in DECLS:
        if d.name not in ROOTS:
            continue
        values = f64s if d.dtype == "f64" else i64s if d.name != "i" else st.integers(-1, 3) | st.integers(-2, 9)
        inputs[d.name] = draw(st.lists(values, min_size=d.size, max_size=d.size))
    budget = draw(st.sampled_from([300] * 6 + [1, 2, 3, 5, 8, 13, 40]))
    return encode(prog), inputs, budget


def _bits(v) -> object:
    """A stored value, exactly: its type and, for a float, its bits (NaN payloads included)."""
    return struct.pack("<d", v).hex() if type(v) is float else (type(v).__name__, v)


def outcome(tp: TupleProgram, inputs: dict[str, list], max_steps: int, run) -> tuple:
    """Everything a run leaves: how it ended (fire counts and steps, or the fault), the counters
    and every buffer's storage."""
    nic = NIC(PROFILE)
    pc, done = install(tp, nic, {k: list(v) for k, v in inputs.items()})
    nic.ct_set(pc, 1)
    try:
        ex = run(nic, pc, done, max_steps)
        how: tuple = ("ok", tuple(ex.fires), ex.steps)
    except RuntimeFault as f:
        how = (type(f).__name__, f.message, f.k, f.kind)
    storage = {n: [_bits(v) for v in b.data] for n, b in nic.buffers.items()}
    return how, pc.value, done.value, storage
