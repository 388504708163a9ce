"""Golden outputs: every example and golden program through the real command-line tools.

Each case is one expected file, produced by ``incac`` / ``inca run`` and compared as text (layout
and formats: ``tests/golden/README.md``). ``pytest --update-goldens`` rewrites the expected files
from the current output; a mismatch fails with a unified diff.

The tools run in-process: ``inca.compiler.driver.main`` and ``inca.interpreter.cli.main`` are
called with the argv a shell would pass (``python -m`` runs exactly these functions), from the
source's folder, with stdout and stderr captured. On the 2-core development machine the suite
takes 1.6 s this way and 35 s with one ``python -m`` process per command (each pays the
interpreter and lark start-up). ``INCA_GOLDEN_SUBPROCESS=1`` runs the same commands as
subprocesses instead, for the same expected texts.
"""
from __future__ import annotations

import contextlib
import difflib
import io
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from inca.compiler import driver
from inca.interpreter import cli

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"
EXPECTED = GOLDEN / "expected"
PROFILES = ("scratchpad", "base", "scratchpad-400g", "scratchpad-1000g")
SEED = 1
# Examples are not test files, so they carry no ARGS line: they run at the paper's smallest
# payload, 128 bytes (16 elements, 4 x 4 matrices).
EXAMPLE_PARAMS = {"N": "16", "R": "4", "C": "4"}
KERNEL_ARGS = ("-D", "PAYLOAD=128")
RUNS_OUTPUT = ("incaa", "tuples", "out", "prof")
#: The paper's kernels optimised: the INCA-A listing and the remarks, per level.
OPTIMISED = ("O2.incaa", "O2.remarks", "Ofast.remarks")
MODULES = {"incac": driver.main, "inca": cli.main}
SUBPROCESS = os.environ.get("INCA_GOLDEN_SUBPROCESS") == "1"


@dataclass(frozen=True)
class Source:
    """A program with golden files: ``kind`` is asm, kernels (examples), examples
    (examples/programs), optimiser (examples/optimiser), programs or errors."""

    path: Path
    kind: str

    @property
    def name(self) -> str:
        return self.path.stem

    def expected(self, ext: str) -> Path:
        """Where the expected ``ext`` file is: ``.err`` beside its source, the others in the
        mirror folder (a listing beside an INCA-A source would have the source's own name)."""
        if self.kind == "errors":
            return self.path.with_suffix(f".{ext}")
        return EXPECTED / self.kind / f"{self.name}.{ext}"

    def exts(self) -> tuple[str, ...]:
        """The golden files this source has (the paper's kernels and the optimiser's examples
        also at -O2 and -Ofast)."""
        if self.kind == "errors":
            return ("err",)
        return RUNS_OUTPUT + (OPTIMISED if self.kind in ("kernels", "optimiser") else ())

    def args(self) -> list[str]:
        """Extra command-line arguments: ``# ARGS:`` in the leading comments, or the example rule."""
        text = self.path.read_text(encoding="utf-8")
        if self.kind == "kernels":
            return list(KERNEL_ARGS)
        if self.kind == "asm":
            names = re.findall(r"^\.param\s+(\w+)", text, re.M)
            return [a for n in names if n in EXAMPLE_PARAMS for a in ("-D", f"{n}={EXAMPLE_PARAMS[n]}")]
        for line in text.splitlines():
            if not line.startswith(("#", ";")):
                break
            m = re.match(r"[#;]\s*ARGS:(.*)", line)
            if m:
                return shlex.split(m.group(1))
        return []


def sources() -> list[Source]:
    """Every program of the suite, in a fixed order."""
    found = [Source(p, "asm") for p in sorted((ROOT / "examples" / "asm").glob("*.incaa"))]
    found += [Source(p, "kernels") for p in sorted((ROOT / "examples" / "kernels").glob("*.incaq"))]
    found += [Source(p, "examples") for p in sorted((ROOT / "examples" / "programs").glob("*.incaq"))]
    found += [Source(p, "optimiser") for p in sorted((ROOT / "examples" / "optimiser").glob("*.incaq"))]
    found += [Source(p, "programs") for p in sorted((GOLDEN / "programs").glob("*.inca[aq]"))]
    found += [Source(p, "errors") for p in sorted((GOLDEN / "errors").glob("*.incaq"))]
    return found


