"""The optimiser's passes one by one: what each does to a small kernel, what it refuses and says
why (remarks), and the runs that must stay exact on the edges (faults, versioned loops)."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.opt.pipeline import Level, Trace
from inca.compiler.printer import print_program
from inca.interpreter.engine import RuntimeFault
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import Source
from inca.lang.tuples import encode

O1, O2, FAST = Level(1), Level(2), Level(2, True)
PROFILE = load_profile("scratchpad")
KERNELS = Path(__file__).resolve().parent.parent / "examples" / "kernels"


def compiled(text: str, level: Level, clobber: bool = False, after: tuple = ()):
    trace = Trace(after)
    prog = compile_source(Source("k.incaq", text), level=level, trace=trace, clobber=clobber)
    return prog, trace


def asm(text: str, level: Level, clobber: bool = False) -> str:
    return print_program(compiled(text, level, clobber)[0])


def remarks(text: str, level: Level, clobber: bool = False) -> str:
    return compiled(text, level, clobber)[1].remarks.text()


def run(text: str, level: Level | None, inputs: dict, clobber: bool = False):
    prog = compile_source(Source("k.incaq", text), level=level, clobber=clobber)
    return execute(encode(prog), PROFILE, {k: list(v) for k, v in inputs.items()})


def open_kernel(name: str) -> str:
    return (KERNELS / f"{name}.incaq").read_text(encoding="utf-8")


# ---- vectorise and dependence -------------------------------------------------------------------

MAP = "input A: f64[8]\ninput B: f64[8]\noutput C: f64[8]\nfor i in 0 .. 8 do {\n    C[i] = A[i] * B[i] + 1.5\n}\n"


def test_an_element_wise_map_becomes_vector_instructions():
    text = asm(MAP, O2)
    assert "PUTL C[0:8], A[0:8]" in text and "MUL C[0:8], C[0:8], B[0:8]" in text
    assert "ADD C[0:8], C[0:8], 1.5" in text
    assert "k.incaq:4:1: remark: [vectorise] vectorised over i (8 elements)" in remarks(MAP, O2)


def test_a_recurrence_is_not_vectorised_and_the_remark_names_both_accesses():
    text = "inout A: f64[8]\nfor i in 1 .. 8 do {\n    A[i] = A[i - 1] * 2.0\n}\n"
    r = remarks(text, O2)
    assert "remark (missed): [vectorise] loop over i not vectorised: A[i] (line 3) may be " \
           "A[(i - 1)] (line 3) of another iteration" in r
    inputs = {"A": [1.0] * 8}
    assert run(text, O2, inputs).outputs == run(text, None, inputs).outputs


def test_independent_offsets_are_proven_apart_by_z3():
    # writes even elements, reads odd ones: no two iterations touch one element
    text = "inout A: f64[16]\nfor i in 0 .. 8 do {\n    A[2 * i] = A[2 * i + 1] + 1.0\n}\n"
    listing = asm(text, O2)
    assert "A[1:16:2]" in listing and "PUTL A[0:15:2]" in listing and "BLEZ" not in listing


def test_a_transposed_operand_is_not_vectorised_over_the_outer_loop():
    r = remarks(open_kernel("matrix-transpose"), O2)
    assert "would need its dimensions transposed" in r
    assert "vectorised over j" in r


def test_a_private_scalar_is_expanded_and_its_last_value_kept_when_read():
    text = ("input A: f64[4]\noutput B: f64[4]\noutput last: f64\nfor i in 0 .. 4 do {\n"
            "    t = A[i] * 2.0\n    B[i] = t + 1.0\n}\nlast = t\n")
    inputs = {"A": [1.0, 2.0, 3.0, 4.0]}
    assert run(text, O2, inputs).outputs == run(text, None, inputs).outputs
    assert "vectorised over i" in remarks(text, O2)


def test_an_f64_sum_stays_in_order_at_O2_and_becomes_a_tree_at_Ofast():
    text = open_kernel("dot-product")
    assert "kept in order: use -Ofast to reassociate" in remarks(text, O2)
    assert "turned into a tree of 4 vector adds" in remarks(text, FAST)
    assert "ADD v1[0:8], v1[0:8], v1[8:16]" in asm(text, FAST)


def test_an_i64_sum_becomes_a_tree_at_O2():
    text = "input A: i64[10]\ninput B: i64[10]\noutput s: i64\nfor i in 0 .. 10 do {\n    s = s + A[i] * B[i]\n}\n"
    assert "tree of 4 vector adds" in remarks(text, O2)
    a, b = list(range(-5, 5)), [3 * x + 1 for x in range(10)]
    assert run(text, O2, {"A": a, "B": b}).outputs["s"] == sum(x * y for x, y in zip(a, b))


def test_f64_max_is_exact_as_a_tree():
    text = "input A: f64[6]\noutput m: f64 = -1e300\nfor i in 0 .. 6 do {\n    m = max(m, A[i] * 2.0)\n}\n"
    text = text.replace(" = -1e300", "")
    assert "tree of 3 vector maxes" in remarks(text, O2)
    inputs = {"A": [-0.0, 0.0, -3.5, 2.0, 2.0, -1.0]}
    assert run(text, O2, inputs).outputs == run(text, None, inputs).outputs


def test_matrix_multiplication_computes_its_products_at_once_or_moves_k_outside():
    # 4 x 4: the 64 products as one vector (laid out i, k, j, so that B[k][j] lines up), then
    # added to M in the order of k; 32 x 32: that vector would cost more than moving k outside
    # i and j (a product and an addition per k), which the estimate sees
    r = remarks(open_kernel("matrix-multiplication"), O2)
    assert "terms of the nest over i, j, k computed as one vector (64 elements)" in r
    text = asm(open_kernel("matrix-multiplication"), O2)
    assert "MUL v1[0:4][0:4][0:4], v1[0:4][0:4][0:4], B[0:4][0:4]" in text
    assert "ADD M[0:4][0:4], M[0:4][0:4], v1[0:4][3][0:4]" in text
    big = open_kernel("matrix-multiplication").replace("param PAYLOAD = 128", "param PAYLOAD = 8192")
    assert "loop over k moved outside the loops over i, j" in remarks(big, O2)


def test_clobber_computes_the_terms_in_the_input():
    text = asm(open_kernel("dot-product"), FAST, clobber=True)
    assert text.splitlines()[4].split(None, 1)[1].startswith("MUL A[0:16], A[0:16], B[0:16]")
    assert "MUL A[0:4][0:4], A[0:4][0:4], B[0:4][0:4]" in asm(open_kernel("hadamard-product"), O2, clobber=True)


# ---- scalar passes --------------------------------------------------------------------------------

def test_params_fold_and_a_division_by_zero_is_left_to_fault():
    text = "param N = 16\noutput x: i64\noutput y: i64\nx = N - 1\ny = x / (N - 16)\n"
    assert "PUTL x, 15" in asm(text, O1)
    with pytest.raises(RuntimeFault, match="division by zero"):
        run(text, O1, {})


def test_identities_apply_only_in_the_expressions_own_type():
    text = "input a: i64\ninput b: f64\noutput x: f64\noutput y: f64\nx = a * 1.0 / 2\ny = b * 1.0 + 0.0\n"
    inputs = {"a": [7], "b": [-0.0]}
    o0 = run(text, None, inputs).outputs
    assert run(text, O2, inputs).outputs == o0
    assert str(o0["y"]) == "0.0"  # -0.0 + 0.0 is +0.0: x + 0.0 -> x needs -ffast-math


def test_a_constant_condition_drops_the_branch_never_taken():
    text = "output x: i64\nif 3 < 2 then {\n    x = 1\n} else {\n    x = 2\n}\n"
    listing = asm(text, O1)
    assert "PUTL x, 2" in listing and "PUTL x, 1" not in listing and "BLEZ" not in listing


def test_a_counted_loop_costs_two_instructions_per_iteration_at_O1():
    text = "input A: f64[50]\ninput B: f64[50]\noutput c: f64\ni = 0\nwhile i < 50 do {\n    c = c + A[i] * B[i]\n    i = i + 1\n}\n"
    inputs = {"A": [0.5] * 50, "B": [2.0] * 50}
    o0, o1 = run(text, None, inputs), run(text, O1, inputs)
    assert o0.outputs == o1.outputs
    assert (o0.instructions, o1.instructions) == (8 * 50 + 4, 5 * 50 + 1)


NORM = "input X: f64[64]\noutput s: f64\nfor i in 0 .. 64 do {\n    t = X[i] * X[i]\n    s = s + t\n}\n"


@pytest.mark.parametrize("level", (O1, O2, FAST))
def test_a_value_only_the_next_statement_reads_is_computed_there(level):
    # with t, the reduction pass saw two statements and kept the sum in order even at -Ofast
    # (2,240 ns at -O2 and -Ofast, against 820 and 139 ns without t)
    direct = NORM.replace("    t = X[i] * X[i]\n    s = s + t\n", "    s = s + X[i] * X[i]\n")
    inputs = {"X": [0.1 * k - 3.0 for k in range(64)]}
    via_t, plain = run(NORM, level, inputs), run(direct, level, inputs)
    assert via_t.outputs == plain.outputs and via_t.time_ns == plain.time_ns
    assert "k.incaq:4:5: remark: [propagate] t = (X[i] * X[i]) computed where it is used (line 5)" \
        in remarks(NORM, level)


def test_a_value_moves_into_a_statement_that_assigns_the_same_scalar():
    # t = X[i] * 2.0; t = t + 1.0: the fuzzer's case, where the assignment's target was replaced
    # by the value too (an internal compiler error)
    # (t is read once, by the statement that assigns it again; nothing reads it after)
    text = ("input X: f64[8]\noutput Y: f64[8]\nfor i in 0 .. 8 do {\n    t = X[i] * 2.0\n"
            "    t = t + 1.0\n    Y[i] = X[i]\n}\n")
    assert "t = (X[i] * 2.0) computed where it is used (line 5)" in remarks(text, O2)
    inputs = {"X": [0.5 * n - 1.0 for n in range(8)]}
    for level in (O1, O2, FAST):
        assert run(text, level, inputs).outputs == run(text, None, inputs).outputs


@pytest.mark.parametrize("body", (
    "    t = X[i] * X[i]\n    s = s + t * t\n",  # read twice: computing it twice costs more
    "    t = X[i] * X[i]\n    u = 1\n    s = s + t\n",  # not read by the next statement
    "    t = X[i] * X[i]\n    s = X[i] / X[0] + t\n",  # the division would fault before it
    "    t = X[i] * X[i]\n    s = s + t + twice(X[i])\n",  # the call's statements run first
    "    t = X[i] * X[i]\n    Y[i / 2] = t\n",  # the store's index is computed before the value
    "    w = i * 3\n    s = s + w\n",  # an i64 value converted to f64 when assigned
))
def test_a_value_is_not_moved_where_a_fault_or_a_conversion_could_change(body):
    text = ("input X: f64[64]\noutput s: f64\noutput Y: f64[32]\nvar w: f64\n"
            "func twice(a: f64) -> f64 {\n    b = a * 2.0\n    return b\n}\n"
            f"for i in 0 .. 64 do {{\n{body}}}\n")
    moved = [r for r in remarks(text, O2).splitlines() if "computed where it is used" in r]
    # (the inlined call's own statements may be: canon runs them before the statement)
    assert not [r for r in moved if "] t = " in r or "] w = " in r], moved
    # and each case moves the value when the one obstacle is taken away
    fixed = (body.replace("t * t", "t").replace("    u = 1\n", "").replace("X[i] / X[0] + t", "t + X[i] / X[0]")
             .replace("twice(X[i])", "X[i]").replace("i / 2", "i - 32").replace("i * 3", "i * 3.0"))
    assert "computed where it is used" in remarks(text.replace(body, fixed), O2)


def test_a_moved_value_faults_as_it_did_where_it_was():
    text = NORM.replace("X[i] * X[i]", "X[i + 1] * 2.0")
    faults = []
    for level in (None, O1, O2):
        with pytest.raises(RuntimeFault) as caught:
            run(text, level, {"X": [1.0] * 64})
        faults.append(str(caught.value))
    assert faults == ["index 64 is out of bounds for 'X' (dimension 0 has size 64)"] * 3


UNPACK = ("input n: i64\ninput bl: i64\ninput st: i64\ninput P: f64[12]\ninout M: f64[30]\n"
          "for i in 0 .. n do {\n    disp = (i / bl) * st + i % bl\n    M[disp] = P[i]\n}\n")


@pytest.mark.parametrize("bl, st", ((3, 2), (1, 2), (5, 2), (-2, -2)))
def test_strength_reduction_is_exact_on_both_versions(bl, st):
    inputs = {"n": [12], "bl": [bl], "st": [st], "P": [float(x) for x in range(12)], "M": [0.0] * 30}
    assert run(UNPACK, O1, inputs).outputs == run(UNPACK, None, inputs).outputs
    assert "i / bl and i % bl in the loop over i became counters" in remarks(UNPACK, O1)


def test_strength_reduction_only_where_no_run_is_slower():
    """From 2 the counters' first values would take a division, a remainder and a product; and
    `i / b` alone saves less than its wrap-around costs when b is 1 (tests/test_opt_runtime_trips.py
    checks the times)."""
    assert "became counters" not in remarks(UNPACK.replace("0 .. n", "2 .. n"), O1)
    alone = UNPACK.replace("(i / bl) * st + i % bl", "i / bl")
    assert "wrap-around costs 5 instructions an iteration, more than the 2 they replace" in \
        remarks(alone, O1)


def test_strength_reduction_takes_no_product_by_the_loop_variable_for_invariant():
    """``(i / b) * i`` is no product by an invariant: a counter adding i at each wrap summed the
    values of i at the wraps (a miscompile at -O1 since strength.py was written, found in
    review): the loop's variable counts among what varies."""
    text = ("input n: i64\ninput b: i64\ninput X: i64[16]\noutput Y: i64[64]\noutput Z: i64[16]\n"
            "for i in 0 .. n do {\n    Y[(i / b) * i % 64] = X[i % b]\n    Z[i] = X[i % b]\n}\n")
    for b in (1, 2, 3, 5):
        inputs = {"n": [12], "b": [b], "X": list(range(3, 19))}
        assert run(text, O1, inputs).outputs == run(text, None, inputs).outputs


