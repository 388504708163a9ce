"""Tests of the INCA-Q parser (compiler/incaq/parser.py) and syntax tree (compiler/incaq/ast.py)."""
from __future__ import annotations

import re
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inca.compiler.incaq import ast
from inca.compiler.incaq.ast import (
    Assign, BoolOp, Binary, Call, CallStmt, Compare, For, Func, FuncParam, If, IfExpr, Index,
    Module, Name, Not, Num, Param, Return, TypeRef, Unary, Use, VarDecl, While, dump, dump_expr,
)
from inca.compiler.incaq.parser import MAX_ERRORS, MAX_NESTING, parse
from inca.lang.diagnostics import DiagnosticError, Loc, Source

SLIDE_23 = """\
input A: f64[50]
input B: f64[50]
output c: f64

i = 0
while i < 50 do {
    c = c + (A[i] * B[i])
    i = i + 1
}
"""

DOT_PRODUCT = """\
# Dot product of two vectors of 8-byte floats.
param PAYLOAD = 128            # bytes per input vector; incac -D PAYLOAD=8192 or --payload 8192
param N = PAYLOAD / 8

input  A: f64[N]
input  B: f64[N]
output c: f64

for i in 0 .. N do {
    c = c + A[i] * B[i]
}
"""

EVERYTHING = """\
# every construct of INCA-Q
use linalg
param P = 64
param N = P / 8
param R = isqrt(N)
param C = if R * R == N then R else 2 * R
param M = max(min(N, 4), 1) % 3 - -1

input  A: f64[N]
output Y: f64[R][C]
inout  X: i64[2 * R]
var    t: f64[N]
var    k: i64 = -7
var    s: f64 = 2.5e-3

func sq(x: f64) -> f64 { return x * x }
func axpy(a: f64, X: f64[], Y: f64[], n: i64) {
    for k in 0 .. n do { Y[k] = Y[k] + a * X[k] }
}
func nothing(M: i64[][]) { return }

k = 0x10; s = sq(1.5)
while k < N and not (s >= 1e3 or k == 3) do {
    if k % 2 != 0 then {
        t[k] = f64(k) * -s
    } else if k > 4 then {
        t[k] = abs(s)
    } else {
        Y[k / C][k % C] = min(t[k], 0.5)
    }
    k = k + 1
}
axpy(2.0, A, t, N)
X[0] = i64(t[0]) << 2 | 1 & 3 ^ 4 >> 1
"""

EVERYTHING_DUMP = """\
Module
  Use linalg
  Param P = 64
  Param N = (P / 8)
  Param R = isqrt(N)
  Param C = (if ((R * R) == N) then R else (2 * R))
  Param M = ((max(min(N, 4), 1) % 3) - -1)
  VarDecl input A: f64[N]
  VarDecl output Y: f64[R][C]
  VarDecl inout X: i64[(2 * R)]
  VarDecl var t: f64[N]
  VarDecl var k: i64 = -7
  VarDecl var s: f64 = 0.0025
  Func sq(x: f64) -> f64
    Return (x * x)
  Func axpy(a: f64, X: f64[], Y: f64[], n: i64)
    For k in 0 .. n
      Assign Y[k] = (Y[k] + (a * X[k]))
  Func nothing(M: i64[][])
    Return
  Assign k = 16
  Assign s = sq(1.5)
  While ((k < N) and (not ((s >= 1000.0) or (k == 3))))
    If ((k % 2) != 0)
      then
        Assign t[k] = (f64(k) * (-s))
      else
        If (k > 4)
          then
            Assign t[k] = abs(s)
          else
            Assign Y[(k / C)][(k % C)] = min(t[k], 0.5)
    Assign k = (k + 1)
  CallStmt axpy(2.0, A, t, N)
  Assign X[0] = ((i64(t[0]) << 2) | ((1 & 3) ^ (4 >> 1)))"""


def p(text: str, name: str = "k.incaq") -> Module:
    """Parse ``text`` (dedented)."""
    return parse(Source(name, textwrap.dedent(text)))


