"""INCA-Q programs run on the NIC model against the same computation written in Python.

Each case is an INCA-Q program, its inputs and its expected outputs, computed by the Python beside
it (never by the compiler); the cases are in incaq_cases_control.py, incaq_cases_arithmetic.py,
incaq_cases_functions.py and incaq_cases_flow.py. Every case runs under the scratchpad and base
profiles, with and without --clobber (which must never change an output), twice (counts must be deterministic).
A few more cases go through ``inca run`` to use --input, --seed, -D, --payload and -I.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from inca.compiler.frontend import Options, load_program, load_tuples
from inca.compiler.printer import print_program
from inca.interpreter import cli
from inca.interpreter.inputs import seeded_values
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from incaq_cases_arithmetic import CASES as ARITHMETIC
from incaq_cases_control import CASES as CONTROL
from incaq_cases_flow import CASES as FLOW
from incaq_cases_functions import CASES as FUNCTIONS, PARAMS, param_values
from incaq_cases_benchmarks import CASES as BENCHMARKS
from incaq_programs_helpers import Case, cmod, merged

CASES = merged(CONTROL, ARITHMETIC, FUNCTIONS, FLOW, BENCHMARKS)


# ---- running ------------------------------------------------------------------------------------------

def write(tmp_path: Path, c: Case) -> tuple[Path, Path]:
    mods = tmp_path / "mods"
    mods.mkdir()
    for name, text in c.modules.items():
        (mods / f"{name}.incaq").write_text(text, encoding="utf-8")
    src = tmp_path / "k.incaq"
    src.write_text(c.text, encoding="utf-8")
    return src, mods


def test_there_are_enough_programs():
    assert len(CASES) >= 30


@pytest.mark.parametrize("name", CASES)
def test_program(name, tmp_path):
    c = CASES[name]()
    src, mods = write(tmp_path, c)
    counts = {}
    for clobber in (False, True):
        opts = Options(c.defines, 0, (str(mods),), clobber)
        tp = load_tuples(str(src), opts)
        for profile in ("scratchpad", "base"):
            for _ in range(2):
                r = execute(tp, load_profile(profile), {k: list(v) for k, v in c.inputs.items()})
                assert r.outputs == c.expected, (clobber, profile)
                counts.setdefault((clobber, profile), set()).add(r.instructions)
        assert print_program(load_program(str(src), opts)) == print_program(load_program(str(src), opts))
    assert all(len(v) == 1 for v in counts.values()), counts
    assert counts[(True, "scratchpad")] <= counts[(False, "scratchpad")]


# ---- through inca run ---------------------------------------------------------------------------------

def inca_run(capsys, *argv) -> dict:
    code = cli.main(["run", *map(str, argv), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_payload_option_and_define(tmp_path, capsys):
    src = tmp_path / "p.incaq"
    src.write_text(PARAMS, encoding="utf-8")
    assert inca_run(capsys, src)["outputs"] == param_values(128)
    assert inca_run(capsys, src, "--payload", 2048)["outputs"] == param_values(2048)
    assert inca_run(capsys, src, "-D", "PAYLOAD=512")["outputs"] == param_values(512)
    assert inca_run(capsys, src, "-D", "LIM=7")["outputs"]["lim"] == 7


def test_inputs_on_the_command_line(tmp_path, capsys):
    c = CASES["c_division_of_negatives"]()
    src, _ = write(tmp_path, c)
    values = ",".join(map(str, c.inputs["P"]))
    doc = inca_run(capsys, src, "--input", f"P={values}")
    assert doc["outputs"] == c.expected


def test_seeded_inputs(tmp_path, capsys):
    src = tmp_path / "s.incaq"
    src.write_text("input A: f64[16]\ninput V: i64[16]\noutput s: f64\noutput m: i64\n"
                   "for i in 0 .. 16 do {\n    s = s + A[i] * V[i]\n    m = max(m, V[i] % 7)\n}\n",
                   encoding="utf-8")
    tp = load_tuples(str(src))
    decls = {b.name: b for b in tp.buffers}
    a, v = seeded_values(decls["A"], 3), seeded_values(decls["V"], 3)
    s, m = 0.0, 0
    for x, y in zip(a, v):
        s, m = s + x * y, max(m, cmod(y, 7))
    doc = inca_run(capsys, src, "--seed", 3)
    assert doc["outputs"] == {"s": s, "m": m}
    again = inca_run(capsys, src, "--seed", 3)
    assert (again["outputs"], again["instructions"]) == (doc["outputs"], doc["instructions"])


def test_modules_from_include_folders(tmp_path, capsys):
    c = CASES["modules_with_use"]()
    src, mods = write(tmp_path, c)
    inputs = [f"{k}={','.join(map(str, v))}" for k, v in c.inputs.items()]
    doc = inca_run(capsys, src, "-I", mods, "--input", inputs[0], "--input", inputs[1])
    assert doc["outputs"] == c.expected
    code = cli.main(["run", str(src)])
    assert code == 1 and "module 'vec' not found" in capsys.readouterr().err