def test_strength_reduction_still_faults_on_a_zero_divisor():
    inputs = {"n": [12], "bl": [0], "st": [4], "P": [0.0] * 12, "M": [0.0] * 30}
    with pytest.raises(RuntimeFault, match="by zero"):
        run(UNPACK, O1, inputs)


# ---- what the researcher sees ---------------------------------------------------------------------

def test_print_after_shows_the_ir_after_each_named_pass():
    _, trace = compiled(MAP, O2, after=("vectorise", "dce"))
    # dce runs twice (before the loop passes and at the end): each run is printed, in order
    assert [p.splitlines()[0] for p in trace.printed] == ["*** IR after dce ***",
                                                          "*** IR after vectorise ***",
                                                          "*** IR after dce ***"]
    assert "for i in 0 .. 8 do" in trace.printed[0]
    assert "C[0:8] = (A[0:8] * B[0:8]) + 1.5" in trace.printed[2]


def test_dce_remarks_say_where_and_what_each_removed_assignment_was():
    # a dead value the kernel computes itself (line 6), reported at its own statement, not as one
    # count for the whole kernel; the loop's last value of i, which the source does not write
    # (a pass placed it at the loop), is not reported
    text = MAP.replace("    C[i] = A[i] * B[i] + 1.5\n", "    C[i] = A[i] * B[i] + 1.5\n    t = i * 2\n")
    found = [r for r in remarks(text, O2).splitlines() if "[dce]" in r]
    assert found == ["k.incaq:6:5: remark: [dce] removed 1 assignment to t: nothing reads it"]
    # an assignment the source writes to a loop's variable, dead because the loop sets it first,
    # is reported
    i_first = text.replace("for i in", "i = 3\nfor i in")
    found = [r for r in remarks(i_first, O2).splitlines() if "[dce]" in r and " i:" in r]
    assert found == ["k.incaq:4:1: remark: [dce] removed 1 assignment to i: only for loops over it "
                     "read it, each setting it first"]


