"""The INCA-A assembler and printer: syntax, both line styles, literals, inference, round trips."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from inca.compiler.assembler import assemble_text
from inca.compiler.printer import print_program
from inca.lang.diagnostics import DiagnosticError
from inca.lang.program import Affine, Decl, Imm, Instr, Ref, Slice

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples" / "asm").glob("*.incaa"))


def errors(text: str) -> list[tuple[int, int, str]]:
    """(line, column, message) of every diagnostic assembling ``text`` gives."""
    with pytest.raises(DiagnosticError) as e:
        assemble_text(text)
    return [(d.loc.line, d.loc.col, d.message) for d in e.value.diagnostics]


def only_error(text: str):
    with pytest.raises(DiagnosticError) as e:
        assemble_text(text)
    assert len(e.value.diagnostics) == 1, e.value
    return e.value.diagnostics[0]


# ---- styles, case, comments -------------------------------------------------------------------

NUMBERED = """\
.input A f64[4]
.output s f64
1 PUTL i, 0
2 PUTL c, i
3 SUB c, c, 3
4 BLEZ c, 6
5 JMP 9
6 ADD s, s, A[i]
7 ADD i, i, 1
8 JMP 2
9 END
"""

LABELLED = """\
.input A f64[4]
.output s f64
        PUTL i, 0
loop:   PUTL c, i
        SUB c, c, 3
        BLEZ c, body
        JMP done
body:
        ADD s, s, A[i]
        ADD i, i, 1
        JMP loop
done:   END
"""


def test_both_styles_give_the_same_instructions(run_asm):
    n, lab = assemble_text(NUMBERED), assemble_text(LABELLED)
    assert n.instrs == lab.instrs and n.decls == lab.decls
    assert n.labels == () and lab.labels == (("loop", 2), ("body", 6), ("done", 9))
    assert [i.target for i in lab.instrs if i.target] == [6, 9, 2]
    for text in (NUMBERED, LABELLED):
        assert run_asm(text, {"A": [1.0, 2.5, 3.0, -4.0]}).outputs["s"] == 2.5


def test_case_insensitive_mnemonics_and_directives_case_sensitive_names():
    # 'Add X, x, 1' has middle operand x != X: names are case-sensitive
    assert errors(".output x i64\nAdd X, x, 1\nEND\n") == [
        (2, 8, "ADD is two-address: the middle operand must be the destination 'X', not 'x'")]
    p = assemble_text(".INPUT A i64[2]\n.Output x i64\nputl x, A[1]\nAdd x, x, 1\neNd\n")
    assert [i.op for i in p.instrs] == ["PUTL", "ADD", "END"]
    assert [(d.name, d.role) for d in p.decls] == [("A", "input"), ("x", "output")]


def test_comments_and_blank_lines():
    text = """\
; a full-line comment
# another one
.output x i64   ; after a directive

1 PUTL x, 5     # after an instruction
   ; indented comment
