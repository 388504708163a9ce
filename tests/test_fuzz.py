"""Property tests with hypothesis.

1. Random text and random mutations of real programs: the assembler returns a Program or raises
   DiagnosticError, never anything else; whatever assembles also survives the printer and JSON.
2. Random well-formed programs (straight-line and looping, i64/f64 scalars, elements, vectors):
   the engine returns a RunResult or raises RuntimeFault/StepLimit, the traced run agrees with the
   fast one, and the printer and JSON round trips hold.
3. Differential: straight-line i64 programs against a small evaluator written here from
   INCA-A.md (wrap-around, C division and remainder), independent of lang/isa.py.
"""
from __future__ import annotations

import io
import math
from fractions import Fraction
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inca.compiler.assembler import assemble_text
from inca.compiler.printer import print_program
from inca.interpreter.engine import RuntimeFault
from inca.interpreter.loader import RunResult, execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import DiagnosticError
from inca.lang.program import Program
from inca.lang.tuples import encode, from_json, to_json

SETTINGS = settings(max_examples=200, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILE = load_profile("scratchpad")
I64_MIN, I64_MAX = -(2**63), 2**63 - 1

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples" / "asm").glob("*.incaa"))
SEEDS = [p.read_text(encoding="utf-8") for p in EXAMPLES] + [
    """\
.input  M f64[4][8]
.inout  V i64[16]
.var    w f64 = -2.5
.param  N = 4
start:  PUTL V[0:16:2], 3        ; vector, strided
        ADD V[2*k+1], V[2*k+1], -0x10
        PUTL r, M[3-k][0]
        MUL r, r, inf
        SUB V[k:k+N], V[k:k+N], V[0:1]
        ADD k, 1
        PUTL t, k
        SUB t, t, N
        BLEZ t, start
done:   END
""",
    """\
.input A i64[8]
.output s i64
1 PUTL i, 0
2 PUTL c, i
3 SUB c, c, 7
4 BLEZ c, 6
5 JMP 9
6 ADD s, s, A[i]
7 ADD i, i, 1
8 JMP 2
9 END
""",
]


def assemble_or_diagnose(text: str) -> Program | None:
    """Assemble; a DiagnosticError is fine (and must render), anything else propagates."""
    try:
        return assemble_text(text, "fuzz.incaa")
    except DiagnosticError as e:
        n_lines = len(text.splitlines())
        assert e.diagnostics
        for d in e.diagnostics:
            assert d.render().startswith("fuzz.incaa")
            if d.loc is not None:
                assert 1 <= d.loc.line <= max(1, n_lines) and d.loc.col >= 1
        return None


def round_trips(prog: Program) -> None:
    text = print_program(prog)
    again = assemble_text(text, "printed.incaa")
    assert again == prog, text
    tp = encode(prog)
    assert from_json(to_json(tp)) == tp


# ---- 1. the assembler never crashes -----------------------------------------------------------

INCAA_ALPHABET = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789"
                  " \t\n[]:,;#.+-*/%()=$@!\\'\"\r")
TOKENS = ["PUTL", "ADD", "SUB", "MUL", "DIV", "MOD", "MIN", "MAX", "AND", "OR", "XOR", "SHL", "SHR",
          "LT", "LE", "GT", "GE", "EQ", "NE", "BLEZ", "JMP", "END", "putl", "Add", ".input", ".output",
          ".inout", ".var", ".param", "f64", "i64", "A", "B", "c", "i", "r0", "x", "loop:", "1", "2", "10",
          "0", "-1", "0x1f", "010", "1e309", "inf", "nan", "0.5", "[", "]", ":", "::", ",", ";", "#", "=",
          "*", "+", "-", "/", "%", "(", ")", "\n", " ", "[0:4]", "[i]", "[2*k+1]", "[i][j]",
          "9223372036854775808"]


@SETTINGS
@given(st.text(alphabet=INCAA_ALPHABET, max_size=300))
def test_random_incaa_like_text(text):
    prog = assemble_or_diagnose(text)
    if prog is not None:
        round_trips(prog)


@SETTINGS
@given(st.text(max_size=200))
def test_random_unicode_text(text):
    prog = assemble_or_diagnose(text)
    if prog is not None:
        round_trips(prog)