def test_a_loop_left_with_nothing_to_do_goes_where_its_bounds_cannot_fault():
    # its one statement is dead; the loop, which would still count i up to n, goes with it (i is
    # read by nothing after it); a bound that divides stays, and with it the loop
    text = "input n: i64\ninput d: i64\noutput c: i64\nfor i in 0 .. n do {\n    t = 5\n}\nc = 1\n"
    for level in (O1, O2):
        assert [ins.op for ins in compiled(text, level)[0].instrs] == ["PUTL", "END"]
    divided = text.replace("0 .. n", "0 .. n / d")
    assert "DIV" in [ins.op for ins in compiled(divided, O1)[0].instrs]
    out = text.replace("output c: i64", "output c: i64\noutput i: i64")
    assert "BLEZ" in [ins.op for ins in compiled(out, O1)[0].instrs]
    for n, d in ((0, 1), (3, 1)):
        for t in (text, divided, out):
            assert run(t, O1, {"n": [n], "d": [d]}).outputs == run(t, None, {"n": [n], "d": [d]}).outputs
    for level in (None, O1):
        with pytest.raises(RuntimeFault, match="division by zero"):
            run(divided, level, {"n": [3], "d": [0]})


def test_dead_code_does_not_stop_vectorisation():
    # `t = i * 2` uses the loop variable as a value, which the vectoriser refuses; nothing reads
    # t, so dce runs before the loop passes too and the loop is vectorised as without it
    text = MAP.replace("    C[i] = A[i] * B[i] + 1.5\n", "    C[i] = A[i] * B[i] + 1.5\n    t = i * 2\n")
    assert asm(text, O2) == asm(MAP, O2)
    assert "k.incaq:4:1: remark: [vectorise] vectorised over i (8 elements)" in remarks(text, O2)


