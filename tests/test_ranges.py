"""The value ranges the python engine relies on to leave out checks (``interpreter/ranges.py``)
hold on every run: random programs (``engine_fuzz.py``) and the paper's kernels are fired tuple
by tuple by the reference, and before every tuple each tracked scalar must lie in its interval
and satisfy its facts as the analysis states them there."""
from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings

from engine_fuzz import programs
from inca.compiler.frontend import Options, load_tuples
from inca.compiler.printer import print_program
from inca.interpreter.blocks import analyse
from inca.interpreter.engine import BoundsFault, arm, prepare
from inca.interpreter.inputs import gather_inputs
from inca.interpreter.loader import install
from inca.interpreter.nic import NIC
from inca.interpreter.profiles import load_profile
from inca.interpreter.pygen import storage
from inca.interpreter.ranges import FULL, Fact, Ranges, State, refine, result_range
from inca.lang.isa import I64_MAX, I64_MIN, OPCODES, ArithmeticFault
from inca.lang.tuples import TupleProgram

KERNELS = sorted((Path(__file__).resolve().parents[1] / "examples" / "kernels").glob("*.incaq"))
HOLDS = {"LT": lambda a, b: a < b, "LE": lambda a, b: a <= b, "GT": lambda a, b: a > b,
         "GE": lambda a, b: a >= b, "EQ": lambda a, b: a == b, "NE": lambda a, b: a != b}


def assert_state_holds(st: State, value, where: str) -> None:
    """Each tracked scalar in its interval; each fact true for the values now (a comparison's
    for some value of its source within the fact's bound)."""
    for name, (lo, hi) in st.ranges.items():
        assert lo <= value(name) <= hi, f"{where}: {name} = {value(name)} outside [{lo}, {hi}]"
    for name, f in st.facts.items():
        v, k = value(name), value(f.k) + f.off
        if f.op is None:
            assert v == k, f"{where}: {name} = {v}, not {f.k} + {f.off}"
            continue
        c, d = f.bound  # the relation holds (or fails) for some source value in [c, d]
        ends = [s for s in (c, d, k - 1, k, k + 1) if c <= s <= d]
        assert v in (0, 1) and any(HOLDS[f.op](k, s) == bool(v) for s in ends), \
            f"{where}: {name} = {v} against {f}"


def check_ranges(tp: TupleProgram, inputs: dict, max_steps: int) -> None:
    nic = NIC(load_profile("scratchpad"))
    counter, _ = install(tp, nic, {k: list(v) for k, v in inputs.items()})
    nic.ct_set(counter, 1)
    armed = arm(nic, counter)
    cfg = analyse(armed, 1)
    _, _, cached = storage(nic)
    ranges = Ranges(armed, cfg, {n for n in cached if nic.buffers[n].dtype == "i64"})
    prep = prepare(nic, counter)
    pc, st = 1, None
    for step in range(max_steps):
        slot = armed.slots[pc]
        if pc in cfg.blocks:
            st = ranges.entry[pc]
            assert st is not None, f"the analysis says no run reaches PC {pc}; step {step} does"
        assert_state_holds(st, lambda n: nic.buffers[n].data[0], f"step {step}, PC {pc}")
        if slot is None or slot.entry is None:
            return
        try:
            nxt = prep.apply[prep.bits[pc]](prep.fetch[pc]())
        except (BoundsFault, ArithmeticFault):
            return
        st, pc = ranges.step(st, slot), nxt


@settings(max_examples=500, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_ranges_hold_on_random_programs(case):
    tp, inputs, budget = case
    note(print_program(tp.program()) + f"\ninputs {inputs}")
    check_ranges(tp, inputs, 300)


@pytest.mark.parametrize("path", KERNELS, ids=[k.stem for k in KERNELS])
@pytest.mark.parametrize("opt", [0, 1])
def test_ranges_hold_on_the_paper_kernels(path, opt):
    tp = load_tuples(str(path), Options({"PAYLOAD": 256}, opt, (), False))
    check_ranges(tp, gather_inputs({b.name: b for b in tp.buffers}, [], 1), 100_000)


INTERVALS = [(-3, -1), (-2, 2), (0, 0), (0, 5), (1, 4), (3, 3), (-5, 0), (I64_MAX - 2, I64_MAX),
             (I64_MIN, I64_MIN + 2), FULL]


def _samples(r):
    lo, hi = r
    return sorted({lo, hi, min(max(0, lo), hi), min(max(-1, lo), hi), min(max(1, lo), hi),
                   (lo + hi) // 2} | set(range(lo, min(hi, lo + 6) + 1)))


@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL", "MIN", "MAX", "AND", "OR", "XOR", "LT", "LE",
                                "GT", "GE", "EQ", "NE", "DIV", "MOD", "SHL", "SHR"])
def test_each_operation_s_range_holds_its_results(op):
    fn = OPCODES[op].i64
    for a in INTERVALS:
        for b in INTERVALS:
            lo, hi = result_range(op, a, b)
            for x in _samples(a):
                for y in _samples(b):
                    try:
                        v = fn(x, y)
                    except ArithmeticFault:
                        continue
                    assert lo <= v <= hi, (op, a, b, x, y, v)


@pytest.mark.parametrize("op", list(HOLDS))
def test_a_comparison_bounds_its_operand_on_each_edge(op):
    for off in (-2, 0, 3):
        for bound in ((0, 0), (2, 5), (-3, -1)):
            fact = Fact("k", off, op, bound)
            for holds in (True, False):
                lo, hi = refine(fact, (-10, 10), holds)
                for k in range(-10, 11):
                    if any(HOLDS[op](k + off, s) == holds for s in range(bound[0], bound[1] + 1)):
                        assert lo <= k <= hi, (op, off, bound, holds, k)
