"""The lark side of the INCA-Q parser: the grammar's parser, its layout rules, and locations.

Shared by :mod:`.parser` (the entry point), :mod:`.syntax_errors` (explaining and recovering from
syntax errors) and :mod:`.builder` (parse tree to syntax tree).
"""
from __future__ import annotations

from typing import Iterator

from lark import Lark, Token
from lark.lark import PostLex

from ... import lang as _lang_package
from ...lang.diagnostics import Diagnostic, Loc, Source

class Layout(PostLex):
    """Post-lexer for the layout rules that a regular lexer cannot express.

    A newline (token ``_NL``; one token covers a run of blank lines) is dropped inside ( ) and [ ],
    and before '{' or 'else', which never start a statement. '{' and '}' reset the bracket depth,
    so an unclosed '(' cannot swallow the newlines of the block that follows it.
    """

    always_accept = ()

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        """Filter the lexer's tokens (lark's post-lexer protocol)."""
        depth = 0
        held: Token | None = None  # a newline, kept until the next token shows whether it counts
        # For `do { ... }` + newline + `while c`: which open '{' belong to a `do` statement, and
        # whether the last token closed one (then a newline before 'while' does not count).
        do_blocks: list[bool] = []
        prev, after_do = "_NL", False
        for tok in stream:
            if tok.type == "_NL":
                if depth == 0 and held is None:
                    held = tok
                continue
            if held is not None:
                if tok.type not in ("LBRACE", "ELSE") and not (after_do and tok.type == "WHILE"):
                    yield held
                    prev = "_NL"
                held = None
            if tok.type in ("LPAR", "LSQB"):
                depth += 1
            elif tok.type in ("RPAR", "RSQB"):
                depth = max(0, depth - 1)
            elif tok.type in ("LBRACE", "RBRACE"):
                depth = 0
            after_do = False
            if tok.type == "LBRACE":
                do_blocks.append(prev == "DO_STMT")
            elif tok.type == "RBRACE" and do_blocks:
                after_do = do_blocks.pop()
            # a `do` where a statement starts (not the `do` of `while c do`)
            prev = "DO_STMT" if tok.type == "DO" and prev in ("_NL", "_SEMI", "LBRACE", "RBRACE") \
                else tok.type
            yield tok
        if held is not None:
            yield held


_PARSER: Lark | None = None


def lark_parser() -> Lark:
    """The process-wide lark parser, built (or loaded from lark's cache) on first use."""
    global _PARSER
    if _PARSER is None:
        from importlib import resources  # (on Python 3.12, with inspect and typing: 11 ms)

        grammar = (resources.files(_lang_package) / "incaq.lark").read_text(encoding="utf-8")
        # lexer="basic" rather than "contextual": INCA-Q's terminals never conflict, and a single
        # lexer keeps keywords reserved and '==' one token in every parser state (the contextual
        # lexer would read `x = while` as assigning a variable named "while").
        _PARSER = Lark(
            grammar,
            parser="lalr",
            lexer="basic",
            postlex=Layout(),
            propagate_positions=True,
            maybe_placeholders=True,
            cache=True,
        )
    return _PARSER


class Quoter:
    """Locations and quoted lines for diagnostics, counting lines the way lark does (by '\\n')."""

    def __init__(self, source: Source):
        self.name = source.name
        self.text = source.text
        self.lines = source.text.split("\n")

    def line(self, n: int) -> str | None:
        """Line ``n`` (1-based) without its line ending, or None past the end."""
        return self.lines[n - 1].rstrip("\r") if 1 <= n <= len(self.lines) else None

    def diag(self, loc: Loc, message: str, hint: str | None = None) -> Diagnostic:
        """An error at ``loc`` quoting its line."""
        return Diagnostic(message, loc, hint, self.line(loc.line))

    def token_loc(self, tok: Token) -> Loc:
        """The span of one token."""
        end = tok.end_column if tok.end_line == tok.line else None
        return Loc(self.name, tok.line, tok.column, end)

    def meta_loc(self, meta) -> Loc:
        """The span of a parse-tree node; ``end_col`` only when it fits on one line."""
        if meta.empty:
            return Loc(self.name, 1, 1)
        end = meta.end_column if meta.end_line == meta.line else None
        return Loc(self.name, meta.line, meta.column, end)

    def offset_loc(self, offset: int) -> Loc:
        """The location of the character at ``offset``."""
        line = self.text.count("\n", 0, offset) + 1
        col = offset - (self.text.rfind("\n", 0, offset) + 1) + 1
        return Loc(self.name, line, col, col + 1)

    def after_code(self, n: int) -> Loc:
        """Just after the last character of code (not comment, not blank) on line ``n``."""
        code = (self.line(n) or "").split("#", 1)[0].rstrip()
        return Loc(self.name, n, len(code) + 1)

    def end_of_code(self) -> Loc:
        """Just after the last character of code in the file: where the end of the file "is"."""
        for n in range(len(self.lines), 0, -1):
            if (self.line(n) or "").split("#", 1)[0].strip():
                return self.after_code(n)
        return Loc(self.name, 1, 1)