def test_a_dead_copy_of_an_element_in_bounds_over_the_loop_goes_before_the_loop_passes():
    # x = A[i] in 0 .. 8 cannot fault (A has 8 elements): dce removed it only after unrolling,
    # so the loop passes saw a scalar they had to expand; a copy past the end stays (it faults)
    text = ("input A: i64[8]\noutput Y: i64[8]\nfor i in 0 .. 8 do {\n    x = A[IX]\n"
            "    for j in 1 .. 3 do { y = A[3 * j - 3 + i / 4]; z = A[3 * j - 3] }\n    Y[i] = A[i] * 2\n}\n")
    inside, past = text.replace("IX", "7 - i"), text.replace("IX", "i + 1")
    _, trace = compiled(inside, O2, after=("dce",))
    assert "x =" not in trace.printed[0] and "z =" not in trace.printed[0]
    assert "y = A[" in trace.printed[0]  # i / 4 is no affine index: kept, as it may be outside
    _, trace = compiled(past, O2, after=("dce",))
    assert "x = A[(i + 1)]" in trace.printed[0]
    with pytest.raises(RuntimeFault, match="index 8 is out of bounds"):
        run(past, O2, {"A": list(range(8))})
    assert run(inside, O2, {"A": list(range(8))}).outputs == run(inside, None, {"A": list(range(8))}).outputs


