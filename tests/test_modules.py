"""Module files a kernel ``use``s: where their source locations point, and how a module file that
cannot be read is reported (one diagnostic at the ``use``, or at the bad byte; never a traceback).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from inca.compiler import driver
from inca.interpreter import cli
from tool_helpers import tool

KERNEL = "use linalg\ninput A: f64[4]\ninput B: f64[4]\noutput c: f64\nc = dot(A, B, {n})\n"


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    """A fresh current folder, so paths given relative stay relative."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_stdlib_locations_do_not_name_the_installation(here):
    (here / "k.incaq").write_text(KERNEL.format(n=4))
    code, asm, err = tool(driver.main, "k.incaq", "-S", "-o", "-")
    assert code == 0, err
    code, out, err = tool(driver.main, "k.incaq", "-o", "-")
    assert code == 0, err
    files = set(json.loads(out)["files"])
    assert files == {"k.incaq", "<stdlib>/linalg.incaq"}
    assert "; <stdlib>/linalg.incaq:19" in asm
    installed = str(Path(driver.__file__).resolve().parents[1])
    for text in (asm, out):
        assert installed not in text and str(here) not in text


def test_a_runtime_error_in_the_stdlib_quotes_its_line(here):
    (here / "k.incaq").write_text(KERNEL.format(n=9))  # past the end of A
    code, _, err = tool(cli.main, "run", "k.incaq", "--seed", "1")
    assert code == 3
    head, quoted = err.splitlines()[:2]
    assert head.startswith("<stdlib>/linalg.incaq:22:") and "out of bounds" in head
    assert quoted.strip() == "s = s + X[k] * Y[k]"


def test_a_user_module_keeps_its_relative_path(here):
    (here / "lib").mkdir()
    (here / "lib" / "m.incaq").write_text("func one() -> f64 {\n    return 1.0\n}\n")
    (here / "k.incaq").write_text("use m\noutput c: f64\nc = one()\n")
    code, asm, err = tool(driver.main, "k.incaq", "-I", "lib", "-S", "-o", "-")
    assert code == 0, err
    assert "; lib/m.incaq:2" in asm and str(here) not in asm


def compile_use(here: Path, name: str, module: bytes | None, *flags: str) -> tuple[int, str, str]:
    if module is not None:
        (here / f"{name}.incaq").write_bytes(module)
    (here / "k.incaq").write_text(f"use {name}\noutput c: f64\nc = one()\n")
    return tool(driver.main, "k.incaq", "-o", "-", *flags)


def test_a_module_with_a_bom_compiles(here):
    code, out, err = compile_use(here, "m", b"\xef\xbb\xbffunc one() -> f64 {\n    return 1.0\n}\n", "-S")
    assert code == 0 and err == "", err
    assert "; m.incaq:2\n" in out  # the mark shifts no line


def test_a_module_that_is_not_utf8_is_reported_at_the_byte(here):
    code, _, err = compile_use(here, "m", b"func one() -> f64 {\n    return 1.0 # caf\xe9\n}\n")
    assert code == 1 and "Traceback" not in err
    assert err.startswith("m.incaq:2:21: error: the file is not UTF-8 text: byte 0xe9"), err
    assert err.count("error:") == 1


def test_a_module_name_too_long_for_the_file_system(here):
    name = "m" * 300
    code, _, err = compile_use(here, name, None)
    assert code == 1 and "Traceback" not in err
    lines = err.splitlines()
    assert lines[0].startswith("k.incaq:1:5: error: cannot look for module 'mmm")
    assert lines[0].endswith("(300 characters)': file name too long")
    assert lines[2].startswith("        ^~~") and err.count("error:") == 1


def test_a_module_too_large_is_reported_at_the_use(here, monkeypatch):
    from inca.compiler.incaq import modules
    from inca.lang import userfiles

    # the real limit is 64 MiB; the same check with a small one
    monkeypatch.setattr(modules, "read_bytes", lambda path: userfiles.read_bytes(path, 16))
    code, _, err = compile_use(here, "m", b"func one() -> f64 {\n    return 1.0\n}\n")
    assert code == 1 and "Traceback" not in err
    assert err.startswith("k.incaq:1:5: error: cannot read module 'm': the file is larger than 16 "
                          "bytes"), err
    assert err.splitlines()[1:3] == ["    use m", "        ^"]
