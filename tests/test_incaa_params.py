"""INCA-A's constant expressions are INCA-Q's param expressions, computed by the same evaluator.

Every function and operator is checked against INCA-Q's evaluation of the same text (and a
hypothesis test compares random expressions both ways); misuse is a diagnostic with a caret; a
program using them runs and matches Python; the fast path agrees with the parser path.
"""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from inca.compiler import asm_fast
from inca.compiler.assembler import assemble_text
from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.printer import print_program
from inca.lang.diagnostics import DiagnosticError, Source
from inca.lang.program import Affine, Imm, Ref

# Params both languages define before the expression under test.
PRELUDE = {"A": 7, "B": -3, "BIG": 2**62}


def incaa_value(expr: str) -> int:
    lines = [f".param {n} = {v}" for n, v in PRELUDE.items()]
    prog = assemble_text("\n".join([*lines, f".param P = {expr}", ".output y i64", "PUTL y, P",
                                    "END", ""]))
    return prog.instrs[0].src.value


def incaq_value(expr: str) -> int:
    lines = [f"param {n} = {v}" for n, v in PRELUDE.items()]
    prog = compile_source(Source("k.incaq", "\n".join([*lines, f"param P = {expr}",
                                                       "output y: i64", "y = P", ""])))
    return prog.instrs[0].src.value


def outcome(value_of, expr: str) -> tuple[str, object]:
    """("value", v), or ("error", first message) when the text is rejected."""
    try:
        return "value", value_of(expr)
    except DiagnosticError as e:
        return "error", e.diagnostics[0].message


@pytest.mark.parametrize("expr,value", [
    ("1 + 2 * 3", 7), ("(1 + 2) * 3", 9), ("-7 / 2", -3), ("7 / -2", -3), ("-7 % 2", -1),
    ("7 % -2", 1), ("A - B", 10), ("-A", -7), ("- -A", 7),
    ("min(A, B)", -3), ("max(A, B)", 7), ("abs(B)", 3), ("isqrt(A * A + 1)", 7), ("isqrt(0)", 0),
    ("A < B", 0), ("A <= 7", 1), ("A > B", 1), ("A >= 8", 0), ("A == 7", 1), ("A != 7", 0),
    ("1 and 0", 0), ("2 and 3", 1), ("0 or 0", 0), ("0 or 5", 1), ("not 0", 1), ("not A", 0),
    ("A & 6", 6), ("A | 8", 15), ("A ^ 5", 2), ("1 << 10", 1024), ("-16 >> 2", -4),
    ("1 << 3 | 1", 9), ("A < 8 and B < 0", 1), ("not A == 7", 0),
    ("if A > 5 then A else B", 7), ("if A > 9 then A else if B < 0 then 100 else 200", 100),
    ("-9223372036854775808", -2**63), ("BIG + (BIG - 1)", 2**63 - 1),
])
def test_each_function_and_operator_agrees_with_incaq(expr, value):
    assert incaa_value(expr) == incaq_value(expr) == value


_ATOMS = st.sampled_from(["0", "1", "2", "3", "7", "63", "64", "100", "9223372036854775807",
                          "9223372036854775808", "A", "B", "BIG"])
_BINARY = st.sampled_from(["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", "<=", ">",
                           ">=", "==", "!=", "and", "or"])


def _compound(inner):
    """Texts built from smaller ones; unparenthesised operands test the shared precedence too."""
    maybe_parens = inner.flatmap(lambda t: st.sampled_from([t, f"({t})"]))
    return st.one_of(
        st.tuples(maybe_parens, _BINARY, maybe_parens).map(" ".join),
        maybe_parens.map(lambda t: f"-{t}"),
        maybe_parens.map(lambda t: f"not {t}"),
        st.tuples(st.sampled_from(["min", "max", "abs", "isqrt", "mni"]),
                  st.lists(inner, min_size=0, max_size=3))
        .map(lambda fa: f"{fa[0]}({', '.join(fa[1])})"),
        st.tuples(inner, inner, inner).map(lambda c: f"if {c[0]} then {c[1]} else {c[2]}"),
    )


