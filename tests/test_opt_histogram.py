"""Pass ``histogram``: ``H[e(i)] = H[e(i)] + w(i)`` with e's values known to lie in a few buckets
inside H becomes a reduction per bucket, ``H[b] = H[b] + (e(i) == b) * w(i)``, which ``reduce``
computes as one 2-D compare and a tree of rows."""
from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inca.compiler.incaq.ast import Binary, Call, Compare, Index, Name, Num
from inca.compiler.opt.histogram import value_range
from test_opt_passes import FAST, O2, asm, remarks, run
from test_opt_split import assert_as_at_O0

HIST = "input X: i64[64]\noutput H: i64[8]\nfor i in 0 .. 64 do {\n    H[X[i] & 7] = H[X[i] & 7] + 1\n}\n"
EDGES = [-(1 << 63), (1 << 63) - 1, 0, -1]
XS = [EDGES[n % 4] if n % 7 == 0 else n * 7919 % 1000 - 500 for n in range(64)]


def test_a_count_per_bucket_is_one_2d_compare_and_a_tree_of_rows():
    said = remarks(HIST, O2)
    assert "[histogram] accumulation into H[(X[i] & 7)] counted per bucket: the index takes values " \
           "0 .. 7" in said
    assert "for all 8 accumulators at once" in said
    text = asm(HIST, O2)
    assert "EQ v1[0:8][0:64], v1[0:8][0:64], count1[0:8][0:1]" in text and "H[r" not in text
    o0, o2 = run(HIST, None, {"X": XS}), run(HIST, O2, {"X": XS})
    assert o2.outputs == o0.outputs and sum(o0.outputs["H"]) == 64
    # 2,240 ns at -O2 before (three scalar instructions per element)
    assert o2.time_ns * 7 < o0.time_ns and o2.time_ns < 800


def test_weights_and_differences_and_f64_only_at_Ofast():
    text = ("input X: i64[64]\ninput W: i64[64]\noutput H: i64[4]\nfor i in 0 .. 64 do {\n"
            "    H[(X[i] >> 3) & 3] = H[(X[i] >> 3) & 3] - W[i] * 2\n}\n")
    assert "counted per bucket: the index takes values 0 .. 3" in remarks(text, O2)
    assert_as_at_O0(text, {"X": XS, "W": XS[::-1]})
    f64 = ("input X: i64[64]\ninput W: f64[64]\noutput H: f64[4]\nfor i in 0 .. 64 do {\n"
           "    H[X[i] & 3] = H[X[i] & 3] + W[i]\n}\n")
    assert "kept as it is: adding 0.0 for the other buckets would change -0.0 and infinities " \
           "(use -Ofast)" in remarks(f64, O2)
    assert "counted per bucket" in remarks(f64, FAST)
    ws = [(n * 37 % 101) * 0.125 - 6.0 for n in range(64)]
    o0, fast = run(f64, None, {"X": XS, "W": ws}), run(f64, FAST, {"X": XS, "W": ws})
    assert all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)
               for a, b in zip(fast.outputs["H"], o0.outputs["H"]))
    assert fast.time_ns * 3 < o0.time_ns


@pytest.mark.parametrize("index, why", (
    ("X[i] % 8", "its index is not known to stay in a few buckets inside H"),
    ("X[i] & 15", "its index is not known to stay in a few buckets inside H"),
))
def test_an_index_that_may_leave_the_array_keeps_its_fault(index, why):
    text = HIST.replace("X[i] & 7", index)
    assert f"kept as it is: {why}" in remarks(text, O2)
    assert_as_at_O0(text, {"X": XS})  # -O0 faults on a negative remainder or on 8 .. 15


def test_a_clamped_bucket_is_known_to_stay_inside():
    # ten buckets of width 10, the values below and above clamped into the first and the last
    text = ("input X: i64[64]\noutput H: i64[10]\nfor i in 0 .. 64 do {\n"
            "    H[min(max(X[i] / 10, 0), 9)] = H[min(max(X[i] / 10, 0), 9)] + 1\n}\n")
    assert "counted per bucket: the index takes values 0 .. 9" in remarks(text, O2)
    assert_as_at_O0(text, {"X": XS})


def test_an_index_computed_from_i_alone_is_left_to_unroll():
    text = "input X: i64[64]\noutput S: i64[16]\nfor i in 0 .. 64 do {\n    S[i / 4] = S[i / 4] + X[i]\n}\n"
    assert "[histogram]" not in remarks(text, O2)


def test_value_ranges():
    x, i = Index("X", (Name("i"),)), Name("i")

    def n(v):
        return Num(v, False)
    ranges = {"i": (0, 10)}
    assert value_range(Binary("&", x, n(7)), ranges) == (0, 7)
    assert value_range(Binary("&", Binary(">>", x, n(3)), n(3)), ranges) == (0, 3)
    assert value_range(Binary("%", x, n(8)), ranges) is None  # negative remainders
    assert value_range(Binary("%", Binary("&", x, n(255)), n(8)), ranges) == (0, 7)
    assert value_range(Call("min", (Call("max", (x, n(0))), n(5))), ranges) == (0, 5)
    assert value_range(Call("max", (x, n(0))), ranges) is None  # (0 and up)
    assert value_range(Call("max", (Call("min", (Binary("/", x, n(10)), n(9))), n(0))), ranges) == (0, 9)
    assert value_range(Binary("+", Call("max", (x, n(0))), n(1)), ranges) is None  # may wrap
    assert value_range(Call("min", (Binary("&", x, n(9)), n(5))), ranges) == (0, 5)
    assert value_range(Binary("+", Compare(">", x, n(0)), Compare("<", x, n(9))), ranges) == (0, 2)
    assert value_range(Binary("-", Binary("*", i, n(3)), n(1)), ranges) == (-1, 26)
    assert value_range(Binary("*", Binary(">>", x, n(1)), n(4)), ranges) is None
    assert value_range(Binary("/", Binary("&", x, n(63)), n(4)), ranges) == (0, 15)


_INDEXES = ("X[i] & 3", "(X[i] >> 60) & 3", "min(X[i] & 7, 3)", "(X[i] > 0) + (X[i] > 99)", "X[i] % 4",
            "(X[i] & 255) % 4", "(X[i] & 15) / 4", "X[i] & 7", "min(max(X[i], 0), 3)",
            "max(min(X[i] / 8, 3), 0)", "min(max(X[i], -1), 3)")


@settings(max_examples=int(os.environ.get("INCA_HISTOGRAM_EXAMPLES", "60")), deadline=None)
@given(st.sampled_from(_INDEXES), st.sampled_from(("+", "-")), st.sampled_from(("1", "W[i]", "W[i] * X[i]", "3")),
       st.integers(2, 24), st.lists(st.integers(-(1 << 63), (1 << 63) - 1) | st.sampled_from(EDGES)
                                   | st.integers(-20, 20), min_size=24, max_size=24))
def test_random_histograms_equal_O0(index, op, w, n, xs):
    text = (f"input X: i64[24]\ninput W: i64[24]\ninout H: i64[4]\nfor i in 0 .. {n} do {{\n"
            f"    H[{index}] = H[{index}] {op} {w}\n}}\n")
    assert_as_at_O0(text, {"X": xs, "W": xs[::-1], "H": xs[:4]})