@pytest.mark.parametrize("level", (O1, O2))
def test_a_constant_in_a_private_scalar_is_read_as_the_constant(level):
    # an inlined call's argument: m = 8 then for i in 1 .. m, a loop of unknown trip count until
    # the bound is the constant (examples/programs/counters.incaq at -O2: 844 -> 318 ns)
    text = ("input A: i64[8]\noutput lo: i64\nfunc low(X: i64[], m: i64, inout mn: i64) {\n"
            "    mn = X[0]\n    for i in 1 .. m do { mn = min(mn, X[i]) }\n}\nlow(A, 8, lo)\n")
    said = remarks(text, level)
    assert "remark: [propagate] low1_m read from 8 where it is used" in said
    if level == O2:
        assert "[reduce] reduction over low1_i turned into a tree" in said
    inputs = {"A": [5, -3, 7, 0, -9, 4, 4, 1]}
    assert run(text, level, inputs).outputs == run(text, None, inputs).outputs == {"lo": -9}


def test_O0_is_untouched_by_the_optimiser():
    prog, trace = compiled(MAP, Level(0))
    assert not trace.remarks.items and "JMP" in print_program(prog)


@pytest.mark.parametrize("level", (O1, O2, FAST))
def test_loops_with_empty_bodies_compile_at_every_level(level):
    # the fuzzer's case: interchange took the innermost statement of a nest without checking that
    # there was one (an internal compiler error at -O2)
    text = ("output k: i64\nk = 3\nfor i in 0 .. 3 do {\n    for j in 0 .. 2 do {\n    }\n}\n"
            "for i in 0 .. 0 do {\n    for j in 0 .. 0 do {\n    }\n}\n")
    assert run(text, level, {}).outputs == run(text, None, {}).outputs


