"""No traceback, no hang, no silent wrong answer: hostile command lines, inputs, profiles, reports.

Every case runs a real command-line tool (its ``main`` in-process, or a subprocess where memory or
time is the point) and checks the documented exit code, one diagnostic on stderr and no traceback.
The memory and time cases run under a 1 GiB address-space limit with a generous time bound: they
used to allocate without end or hang, so passing at all proves the check comes before the work.
"""
from __future__ import annotations

import contextlib
import json
import pickle
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inca.compiler import driver
from inca.interpreter import cli
from inca.lang.diagnostics import Diagnostic, DiagnosticError, Loc, quote_file
from tool_helpers import tool

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "examples" / "kernels"
DOT = str(KERNELS / "dot-product.incaq")
HUGE = "9" * 5000  # beyond int()'s 4,300-digit limit
LIMIT_AS = 1 << 30


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


def bounded(*argv: str, stdin: str | None = None, module: str = "inca.interpreter.cli"):
    """A tool as a subprocess under a 1 GiB address-space limit: (exit code, stderr, seconds)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT_AS, LIMIT_AS))

    start = time.monotonic()
    p = subprocess.run([sys.executable, "-m", module, *argv], input=stdin, capture_output=True,
                       text=True, timeout=60, preexec_fn=limit)
    return p.returncode, p.stderr, time.monotonic() - start


# ---- sizes: one check before anything is generated or allocated ----------------------------

@pytest.mark.parametrize("argv", [
    ["run", DOT, "--payload", "8000000000000", "--seed", "1"],  # grew until memory ran out
    ["run", DOT, "--payload", "80000000", "--seed", "1"],  # 15 s and 800 MB before refusing
    ["run", DOT, "--payload", "80000000", "--seed", "1", "--profile", "base", "-D", "N=200000000"],
    ["report", "--kernels", "dot-product", "--kernels-dir", str(KERNELS), "--payloads",
     "128,8000000000000", "-q", "-j", "2"],
])
def test_oversized_data_is_refused_before_any_input_is_made(argv):
    code, err, seconds = bounded(*argv)
    assert code == 1 and "Traceback" not in err and "the program's data needs" in err, err
    assert seconds < 10


def test_repl_load_checks_the_size_before_allocating(tmp_path):
    kernel = tmp_path / "big.incaq"
    kernel.write_text("param PAYLOAD = 128\nvar X: f64[PAYLOAD * PAYLOAD] = 1.5\noutput y: f64\n"
                      "y = X[3]\n")
    code, err, seconds = bounded("repl", stdin=f":load {kernel} PAYLOAD=3000000000\n")
    assert code == 1 and "MemoryError" not in err and "simulates at most" in err, err
    assert seconds < 10
    # the compiler itself never allocates a declaration's elements
    code, err, seconds = bounded(str(kernel), "--payload", "3000000000", "--stats", "-o", "/dev/null",
                                 module="inca.compiler.driver")
    assert code == 0 and "data: 72000000000000000008 bytes" in err and seconds < 10


# ---- numbers on command lines and in input files --------------------------------------------

@pytest.fixture
def prog(tmp_path) -> Path:
    p = tmp_path / "p.incaa"
    p.write_text(".input A f64[2]\n.input K i64\n.output y f64\nPUTL y, A[1]\nEND\n")
    return p


def write(path: Path, data: str | bytes) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


@pytest.mark.parametrize("data,fragment", [
    (f"[1, {HUGE}]", "JSON integer has more than 64 digits"),  # was int()'s ValueError, exit 70
    ("[1, 1e400]", "too large for f64"),  # json made it inf silently
    ("[" * 100_000 + "]" * 100_000, "nested more than 64 levels"),  # was RecursionError
    (b"\xff\xfe[1, 2]", "not UTF-8 text: byte 0xff at offset 0"),  # was UnicodeDecodeError
    (b"[1,\n 2\xe9]", ":2:3: error: the file is not UTF-8 text: byte 0xe9 at offset 6"),
    ("[1, 2" + " " * (1 << 21) + "]", "larger than"),  # a file far larger than 2 values need
    ("[1, x]", ":1:5: error: not valid JSON (Expecting value)"),
    # where and how json reports a trailing comma changed in Python 3.13 (now at the comma)
    ("[1, ]", "a.json:1:"),
    ('{"a": 1}', "A has shape [2], but a single value was given"),
])
def test_bad_json_input_files(prog, tmp_path, data, fragment):
    f = write(tmp_path / "a.json", data)
    refused(inca("run", prog, "--input", f"A=@{f}"), 1, fragment)


def test_input_json_with_a_bom_and_explicit_infinities(prog, tmp_path):
    f = write(tmp_path / "a.json", '\ufeff[1.5, "-inf"]')
    code, out, err = inca("run", prog, "--input", f"A=@{f}", "--json")
    assert code == 0 and json.loads(out)["outputs"] == {"y": "-inf"}, err


@pytest.mark.parametrize("arg,fragment", [
    (f"A=1,0x{'f' * 5000}", "A: integer has more than 64 digits"),
    (f"A=1,{HUGE}", "A: value has more than 1000 digits"),
    ("A=1,1e400", "A: value 1e400 is too large for f64"),  # silently inf before
    ("A=1,1e99999999999", "exponent of more than 6 digits"),
    (f"K={'9' * 100}", "K: integer has more than 64 digits"),
    ("K=9223372036854775808", "K: 9223372036854775808 does not fit in i64"),
    ("K=1e3", "K is i64 but '1e3' is not an integer"),
    ("K=abc", "K: 'abc' is not a number"),
])
def test_bad_input_numbers(prog, arg, fragment):
    refused(inca("run", prog, "--input", arg), 1, fragment)


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


def test_bad_run_numbers_are_usage_errors():
    refused(inca("run", DOT, "--seed", HUGE), 2, "integer has more than 64 digits")
    refused(inca("run", DOT, "--max-steps", HUGE), 2, "integer has more than 64 digits")
    refused(inca("report", "-j", HUGE), 2, "integer has more than 64 digits")


# ---- profiles: every parameter in a documented range ----------------------------------------

@pytest.mark.parametrize("param", ["m=1e400", "link_gbps=1e-400", "L=1e100000000", f"L={HUGE}",
                                   "scratchpad_bytes=0.5", "elem_gap=-1/3"])
def test_out_of_range_parameters(param):
    refused(inca("run", DOT, "--payload", "8", "--param", param), 1, f"parameter {param.split('=')[0]}=")


def test_param_that_used_to_hang_returns_at_once():
    code, err, seconds = bounded("run", DOT, "--payload", "8", "--param", "L=1e100000000")
    assert code == 1 and "out of range" in err and seconds < 10


@pytest.mark.parametrize("text,fragment", [
    ("link_gbps = 1e-308\n", "parameter link_gbps=1e-308 is out of range"),  # OverflowError after the outputs
    ("m = inf\n", "parameter m='inf' is not a number"),
    (f"m = {HUGE}\n", "not valid TOML: a value is too large or nested too deep"),  # int()'s ValueError
    ("x = " + "[" * 1200 + "]" * 1200 + "\n", "more than 1000 '.', '[' and '{'"),
    ("x = " + "[" * 990 + "]" * 990 + "\n", "not valid TOML: a value is too large or nested too deep"),
    ("a." * 100_000 + "b = 1\n", "larger than"),  # tomllib is quadratic in a dotted key's depth
    ("a." * 20_000 + "b = 1\n", "more than 1000 '.', '[' and '{'"),
    (b"m = 1 # \xff\n", "not UTF-8 text"),
])
def test_bad_toml_profiles(tmp_path, text, fragment):
    f = write(tmp_path / "p.toml", text)
    start = time.monotonic()
    refused(inca("run", DOT, "--payload", "8", "--profile", f), 1, fragment)
    assert time.monotonic() - start < 5


def test_repl_profile_command_checks_the_ranges():
    code, err, _ = bounded("repl", stdin=":profile scratchpad link_gbps=1e-400\n:profile\n")
    assert code == 1 and "out of range" in err and "Traceback" not in err, err


# ---- outputs: one check and one message for every tool that writes --------------------------

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


@pytest.mark.parametrize("args,fragment", [
    (["--payloads", "abc"], "'abc' is not a payload"),
    (["--payloads", "0"], "a payload must be positive, not 0"),
    (["--payloads", HUGE], "payload has more than 64 digits"),
    (["--paper", "/nonexistent"], "not a folder of the paper's figures"),
    (["-o", "/"], "cannot write '/': it is a directory"),
    (["-o", "/missing/x"], "cannot write '/missing/x': no such directory '/missing'"),
    (["--plot", "/missing/x.png"], "no such directory"),
    (["--plot", "runtimes.gif"], "a plot is written as .png, .svg, .pdf"),
    (["-o", DOT], "it is the input file"),
])
def test_report_refuses_bad_options_before_the_sweep(args, fragment):
    start = time.monotonic()
    refused(inca("report", "--kernels-dir", KERNELS, "-q", *args), 1, fragment)
    assert time.monotonic() - start < 5  # the full sweep takes longer: nothing was run


def test_report_kernel_that_does_not_compile(tmp_path):
    (tmp_path / "dot-product.incaq").write_text(Path(DOT).read_text())
    (tmp_path / "broken.incaq").write_text("param PAYLOAD = 8\nx = = 1\n")
    for jobs in ("1", "2"):  # in a worker process it was BrokenProcessPool, exit 70
        refused(inca("report", "--kernels-dir", tmp_path, "--payloads", "128,256", "-q", "-j", jobs),
                1, "broken.incaq:2:5: error: expected an expression")
    (tmp_path / "broken.incaq").unlink()
    (tmp_path / "dot-product.incaq").unlink()
    refused(inca("report", "--kernels-dir", tmp_path, "-q"), 1, "no .incaq kernels in this folder")


def test_report_kernels_folder_whose_name_the_system_refuses(tmp_path, monkeypatch):
    # asking whether a folder of a name too long exists raised OSError (exit 70; the fuzzer found
    # it once --kernels-dir was among the options it draws); a NUL, from a study file, is shown
    # as \\0
    refused(inca("report", "--kernels-dir", "x" * 300, "-q"), 1,
            "cannot read the kernels folder: file name too long")
    study = write(tmp_path / "s.toml", 'kernels_dir = "a\\u0000b"\n')
    assert "a\\0b: error: no kernels folder" in refused(inca("report", "--study", study, "-q"), 1)
    monkeypatch.setenv("INCA_PAPER_DIR", "y" * 300)  # no folder by that name: no paper columns
    code, out, err = inca("report", "--kernels-dir", KERNELS, "--kernels", "dot-product", "--payloads",
                          "128", "--profiles", "scratchpad", "--variants", "default", "-j", "1", "-q")
    assert code == 0 and "dot-product" in out, err


def test_report_workers_are_capped(monkeypatch):
    from inca.interpreter import report

    monkeypatch.setattr(report.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    assert report.worker_count(1000, 56) == 4
    assert report.worker_count(None, 2) == 2
    assert report.worker_count(3, 56) == 3


def test_diagnostic_errors_cross_process_boundaries():
    e = DiagnosticError([Diagnostic("boom", Loc("k.incaq", 2, 5), "fix it", "x = = 1")])
    back = pickle.loads(pickle.dumps(e))
    assert back.diagnostics == e.diagnostics and str(back) == str(e)


# ---- source files: a byte-order mark is accepted, other bytes reported where they are -------

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


@pytest.mark.parametrize("argv", [
    ("incac", "a\0b.incaa"),
    ("incac", "examples/asm/dot-product.incaa", "-o", "out\0.json"),
    ("inca", "run", "a\0b.incaq"),
    ("inca", "run", "examples/asm/dot-product.incaa", "--input", "A=@a\0b.json"),
])
def test_a_nul_byte_in_a_path_is_a_diagnostic(argv):
    """Python's file functions raise ValueError, not OSError, for such a path (found by the fuzzer
    through the REPL's :load)."""
    root = Path(__file__).resolve().parents[1]
    main = driver.main if argv[0] == "incac" else cli.main
    with contextlib.chdir(root):
        code, _, err = tool(main, *argv[1:])
    assert code == 1 and "Traceback" not in err and "NUL byte" in err