def expr(text: str) -> ast.Expr:
    """The expression of the one assignment ``x = text``."""
    (stmt,) = p(f"x = {text}\n").items
    assert isinstance(stmt, Assign)
    return stmt.value


def errors(text: str) -> str:
    """The rendered diagnostics for a program that must not parse."""
    with pytest.raises(DiagnosticError) as info:
        parse(Source("k.incaq", text))
    return "\n".join(d.render() for d in info.value.diagnostics)


def i(v: int) -> Num:
    return Num(v, False)


def n(name: str) -> Name:
    return Name(name)


# ---- the spec's programs ---------------------------------------------------------------------------


def test_slide_23_program_parses_to_the_expected_tree():
    f64_50 = TypeRef("f64", (i(50),))
    body = (
        Assign(n("c"), Binary("+", n("c"), Binary("*", Index("A", (n("i"),)), Index("B", (n("i"),))))),
        Assign(n("i"), Binary("+", n("i"), i(1))),
    )
    assert p(SLIDE_23) == Module((
        VarDecl("input", "A", f64_50, None),
        VarDecl("input", "B", f64_50, None),
        VarDecl("output", "c", TypeRef("f64", ()), None),
        Assign(n("i"), i(0)),
        While(Compare("<", n("i"), i(50)), body),
    ))


def test_dot_product_kernel_dump():
    assert dump(p(DOT_PRODUCT)) == textwrap.dedent("""\
        Module
          Param PAYLOAD = 128
          Param N = (PAYLOAD / 8)
          VarDecl input A: f64[N]
          VarDecl input B: f64[N]
          VarDecl output c: f64
          For i in 0 .. N
            Assign c = (c + (A[i] * B[i]))""")


def test_dot_product_kernel_tree():
    module = p(DOT_PRODUCT)
    assert module.items[1] == Param("N", Binary("/", n("PAYLOAD"), i(8)))
    assert module.items[-1] == For("i", i(0), n("N"), (
        Assign(n("c"), Binary("+", n("c"), Binary("*", Index("A", (n("i"),)), Index("B", (n("i"),))))),
    ))


def test_every_construct_dump():
    assert dump(p(EVERYTHING)) == EVERYTHING_DUMP


def test_spec_function_examples():
    module = p("""\
        use linalg                      # loads linalg.incaq

        func axpy(a: f64, X: f64[], Y: f64[], n: i64) {
            for k in 0 .. n do { Y[k] = Y[k] + a * X[k] }
        }
        func sq(x: f64) -> f64 { return x * x }
        """)
    use, axpy, sq = module.items
    assert use == Use("linalg")
    assert axpy.params == (
        FuncParam("a", TypeRef("f64", ())),
        FuncParam("X", TypeRef("f64", (None,))),
        FuncParam("Y", TypeRef("f64", (None,))),
        FuncParam("n", TypeRef("i64", ())),
    )
    assert axpy.ret is None
    assert sq == Func("sq", (FuncParam("x", TypeRef("f64", ())),), TypeRef("f64", ()),
                      (Return(Binary("*", n("x"), n("x"))),))


# ---- expressions -----------------------------------------------------------------------------------


