"""INCA-Q at -O0: the exact code of INCA-Q.md's lowering rules, source locations, runtime faults.

The slide-23 program must become the ten-instruction listing of INCA-A.md (read from the spec at
test time); every other rule is pinned by a small program and its exact INCA-A. The regression
tests at the end are for compiler bugs found while writing these tests and the fuzz tests.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from inca.compiler import driver
from inca.compiler.assembler import assemble_text
from inca.compiler.frontend import load_tuples
from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.printer import print_program
from inca.interpreter import cli
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import DiagnosticError, Source
from inca.lang.tuples import encode, to_json

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT.parent / "shared" / "spec"
SLIDE23_ASM = ROOT / "examples" / "asm" / "dot-product-slide23.incaa"
DECLS = "input A: f64[50]\ninput B: f64[50]\noutput c: f64\n"


def code_blocks(path: Path) -> list[str]:
    return re.findall(r"```\n(.*?)```", path.read_text(encoding="utf-8"), re.S)


def slide23_incaq() -> str:
    """The kernel at the top of INCA-Q.md (the spec's copy when it is there)."""
    if (SPEC / "INCA-Q.md").is_file():
        return code_blocks(SPEC / "INCA-Q.md")[0]
    return "i = 0\nwhile i < 50 do {\n    c = c + (A[i] * B[i])\n    i = i + 1\n}\n"


def slide23_listing() -> list[str]:
    """The numbered lines of INCA-A.md's reference listing (or of the example that copies it)."""
    if (SPEC / "INCA-A.md").is_file():
        text = next(b for b in code_blocks(SPEC / "INCA-A.md") if b.startswith("1 PUTL"))
    else:
        text = SLIDE23_ASM.read_text(encoding="utf-8")
    return [line.strip() for line in text.splitlines() if re.match(r"\s*\d+ ", line)]


def compile_q(text: str, name: str = "k.incaq", **kw):
    return compile_source(Source(name, text), **kw)


def listing(prog) -> list[str]:
    """``k TEXT`` for every instruction, the paper's numbered style."""
    return [f"{k} {ins.text()}" for k, ins in enumerate(prog.instrs, 1)]


def run(prog, inputs=None):
    return execute(encode(prog), load_profile("scratchpad"), inputs or {})


# ---- slide 23 --------------------------------------------------------------------------------------


def test_slide23_program_compiles_to_the_reference_listing():
    want = slide23_listing()
    assert len(want) == 10
    prog = compile_q(DECLS + slide23_incaq())
    got = listing(prog)
    for k, (g, w) in enumerate(zip(got, want), 1):
        assert g.split() == w.split(), f"instruction {k}: {g!r} != {w!r}"
    assert len(got) == len(want)
    # the same program as the hand-written INCA-A example, declarations included
    assert prog == assemble_text(SLIDE23_ASM.read_text(encoding="utf-8"), "s.incaa")


def test_slide23_executes_8n_plus_4_and_computes_the_dot_product():
    prog = compile_q(DECLS + slide23_incaq())
    a, b = [float(k % 7) for k in range(50)], [0.5 * k for k in range(50)]
    r = run(prog, {"A": a, "B": b})
    assert r.instructions == 8 * 50 + 4
    assert r.outputs["c"] == sum(x * y for x, y in zip(a, b))


# ---- one program per rule --------------------------------------------------------------------------

RULES = {
    "x = s: literal, element, scalar": (
        "input A: f64[4]\noutput x: f64\nx = 2.5\nx = A[1]\ny = 3\nx = y\n",
        ["PUTL x, 2.5", "PUTL x, A[1]", "PUTL y, 3", "PUTL x, y", "END"]),
    "x = x OP s, simple e": (
        "input A: f64[4]\noutput x: f64\nx = x + A[2]\nx = x * 3\nx = min(x, A[0])\n",
        ["ADD x, x, A[2]", "MUL x, x, 3", "MIN x, x, A[0]", "END"]),
    "x = x OP e, complex e into r1": (
        "input A: f64[4]\ninput B: f64[4]\noutput x: f64\nx = x - A[0] * B[1]\n",
        ["PUTL r1, A[0]", "MUL r1, r1, B[1]", "SUB x, x, r1", "END"]),
    "x = e via r1": (
        "input A: f64[4]\ninput B: f64[4]\noutput x: f64\nx = A[0] * B[1]\n",
        ["PUTL r1, A[0]", "MUL r1, r1, B[1]", "PUTL x, r1", "END"]),
    "nested a OP b with r1, r2": (
        "output x: i64\na = 1\nb = 2\nc = 3\nd = 4\nx = (a + b) * (c - d)\n",
        ["PUTL a, 1", "PUTL b, 2", "PUTL c, 3", "PUTL d, 4", "PUTL r1, a", "ADD r1, r1, b",
         "PUTL r2, c", "SUB r2, r2, d", "MUL r1, r1, r2", "PUTL x, r1", "END"]),
    "while": (
        "output s: i64\ni = 0\nwhile i < 10 do {\n    s = s + i\n    i = i + 1\n}\n",
        ["PUTL i, 0", "PUTL r0, i", "LT r0, r0, 10", "BLEZ r0, 8", "ADD s, s, i", "ADD i, i, 1",
         "JMP 2", "END"]),
    "if/else": (
        "output y: i64\nx = 5\nif x > 3 then {\n    y = 1\n} else {\n    y = 2\n}\n",
        ["PUTL x, 5", "PUTL r0, x", "GT r0, r0, 3", "BLEZ r0, 7", "PUTL y, 1", "JMP 8",
         "PUTL y, 2", "END"]),
    "if without else": (
        "output y: i64\nx = 5\nif x != 3 then {\n    y = 1\n}\n",
        ["PUTL x, 5", "PUTL r0, x", "NE r0, r0, 3", "BLEZ r0, 6", "PUTL y, 1", "END"]),
    "else if": (
        "output y: i64\nx = 5\nif x > 3 then {\n    y = 1\n} else if x > 1 then {\n    y = 2\n}"
        " else {\n    y = 3\n}\n",
        ["PUTL x, 5", "PUTL r0, x", "GT r0, r0, 3", "BLEZ r0, 7", "PUTL y, 1", "JMP 13",
         "PUTL r0, x", "GT r0, r0, 1", "BLEZ r0, 12", "PUTL y, 2", "JMP 13", "PUTL y, 3", "END"]),
    "for": (
        "input A: f64[8]\noutput s: f64\nfor i in 0 .. 8 do {\n    s = s + A[i]\n}\n",
        ["PUTL i, 0", "PUTL r0, i", "LT r0, r0, 8", "BLEZ r0, 8", "ADD s, s, A[i]", "ADD i, i, 1",
         "JMP 2", "END"]),
    "and: both tests jump to the exit": (
        "output y: i64\na = 1\nb = 2\nif a < b and b < 3 then {\n    y = 1\n}\n",
        ["PUTL a, 1", "PUTL b, 2", "PUTL r0, a", "LT r0, r0, b", "BLEZ r0, 10", "PUTL r0, b",
         "LT r0, r0, 3", "BLEZ r0, 10", "PUTL y, 1", "END"]),
    "or: a true left side skips the right": (
        "output y: i64\na = 1\nb = 2\nif a > b or b < 3 then {\n    y = 1\n}\n",
        ["PUTL a, 1", "PUTL b, 2", "PUTL r0, a", "LE r0, r0, b", "BLEZ r0, 9", "PUTL r0, b",
         "LT r0, r0, 3", "BLEZ r0, 10", "PUTL y, 1", "END"]),
    "not: the negated relation (i64)": (
        "output y: i64\na = 1\nif not a > 2 then {\n    y = 1\n}\n",
        ["PUTL a, 1", "PUTL r0, a", "LE r0, r0, 2", "BLEZ r0, 6", "PUTL y, 1", "END"]),
    "not: f64 tests (a REL b) == 0, right for NaN": (
        "input A: f64[2]\noutput y: i64\nif not A[0] < A[1] then {\n    y = 1\n}\n",
        ["PUTL r0, A[0]", "LT r0, r0, A[1]", "EQ r0, r0, 0.0", "BLEZ r0, 6", "PUTL y, 1", "END"]),
    "non-affine index H[V[i]] into a temporary": (
        "input V: i64[8]\noutput H: i64[4]\nfor i in 0 .. 8 do {\n    H[V[i]] = H[V[i]] + 1\n}\n",
        ["PUTL i, 0", "PUTL r0, i", "LT r0, r0, 8", "BLEZ r0, 9", "PUTL r1, V[i]",
         "ADD H[r1], H[r1], 1", "ADD i, i, 1", "JMP 2", "END"]),
    "affine index kept, 1-D and 2-D": (
        "input A: f64[9]\ninput M: f64[3][3]\noutput B: f64[4]\ni = 1\nB[i] = A[2*i+1]\n"
        "B[0] = M[i-1][2*i]\n",
        ["PUTL i, 1", "PUTL B[i], A[2*i+1]", "PUTL B[0], M[i-1][2*i]", "END"]),
    "typed temporaries: i64 k / 2 inside an f64 sum": (
        "input A: f64[4]\noutput x: f64\nk = 7\nx = A[0] + k / 2\n",
        ["PUTL k, 7", "PUTL r1, A[0]", "PUTL r2, k", "DIV r2, r2, 2", "ADD r1, r1, r2",
         "PUTL x, r1", "END"]),
    "comparison in the promoted type": (
        "output y: i64\nk = 3\nif k < 3.5 then {\n    y = 1\n}\n",
        ["PUTL k, 3", "PUTL r0, k", "LT r0, r0, 3.5", "BLEZ r0, 6", "PUTL y, 1", "END"]),
    "inlining: renamed locals, early return": (
        "output y: i64\nfunc clamp(v: i64, hi: i64) -> i64 {\n    if v > hi then {\n"
        "        return hi\n    }\n    t = v * 2\n    return t\n}\nt = 5\ny = clamp(t, 3)\n",
        ["PUTL t, 5", "PUTL clamp1_v, t", "PUTL clamp1_hi, 3", "PUTL r0, clamp1_v",
         "GT r0, r0, clamp1_hi", "BLEZ r0, 9", "PUTL clamp1_ret, clamp1_hi", "JMP 13",
         "PUTL r1, clamp1_v", "MUL r1, r1, 2", "PUTL clamp1_t, r1", "PUTL clamp1_ret, clamp1_t",
         "PUTL y, clamp1_ret", "END"]),
    "params are immediates": (
        "param N = 4\nparam M = N * 2 + 1\noutput y: i64\ny = y + M\ny = N\n",
        ["ADD y, y, 9", "PUTL y, 4", "END"]),
}


@pytest.mark.parametrize("name", RULES)
def test_rule(name):
    text, want = RULES[name]
    prog = compile_q(text)
    assert listing(prog) == [f"{k} {w}" for k, w in enumerate(want, 1)]
    assert assemble_text(print_program(prog), "k.incaa") == prog


def test_typed_temporaries_compute_in_their_own_type():
    prog = compile_q(RULES["typed temporaries: i64 k / 2 inside an f64 sum"][0])
    types = {d.name: d.dtype for d in prog.decls}
    assert (types["r1"], types["r2"]) == ("f64", "i64")
    assert run(prog, {"A": [0.25, 0, 0, 0]}).outputs["x"] == 0.25 + 7 // 2


def test_an_f64_temporary_after_an_i64_one_gets_its_own_name():
    prog = compile_q("output x: f64\nk = 1\nk = (k + 2) * 3\nx = (x + 0.5) * 2.0\n")
    assert listing(prog)[1:4] == ["2 PUTL r1, k", "3 ADD r1, r1, 2", "4 MUL r1, r1, 3"]
    assert listing(prog)[5:8] == ["6 PUTL r1_f64, x", "7 ADD r1_f64, r1_f64, 0.5",
                                  "8 MUL r1_f64, r1_f64, 2.0"]
    assert run(prog).outputs["x"] == 1.0


def test_comparison_is_not_done_in_i64():
    prog = compile_q(RULES["comparison in the promoted type"][0])
    assert prog.decl("r0").dtype == "f64"
    assert run(prog).outputs["y"] == 1  # 3 < 3.5 (in i64, 3 < 3 would be false)


def test_early_return_skips_the_rest_of_the_body():
    prog = compile_q(RULES["inlining: renamed locals, early return"][0])
    assert run(prog).outputs["y"] == 3
    prog = compile_q(RULES["inlining: renamed locals, early return"][0].replace("t = 5", "t = 1"))
    assert run(prog).outputs["y"] == 2


# ---- source locations ------------------------------------------------------------------------------


def test_asm_carries_the_incaq_line_as_a_comment(tmp_path, capsys):
    src = tmp_path / "dot.incaq"
    src.write_text(DECLS + slide23_incaq(), encoding="utf-8")
    assert driver.main([str(src), "-S", "-o", "-"]) == 0
    body = [line for line in capsys.readouterr().out.splitlines() if re.match(r"\s*\d+ ", line)]
    first = DECLS.count("\n") + 1  # the INCA-Q line of `i = 0`
    lines = [first, first + 1, first + 1, first + 1, first + 2, first + 2, first + 2, first + 3,
             first + 1]
    for text, line in zip(body, lines):
        assert text.endswith(f"; {src}:{line}"), text
    assert body[-1].split() == ["10", "END"]


def test_tuple_json_carries_the_incaq_location(tmp_path):
    src = tmp_path / "dot.incaq"
    src.write_text(DECLS + slide23_incaq(), encoding="utf-8")
    doc = json.loads(to_json(load_tuples(str(src))))
    locs = [t[3] for t in doc["tuples"]]
    assert doc["files"] == [str(src)] and locs[0] == "0:4:1-6"  # `i = 0`
    assert [loc.split(":")[1] for loc in locs[4:7]] == ["6", "6", "6"]  # c = c + (A[i] * B[i])
    assert locs[-1] is None  # END comes from no line


@pytest.mark.parametrize("body,line,message", [
    ("i = 0\nwhile i < 5 do {\n    c = c + A[i]\n    i = i + 1\n}\n", 5,
     "index 4 is out of bounds for 'A' (dimension 0 has size 4)"),
    ("d = 0\nk = 10\nk = k / d\n", 5, "i64 division by zero"),
])
def test_runtime_fault_points_at_the_incaq_line(tmp_path, capsys, body, line, message):
    src = tmp_path / "bad.incaq"
    src.write_text("input A: f64[4]\noutput c: f64\n" + body, encoding="utf-8")
    code = cli.main(["run", str(src)])
    err = capsys.readouterr().err.splitlines()
    assert code == 3
    assert err[0].startswith(f"{src}:{line}:") and f"runtime error: {message}" in err[0]
    quoted = src.read_text(encoding="utf-8").splitlines()[line - 1]
    assert err[1] == "    " + quoted
    col = int(err[0].split(":")[2])
    assert err[2].startswith("    " + " " * (col - 1) + "^")


# ---- regressions -----------------------------------------------------------------------------------


def test_inlined_results_have_names_that_reassemble():
    # regression: a function's result was named "f1_return value" (with a space)
    prog = compile_q("output y: f64\nfunc sq(x: f64) -> f64 { return x * x }\ny = sq(sq(2.0))\n")
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", d.name) for d in prog.decls)
    assert assemble_text(print_program(prog), "k.incaa") == prog
    assert run(prog).outputs["y"] == 16.0


def test_kernel_names_are_never_renamed_for_function_locals():
    # regression: the output f1_b became f1_b_ because the inlined local b of f took its name
    prog = compile_q("func f(a: i64) { b = a }\nf(1)\noutput f1_b: i64\nf1_b = 7\n")
    assert run(prog).outputs == {"f1_b": 7}


def test_temporaries_are_declared_when_the_assembler_would_infer_another_type():
    # regression: r1_i64 (an i64 temporary) was left undeclared, but its source f01_ret is f64
    # once the f64 temporary it copies is declared, so the printed program re-assembled with an
    # f64 r1_i64 (and then failed as an index)
    prog = compile_q("output Y: f64[2]\nfunc f(p: i64) -> f64 { return f64(-p) }\n"
                     "k = i64(f(3))\nY[k + 4] = 1.0\nx = 2.5\nY[i64(x)] = 2.0\n")
    assert prog.decl("r1_i64").dtype == "i64"
    assert assemble_text(print_program(prog), "k.incaa") == prog


def test_open_extent_passed_on_to_a_fixed_extent_parameter():
    # regression: checking g on its own compared f's extent 4 with X's open extent
    prog = compile_q("param N = 4\nfunc f(Y: i64[N]) -> i64 { return Y[N - 1] }\n"
                     "func g(X: i64[]) -> i64 { return f(X) }\ninput A: i64[N]\noutput y: i64\n"
                     "y = g(A)\n")
    assert run(prog, {"A": [1, 2, 3, 4]}).outputs["y"] == 4


def test_negating_the_smallest_i64_literal_wraps():
    # regression: -(-9223372036854775808) was folded into the literal 9223372036854775808
    prog = compile_q("output y: i64\ny = -(-9223372036854775808)\n")
    assert run(prog).outputs["y"] == -(2**63)


@pytest.mark.parametrize("text,message", [
    ("output y: i64\ny = 9223372036854775808\n", "the integer 9223372036854775808 does not fit in i64"),
    ("var z: i64 = -9223372036854775809\n", "the integer -9223372036854775809 does not fit in i64"),
    ("param P = 9223372036854775807 * 4\n", "the value 36893488147419103228 does not fit in i64"),
    ("param Q = 1 << 100000000000\n", "shift count 100000000000 in a param expression is not"),
    ("func f(a: i64, a: i64) -> i64 { return a }\n", "function 'f' has two parameters named 'a'"),
])
def test_out_of_range_values_and_duplicate_parameters_are_errors(text, message):
    # regressions: such literals were stored as is in i64 locations, a huge shift count in a
    # param ran out of memory (an internal error), and a duplicate parameter was accepted
    with pytest.raises(DiagnosticError) as e:
        compile_q(text)
    assert message in str(e.value)


def test_define_out_of_range():
    with pytest.raises(DiagnosticError) as e:
        compile_q("param P = 1\n", defines={"P": 2**64})
    assert "-D P=18446744073709551616: the value does not fit in i64" in str(e.value)


def test_a_wrong_array_argument_is_one_error_not_two():
    # regression: the body was also checked without the parameter, adding "'X' is not defined"
    with pytest.raises(DiagnosticError) as e:
        compile_q("func f(X: f64[]) -> f64 { return X[0] }\ninput A: f64[3]\noutput y: f64\n"
                  "y = f(A[0])\n")
    assert [d.message for d in e.value.diagnostics] == ["argument 'X' of 'f' must be an array name"]


def test_inlining_too_deep_is_an_error_not_a_crash():
    # regression: functions nesting blocks through calls overflowed Python's stack
    def nest(depth: int, inner: str) -> str:
        for k in range(depth):
            inner = f"if x < {k} then {{\n{inner}\n}}"
        return inner

    text = "output x: i64\n" + "".join(
        f"func f{k}(x: i64) -> i64 {{\n{nest(90, f'x = f{k + 1}(x)' if k < 5 else 'x = 1')}\n"
        "return x\n}\n" for k in range(6)) + "x = f0(1)\n"
    with pytest.raises(DiagnosticError) as e:
        compile_q(text)
    assert "nests blocks more than 100 levels deep once functions are inlined" in str(e.value)


@pytest.mark.parametrize("loop", [
    "for i in 0 .. 2 do {\n    O[i] = A[i] * 2.0\n}",  # elements 2 and 3 are never written
    "for i in 0 .. 4 do {\n    if i != 1 then { O[i] = A[i] * 2.0 }\n}",
    "i = 2\nwhile i < 4 do {\n    O[i] = A[i] * 2.0\n    i = i + 1\n}",
    "func put(X: f64[], Y: f64[], stop: i64) {\n    for i in 0 .. 4 do {\n"
    "        if i == stop then { return }\n        X[i] = Y[i] * 2.0\n    }\n}\nput(O, A, 2)",
])
def test_clobber_keeps_an_output_apart_unless_every_element_is_written(loop):
    # regression: --clobber stored O in A's buffer whenever O[i] = f(A[i]) was its only write, so
    # the elements it never wrote showed A's values instead of 0
    text = f"input A: f64[4]\noutput O: f64[4]\n{loop}\n"
    inputs = {"A": [1.0, 2.0, 3.0, 4.0]}
    plain, clobbered = compile_q(text), compile_q(text, clobber=True)
    assert clobbered.decl("O").alias is None
    assert run(clobbered, dict(inputs)).outputs == run(plain, dict(inputs)).outputs


@pytest.mark.parametrize("index", ["i", "3 - i"])
def test_clobber_stores_a_fully_written_output_in_its_input(index):
    text = (f"input A: f64[4]\noutput O: f64[4]\n"
            f"for i in 0 .. 4 do {{\n    O[{index}] = A[{index}] * 2.0\n}}\n")
    prog = compile_q(text, clobber=True)
    assert prog.decl("O").alias == "A"
    assert run(prog, {"A": [1.0, 2.0, 3.0, 4.0]}).outputs == {"O": [2.0, 4.0, 6.0, 8.0]}


def test_compiling_triggers_no_garbage_collection():
    # regression (speed): the cyclic collector rescanned the growing syntax trees again and again,
    # so compile time grew faster than the program; it is paused while compiling, then restored
    # (which runs one collection of what the compilation left alive)
    import gc

    text = "output s: i64\n" + "".join(f"s = s + {k} * (s - 1)\n" for k in range(3000))
    before = sum(g["collections"] for g in gc.get_stats())
    compile_q(text)
    assert sum(g["collections"] for g in gc.get_stats()) <= before + 1
    assert gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(DiagnosticError):
            compile_q("output s: i64\ns = t\n")
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("line,message", [
    ("y = A[f(1)]", "an index cannot call a function"),
    ("for i in 0 .. f(3) do { y = y + 1 }", "the bound of a for loop cannot call a function"),
])
def test_calls_in_indices_and_for_bounds_are_errors(line, message):
    # regression: both checks looked for the call's statements in the wrong place (a call used as
    # a value carries them inside the expression), so neither ever fired
    text = f"func f(a: i64) -> i64 {{ return a }}\ninput A: i64[3]\noutput y: i64\n{line}\n"
    with pytest.raises(DiagnosticError) as e:
        compile_q(text)
    assert [d.message for d in e.value.diagnostics] == [message]