# ---- loop-invariant code motion and the pass list -----------------------------------------------

def test_an_invariant_operation_is_computed_once_before_the_loop():
    text = ("input A: f64[8]\ninput s: f64\ninput t: f64\noutput c: f64\nfor i in 0 .. 8 do {\n"
            "    c = c + A[i] * (s * t + 1.0)\n}\n")
    assert "((s * t) + 1.0) computed once before the loop over i" in remarks(text, O1)
    inputs = {"A": [0.5 * k for k in range(8)], "s": [3.0], "t": [-0.25]}
    o0, o1 = run(text, None, inputs), run(text, O1, inputs)
    assert o0.outputs == o1.outputs and o1.instructions < o0.instructions


def test_nothing_moves_out_of_a_loop_that_may_not_run_twice_or_out_of_an_if():
    once = "input s: i64\noutput c: i64\nfor i in 0 .. 1 do {\n    c = c + s * 3\n}\n"
    guarded = ("input s: i64\ninput d: i64\noutput c: i64\nfor i in 0 .. 8 do {\n"
               "    if d != 0 then {\n        c = c + s / d\n    }\n}\n")
    assert "[licm]" not in remarks(once, O1) and "[licm]" not in remarks(guarded, O1)
    assert run(guarded, O1, {"s": [7], "d": [0]}).outputs == {"c": 0}


def test_every_pass_is_documented():
    from inca.compiler.opt.pipeline import PASS_NAMES

    docs = Path(__file__).resolve().parent.parent / "docs"
    for page in ("optimiser.md", "cli.md"):
        text = (docs / page).read_text(encoding="utf-8")
        assert all(f"`{name}`" in text for name in PASS_NAMES), page


