"""Issue 11's constructs: diagnostics for their misuse, their lowering (instruction counts, no
JMP where none is needed, short circuits kept only where they can be observed), ``--emit ast``,
and the clobber analysis with loops left early."""
from __future__ import annotations

import pytest

from inca.compiler.frontend import Options, load_program
from inca.compiler.incaq.ast import dump
from inca.compiler.incaq.checker import check
from inca.compiler.incaq.clobber import plan
from inca.compiler.incaq.parser import parse
from inca.lang.diagnostics import DiagnosticError, Source


def diags(tmp_path, text: str) -> list[str]:
    src = tmp_path / "k.incaq"
    src.write_text(text)
    with pytest.raises(DiagnosticError) as e:
        load_program(str(src), Options())
    return [f"{d.loc.line}:{d.loc.col}: {d.message} | {d.hint}" for d in e.value.diagnostics]


def ops(tmp_path, text: str) -> list[str]:
    src = tmp_path / "k.incaq"
    src.write_text(text)
    return [i.op for i in load_program(str(src), Options()).instrs]


# ---- diagnostics ---------------------------------------------------------------------------------


def test_break_and_continue_outside_a_loop(tmp_path):
    out = diags(tmp_path, "x = 1\nbreak\nfunc f() {\n    continue\n}\n"
                "while x < 3 do {\n    f()\n    x = x + 1\n}\n")
    assert out[0].startswith("2:1: 'break' outside a loop | ")
    # a function never leaves its caller's loop, even when called inside one
    assert out[1].startswith("4:5: 'continue' outside a loop of this function | ")


def test_a_loop_without_break_or_return_never_ends(tmp_path):
    assert diags(tmp_path, "x = 0\nloop {\n    x = x + 1\n    while x > 9 do { break }\n}\n") == [
        "2:1: this loop never ends: it has no 'break' and no 'return' | "
        "leave it with break, e.g. if done == 1 then { break }"]


def test_a_truth_value_where_an_f64_is_needed(tmp_path):
    out = diags(tmp_path, "output y: f64\nx = 2\ny = x > 1 and x < 5\ny = 1.5 * (not (x > 1))\n"
                "func g(v: f64) -> f64 { return v }\ny = g(x > 0 or x < -3)\n")
    assert [o.split(" | ")[0] for o in out] == [
        "3:5: a truth value (an i64, 1 or 0) cannot be assigned to the f64 location 'y'",
        "4:12: a truth value (an i64, 1 or 0) cannot be an operand of '*' with an f64",
        "6:7: a truth value (an i64, 1 or 0) cannot be the f64 argument 'v' of 'g'",
    ]
    assert all(o.endswith("convert it explicitly with f64(...)") for o in out)


def test_inout_needs_a_scalar_variable_of_its_type(tmp_path):
    out = diags(tmp_path, "param K = 2\ninput A: i64[2]\noutput z: f64\n"
                "func inc(inout n: i64) { n = n + 1 }\n"
                "inc(3)\ninc(K)\ninc(A)\ninc(z)\ninc(q)\n")
    assert [o.split(" | ")[0] for o in out] == [
        "5:5: argument 'n' of 'inc' is inout, so it must be a scalar variable, and this is a literal",
        "6:5: argument 'n' of 'inc' is inout, so it must be a scalar variable, and this is a param, "
        "a compile-time constant",
        "7:5: argument 'n' of 'inc' is inout, so it must be a scalar variable, and this is an array",
        "8:5: argument 'n' of 'inc' is an inout i64, but 'z' is f64",
        "9:5: 'q' is not defined",
    ]


def test_inout_array_parameter_and_input_scalar(tmp_path):
    out = diags(tmp_path, "input s: i64\nfunc f(inout X: f64[]) { X[0] = 1.0 }\n"
                "func inc(inout n: i64) { n = n + 1 }\ninc(s)\n")
    assert [o.split(" | ")[0] for o in out] == [
        "2:14: 'X' is an array, and arrays are always passed by reference",
        "4:5: 's' is an input, but 'inc' writes its inout parameter 'n'",
    ]


def test_a_non_tail_self_call_is_named(tmp_path):
    out = diags(tmp_path, "func fact(n: i64) -> i64 {\n    if n <= 1 then { return 1 }\n"
                "    return n * fact(n - 1)\n}\noutput r: i64\nr = fact(5)\n")
    assert out == ["3:16: 'fact' calls itself here, and not as a tail call | only a self call in "
                   "tail position (return fact(...)) becomes a loop; other recursion cannot be "
                   "inlined (the NIC has no call stack)"]


def test_mutual_recursion_is_still_an_error_naming_the_cycle(tmp_path):
    out = diags(tmp_path, "func a(n: i64) -> i64 { return b(n) }\nfunc b(n: i64) -> i64 { return a(n) }\n"
                "output r: i64\nr = a(1)\n")
    assert out[0].startswith("1:6: recursion is not supported: a -> b -> a")


