"""Tests of the INCA-Q parser (compiler/incaq/parser.py) and syntax tree (compiler/incaq/ast.py).

Valid programs, the tree's shape, precedence and locations. Layout rules are tested in
test_incaq_layout.py, syntax errors in test_incaq_syntax_errors.py.
"""
from __future__ import annotations

import textwrap

import pytest

from inca.compiler.incaq import ast
from inca.compiler.incaq.ast import (
    Assign, BoolOp, Binary, Call, CallStmt, Compare, For, Func, FuncParam, If, IfExpr, Index,
    Module, Not, Num, Param, Return, TypeRef, Unary, Use, VarDecl, While, dump, dump_expr,
)
from inca.lang.diagnostics import Loc
from incaq_parse_helpers import DOT_PRODUCT, EVERYTHING, SLIDE_23, i, n, p

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


def expr(text: str) -> ast.Expr:
    """The expression of the one assignment ``x = text``."""
    (stmt,) = p(f"x = {text}\n").items
    assert isinstance(stmt, Assign)
    return stmt.value


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


def _walk(n):
    """nodes() as the plain recursion it stands for: a node, then its parts but loc in order."""
    if isinstance(n, (list, tuple)):
        for x in n:
            yield from _walk(x)
    elif hasattr(n, "__dataclass_fields__"):
        yield n
        for f in n.__dataclass_fields__:
            if f != "loc":
                yield from _walk(getattr(n, f))


@pytest.mark.parametrize("text", [DOT_PRODUCT, EVERYTHING, SLIDE_23], ids=["dot", "everything", "slide23"])
def test_nodes_visits_what_the_recursion_visits_in_its_order(text):
    module = p(text)
    assert [id(x) for x in ast.nodes(module)] == [id(x) for x in _walk(module)]
    assert [id(x) for x in ast.nodes(module.items)] == [id(x) for x in _walk(module.items)]
