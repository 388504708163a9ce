"""Loops whose trip count and divisors are inputs, at the small sizes where set-up costs show.

INCA-Q.md: no level may be slower (modeled) than -O0, at any input. The default inputs of the
other tests run such loops long enough to repay any set-up; these run them for 0 to a few
iterations. matrix-unpack at nbytes = 8 (one element) was 27% slower at -O1 than at -O0 (304 ns
against 239): its loop's first test was made twice (strength.py's guard and the loop's own), the
loop variable's last value was computed for nothing, the arms ended in chains of JMPs, and
``bl > 0`` took three instructions where one BLEZ does. The passes that vectorise such loops
(``stripmine``, ``blocks``) test the trip count or the divisor first, which the loop at -O1 must
pay for on a run of one iteration.

``INCA_RUNTIME_TRIPS_EXAMPLES=N`` makes a long run of the random loops.
"""
from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.opt.pipeline import Level
from inca.interpreter.engine import RuntimeFault, StepLimit
from inca.interpreter.inputs import seeded_values
from inca.interpreter.loader import execute
from inca.lang.diagnostics import Source
from inca.lang.tuples import encode
from test_incaq_fuzz import PROFILE, SETTINGS, same
from test_opt_programs import close

ROOT = Path(__file__).resolve().parent.parent
LEVELS = (Level(1), Level(2), Level(2, True))


def compiled(text: str, defines: dict[str, int] | None = None) -> dict:
    """The tuple program of ``text`` at -O0 (key None) and at each level."""
    src = Source("trips.incaq", text)
    out = {None: encode(compile_source(src, defines))}
    for level in LEVELS:
        out[level] = encode(compile_source(src, defines, level=level))
    return out


def check(programs: dict, inputs: dict, where) -> None:
    """Every level gives -O0's outputs (within rounding at -Ofast) in no more time, or faults
    where -O0 does. Nothing is compared where -O0 does not finish within the steps allowed (a
    loop to INT64_MAX - 1 of empty iterations, which -O2 removes)."""
    try:
        base = execute(programs[None], PROFILE, inputs, max_steps=1_000_000)
    except StepLimit:
        return
    except RuntimeFault:
        base = None
    for level in LEVELS:
        try:
            got = execute(programs[level], PROFILE, inputs, max_steps=1_000_000)
        except RuntimeFault:
            assert base is None, (where, level, "faults where -O0 does not")
            continue
        assert base is not None, (where, level, "finishes where -O0 faults")
        for name, value in base.outputs.items():
            ok = close if level.fast_math else same
            assert ok(value, got.outputs[name]), (where, level, name)
        assert got.time_ns <= base.time_ns, (where, level, got.time_ns, base.time_ns)


def test_matrix_unpack_at_every_small_datatype():
    path = ROOT / "examples" / "kernels" / "matrix-unpack.incaq"
    programs = compiled(path.read_text(), {"PAYLOAD": 256})
    arrays = {"P": seeded_values(next(d for d in compile_source(
        Source(path.name, path.read_text()), {"PAYLOAD": 256}).decls if d.name == "P"), 1)}
    for nbytes, bl, stride in itertools.product((0, 8, 16, 24, 40, 64, 136, 256),
                                                (1, 2, 3, 4, 5, 8, 16, 17, 32), (1, 3, 40)):
        check(programs, dict(arrays, nbytes=[nbytes], bl=[bl], st=[stride]), (nbytes, bl, stride))


# The loop over i: a bound from the inputs, a body from i / b, i % b and plain reads, perhaps
# inside a test of its own bound (as strength.py versions it) or of another input, or inside an
# outer loop (stripmine makes its tests outside that loop where its trip count is the same in
# every iteration of it).
BOUNDS = ("n", "n / 2", "n - 1", "min(n, 12)", "n + m", "n * 4", "n * 5 + m")
BODIES = (
    "Y[(i / b) * s + i % b] = X[i]",
    "Y[i % b] = Y[i % b] + X[i]",
    "Y[i / b] = X[i]",
    "t = i % b\n    Y[i] = t",
    "Y[i] = X[i] * 2",
    "c = c + X[i]",
    "Y[i / b] = Y[i / b] + i % b",
    "Y[i + 1] = Y[i + 1] + X[i]",
    "u = X[i] - 3\n    Y[i] = u * u",
    "Y[i] = X[i] + m",
    "t = X[i] & 3\n    d = t + i % b\n    t = 7\n    Y[d] = t",
)
WRAPS = ("{loop}", "if 0 < {hi} then {{\n{loop}\n}}", "if m > 0 then {{\n{loop}\n}}",
         "{loop}\nc = c + i", "for o in 0 .. m do {{\n{loop}\n}}",
         "for o in 1 .. 3 do {{\n    c = c + o\n{loop}\n    Y[o] = c\n}}",
         "for o in 0 .. m + 1 do {{\n{loop}\n}}\nc = c + o", "for o in 0 .. n * 3 do {{\n{loop}\n}}",
         "for o in 0 .. n do {{\n    c = c + o\n{loop}\n    Y[o + 1] = c\n}}")
