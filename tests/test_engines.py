"""The python and llvm engines give exactly the reference's results (docs/engines.md).

* every example, golden program and paper kernel (at -O0, -O2 and -Ofast, several payloads, with
  and without --clobber) runs alike: every field of RunResult but the wall time, the speed and
  the engine's name, outputs bit for bit;
* random tuple programs (``engine_fuzz.py``) leave the NIC alike: fire counts, steps, fault
  message, tuple and kind, counters and every buffer's storage bit for bit.
  ``INCA_ENGINE_FUZZ_EXAMPLES=N`` runs N of them (default 300; ``bench/fuzz_engines.py`` runs
  long campaigns);
* targeted cases: each operation against lang.isa on special values, faults part way through a
  vector, the order of a conversion and a bounds check, views, step budgets at every tuple, and
  programs the translation leaves to the reference.

The llvm engine runs the same cases, fewer of them in the default suite (each program costs an
LLVM compilation): every paper kernel at two payloads, every example and golden program once,
the targeted cases and a short fuzz run (``INCA_LLVM_FUZZ_EXAMPLES=N``, default 60;
``INCA_LLVM_ALL=1`` runs every kernel case; ``bench/fuzz_engines.py --engine llvm`` runs long).
"""
from __future__ import annotations

import contextlib
import functools
import io
import itertools
import json
import math
import os
import struct
from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st

from engine_fuzz import outcome, programs
from inca.compiler.assembler import assemble_text
from inca.compiler.frontend import Options, compile_options, load_tuples
from inca.compiler.printer import print_program
from inca.interpreter import cli, engine, llvmengine, llvmgen, pyengine
from inca.interpreter.blocks import analyse
from inca.interpreter.engine import arm
from inca.interpreter.inputs import gather_inputs
from inca.interpreter.loader import ENGINES, RunResult, execute, install
from inca.interpreter.nic import NIC
from inca.interpreter.profiles import load_profile
from inca.interpreter.pygen import translate
from inca.interpreter.pyops import binary, raw_binary, wrap_all
from inca.lang.isa import I64_MAX, I64_MIN, OPCODES, ArithmeticFault, semantics
from inca.lang.program import Ref
from inca.lang.tuples import TupleProgram, Trigger, Tuple, encode
from test_golden import sources

ROOT = Path(__file__).resolve().parents[1]
FUZZ_EXAMPLES = int(os.environ.get("INCA_ENGINE_FUZZ_EXAMPLES", "300"))
LLVM_FUZZ_EXAMPLES = int(os.environ.get("INCA_LLVM_FUZZ_EXAMPLES", "60"))
LLVM_ALL = os.environ.get("INCA_LLVM_ALL") == "1"
# the llvm engine as the fuzzers run it: a program it would leave to another engine is an error
llvm_run = functools.partial(llvmengine.run, strict=True)


def bits(value):
    """Outputs exactly: floats by their bits (NaN payloads, signed zeros), ints by type and value."""
    if isinstance(value, list):
        return [bits(v) for v in value]
    return struct.pack("<d", value).hex() if type(value) is float else (type(value).__name__, value)


def assert_same(got: RunResult, want: RunResult, name: str = "python") -> None:
    """Every field of RunResult but the wall time, the speed and the engine."""
    assert got.engine == name and want.engine == "reference"
    for f in fields(RunResult):
        if f.name in ("wall_s", "tuples_per_s", "engine"):
            continue
        a, b = getattr(got, f.name), getattr(want, f.name)
        if f.name == "outputs":
            a, b = {k: bits(v) for k, v in a.items()}, {k: bits(v) for k, v in b.items()}
        assert a == b, f"{f.name} differs"


def both(tp: TupleProgram, profile: str, inputs: dict, max_steps: int = 100_000_000,
         engines: tuple[str, ...] = ("python",)) -> None:
    prof = load_profile(profile)
    want = execute(tp, prof, {k: list(v) for k, v in inputs.items()}, max_steps, engine="reference")
    for name in engines:
        assert_same(execute(tp, prof, {k: list(v) for k, v in inputs.items()}, max_steps,
                            engine=name), want, name)


