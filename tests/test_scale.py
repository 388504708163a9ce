"""Large programs: the assembler's fast path builds what the parser path builds, and bad numbers
anywhere in INCA-A are diagnostics (timings are bench/bench_scale.py's business, not a test's)."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inca.compiler import asm_fast
from inca.compiler.assembler import assemble_text
from inca.lang.diagnostics import DiagnosticError

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_scale import incaa  # noqa: E402

ASM = sorted((ROOT / "examples" / "asm").glob("*.incaa")) + sorted(
    (ROOT / "tests" / "golden" / "programs").glob("*.incaa"))
HUGE = "9" * 5000


def _locs(prog) -> list:
    """Every location in a program (Program equality leaves them out)."""
    out = [d.loc for d in prog.decls]
    for ins in prog.instrs:
        out.append(ins.loc)
        out.extend(getattr(o, "loc", None) for o in (ins.dest, ins.src))
    return out


def _parser_path_only(monkeypatch) -> None:
    monkeypatch.setattr(asm_fast, "scan", lambda text, well_formed: None)
    monkeypatch.setattr(asm_fast, "scan_directive", lambda text: None)


def _outcome(text: str):
    try:
        prog = assemble_text(text, "t.incaa", {"N": 16} if ".param N" in text else None)
    except DiagnosticError as e:
        return "error", [str(d) for d in e.diagnostics]
    return prog, _locs(prog), prog.labels


@pytest.mark.parametrize("text", [p.read_text(encoding="utf-8") for p in ASM] + [incaa(800)],
                         ids=[p.name for p in ASM] + ["generated"])
def test_fast_path_builds_what_the_parser_builds(text, monkeypatch):
    fast = _outcome(text)
    assert fast[0] != "error"
    _parser_path_only(monkeypatch)
    assert _outcome(text) == fast


HEAD = ".input A f64[8]\n.output B f64[8]\n.var i i64\n.param P = 3\n"


@pytest.mark.parametrize("body", [
    "FOO B[0], 1\nEND",  # unknown mnemonic
    "PUTL B[0]\nEND",  # operand count
    "ADD B[0], B[1], 2.0\nEND",  # two-address
    "PUTL 3, B[1]\nEND",  # immediate destination
    "JMP nowhere\nEND",  # unknown label
    "PUTL C[0], 1\nEND",  # undeclared
    "PUTL B[9], 1\nEND",  # out of bounds
    "PUTL B[0:3], A[0:4]\nEND",  # shapes
    "XOR B[0], 1\nEND",  # i64 only
    "PUTL i, 1.5e999\nEND",  # overflow
    "PUTL i, 99999999999999999999\nEND",  # beyond i64
    "PUTL i, P\nPUTL B[P+1], A[i-2]\nEND",  # .param values
    "loop: SUB i, 1\nBLEZ i, loop\nJMP 2\nEND",
    "PUTL B[0], inf\nEND",
    "PUTL B[0:4:2], A[0:2]\nEND",
    "PUTL B[0], A[i*2]\nEND",
    "PUTL B[0], 007\nEND",
    "1 PUTL B[0], 1\n2 END",
    "1 PUTL B[0], 1\n3 END",
    "PUTL B[0], 1 ; comment\n\n# another\nEND",
])
def test_fast_path_diagnostics_are_the_parser_paths(body, monkeypatch):
    text = HEAD + body + "\n"
    fast = _outcome(text)
    _parser_path_only(monkeypatch)
    assert _outcome(text) == fast


_KINDS = st.sampled_from(["input", "output", "inout", "var", "param", "INPUT", "Var", "in", "const"])
_NAMES = st.sampled_from(["A", "B", "N", "M", "x", "inf", "i64", "_t1"])
_TYPES = st.sampled_from([None, "f64", "i64", "f32", "N"])
_DIMS = st.lists(st.sampled_from(["1", "4", "0", "N", "M", "P", "007", "0x10", "-2", "N+1", "x"]),
                 max_size=3)
_VALUES = st.sampled_from([None, "1", "-5", "0", "2.5", "-0.0", "1e400", "inf", "N", "", "1, 2",
                           "99999999999999999999", "2*N", ")(", "1 2"])
_SPACES = st.sampled_from([" ", "  ", "\t", " \t "])


@st.composite
def _directive(draw) -> str:
    sp, indent = draw(_SPACES), draw(st.sampled_from(["", " ", "\t"]))
    line = f"{indent}.{draw(_KINDS)}{sp}{draw(_NAMES)}"
    dtype = draw(_TYPES)
    if dtype is not None:
        line += f"{sp}{dtype}" + "".join(draw(st.sampled_from(["[{}]", " [ {} ]"])).format(d)
                                         for d in draw(_DIMS))
    value = draw(_VALUES)
    if value is not None:
        line += f"{draw(st.sampled_from(['=', ' = ']))}{value}"
    return line + draw(st.sampled_from(["", " ; note", "# note"]))


@settings(max_examples=int(os.environ.get("INCA_ASM_FUZZ_EXAMPLES", "300")), deadline=None,
          database=None)
@given(st.lists(_directive(), min_size=1, max_size=6), st.booleans())
def test_fast_declarations_are_the_parser_paths(lines, defined):
    """Declarations the scanner reads build the declarations, locations and diagnostics the
    parser path does, whatever the mix of valid and invalid lines around them."""
    text = ".param P = 3\n" + "\n".join(lines) + "\nPUTL x, 1\nEND\n"
    defines = {"N": 16} if defined and any(".param" in ln and " N" in ln for ln in lines) else None

    def outcome():
        try:
            prog = assemble_text(text, "t.incaa", defines)
        except DiagnosticError as e:
            return "error", [str(d) for d in e.diagnostics]
        return prog, _locs(prog)

    fast = outcome()
    with pytest.MonkeyPatch.context() as mp:
        _parser_path_only(mp)
        assert outcome() == fast


def _error(text: str) -> str:
    with pytest.raises(DiagnosticError) as e:
        assemble_text(text, "t.incaa")
    (d,) = e.value.diagnostics
    assert d.loc is not None and d.loc.col >= 1  # a caret, under the number
    return str(d)


@pytest.mark.parametrize("line,col", [
    (f"PUTL x, {HUGE}", 9),
    (f"PUTL x, -{HUGE}", 10),
    (f"PUTL x, 0x{'f' * 5000}", 9),
    (f"PUTL x, {HUGE}.5", 9),
    (f"JMP {HUGE}", 5),
    (f"BLEZ x, 0x{'f' * 5000}", 9),
])
def test_huge_numbers_are_diagnostics(line, col):
    message = _error(f"{line}\nEND\n")
    assert f"t.incaa:1:{col}:" in message and "digits" in message


def test_huge_param_and_line_number():
    assert "digits" in _error(f".param N = {HUGE}\nEND\n")
    assert "t.incaa:1:1:" in _error(f"{HUGE} END\n")


def test_float_overflow_is_an_error_not_infinity():
    message = _error(".var x f64 = 1e999\nEND\n")
    assert "t.incaa:1:14:" in message and "too large for f64" in message
    assert "too large for f64" in _error("PUTL x, 1e999\nEND\n")


@pytest.mark.parametrize("text", ["", "\n\n", "; only a comment\n# and another\n", ".var x f64\n"])
def test_a_program_without_instructions_is_an_error(text):
    with pytest.raises(DiagnosticError, match="the program has no instructions"):
        assemble_text(text, "t.incaa")


# ---- INCA-Q: long operator chains and bad literals -------------------------------------------

def _sum_kernel(terms: int) -> str:
    return "output y: i64\ny = " + " + ".join(str(i) for i in range(terms)) + "\n"


def test_a_flat_sum_of_1000_terms_compiles_and_computes():
    from inca.compiler.incaq.pipeline import compile_source
    from inca.interpreter.loader import execute
    from inca.interpreter.profiles import load_profile
    from inca.lang.diagnostics import Source
    from inca.lang.tuples import encode

    prog = compile_source(Source("sum.incaq", _sum_kernel(1000)))
    result = execute(encode(prog), load_profile("scratchpad"), {})
    assert result.outputs == {"y": sum(range(1000))}


@pytest.mark.parametrize("args", [["-S", "-o", "-"], ["--emit", "ast"], ["--clobber", "-S", "-o", "-"]])
def test_long_chains_in_every_stage_and_too_long_ones(tmp_path, capsys, args):
    from inca.compiler.driver import main

    ok = tmp_path / "ok.incaq"
    ok.write_text(_sum_kernel(2000))
    assert main([str(ok), *args]) == 0
    capsys.readouterr()
    bad = tmp_path / "bad.incaq"
    bad.write_text(_sum_kernel(10_000))
    assert main([str(bad), *args]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and "chains more than 2000 operators" in err


def test_a_statement_deeper_than_the_optimiser_takes_is_compiled_as_at_O0(tmp_path, capsys):
    # the optimiser's passes walk expressions recursively: a chain of 1,000 operators (a tree
    # 1,000 deep) once ended -O2 in a RecursionError; 200 are still optimised
    from inca.compiler.driver import main

    def kernel(terms):
        path = tmp_path / f"k{terms}.incaq"
        path.write_text("input A: i64[4]\noutput y: i64\ny = "
                        + " + ".join(f"A[{i % 4}]" for i in range(terms)) + "\n")
        return str(path)

    deep, o0, out = kernel(1000), tmp_path / "o0.json", tmp_path / "o.json"
    assert main([deep, "-o", str(o0)]) == 0
    for level in ("-O1", "-O2", "-Ofast"):
        assert main([deep, level, "--remarks", "-o", str(out)]) == 0
        err = capsys.readouterr().err
        assert "[optimise] kernel not optimised: a statement nests 1002 levels deep" in err
        assert out.read_bytes() == o0.read_bytes()
    assert main([deep, "-O2", "--emit", "loopir"]) == 1
    err = capsys.readouterr().err
    assert "the loop IR takes at most 250" in err and "Traceback" not in err
    assert main([kernel(200), "-O2", "--remarks", "-o", str(out)]) == 0
    assert "not optimised" not in capsys.readouterr().err


@pytest.mark.parametrize("literal,message", [
    ("1e999", "float literal 1e999 is too large for f64"),
    (HUGE, "integer literal has more than 64 digits"),
    ("0x" + "f" * 5000, "integer literal has more than 64 digits"),
])
def test_incaq_literals_out_of_range(literal, message):
    from inca.compiler.incaq.pipeline import compile_source
    from inca.lang.diagnostics import Source

    with pytest.raises(DiagnosticError) as e:
        compile_source(Source("k.incaq", f"output y: f64\ny = {literal}\n"))
    (d,) = e.value.diagnostics
    assert message in d.message and (d.loc.line, d.loc.col) == (2, 5)
