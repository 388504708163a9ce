"""The engine: vectors and broadcasting, addressing, bounds, run statistics, step limits, traces,
and the paper's published rows computed with MODEL.md's cost formulas."""
from __future__ import annotations

import csv
import io
import itertools
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inca.compiler.assembler import assemble_text
from inca.interpreter.engine import RuntimeFault, StepLimit
from inca.interpreter.loader import RunResult, execute, time_us_text
from inca.interpreter.profiles import load_profile
from inca.lang.check import broadcast_map
from inca.lang.diagnostics import DiagnosticError
from inca.lang.tuples import encode

PAPER = Path(__file__).resolve().parents[2] / "shared" / "paper"
if not PAPER.is_dir():
    PAPER = Path("/work/shared/paper")


# ---- vectors ----------------------------------------------------------------------------------

def test_vector_scalar_broadcast_and_elementwise(run_asm):
    text = """\
.input A f64[4]
.input B f64[4]
.output T f64[4]
PUTL T[0:4], A[0:4]
MUL T[0:4], T[0:4], B[0:4]
ADD T[0:4], T[0:4], 0.5
END
"""
    r = run_asm(text, {"A": [1, 2, 3, 4], "B": [10, 20, 30, -1]})
    assert r.outputs["T"] == [10.5, 40.5, 90.5, -3.5]
    assert r.instructions == 3 and r.by_class["PUTL"] == 1 and r.by_class["ALU"] == 2
    assert r.memory_accesses == 4 * 1 + 4 * 2 + 4 * 2  # a per element
    # 4.5 + 4/3 ns is below every scalar cost: each vector costs what its scalar class costs
    assert r.time_ns == 11 + 12 + 12


def test_vector_broadcasts_scalar_location_and_element(run_asm):
    text = """\
.input A i64[3]
.output T i64[2][3]
.var s i64 = 7
PUTL T[0:2][0:3], s
ADD T[0:2][0:3], T[0:2][0:3], A[2]
END
"""
    r = run_asm(text, {"A": [0, 0, 100]})
    assert r.outputs["T"] == [107] * 6


@given(st.lists(st.integers(1, 5), max_size=4).flatmap(lambda dest: st.tuples(
    st.just(tuple(dest)), st.integers(0, len(dest)).flatmap(lambda k: st.tuples(
        *[st.sampled_from([1, n]) for n in dest[k:]])))))
def test_the_broadcast_map_is_numpy_s_position_of_each_element(shapes):
    # row-major over the destination, each position the source element NumPy broadcasting reads
    dest, src = shapes
    pad = (1,) * (len(dest) - len(src)) + src
    want = []
    for at in itertools.product(*[range(n) for n in dest]):
        pos = 0
        for j, n in zip(at, pad):
            pos = pos * n + (j if n != 1 else 0)
        want.append(pos)
    assert broadcast_map(src, dest) == want


def test_vector_broadcasts_rows_and_size_one_dimensions(run_asm):
    text = """\
.input V i64[3]
.input C i64[2][1]
.output T i64[2][3]
.output U i64[2][3]
PUTL T[0:2][0:3], V[0:3]
PUTL U[0:2][0:3], C[0:2][0:1]
ADD U[0:2][0:3], U[0:2][0:3], V[0:1]
END
"""
    r = run_asm(text, {"V": [1, 2, 3], "C": [10, 20]})  # execute takes flat row-major lists
    assert r.outputs["T"] == [1, 2, 3, 1, 2, 3]
    assert r.outputs["U"] == [11, 11, 11, 21, 21, 21]