# ---- every program of the repository ------------------------------------------------------------

KERNELS = sorted((ROOT / "examples" / "kernels").glob("*.incaq"))
KERNEL_CASES = [(k, payload, opt, clobber) for k in KERNELS for payload in (128, 1024, 8192)
                for opt in ("0", "2", "fast") for clobber in (False, True)]


@pytest.mark.parametrize("path, payload, opt, clobber", KERNEL_CASES,
                         ids=[f"{k.stem}-{p}-O{o}{'-clobber' * c}" for k, p, o, c in KERNEL_CASES])
def test_paper_kernels_run_alike(path, payload, opt, clobber):
    tp = load_tuples(str(path), Options({"PAYLOAD": payload}, 0 if opt == "0" else 2, (), clobber,
                                        opt == "fast"))
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], payload)
    both(tp, "base" if payload == 1024 else "scratchpad", inputs,
         engines=("python", "llvm") if LLVM_ALL or payload != 8192 and not clobber else ("python",))


def test_generated_kernels_keep_their_locals_out_of_closure_cells():
    for path in KERNELS:  # -O2 makes vector code, whose comprehensions could capture locals
        tp = load_tuples(str(path), Options({"PAYLOAD": 1024}, 2, (), False, False))
        nic = NIC(load_profile("scratchpad"))
        pc, _ = install(tp, nic, gather_inputs({b.name: b for b in tp.buffers}, [], 1))
        armed = arm(nic, pc)
        kernel = translate(nic, armed, analyse(armed, 1)).compile()
        assert kernel.__code__.co_cellvars == (), path.stem


PROGRAMS = [s for s in sources() if s.kind != "errors"]


@pytest.mark.parametrize("src", PROGRAMS, ids=[f"{s.kind}/{s.name}" for s in PROGRAMS])
@pytest.mark.parametrize("scale", [1, 4])
def test_examples_and_golden_programs_run_alike(src, scale):
    args = src.args()
    if scale > 1:  # the examples again, past the goldens' smallest size
        args = [a.replace("=16", "=64").replace("=4", "=8").replace("=128", "=1024") for a in args]
    parsed = cli.build_parser().parse_args(["run", src.path.name, *args])
    with contextlib.chdir(src.path.parent):
        tp = load_tuples(src.path.name, compile_options(parsed))
    for seed in (1, 2):
        both(tp, "scratchpad", gather_inputs({b.name: b for b in tp.buffers}, [], seed),
             engines=("python", "llvm") if seed == 1 and (scale == 1 or LLVM_ALL) else ("python",))


# ---- random programs ----------------------------------------------------------------------------

@settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_random_programs_run_alike(case):
    tp, inputs, budget = case
    note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}")
    want = outcome(tp, inputs, budget, engine.run)
    how = want[0]
    event(how[0] if how[0] != "RuntimeFault" else f"{how[3]}{' (bounds)' * ('bounds' in how[1])}")
    assert outcome(tp, inputs, budget, pyengine.run) == want


@settings(max_examples=LLVM_FUZZ_EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_random_programs_run_alike_on_llvm(case):
    tp, inputs, budget = case
    note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}")
    assert outcome(tp, inputs, budget, llvm_run) == outcome(tp, inputs, budget, engine.run)


@contextlib.contextmanager
def tier_steps(n: int):
    """The llvm engine moving to its second tier after ``n`` steps (a run of the paper's sizes
    takes millions before it would)."""
    was = llvmengine.TIER_STEPS
    llvmengine.TIER_STEPS = n
    try:
        yield
    finally:
        llvmengine.TIER_STEPS = was


@settings(max_examples=LLVM_FUZZ_EXAMPLES // 2, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), st.integers(0, 20))
def test_random_programs_run_alike_on_llvm_moving_tier_part_way(case, tier):
    tp, inputs, budget = case
    note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}\ntier {tier}")
    with tier_steps(tier):
        assert outcome(tp, inputs, budget, llvm_run) == outcome(tp, inputs, budget, engine.run)



