"""The stepper (interpreter/stepper.py), which the REPL's :run, :step, :continue and :break drive:
stepped one tuple at a time, in chunks, or through to END on auto's engines, a run leaves what
the engine's own run leaves."""
from __future__ import annotations

from pathlib import Path

import pytest

from inca.compiler.assembler import assemble_text
from inca.compiler.frontend import Options, load_tuples
from inca.interpreter.engine import RuntimeFault, StepLimit
from inca.interpreter.inputs import gather_inputs
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.interpreter.stepper import Stepper, Where
from inca.lang.tuples import encode

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("path, defines", [
    ("examples/asm/dot-product-parallel.incaa", {"N": 64}),
    ("examples/asm/matrix-multiplication.incaa", {"R": 3, "C": 5}),
    ("examples/kernels/hadamard-product.incaq", {"PAYLOAD": 128}),
])
@pytest.mark.parametrize("profile", ["scratchpad", "base"])
def test_stepping_to_the_end_agrees_with_execute(path, defines, profile):
    tp = load_tuples(str(ROOT / path), Options(defines))
    prof = load_profile(profile)
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 7)
    r = execute(tp, prof, inputs)
    for chunk in (1, 13, None):
        st = Stepper(tp, prof, inputs)
        while st.advance(chunk) != "end":
            pass
        got = st.result()
        assert (got.outputs, got.instructions, got.by_class, got.messages, got.memory_accesses,
                got.time_ns) == (r.outputs, r.instructions, r.by_class, r.messages,
                                 r.memory_accesses, r.time_ns)
        assert st.time_ns == r.time_ns and st.steps == r.instructions
        assert st.done.value == 1 and st.advance(1) == "end"


@pytest.mark.parametrize("text, steps", [
    (".input A i64[2]\n.output y i64\nPUTL i, 2\nPUTL y, A[i]\nEND\n", 1000),  # out of bounds
    (".output y i64\nPUTL y, 3\nDIV y, y, 0\nEND\n", 1000),  # division by zero
    (".output y i64\nPUTL y, 3\n", 1000),  # off the end
    (".output y i64\nADD y, y, 1\nJMP 1\nEND\n", 9),  # the step limit
])
@pytest.mark.parametrize("chunk", (1, None))
def test_stepper_faults_like_the_engine(text, steps, chunk):
    tp = encode(assemble_text(text, "f.incaa"))
    prof = load_profile("scratchpad")
    with pytest.raises(RuntimeFault) as want:
        execute(tp, prof, {}, max_steps=steps)
    st = Stepper(tp, prof, {}, max_steps=steps)
    with pytest.raises(RuntimeFault) as got:
        while st.advance(chunk) != "end":
            pass
    assert (type(got.value), got.value.message, got.value.k, got.value.kind) == (
        type(want.value), want.value.message, want.value.k, want.value.kind)
    assert isinstance(got.value, StepLimit) == (steps == 9)


@pytest.mark.parametrize("first", (0, 1, 2, 7, 100, 4321, 20000))
def test_a_run_through_goes_on_in_a_translating_engine(first):
    """``:run`` and ``:continue`` with no breakpoint run as ``inca run`` does: a loaded program of
    17 million tuples took 7 s one tuple at a time, and now takes 0.1 s. From wherever the
    program was paused (``:step`` first), with the same result."""
    tp = load_tuples(str(ROOT / "examples/asm/matrix-multiplication.incaa"), Options({"R": 32, "C": 32}))
    prof = load_profile("scratchpad")
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 7)
    r = execute(tp, prof, inputs)
    st = Stepper(tp, prof, inputs)
    if first:
        assert st.advance(first) == "step"
    # (python, or llvm at once when this program's code is compiled already)
    assert st.advance(None) == "end" and st.execution().engine.split("+")[-1] in ("python", "llvm")
    got = st.result()
    assert (got.outputs, got.instructions, got.by_class, got.messages, got.memory_accesses,
            got.time_ns) == (r.outputs, r.instructions, r.by_class, r.messages,
                             r.memory_accesses, r.time_ns)
    assert st.steps == r.instructions and st.done.value == 1


@pytest.mark.parametrize("first", (1, 3, 1000, 5000))
def test_a_step_limit_after_steps_is_the_engines(first):
    """The steps taken one at a time count against the limit: the stop, its message and its tuple
    are the engine's own."""
    tp = load_tuples(str(ROOT / "examples/asm/matrix-multiplication.incaa"), Options({"R": 32, "C": 32}))
    prof = load_profile("scratchpad")
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 7)
    with pytest.raises(StepLimit) as want:
        execute(tp, prof, inputs, max_steps=200_000)
    st = Stepper(tp, prof, inputs, max_steps=200_000)
    st.advance(first)
    with pytest.raises(StepLimit) as got:
        st.advance(None)
    assert (got.value.message, got.value.k) == (want.value.message, want.value.k)
    one_by_one = Stepper(tp, prof, inputs, max_steps=200_000)  # (what the REPL reads back)
    with pytest.raises(StepLimit):
        one_by_one.advance(10**9)
    for b in tp.buffers:
        assert st.nic.read(b.name) == one_by_one.nic.read(b.name), b.name


def test_breaks_stop_where_execution_enters_a_line():
    tp = load_tuples(str(ROOT / "examples/asm/dot-product-slide23.incaa"), Options({}))
    while_line = next(t.loc.line for t in tp.tuples if t.op == "LT")
    st = Stepper(tp, load_profile("scratchpad"), {})
    stops = []
    while st.advance(None, frozenset({Where(tp.source, while_line)})) == "break":
        stops.append(st.pc)
    assert stops and set(stops) == {3} and len(stops) == 51  # once per test of the loop condition