@pytest.mark.parametrize("dest,src,shapes", [
    ("T[0:2][0:3]", "V[0:2]", "shape [2] of 'V[0:2]' does not broadcast to shape [2, 3]"),
    ("T[0:2][0:3]", "M[0:3][0:2]", "shape [3, 2] of 'M[0:3][0:2]' does not broadcast to shape [2, 3]"),
    ("T[0][0:3]", "V[0:4]", "shape [4] of 'V[0:4]' does not broadcast to shape [3]"),
    ("T[0][0:3]", "M[0:2][0:1]", "shape [2, 1] of 'M[0:2][0:1]' does not broadcast to shape [3]"),
])
def test_vector_shape_mismatch_is_an_assembly_error(dest, src, shapes):
    text = f".input V i64[4]\n.input M i64[3][2]\n.output T i64[2][3]\nPUTL {dest}, {src}\nEND\n"
    with pytest.raises(DiagnosticError) as e:
        assemble_text(text)
    (d,) = e.value.diagnostics
    assert shapes in d.message
    assert d.loc.line == 4


def test_vector_source_needs_vector_destination():
    with pytest.raises(DiagnosticError) as e:
        assemble_text(".input V i64[4]\n.output x i64\nADD x, x, V[0:4]\nEND\n")
    assert e.value.diagnostics[0].message == "a vector source of 4 elements needs a vector destination"
    assert e.value.diagnostics[0].loc.col == 11  # the caret is under the source


def test_strided_slices(run_asm):
    text = """\
.input A i64[8]
.output E i64[4]
.output O i64[8]
PUTL E[0:4], A[0:8:2]
PUTL O[1:8:2], A[1:8:2]
MUL O[1:8:2], O[1:8:2], -1
END
"""
    r = run_asm(text, {"A": list(range(10, 18))})
    assert r.outputs["E"] == [10, 12, 14, 16]
    assert r.outputs["O"] == [0, -11, 0, -13, 0, -15, 0, -17]
    assert r.time_ns == 11 + 11 + 12  # each selects 4 elements: the scalar floor applies


def test_two_dimensional_slices_and_rows(run_asm):
    text = """\
.input M i64[3][4]
.output T i64[4][3]
.output R i64[4]
.output Col i64[3]
PUTL R[0:4], M[1][0:4]
PUTL Col[0:3], M[0:3][2]
PUTL T[0:4][0], M[0][0:4]
PUTL T[1:3][1:3], M[1:3][2:4]
END
"""
    r = run_asm(text, {"M": list(range(1, 13))})  # [[1 2 3 4] [5 6 7 8] [9 10 11 12]]
    assert r.outputs["R"] == [5, 6, 7, 8]
    assert r.outputs["Col"] == [3, 7, 11]
    t = r.outputs["T"]
    assert [t[i * 3] for i in range(4)] == [1, 2, 3, 4]
    assert t[1 * 3 + 1: 1 * 3 + 3] == [7, 8] and t[2 * 3 + 1: 2 * 3 + 3] == [11, 12]


def test_overlapping_vector_reads_before_it_writes(run_asm):
    # NumPy semantics: A[1:4] = A[0:3] shifts, it does not smear A[0] across
    r = run_asm(".inout A i64[4]\nPUTL A[1:4], A[0:3]\nEND\n", {"A": [1, 2, 3, 4]})
    assert r.outputs["A"] == [1, 1, 2, 3]


def test_vector_with_runtime_offset(run_asm):
    text = ".input A i64[8]\n.output T i64[3]\nPUTL k, 4\nPUTL T[0:3], A[k:k+3]\nEND\n"
    assert run_asm(text, {"A": list(range(8))}).outputs["T"] == [4, 5, 6]


def test_vector_mixed_types_convert_per_element(run_asm):
    text = ".output T i64[3]\n.input F f64[3]\nPUTL T[0:3], F[0:3]\nADD T[0:3], T[0:3], -1.5\nEND\n"
    assert run_asm(text, {"F": [2.9, -2.9, 0.5]}).outputs["T"] == [1, -3, -1]
    with pytest.raises(RuntimeFault, match="nan"):
        run_asm(text, {"F": [1.0, float("nan"), 0.0]})


# ---- affine indices and bounds ----------------------------------------------------------------