# Trip counts that change with the outer loop, some affine in o alone (stripmine splits the loop
# over o where such a count reaches 16)
BY_O = ("{hi} + o", "o", "o + 1", "o - 2", "o + 2", "o + m")


# Bounds next to the ends of i64, where a trip count computed as ``hi - lo`` wraps
EXTREMES = (-2**63, -2**63 + 1, -2**63 + 2, 2**63 - 2, 2**63 - 1)


@st.composite
def loops(draw):
    hi = draw(st.sampled_from(BOUNDS))
    wrap = draw(st.sampled_from(WRAPS))
    lo = draw(st.sampled_from((0, 1, 2, "m", *(("o", "o + 1") if "for o" in wrap else ()))))
    if "for o" in wrap and draw(st.booleans()):  # a trip count that changes with the outer loop
        hi = draw(st.sampled_from(BY_O)).format(hi=hi)
    body = "\n    ".join(draw(st.lists(st.sampled_from(BODIES), min_size=1, max_size=3)))
    loop = f"for i in {lo} .. {hi} do {{\n    {body}\n}}"
    text = ("input n: i64\ninput m: i64\ninput b: i64\ninput s: i64\ninput X: i64[48]\n"
            "output Y: i64[48]\noutput c: i64\n" + wrap.format(loop=loop, hi=hi))
    inputs = {"n": [draw(st.integers(-1, 7) | st.sampled_from(EXTREMES))],
              "m": [draw(st.integers(-1, 3) | st.sampled_from(EXTREMES))],
              "b": [draw(st.sampled_from((0, 1, 2, 3, 4, 15, 16, 17, 20)))], "s": [draw(st.integers(0, 5))],
              "X": [draw(st.integers(-9, 9)) for _ in range(48)]}
    return text, inputs


@settings(SETTINGS, max_examples=int(os.environ.get("INCA_RUNTIME_TRIPS_EXAMPLES", "60")))
@given(loops())
def test_random_runtime_trip_loops_at_small_inputs(case):
    text, inputs = case
    check(compiled(text), inputs, text)


@pytest.mark.parametrize("cond, blez", (("x > 0", True), ("0 < x", True), ("x >= 1", False),
                                         ("y > 0.0", False)))
def test_a_positive_test_of_an_i64_is_one_blez(cond, blez):
    """``if x > 0`` on an i64 scalar: x <= 0 is where BLEZ jumps (an f64 NaN is not <= 0, and
    not > 0 either, so an f64 keeps its compare)."""
    text = f"input x: i64\ninput y: f64\noutput z: i64\nif {cond} then {{ z = 5 }}\n"
    prog = compile_source(Source("p.incaq", text), level=Level(1))
    ops = [ins.op for ins in prog.instrs]
    assert (ops[:2] == ["BLEZ", "PUTL"]) == blez, ops
    for x, y in ((-1, float("nan")), (0, 0.0), (1, 1.0)):
        check(compiled(text), {"x": [x], "y": [y]}, (cond, x))


MAP = ("input n: i64\ninput X: f64[128]\noutput Y: f64[128]\n"
       "for i in 0 .. n do {\n    Y[i] = X[i] * 2.0 + 1.0\n}\n")


def remarks(text: str) -> str:
    from inca.compiler.opt.pipeline import Trace

    trace = Trace()
    compile_source(Source("trips.incaq", text), level=Level(2), trace=trace)
    return trace.remarks.text()


@pytest.mark.parametrize("n", (0, 1, 15, 16, 17, 100, 128))
def test_a_map_over_an_input_count_runs_in_vector_chunks(n):
    programs = compiled(MAP)
    inputs = {"n": [n], "X": [k / 8 - 3.0 for k in range(128)]}
    check(programs, inputs, n)
    o0 = execute(programs[None], PROFILE, inputs).time_ns
    o2 = execute(programs[Level(2)], PROFILE, inputs).time_ns
    if n >= 100:  # 16 x 3 vector instructions and the chunks' loop against 8 instructions an element
        assert o2 * 20 < o0, (o2, o0)


