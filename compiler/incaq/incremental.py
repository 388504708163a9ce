"""INCA-Q compiled a chunk at a time, each in the context of what earlier chunks defined.

This is the compiler's interface for the REPL (and anything else that feeds INCA-Q piecemeal):
:func:`compile_chunk` takes one chunk's text and a :class:`Context` (the locations, params,
functions and modules in force) and returns a :class:`Chunk`: the lowered program and what the
context becomes once it runs. The caller never sees a syntax tree; functions and modules travel
in :class:`Definitions`, which it holds and passes back without looking inside.

How: the chunk is parsed alone, as its own source (so carets point at the text as typed); the
context's params, locations and functions are put in front of it as syntax-tree nodes, and the
whole is checked and lowered like a kernel file. A bare expression ``e`` is compiled as
``it = e`` (``it_``, ... when ``it`` is taken), and diagnostics are pointed back at ``e``.
"""
from __future__ import annotations

from typing import Iterable, Mapping

from ...lang.diagnostics import Diagnostic, DiagnosticError, Source
from ...lang.frozen import field, frozen, replace
from ...lang.program import Decl, Program
from .ast import (Assign, CallStmt, DoWhile, For, Func, If, Loop, Module, Name, Num, Param, TypeRef,
                  Use, VarDecl, While)
from .checked import Sym, initial_value
from .checker import BUILTINS, Checker
from .lower import lower
from .parser import KEYWORDS, parse

#: Words INCA-Q gives a meaning of its own (keywords and builtin functions), for completion.
RESERVED = frozenset(KEYWORDS) | frozenset(BUILTINS)

@frozen
class Definitions:
    """The functions and ``use``d modules in force, by name (opaque to the caller)."""

    funcs: Mapping[str, Func] = field(default_factory=dict)
    uses: Mapping[str, Use] = field(default_factory=dict)

    @property
    def functions(self) -> tuple[str, ...]:
        """The names of the functions defined in the chunks themselves."""
        return tuple(self.funcs)


@frozen
class Context:
    """What a chunk is compiled in: the locations and params in force (their values live
    elsewhere: the program reads them from memory), the definitions, the earlier chunks' sources
    (diagnostics about a function quote the chunk that defined it) and the module search path."""

    decls: Mapping[str, Decl] = field(default_factory=dict)
    params: Mapping[str, int] = field(default_factory=dict)
    defs: Definitions = Definitions()
    sources: Mapping[str, Source] = field(default_factory=dict)
    include: tuple[str, ...] = ()


@frozen
class Chunk:
    """One chunk, compiled, and what the context becomes once it has run."""

    program: Program
    #: The locations held after the chunk: those it declares or assigns outside functions (also
    #: in its loops and branches, and its loop variables) and the context's, each with its
    #: initial value in its own type. The compiler's temporaries and inlined locals are not here.
    locations: Mapping[str, Decl]
    params: Mapping[str, int]  # every param in force afterwards
    defs: Definitions
    fresh: frozenset[str] = frozenset()  # declared again: they start from their initial value
    result: str | None = None  # the hidden location a bare expression's value is left in
    shift: int = 0  # columns the text was moved right by (``it = `` in front of an expression)

    def as_typed(self, diagnostics: Iterable[Diagnostic], src: Source) -> list[Diagnostic]:
        """Diagnostics about the chunk (a runtime fault, say) pointed at the text as typed."""
        return _unshift(diagnostics, src, self.shift)


def compile_chunk(src: Source, context: Context = Context(), defines: Mapping[str, int] | None = None,
                  expressions: bool = True) -> Chunk:
    """Compile the INCA-Q text ``src`` in ``context``; raises DiagnosticError.

    ``defines`` set params as ``incac -D`` does. With ``expressions``, a line that reads as an
    expression (and not as statements), or a lone call of a function that returns a value, is
    compiled as ``it = e``; without it (a kernel file) the text is statements only.
    """
    module, expr, shift = _parse(src, context, expressions)
    items = module.items
    declared, introduced = _top_names(items)
    params = {i.name for i in items if isinstance(i, Param)}
    funcs = {i.name: i for i in items if isinstance(i, Func)}
    uses = {i.name: i for i in items if isinstance(i, Use)}
    defs = context.defs
    # what the chunk declares again replaces the context's declaration
    prelude: list = [u for n, u in defs.uses.items() if n not in uses]
    prelude += [Param(n, Num(v, False)) for n, v in context.params.items()
                if n not in params | declared]
    prelude += [_decl_node(d) for n, d in context.decls.items() if n not in params | declared]
    prelude += [f for n, f in defs.funcs.items() if n not in funcs]
    sources = {**context.sources, src.name: src}
    try:
        checked = Checker(sources, dict(defines or {}), context.include).run(
            Module(tuple(prelude) + items), src.name)
    except DiagnosticError as e:
        raise DiagnosticError(_unshift(e.diagnostics, src, shift)) from None
    top = (declared | introduced | set(context.decls)) - params - {expr}
    locations = {s.name: _decl(s) for s in checked.symbols if s.name in top}
    return Chunk(lower(checked, src.name), locations, dict(checked.params),
                 Definitions({**defs.funcs, **funcs}, {**defs.uses, **uses}), frozenset(declared),
                 expr, shift)