def test_affine_indices(run_asm):
    text = """\
.input A i64[10]
.input M i64[3][3]
.output x i64
.output y i64
.output z i64
PUTL k, 3
PUTL x, A[2*k+1]
PUTL y, A[9-k]
PUTL j, 1
PUTL z, M[k-j][j+1]
END
"""
    r = run_asm(text, {"A": list(range(100, 110)), "M": list(range(9))})
    assert (r.outputs["x"], r.outputs["y"], r.outputs["z"]) == (107, 106, 8)


@pytest.mark.parametrize("k,index", [(4, 9), (-1, -1)])
def test_runtime_out_of_bounds_names_index_and_array(run_asm, k, index):
    text = f".var T i64[8]\n.output x i64\nPUTL k, {k}\nPUTL x, T[2*k+1]\nEND\n"
    with pytest.raises(RuntimeFault) as e:
        run_asm(text)
    assert e.value.k == 2
    assert e.value.message == f"index {index} is out of bounds for 'T' (dimension 0 has size 8)"


def test_runtime_out_of_bounds_destination_and_second_dimension(run_asm):
    with pytest.raises(RuntimeFault) as e:
        run_asm(".output M i64[2][3]\nPUTL j, 3\nPUTL M[1][j], 5\nEND\n")
    assert e.value.message == "index 3 is out of bounds for 'M' (dimension 1 has size 3)"
    assert e.value.k == 2


def test_runtime_out_of_bounds_vector(run_asm):
    with pytest.raises(RuntimeFault) as e:
        run_asm(".output T i64[6]\nPUTL k, 3\nPUTL T[k:k+4], 1\nEND\n")
    assert e.value.message == "index 6 is out of bounds for 'T' (dimension 0 has size 6)"


def test_constant_out_of_bounds_is_an_assembly_error():
    with pytest.raises(DiagnosticError) as e:
        assemble_text(".var T i64[8]\nPUTL T[8], 1\nPUTL T[0:9], 1\nEND\n")
    msgs = [d.message for d in e.value.diagnostics]
    assert msgs == ["index 8 is out of bounds for 'T' (dimension of size 8)",
                    "slice '0:9' is out of bounds for 'T' (dimension of size 8)"]


# ---- ends of runs -----------------------------------------------------------------------------

def test_running_off_the_end_is_a_fault(run_asm):
    with pytest.raises(RuntimeFault) as e:
        run_asm(".output x i64\nPUTL x, 1\n")
    assert e.value.kind == "off-end" and e.value.k is None
    assert "past the last instruction" in e.value.message


LOOP = ".output x i64\n1 ADD x, x, 1\n2 JMP 1\n3 END\n"
COUNT5 = ".output x i64\n1 PUTL i, 5\n2 BLEZ i, 6\n3 SUB i, i, 1\n4 JMP 2\n5 END\n6 END\n"  # 17 steps


@pytest.mark.parametrize("traced", [False, True])
def test_step_limit(run_asm, traced):
    trace = io.StringIO() if traced else None
    with pytest.raises(StepLimit) as e:
        run_asm(LOOP, max_steps=7, trace=trace)
    assert e.value.kind == "steps" and "within 7 steps" in e.value.message
    assert e.value.k == 2  # 7 steps ran (ADD JMP ADD JMP ADD JMP ADD); JMP would be the 8th
    assert isinstance(e.value, RuntimeFault)
    assert run_asm(COUNT5, max_steps=17, trace=trace).instructions == 17  # exactly enough is enough
    with pytest.raises(StepLimit):
        run_asm(COUNT5, max_steps=16, trace=trace)