def test_a_tail_call_must_pass_its_array_and_inout_parameters_on(tmp_path):
    out = diags(tmp_path, "var B: i64[4]\nvar C: i64[4]\nfunc f(X: i64[], inout n: i64, k: i64) {\n"
                "    if k == 0 then { return }\n    m = n\n    f(C, m, k - 1)\n}\nc = 0\nf(B, c, 3)\n")
    assert [o.split(" | ")[0] for o in out] == [
        "6:7: this tail call must pass 'X' itself: an array parameter is bound once, when 'f' is "
        "first called",
        "6:10: this tail call must pass 'n' itself: an inout parameter is bound once, when 'f' is "
        "first called",
    ]


def test_a_function_named_like_a_builtin_gets_a_name_suggested(tmp_path):
    out = diags(tmp_path, "func abs(x: i64) -> i64 { return x }\nfunc my_max(a: i64) -> i64 { return a }\n"
                "func max(a: i64) -> i64 { return a }\n")
    assert out == ["1:6: 'abs' is a builtin function and cannot be redefined | name yours "
                   "differently, e.g. 'my_abs'",
                   "3:6: 'max' is a builtin function and cannot be redefined | name yours "
                   "differently, e.g. 'max2'"]


# ---- lowering ------------------------------------------------------------------------------------


def test_do_while_costs_no_jmp_and_break_continue_one_each(tmp_path):
    assert ops(tmp_path, "x = 0\ndo {\n    x = x + 1\n} while x < 10\n") == [
        "PUTL", "ADD", "PUTL", "GE", "BLEZ", "END"]
    assert ops(tmp_path, "x = 0\nloop {\n    x = x + 1\n    if x > 5 then { break }\n}\n") == [
        "PUTL", "ADD", "PUTL", "GT", "BLEZ", "JMP", "JMP", "END"]
    text = "s = 0\nfor i in 0 .. 4 do {\n    if i == 2 then { continue }\n    s = s + i\n}\n"
    prog = load_program(_write(tmp_path, text), Options())
    # the continue jumps to the step, and the for loop's own instructions are unchanged
    assert [i.op for i in prog.instrs] == ["PUTL", "PUTL", "PUTL", "LT", "BLEZ", "PUTL", "EQ",
                                           "BLEZ", "JMP", "ADD", "ADD", "JMP", "END"]
    assert prog.instrs[8].target == 11 and prog.instrs[10].op == "ADD"


def _write(tmp_path, text: str) -> str:
    src = tmp_path / "k.incaq"
    src.write_text(text)
    return str(src)


def test_truth_values_are_compares_without_branches(tmp_path):
    assert ops(tmp_path, "a = 1\nb = 2\nok = a < b and b != 0\n")[2:] == [
        "PUTL", "LT", "PUTL", "NE", "AND", "PUTL", "END"]
    assert ops(tmp_path, "a = 1\nok = not (a < 3)\n")[1:] == ["PUTL", "GE", "PUTL", "END"]
    assert ops(tmp_path, "a = 1\nok = a or 0\n")[1:] == ["PUTL", "NE", "PUTL", "NE", "OR", "PUTL", "END"]


def test_a_right_operand_that_may_fault_is_short_circuited(tmp_path):
    # division by zero must not happen when the left side decides
    assert ops(tmp_path, "a = 0\nok = a != 0 and 10 / a > 1\n")[1:] == [
        "PUTL", "NE", "BLEZ", "PUTL", "DIV", "GT", "PUTL", "END"]
    assert ops(tmp_path, "a = 0\nok = a == 0 or 10 % a > 1\n")[1:] == [
        "PUTL", "EQ", "BLEZ", "JMP", "PUTL", "MOD", "GT", "PUTL", "END"]


def test_if_value_evaluates_one_arm(tmp_path):
    assert ops(tmp_path, "a = 3\nb = 4\nm = if a > b then a else b\n")[2:] == [
        "PUTL", "GT", "BLEZ", "PUTL", "JMP", "PUTL", "PUTL", "END"]


def test_gcd_tail_call_is_a_parallel_move_and_a_jump(tmp_path):
    prog = load_program(_write(tmp_path, "func gcd(a: i64, b: i64) -> i64 {\n"
                                         "    if b == 0 then { return a }\n    return gcd(b, a % b)\n}\n"
                                         "output g: i64\ng = gcd(12, 18)\n"), Options())
    assert [i.op for i in prog.instrs] == ["PUTL", "PUTL", "PUTL", "EQ", "BLEZ", "PUTL", "JMP",
                                           "PUTL", "PUTL", "MOD", "PUTL", "PUTL", "JMP", "PUTL", "END"]
    assert prog.instrs[12].target == 3  # back to the test at the top of the inlined body