def _parse(src: Source, context: Context, expressions: bool) -> tuple[Module, str | None, int]:
    """The chunk's syntax tree; a bare expression ``e`` is parsed as ``it = e``."""
    try:
        module = parse(src)
    except DiagnosticError as first:
        if not expressions or "\n" in src.text.strip():
            raise
        try:
            return _parse_expr(src, context)
        except DiagnosticError as second:  # report the reading that got further
            raise (second if _reach(second) > _reach(first) else first) from None
    items = module.items
    if (expressions and len(items) == 1 and isinstance(items[0], CallStmt)
            and _returns(items[0].call.func, src, context)):
        return _parse_expr(src, context)
    return module, None, 0


def _returns(name: str, src: Source, context: Context) -> bool:
    """Whether the function a lone call statement calls returns a value (to show it)."""
    if name in BUILTINS:
        return True
    funcs = context.defs.funcs
    if name not in funcs:  # perhaps from a module the context uses
        checker = Checker({src.name: src}, {}, context.include)
        checker.load_uses(Module(tuple(context.defs.uses.values())), src.name)
        funcs = checker.funcs
    return name in funcs and funcs[name].ret is not None


def _parse_expr(src: Source, context: Context) -> tuple[Module, str, int]:
    name = "it"
    while name in context.decls or name in context.params:
        name += "_"
    prefix = f"{name} = "
    try:
        return parse(Source(src.name, prefix + src.text)), name, len(prefix)
    except DiagnosticError as e:
        raise DiagnosticError(_unshift(e.diagnostics, src, len(prefix))) from None


def _decl(s: Sym) -> Decl:
    """A checked symbol as a location (its initial value in its own type)."""
    init = initial_value(s)
    return Decl(s.name, s.role, s.dtype, tuple(s.shape), init, default=s.default)


def _decl_node(d: Decl) -> VarDecl:
    """A location in force as a declaration to prepend to a chunk (its value is in memory)."""
    return VarDecl(d.role, d.name, TypeRef(d.dtype, tuple(Num(n, False) for n in d.shape)), None)


def _top_names(items) -> tuple[set[str], set[str]]:
    """Names a chunk declares, and names its statements introduce by assignment or as loop
    variables, outside function bodies (the locals of inlined functions are not kept)."""
    declared: set[str] = set()
    introduced: set[str] = set()
    stack = [i for i in items if not isinstance(i, Func)]
    while stack:
        s = stack.pop()
        if isinstance(s, VarDecl):
            declared.add(s.name)
        elif isinstance(s, Assign) and isinstance(s.target, Name):
            introduced.add(s.target.id)
        elif isinstance(s, For):
            introduced.add(s.var)
            stack.extend(s.body)
        elif isinstance(s, (While, DoWhile, Loop)):
            stack.extend(s.body)
        elif isinstance(s, If):
            stack.extend(s.then + s.orelse)
    return declared, introduced


def _reach(e: DiagnosticError) -> tuple[int, int]:
    """How far into the text a failed parse got (the position of its first error)."""
    loc = e.diagnostics[0].loc if e.diagnostics else None
    return (loc.line, loc.col) if loc is not None else (0, 0)


def _unshift(diags: Iterable[Diagnostic], src: Source, shift: int) -> list[Diagnostic]:
    """Diagnostics about ``it = e`` pointed back at what was typed, ``e``."""
    if not shift:
        return list(diags)
    out = []
    for d in diags:
        loc = d.loc
        if loc is not None and loc.file == src.name and loc.line == 1:
            end = max(1, loc.end_col - shift) if loc.end_col is not None else None
            d = replace(d, loc=replace(loc, col=max(1, loc.col - shift), end_col=end),
                        source_line=src.line(1))
        out.append(d)
    return out