def test_the_last_chunk_overlaps_only_where_running_twice_changes_nothing():
    assert "the last 16 once more" in remarks(MAP)
    accumulate = MAP.replace("Y[i] = X[i] * 2.0 + 1.0", "Y[i] = Y[i] + X[i]")
    assert "the rest one by one" in remarks(accumulate)
    for n in (0, 5, 16, 37, 128):
        check(compiled(accumulate), {"n": [n], "X": [k / 8 for k in range(128)]}, n)

STENCIL = ("input n: i64\ninput X: f64[128]\noutput Y: f64[128]\n"
           "for i in 1 .. n - 1 do {\n    Y[i] = (X[i - 1] + X[i] + X[i + 1]) * 0.25\n}\n")


@pytest.mark.parametrize("lo", ("1", "2", "m"))
def test_a_loop_from_another_start_is_counted_from_0_in_chunks(lo):
    """``for i in lo .. hi`` runs as a loop of ``max(hi, lo) - lo`` trips from 0, i being lo plus
    its variable: its first test is the one BLEZ of the trip count (no compare), so no run of it
    is slower than -O0's. Not from a scalar (see the next test)."""
    text = STENCIL.replace("1 .. n - 1", f"{lo} .. n - 1").replace("input n", "input m: i64\ninput n")
    assert ("loop over i strip-mined" in remarks(text)) == (lo != "m")
    programs = compiled(text)
    for n, m in itertools.product((0, 1, 2, 3, 4, 17, 18, 19, 33, 100, 128), (-3, 0, 1, 5)):
        inputs = {"n": [n], "m": [m], "X": [k / 8 - 3.0 for k in range(128)]}
        check(programs, inputs, (n, m))
    if lo != "m":
        inputs = {"n": [100], "m": [1], "X": [k / 8 - 3.0 for k in range(128)]}
        o0 = execute(programs[None], PROFILE, inputs).time_ns
        o2 = execute(programs[Level(2)], PROFILE, inputs).time_ns
        assert o2 * 15 < o0, (o2, o0)  # 98 iterations of 12 instructions against 7 chunks of 6


def test_blocks_are_not_made_where_the_loop_variable_is_read_after():
    """Found by the fuzzer: over one element at b = 1, the versions paid i's last value and a
    jump, 247 ns against -O0's 240."""
    text = ("input n: i64\ninput b: i64\ninput s: i64\ninput X: i64[48]\noutput Y: i64[48]\n"
            "output c: i64\nfor i in 0 .. min(n, 12) do {\n    Y[(i / b) * s + i % b] = X[i]\n}\n"
            "c = c + i\n")
    assert "made blocks" not in remarks(text)
    programs = compiled(text)
    for n, b in itertools.product((0, 1, 2, 12), (1, 2, 4, 16)):
        check(programs, {"n": [n], "b": [b], "s": [0], "X": list(range(48))}, (n, b))


@pytest.mark.parametrize("loop, why", (
    ("for i in m .. n - 1", "it starts at m: only loops from a number >= 0 are"),
    ("for i in -2 .. n - 1", "it starts at -2: only loops from a number >= 0 are"),
    ("for i in 1 .. n", "up to n from 1, counting its trips costs three instructions"),
    ("c = 0\nfor i in 1 .. n - 1", "i is read after it, and its last value would cost two"),
))
def test_a_loop_from_another_start_left_as_written_says_why(loop, why):
    text = STENCIL.replace("for i in 1 .. n - 1", loop).replace("input n", "input m: i64\ninput n")
    if loop.startswith("c = 0"):
        text = text.replace("output Y", "output c: i64\noutput Y") + "c = i\n"
    said = remarks(text)
    assert f"remark (missed): [stripmine] loop over i not strip-mined: {why}" in said, said
    assert "[vectorise] loop over i not vectorised" not in said  # (explained already)


@pytest.mark.parametrize("lo, n, m", (("1", -2**63 + 1, 0), ("m", 10, -2**63), ("2", -2**63 + 2, 0),
                                      ("m", 2**63 - 1, -2), ("3", 2**63 - 1, 0)))
def test_a_trip_count_next_to_the_ends_of_i64_is_exact(lo, n, m):
    """From lo = 1 the trip count was ``n - 2``, INT64_MAX at n = INT64_MIN + 1 where -O0 runs
    no iteration (the chunks faulted); from a scalar m = INT64_MIN, where -O0 faults at once, it
    was negative (no fault). h is now ``max(hi, lo) - lo`` from a number > 0 only."""
    text = STENCIL.replace("1 .. n - 1", f"{lo} .. n - 1").replace("input n", "input m: i64\ninput n")
    check(compiled(text), {"n": [n], "m": [m], "X": [k / 8 for k in range(128)]}, (lo, n, m))