@pytest.mark.parametrize("source, grouped", [
    ("a + b * c", "(a + (b * c))"),
    ("a * b + c", "((a * b) + c)"),
    ("a - b - c", "((a - b) - c)"),
    ("a / b % c * d", "(((a / b) % c) * d)"),
    ("-a * b", "((-a) * b)"),
    ("-a[i]", "(-a[i])"),
    ("a - -b", "(a - (-b))"),
    ("-(a + b)", "(-(a + b))"),
    ("a << 1 + b", "(a << (1 + b))"),
    ("a >> b << c", "((a >> b) << c)"),
    ("a & b << c", "(a & (b << c))"),
    ("a ^ b & c", "(a ^ (b & c))"),
    ("a | b ^ c", "(a | (b ^ c))"),
    ("a & b | c ^ d", "((a & b) | (c ^ d))"),
    ("a | b < c", "((a | b) < c)"),
    ("a + 1 <= b * 2", "((a + 1) <= (b * 2))"),
    ("a == b", "(a == b)"),
    ("a != b", "(a != b)"),
    ("a > b", "(a > b)"),
    ("a >= b", "(a >= b)"),
    ("not a < b", "(not (a < b))"),
    ("not not a", "(not (not a))"),
    ("not a and b", "((not a) and b)"),
    ("a or b and c", "(a or (b and c))"),
    ("a and b or c and d", "((a and b) or (c and d))"),
    ("a or b or c", "((a or b) or c)"),
    ("(a + b) * c", "((a + b) * c)"),
    ("((a))", "a"),
    ("if a < b then a else b", "(if (a < b) then a else b)"),
    ("if a then 1 else if b then 2 else 3", "(if a then 1 else (if b then 2 else 3))"),
    ("min(a, b) + max(1, 2)", "(min(a, b) + max(1, 2))"),
    ("abs(x) + isqrt(n)", "(abs(x) + isqrt(n))"),
    ("i64(x) + f64(y)", "(i64(x) + f64(y))"),
    ("f()", "f()"),
    ("A[i + 1][j]", "A[(i + 1)][j]"),
    ("A[B[i]]", "A[B[i]]"),
    ("f(g(x), A[0])", "f(g(x), A[0])"),
])
def test_precedence_and_grouping(source, grouped):
    assert dump_expr(expr(source)) == grouped


@pytest.mark.parametrize("source, value, is_float", [
    ("3", 3, False),
    ("-7", -7, False),
    ("0x10", 16, False),
    ("0XfF", 255, False),
    ("007", 7, False),
    ("2.5", 2.5, True),
    ("1e-3", 0.001, True),
    ("1E3", 1000.0, True),
    ("2.5e+2", 250.0, True),
    ("-2.5", -2.5, True),
    ("- 4", -4, False),
    ("9223372036854775808", 2**63, False),
    ("-9223372036854775808", -2**63, False),
])
def test_number_literals(source, value, is_float):
    num = expr(source)
    assert num == Num(value, is_float)
    assert type(num.value) is (float if is_float else int)


def test_int_and_float_literals_differ():
    assert expr("2") != expr("2.0")


def test_unary_minus_of_a_non_literal_stays_an_operation():
    assert expr("-x") == Unary("-", n("x"))
    assert expr("--3") == Num(3, False)


def test_boolean_nodes():
    assert expr("not a or b and c") == BoolOp(
        "or", Not(n("a")), BoolOp("and", n("b"), n("c")))
    assert expr("if c then 1 else 2") == IfExpr(n("c"), i(1), i(2))
    assert expr("min(a, 2)") == Call("min", (n("a"), i(2)))


# ---- statements and declarations ---------------------------------------------------------------------


def test_declarations():
    module = p("""\
        param N = 4
        param M = N * 2 + 1
        input A: f64[N]
        output B: i64[N][M]
        inout C: f64
        var t: i64
        var u: f64 = -0.5
        var w: i64[3] = 0
        """)
    assert module.items == (
        Param("N", i(4)),
        Param("M", Binary("+", Binary("*", n("N"), i(2)), i(1))),
        VarDecl("input", "A", TypeRef("f64", (n("N"),)), None),
        VarDecl("output", "B", TypeRef("i64", (n("N"), n("M"))), None),
        VarDecl("inout", "C", TypeRef("f64", ()), None),
        VarDecl("var", "t", TypeRef("i64", ()), None),
        VarDecl("var", "u", TypeRef("f64", ()), Num(-0.5, True)),
        VarDecl("var", "w", TypeRef("i64", (i(3),)), i(0)),
    )


def test_assignments_and_calls():
    module = p("""\
        x = 1
        A[i][j + 1] = x
        y = f(a, B)
        g()
        h(1, 2)
        """)
    assert module.items == (
        Assign(n("x"), i(1)),
        Assign(Index("A", (n("i"), Binary("+", n("j"), i(1)))), n("x")),
        Assign(n("y"), Call("f", (n("a"), n("B")))),
        CallStmt(Call("g", ())),
        CallStmt(Call("h", (i(1), i(2)))),
    )