@contextlib.contextmanager
def long_kernels():
    """The llvm engine treating every kernel as a long one (a kernel of the paper's sizes has
    thousands of blocks, or calls hundreds of element loops): its block counters kept in the
    counts memory, and one that calls an element loop kept as it is (optnone), its loops at -O2,
    in one tier."""
    was = llvmengine.CALL_LINES, llvmgen.BIG_IR_LINES
    llvmengine.CALL_LINES, llvmgen.BIG_IR_LINES = llvmengine.BIG_IR_LINES + 1, 0
    try:
        yield
    finally:
        llvmengine.CALL_LINES, llvmgen.BIG_IR_LINES = was


@settings(max_examples=LLVM_FUZZ_EXAMPLES // 2, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_random_programs_run_alike_on_llvm_as_long_kernels(case):
    tp, inputs, budget = case
    note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}")
    with long_kernels():
        assert outcome(tp, inputs, budget, llvm_run) == outcome(tp, inputs, budget, engine.run)


def test_a_long_run_moves_to_the_second_tier_once_and_a_short_one_never(monkeypatch):
    path = ROOT / "examples" / "asm" / "matrix-multiplication.incaa"
    tp = encode(assemble_text(path.read_text(encoding="utf-8"), str(path), {"R": 3, "C": 4}))
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 1)
    compiled = []
    real = llvmengine.compile_ir

    def spy(ir, level=llvmengine.OPT_LEVEL, name="kernel", full=True):
        compiled.append((level, full))
        return real(ir, level, name, full)

    monkeypatch.setattr(llvmengine, "compile_ir", spy)
    want = outcome(tp, inputs, 100_000, engine.run)
    assert outcome(tp, inputs, 100_000, llvm_run) == want
    assert compiled == [(2, False)]
    compiled.clear()
    with tier_steps(50):
        assert outcome(tp, inputs, 100_000, llvm_run) == want
    assert compiled == [(2, False), (2, True)]
    compiled.clear()
    assert outcome(tp, inputs, 100_000, functools.partial(llvm_run, level=2)) == want
    assert compiled == [(2, True)]  # a level asked for is compiled as asked, in one tier


def test_a_second_tier_that_would_call_a_missing_symbol_is_not_taken(monkeypatch):
    path = ROOT / "examples" / "asm" / "matrix-multiplication.incaa"
    tp = encode(assemble_text(path.read_text(encoding="utf-8"), str(path), {"R": 3, "C": 4}))
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 1)
    real = llvmengine.compile_ir

    def refuse_the_pipeline(ir, level=llvmengine.OPT_LEVEL, name="kernel", full=True):
        if full:
            raise llvmengine.UnresolvedSymbol("the compiled code calls __divti3")
        return real(ir, level, name, full)

    monkeypatch.setattr(llvmengine, "compile_ir", refuse_the_pipeline)
    want = outcome(tp, inputs, 100_000, engine.run)
    with tier_steps(50):  # the run goes on in the first tier
        assert outcome(tp, inputs, 100_000, llvmengine.run) == want
        with pytest.raises(llvmengine.UnresolvedSymbol):  # strict, as the fuzzers run it
            outcome(tp, inputs, 100_000, llvm_run)


# ---- the operations -----------------------------------------------------------------------------

I64S = [0, 1, -1, 2, -2, 3, 7, 63, 64, 65, -64, I64_MIN, I64_MAX, I64_MIN + 1, I64_MAX - 1, 1 << 62]
F64S = [0.0, -0.0, 1.0, -1.5, 2.5, 1e308, -1e308, 5e-324, math.inf, -math.inf, math.nan,
        -math.nan, 9.2e18, 7.0]
NAMES = {"_wrap64": __import__("inca.lang.isa", fromlist=["wrap64"]).wrap64,
         "_idiv": OPCODES["DIV"].i64, "_imod": OPCODES["MOD"].i64, "_fdiv": OPCODES["DIV"].f64,
         "_fmod": OPCODES["MOD"].f64, "_fmin": OPCODES["MIN"].f64, "_fmax": OPCODES["MAX"].f64,
         "_shl": OPCODES["SHL"].i64, "_shr": OPCODES["SHR"].i64, "_wrap_all": wrap_all}