def test_emit_ast_shows_the_new_constructs():
    text = ("func push(out: i64[], inout n: i64, v: i64) { out[n] = v; n = n + 1 }\n"
            "do { x = 1 } while x < 2\nloop { break }\nwhile 1 < 2 do { continue }\n"
            "y = if x > 1 then x else 0\nz = not (x > 1) or x == 2\n")
    assert dump(parse(Source("k.incaq", text))) == "\n".join([
        "Module",
        "  Func push(out: i64[], inout n: i64, v: i64)",
        "    Assign out[n] = v",
        "    Assign n = (n + 1)",
        "  DoWhile (x < 2)",
        "    Assign x = 1",
        "  Loop",
        "    Break",
        "  While (1 < 2)",
        "    Continue",
        "  Assign y = (if (x > 1) then x else 0)",
        "  Assign z = ((not (x > 1)) or (x == 2))",
    ])


# ---- clobber -------------------------------------------------------------------------------------


def _plan(text: str):
    src = Source("k.incaq", text)
    return plan(check(parse(src), src, clobber=True))


def test_clobber_with_loops_left_early():
    base = "param N = 4\ninput A: f64[N]\ninput B: f64[N]\noutput c: f64\n"
    # a plain for loop reads A[i] once per element: A may be computed in place
    assert _plan(base + "for i in 0 .. N do { c = c + A[i] * B[i] }\n").inplace == {"A", "B"}
    # a while with `continue` skips its step: i may take the same value twice
    assert _plan(base + "i = 0\nwhile i < N do {\n    if c > 9.0 then { continue }\n"
                 "    c = c + A[i] * B[i]\n    i = i + 1\n}\n").inplace == frozenset()
    # do-while and loop are not counted
    assert _plan(base + "i = 0\ndo { c = c + A[i] * B[i]; i = i + 1 } while i < N\n").inplace == frozenset()
    assert _plan(base + "i = 0\nloop { c = c + A[i] * B[i]; i = i + 1; if i == N then { break } }\n"
                 ).inplace == frozenset()


def test_clobber_output_alias_needs_every_element_written():
    base = "param N = 4\ninput A: f64[N]\noutput O: f64[N]\n"
    assert _plan(base + "for i in 0 .. N do { O[i] = A[i] * 2.0 }\n").aliases == (("O", "A"),)
    # a break (or continue) may leave elements of O unwritten: O cannot live in A's buffer
    assert _plan(base + "for i in 0 .. N do {\n    if i == 2 then { break }\n"
                 "    O[i] = A[i] * 2.0\n}\n").aliases == ()
    assert _plan(base + "for i in 0 .. N do {\n    if i == 2 then { continue }\n"
                 "    O[i] = A[i] * 2.0\n}\n").aliases == ()


def test_clobber_inside_a_tail_call_loop():
    text = ("param N = 4\ninput A: f64[N]\noutput s: f64\n"
            "func sum(X: f64[], i: i64, acc: f64) -> f64 {\n    if i == N then { return acc }\n"
            "    return sum(X, i + 1, acc + X[i] * 2.0)\n}\ns = sum(A, 0, 0.0)\n")
    assert _plan(text).inplace == frozenset()  # the loop made of tail calls is not counted


def test_the_while_of_a_do_may_start_the_next_line_but_nothing_else_may():
    two = parse(Source("k.incaq", "x = 0\ndo {\n    x = x + 1\n}\nwhile x < 3\nwhile x < 5 do { x = x + 1 }\n"))
    assert dump(two).splitlines()[2:] == ["  DoWhile (x < 3)", "    Assign x = (x + 1)",
                                          "  While (x < 5)", "    Assign x = (x + 1)"]
    # after the block of a while loop (its `do` is not a statement), a newline still ends it
    with pytest.raises(DiagnosticError) as e:
        parse(Source("k.incaq", "x = 0\ndo {\n    x = x + 1\n}\nx = 2\n"))
    d = e.value.diagnostics[0]
    assert (d.loc.line, d.message) == (4, "expected 'while' and the loop condition after the '}' "
                                          "of a 'do' block")


def test_a_tail_call_whose_parameter_was_never_bound(tmp_path):
    """Found by the long fuzz run: an argument that fails to check leaves its parameter unbound,
    and the tail call that passes it on must not assume it is there (an internal error before)."""
    out = diags(tmp_path, "output r: i64\nfunc f(a: i64, b: i64) -> i64 {\n"
                "    if b == 0 then { return a }\n    return f(b, a % b)\n}\nr = f(q, 2)\n")
    assert any(d.startswith("6:7: 'q' is not defined") for d in out)
