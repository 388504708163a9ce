"""The package's import graph: dependencies point one way.

Every import of every module of the ``inca`` package is read from its syntax tree, those inside
functions (lazy imports) and under ``if TYPE_CHECKING`` included, since each still ties the two
modules together. The graph must have no circle; the REPL's terminal front end is imported by the
command line only; the NIC API sits below the engine; and the REPL reaches the INCA-Q compiler
through its incremental interface only, never its syntax tree.
"""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# the folders setup.py maps into the ``inca`` namespace
PACKAGES = {"inca.lang": "lang", "inca.compiler": "compiler", "inca.interpreter": "interpreter",
            "inca.stdlib": "stdlib"}


def _modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package is its ``__init__``)."""
    out = {}
    for package, folder in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join((package, *parts))] = path
    return out


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """The package's modules that module ``name`` imports, anywhere in its text."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[:len(base) - node.level + 1] if node.level else []
            target = ".".join(base + (node.module.split(".") if node.module else []))
            found.add(target)
            # ``from pkg import mod`` imports the module pkg.mod
            found.update(f"{target}.{a.name}" for a in node.names)
    return {m for m in found if m in MODULES and m != name}


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (its modules in order, the first repeated), or None."""
    state: dict[str, str] = {}  # absent: not seen; "open": on the current path; "done"
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = "open"
        path.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == "open":
                return path[path.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        path.pop()
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_graph_reads_lazy_relative_and_type_checking_imports():
    # the checks below are only as good as the graph: make sure it sees every kind of import
    assert "inca.interpreter.session" in GRAPH["inca.interpreter.repl"]  # from .session import
    assert "inca.interpreter.repl" in GRAPH["inca.interpreter.cli"]  # lazy, inside main()
    assert "inca.compiler.incaq.pipeline" in GRAPH["inca.compiler.frontend"]  # lazy
    assert "inca.lang" in GRAPH["inca.interpreter.repl"]  # from ..lang import __version__


def test_cycle_finder_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_package_has_no_import_circle():
    cycle = _cycle(GRAPH)
    assert cycle is None, "import circle: " + " -> ".join(cycle)


def test_only_the_command_line_imports_the_repl_front_end():
    importers = {m for m, deps in GRAPH.items() if "inca.interpreter.repl" in deps}
    assert importers == {"inca.interpreter.cli"}


@pytest.mark.parametrize("below, above", [
    ("inca.interpreter.nic", "inca.interpreter.engine"),  # the engine takes a NIC
    ("inca.interpreter.stepper", "inca.interpreter.debugger"),  # a run knows nothing of the REPL
    ("inca.interpreter.protocol", "inca.interpreter.session"),
])
def test_layers_point_down(below, above):
    assert below in GRAPH[above]
    assert not _reaches(below, above), f"{below} reaches {above}"


def _reaches(start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        if m == goal:
            return True
        if m not in seen:
            seen.add(m)
            todo.extend(GRAPH[m])
    return False


def test_the_repl_reaches_the_incaq_compiler_through_its_incremental_interface_only():
    incaq = "inca.compiler.incaq."
    for m in (m for m in GRAPH if m.startswith("inca.interpreter.")):
        used = {d for d in GRAPH[m] if d.startswith(incaq)}
        assert used <= {incaq + "incremental"}, f"{m} imports {sorted(used)}"


def test_running_a_short_kernel_leaves_the_heavy_modules_unimported():
    # the start of every command: a valid kernel parses on the fast path (no lark), a short run
    # stays on the reference (no code generator, no llvmlite), a preset profile needs no TOML,
    # records are made without dataclasses (with inspect, 6-7 ms of every start), and json and
    # threading are imported only where used (about 2 ms)
    heavy = ("lark", "llvmlite", "inca.interpreter.pygen", "inca.interpreter.llvmgen", "tomllib",
             "concurrent.futures.process", "z3", "dataclasses", "inspect", "json", "threading")
    for kernel in (ROOT / "examples" / "kernels" / "dot-product.incaq",
                   ROOT / "examples" / "asm" / "dot-product.incaa"):
        code = (f"import sys\nfrom inca.interpreter import cli\n"
                f"assert cli.main(['run', {str(kernel)!r}, '--seed', '1']) == 0\n"
                f"print([m for m in {heavy!r} if m in sys.modules])")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert out.stdout.splitlines()[-1] == "[]", kernel.name


def test_no_module_imports_dataclasses_but_frozen_on_demand():
    # @frozen and @record make the records; lang/frozen imports dataclasses only when asked for
    # what it says of a record, or to raise its FrozenInstanceError
    importers = set()
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import) and any(a.name == "dataclasses" for a in node.names) \
                    or isinstance(node, ast.ImportFrom) and node.module == "dataclasses":
                importers.add(name)
    assert importers == {"inca.lang.frozen"}


@pytest.mark.parametrize("level, loaded", [("-O0", []), ("-O2", ["inca.compiler.opt.pipeline"])])
def test_compiling_imports_the_optimiser_only_when_it_runs(level, loaded, tmp_path):
    # and -O2 of a paper kernel needs no z3: the dependence questions are read off the indices
    kernel = ROOT / "examples" / "kernels" / "matrix-multiplication.incaq"
    watched = ("inca.compiler.opt.pipeline", "z3", "lark", "dataclasses")
    code = (f"import sys\nfrom inca.compiler import driver\n"
            f"assert driver.main([{str(kernel)!r}, {level!r}, '-o', {str(tmp_path / 'k.json')!r}]) == 0\n"
            f"print([m for m in {watched!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == str(loaded)


def test_the_start_and_a_run_leave_pathlib_unimported(tmp_path):
    # pathlib (with urllib.parse and ipaddress) is 18 M instructions of every start: files are
    # named with os.path where every command passes, pathlib is imported where a module is looked
    # for or an output checked. The package is imported from a folder of links with `python -S`,
    # as from a wheel: an editable install's import hook imports pathlib itself.
    package = tmp_path / "inca"
    package.mkdir()
    for part in ("lang", "compiler", "interpreter", "stdlib"):
        (package / part).symlink_to(ROOT / part, target_is_directory=True)
    kernel = ROOT / "examples" / "kernels" / "dot-product.incaq"
    code = ("import sys\nfrom inca.interpreter import cli\n"
            "try:\n    cli.main(['--version'])\nexcept SystemExit:\n    pass\n"
            "before = 'pathlib' in sys.modules\n"
            f"assert cli.main(['run', {str(kernel)!r}, '--seed', '1']) == 0\n"
            "print(before, 'pathlib' in sys.modules)")
    out = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                         timeout=60, env={"PYTHONPATH": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == "False False"