@st.composite
def mutated_programs(draw):
    lines = draw(st.sampled_from(SEEDS)).splitlines()
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["delete-line", "duplicate-line", "swap-lines", "insert-token",
                                     "replace-word", "delete-chars", "insert-text"]))
        if not lines:
            lines = [""]
        n = draw(st.integers(0, len(lines) - 1))
        line = lines[n]
        if kind == "delete-line":
            del lines[n]
        elif kind == "duplicate-line":
            lines.insert(n, line)
        elif kind == "swap-lines":
            m = draw(st.integers(0, len(lines) - 1))
            lines[n], lines[m] = lines[m], lines[n]
        elif kind == "replace-word":
            words = line.split(" ")
            w = draw(st.integers(0, len(words) - 1))
            words[w] = draw(st.sampled_from(TOKENS))
            lines[n] = " ".join(words)
        else:
            at = draw(st.integers(0, len(line)))
            if kind == "delete-chars":
                lines[n] = line[:at] + line[at + draw(st.integers(1, 6)):]
            else:
                piece = draw(st.sampled_from(TOKENS) if kind == "insert-token"
                             else st.text(alphabet=INCAA_ALPHABET, min_size=1, max_size=8))
                lines[n] = line[:at] + piece + line[at:]
    return "\n".join(lines) + "\n"


@SETTINGS
@given(mutated_programs())
def test_mutated_examples(text):
    prog = assemble_or_diagnose(text)
    if prog is not None:
        round_trips(prog)


# ---- 2. random well-formed programs -----------------------------------------------------------

HEADER = """\
.inout A i64[8]
.inout F f64[8]
.inout M i64[2][4]
.inout a i64
.inout b i64
.inout i i64
.inout x f64
.inout y f64
"""
SCALARS = [("a", "i64"), ("b", "i64"), ("i", "i64"), ("x", "f64"), ("y", "f64")]
ELEMENTS = [("A[0]", "i64"), ("A[7]", "i64"), ("A[i]", "i64"), ("A[2*i+1]", "i64"), ("A[7-i]", "i64"),
            ("F[3]", "f64"), ("F[i]", "f64"), ("F[i-1]", "f64"), ("M[1][i]", "i64"), ("M[i][3]", "i64")]
VECTORS = [("A[0:4]", "i64", (4,)), ("A[4:8]", "i64", (4,)), ("A[0:8:2]", "i64", (4,)),
           ("A[1:8:2]", "i64", (4,)), ("A[i:i+4]", "i64", (4,)), ("A[0:1]", "i64", (1,)),
           ("F[0:4]", "f64", (4,)), ("F[1:8:2]", "f64", (4,)), ("F[i:i+4]", "f64", (4,)),
           ("F[7:8]", "f64", (1,)), ("M[0:2][0:4]", "i64", (2, 4)), ("M[1][0:4]", "i64", (4,)),
           ("M[0:2][1:2]", "i64", (2, 1)), ("M[0:2][0]", "i64", (2,)), ("M[0:2][i]", "i64", (2,))]
BINARY = ["ADD", "SUB", "MUL", "DIV", "MOD", "MIN", "MAX", "AND", "OR", "XOR", "SHL", "SHR",
          "LT", "LE", "GT", "GE", "EQ", "NE"]
FLOAT_OK = [op for op in BINARY if op not in ("AND", "OR", "XOR", "SHL", "SHR")]

i64_values = st.one_of(st.integers(-70, 70), st.integers(I64_MIN, I64_MAX),
                       st.sampled_from([0, 1, -1, 63, 64, I64_MIN, I64_MAX, I64_MIN + 1, I64_MAX - 1]))
f64_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                       st.sampled_from([0.0, -0.0, 0.5, -1.5, 1e308, 5e-324, math.inf, -math.inf,
                                        math.nan]))


def f64_literal(v: float) -> str:
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def broadcastable(src: tuple[int, ...], dest: tuple[int, ...]) -> bool:
    if len(src) > len(dest):
        return False
    return all(s == 1 or s == d for s, d in zip(reversed(src), reversed(dest)))


