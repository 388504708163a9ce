"""Random valid INCA-Q programs (incaq_generators.py) at -O1, -O2 and -Ofast.

Each level must compute what the independent reference interpreter computes: bit for bit at -O1
and -O2, within 1e-12 relative at -Ofast; a program that faults at -O0 faults at every level; and
no level is slower (modeled) than -O0.

The default suite draws 60 programs; ``INCA_OPT_FUZZ_EXAMPLES=5000`` makes a long run.
"""
from __future__ import annotations

import os

from hypothesis import given, settings

from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.opt.pipeline import Level
from inca.interpreter.engine import RuntimeFault
from inca.interpreter.loader import execute
from inca.lang.diagnostics import Source
from inca.lang.tuples import encode
from incaq_generators import programs
from incaq_reference import Fault, reference
from test_incaq_fuzz import PROFILE, SETTINGS, round_trips, same
from test_opt_programs import close


@settings(SETTINGS, max_examples=int(os.environ.get("INCA_OPT_FUZZ_EXAMPLES", "60")))
@given(programs())
def test_random_programs_at_every_level(case):
    gen, decls, body, text, inputs = case
    try:
        want = reference(gen, decls, body, inputs)
    except Fault:
        want = None
    for clobber in (False, True):
        base = None
        if want is not None:
            p0 = compile_source(Source("fuzz.incaq", text), clobber=clobber)
            base = execute(encode(p0), PROFILE, inputs, max_steps=1_000_000).time_ns
        for level in (Level(1), Level(2), Level(2, True)):
            prog = compile_source(Source("fuzz.incaq", text), clobber=clobber, level=level)
            round_trips(prog)
            try:
                result = execute(encode(prog), PROFILE, inputs, max_steps=1_000_000)
            except RuntimeFault as fault:
                assert want is None, (text, level, fault.message)
                continue
            assert want is not None, (text, level, "faults at -O0 only")
            for name, value in want.items():
                ok = close(value, result.outputs[name]) if level.fast_math else \
                    same(value, result.outputs[name])
                assert ok, (text, level, name, value, result.outputs[name], clobber)
            assert result.time_ns <= base, (text, level, result.time_ns, base)