def test_if_else_chains():
    module = p("""\
        if a then { x = 1 }
        if a then { x = 1 } else { x = 2 }
        if a then {
            x = 1
        } else if b then {
            x = 2
        } else if c then {
            x = 3
        } else {
            x = 4
        }
        """)
    one, two, three, four = (Assign(n("x"), i(k)) for k in (1, 2, 3, 4))
    else_if_c = If(n("c"), (three,), (four,))
    else_if_b = If(n("b"), (two,), (else_if_c,))
    assert module.items == (
        If(n("a"), (one,), ()),
        If(n("a"), (one,), (two,)),
        If(n("a"), (one,), (else_if_b,)),
    )


def test_loops_and_returns():
    module = p("""\
        func f(n: i64) -> i64 {
            while n > 0 do { n = n - 1 }
            for i in n + 1 .. 2 * n do { }
            return n
        }
        func g() { return }
        """)
    f, g = module.items
    assert f.body == (
        While(Compare(">", n("n"), i(0)), (Assign(n("n"), Binary("-", n("n"), i(1))),)),
        For("i", Binary("+", n("n"), i(1)), Binary("*", i(2), n("n")), ()),
        Return(n("n")),
    )
    assert g.body == (Return(None),)


def test_var_declarations_inside_blocks():
    (func,) = p("func f() {\n    var t: f64[4]\n    t[0] = 1\n}\n").items
    assert func.body[0] == VarDecl("var", "t", TypeRef("f64", (i(4),)), None)


def test_empty_and_comment_only_files():
    assert p("") == Module(())
    assert p("\n\n# nothing here\n   \n") == Module(())
    assert dump(p("")) == "Module"


def test_layout_semicolons_comments_and_blank_lines():
    module = p("""\
        # leading comment

        x = 1; y = 2   # two statements
        ;;
        while x < 3 do { x = x + 1; y = y * 2 }  # one line loop

        z = 3;
        """)
    assert [dump(s) for s in module.items] == [
        "Assign x = 1",
        "Assign y = 2",
        "While (x < 3)\n  Assign x = (x + 1)\n  Assign y = (y * 2)",
        "Assign z = 3",
    ]


def test_newlines_inside_brackets_do_not_end_statements():
    module = p("""\
        x = (a
             + b) * c
        y = f(1,
              2)
        A[i
          ][0] = 1
        """)
    assert [dump(s) for s in module.items] == [
        "Assign x = ((a + b) * c)", "Assign y = f(1, 2)", "Assign A[i][0] = 1"]


def test_braces_and_else_may_start_a_line():
    module = p("""\
        while i < 3 do
        {
            i = i + 1
        }
        if i == 3 then {
            j = 1
        }
        # a comment between
        else
        {
            j = 2
        }
        func f()
        {
        }
        """)
    assert module == p("while i < 3 do { i = i + 1 }\n"
                       "if i == 3 then { j = 1 } else { j = 2 }\n"
                       "func f() { }\n")


def test_last_line_needs_no_newline():
    assert p("x = 1  # done") == p("x = 1\n")


def test_windows_line_endings():
    assert p("x = 1\r\ny = 2\r\n") == p("x = 1\ny = 2\n")


def test_keywords_are_reserved():
    for word in ("while", "do", "then", "in", "i64", "return"):
        with pytest.raises(DiagnosticError):
            parse(Source("k.incaq", f"x = {word}\n"))
        with pytest.raises(DiagnosticError):
            parse(Source("k.incaq", f"input {word}: f64\n"))


def test_names_that_start_with_keywords_are_names():
    assert p("dot = iffy + done + input2 + f64x\n").items[0] == Assign(
        n("dot"), Binary("+", Binary("+", Binary("+", n("iffy"), n("done")), n("input2")),
                         n("f64x")))


def test_range_bounds_next_to_dots():
    (loop,) = p("for i in 0..N do { }\n").items
    assert (loop.lo, loop.hi) == (i(0), n("N"))
    (loop,) = p("for i in 0.5..2 do { }\n").items
    assert (loop.lo, loop.hi) == (Num(0.5, True), i(2))


# ---- the tree itself ---------------------------------------------------------------------------------


