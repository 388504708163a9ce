"""The command-line tools: golden diagnostics (tests/errors/) and end-to-end behaviour.

Golden cases: each ``tests/errors/NAME.incaa`` is run as a subprocess from inside tests/errors/ and
its stderr must equal ``NAME.err`` exactly. The command is ``incac NAME.incaa`` unless the file's
first line is ``; RUN: <command>``, where the command starts with ``incac`` or ``inca run`` and
``%s`` stands for the case file. A ``; EXIT: N`` comment line gives the expected exit code (default
1). ``pytest --update-goldens`` rewrites the .err files from the current output.
"""
from __future__ import annotations

import contextlib
import difflib
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from inca.compiler import driver
from inca.compiler.assembler import assemble_text
from inca.interpreter import cli

ROOT = Path(__file__).resolve().parents[1]
ERRORS = Path(__file__).resolve().parent / "errors"
CASES = sorted(ERRORS.glob("*.incaa"))
SLIDE23 = ROOT / "examples" / "asm" / "dot-product-slide23.incaa"
MODULES = {"incac": "inca.compiler.driver", "inca": "inca.interpreter.cli"}


def case_command(path: Path) -> tuple[list[str], int]:
    """The argv (after ``python -m``) and the expected exit code of a golden case."""
    lines = path.read_text(encoding="utf-8").splitlines()
    command, code = f"incac {path.name}", 1
    if lines and lines[0].startswith("; RUN:"):
        command = lines[0][len("; RUN:"):].strip().replace("%s", path.name)
    for line in lines:
        m = re.fullmatch(r";\s*EXIT:\s*(\d+)\s*", line)
        if m:
            code = int(m.group(1))
    tool, *args = shlex.split(command)
    assert tool in MODULES, f"{path.name}: RUN must start with incac or inca, not {tool!r}"
    return ["-m", MODULES[tool], *args], code


@pytest.mark.parametrize("case", CASES, ids=[c.stem for c in CASES])
def test_golden_diagnostics(case, update_goldens):
    argv, code = case_command(case)
    proc = subprocess.run([sys.executable, *argv], cwd=ERRORS, capture_output=True, text=True, timeout=120)
    golden = case.with_suffix(".err")
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == ""
    if update_goldens:
        golden.write_text(proc.stderr, encoding="utf-8")
    else:
        if not golden.exists():
            pytest.fail(f"{golden.name} is missing; create it with: "
                        "pytest tests/test_cli.py --update-goldens")
        want = golden.read_text(encoding="utf-8")
        if proc.stderr != want:
            diff = "".join(difflib.unified_diff(want.splitlines(True), proc.stderr.splitlines(True),
                                                f"{golden.name} (expected)", f"{golden.name} (actual)"))
            tool = next(t for t, m in MODULES.items() if m == argv[1])
            pytest.fail(f"stderr of `{' '.join([tool, *argv[2:]])}` differs from {golden.name}:\n{diff}\n"
                        "(rerun with --update-goldens if the new output is right)")
    assert proc.returncode == code, proc.stderr


def test_golden_suite_is_complete():
    assert len(CASES) >= 15
    codes = {case_command(c)[1] for c in CASES}
    assert codes == {1, 3, 4}
    stray = {p.stem for p in ERRORS.glob("*.err")} - {c.stem for c in CASES}
    assert not stray, f"golden files without a case: {stray}"


# ---- inca run ---------------------------------------------------------------------------------

def run_cli(capsys, *argv) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_run_reports_outputs_and_statistics(capsys):
    code, out, err = run_cli(capsys, "run", SLIDE23, "--input", "A=" + ",".join(["1"] * 50),
                             "--input", "B=" + ",".join(str(i) for i in range(50)))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[:5] == [
        "c = 1225.0",
        "instructions    404 (PUTL 102, ALU 201, BLEZ 51, JMP 50)",
        "messages        404",
        "memory accesses 555",
        "time            4.59 us (4595 ns)",
    ]
    assert lines[5] == ("profile         scratchpad (scratchpad): link_gbps=102.4 msg_bits=512 L=0 m=1 "
                        "vec_fixed=4.5 elem_gap=1/3 scratchpad_bytes=1048576")
    assert re.fullmatch(r"simulated       \d+(\.\d+)? s, \d+(\.\d+)? M tuples/s \(\w+ engine\)",
                        lines[6]), lines[6]
    assert len(lines) == 7