def _result(f, *args):
    try:
        return bits(f(*args))
    except ArithmeticFault as e:
        return ("fault", str(e))


@pytest.mark.parametrize("op, dtype", [(op, dt) for op, spec in OPCODES.items() for dt in ("i64", "f64")
                                       if spec.form.name == "BINARY" and semantics(spec, dt)])
def test_each_operation_is_lang_isa_s_on_special_values(op, dtype):
    fn = semantics(OPCODES[op], dtype)
    values = I64S if dtype == "i64" else F64S
    for r, s in itertools.product(values, values):
        want = _result(fn, r, s)
        for const in (None, s):  # the source unknown, or an immediate (its sign spares a test)
            code = compile(binary(op, dtype, "r", "s", const), "<op>", "eval")
            assert _result(eval, code, dict(NAMES, r=r, s=s)) == want, (op, dtype, r, s, const)
        expr, wraps = raw_binary(op, dtype, "_x", "_y", None)  # as a vector op computes it
        vector = f"[{expr} for _x, _y in zip([r], [s])]"
        code = compile(f"_wrap_all({vector})" if wraps else vector, "<op>", "eval")
        assert _result(eval, code, dict(NAMES, r=r, s=s)) == (
            [want] if want[0] != "fault" else want), (op, dtype, r, s)


# ---- faults, views, budgets ---------------------------------------------------------------------

def alike(text: str, inputs: dict | None = None, max_steps: int = 10_000) -> tuple:
    """Run INCA-A text on both engines; what the runs leave must agree. Returns it."""
    tp = encode(assemble_text(text, "t.incaa"))
    want = outcome(tp, inputs or {}, max_steps, engine.run)
    assert outcome(tp, inputs or {}, max_steps, pyengine.run) == want
    assert outcome(tp, inputs or {}, max_steps, llvm_run) == want
    return want


def test_a_division_by_zero_part_way_through_a_vector_keeps_the_elements_before_it():
    how, pc, _, storage = alike(".inout A i64[6]\n.input D i64[6]\nDIV A[0:6], A[0:6], D[0:6]\nEND\n",
                                {"A": [10, 20, 30, 40, 50, 60], "D": [1, 2, 0, 4, 5, 6]})
    assert how == ("RuntimeFault", "i64 division by zero", 1, "fault") and pc == 1
    assert storage["A"] == [("int", v) for v in (10, 10, 30, 40, 50, 60)]


@pytest.mark.parametrize("op, message", [
    ("PUTL", "cannot convert nan to i64"),  # a PUTL converts, then checks where it stores
    ("ADD", "index 9 is out of bounds for 'A' (dimension 0 has size 4)"),  # an ALU op the reverse
])
def test_conversion_and_bounds_fault_in_the_reference_s_order(op, message):
    how, *_ = alike(f".inout A i64[4]\n.input x f64\n.var i i64 = 9\n{op} A[i], x\nEND\n",
                    {"x": [math.nan]})
    assert how == ("RuntimeFault", message, 1, "fault")


def test_an_index_past_i64_is_reported_exactly():
    how, *_ = alike(".inout A i64[4]\n.input a i64\nPUTL A[4*a+3], 1\nEND\n", {"a": [I64_MAX]})
    assert how[1] == f"index {4 * I64_MAX + 3} is out of bounds for 'A' (dimension 0 has size 4)"


def test_a_scalar_seen_through_a_view_is_not_kept_apart_from_it():
    text = """\
.inout O i64[1]
.var z i64 @ O
.output s i64
loop:
ADD O[0], O[0], 3
ADD z, z, 1
ADD s, s, z
PUTL t, z
SUB t, t, 20
BLEZ t, loop
END
"""
    how, _, _, storage = alike(text, {"O": [0]})
    assert how[0] == "ok" and storage["O"] == storage["z"] == [("int", 24)]