def test_nothing_moves_out_of_a_short_circuit():
    text = ("input s: i64\ninput d: i64\noutput c: i64\nfor i in 0 .. 8 do {\n"
            "    c = c + (d != 0 and s / d > 1)\n}\n")
    assert "[licm]" not in remarks(text, O1)
    assert run(text, O1, {"s": [7], "d": [0]}).outputs == {"c": 0}


@pytest.mark.parametrize("bound", ("-9223372036854775808", "-5", "0", "3"))
def test_a_run_time_bound_far_below_the_start_runs_no_time(bound):
    # found by the long fuzz run: lo + 1 - h wrapped around for h = INT64_MIN
    text = ("input h: i64\noutput x: i64\noutput j: i64\nfor i in 0 .. min(h, 6) do {\n"
            "    x = x + 1\n}\nj = i\n")
    inputs = {"h": [int(bound)]}
    assert run(text, O1, inputs).outputs == run(text, None, inputs).outputs


def test_a_constant_range_wider_than_i64_still_compiles_and_runs_as_at_O0():
    text = "output x: i64\nfor i in -9223372036854775808 .. 9223372036854775807 do {\n    x = x + 1\n}\n"
    from inca.interpreter.engine import StepLimit

    prog = compile_source(Source("k.incaq", text), level=O1)
    with pytest.raises(StepLimit):
        execute(encode(prog), PROFILE, {}, max_steps=1000)


GATHER = ("param N = 16\ninput Y: f64[N]\ninput T: f64[N]\noutput Z: f64[N]\n"
          "for k in 0 .. N do {\n    i = i64(T[k])\n    if i < 0 then { i = 0 }\n"
          "    if i > N - 2 then { i = N - 2 }\n    Z[k] = Y[i] + T[k] * (Y[i + 1] - Y[i])\n}\n")


def test_a_gather_is_split_out_and_the_rest_vectorised():
    text = remarks(GATHER, O2)
    assert "[gather] loop over k split around its gather" in text
    asm = print_program(compile_source(Source("k.incaq", GATHER), level=O2))
    assert "Y[i:i+2]" in asm and "Z[0:16]" in asm


def test_a_carried_scalar_keeps_its_gather_in_the_loop():
    text = GATHER.replace("    i = i64(T[k])\n", "    i = i64(T[k]) + c\n    c = i\n").replace(
        "output Z: f64[N]\n", "output Z: f64[N]\nvar c: i64\n")
    assert "[gather] loop over k not split around its gather: c is carried" in remarks(text, O2)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-4, 4), st.integers(-3, 3),
                          st.integers(-4, 4)), min_size=1, max_size=2),
       st.integers(0, 3), st.integers(1, 6), st.integers(0, 2))
def test_dependence_agrees_with_counting_every_pair_of_iterations(dims, lo, trip, m_hi):
    # A[a*i + b*m + c] against A[d*i + e*m + f]: i1 != i2 in lo .. lo+trip, m in 0 .. m_hi+1
    from inca.compiler.incaq.ast import Binary, Index, Name, Num
    from inca.compiler.incaq.checked import Sym
    from inca.compiler.opt.dependence import Access, conflict

    syms = {"i": Sym("i", "scalar"), "m": Sym("m", "scalar")}

    def index(a, b, c):
        return Binary("+", Binary("+", Binary("*", Num(a, False), Name("i")),
                                  Binary("*", Num(b, False), Name("m"))), Num(c, False))

    one = Access("A", tuple(index(a, 1, c) for a, c, _, _ in dims), True, 0, Index("A", ()))
    two = Access("A", tuple(index(d, -1, f) for _, _, d, f in dims), False, 0, Index("A", ()))
    hi = lo + trip
    want = any(all(a * i1 + m + c == d * i2 - m + f for a, c, d, f in dims)
               for i1 in range(lo, hi) for i2 in range(lo, hi) if i1 != i2 for m in range(m_hi + 1))
    assert conflict(one, two, "i", lo, hi, syms, {"m": (0, m_hi + 1)}) == want


