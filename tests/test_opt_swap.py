"""Compare-exchanges (``if A > B then { t = A; A = B; B = t }``, a sorting network's step) become
a min and a max, so a loop of them vectorises; exact against -O0 on hand-made and random networks
(60 in the suite, ``INCA_SWAP_EXAMPLES=N`` for more)."""
from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_opt_passes import FAST, O2, remarks, run
from test_opt_programs import close
from test_opt_split import assert_as_at_O0

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1
SORT = ("param N = 16\ninout X: i64[N]\nfor r in 0 .. N / 2 do {\n    for i in 0 .. N / 2 do {\n"
        "        if X[2 * i] > X[2 * i + 1] then {\n            t = X[2 * i]\n"
        "            X[2 * i] = X[2 * i + 1]\n            X[2 * i + 1] = t\n        }\n    }\n"
        "    for i in 0 .. N / 2 - 1 do {\n        if X[2 * i + 1] > X[2 * i + 2] then {\n"
        "            t = X[2 * i + 1]\n            X[2 * i + 1] = X[2 * i + 2]\n"
        "            X[2 * i + 2] = t\n        }\n    }\n}\n")
DATA = [5, I64_MIN, 3, 3, -7, I64_MAX, 0, 12, -1, 9, 9, 2, I64_MAX, -20, 8, 1]


def test_odd_even_transposition_sort_vectorises_and_sorts():
    said = remarks(SORT, O2)
    assert said.count("[ifconvert] compare-exchange of") == 2
    assert "vectorised over i (8 elements)" in said and "vectorised over i (7 elements)" in said
    o0, o2 = run(SORT, None, {"X": DATA}), run(SORT, O2, {"X": DATA})
    assert o2.outputs == o0.outputs and o0.outputs["X"] == sorted(DATA)
    assert o2.time_ns * 25 < o0.time_ns, (o2.time_ns, o0.time_ns)


@pytest.mark.parametrize("cond, first, then", (
    ("X[i] > Y[i]", "t = X[i]", "X[i] = Y[i]; Y[i] = t"),
    ("X[i] >= Y[i]", "t = Y[i]", "Y[i] = X[i]; X[i] = t"),
    ("Y[i] < X[i]", "t = X[i]", "X[i] = Y[i]; Y[i] = t"),
    ("X[i] < Y[i]", "t = X[i]", "X[i] = Y[i]; Y[i] = t"),
    ("X[i] <= Y[i]", "t = Y[i]", "Y[i] = X[i]; X[i] = t"),
))
def test_each_form_of_the_exchange_is_exact(cond, first, then):
    text = f"inout X: i64[4]\ninout Y: i64[4]\nfor i in 0 .. 4 do {{\n    if {cond} then {{ {first}; {then} }}\n}}\n"
    assert "compare-exchange of" in remarks(text, O2)
    inputs = {"X": [3, 9, 4, I64_MIN], "Y": [9, 3, 4, I64_MAX]}
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert o2.outputs == o0.outputs and o2.time_ns * 4 < o0.time_ns


def test_an_exchange_that_does_not_vectorise_stays_a_branch():
    # as a min and a max it costs one ALU instruction more than its compare's branch not taken
    text = ("input A: i64[2]\noutput a: i64\noutput b: i64\na = A[0]\nb = A[1]\n"
            "if a > b then { t = a; a = b; b = t }\n")
    assert "compare-exchange" not in remarks(text, O2)
    assert_as_at_O0(text, {"A": [3, 9]})


@pytest.mark.parametrize("text, why", (
    ("inout X: i64[4]\noutput t: i64\nfor i in 0 .. 3 do {\n    if X[i] > X[i + 1] then "
     "{ t = X[i]; X[i] = X[i + 1]; X[i + 1] = t }\n}\n", "t is an output: it keeps a value only if swapped"),
    ("inout X: i64[4]\noutput c: i64\nfor i in 0 .. 3 do {\n    if X[i] > X[i + 1] then "
     "{ t = X[i]; X[i] = X[i + 1]; X[i + 1] = t }\n    c = c + t\n}\n", "t is read after the if"),
    ("inout X: i64[4]\nfor i in 0 .. 3 do {\n    if X[i] > X[i + 1] then "
     "{ t = X[i]; X[i] = X[i + 1]; X[i + 1] = X[i] }\n}\n", "not an exchange"),
    ("input A: i64[4]\ninout X: i64[4]\nfor i in 0 .. 3 do {\n    if X[A[i]] > X[i] then {\n"
     "        t = X[A[i]]\n        X[A[i]] = X[i]\n        X[i] = t\n    }\n}\n", "an index read from the data"),
))
def test_what_is_not_an_exchange_stays_a_branch(text, why):
    assert "compare-exchange" not in remarks(text, O2), why
    inputs = {"A": [3, 1, 0, 2], "X": [4, 4, 1, 7]}
    assert_as_at_O0(text, {n: v for n, v in inputs.items() if f" {n}: " in text})


def test_an_f64_exchange_waits_for_fast_math():
    text = SORT.replace("i64", "f64")
    assert "compare-exchange of X[(2 * i)] and X[((2 * i) + 1)] kept as a branch" in remarks(text, O2)
    # (NaN is never swapped, so the sorted order holds only for numbers, as -Ofast assumes)
    data = [float(x % 1000) - 0.5 for x in DATA]
    o0, fast = run(text, None, {"X": data}), run(text, FAST, {"X": data})
    assert "compare-exchange" in remarks(text, FAST) and close(o0.outputs["X"], fast.outputs["X"])
    assert math.isfinite(sum(fast.outputs["X"]))


_PAIRS = (("X[i]", "X[i + 1]"), ("X[2 * i]", "X[2 * i + 1]"), ("X[i]", "X[7 - i]"), ("X[i]", "Y[i]"),
          ("X[i + 4]", "X[i]"), ("X[0]", "X[i]"))


@settings(max_examples=int(os.environ.get("INCA_SWAP_EXAMPLES", "60")), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PAIRS), st.sampled_from(("<", "<=", ">", ">=")), st.booleans(),
                          st.integers(0, 4)), min_size=1, max_size=3),
       st.lists(st.sampled_from((0, 1, -1, 7, I64_MIN, I64_MAX)), min_size=8, max_size=8))
def test_random_networks_equal_O0(steps, xs):
    # indices may leave the arrays (X[i + 4] for i up to 7): a run that faults at -O0 faults
    # when optimised too
    body = ""
    for (a, b), op, via_b, hi in steps:
        first = f"t = {b}\n        {b} = {a}\n        {a} = t" if via_b else f"t = {a}\n        {a} = {b}\n        {b} = t"
        body += f"for i in 0 .. {4 + hi} do {{\n    if {a} {op} {b} then {{\n        {first}\n    }}\n}}\n"
    text = "inout X: i64[8]\ninout Y: i64[8]\n" + body
    assert_as_at_O0(text, {"X": xs, "Y": xs[::-1]})
