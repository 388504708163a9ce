"""Tests of INCA-Q's layout and lexical rules (compiler/incaq/parser.py).

Statement ends (newlines, semicolons), comments, line breaks inside brackets, where braces and
'else' may go, line endings, reserved words, and range bounds next to '..'.
"""
from __future__ import annotations

import pytest

from inca.compiler.incaq.ast import Assign, Binary, Module, Num, dump
from inca.compiler.incaq.parser import parse
from inca.lang.diagnostics import DiagnosticError, Source
from incaq_parse_helpers import i, n, p


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