NEST = ("input n: i64\ninput m: i64\ninput A: f64[64][64]\ninput B: f64[64][64]\n"
        "output C: f64[64][64]\nfor i in 0 .. n do {\n    for j in 0 .. m do {\n"
        "        C[i][j] = A[i][j] + B[i][j]\n    }\n}\n")


@pytest.mark.parametrize("bound", ("m", "i + 1"))
def test_the_tests_of_an_inner_trip_count_are_made_once_outside_the_outer_loop(bound):
    """The tests of m (and m / 16) are made before the loop over i, each picking a copy of it:
    at 50 x 50, -O2 took 13,134 ns with them in each row (-O1 117,884). Not where the trip count
    changes with i."""
    text = NEST.replace("0 .. m", f"0 .. {bound}")
    said = "the tests of the trip count of the loop over j made once, outside the loop over i"
    assert (said in remarks(text)) == (bound == "m")
    programs = compiled(text)
    grid = [k / 16 for k in range(64 * 64)]
    for n, m in itertools.product((0, 1, 2, 5), (0, 1, 15, 16, 17, 40)):
        check(programs, {"n": [n], "m": [m], "A": grid, "B": grid}, (n, m))
    if bound == "m":
        inputs = {"n": [50], "m": [50], "A": grid, "B": grid}
        assert execute(programs[Level(2)], PROFILE, inputs).time_ns < 10_500


@st.composite
def triangles(draw):
    """A loop over o from a constant whose inner loop's trip count is o plus a constant, or a
    bound minus o (the rows of a triangle), with inputs that run it past the row where that count
    reaches 16."""
    if draw(st.booleans()):  # rows that grow with o (below the diagonal)
        bound = draw(st.sampled_from(("o", "o + 1", "o - 1", "o - 3", "o + 2")))
        inner = draw(st.sampled_from(("0", "0", "1")))
        lo = draw(st.sampled_from((0, 1, 3, 16, 20)))
    else:  # rows that shrink (above it; from o + 2 or o - 1, or up to n - 2, left as written)
        bound = draw(st.sampled_from(("n", "n", "n", "30", "n + 3", "n - 2", "m * 20")))
        inner = draw(st.sampled_from(("o", "o + 1", "o + 1", "o + 2", "o - 1")))
        lo = draw(st.sampled_from((0, 0, 0, 3)))
    body = "\n        ".join(draw(st.lists(st.sampled_from(BODIES), min_size=1, max_size=2)))
    text = ("input n: i64\ninput m: i64\ninput b: i64\ninput s: i64\ninput X: i64[48]\n"
            "output Y: i64[48]\noutput c: i64\n"
            f"for o in {lo} .. n do {{\n    for i in {inner} .. {bound} do {{\n        {body}\n    }}\n}}\n")
    inputs = {"n": [draw(st.integers(-1, 40) | st.sampled_from(EXTREMES))],
              "m": [draw(st.integers(-1, 3))],
              "b": [draw(st.sampled_from((1, 2, 3, 16, 17)))], "s": [draw(st.integers(0, 1))],
              "X": [draw(st.integers(-9, 9)) for _ in range(48)]}
    return text, inputs


@settings(SETTINGS, max_examples=int(os.environ.get("INCA_RUNTIME_TRIPS_EXAMPLES", "30")))
@given(triangles())
def test_random_triangular_nests(case):
    text, inputs = case
    check(compiled(text), inputs, text)


TRIANGLE = ("input n: i64\ninput A: f64[64][64]\noutput L: f64[64][64]\n"
            "for i in 0 .. n do {\n    for j in 0 .. BOUND do {\n        L[i][j] = A[i][j] * 2.0\n"
            "    }\n}\n")


@pytest.mark.parametrize("bound, split", (("i + 1", True), ("i", True), ("i - 1", True),
                                          ("i + 2", False)))
