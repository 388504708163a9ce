"""Constant tables: one initial value per element of a ``var`` array, in INCA-A
(``.var K i64[4] = 1, 2, 4, 8``), in tuple JSON (``init`` as a list) and in INCA-Q
(``var K: i64[4] = [1, 2, 4, 8]``); set when the program is loaded, at no instruction."""
from __future__ import annotations

import json

import pytest

from inca.compiler import driver
from inca.compiler.assembler import assemble_text
from inca.compiler.frontend import Options, load_program
from inca.compiler.printer import print_program
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import DiagnosticError
from inca.lang.tuples import encode, from_json, to_json
from tool_helpers import tool

# Horner's rule over a coefficient table, and a population count through a table of bits.
KERNEL = """\
var POW: i64[4] = [1, 2, 4, 8]
var C: f64[4] = [0.5, -1.0, 2, -0.25]
input x: i64
input t: f64
output bits: i64
output poly: f64
for k in 0 .. 4 do {
    if (x & POW[k]) != 0 then { bits = bits + 1 }
    poly = poly * t + C[k]
}
"""


def _reference(x: int, t: float) -> dict:
    poly = 0.0
    for c in (0.5, -1.0, 2.0, -0.25):
        poly = poly * t + c
    return {"bits": bin(x & 15).count("1"), "poly": poly}


@pytest.mark.parametrize("x, t", [(13, 2.0), (0, -1.5), (15, 0.125), (-7, 3.0)])
def test_incaq_tables_compute_what_python_does(tmp_path, x, t):
    src = tmp_path / "k.incaq"
    src.write_text(KERNEL)
    tp = encode(load_program(str(src), Options()))
    r = execute(tp, load_profile("scratchpad"), {"x": [x], "t": [t]})
    assert r.outputs == _reference(x, t)


def test_tables_round_trip_through_incaa_and_json(tmp_path):
    src = tmp_path / "k.incaq"
    src.write_text(KERNEL)
    prog = load_program(str(src), Options())
    text = print_program(prog)
    assert ".var POW i64[4] = 1, 2, 4, 8" in text and ".var C f64[4] = 0.5, -1.0, 2.0, -0.25" in text
    assert assemble_text(text, str(src)) == prog
    tp = encode(prog)
    assert from_json(to_json(tp)) == tp
    doc = json.loads(to_json(tp))
    assert next(b for b in doc["buffers"] if b["name"] == "POW")["init"] == [1, 2, 4, 8]


def test_a_table_costs_no_instruction():
    table = encode(assemble_text(".var K i64[4] = 1, 2, 4, 8\n.output s i64\nADD s, s, K[3]\nEND\n"))
    r = execute(table, load_profile("scratchpad"), {})
    assert r.outputs == {"s": 8} and r.instructions == 1


@pytest.mark.parametrize("text, message", [
    (".var K i64[4] = 1, 2, 3\nEND\n", "3 values for 4 elements"),
    (".input A i64[2] = 1, 2\nEND\n", "only a .var takes a table of values"),
    (".var F i64[2] = 1, 2.5\nEND\n", "an i64 cannot be initialised with a float"),
    (".var F f64[2] = 1, 1e999\nEND\n", "too large for f64"),
])
def test_incaa_misuse(text, message):
    with pytest.raises(DiagnosticError) as e:
        assemble_text(text)
    d = e.value.diagnostics[0]
    assert message in d.message and "^" in d.render()


@pytest.mark.parametrize("text, message", [
    ("var A: i64[3] = [1, 2]\n", "2 values for the 3 elements of 'A'"),
    ("var B: i64[2] = [1, 2.5]\n", "an i64 cannot be initialised with a float"),
    ("var s: i64 = [1]\n", "is a scalar"),
    ("func f() {\n    var T: i64[2] = [1, 2]\n}\nf()\n", "initialises only a top-level var"),
])
def test_incaq_misuse(tmp_path, text, message):
    (tmp_path / "k.incaq").write_text(text)
    code, _, err = tool(driver.main, tmp_path / "k.incaq", "-o", "-")
    assert code == 1 and message in err and "^" in err


def test_the_loader_checks_a_table_like_the_assembler():
    doc = json.loads(to_json(encode(assemble_text(".var K i64[4] = 1, 2, 4, 8\nEND\n"))))
    for bad in ([1, 2, 4], [1, 2, 4, 8.5], [1, 2, 4, True]):
        doc["buffers"][0]["init"] = bad
        with pytest.raises(DiagnosticError):
            from_json(json.dumps(doc))