def test_vectors_over_views_read_the_whole_source_before_storing():
    text = """\
.inout P i64[16]
.var M i64[4][4] @ P
PUTL P[1:5], M[0][0:4]
PUTL M[1:3][0:4], P[3:7]
ADD M[0:4][1], M[0:4][1], P[0:4:1]
SUB P[0:16:5], P[0:16:5], M[1][0:1]
END
"""
    how, *_ = alike(text, {"P": list(range(16))})
    assert how[0] == "ok"


def test_a_step_budget_stops_at_the_same_tuple_whatever_it_is():
    path = ROOT / "examples" / "asm" / "matrix-multiplication.incaa"
    tp = encode(assemble_text(path.read_text(encoding="utf-8"), str(path), {"R": 2, "C": 3}))
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 1)
    total = outcome(tp, inputs, 10_000, engine.run)[0][2]
    for budget in range(1, total + 2):
        want = outcome(tp, inputs, budget, engine.run)
        assert outcome(tp, inputs, budget, pyengine.run) == want
        assert outcome(tp, inputs, budget, llvm_run) == want
        with tier_steps(budget // 2):  # and moving to the llvm engine's second tier on the way
            assert outcome(tp, inputs, budget, llvm_run) == want


def test_an_endless_loop_stops_with_the_reference_s_message():
    how, pc, *_ = alike(".var i i64\nloop:\nADD i, i, 1\nJMP loop\nEND\n", max_steps=1_000_001)
    assert how == ("StepLimit", "the kernel did not finish within 1000001 steps", 2, "steps")
    assert pc == 2  # 500,001 ADDs and 500,000 JMPs fired


def test_running_off_the_end():
    how, pc, *_ = alike(".inout a i64\nADD a, a, 1\nBLEZ a, 1\n")
    assert how == ("RuntimeFault", "the PC reached 3, past the last instruction, without END", None,
                   "off-end") and pc == 3


def test_a_program_without_buffers():
    how, pc, *_ = alike("JMP 3\nJMP 1\nJMP 2\nEND\n", max_steps=1000)
    assert how[0] == "StepLimit" and pc == 3
    assert alike("JMP 2\nEND\n")[0] == ("ok", (0, 1, 0), 1)


def _hand_built(tp: TupleProgram, k: int, **changes) -> TupleProgram:
    """``tp`` with tuple k's fields replaced (what the loader would refuse)."""
    tuples = list(tp.tuples)
    old = tuples[k - 1]
    tuples[k - 1] = Tuple(changes.get("k", old.k), old.op, changes.get("trigger", old.trigger),
                          changes.get("entry", old.entry), old.loc)
    return TupleProgram(tp.buffers, tuple(tuples), tp.source)


def test_a_gap_in_the_thresholds_is_nothing_armed():
    tp = encode(assemble_text(".inout a i64\nADD a, a, 1\nADD a, a, 2\nEND\n"))
    t3 = tp.tuples[2]
    gap = _hand_built(tp, 3, trigger=Trigger(t3.trigger.counter, 4, None, None))
    want = outcome(gap, {"a": [1]}, 100, engine.run)
    assert want[0] == ("RuntimeFault", "nothing is armed on PC == 3", None, "off-end")
    assert outcome(gap, {"a": [1]}, 100, pyengine.run) == want
    assert outcome(gap, {"a": [1]}, 100, llvmengine.run) == want


def test_a_program_it_cannot_translate_runs_on_the_reference():
    tp = encode(assemble_text(".input A i64[4]\n.output s i64\nADD s, s, A[2]\nEND\n"))
    t1 = tp.tuples[0]  # A without an index: the address generator reads its first element
    odd = _hand_built(tp, 1, trigger=Trigger(t1.trigger.counter, 1, 1, Ref("A")))
    prof = load_profile("scratchpad")
    for name, run in (("python", pyengine.run), ("llvm", llvmengine.run)):
        r = execute(odd, prof, {"A": [5, 6, 7, 8]}, engine=name)
        assert r.engine == "reference" and r.outputs == {"s": 5}
        assert outcome(odd, {"A": [5, 6, 7, 8]}, 100, run) == outcome(
            odd, {"A": [5, 6, 7, 8]}, 100, engine.run)


# ---- selection ----------------------------------------------------------------------------------

def test_execute_names_its_engine_and_refuses_an_unknown_one():
    tp = encode(assemble_text(".output s i64\nADD s, s, 2\nEND\n"))
    prof = load_profile("scratchpad")
    assert [execute(tp, prof, engine=e).engine for e in ENGINES] == ["reference", *ENGINES[1:]]
    assert execute(tp, prof, trace=io.StringIO(), engine="python").engine == "reference"
    with pytest.raises(ValueError, match="unknown engine 'fast'"):
        execute(tp, prof, engine="fast")


def _inca(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_inca_run_echoes_the_engine():
    path = str(ROOT / "examples" / "asm" / "dot-product.incaa")
    assert cli.build_parser()._subparsers._group_actions[0].choices["run"]._option_string_actions[
        "--engine"].choices == ENGINES
    code, out, _ = _inca("run", path, "--seed", "1", "--engine", "python")
    assert code == 0 and out.splitlines()[-1].endswith("M tuples/s (python engine)")
    docs = [json.loads(_inca("run", path, "--seed", "1", "--json", "--engine", e)[1]) for e in ENGINES]
    assert [d.pop("engine") for d in docs] == ["reference+python", *ENGINES[1:]]  # 8,196 steps
    for d in docs:
        del d["wall_s"], d["tuples_per_s"]
    assert all(d == docs[0] for d in docs)
    code, out, _ = _inca("run", path, "-D", "N=2", "--seed", "1", "--trace", "--engine", "python")
    assert code == 0 and out.splitlines()[-1].endswith("(reference engine)")  # traces need it


def test_inca_run_stops_at_max_steps_alike():
    path = str(ROOT / "examples" / "asm" / "dot-product.incaa")
    runs = [_inca("run", path, "--max-steps", "777", "--engine", e) for e in ENGINES]
    assert all(r == runs[0] for r in runs) and runs[0][0] == 4 and "within 777 steps" in runs[0][2]


# ---- the blocks ---------------------------------------------------------------------------------

def test_the_blocks_headers_and_reserves_of_matrix_multiplication():
    path = ROOT / "examples" / "asm" / "matrix-multiplication.incaa"
    tp = encode(assemble_text(path.read_text(encoding="utf-8"), str(path)))
    nic = NIC(load_profile("scratchpad"))
    pc, _ = install(tp, nic)
    cfg = analyse(arm(nic, pc), 1)
    assert [b.pcs for b in cfg.blocks.values()] == [
        (1,), (2, 3, 4), (5,), (6, 7, 8), (9,), (10, 11, 12), (13, 14, 15, 16, 17), (18, 19),
        (20, 21), ()]
    assert cfg.headers == {1, 2, 6, 10}
    assert cfg.reserve == {1: 1, 2: 4, 6: 5, 10: 8}  # 10-12 then 13-17 before 10 again


@settings(max_examples=100, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_blocks_cover_the_reachable_tuples_once_and_every_cycle_meets_a_header(case):
    tp, _, _ = case
    nic = NIC(load_profile("scratchpad"))
    pc, _ = install(tp, nic)
    armed = arm(nic, pc)
    cfg = analyse(armed, 1)
    pcs = [p for b in cfg.blocks.values() for p in b.pcs]
    assert len(pcs) == len(set(pcs))
    # without the edges into headers the block graph is acyclic: a topological order exists
    edges = {b: [s for s in _next(cfg.blocks[b]) if s not in cfg.headers] for b in cfg.blocks}
    indegree = {b: 0 for b in cfg.blocks}
    for ss in edges.values():
        for s in ss:
            indegree[s] += 1
    ready = [b for b, n in indegree.items() if n == 0]
    seen = 0
    while ready:
        b = ready.pop()
        seen += 1
        for s in edges[b]:
            indegree[s] -= 1
            if indegree[s] == 0:
                ready.append(s)
    assert seen == len(cfg.blocks)


def _next(block) -> tuple[int, ...]:
    from inca.interpreter.blocks import block_successors

    return block_successors(block)
