"""Pass ``gather`` on reads at positions computed from data inside an index (``X[I[k] & 31]``)
and on loops whose other part reads and writes an array of its own (``Y[k] = Y[k] + ...``)."""
from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from test_opt_passes import O2, asm, remarks, run
from test_opt_split import assert_as_at_O0

AXPY = ("input X: f64[32]\ninput I: i64[32]\ninout Y: f64[32]\nfor k in 0 .. 32 do {\n"
        "    Y[k] = Y[k] + 2.0 * X[I[k] & 31]\n}\n")
F = [((n * 37) % 101) * 0.125 - 6.0 for n in range(64)]
IDX = [(n * 7919) % 1000 - 500 for n in range(64)]


def test_a_read_at_a_position_computed_in_its_index_is_gathered():
    # the positions are one vector (2 instructions), each element one PUTL of the position and
    # one slice read, the rest a map that reads and writes Y[k] (1,856 ns at -O2 before)
    said = remarks(AXPY, O2)
    assert "[gather] loop over k split around its gather" in said and "X[at1:at1+1]" in said
    assert "AND g1[0:32], g1[0:32], 31" in asm(AXPY, O2)
    inputs = {"X": F[:32], "I": IDX[:32], "Y": F[32:]}
    o0, o2 = run(AXPY, None, inputs), run(AXPY, O2, inputs)
    assert o2.outputs == o0.outputs and o2.time_ns * 4 < o0.time_ns and o2.time_ns < 800


def test_a_position_that_may_fault_is_left_in_its_statement():
    text = AXPY.replace("X[I[k] & 31]", "X[(100 / I[k]) & 31]")
    assert "[gather] loop over k split" not in remarks(text, O2)
    zero = IDX[:5] + [0] + IDX[6:32]
    assert_as_at_O0(text, {"X": F[:32], "I": zero, "Y": F[32:]})  # a division by zero, as at -O0


def test_a_gathered_position_outside_the_array_faults_as_at_O0():
    text = AXPY.replace("X[I[k] & 31]", "X[I[k]]")
    assert "[gather] loop over k split" in remarks(text, O2)
    assert_as_at_O0(text, {"X": F[:32], "I": IDX[:32], "Y": F[32:]})
    assert_as_at_O0(text, {"X": F[:32], "I": [n % 32 for n in IDX[:32]], "Y": F[32:]})


def test_positions_that_read_what_the_loop_writes_keep_the_loop():
    text = ("input X: f64[32]\ninout I: i64[32]\noutput Y: f64[32]\nfor k in 0 .. 31 do {\n"
            "    Y[k] = X[I[k + 1] & 31]\n    I[k] = k\n}\n")
    assert "the positions read or write an array the loop writes" in remarks(text, O2)
    assert_as_at_O0(text, {"X": F[:32], "I": IDX[:32]})


_READS = ("X[I[k] & 31]", "X[(I[k] >> 2) & 15]", "X[I[k] & 7] * X[(I[k] & 7) + 1]", "Y[k]", "Y[k + 1]",
          "Z[k]", "1.5")


@settings(max_examples=int(os.environ.get("INCA_GATHER_EXAMPLES", "60")), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(("Y[k]", "Z[k]", "Y[k + 1]")),
                          st.lists(st.sampled_from(_READS), min_size=1, max_size=3)), min_size=1, max_size=3),
       st.lists(st.integers(-1000, 1000), min_size=32, max_size=32))
def test_random_gathers_equal_O0(stmts, idx):
    lines = "".join(f"    {t} = {' + '.join(reads)}\n" for t, reads in stmts)
    text = (f"input X: f64[40]\ninput I: i64[32]\ninout Y: f64[33]\noutput Z: f64[32]\n"
            f"for k in 0 .. 32 do {{\n{lines}}}\n")
    assert_as_at_O0(text, {"X": (F + F)[:40], "I": idx, "Y": F[:33]})
