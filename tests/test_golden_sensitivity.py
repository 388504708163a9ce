"""The golden suite notices deliberate changes to the cost model and to the -O0 lowering.

Each test produces golden texts with ``test_golden.produce`` (the function the golden test uses,
running the same in-process tools) after a deliberate change, and checks that goldens which pass
unchanged now differ. Both changes are made with ``monkeypatch``, so nothing leaks into other tests.
"""
from __future__ import annotations

import pytest

from inca.compiler.incaq import lower
from inca.interpreter import profiles
from test_golden import CASES, SUBPROCESS, produce

pytestmark = pytest.mark.skipif(SUBPROCESS, reason="a monkeypatch cannot reach a subprocess")


def _differing(ext: str, kinds: tuple[str, ...]) -> tuple[int, list[str]]:
    """(cases checked, names whose current text differs from the expected file)."""
    checked, differ = 0, []
    for src, e in CASES:
        if e != ext or src.kind not in kinds:
            continue
        checked += 1
        if produce(src, ext) != src.expected(ext).read_text(encoding="utf-8"):
            differ.append(f"{src.kind}/{src.name}")
    return checked, differ


def test_unchanged_model_matches_goldens():
    """The baseline: without a change, the goldens used below all match."""
    assert _differing("prof", ("kernels",)) == (8, [])
    assert _differing("incaa", ("kernels", "programs")) == (16, [])


def test_cost_parameter_change_is_caught(monkeypatch):
    """A scratchpad memory access of 2 ns instead of 1 changes every scratchpad time."""
    assert profiles.SCRATCHPAD_PARAMS["m"] == "1"
    monkeypatch.setitem(profiles.SCRATCHPAD_PARAMS, "m", "2")
    checked, differ = _differing("prof", ("kernels",))
    assert checked == 8 and len(differ) == checked, differ


def test_lowering_rule_change_is_caught(monkeypatch):
    """``x = x OP e`` evaluated through r1 (``PUTL r1, x; OP r1, r1, e; PUTL x, r1``) instead
    of in place changes the listing of every kernel that accumulates or counts."""
    original = lower.Lowerer.assign

    def through_r1(self, s):
        parts = lower._binary_parts(s.value)
        if parts is None or parts[1] != s.target:
            return original(self, s)
        target, value = self.hoist(s.target), self.hoist(s.value)
        self.loc, self.next = s.loc, 1
        dest = self.operand(target)
        t = self.new_temp(lower.type_of(value, self.syms))
        self.eval_into(value, t)
        self.emit("PUTL", dest, t)

    monkeypatch.setattr(lower.Lowerer, "assign", through_r1)
    checked, differ = _differing("incaa", ("kernels", "programs"))
    assert checked == 16
    assert "kernels/dot-product" in differ and "kernels/filter" in differ, differ