def tool(name: str, argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """Run ``incac`` or ``inca`` with argv from cwd: (exit code, stdout, stderr)."""
    if SUBPROCESS:
        module = {"incac": "inca.compiler.driver", "inca": "inca.interpreter.cli"}[name]
        proc = subprocess.run([sys.executable, "-m", module, *argv], cwd=cwd, capture_output=True,
                              text=True, timeout=300)
        return proc.returncode, proc.stdout, proc.stderr
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = MODULES[name](argv)
        except SystemExit as e:  # argparse
            code = e.code if isinstance(e.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def _ok(src: Source, command: str, code: int, out: str, err: str) -> str:
    if code != 0 or err:
        raise AssertionError(f"`{command}` in {src.path.parent} exited {code}:\n{err}")
    return out


def _number(v) -> str:
    """An output value: i64 as an integer, f64 in shortest round-trip form, inf/-inf/nan."""
    if isinstance(v, str):
        return v
    return repr(v) if isinstance(v, float) else str(v)


def _chunks(label: str, values: list, width: int = 8) -> list[str]:
    if len(values) <= width:
        return [f"{label} = {' '.join(_number(v) for v in values)}"]
    return [f"{label}[{i}:{min(i + width, len(values))}] = "
            + " ".join(_number(v) for v in values[i:i + width]) for i in range(0, len(values), width)]


def format_outputs(outputs: dict) -> str:
    """The outputs of a run, one line per scalar, per row of 8 vector elements, per matrix row."""
    lines = []
    for name, value in outputs.items():
        if not isinstance(value, list):
            lines.append(f"{name} = {_number(value)}")
        elif value and isinstance(value[0], list):
            for i, row in enumerate(value):
                lines.extend(_chunks(f"{name}[{i}]", row))
        else:
            lines.extend(_chunks(name, value) if len(value) > 8 else [f"{name}[0:{len(value)}] = "
                                                                    + " ".join(map(_number, value))])
    return "\n".join(lines) + "\n"


def format_profile(name: str, doc: dict) -> str:
    """One line of a .prof file: counts, messages, accesses and time under one profile."""
    classes = ",".join(f"{k}:{v}" for k, v in doc["by_class"].items())
    return (f"{name}: instructions={doc['instructions']} by_class={classes} "
            f"messages={doc['messages']} memory_accesses={doc['memory_accesses']} "
            f"time_ns={doc['time_ns']:.3f} time_us={doc['time_us']:.2f}")


def produce(src: Source, ext: str) -> str:
    """The current text of one golden file of ``src``."""
    file, args, cwd = src.path.name, src.args(), src.path.parent
    if ext in OPTIMISED:
        level, kind = ext.split(".")
        argv = [file, f"-{level}", "-S", "-o", "-", *args] + (["--remarks"] if kind == "remarks" else [])
        code, out, err = tool("incac", argv, cwd)
        if code != 0:
            raise AssertionError(f"`incac {shlex.join(argv)}` exited {code}:\n{err}")
        return err if kind == "remarks" else _ok(src, "incac " + shlex.join(argv), code, out, err)
    if ext in ("incaa", "err"):
        argv = [file, "-S", "-o", "-", *args]
        code, out, err = tool("incac", argv, cwd)
        if ext == "incaa":
            return _ok(src, "incac " + shlex.join(argv), code, out, err)
        assert code == 1 and out == "" and "Traceback" not in err, \
            f"`incac {shlex.join(argv)}` should fail with exit code 1, not {code}:\n{err}"
        return err
    if ext == "tuples":
        argv = [file, "--emit", "tuples", *args]
        return _ok(src, "incac " + shlex.join(argv), *tool("incac", argv, cwd))
    docs = {}
    for profile in (PROFILES[:1] if ext == "out" else PROFILES):
        argv = ["run", file, "--seed", str(SEED), "--json", "--profile", profile, *args]
        docs[profile] = json.loads(_ok(src, "inca " + shlex.join(argv), *tool("inca", argv, cwd)))
    if ext == "out":
        return format_outputs(docs[PROFILES[0]]["outputs"])
    return "".join(format_profile(p, d) + "\n" for p, d in docs.items())


def unified_diff(expected: str, actual: str, name: str) -> str:
    """A unified diff of an expected and an actual golden text."""
    return "".join(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True),
                                        f"{name} (expected)", f"{name} (actual)"))


CASES = [(s, e) for s in sources() for e in s.exts()]


@pytest.mark.parametrize("src,ext", CASES, ids=[f"{s.kind}/{s.name}.{e}" for s, e in CASES])
def test_golden(src, ext, update_goldens):
    path = src.expected(ext)
    actual = produce(src, ext)
    if update_goldens:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    if not path.exists():
        pytest.fail(f"{path.relative_to(ROOT)} is missing; create it with: "
                    "pytest tests/test_golden.py --update-goldens")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        pytest.fail(f"{path.relative_to(ROOT)} differs from the current output:\n"
                    f"{unified_diff(expected, actual, path.name)}\n"
                    "(rerun with --update-goldens if the new output is right)")


def test_suite_is_complete():
    """Enough golden files, none without a case, every kind of source present."""
    wanted = {src.expected(ext) for src, ext in CASES}
    assert len(wanted) >= 50
    assert {s.kind for s, _ in CASES} == {"asm", "kernels", "examples", "optimiser", "programs",
                                          "errors"}
    on_disk = set(EXPECTED.rglob("*.*")) | set((GOLDEN / "errors").glob("*.err"))
    stray = sorted(str(p.relative_to(ROOT)) for p in on_disk - wanted)
    assert not stray, f"golden files without a source: {stray}"


def test_golden_programs_say_what_they_test():
    for src in sources():
        if src.kind in ("examples", "optimiser", "programs", "errors"):
            first = src.path.read_text(encoding="utf-8").splitlines()[0]
            assert first.startswith(("#", ";")), f"{src.path.name}: start with a comment saying what it tests"
