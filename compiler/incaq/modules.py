"""Modules and the call graph: loading what a kernel ``use``s, and finding recursion.

A mixin of :class:`~inca.compiler.incaq.checker.Checker` (it reports through the checker's
``error`` and fills its ``funcs``), kept apart because it is about files and the call graph, not
about checking statements.
"""
from __future__ import annotations

from pathlib import Path

from ...lang.diagnostics import DiagnosticError, Source
from .ast import Call, Func, Module, Use, nodes

BUILTINS = {"min": 2, "max": 2, "abs": 1, "i64": 1, "f64": 1}


class ModuleLoader:
    """Loads modules (each once) and detects call cycles."""

    def load_uses(self, module: Module, path: str) -> None:
        """Load every module a file uses (each once), collecting their functions."""
        for item in module.items:
            if isinstance(item, Use):
                self._use(item, Path(path).parent)
            elif isinstance(item, Func):
                self._add_func(item)

    def _use(self, use: Use, here: Path) -> None:
        from importlib import resources

        stdlib = Path(str(resources.files("inca.stdlib")))
        for folder in (here, *map(Path, self.include), stdlib):
            path = folder / f"{use.name}.incaq"
            if path.is_file():
                break
        else:
            self.error(use, f"module '{use.name}' not found",
                       f"looked for {use.name}.incaq in {here or '.'}, the -I folders and the stdlib")
            self.broken_modules = True
            return
        key = str(path.resolve())
        if key in self.modules:
            return
        self.modules.add(key)
        from .parser import parse

        src = Source(str(path), path.read_text(encoding="utf-8"))
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
        self.load_uses(mod, str(path))

    def _add_func(self, f: Func) -> None:
        if f.name in BUILTINS:
            self.error(f, f"'{f.name}' is a builtin function and cannot be redefined",
                       f"give yours another name, e.g. my_{f.name}")
        elif f.name in self.funcs:
            prev = self.funcs[f.name].loc
            self.error(f, f"function '{f.name}' is defined twice",
                       f"first defined at {prev.file}:{prev.line}")
        else:
            self.funcs[f.name] = f

    # ---- recursion -----------------------------------------------------------------------

    def find_recursion(self) -> None:
        """Report every call cycle (the NIC has no call stack; functions are inlined).

        A function that calls itself only in tail position is not a cycle: its body becomes a
        loop (``tail_recursive``). A self call elsewhere is reported where it is written.
        """
        from .control import tail_calls

        graph = {name: sorted(calls_in(f.body) & set(self.funcs)) for name, f in self.funcs.items()}
        for name, f in self.funcs.items():
            if name not in graph[name]:
                continue
            tails = tail_calls(f)
            others = [c for c in nodes(f.body) if isinstance(c, Call) and c.func == name
                      and id(c) not in tails]
            for c in others:
                self.error(c, f"'{name}' calls itself here, and not as a tail call",
                           "functions are inlined (the NIC has no call stack); only a self call "
                           f"whose value is returned at once (return {name}(...)) becomes a loop")
            if others:
                self.recursive.add(name)
            else:
                self.tail_recursive.add(name)
            graph[name].remove(name)
        state: dict[str, int] = {}
        reported: set[frozenset] = set()

        def visit(n: str, path: list[str]) -> None:
            state[n] = 1
            path.append(n)
            for m in graph[n]:
                if state.get(m) == 1:
                    cycle = path[path.index(m):] + [m]
                    self.recursive.update(cycle)
                    if frozenset(cycle) not in reported:
                        reported.add(frozenset(cycle))
                        self.error(self.funcs[m], "recursion is not supported: "
                                   + " -> ".join(cycle), "functions are inlined (the NIC has no "
                                   "call stack); rewrite the recursion as a loop")
                elif state.get(m) is None:
                    visit(m, path)
            path.pop()
            state[n] = 2

        for name in graph:
            if name not in state:
                visit(name, [])


def calls_in(node) -> set[str]:
    """Names of every function called anywhere inside a node."""
    return {n.func for n in nodes(node) if isinstance(n, Call)}