2 ADD x, x, 1;no space
3 END#
"""
    p = assemble_text(text)
    assert [i.text() for i in p.instrs] == ["PUTL x, 5", "ADD x, x, 1", "END"]
    assert [i.loc.line for i in p.instrs] == [5, 7, 8]


@pytest.mark.parametrize("literal,value,dtype", [
    ("50", 50, "i64"), ("-3", -3, "i64"), ("0x1f", 31, "i64"), ("0X1F", 31, "i64"), ("-0x10", -16, "i64"),
    ("0b101", 5, "i64"), ("0", 0, "i64"), ("9223372036854775807", 2**63 - 1, "i64"),
    ("-9223372036854775808", -(2**63), "i64"), ("0x7fffffffffffffff", 2**63 - 1, "i64"),
    ("0.5", 0.5, "f64"), ("-1e-3", -0.001, "f64"), (".25", 0.25, "f64"), ("2.", 2.0, "f64"),
    ("1e3", 1000.0, "f64"), ("2E+2", 200.0, "f64"), ("inf", math.inf, "f64"), ("-inf", -math.inf, "f64"),
    ("nan", math.nan, "f64"), ("-0.0", -0.0, "f64"),
])
def test_literals(literal, value, dtype):
    (ins, _) = assemble_text(f"PUTL x, {literal}\nEND\n").instrs
    assert isinstance(ins.src, Imm) and ins.src.dtype == dtype
    v = ins.src.value
    if isinstance(value, float) and math.isnan(value):
        assert math.isnan(v)
    else:
        assert v == value and type(v) is type(value) and math.copysign(1, v) == math.copysign(1, value)


@pytest.mark.parametrize("literal", ["9223372036854775808", "-9223372036854775809", "0x8000000000000000"])
def test_integer_literals_must_fit_in_i64(literal):
    d = only_error(f"PUTL x, {literal}\nEND\n")
    assert d.message.endswith("does not fit in i64")


def test_leading_zero_decimal_is_a_diagnostic_not_a_crash():
    # regression: '010' used to raise ValueError from int('010', 0) (an internal error)
    d = only_error(".output x i64\nPUTL x, 010\nEND\n")
    assert (d.loc.line, d.loc.col, d.message) == (2, 9, "integer literal '010' has a leading zero")
    assert d.hint == "write 10 (INCA-A has no octal literals)"
    assert only_error(".var T i64[08]\nEND\n").message == "integer literal '08' has a leading zero"


def test_deeply_nested_expression_is_a_diagnostic_not_a_crash():
    # regression: 3000 unary minus signs overflowed the Python stack (RecursionError)
    d = only_error("PUTL x, " + "-" * 3000 + "1\nEND\n")
    assert d.message == "expression is nested too deeply" and d.loc.line == 1
    assert assemble_text("PUTL x, " + "-" * 40 + "1\nEND\n").instrs[0].src.value == 1


def test_constant_expressions_and_params():
    p = assemble_text(".param N = 6\n.var T i64[N*2]\nPUTL x, (N+1)*2 - 7/2 % 5\nPUTL T[N-1], -N\nEND\n")
    assert p.decl("T").shape == (12,)
    assert p.instrs[0].src == Imm(11, "i64")  # 14 - (3 % 5)
    assert p.instrs[1].dest == Ref("T", (Affine(5),)) and p.instrs[1].src == Imm(-6, "i64")
    q = assemble_text(".param N = 6\n.var T i64[N*2]\nEND\n", defines={"N": 2})
    assert q.decl("T").shape == (4,)


def test_param_misuse_is_reported():
    # regressions: an unknown -D, a redefined .param and a .param shadowing a location were silent
    with pytest.raises(DiagnosticError) as e:
        assemble_text(".param N = 6\nEND\n", defines={"n": 9})
    assert e.value.diagnostics[0].message == "-D n: this program has no .param 'n'"
    assert e.value.diagnostics[0].hint == "did you mean 'N'?"
    assert only_error(".param N = 1\n.param N = 2\nEND\n").message == "'N' is already a .param"
    assert only_error(".var N i64\n.param N = 2\nEND\n").message == "'N' is already a location"
    assert only_error(".var inf f64\nEND\n").message == "'inf' is a float literal and cannot name a location"
    assert only_error("nan: END\n").message == "'nan' is a float literal and cannot be a label"


def test_output_stored_in_an_input_buffer():
    p = assemble_text(".input A f64[2]\n.output H f64[2] @ A\nMUL A[0:2], A[0:2], 3.0\nEND\n")
    assert p.decl("H").alias == "A"
    assert assemble_text(print_program(p)) == p
    assert only_error(".input A f64[2]\n.output H f64[3] @ A\nEND\n").message == \
        "element count: 'A' (f64[2]) has 2 elements but this location has 3"
    assert only_error(".output H f64[2] @ A\nEND\n").message == "'A' is not declared before this line"


def test_two_operand_shorthand_equals_canonical_form():
    short = assemble_text(".output x f64\n.input A f64[3]\nADD x, A[2]\nMUL x, 0.5\nLT x, x\nEND\n")
    canon = assemble_text(".output x f64\n.input A f64[3]\n"
                          "ADD x, x, A[2]\nMUL x, x, 0.5\nLT x, x, x\nEND\n")
    assert short == canon
    assert short.instrs[0] == Instr("ADD", Ref("x"), Ref("A", (Affine(2),)))


def test_operands_and_indices_are_built_exactly():
    p = assemble_text(".var M f64[4][8]\n.var V f64[16]\nPUTL M[2*k+1][j-1:j+3], V[0:16:4]\n"
                      "PUTL V[i:i+4], M[1][0:8:2]\nEND\n")
    a, b, _ = p.instrs
    j = (("j", 1),)
    assert a.dest == Ref("M", (Affine(1, (("k", 2),)), Slice(Affine(-1, j), Affine(3, j))))
    assert a.src == Ref("V", (Slice(Affine(0), Affine(16), 4),))
    assert b.dest == Ref("V", (Slice(Affine(0, (("i", 1),)), Affine(4, (("i", 1),))),))
    assert b.src == Ref("M", (Affine(1), Slice(Affine(0), Affine(8), 2)))
    assert str(a.dest) == "M[2*k+1][j-1:j+3]" and str(b.src) == "M[1][0:8:2]"


def test_whole_dimension_slices():
    p = assemble_text(".var V f64[6]\n.var W f64[3]\nPUTL W[:], V[::2]\nEND\n")
    assert p.instrs[0].dest == Ref("W", (Slice(Affine(0), Affine(3), 1),))
    assert p.instrs[0].src == Ref("V", (Slice(Affine(0), Affine(6), 2),))


# ---- implicit scalars -------------------------------------------------------------------------

def _types(p) -> dict[str, str]:
    return {d.name: d.dtype for d in p.decls if d.implicit}


def test_implicit_scalar_inference():
    p = assemble_text("""\
