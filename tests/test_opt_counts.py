"""vectorise's table of counts: the loop variable used as a value (``Y[i] = i * 3``,
``s = s + i * X[i]``) is read from a constant table ``count1[i][0]``, one per kernel."""
from __future__ import annotations

from test_opt_passes import O2, asm, remarks, run


def test_the_loop_variable_used_as_a_value_is_read_from_a_table_of_counts():
    # i as a value is count1[i][0], a constant table the program loads (no instruction), so
    # A[i] = i * 3 is two vector instructions
    text = "output A: i64[8]\nfor i in 2 .. 8 do {\n    A[i] = i * 3\n}\n"
    listing = asm(text, O2)
    assert ".var count1 i64[8][1] = 0, 1, 2, 3, 4, 5, 6, 7" in listing
    assert "PUTL A[2:8], count1[2:8][0]" in listing and "BLEZ" not in listing
    o0, o2 = run(text, None, {}), run(text, O2, {})
    assert o2.outputs == o0.outputs and o2.outputs["A"] == [0, 0] + [3 * i for i in range(2, 8)]
    assert o2.time_ns * 10 < o0.time_ns


def test_one_table_of_counts_serves_every_loop_and_a_2d_statement_broadcasts_it():
    text = ("input X: f64[16]\noutput A: f64[16]\noutput C: i64[4][8]\noutput s: i64\n"
            "var count1: i64[2] = [5, 6]\n"  # (a user's array of that name is not the table)
            "for i in 0 .. 16 do { A[i] = X[i] * i }\n"
            "for i in 0 .. 4 do { for j in 0 .. 8 do { C[i][j] = i * 100 + j } }\n"
            "for k in 0 .. 8 do { s = s + k * k }\ns = s + count1[1]\n")
    listing = asm(text, O2)
    assert listing.count(".var count") == 2 and ".var count2 i64[16][1]" in listing
    inputs = {"X": [0.5 * n - 3.0 for n in range(16)]}
    o0, o2 = run(text, None, inputs), run(text, O2, inputs)
    assert o2.outputs == o0.outputs and o2.time_ns * 5 < o0.time_ns


def test_a_loop_counting_past_the_table_limit_says_why_it_is_not_vectorised():
    from inca.compiler.opt.vectorise import MAX_TABLE

    n = MAX_TABLE + 1
    text = f"output A: i64[{n}]\nfor i in 0 .. {n} do {{\n    A[i] = i\n}}\n"
    assert f"the loop counts to {n:,} (a table of its values is made up to {MAX_TABLE:,})" \
        in remarks(text, O2)


# ---- reductions and interchange -----------------------------------------------------------------
