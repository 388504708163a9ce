"""The argmax pass: ``for i { if E > m then { m = E; k = i } }`` (and >=, <, <=, with any
payloads) as a max or min reduction and a second one for where it is reached; proven by z3
(``--verify``) on small kernels, exact at -O2 for i64 and at -Ofast for f64, and left alone where
it would not be exact."""
from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_opt_passes import FAST, O2, compiled, remarks, run
from test_opt_programs import close, same

from inca.compiler.opt.verify import verify

KERNEL = ("param N = {n}\ninput X: {t}[N]\ninput P: i64[N]\ninput m0: {t}\noutput m: {t}\n"
          "output k: i64\noutput v: {vt}\nm = {init}\nfor i in {lo} .. N do {{\n"
          "    if {cond} then {{\n        k = i\n        m = X[i]\n        v = P[i] * 2\n    }}\n}}\n")
OPS = ("X[i] > m", "X[i] >= m", "X[i] < m", "X[i] <= m", "m < X[i]", "m >= X[i]")


def kernel(cond: str, n: int = 64, t: str = "i64", init: str = "X[0]", lo: int = 1,
           vt: str = "f64") -> str:
    return KERNEL.format(n=n, t=t, init=init, cond=cond, lo=lo, vt=vt)


@pytest.mark.parametrize("cond", OPS)
@pytest.mark.parametrize("init", ("X[0]", "m0"))
def test_the_rewrite_is_proven_by_z3(cond, init):
    # (an i64 payload: with an f64 one, z3 takes ten to twenty times as long)
    text = kernel(cond, n=5, init=init, lo=0 if init == "m0" else 1, vt="i64")
    assert "[argmax]" in remarks(text, O2)
    verdict = verify(compiled(text, None)[0], compiled(text, O2)[0], timeout_s=60)
    assert verdict.status == "verified", verdict.detail


X = [(-1) ** n * (n * 7919 % 1000) for n in range(60)] + [-(1 << 63), (1 << 63) - 1, 999, -999]
P = [n * 3 - 50 for n in range(64)]


@pytest.mark.parametrize("cond", OPS)
def test_an_argmax_of_64_elements_is_exact_and_five_times_faster(cond):
    text = kernel(cond)
    for m0 in (0, (1 << 63) - 1, -(1 << 63), 999):
        inputs = {"X": X, "P": P, "m0": [m0]}
        o0, o2 = run(text, None, inputs), run(text, O2, inputs)
        assert o2.outputs == o0.outputs
    assert o2.time_ns * 5 < o0.time_ns, (o2.time_ns, o0.time_ns)


def test_ties_take_the_first_index_with_a_strict_compare_and_the_last_without():
    xs = [5, 1, 7, 3, 7, 2, 7, 0]
    for cond, want in (("X[i] > m", 2), ("X[i] >= m", 6)):
        text = kernel(cond, n=8, init="m0", lo=0)
        out = run(text, O2, {"X": xs, "P": list(range(8)), "m0": [-100]}).outputs
        assert (out["m"], out["k"], out["v"]) == (7, want, 2.0 * want)


def test_an_f64_argmax_waits_for_fast_math():
    text = kernel("X[i] > m", t="f64")
    assert "as max and == it would differ on NaN and -0.0 (use -Ofast)" in remarks(text, O2)
    assert "[argmax] running maximum" in remarks(text, FAST)
    xs = [math.sin(n) * 100 for n in range(64)]
    inputs = {"X": xs, "P": P, "m0": [0.0]}
    o0, fast = run(text, None, inputs), run(text, FAST, inputs)
    assert fast.outputs == o0.outputs and fast.time_ns * 4 < o0.time_ns


@pytest.mark.parametrize("body, why", (
    ("if X[i] > m then { m = X[i] }", "no payload: a clamp, ifconvert's"),
    ("if X[i] > m then { m = X[i]; k = k + 1 }", "the payload reads what the loop assigns"),
    ("if X[i] > m then { m = X[i] + 1; k = i }", "m is not set to what it is compared with"),
    ("if X[i] > m then { m = X[i]; k = 100 / P[i] }", "the payload may fault"),
    ("if X[i] > m then { m = X[i]; k = i } else { k = 0 }", "an else"),
    ("if X[i] != m then { m = X[i]; k = i }", "not an order"),
))
def test_loops_that_are_not_an_exact_argmax_are_left_alone(body, why):
    text = ("input X: i64[16]\ninput P: i64[16]\noutput m: i64\noutput k: i64\n"
            f"for i in 0 .. 16 do {{ {body} }}\n")
    assert "[argmax]" not in remarks(text, O2), why
    inputs = {"X": [(n * 5) % 7 - 3 for n in range(16)], "P": [n % 3 for n in range(16)]}
    assert run(text, O2, inputs).outputs == run(text, None, inputs).outputs


@settings(max_examples=int(os.environ.get("INCA_ARGMAX_EXAMPLES", "60")), deadline=None)
@given(st.sampled_from(OPS), st.sampled_from(("i64", "f64")), st.integers(2, 40),
       st.lists(st.integers(-3, 3), min_size=40, max_size=40), st.integers(-4, 4))
def test_random_argmaxes_equal_O0(cond, t, n, xs, m0):
    text = kernel(cond, n=n, t=t, init="m0", lo=0)
    values = xs[:n] if t == "i64" else [x * 0.5 for x in xs[:n]]
    inputs = {"X": values, "P": list(range(n)), "m0": [m0 if t == "i64" else m0 * 0.5]}
    o0 = run(text, None, inputs)
    for level, equal in ((O2, same), (FAST, close)):
        opt = run(text, level, inputs)
        assert all(equal(opt.outputs[x], o0.outputs[x]) for x in o0.outputs), (text, level)
        assert opt.time_ns <= o0.time_ns, (text, level)
