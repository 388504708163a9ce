"""The INCA-Q parser: source text to the syntax tree of :mod:`.ast`.

The grammar is ``lang/incaq.lark`` (LALR(1)), and it is normative. Two paths read it:

- the fast path (:mod:`.fast_parser`, tokens from :mod:`.fast_lexer`), a hand-written
  recursive-descent parser that builds the same tree, locations included, several times faster,
  but only for text without errors: at anything else it bails out;
- the lark path (:func:`parse_lark`), lark's LALR parser with the layout rules of
  :class:`.grammar.Layout` and the tree builder of :mod:`.builder`, which :func:`parse` runs when
  the fast path bails out, so that it alone decides what is an error and how it is worded:

  - layout: a newline ends a statement, except inside ( ) and [ ] and directly before '{' or
    'else', so long calls and Allman-style braces work;
  - diagnostics: a syntax error is explained in words ("expected 'do' after the loop
    condition"), never as a list of grammar terminals, with the caret under the offending token;
  - recovery: after an error the parser skips to the end of the broken statement (including any
    block it opened), drops the half-parsed statement and goes on, so independent errors in one
    file are all reported. It stops after the first error when the braces of the file do not
    balance, because every later error would then be a consequence of the first.

Every input text either parses or raises :class:`DiagnosticError`: no lark or Python exception
escapes for any text. The lark path's modules are imported when it first runs: a text without
errors is compiled without importing lark (a fifth of the tools' start).
"""
from __future__ import annotations


from ...lang.diagnostics import DiagnosticError, Source
from . import ast
from .fast_parser import BailOut, parse_fast
from .tokens import KEYWORDS, MAX_ERRORS

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (2 ms of every start)
if TYPE_CHECKING:
    from lark import Tree

__all__ = ["parse", "parse_lark", "KEYWORDS", "MAX_ERRORS", "MAX_NESTING"]

#: Parse trees deeper than this are rejected: the passes after the parser walk the tree
#: recursively and must stay well inside Python's recursion limit.
MAX_NESTING = 200


def parse(source: Source) -> ast.Module:
    """Parse one INCA-Q file into its syntax tree.

    Raises :class:`DiagnosticError` with every syntax error found, in source order.
    """
    try:
        return parse_fast(source, MAX_NESTING)
    except BailOut:  # not (or not surely) valid: the grammar's own parser decides and explains
        return parse_lark(source)


def parse_lark(source: Source) -> ast.Module:
    """:func:`parse` by lark's LALR parser of ``lang/incaq.lark`` alone: the normative path, and
    the one every diagnostic comes from. :func:`parse` takes it whenever the fast path
    (:mod:`.fast_parser`) bails out."""
    from .builder import Builder
    from .grammar import Quoter
    from .syntax_errors import Syntax

    quote = Quoter(source)
    tree, diags = Syntax(quote).run()
    if tree is not None:
        deep, chained = _too_deep(tree)
        if deep is not None:
            what = (f"this chains more than {ast.MAX_CHAIN} operators in a row (the limit)"
                    if chained else "this is nested too deeply "
                    f"(the limit is {MAX_NESTING} levels of expressions and blocks)")
            diags = [quote.diag(quote.meta_loc(deep.meta), what)]
        else:
            builder = Builder(quote)
            module = builder.transform(tree)
            if not builder.diags:
                return module
            diags = builder.diags
    raise DiagnosticError(diags)


#: Left-associative chains (``a + b - c + ...``, ``a and b and ...``): their first operand is the
#: same operator again, which lists operands rather than nests them, so it counts no level.
_CHAINS = frozenset(("binary", "and_op", "or_op"))


def _too_deep(tree: Tree) -> tuple[Tree | None, bool]:
    """The first node nested more than MAX_NESTING levels deep or chained more than
    ``ast.MAX_CHAIN`` operators long, if any, and whether it is the chain (without recursing)."""
    from lark import Tree

    todo = [(tree, 1, 0)]
    while todo:
        node, depth, run = todo.pop()
        if depth > MAX_NESTING or run > ast.MAX_CHAIN:
            return node, run > ast.MAX_CHAIN
        chain = node.data in _CHAINS
        for k, c in enumerate(node.children):
            if isinstance(c, Tree):
                if chain and k == 0 and c.data == node.data:
                    todo.append((c, depth, run + 1))
                else:
                    todo.append((c, depth + 1, 0))
    return None, False