.input A f64[4]
.output out f64
PUTL i, 0          ; i64 source only
PUTL a, A[i]       ; f64 source
PUTL b, 1
ADD b, b, a        ; one f64 write makes b f64
PUTL c, b          ; ... and c, through b
PUTL n, 3
LT n, n, 2         ; i64 only
PUTL g, 1
GT g, g, 0.5       ; a comparison storing an f64 source
PUTL out, c
END
""")
    assert _types(p) == {"i": "i64", "a": "f64", "b": "f64", "c": "f64", "n": "i64", "g": "f64"}
    d = p.decl("b")
    assert d == Decl("b", "var", "f64", (), 0.0, implicit=True)
    assert [d.name for d in p.decls] == ["A", "out", "i", "a", "b", "c", "n", "g"]


def test_implicit_types_reach_names_written_earlier_through_chains_of_copies():
    # the f64 source comes last, so the type travels back along c <- b <- a (the inference
    # propagates it rather than taking one pass per link)
    p = assemble_text("""\
.output out f64
PUTL c, b
PUTL d, c
PUTL b, a
PUTL a, 2.5
PUTL out, d
END
""")
    assert _types(p) == {"c": "f64", "d": "f64", "b": "f64", "a": "f64"}


def test_implicit_scalars_used_only_as_indices_are_i64():
    p = assemble_text(".input A f64[4]\n.output x f64\nPUTL x, A[k]\nEND\n")
    assert _types(p) == {"k": "i64"}


def test_bitwise_write_does_not_make_a_scalar_f64():
    d = only_error("PUTL m, 3\nAND m, m, 1.5\nEND\n")
    assert d.message == "AND is defined on i64 only, but '1.5' is f64"


def test_f64_index_is_rejected():
    d = only_error(".input A f64[4]\n.output x f64\nPUTL k, 1.5\nPUTL x, A[k]\nEND\n")
    assert d.message == "index 'k' is f64; indices must be i64"


# ---- errors (unit level; the CLI rendering is in tests/errors/) -------------------------------

@pytest.mark.parametrize("text,message", [
    ("PUTL x\nEND\n", "PUTL takes 2 operands, not 1"),
    ("ADD x, x, x, 1\nEND\n", "ADD takes 3 operands, not 4"),
    ("END x\nEND\n", "END takes 0 operands, not 1"),
    ("PUTL 3, x\nEND\n", "the first operand of PUTL must be a location, not the literal 3"),
    ("BLEZ 0, 1\nEND\n", "the first operand of BLEZ must be a location, not the literal 0"),
    ("PUTX x, 1\nEND\n", "unknown mnemonic 'PUTX'"),
    (".var x\nEND\n", "'.var x' needs a type, e.g. f64 or i64[16]"),
    (".var x f32\nEND\n", "unknown element type 'f32'"),
    (".vars x f64\nEND\n", "unknown directive '.vars'"),
    (".output x f64 = 1\nEND\n", "an .output takes no initial value (the kernel computes it)"),
    (".var x i64 = 1.5\nEND\n", "an i64 cannot be initialised with a float"),
    (".var T f64[0]\nEND\n", "array dimension must be positive, not 0"),
    (".var T f64[N]\nEND\n", "an array dimension must be an integer constant ('N' is not a .param)"),
    ("PUTL x, A[0]\nEND\n", "'A' is not declared"),
    (".var A f64[4]\nPUTL x, A\nEND\n", "'A' has 1 dimension (f64[4]) but 0 indices were given"),
    (".var A f64[4][2]\nPUTL x, A[1]\nEND\n", "'A' has 2 dimensions (f64[4][2]) but 1 index was given"),
    ("PUTL y, 1\nPUTL x, y[0]\nEND\n", "'y' is a scalar and cannot be indexed"),
    (".var A f64[4]\nPUTL x, A[i*j]\nEND\n",
     "'i*j' is not affine: an index may multiply a name by a constant only"),
    (".var A f64[4]\nPUTL x, A[i:j]\nEND\n",
     "slice 'i:j' of 'A' has a length that depends on run-time values"),
    (".var A f64[4]\nPUTL A[0:4:0], 1\nEND\n", "slice step 0 must be positive"),
    (".var A f64[4]\nPUTL A[2:2], 1\nEND\n", "slice '2:2' of 'A' is empty"),
    ("PUTL y, B[0]\nEND\n", "'B' is not declared"),  # regression: this used to raise KeyError
    ("PUTL x, A[1 2]\nEND\n", "unexpected integer '2'; expected ']' or ':'"),
    ("PUTL x, (1 2)\nEND\n", "unexpected integer '2'; expected ')'"),
    (".var A f64[4]\nPUTL A[-1], 1\nEND\n", "index -1 is out of bounds for 'A' (dimension of size 4)"),
    ("PUTL x, i+1\nEND\n", "operand 'i+1' computes a value; operands are literals, names or elements"),
    ("1 JMP 3\n2 END\n", "JMP target 3 is not an instruction of this program"),
    ("JMP nowhere\nEND\n", "no label 'nowhere' in this program"),
    ("a: PUTL x, 1\na: END\n", "label 'a' is defined twice"),
    ("PUTL x, 1\nEND\ntail:\n", "label 'tail' does not mark an instruction"),
    ("1 PUTL x, 1\n3 END\n", "expected instruction number 2, found 3"),
    ("1 PUTL x, 1\nEND\n", "expected instruction number 2, the line has none"),
    ("1 PUTL x, 1\nl: END\n", "this program numbers its lines, so it cannot also use labels"),
    ("l: PUTL x, 1\n2 END\n", "this program uses labels, so its lines cannot be numbered"),
    ("1 .var x f64\n1 END\n", "only instructions are numbered"),
    (".var x f64\n.var x i64\nEND\n", "'x' is declared twice"),
    (".param N = 1\n.var N f64\nEND\n", "'N' is already a .param"),
    ("PUTL x, 1.5 + 1\nEND\n", "float literals cannot take part in arithmetic here"),
    (".var T f64[4/0]\nEND\n", "division by zero in a param expression"),
    ("PUTL x, $\nEND\n", "unexpected character '$'"),
    ("PUTL x, 1 2\nEND\n", "unexpected integer '2'; expected ',' or the end of the line"),
])
def test_error_messages(text, message):
    d = only_error(text)
    assert d.message == message


def test_every_bad_line_is_reported_in_order():
    text = ".output x i64\nPUTX x, 1\nADD x, y, 1\nPUTL 5, x\nJMP nowhere\nEND\n"
    got = errors(text)
    assert [line for line, _, _ in got] == [2, 3, 4, 5]
    for (_, _, msg), start in zip(got, ("unknown mnemonic 'PUTX'", "ADD is two-address",
                                        "the first operand of PUTL", "no label 'nowhere'")):
        assert msg.startswith(start)


def test_hints():
    assert only_error("PUTX x, 1\nEND\n").hint == "did you mean 'PUTL'?"
    assert only_error("JMP lop\nloop: END\nfinish: END\n").hint == "did you mean 'loop'?"
    assert only_error(".var x f32\nEND\n").hint == "element types are i64 and f64"
    assert only_error(".inputs x f64\nEND\n").hint == "did you mean '.input'?"
    assert only_error("ADD x, y, 1\nEND\n").hint == "copy first: PUTL x, y then ADD x, x, ..."
    d = only_error("1 JMP 9\n2 END\n")
    assert (d.hint, d.loc.line) == ("targets run from 1 to 2", 1)


# ---- printer round trip -----------------------------------------------------------------------

def _round_trip(p):
    text = print_program(p)
    q = assemble_text(text, "printed.incaa")
    assert q == p, text
    assert print_program(q) == text  # a fixed point
    return text


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_printer_round_trip_on_examples(path):
    p = assemble_text(path.read_text(encoding="utf-8"), str(path))
    _round_trip(p)
    _round_trip(assemble_text(print_program(p, locations=True)))


def test_examples_exist():
    assert any(p.name == "dot-product-slide23.incaa" for p in EXAMPLES)


def test_printer_output_of_the_slide23_listing():
    p = assemble_text(NUMBERED)
    assert print_program(p) == """\