def test_locations_do_not_take_part_in_equality_but_are_kept():
    a = p("x = 1\n").items[0]
    b = p("\n\n   x   =   1\n").items[0]
    assert a == b and hash(a) == hash(b)
    assert a.loc != b.loc
    assert "loc" not in repr(a)


def test_nodes_are_immutable():
    node = p("x = 1\n").items[0]
    with pytest.raises(AttributeError):
        node.value = i(2)  # type: ignore[misc]


def test_dump_of_single_nodes():
    assert dump(expr("a + b")) == "(a + b)"
    assert dump(TypeRef("f64", (None, i(3)))) == "f64[][3]"
    assert dump(FuncParam("X", TypeRef("f64", (None,)))) == "X: f64[]"
    assert dump(Return(None)) == "Return"
    with pytest.raises(TypeError):
        dump("x")  # type: ignore[arg-type]


# ---- locations ---------------------------------------------------------------------------------------


def test_locations_of_the_dot_product():
    params, n_param, a_decl, _, _, loop = p(DOT_PRODUCT, "dot.incaq").items
    assert params.loc == Loc("dot.incaq", 2, 7, 14)      # the name PAYLOAD
    assert n_param.value.loc == Loc("dot.incaq", 3, 11, 22)  # PAYLOAD / 8
    assert a_decl.loc == Loc("dot.incaq", 5, 8, 9)       # the name A
    assert a_decl.type.loc == Loc("dot.incaq", 5, 11, 17)  # f64[N]
    assert loop.loc == Loc("dot.incaq", 9, 1, 4)         # the keyword 'for'
    assert loop.lo.loc == Loc("dot.incaq", 9, 10, 11)
    assert loop.hi.loc == Loc("dot.incaq", 9, 15, 16)
    (assign,) = loop.body
    assert assign.loc == Loc("dot.incaq", 10, 5, 24)     # the whole statement
    assert assign.target.loc == Loc("dot.incaq", 10, 5, 6)
    assert assign.value.loc == Loc("dot.incaq", 10, 9, 24)
    product = assign.value.right
    assert product.loc == Loc("dot.incaq", 10, 13, 24)
    assert product.left.loc == Loc("dot.incaq", 10, 13, 17)  # A[i]
    assert product.right.loc == Loc("dot.incaq", 10, 20, 24)  # B[i]


def test_locations_of_statements_and_functions():
    module = p("""\
        func sq(x: f64) -> f64 { return x * x }
        while i < 3 do {
            if i == 1 then { f(i) } else if i == 2 then { }
        }
        y = -7
        """)
    func, loop, assign = module.items
    assert func.loc == Loc("k.incaq", 1, 6, 8)
    assert func.params[0].loc == Loc("k.incaq", 1, 9, 10)
    assert func.ret.loc == Loc("k.incaq", 1, 20, 23)
    assert func.body[0].loc == Loc("k.incaq", 1, 26, 38)
    assert loop.loc == Loc("k.incaq", 2, 1, 6)
    assert loop.cond.loc == Loc("k.incaq", 2, 7, 12)
    (cond,) = loop.body
    assert cond.loc == Loc("k.incaq", 3, 5, 7)
    assert cond.then[0].loc == Loc("k.incaq", 3, 22, 26)
    assert cond.then[0].call.loc == Loc("k.incaq", 3, 22, 26)
    assert cond.orelse[0].loc == Loc("k.incaq", 3, 34, 36)
    assert assign.value.loc == Loc("k.incaq", 5, 5, 7)


def test_nodes_spanning_lines_have_no_end_column():
    (assign,) = p("x = f(1,\n      2)\n").items
    assert assign.value.loc == Loc("k.incaq", 1, 5, None)


