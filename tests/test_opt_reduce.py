"""Pass ``reduce`` on differences, ``c = c - e(i)``: the terms as one vector, then for i64 a tree
of adds subtracted once (rule ``sub-sum``, exact in wrapping arithmetic), for f64 in order at -O2
(bit for bit) and as a tree at -Ofast (within rounding); and on nests, every accumulator's terms
as one vector halved together."""
from __future__ import annotations

import math
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from test_opt_passes import FAST, O2, asm, remarks, run
from test_opt_programs import same
from test_opt_split import assert_as_at_O0

SUB = ("input X: i64[64]\ninput Y: f64[64]\noutput s: i64\noutput t: f64\ns = 1000\nt = 1.5\n"
       "for i in 0 .. 64 do { s = s - X[i] * 3 }\nfor i in 0 .. 64 do { t = t - Y[i] * 0.5 }\n")
EDGES = [-(1 << 63), (1 << 63) - 1, 0, -1]


def test_a_difference_reduction_sums_its_terms_and_subtracts_once():
    said = remarks(SUB, O2)
    assert "reduction over i turned into a tree of 6 vector adds" in said
    assert "f64 reduction over i kept in order: use -Ofast to reassociate" in said
    assert remarks(SUB, FAST).count("reduction over i turned into a tree of 6 vector adds") == 2
    assert asm(SUB, O2).count("SUB s, s,") == 1
    xs = [EDGES[n % 4] if n % 9 == 0 else n * 7919 % 1000 - 500 for n in range(64)]
    ys = [((n * 37) % 101) * 0.125 - 6.0 for n in range(64)]
    o0, o2, fast = (run(SUB, level, {"X": xs, "Y": ys}) for level in (None, O2, FAST))
    assert repr(o2.outputs) == repr(o0.outputs)
    assert fast.outputs["s"] == o0.outputs["s"] and math.isclose(fast.outputs["t"], o0.outputs["t"],
                                                                 rel_tol=1e-12)
    assert o2.time_ns * 4 < o0.time_ns and fast.time_ns * 30 < o0.time_ns


@settings(max_examples=int(os.environ.get("INCA_OPT_FUZZ_EXAMPLES", "60")), deadline=None)
@given(st.lists(st.integers(-(1 << 63), (1 << 63) - 1) | st.sampled_from(EDGES), min_size=16, max_size=16),
       st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=16, max_size=16),
       st.sampled_from(("X[i]", "X[i] * X[i]", "X[i] - 5", "abs(X[i])")), st.integers(0, 3))
def test_random_difference_reductions_equal_O0(xs, ys, term, lo):
    text = (f"input X: i64[16]\ninput Y: f64[16]\noutput s: i64\noutput t: f64\n"
            f"for i in {lo} .. 16 do {{ s = s - {term} }}\nfor i in {lo} .. 16 do {{ t = t - Y[i] * 2.0 }}\n")
    o0, o2 = run(text, None, {"X": xs, "Y": ys}), run(text, O2, {"X": xs, "Y": ys})
    assert all(same(o2.outputs[n], o0.outputs[n]) for n in o0.outputs), text
    assert o2.time_ns <= o0.time_ns


ROWS = "input A: i64[8][64]\noutput H: i64[8]\nfor b in 0 .. 8 do {\n    for i in 0 .. 64 do {\n" \
       "        H[b] = H[b] + A[b][i]\n    }\n}\n"
BINS = "input X: i64[64]\noutput H: i64[8]\nfor b in 0 .. 8 do {\n    for i in 0 .. 64 do {\n" \
       "        H[b] = H[b] + ((X[i] & 7) == b)\n    }\n}\n"


def test_the_rows_of_a_nest_are_summed_all_at_once():
    # each row's terms halved together: 6 vector adds over 8 rows, where moving i outside (the
    # sums kept in order, interchange's choice before) took 64 adds of 8 elements (768 ns)
    said = remarks(ROWS, O2)
    assert "[reduce] reduction of the nest over b, i turned into a tree of 6 vector adds for all 8 " \
           "accumulators at once" in said and "[interchange]" not in said
    assert "ADD v1[0:8][0:32], v1[0:8][0:32], v1[0:8][32:64]" in asm(ROWS, O2)
    a = [EDGES[n % 4] if n % 5 == 0 else n * 7919 % 1000 - 500 for n in range(512)]
    o0, o2 = run(ROWS, None, {"A": a}), run(ROWS, O2, {"A": a})
    assert o2.outputs == o0.outputs and o2.time_ns < 400 < o0.time_ns


def test_a_count_per_bucket_is_one_2d_compare_and_a_tree():
    said = remarks(BINS, O2)
    assert "reduction of the nest over b, i turned into a tree of 6 vector adds" in said
    xs = [n * 7919 % 1000 - 500 for n in range(64)]
    o0, o2 = run(BINS, None, {"X": xs}), run(BINS, O2, {"X": xs})
    assert o2.outputs == o0.outputs and sum(o0.outputs["H"]) == 64
    assert o2.time_ns * 50 < o0.time_ns


