"""INCA-Q text to an INCA-A program: parse, check (with inlining), optimise, lower.

Each stage is a function from one plain data type to the next (``incac --emit ast`` prints the
first). At -O0 the checked kernel is lowered by the spec's rules (lower.py); above it the
optimiser's passes run first and its own lowering follows (``compiler/opt``).
"""
from __future__ import annotations

from ...lang.diagnostics import Source
from ...lang.gcpause import collector_paused
from ...lang.program import Program
from .ast import Module, deepest
from .checker import check
from .lower import lower
from .parser import parse


#: The optimiser's passes walk expressions recursively; a kernel whose statements nest deeper than
#: this (a chain of 1,000 operators is a tree 1,000 deep) is compiled as at -O0, with a remark.
OPT_MAX_DEPTH = 250


def compile_module(module: Module, src: Source, defines: dict[str, int] | None = None,
                   include: tuple[str, ...] = (), clobber: bool = False, level=None,
                   trace=None) -> Program:
    """Check, optimise (``level``, an :class:`inca.compiler.opt.pipeline.Level`; None is -O0)
    and lower a parsed kernel; ``trace`` collects remarks and printed stages."""
    with collector_paused():
        checked = check(module, src, defines, include, clobber)
        if level is None or level.opt == 0:
            return lower(checked, src.name, clobber)
        depth, where = deepest(checked.body)
        if depth > OPT_MAX_DEPTH:
            if trace is not None:
                trace.remarks.pass_name = "optimise"
                trace.remarks.missed(where, f"kernel not optimised: a statement nests {depth} "
                                     f"levels deep (the optimiser takes {OPT_MAX_DEPTH}); "
                                     "compiled as at -O0")
            return lower(checked, src.name, clobber)
        from ..opt.lower import lower as lower_opt

        kernel, aliases = optimised(checked, clobber, level, trace)
        return lower_opt(kernel.checked(), src.name, kernel.inplace, aliases)


def optimised(checked, clobber: bool, level, trace=None):
    """The optimiser's kernel (``compiler.opt.ir.Kernel``) for a checked one, and the outputs
    --clobber stores in inputs: the plan of what --clobber may overwrite is made first, on the
    source's own code (``compiler/incaq/clobber.py``)."""
    from ..opt.lower import plan_clobber
    from ..opt.pipeline import optimise

    inplace, aliases = frozenset(), ()
    if clobber:
        checked, inplace, aliases = plan_clobber(checked)
    return optimise(checked, level, trace, inplace), aliases


def compile_source(src: Source, defines: dict[str, int] | None = None, include: tuple[str, ...] = (),
                   clobber: bool = False, level=None, trace=None) -> Program:
    """Compile INCA-Q text (at -O0 unless ``level`` says otherwise)."""
    with collector_paused():
        return compile_module(parse(src), src, defines, include, clobber, level, trace)