def test_a_triangular_nest_is_split_where_its_rows_reach_a_chunk(bound, split):
    """Rows of fewer than 16 run the scalar loop as at -O1, the others the chunks with no test:
    with the tests in each row, 12 rows (``0 .. i + 1``) took 10,725 ns at -O2 against 9,943 at
    -O1, and 64 rows 92,500. Not where ``i + b`` could wrap (b > 1: the last row's i is up to
    INT64_MAX - 1)."""
    text = TRIANGLE.replace("BOUND", bound)
    said = "the loop over i split where the loop over j reaches 16 iterations"
    assert (said in remarks(text)) == split
    # the split said what became of the loop over i: vectorise does not add why not its copies
    assert ("loop over i not vectorised" in remarks(text)) != split
    programs = compiled(text)
    grid = [k / 16 for k in range(64 * 64)]
    for n in (0, 1, 2, 12, 14, 15, 16, 17, 18, 40, 64):
        check(programs, {"n": [n], "A": grid}, n)
        if split:
            o1, o2 = (execute(programs[level], PROFILE, {"n": [n], "A": grid}).time_ns
                      for level in (Level(1), Level(2)))
            assert o2 <= o1 + 11, (n, o2, o1)  # (at most the one test of which rows there are)
    if bound == "i + 1":
        assert execute(programs[Level(2)], PROFILE, {"n": [64], "A": grid}).time_ns < 88_000


@pytest.mark.parametrize("rows, split", (("i + 1 .. n", True), ("i .. n", True), ("i + 2 .. n", False),
                                         ("i + 1 .. n - 2", False)))
def test_an_upper_triangle_is_split_where_its_rows_fall_below_a_chunk(rows, split):
    """The rows of at least 16 run in chunks with no test, the others as written: 64 rows of
    ``i + 1 .. n`` took 145,741 ns at -O1 (189,421 at -O0) and now 22,230. No run is slower than
    at -O0, the smallest paying one test of n (159 ns over one row, -O0 169)."""
    text = TRIANGLE.replace("0 .. BOUND", rows)
    said = "the loop over i split where the loop over j falls below 16 iterations"
    assert (said in remarks(text)) == split
    assert ("loop over i not vectorised" in remarks(text)) != split
    programs = compiled(text)
    grid = [k / 16 for k in range(64 * 64)]
    for n in (*range(-1, 20), 31, 32, 33, 40, 63, 64):
        check(programs, {"n": [n], "A": grid}, n)
    if rows == "i + 1 .. n":
        assert execute(programs[Level(2)], PROFILE, {"n": [64], "A": grid}).time_ns < 23_000


@pytest.mark.parametrize("body", [b for b in BODIES if "/ b" in b or "% b" in b])
def test_blocks_of_a_run_time_divisor_at_every_small_shape(body):
    """``blocks``: the nest, the first block alone, and the loop as written for b < 16, over
    runs that end in the first, second or third block."""
    text = ("input n: i64\ninput m: i64\ninput b: i64\ninput s: i64\ninput X: i64[48]\n"
            f"output Y: i64[48]\noutput c: i64\nfor i in 0 .. n * 5 + m do {{\n    {body}\n}}\n")
    programs = compiled(text)
    for n, m, b, s in itertools.product(range(8), (0, 3), (1, 3, 4, 5, 8, 15, 16, 17, 20, 37), (0, 1, 5)):
        check(programs, {"n": [n], "m": [m], "b": [b], "s": [s], "X": list(range(48))},
              (body, n, m, b, s))


def test_matrix_unpack_copies_its_blocks_as_vectors():
    path = ROOT / "examples" / "kernels" / "matrix-unpack.incaq"
    text = path.read_text()
    assert "made blocks of bl iterations" in remarks(text.replace("param PAYLOAD = 128", "param PAYLOAD = 8192"))
    prog = compile_source(Source(path.name, text), {"PAYLOAD": 8192}, level=Level(2))
    assert any(":" in ins.text() and ins.op == "PUTL" for ins in prog.instrs)


DOT = ("input n: i64\ninput A: f64[128]\ninput B: f64[128]\noutput c: f64\n"
       "for i in 0 .. n do {\n    c = c + A[i] * B[i]\n}\n")


@pytest.mark.parametrize("dtype", ("f64", "i64"))
def test_a_sum_over_an_input_count_adds_vector_terms_by_chunks(dtype):
    text = DOT.replace("f64", dtype)
    assert "strip-mined" in remarks(text)
    programs = compiled(text)
    values = [k / 8 - 3.0 for k in range(128)] if dtype == "f64" else list(range(-64, 64))
    for n in (0, 1, 15, 16, 17, 100, 128):
        inputs = {"n": [n], "A": values, "B": values[::-1]}
        check(programs, inputs, (dtype, n))
        if n == 100:  # -O2 keeps f64 additions in order, bit for bit, and still saves most
            o1 = execute(programs[Level(1)], PROFILE, inputs).time_ns
            o2 = execute(programs[Level(2)], PROFILE, inputs).time_ns
            assert o2 * 2 < o1, (o2, o1)