# ---- syntax errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize("source, rendered", [
    ("while i < 50 {\n}\n", """\
k.incaq:1:14: error: expected 'do' after the loop condition
    while i < 50 {
                 ^"""),
    ("while i < 50 do\n    i = i + 1\n", """\
k.incaq:1:16: error: expected '{' to start the loop body
    while i < 50 do
                   ^"""),
    ("x = 3 +\n", """\
k.incaq:1:8: error: expected an expression after '+'
    x = 3 +
           ^"""),
    ("x = (1 + 2) * # comment\n", """\
k.incaq:1:14: error: expected an expression after '*'
    x = (1 + 2) * # comment
                 ^"""),
    ("x = (a + b))\n", """\
k.incaq:1:12: error: unexpected ')'
    x = (a + b))
               ^
hint: there is no '(' for it to close"""),
    ("if x > 0 { y = 1 }\n", """\
k.incaq:1:10: error: expected 'then' after the condition
    if x > 0 { y = 1 }
             ^"""),
    ("if a then { } else x = 1\n", """\
k.incaq:1:20: error: expected '{' or 'if' after 'else'
    if a then { } else x = 1
                       ^"""),
    ("if a then { } elif b then { }\n", """\
k.incaq:1:15: error: expected the end of the statement
    if a then { } elif b then { }
                  ^~~~
hint: write 'else if'"""),
    ("for i = 0 .. 10 do { }\n", """\
k.incaq:1:7: error: expected 'in' after the loop variable
    for i = 0 .. 10 do { }
          ^"""),
    ("for i in 0 to 10 do { }\n", """\
k.incaq:1:12: error: expected '..' between the start and the end of the range
    for i in 0 to 10 do { }
               ^~"""),
    ("input A f64[4]\n", """\
k.incaq:1:9: error: expected ':' and a type after 'A'
    input A f64[4]
            ^~~"""),
    ("var t: f32\n", """\
k.incaq:1:8: error: expected a type ('i64' or 'f64')
    var t: f32
           ^~~"""),
    ("param N 5\n", """\
k.incaq:1:9: error: expected '=' after the parameter name
    param N 5
            ^"""),
    ("x == 3\n", """\
k.incaq:1:3: error: expected '=' or '(' after 'x'
    x == 3
      ^~
hint: '==' compares; use '=' to assign"""),
    ("whille i < 5 do { }\n", """\
k.incaq:1:8: error: expected '=' or '(' after 'whille'
    whille i < 5 do { }
           ^
hint: did you mean 'while'?"""),
    ("while i = 3 do { }\n", """\
k.incaq:1:9: error: expected 'do' after the loop condition
    while i = 3 do { }
            ^
hint: '=' assigns; use '==' to compare"""),
    ("if a < b < c then { }\n", """\
k.incaq:1:10: error: comparisons cannot be chained
    if a < b < c then { }
             ^
hint: write 'a < b and b < c'"""),
    ("x = a && b\n", """\
k.incaq:1:8: error: expected an expression after '&'
    x = a && b
           ^
hint: use 'and' for a logical and"""),
    ("y = !x\n", """\
k.incaq:1:5: error: unexpected character '!'
    y = !x
        ^
hint: use 'not' for a logical not, and '!=' for not-equal"""),
    ("x = 1.\n", """\
k.incaq:1:6: error: unexpected character '.'
    x = 1.
         ^
hint: a number needs digits on both sides of the point (1.0, 0.5); a range is written 'a .. b'"""),
    ("x = 0x1G\n", """\
k.incaq:1:5: error: invalid number '0x1G'
    x = 0x1G
        ^~~~"""),
    ("x = 1 2\n", """\
k.incaq:1:7: error: expected an operator or the end of the statement
    x = 1 2
          ^"""),
    ("while x do {\n    func g() { }\n}\n", """\
k.incaq:2:5: error: functions are only allowed at the top level of a file, not inside a block
        func g() { }
        ^~~~"""),
    ("}\n", """\
k.incaq:1:1: error: unexpected '}'
    }
    ^
hint: there is no '{' for it to close"""),
    ("x = f(1,\n      2\ny = 3\n", """\
k.incaq:3:1: error: expected ',' or ')'
    y = 3
    ^
hint: the '(' at line 1, column 6 is not closed"""),
    ("input A: f64[]\n", """\
k.incaq:1:14: error: expected an expression after '['
    input A: f64[]
                 ^
hint: only a function parameter may leave the size of an array open"""),
    ("func f() -> f64[3] { }\n", """\
k.incaq:1:16: error: expected '{' to start the function body
    func f() -> f64[3] { }
                   ^
hint: a function returns a scalar: 'i64' or 'f64'"""),
    ("func f(a) { }\n", """\
k.incaq:1:9: error: expected ':' and a type after 'a'
    func f(a) { }
            ^"""),
    ("x = if a then 1\n", """\
k.incaq:1:16: error: expected 'else' (an 'if' expression needs a value for both cases)
    x = if a then 1
                   ^"""),
    ("x = i64[0]\n", """\
k.incaq:1:8: error: expected '(' after 'i64' (in an expression, 'i64(x)' is a conversion)
    x = i64[0]
           ^"""),
    ("x = if a then else 2\n", """\
k.incaq:1:15: error: expected an expression after 'then'
    x = if a then else 2
                  ^~~~"""),
    ("while a do { } else { }\n", """\
k.incaq:1:16: error: 'else' without a matching 'if'
    while a do { } else { }
                   ^~~~
hint: 'else' must follow the '}' that closes an 'if ... then' block"""),
    ("if a then {\n} else {\n}\nelse {\n}\n", """\
k.incaq:4:1: error: 'else' without a matching 'if'
    else {
    ^~~~
hint: 'else' must follow the '}' that closes an 'if ... then' block"""),
])
def test_syntax_error_messages(source, rendered):
    assert errors(source) == rendered


