"""Every opcode's semantics, through the assembler and the engine, on i64 and f64.

Expected values are written out by hand from INCA-A.md (i64 wraps, DIV truncates toward zero,
MOD has the dividend's sign, IEEE 754 for f64); nothing here is computed with lang/isa.py.
"""
from __future__ import annotations

import math

import pytest

from inca.compiler.assembler import assemble_text
from inca.interpreter.engine import RuntimeFault
from inca.lang.diagnostics import DiagnosticError
from inca.lang.isa import OPCODES, Form, OpClass, isa_table_markdown, lookup

I64_MAX = 9223372036854775807
I64_MIN = -9223372036854775808
inf, nan = math.inf, math.nan


def lit(v, dtype: str) -> str:
    """An INCA-A literal for ``v`` (written independently of the code under test)."""
    if dtype == "i64":
        return str(int(v))
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def same(got, want) -> bool:
    """Equal values of the same type; NaN equals NaN; the sign of a zero matters."""
    if type(got) is not type(want):
        return False
    if isinstance(want, float):
        if math.isnan(want):
            return math.isnan(got)
        return got == want and math.copysign(1, got) == math.copysign(1, want)
    return got == want


def binop(run_asm, op, ddt, a, b, sdt=None, src="imm"):
    """Run ``PUTL d, a; OP d, d, b`` with ``b`` as an immediate, a scalar or an array element."""
    sdt = sdt or ddt
    decl = {"imm": "", "scalar": f".var s {sdt} = {lit(b, sdt)}\n",
            "element": f".input S {sdt}[3]\n"}[src]
    operand = {"imm": lit(b, sdt), "scalar": "s", "element": "S[1]"}[src]
    text = f".output d {ddt}\n{decl}1 PUTL d, {lit(a, ddt)}\n2 {op} d, d, {operand}\n3 END\n"
    inputs = {"S": [0, b, 0]} if src == "element" else None
    r = run_asm(text, inputs)
    assert r.instructions == 2
    assert r.by_class["ALU"] == 1 and r.by_class["PUTL"] == 1
    return r.outputs["d"]


I64_CASES = [
    ("ADD", 2, 3, 5), ("ADD", -2, -3, -5), ("ADD", I64_MAX, 1, I64_MIN), ("ADD", I64_MIN, -1, I64_MAX),
    ("SUB", 2, 5, -3), ("SUB", I64_MIN, 1, I64_MAX), ("SUB", 0, I64_MIN, I64_MIN),
    ("MUL", 6, -7, -42), ("MUL", I64_MAX, 2, -2), ("MUL", 1 << 62, 4, 0), ("MUL", I64_MIN, -1, I64_MIN),
    ("DIV", 7, 2, 3), ("DIV", -7, 2, -3), ("DIV", 7, -2, -3), ("DIV", -7, -2, 3), ("DIV", 0, 5, 0),
    ("DIV", 1, 3, 0), ("DIV", -1, 3, 0), ("DIV", I64_MIN, -1, I64_MIN), ("DIV", I64_MIN, 2, -(1 << 62)),
    ("MOD", 7, 3, 1), ("MOD", -7, 3, -1), ("MOD", 7, -3, 1), ("MOD", -7, -3, -1), ("MOD", 6, 3, 0),
    ("MOD", I64_MIN, -1, 0), ("MOD", I64_MIN, 3, -2),
    ("MIN", 3, -4, -4), ("MIN", I64_MIN, I64_MAX, I64_MIN), ("MAX", 3, -4, 3), ("MAX", -1, -1, -1),
    ("AND", 0b1100, 0b1010, 0b1000), ("AND", -1, 0xFF, 255), ("AND", I64_MIN, -1, I64_MIN),
    ("OR", 0b1100, 0b1010, 0b1110), ("OR", I64_MIN, 1, I64_MIN + 1),
    ("XOR", 0b1100, 0b1010, 0b0110), ("XOR", -1, I64_MAX, I64_MIN),
    ("SHL", 1, 4, 16), ("SHL", 1, 63, I64_MIN), ("SHL", I64_MAX, 1, -2), ("SHL", -1, 1, -2),
    ("SHL", 3, 64, 3), ("SHL", 1, 65, 2), ("SHL", 1, -1, I64_MIN),  # the amount is taken mod 64
    ("SHR", -8, 1, -4), ("SHR", 16, 2, 4), ("SHR", -1, 63, -1), ("SHR", I64_MIN, 63, -1),
    ("SHR", I64_MAX, 62, 1), ("SHR", 5, 64, 5),  # arithmetic shift, amount mod 64
    ("LT", 1, 2, 1), ("LT", 2, 2, 0), ("LT", I64_MIN, I64_MAX, 1),
    ("LE", 2, 2, 1), ("LE", 3, 2, 0),
    ("GT", 3, 2, 1), ("GT", 2, 2, 0), ("GT", -1, -2, 1),
    ("GE", 2, 2, 1), ("GE", 1, 2, 0),
    ("EQ", 2, 2, 1), ("EQ", 1, 2, 0),
    ("NE", 1, 2, 1), ("NE", 2, 2, 0),
]


