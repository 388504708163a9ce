"""The compact pass (-O2): a conditional append keeps its count in the program counter.

Exact against -O0 on every input (NaN, -0.0, infinities, every compare, both types, a count that
starts anywhere, stores that fault), no slower than -O0, and proven by ``--verify`` through the
skeleton check (skeleton.py), which the full question could not do within minutes.
``INCA_OPT_FUZZ_EXAMPLES=5000`` makes the random appends a long run, as for test_opt_fuzz.py."""
from __future__ import annotations

import math
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inca.compiler.incaq.pipeline import compile_source
from inca.compiler.opt.pipeline import Level, Trace
from inca.compiler.opt.verify import verify
from inca.compiler.printer import print_program
from inca.interpreter.engine import RuntimeFault
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import Source
from inca.lang.tuples import encode
from test_incaq_fuzz import same

O2 = Level(2)
PROFILE = load_profile("scratchpad")
OPS = ("<", "<=", ">", ">=", "==", "!=")


def append(t: str = "f64", op: str = ">", k: str = "0.5", size: int = 8, lo: int = 0,
           count: str = "output n: i64", flip: bool = False, value: str = "x",
           prefix: bool = False, cond: str | None = None) -> str:
    """The filter's loop; ``prefix`` adds a statement before the if whose last value is an
    output (so it stays, as a loop of its own); ``cond`` replaces its one compare."""
    if cond is None:
        cond = f"{k} {op} x" if flip else f"x {op} {k}"
    first = "    y = x + x\n" if prefix else ""
    return (f"input A: {t}[{size}]\n{count}\noutput B: {t}[{size}]\n"
            + (f"output y: {t}\n" if prefix else "")
            + f"for i in {lo} .. {size} do {{\n    x = A[i]\n{first}    if {cond} then {{\n"
            f"        B[n] = {value}\n        n = n + 1\n    }}\n}}\n")


def compiled(text: str, level: Level | None):
    trace = Trace(())
    return compile_source(Source("k.incaq", text), level=level, trace=trace), trace


def outcome(text: str, level: Level | None, inputs: dict):
    """(outputs, None) or (None, the fault's message), and the modeled time."""
    try:
        r = execute(encode(compiled(text, level)[0]), PROFILE,
                    {k: list(v) for k, v in inputs.items()})
    except RuntimeFault as e:
        return None, e.message, None
    return r.outputs, None, r.time_ns


def assert_exact(text: str, inputs: dict) -> None:
    out0, fault0, t0 = outcome(text, None, inputs)
    out2, fault2, t2 = outcome(text, O2, inputs)
    assert fault2 == fault0
    if fault0 is None:
        assert all(same(out0[k], out2[k]) for k in out0), (out0, out2)
        assert t2 <= t0


def test_the_filter_is_compacted_with_a_branch_per_element_and_no_count_per_element():
    prog, trace = compiled(append(), O2)
    listing = print_program(prog)
    assert "[compact] conditional append to B over i" in trace.remarks.text()
    assert listing.count("BLEZ") == 4 * 8  # one per element in each of the 4 offset chains
    # n moves by 4 when an offset wraps, and by the rest at each chain's exit: never per element
    assert listing.count("ADD n, n, 4") == 8 and listing.count("ADD n, n,") == 8 + 3


SPECIAL = [1.0, -1.0, math.nan, 0.5, -0.0, math.inf, -math.inf, 0.0, 2.0, 0.75]


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("flip", (False, True))
def test_every_compare_is_exact_on_special_values(op, flip):
    a = [SPECIAL[j % len(SPECIAL)] for j in range(8)]
    assert_exact(append(op=op, flip=flip), {"A": a})
    assert_exact(append(op=op, flip=flip), {"A": list(reversed(a))})


floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(SPECIAL)
ints = st.integers(-3, 3) | st.integers(-2**63, 2**63 - 1)


@settings(max_examples=int(os.environ.get("INCA_OPT_FUZZ_EXAMPLES", "60")), deadline=None)
@given(st.data(), st.sampled_from(("f64", "i64")), st.sampled_from(OPS), st.booleans(),
       st.integers(2, 13), st.integers(0, 2), st.integers(-2, 4))
def test_random_appends_are_exact(data, t, op, flip, size, lo, start):
    k = data.draw(st.sampled_from(("0", "2", "-1", "0.5", "-0.0")))
    a = data.draw(st.lists(floats if t == "f64" else ints, min_size=size, max_size=size))
    # n starts at `start`: below 0 or near the end the -O0 program's stores fault, and the
    # compacted program must fault at the same store with the same message
    count = f"var n: i64 = {start}\noutput m: i64" if start else "output n: i64"
    value = data.draw(st.sampled_from(("x", "x + x", "A[i] * A[0]", "x - i")))
    one = f"{k} {op} x" if flip else f"x {op} {k}"
    other = f"A[i] {data.draw(st.sampled_from(OPS))} {data.draw(st.sampled_from(('1', '-1')))}"
    cond = data.draw(st.sampled_from((one, f"{one} and {other}", f"{other} or {one}",
                                      f"not ({one})", f"not ({one} and {other})")))
    text = append(t, op, k, size, lo, count, value=value, prefix=data.draw(st.booleans()),
                  cond=cond)
    if start:
        text += "m = n\n"
    assert_exact(text, {"A": a})


def test_a_condition_that_reads_what_the_loop_writes_is_not_compacted_and_says_why():
    text = append().replace("if x > 0.5", "if x > n")
    _, trace = compiled(text, O2)
    assert "not compacted: its condition or stored value reads what the loop writes" \
        in trace.remarks.text()


AND = append("i64", cond="x > -50 and x < 50", size=16)


def test_a_condition_with_and_or_not_is_computed_as_one_vector_and_compacted():
    prog, trace = compiled(AND, O2)
    assert "[compact] conditional append to B over i" in trace.remarks.text()
    assert print_program(prog).count("BLEZ") == 4 * 16
    a = [(j * 37) % 201 - 100 for j in range(16)]
    assert_exact(AND, {"A": a})
    assert_exact(append(cond="not (x > 0.5 or x < -0.5)"), {"A": SPECIAL[:8]})


def test_a_condition_whose_and_guards_a_fault_is_not_compacted_and_says_why():
    # computing every condition first would read A[8] where `and` skipped it (x is -9 there)
    text = append("i64", cond="x > -5 and A[i + 1] > 0")
    _, trace = compiled(text, O2)
    assert "not compacted: its condition may skip, with and / or, what could fault" \
        in trace.remarks.text()
    assert_exact(text, {"A": [0, 5, 0, 50, 1, -3, 0, -9]})
    # a division by x that `x != 0` guards divides by x + (x == 0): compacted, exact
    text = append("i64", cond="x != 0 and 100 / x > 3")
    assert "[compact] conditional append" in compiled(text, O2)[1].remarks.text()
    assert_exact(text, {"A": [0, 5, 0, 50, 1, -3, 0, 2]})


def test_a_loop_without_an_append_gets_no_compact_remark():
    text = "input A: f64[8]\noutput B: f64[8]\nfor i in 0 .. 8 do {\n    B[i] = A[i] + 1.0\n}\n"
    assert "[compact]" not in compiled(text, O2)[1].remarks.text()


@pytest.mark.parametrize("text", (append(size=16), append("i64", "<=", "-1", 16, 3), AND))
def test_the_compaction_is_verified(text):
    source, optimised = compiled(text, None)[0], compiled(text, O2)[0]
    verdict = verify(source, optimised, timeout_s=60)
    assert verdict.status == "verified", verdict.detail