def test_unterminated_block_points_at_where_it_was_opened():
    assert errors("x = 1\nwhile x < 3 do {\n    x = x + 1\n") == """\
k.incaq:2:16: error: expected '}' before the end of the file, to close the block opened here
    while x < 3 do {
                   ^"""


def test_unterminated_block_found_by_indentation():
    source = "func f() {\n    while a do {\n        x = 1\n}\n"
    assert errors(source) == """\
k.incaq:2:16: error: expected '}' before the end of the file, to close the block opened here
        while a do {
                   ^
hint: the '}' on line 4 is indented like an outer block: is a '}' missing before it?"""


def test_error_at_end_of_file_points_after_the_last_code():
    assert errors("x = f(1,   # more to come\n\n") == """\
k.incaq:1:9: error: expected an expression after ','
    x = f(1,   # more to come
            ^"""


def test_several_independent_errors_are_all_reported():
    source = textwrap.dedent("""\
        func f(a: f64) {
            x = = 1
            y = 2
            while i < do {
                z = 1
            }
            w = 3 4
        }
        func g() {
            return )
        }
        x = 1
        for i in 0 .. n do { A[i] = i ; B[i] = = 2; C[i] = 3 4 }
        if a
        then { }
        ok = 1
        """)
    lines = [line for line in errors(source).splitlines() if line.startswith("k.incaq:")]
    assert lines == [
        "k.incaq:2:9: error: expected an expression after '='",
        "k.incaq:4:15: error: expected an expression after '<'",
        "k.incaq:7:11: error: expected an operator or the end of the statement",
        "k.incaq:10:12: error: unexpected ')'",
        "k.incaq:13:40: error: expected an expression after '='",
        "k.incaq:13:54: error: expected an operator or the end of the statement",
        "k.incaq:14:5: error: expected 'then' after the condition",
    ]


def test_unbalanced_braces_report_only_the_first_error():
    source = "x = = 1\nwhile a do {\n    y = 1\nz = = 2\n"
    assert [d.message for d in _diagnostics(source)] == ["expected an expression after '='"]


def test_a_broken_compound_statement_is_skipped_with_its_body():
    source = "while i < < 3 do {\n    x = = 1\n}\ny = = 2\n"
    assert [(d.loc.line, d.message) for d in _diagnostics(source)] == [
        (1, "expected an expression after '<'"), (4, "expected an expression after '='")]


def test_the_number_of_reported_errors_is_capped():
    diags = _diagnostics("x = )\n" * 50)
    assert len(diags) == MAX_ERRORS + 1
    assert diags[-1].severity == "note"
    assert diags[-1].render() == (
        "k.incaq: note: too many syntax errors; the rest of the file was not checked")