@pytest.mark.parametrize("op,a,b,want", I64_CASES, ids=lambda v: str(v))
def test_i64_binary(run_asm, op, a, b, want):
    assert same(binop(run_asm, op, "i64", a, b), want)


@pytest.mark.parametrize("src", ["scalar", "element"])
@pytest.mark.parametrize("op,a,b,want",
                         [c for c in I64_CASES if c[0] in ("ADD", "DIV", "MOD", "SHR", "GE")][::2])
def test_i64_binary_location_sources(run_asm, op, a, b, want, src):
    """The source may be a scalar or an element read at fire time: same results."""
    assert same(binop(run_asm, op, "i64", a, b, src=src), want)


F64_CASES = [
    ("ADD", 0.5, 0.25, 0.75), ("ADD", 1e308, 1e308, inf), ("ADD", inf, -inf, nan),
    ("ADD", 0.1, 0.2, 0.30000000000000004),
    ("SUB", 0.5, 1.0, -0.5), ("SUB", inf, inf, nan), ("SUB", 0.0, 0.0, 0.0),
    ("MUL", 1.5, -2.0, -3.0), ("MUL", 0.0, inf, nan), ("MUL", 1e200, 1e200, inf), ("MUL", -0.0, 5.0, -0.0),
    ("DIV", 1.0, 4.0, 0.25), ("DIV", -7.0, 2.0, -3.5), ("DIV", 1.0, 0.0, inf), ("DIV", -1.0, 0.0, -inf),
    ("DIV", 1.0, -0.0, -inf), ("DIV", -1.0, -0.0, inf), ("DIV", 0.0, 0.0, nan), ("DIV", nan, 0.0, nan),
    ("DIV", inf, 0.0, inf), ("DIV", 1e308, 1e-10, inf), ("DIV", inf, inf, nan),
    ("MOD", 7.5, 2.0, 1.5), ("MOD", -7.5, 2.0, -1.5), ("MOD", 7.5, -2.0, 1.5), ("MOD", 1.0, 0.0, nan),
    ("MOD", inf, 2.0, nan), ("MOD", 5.0, inf, 5.0),
    ("MIN", 1.0, 2.0, 1.0), ("MIN", nan, 1.0, nan), ("MIN", 1.0, nan, nan), ("MIN", -0.0, 0.0, -0.0),
    ("MIN", 0.0, -0.0, -0.0), ("MIN", -inf, 3.0, -inf),
    ("MAX", 1.0, 2.0, 2.0), ("MAX", nan, 1.0, nan), ("MAX", 1.0, nan, nan), ("MAX", 0.0, -0.0, 0.0),
    ("MAX", -0.0, 0.0, 0.0), ("MAX", inf, 3.0, inf),
    ("LT", 1.0, 2.0, 1.0), ("LT", 2.0, 2.0, 0.0), ("LT", nan, 1.0, 0.0), ("LT", 1.0, nan, 0.0),
    ("LE", 2.0, 2.0, 1.0), ("LE", nan, nan, 0.0), ("LE", -inf, inf, 1.0),
    ("GT", 3.0, 2.0, 1.0), ("GT", nan, 1.0, 0.0),
    ("GE", 2.0, 2.0, 1.0), ("GE", nan, 1.0, 0.0), ("GE", 1.0, 2.0, 0.0),
    ("EQ", 2.0, 2.0, 1.0), ("EQ", nan, nan, 0.0), ("EQ", 0.0, -0.0, 1.0), ("EQ", inf, inf, 1.0),
    ("NE", nan, nan, 1.0), ("NE", 1.0, 1.0, 0.0), ("NE", 1.0, 2.0, 1.0),
]


