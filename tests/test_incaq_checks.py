"""Regressions for checker diagnostics: what is reported, where, and what is not reported twice."""
from __future__ import annotations

import pytest

from inca.compiler.frontend import Options, load_program, load_tuples
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import DiagnosticError


def errors(tmp_path, text: str, **files: str) -> list[str]:
    for name, body in files.items():
        (tmp_path / f"{name}.incaq").write_text(body)
    src = tmp_path / "k.incaq"
    src.write_text(text)
    with pytest.raises(DiagnosticError) as e:
        load_program(str(src), Options())
    return [f"{d.loc.line}:{d.loc.col}: {d.message}" if d.loc else d.message for d in e.value.diagnostics]


def test_constant_index_out_of_bounds_is_a_compile_error(tmp_path):
    # regression: compiled, then faulted at run time (and its -S listing did not assemble)
    assert errors(tmp_path, "param N = 4\ninput A: f64[N]\noutput c: f64\nc = A[N]\nc = A[2 - 3]\n") == [
        "4:7: index 4 is out of bounds for 'A' (dimension of size 4)",
        "5:7: index -1 is out of bounds for 'A' (dimension of size 4)",
    ]


def test_writing_an_input_through_a_parameter_is_reported_at_the_call(tmp_path):
    # regression: the error pointed inside the module, never at the user's file
    lib = "func zero(X: f64[], n: i64) {\n    for k in 0 .. n do { X[k] = 0.0 }\n}\n"
    assert errors(tmp_path, "use lib\ninput x: f64[4]\nzero(x, 4)\n", lib=lib) == [
        "3:6: 'x' is an input, but 'zero' writes its parameter 'X'"]


def test_a_function_local_may_shadow_a_kernel_param(tmp_path):
    # regression: "'k' is a param ... cannot be assigned", pointing inside the function
    src = tmp_path / "k.incaq"
    src.write_text("param k = 4\ninput A: f64[k]\noutput c: f64\n"
                   "func total(X: f64[], n: i64) -> f64 {\n    s = 0.0\n"
                   "    for k in 0 .. n do { s = s + X[k] }\n    return s\n}\nc = total(A, k)\n")
    tp = load_tuples(str(src), Options())
    r = execute(tp, load_profile("scratchpad"), {"A": [1.0, 2.0, 3.0, 4.5]})
    assert r.outputs["c"] == 10.5


def test_no_cascade_after_a_broken_module(tmp_path):
    out = errors(tmp_path, "use broken\noutput s: f64\ns = fix(2.0)\n",
                 broken="func fix(x: f64) -> f64 {\n    return x *\n}\n")
    assert len(out) == 1 and "expected an expression" in out[0]
    assert errors(tmp_path, "use missing\noutput s: f64\ns = fix(2.0)\n") == [
        "1:5: module 'missing' not found"]


def test_no_cascade_from_a_param_that_failed(tmp_path):
    # regression: the stand-in value flowed on ("array dimension must be positive, not -9")
    assert errors(tmp_path, "param C = 10 / 0\nparam D = C - 10\ninput V: f64[D]\ninput W: f64[C]\n"
                  "output s: f64\ns = V[0] + W[1]\n") == ["1:11: division by zero in a param expression"]
