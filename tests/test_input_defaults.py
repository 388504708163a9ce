"""Input defaults: ``input n: i64 = PAYLOAD`` (INCA-Q), ``.input n i64 = 128`` (INCA-A), the
buffer's ``default`` in tuple JSON; the value an input holds when the host gives none, in
``inca run``, the Python API, the REPL and ``inca report``; ``--seed`` does not replace it."""
from __future__ import annotations

import json

import pytest

from inca.compiler import driver
from inca.compiler.assembler import assemble_text
from inca.compiler.printer import print_program
from inca.interpreter import cli
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.interpreter.session import Session
from inca.lang.diagnostics import DiagnosticError
from inca.lang.tuples import encode, from_json, to_json
from tool_helpers import tool

ASM = """\
.input  n i64 = 5
.input  x f64 = 2.5
.inout  k i64 = -3
.output y f64
PUTL y, x
MUL y, y, n
ADD k, k, n
END
"""

KERNEL = """\
param PAYLOAD = 64
input nbytes: i64 = PAYLOAD
input scale: f64 = 0.5
input A: f64[PAYLOAD / 8]
output s: f64
for i in 0 .. nbytes / 8 do { s = s + A[i] }
s = s * scale
"""


def test_incaa_defaults_are_used_and_round_trip():
    prog = assemble_text(ASM)
    assert [d.default for d in prog.decls] == [5, 2.5, -3, None]
    assert assemble_text(print_program(prog)) == prog
    tp = encode(prog)
    assert from_json(to_json(tp)) == tp
    r = execute(tp, load_profile("scratchpad"), {})
    assert r.outputs == {"k": -3 + 5, "y": 2.5 * 5}
    given = execute(tp, load_profile("scratchpad"), {"n": [2]})
    assert given.outputs == {"k": -1, "y": 5.0}


def test_incaq_defaults_follow_the_params(tmp_path):
    src = tmp_path / "k.incaq"
    src.write_text(KERNEL)
    code, out, err = tool(cli.main, "run", src, "--payload", 128, "--seed", 1, "--json")
    assert code == 0, err
    doc = json.loads(out)
    code, asm, _ = tool(driver.main, src, "--payload", 128, "-S", "-o", "-")
    assert ".input nbytes i64 = 128" in asm and ".input scale f64 = 0.5" in asm
    # the seed made A but not nbytes or scale: the sum of all 16 seeded elements, halved
    code, a_out, _ = tool(cli.main, "run", src, "--payload", 128, "--seed", 1, "--input",
                          "nbytes=0", "--json")
    assert json.loads(a_out)["outputs"]["s"] == 0.0
    from inca.interpreter.inputs import seeded_values
    from inca.lang.program import Decl
    a = seeded_values(Decl("A", "input", "f64", (16,)), 1)
    assert doc["outputs"]["s"] == sum(a) * 0.5


def test_json_records_the_default_and_the_loader_checks_it(tmp_path):
    doc = json.loads(to_json(encode(assemble_text(ASM))))
    assert [b["default"] for b in doc["buffers"]] == [5, 2.5, -3, None]
    for i, value in ((3, 1.0), (0, 1.5)):  # an output's default; a float for an i64
        bad = json.loads(json.dumps(doc))
        bad["buffers"][i]["default"] = value
        with pytest.raises(DiagnosticError):
            from_json(json.dumps(bad))
    old = json.loads(json.dumps(doc))
    for b in old["buffers"]:
        del b["default"]  # written before defaults existed
    assert all(d.default is None for d in from_json(json.dumps(old)).buffers)


@pytest.mark.parametrize("text, message", [
    (".output y f64 = 1.0\nEND\n", "an .output takes no initial value"),
    (".input n i64 = 1.5\nEND\n", "an i64 cannot be initialised with a float"),
])
def test_incaa_misuse(text, message):
    with pytest.raises(DiagnosticError) as e:
        assemble_text(text)
    d = e.value.diagnostics[0]
    assert message in d.message and "^" in d.render()


@pytest.mark.parametrize("text, message, col", [
    ("output y: f64 = 3\ny = 1.0\n", "an output has no default", 17),
    ("input z: i64 = q\noutput y: i64\ny = z\n", "a default must be known at compile time", 16),
])
def test_incaq_misuse(tmp_path, text, message, col):
    (tmp_path / "k.incaq").write_text(text)
    code, _, err = tool(driver.main, tmp_path / "k.incaq", "-o", "-")
    assert code == 1 and message in err and f"k.incaq:1:{col}: error:" in err
    assert "^" in err and "Traceback" not in err


def test_repl_load_shows_and_applies_defaults(tmp_path):
    (tmp_path / "k.incaq").write_text(KERNEL)
    s = Session(load_profile("scratchpad"))
    reply = s.feed(f":load {tmp_path / 'k.incaq'} PAYLOAD=128")
    assert "nbytes: i64 = 128 (default)" in reply.text and "scale: f64 = 0.5 (default)" in reply.text
    assert not s.feed(":set A " + ", ".join(["1.0"] * 16)).error
    assert "s = 8.0" in s.feed(":run").text  # 16 ones, halved
    s.feed(":set nbytes 64")
    assert "s = 4.0" in s.feed(":run").text
    reply = s.feed(f":load {tmp_path / 'k.incaq'} PAYLOAD=64")
    assert "nbytes: i64 = 64 (default)" in reply.text  # the default follows the load's params
