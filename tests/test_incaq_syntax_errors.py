"""Tests of the INCA-Q parser's syntax errors (compiler/incaq/parser.py).

The exact text of each diagnostic, recovery after an error, the limits (error count, nesting,
literal length), and the property that any text parses or gives well-formed diagnostics.
"""
from __future__ import annotations

import re
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inca.compiler.incaq.ast import Module, dump
from inca.compiler.incaq.parser import MAX_ERRORS, MAX_NESTING, parse
from inca.lang.diagnostics import DiagnosticError, Loc, Source
from incaq_parse_helpers import DOT_PRODUCT, EVERYTHING, SLIDE_23, p


def errors(text: str) -> str:
    """The rendered diagnostics for a program that must not parse."""
    with pytest.raises(DiagnosticError) as info:
        parse(Source("k.incaq", text))
    return "\n".join(d.render() for d in info.value.diagnostics)


def _diagnostics(text: str):
    with pytest.raises(DiagnosticError) as info:
        parse(Source("k.incaq", text))
    return info.value.diagnostics


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
    # a long sum lists operands rather than nests them (tests/test_scale.py compiles 1,000 terms)
    long_sum = "x = " + " + ".join(["a"] * 3000) + "\n"
    assert "chains more than 2000 operators" in _diagnostics(long_sum)[0].message
    assert len(p("x = " + "(" * 1000 + "1" + ")" * 1000 + "\n").items) == 1


def test_overlong_integer_literal_is_a_diagnostic():
    (diag,) = _diagnostics("x = " + "9" * 5000 + "\n")
    assert diag.message == "integer literal has more than 64 digits"
    assert diag.loc == Loc("k.incaq", 1, 5, 5005)


@pytest.mark.parametrize("char", ["\x0c", "\v", "\u2028", "\x85", "\r"])
def test_odd_line_breaks_are_errors_not_silent_line_shifts(char):
    (diag,) = _diagnostics(f"x = 1 # note{char}y = 2\n")
    assert diag.message == f"unexpected character U+{ord(char):04X}"
    assert diag.loc.line == 1


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