@pytest.mark.parametrize("x, text", [
    (0.0, "0"), (5.13e-05, "0.0000513"), (0.000338, "0.000338"), (0.00068, "0.000680"),
    (1.826, "1.83"), (12.34, "12.3"), (123.4, "123"), (2297.62, "2298"), (4.49e7, "44900000")])
def test_measured_figures_keep_three_significant_digits(x, text):
    # (a fixed 4 or 2 decimals printed a short run as "0.0000 s" and 768 vector ops over 262,144
    # elements each as "0.00 M tuples/s"; %g would print 5.13e-05)
    assert cli._figure(x) == text


def test_run_json_and_missing_inputs_note(capsys):
    code, out, _ = run_cli(capsys, "run", SLIDE23, "--json", "--profile", "base")
    doc = json.loads(out)
    assert code == 0
    assert doc["outputs"] == {"c": 0.0}
    assert (doc["instructions"], doc["messages"], doc["memory_accesses"]) == (404, 404, 555)
    assert doc["by_class"] == {"PUTL": 102, "ALU": 201, "BLEZ": 51, "JMP": 50}
    assert doc["time_ns"] == 2980 * 50 + 1240 and doc["time_us"] == 150.24
    assert doc["profile"]["name"] == "base"
    code, out, _ = run_cli(capsys, "run", SLIDE23)
    assert out.splitlines()[-1] == "note: inputs not given were zero: A, B (use --input or --seed)"


def test_run_seed_is_deterministic(capsys):
    outs = [json.loads(run_cli(capsys, "run", SLIDE23, "--seed", s, "--json")[1])["outputs"]
            for s in (7, 7, 8)]
    assert outs[0] == outs[1] != outs[2]


