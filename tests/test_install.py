"""The project as a user installs it: a wheel built from a clean copy of the tree, installed into a
fresh virtualenv outside the tree, and run from an empty folder.

The editable install the tests otherwise use reads everything from the source tree, so it cannot
notice a package left out of the wheel (as ``inca.compiler.incaq`` once was: every ``.incaq``
path failed after ``pip install .``), package data left behind, or a path that only resolves
from the repository root. One wheel and one virtualenv are made per test module; the wheel is
built the way pip and pipx build it (in build isolation) and installed with its dependencies.
Everything runs with an empty current folder and no PYTHONPATH.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

import paper
from inca.compiler import driver
from inca.interpreter import cli

ROOT = Path(__file__).resolve().parents[1]
SHARED_PAPER = ROOT.parent / "shared" / "paper"
PACKAGED_PAPER = ROOT / "interpreter" / "paper_figures"
ROOTS = {"lang": "inca/lang", "compiler": "inca/compiler", "interpreter": "inca/interpreter",
         "stdlib": "inca/stdlib"}
EXACT = ("dot-product", "hadamard-product", "matrix-transpose", "matrix-multiplication")
# a kernel whose code comes from three stdlib modules
STDLIB_KERNEL = """\
use linalg
use reduce
use memory
param N = 8
input  A: f64[N]
input  B: f64[N]
output T: f64[N]
output c: f64
output s: f64
hadamard(A, B, T, N)
copy(T, A, N)
c = dot(A, B, N)
s = sum(T, N)
"""


def in_process(main, *argv: str) -> tuple[int, str, str]:
    """A tool's main() in this process, the editable install: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


# ---- the packaged paper figures (no wheel needed) ------------------------------------------------

def test_packaged_paper_figures_are_the_published_ones():
    if not SHARED_PAPER.is_dir():
        pytest.skip(f"no {SHARED_PAPER} to compare with")
    shared = sorted(p.name for p in SHARED_PAPER.iterdir() if p.is_file())
    assert sorted(p.name for p in PACKAGED_PAPER.iterdir()) == shared
    for name in shared:
        assert (PACKAGED_PAPER / name).read_bytes() == (SHARED_PAPER / name).read_bytes(), name


def report_rows(out: str) -> dict[tuple[str, str, str, int], dict[str, str]]:
    return {(r["kernel"], r["variant"], r["profile"], int(r["payload"])): r
            for r in csv.DictReader(io.StringIO(out))}


def test_report_shows_the_paper_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("INCA_PAPER_DIR", raising=False)
    code, out, err = in_process(cli.main, "report", "--kernels-dir", str(ROOT / "examples" / "kernels"),
                                "--kernels", "dot-product", "--payloads", "128", "--variants", "default",
                                "--format", "csv", "-q", "-j", "1")
    assert code == 0, err
    row = report_rows(out)[("dot-product", "default", "scratchpad", 128)]
    assert row["paper_time_us"] == row["time_us"] == paper.runtime_us("dot-product", "scratchpad", 128)


# ---- the wheel ---------------------------------------------------------------------------------

@dataclass
class Installed:
    wheel: Path
    venv: Path
    src: Path  # the clean copy the wheel was built from
    env: dict[str, str]

    def run(self, tool: str, *argv: str, cwd: Path, stdin: str | None = None
            ) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.venv / "bin" / tool), *argv], cwd=cwd, env=self.env,
                              input=stdin, capture_output=True, text=True, timeout=120)


def clean_copy(dest: Path) -> None:
    """The files a fresh clone would have (tracked, plus new files not ignored), or, outside a git
    checkout, the tree less what .gitignore names."""
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others",
                             "--exclude-standard"], capture_output=True)
    if listed.returncode != 0:
        shutil.copytree(ROOT, dest, ignore=shutil.ignore_patterns(
            ".git", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache", ".hypothesis",
            ".venv", "*.tuples.json"))
        return
    for name in filter(None, listed.stdout.decode().split("\0")):
        file = ROOT / name
        if file.is_file():  # a tracked file deleted in the work tree is not in a clone
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, dest / name)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    top = tmp_path_factory.mktemp("install")
    src, wheels, venv, cwd = top / "src", top / "wheels", top / "venv", top / "cwd"
    cwd.mkdir()
    clean_copy(src)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSAFEPATH")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1", INCA_HISTORY="",
               PATH=f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    env.pop("INCA_PAPER_DIR", None)

    def pip(*argv: str) -> None:
        done = subprocess.run([sys.executable, "-m", "pip", *argv], cwd=cwd, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"pip {' '.join(argv)}\n{done.stdout}\n{done.stderr}"

    # no pip inside the venv (ensurepip takes seconds); this interpreter's pip installs into it
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, cwd=cwd)
    pip("wheel", "--no-deps", "-w", str(wheels), str(src))
    (wheel,) = wheels.glob("incac-*.whl")
    pip("--python", str(venv / "bin" / "python"), "install", str(wheel))
    return Installed(wheel, venv, src, env)


