"""The documentation agrees with the code.

- docs/isa.md holds exactly the table ``incac --isa`` prints (one table, no drift);
- the example in docs/tuples.md is what the assembler, the listing and the JSON writer produce;
- docs/cli.md names every option of ``incac`` and ``inca run`` and every exit code;
- .ci/run runs exactly the install and test commands README.md shows.
"""
from __future__ import annotations

import argparse
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from inca.lang import diagnostics
from inca.lang.isa import isa_table_markdown

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def block(text: str, marker: str) -> str:
    """The text between ``<!-- marker ...-->`` and ``<!-- /marker -->``, stripped."""
    m = re.search(rf"<!-- {re.escape(marker)}\b[^>]*-->\n(.*?)\n<!-- /{re.escape(marker)} -->",
                  text, re.S)
    assert m, f"no <!-- {marker} --> ... <!-- /{marker} --> block"
    return m.group(1).strip("\n")


def fenced(text: str) -> str:
    """The contents of the single fenced code block in ``text``, with its final newline."""
    m = re.fullmatch(r"\s*```[a-z]*\n(.*?\n)```\s*", text, re.S)
    assert m, "expected exactly one fenced code block"
    return m.group(1)


def test_isa_md_is_the_generated_table():
    text = (DOCS / "isa.md").read_text(encoding="utf-8")
    assert block(text, "isa-table").strip() == isa_table_markdown(), (
        "docs/isa.md is out of date: replace the table between the isa-table markers with the "
        "output of `incac --isa`")


def test_incac_isa_prints_the_table():
    from inca.compiler.driver import main

    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--isa"]) == 0
    assert out.getvalue() == isa_table_markdown() + "\n"


def test_tuples_md_example_is_what_the_tools_produce():
    from inca.compiler.assembler import assemble
    from inca.lang.diagnostics import Source
    from inca.lang.tuples import encode, from_json, listing, to_json

    text = (DOCS / "tuples.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- example-source: (\S+) -->", text)
    assert m, "docs/tuples.md names its example file in <!-- example-source: NAME -->"
    name = m.group(1)
    source = fenced(block(text, "example-source"))
    tp = encode(assemble(Source(name, source)))
    assert fenced(block(text, "example-listing")) == listing(tp), (
        f"the listing in docs/tuples.md is out of date: regenerate it with "
        f"`incac {name} --emit tuples`")
    assert fenced(block(text, "example-json")) == to_json(tp), (
        f"the JSON in docs/tuples.md is out of date: regenerate it with `incac {name} -o -`")
    assert from_json(to_json(tp), name) == tp


def _option_strings(parser: argparse.ArgumentParser) -> set[str]:
    out = set()
    for action in parser._actions:
        out.update(action.option_strings)
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                out |= _option_strings(sub)
    return out


@pytest.mark.parametrize("tool", ["incac", "inca"])
def test_cli_md_names_every_option(tool):
    if tool == "incac":
        from inca.compiler.driver import build_parser
    else:
        from inca.interpreter.cli import build_parser
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    missing = sorted(o for o in _option_strings(build_parser())
                     if not re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text))
    assert not missing, f"docs/cli.md does not document these {tool} options: {missing}"


def test_cli_md_exit_codes_match_the_code():
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    codes = {name: value for name, value in vars(diagnostics).items() if name.startswith("EXIT_")}
    assert codes, "lang/diagnostics.py defines no EXIT_* codes"
    for name, value in codes.items():
        assert f"| {value} | `{name}` |" in text, f"docs/cli.md has no exit-code row for {name} = {value}"
    rows = re.findall(r"^\| (\d+) \| `(EXIT_\w+)` \|", text, re.M)
    assert {n: int(v) for v, n in rows} == codes, "docs/cli.md lists exit codes the code does not have"


def _readme_command(marker: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = [ln for ln in fenced(block(text, marker)).splitlines() if ln.strip()]
    assert len(lines) == 1, f"README.md's {marker} block should hold one command line"
    return lines[0]


def test_readme_shows_the_setup_commands():
    assert _readme_command("install").startswith("pip install -e '.[test]'")
    assert _readme_command("test") == "python -m pytest -q -n auto"


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_ci_runs_the_readme_commands():
    out = subprocess.run(["bash", str(ROOT / ".ci" / "run"), "--print"], capture_output=True,
                         text=True, check=True, stdin=subprocess.DEVNULL, timeout=60)
    assert out.stdout.splitlines() == [_readme_command("install"), _readme_command("test")]


def test_docs_links_resolve():
    for page in [ROOT / "README.md", *DOCS.glob("*.md")]:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
            if "://" in target:
                continue
            assert (page.parent / target).exists(), f"{page.relative_to(ROOT)} links to missing {target}"
