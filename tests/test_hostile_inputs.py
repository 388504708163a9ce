"""No traceback, no hang, no silent wrong answer: hostile command lines, inputs, profiles, reports.

Every case runs a real command-line tool (its ``main`` in-process, or a subprocess where memory or
time is the point) and checks the documented exit code, one diagnostic on stderr and no traceback.
The memory and time cases run under a 1 GiB address-space limit with a generous time bound: they
used to allocate without end or hang, so passing at all proves the check comes before the work.
"""
from __future__ import annotations

import contextlib
import io
import pickle
from pathlib import Path

import pytest

from inca.compiler import driver
from inca.interpreter import cli
from inca.lang.diagnostics import Diagnostic, DiagnosticError, Loc, quote_file

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "examples" / "kernels"
DOT = str(KERNELS / "dot-product.incaq")
HUGE = "9" * 5000  # beyond int()'s 4,300-digit limit


def tool(main, *argv) -> tuple[int, str, str]:
    """Run a tool's main() in-process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as e:  # argparse's usage errors
            code = e.code
    return code, out.getvalue(), err.getvalue()


def inca(*argv):
    return tool(cli.main, *argv)


def incac(*argv):
    return tool(driver.main, *argv)


def refused(result, code: int = 1, *fragments: str) -> str:
    """Assert a clean refusal: the exit code, no traceback, a diagnostic with each fragment."""
    rc, _, err = result
    assert rc == code, err
    assert "Traceback" not in err and "error" in err, err
    for f in fragments:
        assert f in err, err
    return err


def write(path: Path, data: str | bytes) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


@pytest.mark.parametrize("argv,fragment", [
    (["-D", f"N={HUGE}"], "N: integer has more than 64 digits"),
    (["-D", "N=1.5"], "N: '1.5' is not an integer"),
    (["--payload", HUGE], "integer has more than 64 digits"),
    (["--payload", "0"], "must be positive"),
])
def test_bad_compile_numbers_are_usage_errors(argv, fragment):
    err = refused(incac(DOT, *argv), 2, fragment)
    assert HUGE not in err  # one short line, not the 5,000 digits back
    refused(inca("run", DOT, *argv), 2, fragment)


def test_incac_unwritable_outputs(tmp_path):
    refused(incac(DOT, "--emit", "ast", "-o", tmp_path), 1,
            f"incac: error: cannot write '{tmp_path}': it is a directory")
    refused(incac(DOT, "-o", tmp_path / "missing" / "x.json"), 1, "no such directory")
    mine = write(tmp_path / "mine.incaa", ".output y i64\nPUTL y, 1\nEND\n")
    for out in (mine, tmp_path / "." / "mine.incaa"):
        refused(incac(mine, "-o", out), 1, "it is the input file")
    assert mine.read_text().startswith(".output")  # not overwritten with JSON
    tuples = tmp_path / "t.json"
    assert incac(mine, "-o", tuples)[0] == 0
    refused(incac(tuples, "--emit", "json", "-o", tuples), 1, "it is the input file")


def test_incac_checks_the_output_before_compiling(tmp_path):
    # a broken program and a bad -o: the -o is reported, without compiling first
    bad = write(tmp_path / "bad.incaa", "PUTX\n")
    refused(incac(bad, "-o", tmp_path), 1, "is a directory")


def test_incac_ctrl_c_exits_quietly(monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(driver, "compile_command", interrupted)
    assert incac(DOT) == (130, "", "")


def test_diagnostic_errors_cross_process_boundaries():
    e = DiagnosticError([Diagnostic("boom", Loc("k.incaq", 2, 5), "fix it", "x = = 1")])
    back = pickle.loads(pickle.dumps(e))
    assert back.diagnostics == e.diagnostics and str(back) == str(e)


def test_bom_is_accepted_without_shifting_columns(tmp_path):
    plain = write(tmp_path / "plain.incaq", "x = = 1\n")
    bom = write(tmp_path / "bom.incaq", b"\xef\xbb\xbfx = = 1\n")
    e_plain = refused(incac(plain, "-o", "-"), 1)
    e_bom = refused(incac(bom, "-o", "-"), 1)
    assert e_bom == e_plain.replace("plain.incaq", "bom.incaq") and "bom.incaq:1:5:" in e_bom
    good = write(tmp_path / "good.incaa", b"\xef\xbb\xbf.output y i64\nPUTL y, 7\nEND\n")
    code, out, _ = inca("run", good)
    assert code == 0 and out.startswith("y = 7\n")
    assert quote_file(Loc(str(good), 1, 1)) == ".output y i64\n"


def test_source_that_is_not_utf8(tmp_path):
    latin = write(tmp_path / "latin.incaq", b"param PAYLOAD = 8\n# caf\xe9\nx = 1\n")
    err = refused(incac(latin), 1, "latin.incaq:2:6: error: the file is not UTF-8 text: "
                                   "byte 0xe9 at offset 23")
    assert err.count("error:") == 1
    refused(inca("run", latin), 1, "byte 0xe9 at offset 23")