def test_a_diagonal_is_not_read_as_a_slice():
    # A[j][j] once became A[0:4][0:4], a 4 x 4 block read as the 4-element vector (the kernel
    # fuzzer's D[i][i] and the triangular pass's tests found it)
    text = ("input A: i64[4][4]\noutput s: i64\noutput Y: i64[4]\nfor j in 0 .. 4 do { s = s + A[j][j] }\n"
            "for j in 0 .. 4 do { Y[j] = A[j][j] * 2 }\n")
    assert "A is read along a diagonal" in remarks(text, O2)
    a = [n * 7 % 11 - 5 for n in range(16)]
    o0, o2 = run(text, None, {"A": a}), run(text, O2, {"A": a})
    assert o2.outputs == o0.outputs and o0.outputs["s"] == sum(a[k * 5] for k in range(4))


@pytest.mark.parametrize("first, second", (("f", "g"), ("g", "f"), ("g", "g")))
def test_inlined_calls_run_in_order_as_statements_or_in_their_value(first, second):
    # canon runs g's statements (straight-line) before the assignment; f has an early return,
    # so it stays in the value, and a call after it too: the log keeps the calls' order
    text = ("input X: i64[4]\noutput Y: i64[4]\noutput log: i64\n"
            "func f(x: i64, inout log: i64) -> i64 {\n    log = log * 10 + 1\n"
            "    if x < 0 then { return 0 }\n    return x\n}\n"
            "func g(x: i64, inout log: i64) -> i64 {\n    log = log * 10 + 2\n    return x * 2\n}\n"
            f"for i in 0 .. 4 do {{\n    Y[i] = {first}(X[i], log) + {second}(X[i] + 1, log)\n}}\n")
    inputs = {"X": [3, -1, 0, 7]}
    o0 = run(text, None, inputs)
    for level in (O1, O2):
        assert run(text, level, inputs).outputs == o0.outputs
    digit = {"f": "1", "g": "2"}
    assert str(o0.outputs["log"]) == (digit[first] + digit[second]) * 4


def test_a_private_scalar_assigned_at_the_end_and_never_read_after_goes():
    # the top level runs once: t's last assignment has no reader (a division may fault: it stays)
    text = ("input A: i64[4]\noutput y: i64\nt = A[0] * 2\ny = t + 1\nt = A[1] * 3\n"
            "u = A[2] / A[3]\n")
    found = asm(text, O1)
    assert "MUL t, t, 3" not in found and "DIV" in found
    assert "k.incaq:5:1: remark: [dce] removed 1 assignment to t: nothing reads it" in remarks(text, O1)
    inputs = {"A": [5, 7, 9, 0]}
    with pytest.raises(RuntimeFault, match="division by zero"):
        run(text, O1, inputs)
    inputs = {"A": [5, 7, 9, 2]}
    assert run(text, O1, inputs).outputs == run(text, None, inputs).outputs


def test_an_f64_of_an_i64_operand_is_converted_by_the_instruction_reading_it():
    # y - f64(n): SUB converts n itself (mixed operands), as -O0's PUTL into a temporary does,
    # rounding alike past 2 ** 53
    text = ("input X: f64[4]\ninput N: i64[4]\noutput Y: f64[4]\nfor k in 0 .. 4 do {\n"
            "    Y[k] = X[k] - f64(N[k])\n}\n")
    found = asm(text, O2)
    assert "SUB Y[0:4], Y[0:4], N[0:4]" in found and "PUTL t" not in found
    inputs = {"X": [0.5, -1.0, 1e300, 2.0 ** 53], "N": [3, -(2 ** 63), 2 ** 53 + 1, 2 ** 62 + 12345]}
    assert run(text, O2, inputs).outputs == run(text, None, inputs).outputs
