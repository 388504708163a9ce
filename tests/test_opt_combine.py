"""Pass ``combine`` (compiler/opt/combine.py): a leaf OP a computed operand is turned round where
that is exact, and ``T = a; T = T OP e`` becomes ``T = e OP a``, so the lowering computes the
operand in the destination."""
from __future__ import annotations

import math
import struct

from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.opt.pipeline import Level, Trace
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import Source
from inca.compiler.printer import print_program
from inca.lang.tuples import encode

O1, O2 = Level(1), Level(2)
PROFILE = load_profile("scratchpad")


def asm(text: str, level: Level) -> list[str]:
    """The instructions (no declarations, no END) of a kernel."""
    prog = compile_source(Source("k.incaq", text), level=level, trace=Trace())
    return [line.split(";")[0].split(None, 1)[1].strip() for line in print_program(prog).splitlines()
            if line.strip()[:1].isdigit() and "END" not in line]


def run(text: str, level: Level | None, inputs: dict):
    prog = compile_source(Source("k.incaq", text), level=level)
    return execute(encode(prog), PROFILE, inputs)


def bits(values) -> list[int]:
    return [struct.unpack("<q", struct.pack("<d", v))[0] for v in values]


SCALE = "input c: f64\ninput A: f64[16]\noutput Y: f64[16]\nfor i in 0 .. 16 do {\n    Y[i] = X\n}\n"


def test_a_number_first_is_turned_round_in_f64():
    assert asm(SCALE.replace("X", "0.5 + c * A[i]"), O2) == [
        "PUTL Y[0:16], c", "MUL Y[0:16], Y[0:16], A[0:16]", "ADD Y[0:16], Y[0:16], 0.5"]


def test_a_scalar_first_is_not_turned_round_in_f64():
    # of two NaNs ADD keeps its destination's bits: b + (c * A[i]) must add into b's copy
    found = asm(SCALE.replace("input c", "input b: f64\ninput c").replace("X", "b + c * A[i]"), O2)
    assert found[0] == "PUTL Y[0:16], b"


def test_a_scalar_first_is_turned_round_in_i64():
    text = SCALE.replace("f64", "i64").replace("input c", "input b: i64\ninput c").replace("X", "b + c * A[i]")
    assert asm(text, O2)[0] == "PUTL Y[0:16], c"


def test_an_assignment_of_a_leaf_joins_the_operation_after_it():
    text = ("input F: f64[3]\ninput P: f64[3]\noutput y: f64\n"
            "s = 0.0\ns = s + F[0] * P[1]\ns = s + F[1] * P[2]\ny = s\n")
    body = asm(text, O1)
    assert body[:3] == ["PUTL s, F[0]", "MUL s, s, P[1]", "ADD s, s, 0.0"]
    inputs = {"F": [1.5, -2.0, 0.25], "P": [-0.0, 3.0, 8.0]}
    assert run(text, O1, inputs).outputs == run(text, None, inputs).outputs


def test_nothing_joins_across_a_change_of_type_or_a_read_of_the_destination():
    # s is f64 and 1 an i64: T = 1; T = T + e is not e + 1 in e's type; and e reading s
    mixed = "input A: f64[2]\noutput s: f64\ns = 1\ns = s + A[0] * A[1]\n"
    reads = "input A: f64[2]\noutput s: f64\ns = 1.0\ns = s + A[0] * s\n"
    for text, first in ((mixed, "PUTL s, 1"), (reads, "PUTL s, 1.0")):
        assert asm(text, O1)[0] == first
        inputs = {"A": [2.5, -3.0]}
        assert run(text, O1, inputs).outputs == run(text, None, inputs).outputs


def test_a_nan_keeps_its_bits():
    # -inf - -inf is a NaN with its sign bit set; 0.5 + that NaN and that NaN + 0.5 are the same
    text = ("input A: f64[4]\ninput B: f64[4]\noutput Y: f64[4]\n"
            "for i in 0 .. 4 do {\n    Y[i] = 0.5 + (A[i] - B[i])\n}\n")
    inputs = {"A": [-math.inf, 1.0, math.nan, -0.0], "B": [-math.inf, 2.0, 0.0, 0.0]}
    want = bits(run(text, None, inputs).outputs["Y"])
    for level in (O1, O2, Level(2, True)):
        assert bits(run(text, level, inputs).outputs["Y"]) == want