@pytest.mark.parametrize("op,a,b,want", F64_CASES, ids=lambda v: str(v))
def test_f64_binary(run_asm, op, a, b, want):
    assert same(binop(run_asm, op, "f64", a, b), want)


@pytest.mark.parametrize("src", ["scalar", "element"])
@pytest.mark.parametrize("op,a,b,want", [c for c in F64_CASES if c[0] in ("DIV", "MIN", "EQ")][::2])
def test_f64_binary_location_sources(run_asm, op, a, b, want, src):
    assert same(binop(run_asm, op, "f64", a, b, src=src), want)


def test_every_binary_opcode_is_tested():
    binary = {m for m, s in OPCODES.items() if s.form is Form.BINARY}
    assert {c[0] for c in I64_CASES} == binary
    assert {c[0] for c in F64_CASES} == binary - {m for m, s in OPCODES.items() if s.int_only}
    assert set(OPCODES) == binary | {"PUTL", "BLEZ", "JMP", "END"}


# ---- i64 runtime errors -----------------------------------------------------------------------

@pytest.mark.parametrize("op,msg", [("DIV", "division by zero"), ("MOD", "by zero")])
@pytest.mark.parametrize("src", ["imm", "scalar", "element"])
def test_i64_division_by_zero_is_a_runtime_fault(run_asm, op, msg, src):
    with pytest.raises(RuntimeFault) as e:
        binop(run_asm, op, "i64", 7, 0, src=src)
    assert msg in e.value.message
    assert e.value.k == 2  # the DIV/MOD tuple, so the CLI can point at its source line


# ---- bitwise operations are i64 only ----------------------------------------------------------

@pytest.mark.parametrize("op", ["AND", "OR", "XOR", "SHL", "SHR"])
@pytest.mark.parametrize("ddt,sdt,culprit", [("f64", "i64", "'d' is f64"), ("i64", "f64", "'1.5' is f64"),
                                             ("f64", "f64", "'d' is f64")])
def test_bitwise_rejects_f64(op, ddt, sdt, culprit):
    text = f".output d {ddt}\n{op} d, d, {'1.5' if sdt == 'f64' else '1'}\nEND\n"
    with pytest.raises(DiagnosticError) as e:
        assemble_text(text)
    (d,) = e.value.diagnostics
    assert d.message == f"{op} is defined on i64 only, but {culprit}"
    assert d.loc.line == 2


# ---- PUTL and conversions ---------------------------------------------------------------------

@pytest.mark.parametrize("src,want", [
    (2.7, 2), (-2.7, -2), (0.999, 0), (-0.5, 0), (1e18, 10**18), (-9223372036854775808.0, I64_MIN),
    (4503599627370497.0, 4503599627370497),
])
def test_putl_f64_to_i64_truncates_toward_zero(run_asm, src, want):
    for decl, operand, inputs in (("", lit(src, "f64"), None),
                                  (".input s f64\n", "s", {"s": [src]})):
        r = run_asm(f".output d i64\n{decl}PUTL d, {operand}\nEND\n", inputs)
        assert same(r.outputs["d"], want)


