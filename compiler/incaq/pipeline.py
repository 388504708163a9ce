"""INCA-Q text to an INCA-A program: parse, check (with inlining), lower.

Each stage is a function from one plain data type to the next (``incac --emit ast`` prints the
first). Optimisation levels above -O0 currently produce the -O0 program (``incac --help`` says so).
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator

from ...lang.diagnostics import Source
from ...lang.program import Program
from .ast import Module
from .checker import check
from .lower import lower
from .parser import parse


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for one compilation.

    Compiling builds large trees of objects that all stay alive until it ends (and makes next to
    no garbage cycles), so every collection the allocations trigger rescans all of them: that
    made compile time grow faster than the program (14x from 1,000 to 10,000 statements). The
    collector is restored, not run, afterwards; any cycle left is collected at its next run.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def compile_module(module: Module, src: Source, defines: dict[str, int] | None = None,
                   include: tuple[str, ...] = (), clobber: bool = False) -> Program:
    """Check and lower a parsed kernel."""
    with _collector_paused():
        return lower(check(module, src, defines, include, clobber), src.name, clobber)


def compile_source(src: Source, defines: dict[str, int] | None = None, include: tuple[str, ...] = (),
                   clobber: bool = False) -> Program:
    """Compile INCA-Q text at -O0."""
    with _collector_paused():
        return compile_module(parse(src), src, defines, include, clobber)
