"""The valid inputs the fuzzer mutates, and the scratch folder where every input runs.

The workspace is a temporary folder holding a copy of ``examples/`` (so relative paths in seeds
and the tools' defaults, ``examples/kernels`` for ``inca report``, resolve inside it), the
examples compiled to tuple JSON, an input file for ``@file.json`` and a plain file used as a
folder that cannot hold an output. Tools run with this folder as their working directory, and
:meth:`Workspace.confine` rewrites every argument that would reach outside it, so a fuzzed
command line can neither write nor overwrite anything of the user's.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from inca.compiler.driver import main as incac_main

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ("incaq", "incaa", "json", "repl", "cli")

# Values that command-line options are fuzzed with, beside the number pool of mutators.py.
PATHS = ("examples/asm/dot-product.incaa", "examples/kernels/dot-product.incaq",
         "json/dot-product.json", "json/matrix-transpose.json", "examples", "examples/kernels",
         "missing/x.incaa", "nothere.json", "afile/out.json", "afile", "-", "/dev/null", "out.json",
         "out.svg", "out.png", "out.pdf", "out.txt", "k.txt", "examples/asm/dot-product.incaa",
         "inputs/a.json", "", ".", "..", "examples/kernels/dot-product.tuples.json")
WORDS = ("N=4", "N=" + "9" * 70, "PAYLOAD=64", "A=1,2,3", "A=@inputs/a.json", "A=@missing.json",
         "A=@afile", "A=1e999", "A=nan", "A=", "=", "x", "link_gbps=400", "m=0", "elem_gap=1/3",
         "scratchpad_bytes=" + "1" * 30, "L=-1", "msg_bits=1e999", "base", "scratchpad-400g",
         "nope", "prof.toml", "examples", "dot-product", "all", "dot-product,filter", ",,,",
         "default", "clobber", "table", "csv", "json", "markdown", "asm", "tuples", "ast",
         "128", "128,256", "0", "8000000000000", "2", "1", "A" * 100000, "--", "-x", "\u00e9",
         "llvm", "python", "reference", "auto", "stripmine", "vectorise,dce", "0.5", "1e-3")


def _options(parser: argparse.ArgumentParser) -> tuple[str, ...]:
    """Every option string a parser (not its subcommands) accepts."""
    return tuple(sorted(o for a in parser._actions if not isinstance(a, argparse._SubParsersAction)
                        for o in a.option_strings))


def _tool_options() -> dict[str, tuple[str, ...]]:
    """The options of each tool, read from its own parser, so that an option added to a tool is
    fuzzed too (``--verify`` was not, and a loop whose count is an input ended it in a
    RecursionError); and one no parser knows."""
    from inca.compiler.driver import build_parser as incac_parser
    from inca.interpreter.cli import build_parser as inca_parser

    sub = next(a for a in inca_parser()._actions if isinstance(a, argparse._SubParsersAction))
    out = {"incac": _options(incac_parser()) + ("--bogus",)}
    out.update((name, _options(sub.choices[name])) for name in ("run", "report", "repl"))
    return out


OPTIONS = _tool_options()

CLI_SEEDS = {
    "incac": [["examples/asm/dot-product.incaa", "-o", "out.json"],
              ["examples/asm/dot-product.incaa", "-S", "-D", "N=4"],
              ["examples/kernels/filter.incaq", "--emit", "ast"],
              ["examples/asm/matrix-multiplication.incaa", "-D", "R=4", "-D", "C=4", "--stats",
               "-o", "/dev/null"],
              ["json/dot-product.json", "--emit", "tuples"],
              ["examples/kernels/dot-product.incaq", "--payload", "64", "--clobber", "-O", "2"],
              ["examples/optimiser/scale.incaq", "-O", "2", "--verify", "--verify-timeout", "5"],
              ["examples/optimiser/jacobi.incaq", "-O2", "--remarks", "--print-after", "stripmine"],
              ["--isa"], ["--version"]],
    "run": [["run", "examples/asm/dot-product.incaa", "--seed", "1"],
            ["run", "examples/asm/dot-product.incaa", "-D", "N=4", "--input", "A=1,2,3,4",
             "--input", "B=1,1,1,1", "--json"],
            ["run", "examples/kernels/dot-product.incaq", "--payload", "64", "--profile", "base",
             "--param", "link_gbps=400", "--trace"],
            ["run", "json/dot-product.json", "--input", "A=@inputs/a.json", "--max-steps", "100"],
            ["run", "examples/kernels/matrix-transpose.incaq", "--profile", "prof.toml"],
            ["run", "examples/optimiser/scale.incaq", "-O2", "--engine", "python", "--seed", "1"]],
    "report": [["report", "--kernels", "dot-product", "--payloads", "128", "--profiles",
                "scratchpad", "--variants", "default", "-q"],
               ["report", "--kernels", "filter", "--payloads", "128,256", "--format", "csv",
                "-o", "out.txt", "-q"],
               ["report", "--kernels", "dot-product", "--payloads", "128", "--format", "json",
                "--profiles", "scratchpad-400g,base", "--paper", "examples"]],
    "repl": [["repl"], ["repl", "examples/kernels/dot-product.incaq"],
             ["repl", "--profile", "base", "--max-steps", "1000", "json/dot-product.json"]],
}
INPUT_JSON = "[1, 2.5, -3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]\n"
PROFILE_TOML = 'kind = "scratchpad"\nlink_gbps = 400\n'
# Lines for REPL scripts: the commands of docs/repl.md with arguments, statements of both modes.
REPL_POOL = [
    ":help", ":help load", ":load examples/kernels/dot-product.incaq PAYLOAD=64",
    ":load examples/asm/dot-product.incaa N=4", ":load json/dot-product.json", ":load missing.incaq",
    ":load examples", ":set A 1,2,3,4,5,6,7,8", ":set A @inputs/a.json", ":set x 2.5", ":run",
    ":step", ":step 3", ":step 0", ":step -1", ":break 5", ":break 17", ":break", ":unbreak 5",
    ":unbreak", ":continue", ":pc", ":mem", ":mem A", ":mem nope", ":tuples", ":listing",
    ":profile", ":profile base", ":profile scratchpad link_gbps=400", ":profile x m=0", ":stats",
    ":reset", ":asm", ":incaq", ":{", ":}", ":q", "x = 3", "x = x + 1", "param N = 4",
    "inout V: f64[N]", "var v: i64[2]", "func sq(v: f64) -> f64 { return v * v }",
    "for k in 0 .. N do { V[k] = sq(f64(k)) }", "while i < 3 do {", "  i = i + 1", "}",
    "do {", "} while i < 6", "while i > 0", "loop {", "break", "continue", "ok = i > 1 and not i == 2",
    "m = if i > 2 then i else -i", "func inc(inout n: i64) { n = n + 1 }", "inc(i)",
    "use linalg", "use reduce", "use nope", "dot(V, V, 4)", "V[9] = 1.0", "V", "max(V[1], V[2])",
    ".var acc f64", ".input Q i64[4]", "PUTL j, 0", "ADD acc, acc, V[j]", "END", "JMP 1",
]


@dataclass
class Workspace:
    """A scratch folder with the seeds' files; tools run inside it."""

    root: Path
    pristine: dict[Path, tuple[bytes, int]] = field(default_factory=dict)

    @classmethod
    def create(cls, parent: Path) -> "Workspace":
        root = Path(parent).resolve()
        shutil.copytree(ROOT / "examples", root / "examples", dirs_exist_ok=True)
        for d in ("json", "inputs"):
            (root / d).mkdir(exist_ok=True)
        (root / "inputs" / "a.json").write_text(INPUT_JSON)
        (root / "prof.toml").write_text(PROFILE_TOML)
        (root / "afile").write_text("a plain file: no output can be written under it\n")
        (root / "k.txt").write_text("not a program\n")
        for src in sorted((root / "examples").rglob("*.inca[aq]")):
            out = root / "json" / (src.stem + ".json")
            if not out.exists():
                incac_main([str(src), "-o", str(out)])
        ws = cls(root)
        ws.pristine = {p: (p.read_bytes(), p.stat().st_mtime_ns)
                       for p in sorted(root.rglob("*")) if p.is_file()}
        return ws

    def restore(self) -> None:
        """Put back any seed file a fuzzed command overwrote (``incac X.incaa -o X.incaa`` must
        be refused, but if a bug lets it through, later inputs must still see the seeds)."""
        for path, (data, mtime) in self.pristine.items():
            try:
                if path.stat().st_mtime_ns == mtime:
                    continue
            except OSError:
                pass
            path.write_bytes(data)
            self.pristine[path] = (data, path.stat().st_mtime_ns)

    def confine(self, argv: list[str]) -> list[str]:
        """Rewrite every argument (and the part after ``=`` or ``@``) that names a place outside
        the workspace to a name inside it: tools write next to their input (``incac``'s default
        output) and to ``-o``/``--plot``, and any argument may have been mutated into a path."""
        out = []
        for arg in argv:
            parts = re.split(r"([=@])", arg)
            out.append("".join(p if p in ("=", "@") else self._inside(p) for p in parts))
        return out

    def _inside(self, text: str) -> str:
        if text in ("", "-", "/dev/null") or "\0" in text:
            return text
        try:
            real = os.path.realpath(os.path.join(self.root, os.path.expanduser(text)))
        except (ValueError, OSError):
            return "outside"
        if real == str(self.root) or real.startswith(str(self.root) + os.sep):
            return text
        return "outside"