def test_trace_matches_fast_run(run_asm):
    text = (Path(__file__).resolve().parents[1] / "examples" / "asm" / "dot-product-slide23.incaa").read_text()
    inputs = {"A": [i / 4 for i in range(50)], "B": [1.5 - i for i in range(50)]}
    out = io.StringIO()
    fast = run_asm(text, inputs)
    slow = run_asm(text, inputs, trace=out)
    assert fast.outputs == slow.outputs
    assert (fast.instructions, fast.by_class, fast.memory_accesses, fast.time_ns) == \
        (slow.instructions, slow.by_class, slow.memory_accesses, slow.time_ns)
    lines = out.getvalue().splitlines()
    assert len(lines) == fast.instructions + 1  # one per fired tuple, plus END
    assert "PUTL i, 0" in lines[0] and "t.incaa:7" in lines[0] and "pc 1 -> 2" in lines[0]
    assert lines[-1].split()[0] == "10" and "done" in lines[-1]
    assert lines[-1].endswith(f"t={float(fast.time_ns):.2f}ns")
    assert fast.outputs["c"] == sum(a * b for a, b in zip(inputs["A"], inputs["B"]))


# ---- statistics and time ----------------------------------------------------------------------

def test_statistics_by_hand(run_asm):
    text = """\
.input A i64[4]
.output s i64
1 PUTL i, 0
2 PUTL t, A[i]
3 ADD s, s, t
4 ADD i, i, 1
5 PUTL c, i
6 SUB c, c, 3
7 BLEZ c, 9
8 JMP 10
9 JMP 2
10 END
"""
    # PUTL i; then per element: PUTL ADD ADD PUTL SUB BLEZ and JMP 9 (3 times) or JMP 8 (last)
    r = run_asm(text, {"A": [1, 2, 3, 4]})
    assert r.outputs["s"] == 10
    assert r.by_class == {"PUTL": 1 + 2 * 4, "ALU": 3 * 4, "BLEZ": 4, "JMP": 4}
    assert r.instructions == 29 == r.messages
    assert r.memory_accesses == 9 * 1 + 12 * 2 + 4 * 1 + 4 * 0
    assert r.time_ns == 9 * 11 + 12 * 12 + 4 * 11 + 4 * 10
    base = run_asm(text, {"A": [1, 2, 3, 4]}, profile="base")
    # ALU with a location source: ADD s, s, t (4 times) costs 560; immediates cost 310
    assert base.time_ns == 25 * 310 + 4 * 560
    assert isinstance(r, RunResult) and r.profile.name == "scratchpad"


def test_time_at_faster_links(run_asm):
    text = ".output x i64\n1 PUTL x, 1\n2 ADD x, x, 1\n3 BLEZ x, 4\n4 JMP 5\n5 END\n"
    for profile, g in (("scratchpad", Fraction(5)), ("scratchpad-400g", Fraction(512, 400)),
                       ("scratchpad-1000g", Fraction(512, 1000))):
        r = run_asm(text, profile=profile)
        assert r.time_ns == (2 * g + 1) + (2 * g + 2) + (2 * g + 1) + 2 * g


def test_vector_costs_do_not_scale_with_link_speed(run_asm):
    text = ".output T f64[30]\nPUTL T[0:30], 1\nEND\n"  # long enough to be above the scalar floor
    assert run_asm(text).time_ns == run_asm(text, profile="scratchpad-1000g").time_ns == Fraction(29, 2)
    assert run_asm(text, profile="base").time_ns == 310 + 15


def test_a_short_vector_is_never_cheaper_than_its_scalar(run_asm):
    short = ".output T f64[9]\nPUTL T[0:9], 1\nEND\n"  # 4.5 + 9/3 = 7.5 ns below PUTL's 11 ns
    assert run_asm(short).time_ns == 11
    # at 1000 Gb/s a PUTL costs 2g + m = 2.024 ns, so the vector rule prices it
    assert run_asm(short, profile="scratchpad-1000g").time_ns == Fraction(15, 2)
    one = ".var c f64\n.var T f64[1]\nADD c, c, 1\nADD T[0:1], T[0:1], 1\nEND\n"
    assert run_asm(one).time_ns == 12 + 12


