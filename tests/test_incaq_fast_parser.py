"""The INCA-Q fast path (compiler/incaq/fast_parser.py) against the lark path (lang/incaq.lark).

On every text, the fast path either builds the tree the lark path builds, locations included
(``ast`` equality leaves them out, so :func:`located` lists them), or bails out; where the lark
path reports errors, it must bail out. Texts: every ``.incaq`` file of the repository, every string
constant of the tests, programs at the nesting and chain limits, and hypothesis texts (the fuzz
programs, every rule of the grammar, and both after random edits).
"""
from __future__ import annotations

import ast as python_ast
from dataclasses import fields, is_dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from inca.compiler.incaq import ast
from inca.compiler.incaq.fast_lexer import tokenize
from inca.compiler.incaq.fast_parser import BailOut, parse_fast
from inca.compiler.incaq.grammar import lark_parser
from inca.compiler.incaq.parser import MAX_NESTING, parse, parse_lark
from inca.lang.diagnostics import DiagnosticError, Source
from incaq_generators import mutants, programs
from incaq_grammar_texts import edited, grammar_texts

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(p for p in ROOT.rglob("*.incaq") if ".git" not in p.parts)
SETTINGS = settings(max_examples=200, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# the fuzz programs are slow to draw (test_incaq_fuzz.py draws 200 of each too)
FUZZ_SETTINGS = settings(SETTINGS, max_examples=60)


def located(root) -> list:
    """Every node of a tree in order, as (type, location, fields that are not nodes), without
    recursion (a chain of 2,000 operators is 2,000 levels deep)."""
    out = []
    todo = [root]
    while todo:
        node = todo.pop()
        if isinstance(node, tuple):
            out.append(("tuple", len(node)))
            todo.extend(reversed(node))
        elif hasattr(node, "__dataclass_fields__"):
            fields = [getattr(node, f) for f in node.__dataclass_fields__ if f != "loc"]
            plain = [f for f in fields if not isinstance(f, tuple) and
                     not hasattr(f, "__dataclass_fields__")]
            out.append((type(node).__name__, node.loc, plain))
            todo.extend(reversed(fields))
    return out


def fast_or_none(text: str) -> ast.Module | None:
    try:
        return parse_fast(Source("t.incaq", text), MAX_NESTING)
    except BailOut:
        return None


def agree(text: str, tokens: bool = True) -> str:
    """Check that the fast path agrees with the lark path on ``text``: "same" (both built one
    tree), "bailed" (the fast path gave up; the lark path built a tree) or "rejected" (the lark
    path reported errors, and the fast path gave up, so parse() reports the same). With
    ``tokens``, the tokens are compared first (:func:`tokens_agree`)."""
    if tokens:
        tokens_agree(text)
    fast = fast_or_none(text)
    try:
        slow = parse_lark(Source("t.incaq", text))
    except DiagnosticError as e:
        assert fast is None, text
        with pytest.raises(DiagnosticError) as again:
            parse(Source("t.incaq", text))
        assert again.value.diagnostics == e.diagnostics
        return "rejected"
    if fast is None:
        return "bailed"
    assert same_tree(fast, slow), text
    assert located(fast) == located(slow), text
    return "same"


def tokens_agree(text: str) -> None:
    """The fast lexer's tokens are those lark's lexer and layout give the parser (type, text,
    line and column; a line break's place is not kept), or it bails out where lark's lexer
    refuses a character."""
    try:
        lark = [(t.type, t.value, t.line, t.column) if t.type != "_NL" else ("_NL", "\n", 0, 0)
                for t in lark_parser().lex(text)]
    except Exception as e:  # lark's UnexpectedCharacters
        assert type(e).__name__ == "UnexpectedCharacters", e
        with pytest.raises(BailOut):
            tokenize(text)
        return
    toks = tokenize(text)
    assert list(zip(toks.kinds, toks.values, toks.lines, toks.cols)) == lark + [("$END", "", 0, 0)]


def same_tree(a, b) -> bool:
    """``a == b`` for syntax trees, without recursion: on Python 3.12 a dataclass's ``==`` on a
    chain of MAX_CHAIN operators passes through C's tuple comparison at every level and meets
    3.12's C recursion limit (about 1,500), which sys.setrecursionlimit does not raise."""
    todo = [(a, b)]
    while todo:
        x, y = todo.pop()
        if type(x) is not type(y):
            return False
        if is_dataclass(x):
            todo.extend((getattr(x, f.name), getattr(y, f.name)) for f in fields(x) if f.compare)
        elif isinstance(x, tuple):
            if len(x) != len(y):
                return False
            todo.extend(zip(x, y))
        elif x is not y and x != y:  # (as a tuple's == compares its items)
            return False
    return True


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_every_incaq_file_parses_alike(path):
    # the files that parse take the fast path: it bails out only where the lark path reports
    assert agree(path.read_text(encoding="utf-8")) in ("same", "rejected")


def _test_strings() -> list[str]:
    found = set()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        for node in python_ast.walk(python_ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, python_ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return sorted(found)


@pytest.mark.parametrize("text", [
    "", "\n", "  \t", "x\r\ny", "x\r", "x\r\r\ny", "\tx =\t1  \t# c\t d  \n  y", "x = 1 # c\ry",
    "a#b c\n", "x  =   a[ 1 ]\t\n", "é", "x = 1.5.2", "0x 0x1F 1e5 1.e5 1..2", "x\x0by", "x\x85",
    "# c\x1cz\ny", "do {\n}\nwhile c\n", "if a then {\n}\nelse {\n}\n",
    "\nwhile c do {}\n"])  # (the fast lexer took back the first line break before `while`)
def test_corners_lex_alike(text):
    tokens_agree(text)


def test_every_string_of_the_tests_parses_alike():
    # INCA-Q programs and fragments (valid or not), INCA-A, messages...: about 2,800 texts
    # (the tokens not compared: lark's lexer takes 5 s over these, and the trees and their
    # locations differ where tokens would)
    outcomes = [agree(text, tokens=False) for text in _test_strings()]
    assert outcomes.count("same") > 300 and "bailed" not in outcomes


def _nested(n: int, kind: str) -> str:
    """A program whose parse tree is about ``n`` levels deep, one construct at a time."""
    if kind == "blocks":
        return "while c do {\n" * n + "x = 1\n" + "}\n" * n
    if kind == "else-if":
        return "if c then {\n} else " * n + "{\n}\n"
    inner = {"minus": "-" * n + "y", "not": "not " * n + "y", "calls": "f(" * n + "y" + ")" * n,
             "indices": "A[" * n + "0" + "]" * n, "right-sums": "a + (" * n + "b" + ")" * n,
             "if-values": "if c then y else " * n + "z", "parens": "(" * n + "y" + ")" * n,
             "ands-in-ors": "a or (b and (" * (n // 2) + "c" + "))" * (n // 2)}[kind]
    return f"x = {inner}\n"


def _lark_accepts(text: str) -> bool:
    try:
        parse_lark(Source("t.incaq", text))
    except DiagnosticError:
        return False
    return True


def _deepest(make, lo: int, hi: int) -> int:
    """The largest n in lo .. hi - 1 for which the lark path accepts make(n), by bisection."""
    assert _lark_accepts(make(lo)) and not _lark_accepts(make(hi))
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _lark_accepts(make(mid)) else (lo, mid)
    return lo


@pytest.mark.parametrize("kind", ["blocks", "else-if", "minus", "not", "calls", "indices",
                                  "right-sums", "if-values", "ands-in-ors"])
def test_the_nesting_limit_is_the_lark_paths_to_the_level(kind):
    # the fast path builds the deepest text the lark path accepts, and leaves one level deeper
    # to the lark path's error
    n = _deepest(lambda n: _nested(n, kind), 1, 2 * MAX_NESTING)
    assert agree(_nested(n, kind)) == "same"
    assert agree(_nested(n + 1, kind)) == "rejected"


def test_deep_parentheses_fall_back_rather_than_recurse():
    # lark's tree has no level for parentheses; the fast path counts them, and bails out
    assert agree(_nested(MAX_NESTING // 2, "parens")) == "same"
    assert agree(_nested(MAX_NESTING + 50, "parens")) == "bailed"
    # never a RecursionError, however deep the text: the fast path stops at MAX_NESTING
    for text in ("x = " + "(" * 100_000, "x = " + "-" * 100_000 + "y", "{" * 100_000,
                 "if c then {} else " * 50_000):
        assert fast_or_none(text) is None


@pytest.mark.parametrize("op", ["-", "and", "or"])
def test_the_chain_limit_is_the_lark_paths(op):
    def chain(n):
        return "x = " + f" {op} ".join(["a"] * (n + 1)) + "\n"

    n = _deepest(chain, ast.MAX_CHAIN - 10, ast.MAX_CHAIN + 10)
    assert agree(chain(n)) == "same"
    assert agree(chain(n + 1)) == "rejected"


def test_a_chain_runs_through_other_operators_and_parentheses():
    # `(a * b + c) + a * b + ...`: one chain of '+' whose first link is in parentheses
    def chain(n):
        return "x = (a * b + c) + " + " + ".join(["a * b"] * n) + "\n"

    n = _deepest(chain, ast.MAX_CHAIN - 10, ast.MAX_CHAIN + 10)
    assert agree(chain(n)) == "same"
    assert agree(chain(n + 1)) == "rejected"


@pytest.mark.parametrize("text", [
    "if 1then {}\n",  # lark's lexer splits a number from a word after it: the fast path does too
    "x = -(7) * -(-9223372036854775808) - -2.5\n",
    "var T: i64[3] = [-1, - 2, 0x10]\nvar u: f64 = -1e3\n",
    "func f(inout a: f64[][N], b: i64) -> f64 { return }\n",
    "do {\n} # c\n\n  while c\nx = (a\n  + b) * (c)\n",
    "x = a < b and not c == d or (e < f) < g\n",
    "x = if a then if b then c else d else e\n",
    "\r\n\t# only a comment",
    # a comment at the end of the text is not given back to make a token (`return x`)
    "return # x", "x = 1 # note",
    # a line break the next token takes back: '{', `else`, `while` after a do's block, each after
    # a run of breaks and comment lines; and ones it keeps
    "\n\nx = 1\n", "while a do\n\n# c\n{\n}\n", "if a then {}\n  # c\nelse\n{ x = 1 }\n",
    "do { do {\n}\nwhile b }\n# c\nwhile a\n", "x = 1\nwhile a do {}\n",
    "while a do {\n}\nwhile b do {}\n", "if a then {\n}\n\n", "x = f(a,\n b)\n", "do\n{ }\nwhile a",
    "loop {\n}\nwhile a do {}\n",
])
def test_corners_parse_alike(text):
    assert agree(text) == "same"


@pytest.mark.parametrize("text", ["x = 1then", "x = a < b < c", "x = 1 # c\ry", "x = (a\n"])
def test_corner_errors_are_left_to_the_lark_path(text):
    assert agree(text) == "rejected"


def test_number_errors_are_left_to_the_lark_path():
    assert agree("x = " + "9" * 100 + "\n") == "rejected"
    assert agree("x = 1.0e-9999999\n") == "rejected"


def test_the_generated_benchmark_program_takes_the_fast_path():
    import sys
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_compile import generated
    assert agree(generated(200)) == "same"


@FUZZ_SETTINGS
@given(programs())
def test_fuzz_programs_parse_alike(case):
    assert agree(case[3]) == "same"


@FUZZ_SETTINGS
@given(mutants())
def test_mutated_fuzz_programs_parse_alike(text):
    agree(text)


@SETTINGS
@given(grammar_texts())
def test_texts_of_every_rule_parse_alike(text):
    assert agree(text) == "same"


@SETTINGS
@given(edited(grammar_texts()))
def test_edited_texts_of_every_rule_parse_alike(text):
    agree(text)
