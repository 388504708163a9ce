"""Pass ``coalesce`` (compiler/opt/coalesce.py): an array whose values are only copied whole into
another is computed in that other array, where nothing in between reads it."""
from __future__ import annotations

import pytest

from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.opt.pipeline import Level, Trace
from inca.compiler.printer import print_program
from inca.interpreter.engine import RuntimeFault
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import Source
from inca.lang.tuples import encode

O2 = Level(2)
PROFILE = load_profile("scratchpad")
ROWS = ("input A: f64[4][8]\ninput x: f64[8]\n{out}\nfor i in 0 .. 4 do {{\n    acc = 0.0\n"
        "    for j in 0 .. 8 do {{\n        acc = acc + A[i][j] * x[j]\n    }}\n    {store}\n}}\n")
A = [(k % 7) - 3.5 for k in range(32)]
X = [0.5 * j - 1.0 for j in range(8)]


def compiled(text: str):
    trace = Trace()
    prog = compile_source(Source("k.incaq", text), level=O2, trace=trace)
    return print_program(prog), trace.remarks.text()


def outputs(text: str, level, inputs: dict):
    prog = compile_source(Source("k.incaq", text), level=level)
    return execute(encode(prog), PROFILE, inputs).outputs


def test_the_expanded_accumulator_is_the_output_itself():
    text = ROWS.format(out="output y: f64[4]", store="y[i] = acc")
    asm, remarks = compiled(text)
    assert "PUTL y[0:4], v" not in asm and "ADD y[0:4], y[0:4]" in asm
    assert "remark: [coalesce] values computed in y itself, not in an array then copied into it" in remarks
    inputs = {"A": A, "x": X}
    assert outputs(text, O2, inputs) == outputs(text, None, inputs)


COPY = ("input A: f64[4]\noutput y: f64[4]\noutput w: f64\nvar v: f64[4]\n"
        "for i in 0 .. 4 do {{\n    v[i] = A[i] * 2.0\n}}\n{between}"
        "for i in 0 .. 4 do {{\n    y[i] = v[i]\n}}\n{after}")


@pytest.mark.parametrize("between, after, done", [
    ("", "", True),
    ("", "w = y[2] + 1.0\n", True),          # y read after the copy: its values are the same
    ("w = y[2] + 1.0\n", "", False),         # y read in between: it must not change early
    ("", "w = v[2] + 1.0\n", False),         # v read after the copy: v stays
    ("v[1] = 5.0\n", "", False),             # v named at one element: not whole
])
def test_a_copy_is_coalesced_only_where_it_is_the_last_word(between, after, done):
    text = COPY.format(between=between, after=after)
    asm, remarks = compiled(text)
    assert ("[coalesce]" in remarks) == done, asm
    inputs = {"A": [1.5, -2.0, 0.25, 8.0]}
    assert outputs(text, O2, inputs) == outputs(text, None, inputs)


def test_with_clobber_the_outputs_stay_those_of_O0():
    # (--clobber's plan, made before the passes, may evaluate into inputs; an output it stores in
    # an input is that input in the kernel the passes see, so a run still reading it names Y)
    text = ROWS.format(out="output y: f64[4]", store="y[i] = acc")
    prog = compile_source(Source("k.incaq", text), level=O2, clobber=True)
    inputs = {"A": A, "x": X}
    want = outputs(text, None, inputs)
    assert execute(encode(prog), PROFILE, inputs).outputs["y"] == want["y"]


def test_a_fault_stays_a_fault():
    text = ("input A: i64[4][8]\ninput d: i64\noutput y: i64[4]\nfor i in 0 .. 4 do {\n    acc = 0\n"
            "    for j in 0 .. 8 do {\n        acc = acc + A[i][j] / d\n    }\n    y[i] = acc\n}\n")
    inputs = {"A": [1] * 32, "d": [0]}
    for level in (None, O2):
        with pytest.raises(RuntimeFault):
            outputs(text, level, inputs)
