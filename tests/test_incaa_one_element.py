"""A vector operand of exactly one element stands wherever a scalar may (issue: reductions into a
scalar pay no extra copy): as the source of a scalar destination and as BLEZ's tested value. It is
priced by the vector rule over one element, which the scalar floor makes the scalar's cost at the
default profiles."""
from __future__ import annotations

from fractions import Fraction

import pytest

from inca.compiler.assembler import assemble_text
from inca.compiler.printer import print_program
from inca.lang.diagnostics import DiagnosticError
from inca.lang.tuples import encode, from_json, to_json

PROGRAM = """\
.input T f64[8]
.output c f64
.output d f64
.var k i64[3]
PUTL c, T[0:1]
ADD c, c, T[5:6]
PUTL k[1:2], 2
SUB k[1:2], k[1:2], 1
BLEZ k[1:2], 7
PUTL d, T[7:8]
END
"""
T = [1.5, 2.0, 3.0, 4.0, 5.0, 6.25, 7.0, 8.0]


def test_results_equal_an_independent_computation(run_asm):
    r = run_asm(PROGRAM, {"T": T})
    k = 2 - 1  # k[1] = 2, then 2 - 1 = 1 > 0: BLEZ falls through to d = T[7]
    assert k > 0
    assert r.outputs == {"c": T[0] + T[5], "d": T[7]}
    assert r.instructions == 6


def test_priced_by_the_vector_rule_over_one_element(run_asm):
    assert run_asm(PROGRAM, {"T": T}).time_ns == 11 + 12 + 11 + 12 + 11 + 11  # the scalar floor
    fast = run_asm(PROGRAM, {"T": T}, profile="scratchpad-1000g")
    assert fast.time_ns == 6 * (Fraction(9, 2) + Fraction(1, 3))  # above 2g + a*m there


def test_round_trips_through_the_printer_and_json():
    prog = assemble_text(PROGRAM)
    assert assemble_text(print_program(prog)) == prog
    tp = encode(prog)
    assert from_json(to_json(tp)) == tp


def test_blez_taken_on_a_one_element_vector(run_asm):
    text = ".var k i64[2]\n.output x i64\nBLEZ k[0:1], 3\nPUTL x, 1\nEND\n"
    assert run_asm(text).outputs == {"x": 0}


@pytest.mark.parametrize("text, message, col", [
    (".input V f64[4]\n.output x f64\nPUTL x, V[0:2]\nEND\n",
     "a vector source of 2 elements needs a vector destination", 9),
    (".var V i64[4]\nBLEZ V[1:3], 1\nEND\n", "BLEZ tests one value, not a vector", 6),
])
def test_longer_vectors_are_still_refused_with_a_caret(text, message, col):
    with pytest.raises(DiagnosticError) as e:
        assemble_text(text)
    d = e.value.diagnostics[0]
    assert d.message == message and d.loc.col == col and "^" in d.render()