def test_capacity_is_checked(run_asm):
    with pytest.raises(DiagnosticError) as e:
        run_asm(".var T f64[131073]\nEND\n")  # 1 MiB + 8 bytes
    assert e.value.diagnostics[0].message == ("the program's data needs 1048584 bytes but the "
                                              "scratchpad of profile 'scratchpad' holds 1048576 bytes")
    assert run_asm(".var T f64[131072]\nEND\n").instructions == 0
    assert run_asm(".var T f64[131073]\nEND\n", profile="base").instructions == 0


# ---- the paper's rows -------------------------------------------------------------------------

DOT = """\
.param N = 50
.input  A f64[N]
.input  B f64[N]
.output c f64
1 PUTL i, 0
2 PUTL r0, i
3 LT r0, r0, N
4 BLEZ r0, 10
5 PUTL r1, A[i]
6 MUL r1, r1, B[i]
7 ADD c, c, r1
8 ADD i, i, 1
9 JMP 2
10 END
"""


def _paper_rows(name: str, kernel: str) -> dict[str, dict[int, str]]:
    path = PAPER / name
    if not path.exists():
        pytest.skip(f"{path} not available")
    with open(path, newline="") as f:
        return {row["variant"]: {int(k): v for k, v in row.items() if k.isdigit()}
                for row in csv.DictReader(f) if row["kernel"] == kernel}


@pytest.mark.parametrize("payload", [128, 1024, 8192])
def test_dot_product_matches_the_paper(payload):
    n = payload // 8
    tp = encode(assemble_text(DOT, defines={"N": n}))
    rows = _paper_rows("runtimes_us.csv", "dot-product")
    inputs = {"A": [1.0] * n, "B": [2.0] * n}
    for variant, per, fixed in (("scratchpad", 91, 45), ("base", 2980, 1240)):
        r = execute(tp, load_profile(variant), inputs)
        assert r.instructions == 8 * n + 4
        assert r.time_ns == per * n + fixed
        assert time_us_text(r.time_ns) == rows[variant][payload]
        assert r.outputs["c"] == 2.0 * n
    with open(PAPER / "instruction_counts.csv", newline="") as f:
        counts = {row["kernel"]: row for row in csv.DictReader(f)}
    assert int(counts["dot-product"][str(payload)]) == 8 * n + 4


@pytest.mark.parametrize("payload", [128, 1024, 8192])
def test_hadamard_parallel_rows_match_the_paper(payload):
    n = payload // 8
    rows = _paper_rows("runtimes_us.csv", "hadamard-product")
    two = (f".input A f64[{n}]\n.input B f64[{n}]\n.output C f64[{n}]\n"
           f"PUTL C[0:{n}], A[0:{n}]\nMUL C[0:{n}], C[0:{n}], B[0:{n}]\nEND\n")
    one = f".inout A f64[{n}]\n.input B f64[{n}]\nMUL A[0:{n}], A[0:{n}], B[0:{n}]\nEND\n"
    prof = load_profile("scratchpad")
    r2 = execute(encode(assemble_text(two)), prof, {"A": [2.0] * n, "B": [3.0] * n})
    r1 = execute(encode(assemble_text(one)), prof, {"A": [2.0] * n, "B": [3.0] * n})
    vec = Fraction(9, 2) + Fraction(n, 3)
    assert r2.time_ns == max(11, vec) + max(12, vec)
    assert r1.time_ns == max(12, vec)
    assert time_us_text(r2.time_ns) == rows["parallel"][payload]
    assert time_us_text(r1.time_ns) == rows["parallel-clobber"][payload]
    assert r2.outputs["C"] == [6.0] * n and r1.outputs["A"] == [6.0] * n


def test_data_beyond_the_simulation_limit_is_a_diagnostic(run_asm):
    # regression: under the base profile (no capacity) a huge array crashed with MemoryError
    with pytest.raises(DiagnosticError) as e:
        run_asm(".input A f64[100000000000]\n.output y f64\nPUTL y, A[0]\nEND\n", profile="base")
    assert e.value.diagnostics[0].message == ("the program's data needs 800000000008 bytes; the "
                                              "reference model simulates at most 1073741824 bytes (1 GiB)")
