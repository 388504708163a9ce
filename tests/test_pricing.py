"""One pricing function: a run priced from its tally equals a direct run under that profile.

``pricing.price`` (re-exported by ``loader``) turns a run's tally (fire counts grouped by class,
immediate source and vector length) and a profile into the statistics; ``execute`` uses it, and
``reprice`` prices a recorded run under another profile (what ``inca report --grid`` does for
every grid point). For random
programs (``engine_fuzz.py``) and random profiles, a repriced run equals ``execute`` under the
profile in every field but the wall time and the speed, and a profile the data does not fit is
the same diagnostic either way.
"""
from __future__ import annotations

from dataclasses import fields
from fractions import Fraction

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine_fuzz import programs
from test_engines import bits
from inca.interpreter.engine import RuntimeFault
from inca.interpreter.loader import RunResult, execute, reprice, time_us_text
from inca.interpreter.profiles import format_number, make_profile
from inca.lang.diagnostics import DiagnosticError


def _value(lo: int, hi: int):
    """An exact parameter value written as a user would: an integer, a decimal or a fraction."""
    whole = st.integers(lo, hi).map(str)
    decimal = st.integers(lo * 10, hi * 10).map(lambda n: format_number(Fraction(n, 10)))
    ratio = st.tuples(st.integers(lo, hi), st.integers(1, 7)).map(lambda t: f"{t[0]}/{t[1]}")
    return whole | decimal | ratio


@st.composite
def profiles(draw):
    if draw(st.booleans()):
        params = {"link_gbps": draw(_value(1, 2000)), "msg_bits": str(draw(st.integers(1, 4096))),
                  "L": draw(_value(0, 50)), "m": draw(_value(0, 20)), "vec_fixed": draw(_value(0, 30)),
                  "elem_gap": draw(_value(0, 5)), "scratchpad_bytes": str(draw(st.integers(0, 1200)))}
        return make_profile("drawn", "scratchpad", params)
    params = {"op_ns": draw(_value(0, 500)), "fetch_ns": draw(_value(0, 500)),
              "elem_ns": draw(_value(0, 5))}
    return make_profile("drawn", "host", params)


RECORDED_UNDER = make_profile("recording", "host", {})


def outcome(thunk):
    try:
        return thunk()
    except DiagnosticError as e:
        return [d.render() for d in e.diagnostics]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs(), st.lists(profiles(), min_size=1, max_size=3))
def test_repriced_run_equals_direct_run(case, drawn):
    tp, inputs, budget = case
    try:
        recorded = execute(tp, RECORDED_UNDER, {k: list(v) for k, v in inputs.items()}, budget)
    except RuntimeFault:
        assume(False)
    for profile in drawn:
        got = outcome(lambda: reprice(recorded, profile))
        want = outcome(lambda: execute(tp, profile, {k: list(v) for k, v in inputs.items()}, budget))
        assert type(got) is type(want)
        if isinstance(want, list):  # the data does not fit this profile: the same diagnostic
            assert got == want
            continue
        for f in fields(RunResult):
            a, b = getattr(got, f.name), getattr(want, f.name)
            if f.name == "outputs":  # bit for bit: NaN is not equal to itself
                a, b = {k: bits(v) for k, v in a.items()}, {k: bits(v) for k, v in b.items()}
            if f.name not in ("wall_s", "tuples_per_s"):
                assert a == b, f.name


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 10**15), st.integers(1, 10**6))
def test_printed_microseconds_are_the_rounded_double_of_the_exact_quotient(n, d):
    t = Fraction(n, d)
    assert time_us_text(t) == f"{float(t / 1000):.2f}"
    assert time_us_text(n) == f"{float(Fraction(n) / 1000):.2f}"