@st.composite
def source_operand(draw, shape):
    """A source operand (text, dtype) that fits a destination of ``shape``."""
    kinds = ["imm-i64", "imm-f64", "scalar", "element"] + (["vector"] * 3 if shape else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "imm-i64":
        return str(draw(i64_values)), "i64"
    if kind == "imm-f64":
        return f64_literal(draw(f64_values)), "f64"
    if kind == "scalar":
        return draw(st.sampled_from(SCALARS))
    if kind == "element":
        return draw(st.sampled_from(ELEMENTS))
    text, dt, _ = draw(st.sampled_from([v for v in VECTORS if broadcastable(v[2], shape)]))
    return text, dt


@st.composite
def data_instruction(draw):
    kind = draw(st.sampled_from(["scalar", "element", "vector"]))
    if kind == "vector":
        dest, ddt, shape = draw(st.sampled_from(VECTORS))
    else:
        dest, ddt = draw(st.sampled_from(SCALARS if kind == "scalar" else ELEMENTS))
        shape = ()
    src, sdt = draw(source_operand(shape))
    op = draw(st.sampled_from(["PUTL"] + (FLOAT_OK if "f64" in (ddt, sdt) else BINARY)))
    if draw(st.booleans()):
        op = op.lower()
    if op.upper() == "PUTL":
        return f"{op} {dest}, {src}"
    if draw(st.integers(0, 3)) == 0:
        return f"{op} {dest}, {src}"  # the two-operand shorthand
    return f"{op} {dest}, {dest}, {src}"


@st.composite
def programs(draw, loops: bool = True):
    """INCA-A text of a random well-formed program (numbered or labelled) and its inputs."""
    n = draw(st.integers(1, 12))
    body = []  # (mnemonic text or None, branch kind, target)
    for _ in range(n):
        choice = draw(st.integers(0, 9)) if loops else 0
        if choice <= 6:
            body.append((draw(data_instruction()), None, None))
        elif choice <= 8:
            x, _ = draw(st.sampled_from(SCALARS + ELEMENTS))
            body.append((f"BLEZ {x}", "blez", draw(st.integers(1, n + 1))))
        else:
            body.append(("JMP", "jmp", draw(st.integers(1, n + 1))))
    body.append(("END", None, None))
    numbered = draw(st.booleans())
    targets = {t for _, kind, t in body if kind}
    extra = set(draw(st.lists(st.integers(1, n + 1), max_size=2)))  # unused and double labels
    lines = [HEADER]
    for k, (text, kind, target) in enumerate(body, 1):
        if kind:
            name = str(target) if numbered else f"t{target}"
            text = f"{text}, {name}" if kind == "blez" else f"{text} {name}"
        if numbered:
            lines.append(f"{k} {text}")
        else:
            if k in extra:
                lines.append(f"u{k}:")
            lines.append(f"{'t%d: ' % k if k in targets else '    '}{text}")
    inputs = {
        "A": draw(st.lists(i64_values, min_size=8, max_size=8)),
        "F": draw(st.lists(f64_values, min_size=8, max_size=8)),
        "M": draw(st.lists(i64_values, min_size=8, max_size=8)),
        "a": [draw(i64_values)], "b": [draw(i64_values)], "i": [draw(st.integers(-1, 8))],
        "x": [draw(f64_values)], "y": [draw(f64_values)],
    }
    return "\n".join(lines) + "\n", inputs


def outcome(tp, inputs, trace=None):
    """('ok', outputs, stats) or ('fault', kind, k, message): never anything else."""
    try:
        r = execute(tp, PROFILE, inputs, max_steps=200, trace=trace)
    except RuntimeFault as f:  # StepLimit is a RuntimeFault
        return ("fault", f.kind, f.k, f.message)
    assert isinstance(r, RunResult)
    assert r.instructions == sum(r.by_class.values()) == r.messages <= 200
    assert r.time_ns >= 0 and r.memory_accesses >= 0
    return ("ok", repr(r.outputs), r.instructions, r.by_class, r.memory_accesses, r.time_ns)


@SETTINGS
@given(programs())
def test_random_programs_run_or_fault_cleanly(case):
    text, inputs = case
    try:
        prog = assemble_text(text, "gen.incaa")
    except DiagnosticError as e:  # the generator only writes well-formed programs
        raise AssertionError(f"a well-formed program was rejected:\n{text}\n{e}") from None
    round_trips(prog)
    tp = encode(prog)
    fast = outcome(tp, {k: list(v) for k, v in inputs.items()})
    traced = outcome(tp, {k: list(v) for k, v in inputs.items()}, trace=io.StringIO())
    assert fast == traced


# ---- 3. differential check against an independent i64 evaluator ------------------------------

def wrap(v: int) -> int:
    """Two's complement: keep the low 64 bits, read them as signed."""
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def unsigned(v: int) -> int:
    return v & ((1 << 64) - 1)


class Fault(Exception):
    pass


def c_div(a: int, b: int) -> int:
    if b == 0:
        raise Fault
    return wrap(int(Fraction(a, b)))  # int() of a Fraction truncates toward zero, as C does


def c_rem(a: int, b: int) -> int:
    if b == 0:
        raise Fault
    return wrap(a - b * int(Fraction(a, b)))  # C: a == (a / b) * b + a % b


REFERENCE = {
    "ADD": lambda a, b: wrap(a + b),
    "SUB": lambda a, b: wrap(a - b),
    "MUL": lambda a, b: wrap(a * b),
    "DIV": c_div,
    "MOD": c_rem,
    "MIN": lambda a, b: a if a <= b else b,
    "MAX": lambda a, b: a if a >= b else b,
    "AND": lambda a, b: wrap(unsigned(a) & unsigned(b)),
    "OR": lambda a, b: wrap(unsigned(a) | unsigned(b)),
    "XOR": lambda a, b: wrap(unsigned(a) ^ unsigned(b)),
    "SHL": lambda a, b: wrap(unsigned(a) << (b % 64)),
    "SHR": lambda a, b: a // (1 << (b % 64)),  # arithmetic: floor division by 2**n
    "LT": lambda a, b: int(a < b),
    "LE": lambda a, b: int(a <= b),
    "GT": lambda a, b: int(a > b),
    "GE": lambda a, b: int(a >= b),
    "EQ": lambda a, b: int(a == b),
    "NE": lambda a, b: int(a != b),
}
LOCS = ["a", "b", "c", "A[0]", "A[1]", "A[2]", "A[3]"]


@st.composite
def straight_line(draw):
    steps = draw(st.lists(st.tuples(st.sampled_from(["PUTL"] + list(REFERENCE)), st.sampled_from(LOCS),
                                    st.one_of(st.sampled_from(LOCS), i64_values)),
                          min_size=1, max_size=15))
    state = {"a": draw(i64_values), "b": draw(i64_values), "c": draw(i64_values)}
    array = draw(st.lists(i64_values, min_size=4, max_size=4))
    state.update({f"A[{j}]": v for j, v in enumerate(array)})
    return steps, state


def evaluate(steps, state):
    """Final state, or the 1-based number of the instruction that faults."""
    s = dict(state)
    for k, (op, d, src) in enumerate(steps, 1):
        v = s[src] if isinstance(src, str) else src
        try:
            s[d] = v if op == "PUTL" else REFERENCE[op](s[d], v)
        except Fault:
            return k
    return s


@SETTINGS
@given(straight_line())
def test_engine_agrees_with_reference_evaluator(case):
    steps, state = case
    lines = [".inout a i64", ".inout b i64", ".inout c i64", ".inout A i64[4]"]
    for k, (op, d, src) in enumerate(steps, 1):
        lines.append(f"{k} {op} {d}, {src}" if op == "PUTL" else f"{k} {op} {d}, {d}, {src}")
    lines.append(f"{len(steps) + 1} END")
    tp = encode(assemble_text("\n".join(lines) + "\n", "diff.incaa"))
    inputs = {"a": [state["a"]], "b": [state["b"]], "c": [state["c"]],
              "A": [state[f"A[{j}]"] for j in range(4)]}
    want = evaluate(steps, state)
    try:
        r = execute(tp, PROFILE, inputs)
    except RuntimeFault as f:
        assert f.k == want, f"engine faulted at {f.k} ({f.message}), reference: {want}"
        assert "by zero" in f.message
        return
    assert isinstance(want, dict), f"reference faults at instruction {want}, engine did not"
    got = {"a": r.outputs["a"], "b": r.outputs["b"], "c": r.outputs["c"]}
    got.update({f"A[{j}]": v for j, v in enumerate(r.outputs["A"])})
    assert got == want
    assert all(I64_MIN <= v <= I64_MAX and type(v) is int for v in got.values())
    assert r.instructions == len(steps)
    assert r.time_ns == sum(11 if op == "PUTL" else 12 for op, _, _ in steps)


def test_reference_evaluator_spot_checks():
    # the evaluator itself, against values written out by hand
    assert c_div(-7, 2) == -3 and c_rem(-7, 2) == -1 and c_rem(7, -2) == 1
    assert c_div(I64_MIN, -1) == I64_MIN and c_rem(I64_MIN, -1) == 0
    assert REFERENCE["SHR"](-8, 1) == -4 and REFERENCE["SHL"](1, 63) == I64_MIN
    assert REFERENCE["XOR"](-1, I64_MAX) == I64_MIN and REFERENCE["ADD"](I64_MAX, 1) == I64_MIN
    assert evaluate([("DIV", "a", 0)], {"a": 1}) == 1