@pytest.fixture
def empty(tmp_path) -> Path:
    """An empty current folder for one command."""
    return tmp_path


def test_the_wheel_holds_every_package_and_its_data(installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for folder, package in ROOTS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            assert f"{package}/{init.relative_to(ROOT / folder).as_posix()}" in names, init
    for data in [*PACKAGED_PAPER.iterdir(), *(ROOT / "stdlib").glob("*.incaq"),
                 *(ROOT / "lang").glob("*.lark")]:
        folder, rest = data.relative_to(ROOT).as_posix().split("/", 1)
        assert f"{ROOTS[folder]}/{rest}" in names, data


def test_the_venv_imports_the_wheel_not_the_tree(installed, empty):
    done = subprocess.run([str(installed.venv / "bin" / "python"), "-c",
                           "import inca, inca.compiler.incaq, json; "
                           "print(json.dumps([list(inca.__path__), inca.compiler.incaq.__file__]))"],
                          cwd=empty, env=installed.env, capture_output=True, text=True, check=True)
    paths, incaq = json.loads(done.stdout)
    venv = str(installed.venv.resolve())
    assert paths and all(str(Path(p).resolve()).startswith(venv) for p in paths), paths
    assert str(Path(incaq).resolve()).startswith(venv)


@pytest.mark.parametrize("kernel", sorted(p.stem for p in (ROOT / "examples" / "kernels").glob("*.incaq")))
def test_installed_tools_compile_and_run_every_kernel(installed, empty, kernel, monkeypatch):
    source = str(installed.src / "examples" / "kernels" / f"{kernel}.incaq")
    done = installed.run("incac", source, "--payload", "128", "-o", "k.tuples.json", cwd=empty)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    done = installed.run("inca", "run", "k.tuples.json", "--seed", "1", "--json", cwd=empty)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    # the same as the editable install computes, and the same compiled bytes
    monkeypatch.chdir(empty)
    code, want, err = in_process(cli.main, "run", source, "--payload", "128", "--seed", "1", "--json")
    assert code == 0, err
    want = json.loads(want)
    for key in ("outputs", "instructions", "time_us"):
        assert got[key] == want[key], key
    code, out, err = in_process(driver.main, source, "--payload", "128", "-o", "-")
    assert code == 0 and out == (empty / "k.tuples.json").read_text(encoding="utf-8")


def test_installed_report_runs_from_an_empty_folder(installed, empty):
    done = installed.run("inca", "report", "--kernels-dir", str(installed.src / "examples" / "kernels"),
                         "--payloads", "128,8192", "--format", "csv", "-q", "-j", "2", cwd=empty)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    rows = report_rows(done.stdout)
    for kernel in EXACT:
        for profile in ("scratchpad", "base"):
            for p in (128, 8192):
                row = rows[(kernel, "default", profile, p)]  # the packaged figures, beside the model's
                assert row["paper_time_us"] == row["time_us"] == paper.runtime_us(kernel, profile, p)
                assert int(row["paper_instructions"]) == paper.instruction_count(kernel, p)
    assert str(installed.venv) not in done.stdout and list(empty.iterdir()) == []


def test_installed_repl_starts(installed, empty):
    done = installed.run("inca", "repl", cwd=empty, stdin="param N = 2\ninout V: f64[N]\nV[1] = 1.5\n")
    assert done.returncode == 0, done.stderr
    assert "V = [0.0, 1.5]" in done.stdout


def test_stdlib_code_compiles_to_the_same_bytes_in_every_install(installed, empty, tmp_path_factory,
                                                                  monkeypatch):
    """Stdlib locations are ``<stdlib>/NAME.incaq``: the wheel in its venv and the editable install
    in the source tree give the same -S and JSON bytes, with no path of either in them."""
    (empty / "k.incaq").write_text(STDLIB_KERNEL, encoding="utf-8")
    wheel_out = {}
    for flags in (["-S"], []):
        done = installed.run("incac", "k.incaq", *flags, "-o", "-", cwd=empty)
        assert done.returncode == 0, done.stderr
        wheel_out[bool(flags)] = done.stdout
    other = tmp_path_factory.mktemp("editable")
    (other / "k.incaq").write_text(STDLIB_KERNEL, encoding="utf-8")
    monkeypatch.chdir(other)
    for flags in (["-S"], []):
        code, out, err = in_process(driver.main, "k.incaq", *flags, "-o", "-")
        assert code == 0, err
        assert out == wheel_out[bool(flags)]
        for module in ("linalg", "memory", "reduce"):
            assert f"<stdlib>/{module}.incaq" in out
        for path in (ROOT, installed.venv, empty, other):
            assert str(path) not in out