def test_inputs_from_json_files_and_nested_lists(tmp_path, capsys):
    prog = tmp_path / "m.incaa"
    prog.write_text(".input M i64[2][3]\n.output s i64\n.output T i64[2][3]\n"
                    "1 PUTL T[0:2][0:3], M[0:2][0:3]\n2 ADD s, s, M[1][2]\n3 END\n")
    data = tmp_path / "m.json"
    data.write_text("[[1, 2, 3], [4, 5, 6]]")
    code, out, _ = run_cli(capsys, "run", prog, "--input", f"M=@{data}", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["outputs"] == {"s": 6, "T": [[1, 2, 3], [4, 5, 6]]}
    code, out, _ = run_cli(capsys, "run", prog, "--input", "M=1,2,3,4,5,-6")
    assert code == 0 and out.startswith("s = -6\nT = [1, 2, 3, 4, 5, -6]\n")
    # regression: two values for a 2x3 array were taken as two rows ("M has shape [3], but a
    # single value was given")
    code, _, err = run_cli(capsys, "run", prog, "--input", "M=1,2")
    assert code == 1 and err == "--input: error: M holds 6 elements, but 2 were given\n"
    data.write_text("[[1, 2], [3, 4, 5, 6]]")  # right total, ragged rows
    code, _, err = run_cli(capsys, "run", prog, "--input", f"M=@{data}")
    assert code == 1 and err == "--input: error: M has shape [3], but 2 values were given\n" \
        "hint: give 3 values (row-major) or a nested list\n"
    code, _, err = run_cli(capsys, "run", prog, "--input", "M=1,2,3,4,5,6.5")
    assert code == 1 and err == "--input: error: M is i64 but '6.5' is not an integer\n"


def test_huge_integer_input_for_f64_is_a_diagnostic(tmp_path, capsys):
    # regression: float(int) raised OverflowError (an internal error, exit 70)
    prog = tmp_path / "f.incaa"
    prog.write_text(".input x f64\n.output y f64\n1 PUTL y, x\n2 END\n")
    code, out, err = run_cli(capsys, "run", prog, "--input", "x=1" + "0" * 400)
    assert code == 1 and out == ""
    assert err.startswith("--input: error: x: value 1000") and "is too large for f64" in err
    # regression: 1e999 silently became inf; only an explicit inf is one
    code, out, err = run_cli(capsys, "run", prog, "--input", "x=1e999", "--json")
    assert code == 1 and out == "" and "is too large for f64" in err
    code, out, _ = run_cli(capsys, "run", prog, "--input", "x=-inf", "--json")
    assert code == 0 and json.loads(out)["outputs"] == {"y": "-inf"}


def test_trace(capsys):
    code, out, _ = run_cli(capsys, "run", SLIDE23, "--trace", "--max-steps", "1000")
    lines = out.splitlines()
    assert code == 0
    trace = [line for line in lines if " pc " in line]
    assert len(trace) == 405  # 404 tuples and END
    assert re.match(r"\s+1  PUTL i, 0 +dot-product-slide23.incaa:7 +pc 1 -> 2 +0 t=11.00ns$", trace[0])
    assert trace[-1].split()[:2] == ["10", "END"] and trace[-1].endswith("t=4595.00ns")


def test_defines_reach_params(tmp_path, capsys):
    prog = tmp_path / "n.incaa"
    prog.write_text(".param N = 4\n.output s i64\n1 PUTL i, N\n2 BLEZ i, 6\n3 ADD s, s, i\n"
                    "4 SUB i, i, 1\n5 JMP 2\n6 END\n")
    assert json.loads(run_cli(capsys, "run", prog, "--json")[1])["outputs"] == {"s": 10}
    assert json.loads(run_cli(capsys, "run", prog, "-D", "N=100", "--json")[1])["outputs"] == {"s": 5050}
    assert json.loads(run_cli(capsys, "run", prog, "-D", "N=0x10", "--json")[1])["outputs"] == {"s": 136}


def test_exit_codes_of_faults(tmp_path, capsys):
    prog = tmp_path / "loop.incaa"
    prog.write_text("1 ADD x, x, 1\n2 JMP 1\n3 END\n")
    code, _, err = run_cli(capsys, "run", prog, "--max-steps", "10")
    assert code == 4 and "did not finish within 10 steps" in err
    code, _, err = run_cli(capsys, "run", prog, "--max-steps", "10", "--trace")
    assert code == 4 and "did not finish within 10 steps" in err
    bad = tmp_path / "div.incaa"
    bad.write_text(".output q i64\n1 DIV q, q, 0\n2 END\n")
    code, _, err = run_cli(capsys, "run", bad)
    assert code == 3 and err.splitlines()[0].endswith(
        "div.incaa:2:3: error: runtime error: i64 division by zero in tuple 1 'DIV q, q, 0'")


def test_bad_command_lines_exit_2(capsys):
    for argv in (["run"], ["run", str(SLIDE23), "--max-steps", "0"], ["run", str(SLIDE23), "--param", "m"],
                 ["frobnicate"]):
        with pytest.raises(SystemExit) as e:
            cli.main(argv)
        assert e.value.code == 2
    assert cli.main([]) == 2
    with pytest.raises(SystemExit) as e:
        driver.main([str(SLIDE23), "-D", "N"])
    assert e.value.code == 2
    assert driver.main([]) == 2
    assert "incac: error: no input file" in capsys.readouterr().err


# ---- incac ------------------------------------------------------------------------------------

def test_incac_writes_json_next_to_the_source_and_it_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dot.incaa").write_text(SLIDE23.read_text())
    assert driver.main(["dot.incaa"]) == 0
    doc = json.loads((tmp_path / "dot.tuples.json").read_text())
    assert doc["format"] == "inca-tuples/2" and len(doc["tuples"]) == 10
    seeded = ["--seed", "3", "--json"]
    a = json.loads(run_cli(capsys, "run", "dot.incaa", *seeded)[1])
    b = json.loads(run_cli(capsys, "run", "dot.tuples.json", *seeded)[1])
    assert a["outputs"] == b["outputs"] and a["time_ns"] == b["time_ns"] == 4595


def test_large_and_fractional_times_print_readably(tmp_path, capsys):
    # regression: '%g' printed 3052760 ns as 3.05276e+06
    big = tmp_path / "big.incaa"
    big.write_text(SLIDE23.read_text().replace("50", "1024"))
    out = run_cli(capsys, "run", big, "--profile", "base")[1]
    assert "time            3052.76 us (3052760 ns)" in out.splitlines()
    vec = tmp_path / "vec.incaa"
    vec.write_text(".var T f64[40]\nPUTL T[0:40], 1.0\nEND\n")
    assert "time            0.02 us (17.833 ns)" in run_cli(capsys, "run", vec)[1].splitlines()


def test_incac_json_input_defaults_to_stdout(tmp_path, monkeypatch, capsys):
    # regression: x.tuples.json compiled to x.tuples.tuples.json
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dot.incaa").write_text(SLIDE23.read_text())
    assert driver.main(["dot.incaa"]) == 0
    capsys.readouterr()
    assert driver.main(["dot.tuples.json"]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "inca-tuples/2"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dot.incaa", "dot.tuples.json"]


def test_incac_emits_asm_and_tuples(capsys):
    assert driver.main([str(SLIDE23), "-S", "-o", "-"]) == 0
    asm = capsys.readouterr().out
    assert assemble_text(asm) == assemble_text(SLIDE23.read_text())
    assert driver.main([str(SLIDE23), "--emit", "tuples"]) == 0
    listing = capsys.readouterr().out
    assert listing.count("\nT") == 10 and "CT_BLEZ(r0:i64)" in listing


def test_incac_stats_and_isa(capsys):
    assert driver.main([str(SLIDE23), "--emit", "asm", "-o", "-", "--stats"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("static instructions: 9 (10 tuples with END)\n"
                          "data: 832 bytes (input 800, output 8, var 24)")
    assert driver.main(["--isa"]) == 0
    table = capsys.readouterr().out
    assert table.splitlines()[0].startswith("| mnemonic |") and "| BLEZ |" in table


def test_incac_counts_errors(tmp_path, capsys):
    prog = tmp_path / "bad.incaa"
    prog.write_text("1 PUTX x, 1\n2 PUTL 3, x\n3 END\n")
    assert driver.main([str(prog)]) == 1
    err = capsys.readouterr().err
    assert err.count(": error: ") == 2 and err.endswith("2 errors generated.\n")
    assert not (tmp_path / "bad.tuples.json").exists()


@pytest.mark.parametrize("module", [cli, driver], ids=["inca", "incac"])
def test_the_programs_return_mains_code_and_freeze_the_collector_only_then(module, monkeypatch):
    frozen = []
    monkeypatch.setattr("gc.freeze", lambda: frozen.append(True))
    path = str(ROOT / "examples" / "asm" / "dot-product.incaa")
    assert module.main([path, "-o", "-"] if module is driver else ["run", path, "--seed", "1"]) == 0
    assert frozen == []  # a caller of main goes on with its collector as it was
    monkeypatch.setattr(module, "main", lambda argv=None: 3)
    assert module.program() == 3 and frozen == [True]


def test_the_console_scripts_are_the_programs():
    setup = (ROOT / "setup.py").read_text(encoding="utf-8")
    assert '"incac = inca.compiler.driver:program"' in setup and '"inca = inca.interpreter.cli:program"' in setup


def _help(main, argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        main(argv)
    return out.getvalue()


@pytest.mark.parametrize("columns", [None, "200", "40", "0", "-3", "wide"])
def test_the_formatter_wraps_help_at_shutils_width_without_importing_shutil(columns, monkeypatch):
    import argparse
    import shutil

    from inca.compiler import cmdline

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert cmdline.terminal_columns() == shutil.get_terminal_size().columns
    cases = [(cli.main, [*command, "--help"]) for command in ([], ["run"], ["report"], ["repl"])]
    cases.append((driver.main, ["--help"]))
    ours = [_help(main, argv) for main, argv in cases]
    monkeypatch.setattr(cmdline.Formatter, "__init__", argparse.RawDescriptionHelpFormatter.__init__)
    assert ours == [_help(main, argv) for main, argv in cases]


@pytest.mark.parametrize("value", ["NaN", "inf", "-inf", "1e400", "-1", "0", "86401", "abc", ""])
def test_a_verify_timeout_that_is_no_duration_is_a_usage_error(value, capsys):
    """(--verify-timeout NaN ended in a traceback, found by bench/fuzz_tools.py)"""
    path = str(ROOT / "examples" / "optimiser" / "scale.incaq")
    with pytest.raises(SystemExit) as e:
        driver.main([path, "-O2", "--verify", "--verify-timeout", value, "-o", "-"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "argument --verify-timeout" in err and "Traceback" not in err


def test_a_verify_timeout_may_be_a_fraction_of_a_second(capsys):
    path = str(ROOT / "examples" / "optimiser" / "scale.incaq")
    assert driver.main([path, "-O2", "--verify", "--verify-timeout", "0.5", "-o", "-"]) == 0
    assert "verified" in capsys.readouterr().err


def _actions(parser):
    import argparse

    for action in parser._actions:
        yield action
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _actions(sub)


def test_no_option_reads_a_bare_int_or_float():
    """Every number on a command line goes through a bounded parser with a range (a bare float
    took NaN and 1e400 for --verify-timeout, a bare int any number of digits)."""
    for parser in (cli.build_parser(), driver.build_parser()):
        assert [a.dest for a in _actions(parser) if a.type in (int, float)] == []