EXPRESSIONS = st.recursive(_ATOMS, _compound, max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(EXPRESSIONS)
def test_random_expressions_evaluate_alike_in_both_languages(expr):
    a, q = outcome(incaa_value, expr), outcome(incaq_value, expr)
    if a[0] == q[0] == "error":
        return  # both reject it (syntax errors are worded by each language's own parser)
    assert a == q


def error_of(text: str):
    with pytest.raises(DiagnosticError) as e:
        assemble_text(text, "t.incaa")
    assert len(e.value.diagnostics) == 1, e.value
    return e.value.diagnostics[0], str(e.value)


@pytest.mark.parametrize("expr,col,end,message,hint", [
    ("min(1)", 12, 18, "min takes 2 arguments, not 1", None),
    ("abs(1, 2)", 12, 21, "abs takes 1 argument, not 2", None),
    ("isqrt(-1)", 12, 21, "isqrt of a negative number", None),
    ("1 + 4 / (2 - 2)", 16, 27, "division by zero in a param expression", None),
    ("5 % 0", 12, 17, "division by zero in a param expression", None),
    ("1 << 64", 12, 19, "shift count 64 in a param expression is not between 0 and 63", None),
    ("sqrt(16)", 12, 20, "'sqrt' cannot be used in a param expression", "did you mean 'isqrt'?"),
    ("frobnicate(1)", 12, 25, "'frobnicate' cannot be used in a param expression",
     "param expressions may use min, max, isqrt, abs and if-then-else"),
    ("9223372036854775807 + 1", 12, 35, "the value 9223372036854775808 does not fit in i64", None),
    ("1.5", 12, 15, "a .param value must be an integer constant", None),
    ("x + 1", 12, 17, "a .param value must be an integer constant ('x' is not a .param)", None),
])
def test_param_misuse_is_a_diagnostic_with_a_caret(expr, col, end, message, hint):
    d, text = error_of(f".param P = {expr}\nEND\n")
    assert (d.loc.line, d.loc.col, d.loc.end_col, d.message, d.hint) == (1, col, end, message, hint)
    assert f"t.incaa:1:{col}: error: {message}" in text
    assert "^" in text and "Traceback" not in text


@pytest.mark.parametrize("operand,message", [
    # what indices over run-time scalars could not do before, they still cannot, worded as before
    ("A[i*j]", "'i*j' is not affine: an index may multiply a name by a constant only"),
    ("A[i/2]", "'/' is allowed between constants only"),
    ("A[i % 2]", "'%' is allowed between constants only"),
    # the new operations need .params and literals only
    ("A[min(i, 2)]", "'min' needs constant operands, and 'i' is not a .param"),
    ("A[i & 1]", "'&' needs constant operands, and 'i' is not a .param"),
    ("A[i < 2]", "'<' needs constant operands, and 'i' is not a .param"),
    ("A[if i then 1 else 2]", "'if ... then ... else' needs constant operands, and 'i' is not a .param"),
    ("A[mni(i, 2)]", "'mni' cannot be used in a param expression"),
])
def test_run_time_names_stay_affine_only(operand, message):
    d, _ = error_of(f".var A f64[4]\nPUTL i, 1\nPUTL x, {operand}\nEND\n")
    assert d.message == message


def test_indices_mix_params_and_run_time_scalars():
    text = (".param N = 8\n.param H = max(N / 3, 1)\n.var A f64[N]\n"
            "PUTL x, A[2*k + min(H, 1)]\nPUTL x, A[k + isqrt(N) - 1]\nEND\n")
    a, b = (ins.src for ins in assemble_text(text).instrs[:2])
    assert a.index == (Affine(1, (("k", 2),)),) and b.index == (Affine(1, (("k", 1),)),)


def test_a_param_may_be_used_as_a_dimension_a_target_and_an_immediate():
    prog = assemble_text(".param N = if 1 < 2 then min(4, 6) else 0\n.var A i64[N * 2]\n"
                         "PUTL A[N], N << 2\nJMP max(N - 1, 1) - 1\nEND\n")
    assert prog.decls[0].shape == (8,)
    assert prog.instrs[0].src == Imm(16, "i64") and prog.instrs[1].target == 2


PROGRAM = """\
.param N = 10
.param HALF = max(N / 3, 2)
.param LAST = min(N - 1, isqrt(N * N + 2 * N))
.param BONUS = if N % 2 == 0 and not (N < 4) then 1 << 3 | 1 else abs(-5)
.input A i64[N]
.output y i64
    PUTL y, BONUS
    PUTL k, 0
    PUTL c, HALF
loop:
    ADD y, y, A[2*k + 1]
    ADD k, k, 1
    SUB c, c, 1
    BLEZ c, done
    JMP loop
done:
    ADD y, y, A[LAST]
    END
"""


def expected(n: int, a: list[int]) -> int:
    """The program's result computed directly in Python."""
    half = max(n // 3, 2)
    last = min(n - 1, math.isqrt(n * n + 2 * n))
    bonus = 9 if n % 2 == 0 and n >= 4 else 5
    return bonus + sum(a[2 * k + 1] for k in range(half)) + a[last]


@pytest.mark.parametrize("n", [None, 7, 20])  # None: the program's own N; others by -D
def test_program_using_params_runs_and_matches_python(run_asm, n):
    size = 10 if n is None else n
    a = [3 * k * k - 5 * k + 1 for k in range(size)]
    result = run_asm(PROGRAM, {"A": a}, defines=None if n is None else {"N": n})
    assert result.outputs["y"] == expected(size, a)


def test_printed_programs_have_folded_params_and_round_trip():
    prog = assemble_text(PROGRAM)
    text = print_program(prog)
    assert ".param" not in text and "isqrt" not in text and "A[9]" in text
    assert assemble_text(text) == prog


def test_fast_path_and_parser_path_agree(monkeypatch):
    fast = assemble_text(PROGRAM)
    assert isinstance(asm_fast.scan("    ADD y, y, A[LAST]", set())[3], asm_fast.FastLine)
    monkeypatch.setattr(asm_fast, "scan", lambda text, well_formed: None)
    assert assemble_text(PROGRAM) == fast


def test_keywords_send_a_line_to_the_parser():
    # the parser reads `not` where an operand starts as the keyword, so the fast path must not
    # take it for a name
    assert asm_fast.scan("PUTL x, not", set()) is None
    d, _ = error_of("PUTL x, not\nEND\n")
    assert d.message.startswith("unexpected end of line")
    assert isinstance(assemble_text("PUTL and, 1\nEND\n").instrs[0].dest, Ref)