.input A f64[4]
.output s f64

1 PUTL i, 0
2 PUTL c, i
3 SUB c, c, 3
4 BLEZ c, 6
5 JMP 9
6 ADD s, s, A[i]
7 ADD i, i, 1
8 JMP 2
9 END
"""


def test_printer_round_trip_labels_vectors_and_literals():
    text = """\
.input M f64[4][8]
.inout V i64[16]
.var w f64 = -2.5
.var big i64 = -9223372036854775808
.var T f64[2][8] = 1e-300
start:
        PUTL T[0:2][0:8], M[1:3][0:8]
        ADD T[0:2][0:8:2], T[0:2][0:8:2], M[0][0:8:2]
        PUTL V[2*k+1], -0x10
        SUB V[k:k+4], V[k:k+4], V[0:1]
        MUL w, w, nan
        MAX w, w, -inf
        PUTL x, M[3-k][-k+7]
        BLEZ x, done
        JMP start
done:   END
"""
    p = assemble_text(text)
    printed = _round_trip(p)
    assert "ADD T[0:2][0:8:2], T[0:2][0:8:2], M[0][0:8:2]" in printed
    assert "PUTL x, M[-k+3][-k+7]" in printed
    assert ".var w f64 = -2.5" in printed and "MUL w, w, nan" in printed


def test_printer_keeps_every_label_of_an_instruction():
    # regression: two labels on one instruction printed as one, so the round trip lost a label
    p = assemble_text("a:\nb: PUTL x, 1\nJMP a\nc: d: END\n" .replace("c: d: END", "c:\nd: END"))
    assert p.labels == (("a", 1), ("b", 1), ("c", 3), ("d", 3))
    text = _round_trip(p)
    assert text.splitlines() == ["a:", "b:", "    PUTL x, 1", "    JMP a", "c:", "d:", "    END"]


def test_programs_with_nan_compare_equal():
    # regression: every 'nan' literal was a distinct float object, so equal programs compared unequal
    assert assemble_text("PUTL x, nan\nEND\n") == assemble_text("PUTL x, -nan\nEND\n")
    assert assemble_text(".var y f64 = nan\nEND\n") == assemble_text(".var y f64 = nan\nEND\n")
    assert Imm(float("nan"), "f64") == Imm(float("nan"), "f64")
    assert assemble_text("PUTL x, nan\nEND\n") != assemble_text("PUTL x, inf\nEND\n")


def test_printer_annotates_locations():
    p = assemble_text(NUMBERED, "dot.incaa")
    lines = print_program(p, locations=True).splitlines()
    assert lines[3].startswith("1 PUTL i, 0") and lines[3].endswith("; dot.incaa:3")


@pytest.mark.parametrize("text,line", [
    ("1 PUTL x,\n2 END\n", 1),  # numbered: the bad line keeps instruction number 1
    ("1 PUTL x, $3\n2 JMP 1\n3 END\n", 1),
    ("loop: ADD x, x, 1 2\nJMP loop\nEND\n", 1),  # labelled: the bad line keeps its label
    ("PUTL x,\n1 END\n", 1),  # an unnumbered bad line in a numbered program takes no number
    (".var T f64[\n1 PUTL T[0], 1\n2 END\n", 1),
])
def test_a_syntax_error_causes_no_follow_on_errors(text, line):
    # regression: a line that did not parse was dropped, so every later instruction number was
    # "expected k, found k+1" and labels on it were "not found"
    d = only_error(text)
    assert d.loc.line == line and d.message.startswith("unexpected")


def test_syntax_errors_on_several_lines_are_all_reported():
    got = errors("1 PUTL x,\n2 PUTL y, 1 2\n3 PUTX z, 1\n4 END\n")
    assert [(line, msg.split(";")[0]) for line, _, msg in got] == [
        (1, "unexpected end of line"), (2, "unexpected integer '2'"), (3, "unknown mnemonic 'PUTX'")]


@pytest.mark.parametrize("text,message", [
    (".var T f64[\n1 PUTL T[0], 1\n2 ADD T[1], T[0]\n3 END\n", "unexpected end of line"),
    (".var T f64[0]\n1 PUTL T[0], 1\n2 END\n", "array dimension must be positive, not 0"),
    (".var k i64 = y\n.var T f64[4]\n1 PUTL T[k], 1\n2 END\n", "an initial value must be a literal"),
])
def test_a_bad_declaration_is_reported_once(text, message):
    # regression: every use of a name whose declaration failed was also "not declared"
    d = only_error(text)
    assert d.loc.line == 1 and d.message.startswith(message)
