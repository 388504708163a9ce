"""The tokenizer of the INCA-Q fast path (:mod:`.fast_parser`): lark's lexer and layout, by hand.

It yields the token stream that lark's basic lexer followed by :class:`.grammar.Layout` gives the
LALR parser, with the same token types (lark's terminal names), so that the fast parser accepts
exactly what the grammar accepts. Newline and end tokens carry no position (line 0: the fast
path reports nothing, so it never points at one). Any character lark's lexer would reject raises
:class:`BailOut`.
"""
from __future__ import annotations

import re

from ...lang.frozen import frozen
from .tokens import KEYWORDS


class BailOut(Exception):
    """The fast path does not accept this text; the lark path parses (and diagnoses) it."""


# Blanks and at most one comment (a comment runs to the line break, so nothing else can follow it
# on its line), taken whole as lark's lexer takes them (possessive: a comment never gives back its
# end to make a token), then one token: the grammar's terminals verbatim (FLOAT, priority 2,
# before INT; two-character operators before their one-character prefixes), the alternatives in
# order of how common they are, which is free because no two of them start with the same
# character except FLOAT and INT, whose order is lark's; or the end of the text (empty); or any
# other character, so that findall skips nothing. No group: findall makes one string per piece,
# not a tuple and a string, and the pieces of a program recur ('v1', ' +', ' s'), so each
# distinct one is split once (:func:`_split`) and its token's text is shared.
_BLANKS = r"[\t ]*+(?:#[^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]*+)?+"
_PIECE = re.compile(
    _BLANKS +
    r"(?:[A-Za-z_][A-Za-z0-9_]*"
    r"|->|\.\.|<=|>=|==|!=|<<|>>|[-+*/%<>=|^&()\[\]{},:;]"
    r"|(?:\r?\n[\t ]*)+"
    r"|[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+"
    r"|0[xX][0-9a-fA-F]+|[0-9]+"
    r"|\Z|.)", re.DOTALL)
_LEAD = re.compile(_BLANKS)

# lark's names for the punctuation terminals, and keywords by their text ('while' -> WHILE)
_OPS = {
    "->": "ARROW", "..": "DOTDOT", "<=": "LE", ">=": "GE", "==": "EQ", "!=": "NE", "<<": "SHL",
    ">>": "SHR", "-": "MINUS", "+": "PLUS", "*": "STAR", "/": "SLASH", "%": "PERCENT", "<": "LT",
    ">": "GT", "=": "EQUAL", "|": "BAR", "^": "CARET", "&": "AMP", "(": "LPAR", ")": "RPAR",
    "[": "LSQB", "]": "RSQB", "{": "LBRACE", "}": "RBRACE", ",": "COMMA", ":": "COLON",
    ";": "_SEMI",
}
_FIXED = {**_OPS, **{w: w.upper() for w in KEYWORDS}}
# What _kind calls a line break, a stray character and the end of the text
_NEWLINE, _OTHER, _END = "newline", "other", "end"
_NOT_TOKENS = frozenset({_NEWLINE, _OTHER, _END})
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_DIGITS = frozenset("0123456789")
# What each bracket does to the layout state.
_OPEN, _CLOSE, _LBRACE, _RBRACE = range(4)
_BRACKETS = {"LPAR": _OPEN, "LSQB": _OPEN, "RPAR": _CLOSE, "RSQB": _CLOSE, "LBRACE": _LBRACE,
             "RBRACE": _RBRACE}
_STATEMENT_BOUNDARY = frozenset({"_NL", "_SEMI", "LBRACE", "RBRACE"})


def _split(piece: str) -> tuple[str, str, int]:
    """(kind, token text, length of the blanks before it) of one of _PIECE's pieces."""
    blank = _LEAD.match(piece).end()  # as in _PIECE: the same possessive prefix
    token = piece[blank:]
    return _kind(token), token, blank


def _kind(token: str) -> str:
    """The terminal of the token _PIECE matched as ``token`` (its text decides: each alternative
    matches texts no earlier one does), or one of _NOT_TOKENS."""
    lead = token[:1]
    if lead in _LETTERS:
        return _FIXED.get(token, "NAME")
    if lead in _DIGITS:
        if len(token) > 1 and token[1] in "xX":
            return "INT"
        return "FLOAT" if "." in token or "e" in token or "E" in token else "INT"
    if "\n" in token:
        return _NEWLINE
    return _FIXED.get(token, _OTHER) if token else _END


@frozen
class Tokens:
    """The token stream as parallel lists (the parser indexes them), ending with ``$END``.

    ``values`` holds each token's text; ``lines`` and ``cols`` its 1-based start, counted the way
    lark counts them (lines by '\\n', columns in characters)."""

    kinds: list[str]
    values: list[str]
    lines: list[int]
    cols: list[int]


def tokenize(text: str) -> Tokens:
    """The tokens of ``text`` after the layout rules; :class:`BailOut` on a character lark's lexer
    rejects.

    The layout rules are :meth:`.grammar.Layout.process`'s, with its state kept differently: a
    newline is held until the next token shows whether it counts; what Layout calls ``prev`` is the
    last token emitted (a `do` starts a statement when the token before it is a boundary), and its
    ``after_do`` is whether that token is a '}' that closed the block of such a `do`.
    """
    kinds: list[str] = []
    values: list[str] = []
    lines: list[int] = []
    cols: list[int] = []
    line, line_start, pos = 1, 0, 0
    depth, held = 0, False
    do_blocks: list[bool] = []  # for each open '{': whether it opened the body of a `do`
    do_closed = -1  # the index in kinds of the last '}' that closed such a body
    brackets = _BRACKETS
    split: dict[str, tuple[str, str, int]] = {}  # piece -> _split(piece), for each piece seen
    for piece in _PIECE.findall(text):
        known = split.get(piece)
        if known is None:
            known = split[piece] = _split(piece)
        kind, value, blank = known
        if kind in _NOT_TOKENS:
            if kind is _OTHER:
                raise BailOut
            if kind is _END:
                break
            line += piece.count("\n")  # (only a line break's text holds one)
            line_start = pos + piece.rfind("\n") + 1
            pos += len(piece)
            if depth == 0:
                held = True
            continue
        if held:
            held = False
            if kind != "LBRACE" and kind != "ELSE" and not (
                    kind == "WHILE" and do_closed == len(kinds) - 1):
                kinds.append("_NL")
                values.append("\n")
                lines.append(0)
                cols.append(0)
        if kind in brackets:
            role = brackets[kind]
            if role == _OPEN:
                depth += 1
            elif role == _CLOSE:
                depth = max(0, depth - 1)
            else:
                depth = 0
                if role == _LBRACE:
                    do_blocks.append(len(kinds) > 0 and kinds[-1] == "DO" and (
                        kinds[-2] if len(kinds) > 1 else "_NL") in _STATEMENT_BOUNDARY)
                elif do_blocks and do_blocks.pop():
                    do_closed = len(kinds)
        kinds.append(kind)
        values.append(value)
        lines.append(line)
        cols.append(pos + blank - line_start + 1)
        pos += len(piece)
    if held:
        kinds.append("_NL")
        values.append("\n")
        lines.append(0)
        cols.append(0)
    kinds.append("$END")
    values.append("")
    lines.append(0)
    cols.append(0)
    return Tokens(kinds, values, lines, cols)
