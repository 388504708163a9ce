"""Property tests of the INCA-Q compiler with hypothesis.

(a) Random valid programs (declared inputs and outputs, scalars, bounded loops, ifs, i64/f64
    expressions, in-bounds array accesses, functions and calls) are compiled, run on the NIC model
    and compared with a small interpreter written from INCA-Q.md and INCA-A.md (wrapping i64,
    C division, i64 op f64 promotes to f64, short-circuit conditions, scalars by value and arrays
    by reference), with and without --clobber. The interpreter is in incaq_reference.py, the
    program generators (hypothesis strategies) are in incaq_generators.py.
(b) Random mutations of valid programs: the compiler returns a Program or raises DiagnosticError;
    whatever compiles runs to a RunResult, RuntimeFault or StepLimit.
(c) Every compiled program's INCA-A text re-assembles to an equal Program.
"""
from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings

from inca.compiler.assembler import assemble_text
from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.printer import print_program
from inca.interpreter.engine import RuntimeFault
from inca.interpreter.loader import RunResult, execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import DiagnosticError, Source
from inca.lang.program import Program
from inca.lang.tuples import encode
from incaq_generators import mutants, programs
from incaq_reference import I64_MIN, Fault, arith, convert, reference

SETTINGS = settings(max_examples=200, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PROFILE = load_profile("scratchpad")


def same(a, b) -> bool:
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    return a == b and type(a) is type(b)


def round_trips(prog: Program) -> None:
    assert assemble_text(print_program(prog), prog.name) == prog
    assert assemble_text(print_program(prog, locations=True), prog.name) == prog


# ---- (a) and (c): valid programs ----------------------------------------------------------------


@SETTINGS
@given(programs())
def test_random_valid_programs_match_the_reference(case):
    gen, decls, body, text, inputs = case
    try:
        want = reference(gen, decls, body, inputs)
    except Fault:
        want = None
    for clobber in (False, True):
        prog = compile_source(Source("fuzz.incaq", text), clobber=clobber)
        round_trips(prog)
        try:
            result = execute(encode(prog), PROFILE, inputs, max_steps=1_000_000)
        except RuntimeFault as fault:
            assert want is None, (text, fault.message)
            continue
        assert isinstance(result, RunResult) and want is not None, text
        got = result.outputs
        assert set(got) == set(want)
        for name, value in want.items():
            assert same(value, got[name]), (text, name, value, got[name], clobber)


# ---- (b): mutations -----------------------------------------------------------------------------

@SETTINGS
@given(mutants())
def test_mutated_programs_compile_or_diagnose_and_run_or_fault(text):
    try:
        prog = compile_source(Source("mutant.incaq", text))
    except DiagnosticError as e:
        assert e.diagnostics and all(d.message for d in e.diagnostics)
        return
    round_trips(prog)
    try:
        result = execute(encode(prog), PROFILE, {}, max_steps=2_000)
    except RuntimeFault:
        return
    except DiagnosticError as e:  # data that does not fit in the scratchpad
        assert "scratchpad" in str(e)
        return
    assert isinstance(result, RunResult)


def test_reference_semantics_by_hand():
    # the interpreter's corners, checked against values computed by hand
    assert arith("/", -7, 2, "i64") == -3 and arith("%", -7, 2, "i64") == -1
    assert arith("*", 2**62, 4, "i64") == 0 and arith("/", I64_MIN, -1, "i64") == I64_MIN
    assert arith("<<", 1, 63, "i64") == I64_MIN and arith(">>", -8, 1, "i64") == -4
    assert convert(-2.9, "i64") == -2 and math.isnan(arith("max", 1.0, math.nan, "f64"))
