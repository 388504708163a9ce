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
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_DIGITS = frozenset("0123456789")
# What each bracket does to the layout state.
_OPEN, _CLOSE, _LBRACE, _RBRACE = range(4)
_BRACKETS = {"LPAR": _OPEN, "LSQB": _OPEN, "RPAR": _CLOSE, "RSQB": _CLOSE, "LBRACE": _LBRACE,
             "RBRACE": _RBRACE}
_STATEMENT_BOUNDARY = frozenset({"_NL", "_SEMI", "LBRACE", "RBRACE"})
# What a piece asks of tokenize's loop beyond appending its token (_PLAIN: nothing): a line break,
# a bracket, a token that may take back the line break emitted before it, the end, anything else.
_PLAIN, _LINE, _BRACKET, _TAKES_BACK, _STOP, _REFUSE = range(6)
_TAKING_BACK = frozenset({"ELSE", "WHILE"})


def _split(piece: str) -> tuple[str, str, int, int, int]:
    """(kind, token text, length of the blanks before it, length, what it asks) of one of
    _PIECE's pieces."""
    blank = _LEAD.match(piece).end()  # as in _PIECE: the same possessive prefix
    token = piece[blank:]
    kind = _kind(token)
    if kind is _NEWLINE:
        role = _LINE
    elif kind is _OTHER:
        role = _REFUSE
    elif kind is _END:
        role = _STOP
    elif kind in _BRACKETS:
        role = _BRACKET
    elif kind in _TAKING_BACK:
        role = _TAKES_BACK
    else:
        role = _PLAIN
    return kind, token, blank, len(piece), role


def _kind(token: str) -> str:
    """The terminal of the token _PIECE matched as ``token`` (its text decides: each alternative
    matches texts no earlier one does), or _NEWLINE, _OTHER or _END."""
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

    The layout rules are :meth:`.grammar.Layout.process`'s, with its state kept differently. A
    line break at bracket depth 0 is emitted at once as a '_NL' token (one for a run of them), and
    taken back by the next token when that shows it does not count: a '{', an `else`, or a
    `while` right after a '}' that closed the block of a `do` that started a statement (what
    Layout calls ``after_do``). So a token that asks nothing of the layout (most of them) costs
    its appends and no test of held state. Columns are counted from the line's start as
    ``col_base`` (1 + the length of the line before the piece), so no absolute position is kept.
    """
    kinds: list[str] = []
    values: list[str] = []
    lines: list[int] = []
    cols: list[int] = []
    line, col_base = 1, 1
    depth = 0
    newline_at = -2  # the index in kinds of the '_NL' emitted for a line break, while it is last
    do_blocks: list[bool] = []  # for each open '{': whether it opened the body of a `do`
    do_closed = -1  # the index in kinds of the last '}' that closed such a body
    split: dict[str, tuple[str, str, int, int, int]] = {}  # piece -> _split(piece), each seen
    for piece in _PIECE.findall(text):
        try:
            kind, value, blank, size, role = split[piece]
        except KeyError:
            kind, value, blank, size, role = split[piece] = _split(piece)
        if role:
            if role == _LINE:
                line += piece.count("\n")  # (only a line break's text holds one)
                col_base = size - piece.rfind("\n")
                if depth == 0 and newline_at != len(kinds) - 1:  # (one for a run of them)
                    newline_at = len(kinds)
                    kinds.append("_NL")
                    values.append("\n")
                    lines.append(0)
                    cols.append(0)
                continue
            if role == _STOP:
                break
            if role == _REFUSE:
                raise BailOut
            last = len(kinds) - 1
            if role == _TAKES_BACK:
                if newline_at == last and (kind == "ELSE" or do_closed == last - 1):
                    _take_back(kinds, values, lines, cols)
                    newline_at = -2
            else:  # a bracket
                bracket = _BRACKETS[kind]
                if bracket == _OPEN:
                    depth += 1
                elif bracket == _CLOSE:
                    depth = max(0, depth - 1)
                else:
                    depth = 0
                    if bracket == _LBRACE:
                        if newline_at == last:
                            _take_back(kinds, values, lines, cols)
                            newline_at = -2
                            last -= 1
                        do_blocks.append(last >= 0 and kinds[last] == "DO" and (
                            kinds[last - 1] if last > 0 else "_NL") in _STATEMENT_BOUNDARY)
                    elif do_blocks and do_blocks.pop():
                        do_closed = last + 1
        kinds.append(kind)
        values.append(value)
        lines.append(line)
        cols.append(col_base + blank)
        col_base += size
    kinds.append("$END")
    values.append("")
    lines.append(0)
    cols.append(0)
    return Tokens(kinds, values, lines, cols)


def _take_back(kinds: list[str], values: list[str], lines: list[int], cols: list[int]) -> None:
    """Remove the '_NL' emitted last (the token after it showed its line break does not count)."""
    kinds.pop()
    values.pop()
    lines.pop()
    cols.pop()