def test_a_nul_byte_in_a_repl_path_keeps_the_session():
    from inca.interpreter.profiles import load_profile
    from inca.interpreter.session import Session
    s = Session(load_profile("scratchpad"))
    reply = s.feed(":load a\0b.incaq")
    assert reply.error and "NUL byte" in reply.text and "internal error" not in reply.text


@pytest.mark.parametrize("paper", ["x" * 300, "a\0b", "examples\n" * 60])
def test_unusable_paper_folders_are_diagnostics(paper):
    """Found by the long fuzz run: even asking whether a file is in such a folder raises."""
    code, _, err = inca("report", "--paper", paper, "--kernels", "dot-product", "--payloads", "128")
    assert code == 1 and "Traceback" not in err and "error" in err


@pytest.mark.parametrize("argv", [
    ("incac", "examples/asm/dot-product.incaa", "-D=--"),
    ("inca", "run", "examples/asm/dot-product.incaa", "--input=--"),
    ("inca", "run", "examples/asm/dot-product.incaa", "--param=--"),
    ("inca", "repl", "--param=--"),
])
def test_an_option_whose_value_is_a_bare_separator(argv):
    """Found by the long fuzz run: argparse drops a '--' inside '--opt=--', leaving an empty list
    where the option's type never ran."""
    main = driver.main if argv[0] == "incac" else cli.main
    code, _, err = tool(main, *argv[1:])
    assert code == 2 and "expected a value, not '--'" in err and "Traceback" not in err