def test_a_nest_into_one_scalar_is_one_tree_and_f64_rows_stay_in_order_at_O2():
    text = "input A: i64[4][16]\noutput s: i64\nfor a in 0 .. 4 do {\n    for b in 0 .. 16 do {\n" \
           "        s = s + A[a][b] * 3\n    }\n}\n"
    assert "reduction of the nest over a, b turned into a tree of 6 vector adds into one sum" \
        in remarks(text, O2)
    assert_as_at_O0(text, {"A": [n * 7919 % 1000 - 500 for n in range(64)]})
    f64 = ROWS.replace("i64[8][64]", "f64[8][64]").replace("H: i64", "H: f64")
    assert "[interchange] loop over i moved outside the loops over b" in remarks(f64, O2)
    assert "for all 8 accumulators at once" in remarks(f64, FAST)


_NEST_TARGETS = ("s", "T[a]", "T[a][b]", "T[b]", "T[a + b]")


@settings(max_examples=int(os.environ.get("INCA_OPT_FUZZ_EXAMPLES", "60")), deadline=None)
@given(st.integers(2, 3), st.sampled_from(_NEST_TARGETS), st.sampled_from(("+", "*", "-", "min", "max",
       "&", "|", "^")), st.sampled_from(("A[a][b]", "A[b][a] * 3 - A[a][c]", "(A[c][b] == a) + 1")),
       st.lists(st.integers(-(1 << 63), (1 << 63) - 1) | st.sampled_from(EDGES), min_size=64, max_size=64))
def test_random_reduction_nests_equal_O0(depth, target, op, term, a):
    names = "abc"[:depth]
    if any(v not in names for v in "abc" if v in term + target):
        term, target = "A[a][b]", target if "c" not in target else "s"
    step = f"{target} = {op}({target}, {term})" if op in ("min", "max") else \
        f"{target} = {target} {op} ({term})"
    text = ("input A: i64[8][8]\ninout T: i64[8][8]\ninout s: i64\n" + "".join(
        f"{'    ' * d}for {v} in 0 .. {4 + d} do {{\n" for d, v in enumerate(names))
        + "    " * depth + step + "\n" + "".join("    " * d + "}\n" for d in reversed(range(depth))))
    if target.count("[") == 1:
        text = text.replace("T: i64[8][8]", "T: i64[8]")
    assert_as_at_O0(text, {"A": a, "T": a[:64 if "T: i64[8][8]" in text else 8], "s": [a[5]]})


def test_f64_rows_at_O2_compute_their_terms_at_once_and_add_them_in_order():
    # the products as one 8 x 16 vector, then one vector addition per i, each H[b] receiving its
    # terms in the order of i, bit for bit (NaN, infinities and -0.0 included)
    text = ("input A: f64[8][16]\ninput x: f64[16]\ninout H: f64[8]\nfor b in 0 .. 8 do {\n"
            "    for i in 0 .. 16 do {\n        H[b] = H[b] + A[b][i] * x[i]\n    }\n}\n")
    assert "terms of the nest over b, i computed as one vector (128 elements), added in order for " \
           "all accumulators at once" in remarks(text, O2)
    specials = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1e308, -1e308]
    a = [specials[n % 7] if n % 11 == 0 else (n * 37 % 101) * 0.125 - 6.0 for n in range(128)]
    assert_as_at_O0(text, {"A": a, "x": [(n * 53 % 97) * 0.25 - 12.0 for n in range(16)],
                           "H": [-0.0, 0.0, 1.5, -2.5, math.inf, 3.0, -0.0, 7.0]})
    # (a, b) = (0, 1) and (1, 0) store one element: all rows at once would add its terms in
    # another order (the nest over b and c, inside each a, is done so)
    shared = ("input A: f64[8][8]\ninout T: f64[8]\nfor a in 0 .. 3 do {\n    for b in 0 .. 3 do {\n"
              "        for c in 0 .. 4 do {\n            T[a + b] = T[a + b] + A[a][c] * 1.5\n        }\n    }\n}\n")
    said = remarks(shared, O2)
    assert "nest over a, b, c" not in said and "terms of the nest over b, c computed as one vector" in said
    assert_as_at_O0(shared, {"A": a[:64], "T": a[64:72]})


def test_rows_inside_the_loop_of_terms_take_the_terms_at_once_where_that_costs_less():
    # y = A^T x written row by row: y[j] receives its terms in the order of i; the products are
    # one 16 x 16 vector, added one row of it per i (560 ns at -O2 before: a product and an
    # addition per i)
    text = ("input A: f64[16][16]\ninput x: f64[16]\noutput y: f64[16]\nfor i in 0 .. 16 do {\n"
            "    for j in 0 .. 16 do {\n        y[j] = y[j] + A[i][j] * x[i]\n    }\n}\n")
    assert "terms of the nest over j, i computed as one vector (256 elements), added in order" \
        in remarks(text, O2)
    a = [math.nan if n == 17 else (n * 37 % 101) * 0.125 - 6.0 for n in range(256)]
    assert_as_at_O0(text, {"A": a, "x": [(n * 53 % 97) * 0.25 - 12.0 for n in range(16)]})
    assert run(text, O2, {}).time_ns < 400
