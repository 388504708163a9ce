"""Modules and the call graph: loading what a kernel ``use``s, and finding recursion.

A mixin of :class:`~inca.compiler.incaq.checker.Checker` (it reports through the checker's
``error`` and fills its ``funcs``), kept apart because it is about files and the call graph, not
about checking statements.
"""
from __future__ import annotations

from ... import stdlib
from ...lang.diagnostics import DiagnosticError, Source, short
from ...lang.userfiles import decode, os_reason, read_bytes
from .ast import Call, Func, Module, Use, nodes
from .tailcalls import tail_call_ids

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from pathlib import Path

BUILTINS = {"min": 2, "max": 2, "abs": 1, "i64": 1, "f64": 1}


class ModuleLoader:
    """Loads modules (each once) and detects call cycles."""

    def load_uses(self, module: Module, path: str) -> None:
        """Load every module a file uses (each once), collecting their functions."""
        for item in module.items:
            if isinstance(item, Use):
                from pathlib import Path  # (only a kernel that uses a module looks for files)

                self._use(item, Path(path).parent)
            elif isinstance(item, Func):
                self._add_func(item)

    def _use(self, use: Use, here: Path) -> None:
        found = self._find(use, here)
        if found is None:
            self.broken_modules = True
            return
        path, name = found
        key = str(path.resolve())
        if key in self.modules:
            return
        self.modules.add(key)
        from .parser import parse

        try:
            # the one bounded reader: a BOM is dropped, a bad byte is reported where it is
            src = Source(name, decode(read_bytes(str(path)), name))
        except DiagnosticError as e:
            if e.diagnostics[0].loc is not None:  # a bad byte, located in the module
                self.diags.extend(e.diagnostics)
            else:  # the file as a whole (too large, unreadable): said at the `use`
                self.error(use, f"cannot read module '{use.name}': {e.diagnostics[0].message}")
            self.broken_modules = True
            return
        self.sources[src.name] = src
        try:
            mod = parse(src)
        except DiagnosticError as e:
            self.diags.extend(e.diagnostics)
            self.broken_modules = True  # its functions are missing: calls to them say nothing more
            return
        for item in mod.items:
            if not isinstance(item, (Use, Func)):
                self.error(item, f"module '{use.name}' may only define functions and use modules")
        self.load_uses(mod, str(path))  # its own uses are looked for beside the real file

    def _find(self, use: Use, here: Path) -> tuple[Path, str] | None:
        """The file of a used module and the name its source locations carry: the path as found
        for the user's folders (relative stays relative), ``<stdlib>/NAME.incaq`` for the standard
        library, whose installed path must not reach the output. Not found is an error at the use."""
        from pathlib import Path

        file = f"{use.name}.incaq"
        library = Path(stdlib.FOLDER)
        for folder in (here, *map(Path, self.include), library):
            path = folder / file
            try:
                if path.is_file():
                    return path, stdlib.PREFIX + file if folder is library else str(path)
            except OSError as e:  # e.g. a name longer than the file system allows
                self.error(use, f"cannot look for module '{short(use.name)}': {os_reason(e)}")
                return None
        self.error(use, f"module '{short(use.name)}' not found",
                   f"looked for {short(file)} in {here}, the -I folders and the stdlib")
        return None

    def _add_func(self, f: Func) -> None:
        if f.name in BUILTINS:
            self.error(f, f"'{f.name}' is a builtin function and cannot be redefined",
                       f"name yours differently, e.g. '{self._free_name(f.name)}'")
        elif f.name in self.funcs:
            prev = self.funcs[f.name].loc
            self.error(f, f"function '{f.name}' is defined twice",
                       f"first defined at {prev.file}:{prev.line}")
        else:
            self.funcs[f.name] = f

    def _free_name(self, builtin: str) -> str:
        """A function name like ``builtin`` that no function of the program has (for a hint)."""
        for name in (f"my_{builtin}", f"{builtin}2", f"user_{builtin}"):
            if name not in self.funcs:
                return name
        return f"{builtin}_"

    # ---- recursion -----------------------------------------------------------------------

    def find_recursion(self) -> None:
        """Report every call cycle (the NIC has no call stack; functions are inlined), except a
        function calling itself only in tail calls, which become loops (see tailcalls.py)."""
        self.tail_ids = set()
        graph = {}
        for name, f in self.funcs.items():
            tails = tail_call_ids(f)
            self.tail_ids |= tails
            graph[name] = sorted((calls_in(f.body) & set(self.funcs)) - {name})
            other = next((n for n in nodes(f.body) if isinstance(n, Call) and n.func == name
                          and id(n) not in tails), None)
            if other is not None:
                self.recursive.add(name)
                self.error(other, f"'{name}' calls itself here, and not as a tail call",
                           f"only a self call in tail position (return {name}(...)) becomes a loop; "
                           "other recursion cannot be inlined (the NIC has no call stack)")
        state: dict[str, int] = {}
        reported: set[frozenset] = set()
        for name in graph:
            if name not in state:
                self._visit(name, [], graph, state, reported)

    def _visit(self, n: str, path: list[str], graph: dict[str, list[str]], state: dict[str, int],
               reported: set[frozenset]) -> None:
        """The depth-first search of :meth:`find_recursion` from function ``n`` (a method, not a
        closure: a nested function that calls itself is a reference cycle, which kept the whole
        syntax tree alive until the cyclic collector found it)."""
        state[n] = 1
        path.append(n)
        for m in graph[n]:
            if state.get(m) == 1:
                cycle = path[path.index(m):] + [m]
                self.recursive.update(cycle)
                if frozenset(cycle) not in reported:
                    reported.add(frozenset(cycle))
                    self.error(self.funcs[m], "recursion is not supported: " + " -> ".join(cycle),
                               "functions are inlined (the NIC has no call stack); rewrite the "
                               "recursion as a loop")
            elif state.get(m) is None:
                self._visit(m, path, graph, state, reported)
        path.pop()
        state[n] = 2


def calls_in(node) -> set[str]:
    """Names of every function called anywhere inside a node."""
    return {n.func for n in nodes(node) if isinstance(n, Call)}