@pytest.mark.parametrize("bad", [nan, inf, -inf, 9.3e18, -1e19])
def test_putl_unconvertible_f64_to_i64_is_a_runtime_fault(run_asm, bad):
    with pytest.raises(RuntimeFault) as e:
        run_asm(".input s f64\n.output d i64\nPUTL d, s\nEND\n", {"s": [bad]})
    assert e.value.k == 1
    assert "i64" in e.value.message


@pytest.mark.parametrize("src,want", [(3, 3.0), (-3, -3.0), (2**53 + 1, 9007199254740992.0),
                                      (I64_MAX, 9.223372036854775807e18),
                                      (I64_MIN, -9.223372036854775808e18)])
def test_putl_i64_to_f64_rounds_to_nearest(run_asm, src, want):
    r = run_asm(".input s i64\n.output d f64\nPUTL d, s\nEND\n", {"s": [src]})
    assert same(r.outputs["d"], want)


@pytest.mark.parametrize("dt,v", [("i64", I64_MIN), ("i64", 42), ("f64", -0.0), ("f64", inf), ("f64", nan),
                                  ("f64", 5e-324)])
def test_putl_same_type_copies_exactly(run_asm, dt, v):
    r = run_asm(f".input s {dt}\n.output d {dt}\nPUTL d, s\nEND\n", {"s": [v]})
    assert same(r.outputs["d"], v)
    assert r.by_class == {"PUTL": 1, "ALU": 0, "BLEZ": 0, "JMP": 0}


# ---- mixed operand types: the operation is done in the destination's type ---------------------

@pytest.mark.parametrize("op,ddt,a,sdt,b,want", [
    ("ADD", "i64", 7, "f64", 2.9, 9),  # 2.9 -> 2 first
    ("ADD", "i64", 7, "f64", -2.9, 5),
    ("MUL", "i64", 3, "f64", 2.5, 6),
    ("LT", "i64", 1, "f64", 1.5, 0),  # 1 < int(1.5) = 1 is false
    ("SUB", "f64", 0.5, "i64", 2, -1.5),
    ("MUL", "f64", 1.5, "i64", 3, 4.5),
    ("DIV", "f64", 1.0, "i64", 0, inf),  # f64 division: IEEE, not a fault
    ("EQ", "f64", 3.0, "i64", 3, 1.0),
    ("MAX", "f64", -0.5, "i64", -1, -0.5),
])
@pytest.mark.parametrize("src", ["imm", "scalar"])
def test_mixed_types_compute_in_destination_type(run_asm, op, ddt, a, sdt, b, want, src):
    assert same(binop(run_asm, op, ddt, a, b, sdt=sdt, src=src), want)


def test_mixed_i64_destination_f64_source_can_fault(run_asm):
    with pytest.raises(RuntimeFault, match="division by zero"):
        binop(run_asm, "DIV", "i64", 7, 0.5, sdt="f64", src="scalar")  # 0.5 -> 0
    with pytest.raises(RuntimeFault, match="nan"):
        binop(run_asm, "ADD", "i64", 7, nan, sdt="f64", src="scalar")


def test_comparison_results_take_the_destination_type(run_asm):
    assert same(binop(run_asm, "LT", "i64", 1, 2), 1)
    assert same(binop(run_asm, "LT", "f64", 1.0, 2.0), 1.0)
    assert same(binop(run_asm, "LT", "f64", 1.0, 2, sdt="i64"), 1.0)


# ---- control flow -----------------------------------------------------------------------------

BRANCH = """\
.output r i64
.var x {dt} = {v}
1 BLEZ x, 4
2 PUTL r, 1
3 END
4 PUTL r, 2
5 END
"""