def corpus(ws: Workspace, target: str) -> list[bytes]:
    """The valid files a file target mutates: the examples, or their compiled JSON."""
    pattern = {"incaq": "examples/**/*.incaq", "incaa": "examples/**/*.incaa",
               "json": "json/*.json"}[target]
    return [ws.pristine[p][0] for p in sorted(ws.root.glob(pattern))]


def repl_scripts() -> list[list[str]]:
    """REPL scripts: the transcript of docs/repl.md (input lines only) and a few sessions."""
    doc = (ROOT / "docs" / "repl.md").read_text(encoding="utf-8")
    transcript = [line[7:] for line in doc.splitlines()
                  if line.startswith(("incaq> ", "incaa> ", "  ...> "))]
    return [transcript,
            [":load examples/kernels/dot-product.incaq PAYLOAD=64", ":set A @inputs/a.json",
             ":set B 1,1,1,1,1,1,1,2", ":break 17", ":run", ":pc", ":step 3", ":mem", ":continue",
             ":stats", "c * 2.0", ":tuples", ":listing"],
            ["use linalg", "inout V: f64[3]", ":set V 1,2,3", "dot(V, V, 3)", "scale(2.0, V, 3)",
             ":profile base", ":stats", ":reset", ":mem"],
            [":asm", ".var acc i64 = 5", ".inout V i64[4]", "PUTL V[0:4], 3", ":{", "  PUTL j, 0",
             "top:", "  ADD acc, acc, V[j]", "  ADD j, j, 1", "  PUTL r0, j", "  LT r0, r0, 4",
             "  BLEZ r0, done", "  JMP top", "done:", "  END", ":}", ":incaq", "acc + 1"]]


def cli_value(rng: random.Random) -> str:
    """A value for a fuzzed option: a path, a word or a number."""
    from .mutators import pick_number

    return rng.choice((rng.choice(PATHS), rng.choice(WORDS), pick_number(rng)))
