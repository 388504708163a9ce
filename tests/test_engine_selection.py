"""``--engine auto`` (interpreter/selection.py): the reference first, then the python engine,
then the llvm engine.

The handovers must be invisible: for random tuple programs and every pair of handover points,
what the run leaves (fire counts, steps, fault, counters, storage) is the reference's own; a
short run never leaves the reference, a long one is handed over, and a longer one again.
"""
from __future__ import annotations

import importlib
import os
import sys
from functools import partial
from unittest import mock
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from engine_fuzz import PROFILE, _bits, outcome, programs
from inca.compiler.assembler import assemble_text
from inca.compiler.printer import print_program
from inca.interpreter import engine, llvmcapi, selection
from inca.interpreter.inputs import gather_inputs
from inca.interpreter.engine import RuntimeFault
from inca.interpreter.loader import execute, install
from inca.interpreter.profiles import load_profile
from inca.interpreter.stepper import Stepper
from inca.lang.tuples import encode

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = int(os.environ.get("INCA_ENGINE_FUZZ_EXAMPLES", "300")) // 2


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), st.integers(0, 300))
def test_a_handover_at_any_step_leaves_what_the_reference_leaves(case, first):
    tp, inputs, budget = case
    note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}\nfirst {first}")
    want = outcome(tp, inputs, budget, engine.run)
    assert outcome(tp, inputs, budget, partial(selection.run, first=first)) == want


