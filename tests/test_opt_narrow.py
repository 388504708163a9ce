"""Pass ``narrow``: a part of a vector statement with fewer elements than the statement (its
operands broadcast) is computed on its own, at its own shape, before the statement."""
from __future__ import annotations

import math
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from inca.compiler.incaq.ast import Binary, Index, Name, Num
from inca.compiler.opt.ir import Span
from inca.compiler.opt.narrow import shape
from test_opt_passes import O2, asm, remarks, run
from test_opt_split import assert_as_at_O0

SPECIALS = [math.nan, math.inf, -math.inf, -0.0, 0.0]
NORMALISE = ("input A: f64[16][16]\ninput m: f64[16]\ninput s: f64[16]\noutput Y: f64[16][16]\n"
             "for i in 0 .. 16 do {\n    for j in 0 .. 16 do {\n"
             "        Y[i][j] = (A[i][j] - m[j]) * (1.0 / (s[j] + 0.5))\n    }\n}\n")


def _f64(n: int, seed: int) -> list:
    return [SPECIALS[k % 5] if k % 13 == seed else ((k * 37 + seed) % 101) * 0.125 - 6.0
            for k in range(n)]


def test_a_part_over_the_columns_is_computed_once_per_column():
    said = remarks(NORMALISE, O2)
    assert "[narrow] 1 part of a vector statement of 256 elements computed on its own (16 elements)" in said
    text = asm(NORMALISE, O2)
    assert "DIV w1[0:16], w1[0:16], t1_16f[0:16]" in text
    assert "MUL Y[0:16][0:16], Y[0:16][0:16], w1[0:16]" in text
    inputs = {"A": _f64(256, 1), "m": _f64(16, 2), "s": _f64(16, 3)}
    o0, o2 = run(NORMALISE, None, inputs), run(NORMALISE, O2, inputs)
    assert repr(o2.outputs) == repr(o0.outputs)
    assert o2.time_ns < 320 < 620 < o0.time_ns  # (629 ns at -O2 before)


def test_a_part_is_left_in_place_where_it_would_not_pay():
    small = NORMALISE.replace("16", "4")
    assert "[narrow]" not in remarks(small, O2)  # 4 elements cost what 16 do (the vector floor)


def test_shapes_broadcast_as_numpy_aligned_on_the_right():
    def ix(name, *lengths):
        return Index(name, tuple(Span(Num(0, False), n, 1, "t") if n else Num(0, False) for n in lengths))
    assert shape(Binary("+", ix("A", 8, 16), ix("x", 16))) == (8, 16)
    assert shape(Binary("*", ix("c", 8, 1), ix("x", 16))) == (8, 16)
    assert shape(Binary("*", ix("x", 16), Num(2, False))) == (16,)
    assert shape(Binary("+", ix("A", 0, 16), Name("s"))) == (16,)
    assert shape(Binary("+", ix("x", 8), ix("y", 16))) is None


_PARTS = ("x[j] * 2.0", "(x[j] + y[i]) * 0.5", "max(x[j], 1.0) - x[j]", "abs(y[i])", "y[i] / (x[j] + 1.0)",
          "A[i][j]", "x[j] * x[j] - 3.0", "min(y[i], 0.0)", "A[i][j] * (x[j] > 0.5)", "(y[i] <= x[0]) - A[i][j]")


@settings(max_examples=int(os.environ.get("INCA_NARROW_EXAMPLES", "60")), deadline=None)
@given(st.lists(st.sampled_from(_PARTS), min_size=2, max_size=4), st.sampled_from(("+", "-", "*")),
       st.sampled_from((4, 8, 16)), st.integers(0, 12))
def test_random_2d_maps_with_parts_equal_O0(parts, op, n, seed):
    value = f" {op} ".join(f"({p})" for p in parts)
    text = (f"input A: f64[{n}][{n}]\ninput x: f64[{n}]\ninput y: f64[{n}]\noutput Y: f64[{n}][{n}]\n"
            f"for i in 0 .. {n} do {{\n    for j in 0 .. {n} do {{\n        Y[i][j] = {value}\n    }}\n}}\n")
    assert_as_at_O0(text, {"A": _f64(n * n, seed), "x": _f64(n, seed + 1), "y": _f64(n, seed + 2)})