@pytest.mark.parametrize("dt,v,jumps", [
    ("i64", -5, True), ("i64", 0, True), ("i64", 1, False), ("i64", I64_MIN, True), ("i64", I64_MAX, False),
    ("f64", -0.0, True), ("f64", 0.0, True), ("f64", 5e-324, False), ("f64", -5e-324, True),
    ("f64", -inf, True), ("f64", inf, False), ("f64", nan, False),  # nan <= 0 is false: falls through
])
def test_blez(run_asm, dt, v, jumps):
    r = run_asm(BRANCH.format(dt=dt, v=lit(v, dt)))
    assert r.outputs["r"] == (2 if jumps else 1)
    assert r.instructions == 2
    assert r.by_class == {"PUTL": 1, "ALU": 0, "BLEZ": 1, "JMP": 0}


def test_blez_reads_an_element_at_fire_time(run_asm):
    text = (".input A i64[3]\n.output r i64\n"
            "1 PUTL i, 2\n2 BLEZ A[i], 5\n3 PUTL r, 1\n4 END\n5 PUTL r, 2\n6 END\n")
    assert run_asm(text, {"A": [-1, -1, 4]}).outputs["r"] == 1
    assert run_asm(text, {"A": [5, 5, -4]}).outputs["r"] == 2


def test_jmp_skips_and_end_stops(run_asm):
    text = ".output r i64\n1 PUTL r, 1\n2 JMP 4\n3 PUTL r, 2\n4 END\n5 PUTL r, 3\n6 END\n"
    r = run_asm(text)
    assert r.outputs["r"] == 1
    assert r.instructions == 2  # END is not counted
    assert r.by_class == {"PUTL": 1, "ALU": 0, "BLEZ": 0, "JMP": 1}
    assert r.memory_accesses == 1  # PUTL 1, JMP 0
    assert r.time_ns == 11 + 10


def test_jmp_backwards_loop_counts(run_asm):
    # sum 1..10 with a counted loop
    text = """\
.output s i64
1 PUTL i, 10
2 BLEZ i, 6
3 ADD s, s, i
4 SUB i, i, 1
5 JMP 2
6 END
"""
    r = run_asm(text)
    assert r.outputs["s"] == 55
    assert r.by_class == {"PUTL": 1, "ALU": 20, "BLEZ": 11, "JMP": 10}
    assert r.instructions == 42


def test_end_alone_costs_nothing(run_asm):
    r = run_asm(".output r i64\nEND\n")
    assert (r.instructions, r.messages, r.memory_accesses, r.time_ns) == (0, 0, 0, 0)
    assert r.outputs == {"r": 0}


# ---- the table itself -------------------------------------------------------------------------

def test_classes_and_memory_accesses():
    assert {m: s.opclass for m, s in OPCODES.items() if s.opclass is not OpClass.ALU} == {
        "PUTL": OpClass.PUTL, "BLEZ": OpClass.BLEZ, "JMP": OpClass.JMP, "END": OpClass.END}
    classes = (OpClass.PUTL, OpClass.ALU, OpClass.BLEZ, OpClass.JMP, OpClass.END)
    assert [c.accesses for c in classes] == [1, 2, 1, 0, 0]
    assert not OpClass.END.counted and OpClass.JMP.counted
    assert {m for m, s in OPCODES.items() if s.int_only} == {"AND", "OR", "XOR", "SHL", "SHR"}


def test_lookup_is_case_insensitive_and_table_lists_every_opcode():
    assert lookup("putl") is OPCODES["PUTL"] and lookup("BlEz") is OPCODES["BLEZ"]
    assert lookup("PUTX") is None
    rows = isa_table_markdown().splitlines()
    assert len(rows) == 2 + len(OPCODES)
    assert all(any(r.startswith(f"| {m} |") for r in rows) for m in OPCODES)