@settings(max_examples=max(1, EXAMPLES // 4), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), st.integers(0, 100), st.integers(0, 200))
def test_a_second_handover_to_llvm_at_any_step_leaves_what_the_reference_leaves(case, first, second):
    tp, inputs, budget = case
    note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}\n{first=} {second=}")
    want = outcome(tp, inputs, budget, engine.run)
    assert outcome(tp, inputs, budget, partial(selection.run, first=first, second=second)) == want


def _matmul(rows: int, cols: int):
    path = ROOT / "examples" / "asm" / "matrix-multiplication.incaa"
    tp = encode(assemble_text(path.read_text(encoding="utf-8"), str(path), {"R": rows, "C": cols}))
    return tp, gather_inputs({b.name: b for b in tp.buffers}, [], 1)


def test_every_handover_point_of_a_kernel_and_every_step_budget():
    tp, inputs = _matmul(2, 3)
    total = outcome(tp, inputs, 10_000, engine.run)[0][2]
    for first in range(0, total + 2, 7):
        for budget in (first - 1, first, first + 1, total - 1, total, 10_000):
            if budget > 0:
                run = partial(selection.run, first=first)
                assert outcome(tp, inputs, budget, run) == outcome(tp, inputs, budget, engine.run)
        for second in (0, 9):  # and on to the llvm engine a few steps later
            for budget in (first + second, total):
                if budget > 0:
                    run = partial(selection.run, first=first, second=second)
                    assert outcome(tp, inputs, budget, run) == outcome(tp, inputs, budget, engine.run)


@pytest.fixture
def nothing_compiled(tmp_path, monkeypatch):
    """No machine code compiled yet: an empty object cache, and none in this process."""
    from collections import OrderedDict

    from inca.interpreter import llvmengine, objcache

    monkeypatch.setenv(objcache.VARIABLE, str(tmp_path / "objects"))
    monkeypatch.setattr(llvmengine, "_cache", OrderedDict())
    return llvmengine


def test_a_short_run_stays_on_the_reference_and_a_long_one_is_handed_over(nothing_compiled):
    prof = load_profile("scratchpad")
    small, small_inputs = _matmul(2, 3)
    r = execute(small, prof, small_inputs)  # auto is the default
    assert r.engine == "reference"
    big, big_inputs = _matmul(24, 24)  # 24 x 24 x 24 multiply-adds: far past the budget
    r = execute(big, prof, big_inputs)
    assert r.engine == "reference+python" and r.instructions > selection.budget(len(big.tuples))
    want = execute(big, prof, big_inputs, engine="reference")
    assert (r.outputs, r.by_class, r.time_ns) == (want.outputs, want.by_class, want.time_ns)


def test_a_run_longer_than_llvm_s_cost_goes_on_in_the_llvm_engine(monkeypatch, nothing_compiled):
    pytest.importorskip("llvmlite")
    monkeypatch.setattr(selection, "LLVM_LOAD_STEPS", 0)
    monkeypatch.setattr(selection, "LLVM_LIBRARY_LOAD_STEPS", 0)
    monkeypatch.setattr(selection, "LLVM_MIN_STEPS", 20_000)
    monkeypatch.setattr(selection, "LLVM_STEPS_PER_TUPLE", 0)
    tp, inputs = _matmul(24, 24)
    prof = load_profile("scratchpad")
    translated = []
    with mock.patch.object(nothing_compiled, "translate", spy(nothing_compiled.translate, translated)):
        r = execute(tp, prof, inputs)
    assert r.engine == "reference+python+llvm"
    # translated once, to see whether its code was ready: the llvm engine takes that translation
    assert len(translated) == 1
    want = execute(tp, prof, inputs, engine="reference")
    assert (r.outputs, r.by_class, r.time_ns, r.instructions) == (want.outputs, want.by_class,
                                                                   want.time_ns, want.instructions)


def test_a_run_whose_machine_code_is_ready_goes_on_in_the_llvm_engine_at_once(nothing_compiled):
    """Compiled earlier in this process, or by an earlier process into the object cache: the
    llvm engine then starts without a compilation, sooner than the python engine would."""
    pytest.importorskip("llvmlite")
    from inca.interpreter import objcache

    llvmengine = nothing_compiled
    tp, inputs = _matmul(24, 24)
    prof = load_profile("scratchpad")
    want = execute(tp, prof, inputs, engine="reference")
    assert execute(tp, prof, inputs).engine == "reference+python"  # nothing compiled yet
    execute(tp, prof, inputs, engine="llvm")  # compiles (and stores) its code
    for where in ("this process", "the object cache"):
        if where == "the object cache":
            llvmengine._cache.clear()
        hits = objcache.stats["hits"]
        r = execute(tp, prof, inputs)
        assert r.engine == "reference+llvm", where
        assert objcache.stats["hits"] == hits + (where == "the object cache")
        assert (r.outputs, r.by_class, r.time_ns, r.instructions) == (
            want.outputs, want.by_class, want.time_ns, want.instructions)
    small, small_inputs = _matmul(2, 3)
    assert execute(small, prof, small_inputs).engine == "reference"  # a short run stays there


HEAVY = """.param N = {n}
.input A f64[N]
.input B f64[N]
.output C f64[N]
.output s f64
PUTL C[0:N], A[0:N]
MUL C[0:N], C[0:N], B[0:N]
ADD C[0:N], C[0:N], A[0:N]
PUTL i, 0
PUTL r, i
LT r, r, 4
BLEZ r, 11
ADD s, s, C[i]
ADD i, i, 1
JMP 5
END
"""


def _heavy(n: int):
    tp = encode(assemble_text(HEAVY.format(n=n), "heavy.incaa"))
    return tp, gather_inputs({b.name: b for b in tp.buffers}, [], 1)


def test_the_entry_work_counts_elements_up_to_the_first_branch():
    tp, _ = _heavy(1000)
    nic = engine.NIC(PROFILE)
    pc, _ = install(tp, nic, None)
    nic.ct_set(pc, 1)
    armed = engine.arm(nic, pc)
    assert selection.entry_work(armed, 1, 100, 10**9) == 3 * 1000 + 3  # BLEZ ends it
    assert selection.entry_work(armed, 1, 2, 10**9) == 2000  # the step budget left
    assert selection.entry_work(armed, 1, 100, 1500) == 2000  # counted until enough
    assert selection.entry_work(armed, 8, 100, 10**9) == 5  # from a PC, through the JMP
    assert selection.entry_work(armed, 11, 100, 10**9) == 0  # END


def test_a_run_whose_first_block_outweighs_a_budget_skips_the_engines_before(nothing_compiled):
    # three ops over N elements before the run first branches: past the reference's budget the
    # python engine takes it from the start, past llvm's too the llvm engine
    prof = load_profile("base")
    size = len(_heavy(1)[0].tuples) + 2  # the armed PC values (1 to END, and one past)
    first, second = selection.budget(size), selection.llvm_budget(size)
    cases = [((first - 3) // 3 - 1, "reference"), ((first - 3) // 3 + 1, "python")]
    if second is not None:
        cases.append(((second - 3) // 3 + 1, "llvm"))
    for n, name in cases:
        tp, inputs = _heavy(n)
        prepared, marks, translated = [], [], []
        with mock.patch.object(selection, "prepare", spy(selection.prepare, prepared)), \
                mock.patch("inca.interpreter.objcache.mark", spy(lambda f: None, marks)), \
                mock.patch.object(nothing_compiled, "translate",
                                  spy(nothing_compiled.translate, translated)):
            r = execute(tp, prof, inputs)
        assert r.engine == name, n
        # the reference's fetches and applies are made only for a run that fires there; the
        # python engine's run is translated for llvm once, to see whether its code is ready; a
        # run given to the llvm engine at once is translated once too (not also for that look)
        # and leaves no mark (it never looks for one)
        assert (len(prepared), len(marks)) == ((1, 0) if name == "reference" else (0, 0)), n
        assert len(translated) == (name != "reference"), n
        want = execute(tp, prof, inputs, engine="reference")
        assert (r.outputs, r.by_class, r.time_ns, r.instructions) == (
            want.outputs, want.by_class, want.time_ns, want.instructions)


def spy(f, calls: list):
    """``f``, noting each call's arguments in ``calls``."""
    def called(*args, **kwargs):
        calls.append(args)
        return f(*args, **kwargs)
    return called


def test_without_llvmlite_a_long_run_stays_on_the_python_engine(monkeypatch):
    monkeypatch.delitem(sys.modules, "llvmlite.binding", raising=False)
    monkeypatch.setattr(llvmcapi, "_state", {})
    monkeypatch.setattr(selection, "find_spec", lambda name: None)
    assert selection.llvm_budget(10) is None


@pytest.mark.parametrize("direct", [True, False])
def test_llvm_s_budget_leaves_out_loading_it_once_it_is_loaded(monkeypatch, direct):
    # loading llvmlite's library alone (llvmcapi knows this release) costs less than its binding
    monkeypatch.setattr(selection, "find_spec", lambda name: object())
    monkeypatch.delitem(sys.modules, "llvmlite.binding", raising=False)
    monkeypatch.setattr(llvmcapi, "_state", {})
    monkeypatch.setattr(llvmcapi, "known", lambda: direct)
    cold = selection.llvm_budget(10)
    if direct:
        monkeypatch.setitem(llvmcapi._state, "lib", object())
    else:
        monkeypatch.setitem(sys.modules, "llvmlite.binding", object())
    assert cold - selection.llvm_budget(10) == (selection.LLVM_LIBRARY_LOAD_STEPS if direct
                                                else selection.LLVM_LOAD_STEPS)


def test_the_budget_grows_with_the_program():
    assert selection.budget(1) >= selection.MIN_STEPS
    assert selection.budget(2_000) - selection.budget(1_000) == 1_000 * selection.STEPS_PER_TUPLE


def test_the_budget_counts_loading_the_python_engine_until_it_is_loaded(monkeypatch):
    importlib.import_module("inca.interpreter.pygen")
    loaded = selection.budget(10)
    monkeypatch.delitem(sys.modules, "inca.interpreter.pygen")
    assert selection.budget(10) - loaded == selection.PY_LOAD_STEPS


@settings(max_examples=max(1, EXAMPLES // 2), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), st.integers(0, 40), st.integers(0, 60), st.sampled_from((None, 0, 5)))
def test_a_run_the_stepper_began_goes_on_as_the_reference_would(case, stepped, first, second):
    """The REPL's ``:step N`` then ``:continue``: the stepper fires the first tuples, auto the
    rest (its handovers ``first`` and ``second`` steps later), the steps before counting
    against the limit."""
    tp, inputs, budget = case
    note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}\n{stepped=} {first=} {second=}")
    want = outcome(tp, inputs, budget, engine.run)
    st_ = Stepper(tp, PROFILE, {k: list(v) for k, v in inputs.items()}, budget)
    with mock.patch.object(selection, "budget", lambda size: first), \
            mock.patch.object(selection, "llvm_budget", lambda size: second):
        try:
            if stepped:
                st_.advance(stepped)
            st_.advance(None)
            ex = st_.execution()
            how: tuple = ("ok", tuple(ex.fires), ex.steps)
        except RuntimeFault as f:
            how = (type(f).__name__, f.message, f.k, f.kind)
    storage = {n: [_bits(v) for v in b.data] for n, b in st_.nic.buffers.items()}
    assert (how, st_.counter.value, st_.done.value, storage) == want


@settings(max_examples=max(1, EXAMPLES // 2), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(programs(), st.integers(0, 12), st.integers(0, 30))
def test_auto_s_own_rule_with_an_object_cache_leaves_what_the_reference_leaves(
        nothing_compiled, case, first, second):
    """auto's own handovers (``first`` and ``second`` steps for its budgets), an object cache to
    look in: the translation made to look for ready code serves the llvm engine later in the run,
    and a program met again (by an earlier example) finds its code or its mark."""
    pytest.importorskip("llvmlite")
    tp, inputs, budget = case
    note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}\n{first=} {second=}")
    with mock.patch.object(selection, "budget", lambda size: first), \
            mock.patch.object(selection, "llvm_budget", lambda size: second), \
            mock.patch.object(selection, "MARK_MIN_STEPS", first // 2), \
            mock.patch.object(selection, "MARK_STEPS_PER_TUPLE", 0):
        got = outcome(tp, inputs, budget, selection.run)
    assert got == outcome(tp, inputs, budget, engine.run)


def _marks(objcache) -> list[Path]:
    return sorted(Path(os.environ[objcache.VARIABLE]).glob("*.run"))


def test_a_program_that_went_on_to_llvm_is_handed_over_early_when_run_again(monkeypatch,
                                                                             nothing_compiled):
    """auto's mark in the object cache: the next run of the program asks for the llvm engine's
    code once it has shown it loops, not after the reference's budget."""
    pytest.importorskip("llvmlite")
    from inca.interpreter import objcache

    tp, inputs = _matmul(24, 24)
    prof = load_profile("scratchpad")
    want = execute(tp, prof, inputs, engine="reference")
    execute(tp, prof, inputs, engine="llvm")  # compiles (and stores) its code
    assert _marks(objcache) == []  # only auto's own handovers leave marks
    assert execute(tp, prof, inputs).engine == "reference+llvm"  # at the budget
    assert len(_marks(objcache)) == 1
    # a budget past the whole run would keep it on the reference; the mark hands it over early
    monkeypatch.setattr(selection, "budget", lambda size: 10 * want.instructions)
    r = execute(tp, prof, inputs)
    assert r.engine == "reference+llvm"
    assert (r.outputs, r.by_class, r.time_ns, r.instructions) == (
        want.outputs, want.by_class, want.time_ns, want.instructions)
    for mark in _marks(objcache):
        mark.unlink()
    assert execute(tp, prof, inputs).engine == "reference"


def test_a_mark_whose_code_is_gone_leaves_the_run_as_it_was(nothing_compiled):
    pytest.importorskip("llvmlite")
    from inca.interpreter import objcache

    llvmengine = nothing_compiled
    tp, inputs = _matmul(24, 24)
    prof = load_profile("scratchpad")
    want = execute(tp, prof, inputs, engine="reference")
    execute(tp, prof, inputs, engine="llvm")
    execute(tp, prof, inputs)  # leaves the mark
    llvmengine._cache.clear()
    for obj in Path(os.environ[objcache.VARIABLE]).glob("*.o"):
        obj.unlink()
    r = execute(tp, prof, inputs)
    assert r.engine == "reference+python" and len(_marks(objcache)) == 1
    assert (r.outputs, r.by_class, r.time_ns, r.instructions) == (
        want.outputs, want.by_class, want.time_ns, want.instructions)


def test_a_short_run_does_not_look_for_a_mark(monkeypatch, nothing_compiled):
    def looked(*args):
        raise AssertionError("a run that ends within the look point looked for a mark")

    monkeypatch.setattr(selection, "_marked", looked)
    tp, inputs = _matmul(2, 3)
    assert execute(tp, load_profile("scratchpad"), inputs).engine == "reference"


def test_marks_with_the_cache_off_and_in_a_folder_it_cannot_write(monkeypatch, tmp_path):
    pytest.importorskip("llvmlite")
    from inca.interpreter import objcache

    monkeypatch.setenv(objcache.VARIABLE, "off")
    objcache.mark("0" * 64)
    assert not objcache.marked("0" * 64)
    monkeypatch.setenv(objcache.VARIABLE, str(tmp_path))
    if objcache.enabled():
        objcache.mark("0" * 64)
        assert objcache.marked("0" * 64) and (tmp_path / f"{'0' * 64}.run").exists()
        assert not objcache.marked("1" * 64)

        def read_only(path, *args, **kwargs):
            raise PermissionError(path)

        monkeypatch.setattr(objcache.os, "utime", read_only)  # a mark it cannot touch still counts
        assert objcache.marked("0" * 64) and not objcache.marked("1" * 64)


def _fingerprint(tp, inputs) -> str:
    from inca.interpreter.loader import install
    from inca.interpreter.nic import NIC

    nic = NIC(load_profile("scratchpad"))
    pc, _ = install(tp, nic, inputs)
    return selection.fingerprint(nic, pc)


def test_the_fingerprint_is_the_program_and_its_buffers_not_the_values_or_the_file():
    tp, inputs = _matmul(4, 4)
    path = ROOT / "examples" / "asm" / "matrix-multiplication.incaa"
    text = "\n\n" + path.read_text(encoding="utf-8")  # other lines, another file
    elsewhere = encode(assemble_text(text, "/elsewhere/m.incaa", {"R": 4, "C": 4}))
    other_values = {name: [v + 1 for v in values] for name, values in inputs.items()}
    mine = _fingerprint(tp, inputs)
    assert mine == _fingerprint(elsewhere, inputs) == _fingerprint(tp, other_values)
    assert mine != _fingerprint(*_matmul(4, 5))
    dot = ROOT / "examples" / "asm" / "dot-product.incaa"
    other = encode(assemble_text(dot.read_text(encoding="utf-8"), str(dot)))
    assert mine != _fingerprint(other, gather_inputs(
        {b.name: b for b in other.buffers}, [], 1))


@settings(max_examples=max(1, EXAMPLES // 3), deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs(), st.integers(0, 12), st.integers(1, 40), st.booleans())
def test_a_handover_at_the_look_point_leaves_what_the_reference_leaves(case, look, after, ready):
    """A mark found at any step (``look``), its code there (the llvm engine goes on from the next
    header) or gone (the run goes on to the budget, ``after`` steps later, and the python
    engine)."""
    pytest.importorskip("llvmlite")
    tp, inputs, budget = case
    note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}\n{look=} {after=}")
    assert _after_a_mark(tp, inputs, budget, look, look + after, ready) == outcome(
        tp, inputs, budget, engine.run)


@pytest.mark.parametrize("ready", [False, True])
def test_a_mark_at_every_step_of_a_kernel(ready, nothing_compiled):
    """Its code there or gone; finding the header after the look may pass the budget (the run
    then goes on from there)."""
    if ready:
        pytest.importorskip("llvmlite")
    tp, inputs = _matmul(3, 3)
    want = outcome(tp, inputs, 10_000, engine.run)
    total = want[0][2]
    for look in range(0, total + 2, 3):
        for after in (1, 2, 5, 40):
            got = _after_a_mark(tp, inputs, 10_000, look, look + after, ready)
            assert got == want, (look, after)


def _after_a_mark(tp, inputs, budget: int, look: int, first: int, ready: bool):
    """What a run leaves when auto finds a mark after ``look`` steps, the llvm engine's code there
    (``ready``) or not, the python engine's budget ``first``, and no pause for the llvm engine."""
    rest = (lambda *args: (selection._llvm(*args), None)) if ready else (lambda *args: (None, None))
    with mock.patch.object(selection, "MARK_MIN_STEPS", look), \
            mock.patch.object(selection, "MARK_STEPS_PER_TUPLE", 0), \
            mock.patch.object(selection, "_marked", lambda nic, counter: True), \
            mock.patch.object(selection, "_ready_llvm", rest), \
            mock.patch.object(selection, "llvm_budget", lambda size: None):
        return outcome(tp, inputs, budget, partial(selection.run, first=first))