def test_too_deep_nesting_is_a_diagnostic():
    deep = "x = " + "-" * (MAX_NESTING + 10) + "y\n"
    (diag,) = _diagnostics(deep)
    assert "nested too deeply" in diag.message
    long_sum = "x = " + " + ".join(["a"] * (MAX_NESTING + 10)) + "\n"
    assert "nested too deeply" in _diagnostics(long_sum)[0].message
    assert len(p("x = " + "(" * 1000 + "1" + ")" * 1000 + "\n").items) == 1


def test_overlong_integer_literal_is_a_diagnostic():
    (diag,) = _diagnostics("x = " + "9" * 5000 + "\n")
    assert diag.message == "this integer literal is too long"
    assert diag.loc == Loc("k.incaq", 1, 5, 5005)


@pytest.mark.parametrize("char", ["\x0c", "\v", "\u2028", "\x85", "\r"])
def test_odd_line_breaks_are_errors_not_silent_line_shifts(char):
    (diag,) = _diagnostics(f"x = 1 # note{char}y = 2\n")
    assert diag.message == f"unexpected character U+{ord(char):04X}"
    assert diag.loc.line == 1


def _diagnostics(text: str):
    with pytest.raises(DiagnosticError) as info:
        parse(Source("k.incaq", text))
    return info.value.diagnostics


# ---- property: any text parses or gives diagnostics ------------------------------------------------

_PIECES = [
    "param", "input", "output", "inout", "var", "use", "func", "while", "do", "if", "then",
    "else", "for", "in", "return", "and", "or", "not", "i64", "f64", "min", "x", "A", "N",
    "0", "7", "0x1f", "2.5", "1e-3", "(", ")", "[", "]", "{", "}", ",", ":", ";", "..", "->",
    "=", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>",
    "#c", " ", " ", "\n", "\n", "\t", "\r\n", ".", "!", "@", "é",
]
# Grammar terminal names (NAME, _NL, LPAR, $END, ...) must never reach a user.
_TERMINAL_LIKE = re.compile(r"\$?\b_?[A-Z][A-Z0-9_]+\b")


def _check(text: str) -> None:
    """``parse`` returns a Module or raises DiagnosticError with well-formed diagnostics."""
    try:
        module = parse(Source("fuzz.incaq", text))
    except DiagnosticError as e:
        assert e.diagnostics
        for d in e.diagnostics:
            assert d.loc is None or d.source_line is not None, d.render()
            unquoted = re.sub(r"'[^']*'|U\+[0-9A-F]+", "", d.message + " " + (d.hint or ""))
            assert set(_TERMINAL_LIKE.findall(unquoted)) <= {"ASCII", "INCA"}, d.render()
            d.render()
    else:
        assert isinstance(module, Module)
        dump(module)


_FAST = settings(max_examples=200, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


@_FAST
@given(st.text(max_size=200))
def test_random_text_never_crashes(text):
    _check(text)


@_FAST
@given(st.lists(st.sampled_from(_PIECES), max_size=60).map(" ".join))
def test_random_token_soup_never_crashes(text):
    _check(text)


@_FAST
@given(st.lists(st.sampled_from(_PIECES), max_size=60).map("".join))
def test_random_glued_token_soup_never_crashes(text):
    _check(text)


_EDIT = st.tuples(
    st.sampled_from(["delete", "insert", "replace"]),
    st.floats(min_value=0, max_value=1, exclude_max=True),
    st.integers(min_value=1, max_value=6),
    st.one_of(st.sampled_from(_PIECES), st.text(max_size=3)),
)


@_FAST
@given(st.sampled_from([SLIDE_23, DOT_PRODUCT, EVERYTHING]), st.lists(_EDIT, min_size=1,
                                                                    max_size=4))
def test_mutated_programs_never_crash(program, edits):
    text = program
    for kind, where, length, piece in edits:
        at = int(where * (len(text) + 1))
        if kind == "delete":
            text = text[:at] + text[at + length:]
        elif kind == "insert":
            text = text[:at] + piece + text[at:]
        else:
            text = text[:at] + piece + text[at + length:]
    _check(text)
