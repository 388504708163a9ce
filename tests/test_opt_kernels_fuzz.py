"""Random loop kernels (kernel_generators.py) at -O1, -O2 and -Ofast against -O0.

-O1 and -O2 must give every output bit for bit, or the same fault (on inputs with NaN,
infinities, -0.0 and the i64 extremes), -Ofast within 1e-12 relative on finite inputs, and no
level may be slower (modeled) than -O0. The default suite draws 60 kernels; ``INCA_KERNEL_FUZZ_EXAMPLES=N`` makes a long run.
"""
from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings

from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.opt.pipeline import Level
from inca.interpreter.engine import RuntimeFault
from inca.interpreter.loader import execute
from inca.lang.diagnostics import Source
from inca.lang.tuples import encode
from kernel_generators import kernels
from test_incaq_fuzz import PROFILE
from test_opt_programs import close, same


def _run(text: str, level, inputs: dict):
    """The run's result, or the message of its fault."""
    prog = compile_source(Source("kernel.incaq", text), level=level)
    try:
        return execute(encode(prog), PROFILE, {k: list(v) for k, v in inputs.items()})
    except RuntimeFault as fault:
        return fault.message


@settings(max_examples=int(os.environ.get("INCA_KERNEL_FUZZ_EXAMPLES", "60")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kernels())
def test_random_kernels_at_every_level(case):
    text, special, finite = case
    for inputs, levels, equal in ((special, (Level(1), Level(2)), same),
                                  (finite, (Level(2, True),), close)):
        base = _run(text, None, inputs)
        for level in levels:
            got = _run(text, level, inputs)
            if isinstance(base, str):  # a fault at -O0: the same one at every level
                assert got == base, (text, level, got, base)
                continue
            assert not isinstance(got, str), (text, level, got)
            for name, value in base.outputs.items():
                assert equal(got.outputs[name], value), (text, level, name, got.outputs[name], value)
            assert got.time_ns <= base.time_ns, (text, level, got.time_ns, base.time_ns)
