"""Pass ``scan``: prefix sums, minima, products... as log2(n) vector steps, in the array form and
the two scalar forms, exact where the operator may be reassociated; random scans against -O0."""
from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_opt_passes import FAST, O2, remarks, run
from test_opt_programs import close, same

ARRAY = ("input X: {t}[64]\noutput P: {t}[64]\nP[0] = X[0]\nfor i in 1 .. 64 do {{\n"
         "    P[i] = {step}\n}}\n")
INCLUSIVE = ("input X: {t}[64]\noutput P: {t}[64]\noutput s: {t}\nfor i in 0 .. 64 do {{\n"
             "    s = {step}\n    P[i] = s\n}}\n")
EXCLUSIVE = ("input X: {t}[64]\noutput P: {t}[64]\noutput s: {t}\nfor i in 0 .. 64 do {{\n"
             "    P[i] = s\n    s = {step}\n}}\n")
I64 = [(-1) ** n * (n * 7919 % 1000) for n in range(62)] + [-(1 << 63), (1 << 63) - 1]
F64 = [(n * 37 % 101) * 0.125 - 6.0 for n in range(64)]


@pytest.mark.parametrize("text, step, kind", (
    (ARRAY, "P[i - 1] + X[i]", "array"),
    (ARRAY, "X[i] + P[i - 1]", "array"),
    (INCLUSIVE, "s + X[i]", "inclusive"),
    (EXCLUSIVE, "X[i] + s", "exclusive"),
))
def test_a_prefix_sum_becomes_log2_vector_steps(text, step, kind):
    # the array form scans P[0:64] (its 63 terms after P[0]); the scalar forms s and 64 terms
    src = text.format(t="i64", step=step)
    said = "6 vector steps (63 terms)" if text is ARRAY else "7 vector steps (64 terms)"
    assert f"prefix + over i ({kind}) turned into {said}" in remarks(src, O2)
    inputs = {"X": I64}
    o0, o2 = run(src, None, inputs), run(src, O2, inputs)
    assert o2.outputs == o0.outputs and o2.time_ns * 20 < o0.time_ns, (o2.time_ns, o0.time_ns)


def test_an_f64_prefix_sum_waits_for_fast_math_and_a_prefix_maximum_does_not():
    src = ARRAY.format(t="f64", step="P[i - 1] + X[i]")
    assert "prefix + over i kept in order: use -Ofast to reassociate" in remarks(src, O2)
    assert "turned into 6 vector steps" in remarks(src, FAST)
    inputs = {"X": F64}
    o0, fast = run(src, None, inputs), run(src, FAST, inputs)
    assert close(fast.outputs["P"], o0.outputs["P"])
    src = ARRAY.format(t="f64", step="max(P[i - 1], X[i])")
    assert "prefix max over i (array) turned into 6 vector steps" in remarks(src, O2)
    inputs = {"X": [math.nan, -0.0, 0.0] + F64[3:]}
    assert repr(run(src, O2, inputs).outputs) == repr(run(src, None, inputs).outputs)


def test_terms_that_read_the_prefix_keep_the_loop():
    src = ARRAY.format(t="i64", step="P[i - 1] + P[i - 1] * X[i]")
    assert "prefix" not in remarks(src, O2)
    src = INCLUSIVE.format(t="i64", step="s + X[i] * s")
    assert "prefix" not in remarks(src, O2)


_STEPS = ("{p} + {e}", "{e} + {p}", "{p} * {e}", "min({p}, {e})", "max({e}, {p})", "{p} ^ {e}",
          "{p} & {e}", "{p} | {e}", "{p} - {e}")
_TERMS = {"i64": ("X[i]", "X[i] * 3 - i", "X[63 - i]", "2"),
          "f64": ("X[i]", "X[i] * 3.0 - 1.5", "X[63 - i]", "2.0")}


@settings(max_examples=int(os.environ.get("INCA_SCAN_EXAMPLES", "100")), deadline=None)
@given(st.sampled_from(("array", "inclusive", "exclusive")), st.sampled_from(_STEPS),
       st.integers(0, 3), st.sampled_from(("i64", "f64")), st.integers(1, 40),
       st.lists(st.integers(-9, 9), min_size=64, max_size=64))
def test_random_scans_equal_O0(form, step, term, dtype, lo, xs):
    if dtype == "f64" and any(op in step for op in ("^", "&", "|")):
        return
    term = _TERMS[dtype][term]
    if form == "array":
        text = (f"input X: {dtype}[64]\noutput P: {dtype}[64]\nfor i in {lo} .. 64 do {{\n"
                f"    P[i] = {step.format(p='P[i - 1]', e=term)}\n}}\n")
    else:
        update = f"s = {step.format(p='s', e=term)}"
        body = f"    {update}\n    P[i] = s\n" if form == "inclusive" else f"    P[i] = s\n    {update}\n"
        text = (f"input X: {dtype}[64]\noutput P: {dtype}[64]\noutput s: {dtype}\n"
                f"for i in {lo} .. 64 do {{\n{body}}}\n")
    values = xs if dtype == "i64" else [x * 0.25 for x in xs]
    inputs = {"X": values}
    o0 = run(text, None, inputs)
    for level, equal in ((O2, same), (FAST, close)):
        opt = run(text, level, inputs)
        for name, value in o0.outputs.items():
            assert equal(opt.outputs[name], value), (text, level, name)
        assert opt.time_ns <= o0.time_ns, (text, level)
