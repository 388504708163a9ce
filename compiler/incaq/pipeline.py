"""INCA-Q text to an INCA-A program: parse, check (with inlining), lower.

Each stage is a function from one plain data type to the next (``incac --emit ast`` prints the
first). Optimisation levels above -O0 currently produce the -O0 program (``incac --help`` says so).
"""
from __future__ import annotations

from ...lang.diagnostics import Source
from ...lang.gcpause import collector_paused
from ...lang.program import Program
from .ast import Module
from .checker import check
from .lower import lower
from .parser import parse


def compile_module(module: Module, src: Source, defines: dict[str, int] | None = None,
                   include: tuple[str, ...] = (), clobber: bool = False) -> Program:
    """Check and lower a parsed kernel."""
    with collector_paused():
        return lower(check(module, src, defines, include, clobber), src.name, clobber)


def compile_source(src: Source, defines: dict[str, int] | None = None, include: tuple[str, ...] = (),
                   clobber: bool = False) -> Program:
    """Compile INCA-Q text at -O0."""
    with collector_paused():
        return compile_module(parse(src), src, defines, include, clobber)
