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
# other character, so that findall skips nothing. The texts it is given hold no line break (see
# tokenize).
_BLANKS = r"[\t ]*+(?:#[^\n\r\v\f\x1c-\x1e\x85\u2028\u2029]*+)?+"
_TOKEN = (r"(?:[A-Za-z_][A-Za-z0-9_]*"
          r"|->|\.\.|<=|>=|==|!=|<<|>>|[-+*/%<>=|^&()\[\]{},:;]"
          r"|[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+"
          r"|0[xX][0-9a-fA-F]+|[0-9]+)")
_PIECE = re.compile(_BLANKS + r"(?:" + _TOKEN + r"|\Z|.)")
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
_OTHER = "other"  # what _kind calls a character that is no token
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_DIGITS = frozenset("0123456789")
# What each bracket does to the layout state.
_OPEN, _CLOSE, _LBRACE, _RBRACE = range(4)
_BRACKETS = {"LPAR": _OPEN, "LSQB": _OPEN, "RPAR": _CLOSE, "RSQB": _CLOSE, "LBRACE": _LBRACE,
             "RBRACE": _RBRACE}
_STATEMENT_BOUNDARY = frozenset({"_NL", "_SEMI", "LBRACE", "RBRACE"})
# What a token asks of tokenize's loop beyond appending it (_PLAIN: nothing): a bracket, or a
# token that may take back the line break emitted before it.
_PLAIN, _BRACKET, _TAKES_BACK = range(3)
_TAKING_BACK = frozenset({"ELSE", "WHILE"})
# The kind _word gives a word in which a comment starts: the rest of its line is split whole.
_COMMENT = "comment"


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

    The text is taken a line at a time, and a line a word at a time (split at spaces, in C): no
    token holds a space, so each distinct word is split into its tokens once (:func:`_word`), and
    a word that is one token asking nothing of the layout (most of them) costs its appends. (A
    regular expression matching each token of the whole text cost about 1,900 instructions a
    match.) From a word in which a comment starts, the rest of the line is split whole, since a
    comment runs on over spaces.

    The layout rules are :meth:`.grammar.Layout.process`'s, with its state kept differently. A
    line break at bracket depth 0 is emitted at once as a '_NL' token (one for a run of them), and
    taken back by the next token when that shows it does not count: a '{', an `else`, or a
    `while` right after a '}' that closed the block of a `do` that started a statement (what
    Layout calls ``after_do``). So a token that asks nothing of the layout costs no test of held
    state.
    """
    kinds: list[str] = []
    values: list[str] = []
    lines: list[int] = []
    cols: list[int] = []
    line = 0
    depth = 0
    newline_at = -2  # the index in kinds of the '_NL' emitted for a line break, while it is last
    do_blocks: list[bool] = []  # for each open '{': whether it opened the body of a `do`
    # the index in kinds of the last '}' that closed such a body; -2 before one, since a take-back
    # compares it with the index before a '_NL' (-1 for one that starts the text)
    do_closed = -2
    known: dict[str, tuple] = {}  # word -> _word(word), each seen
    if "\r\n" in text:  # a line break too; a '\r' left over is no token
        text = text.replace("\r\n", "\n")
    for row in text.split("\n"):  # lark counts lines by '\n'
        if line and depth == 0 and newline_at != len(kinds) - 1:  # (one for a run of them)
            newline_at = len(kinds)
            kinds.append("_NL")
            values.append("\n")
            lines.append(0)
            cols.append(0)
        line += 1
        words = row.lstrip(" ")
        col = 1 + len(row) - len(words)
        for word in words.split(" "):
            try:
                kind, value, size, parts = known[word]
            except KeyError:
                kind, value, size, parts = known[word] = _word(word)
            if parts is None:
                kinds.append(kind)
                values.append(value)
                lines.append(line)
                cols.append(col)
                col += size
                continue
            rest = kind is _COMMENT
            if rest:
                parts = _parts(row[col - 1:])
            for kind, value, offset, role in parts:
                if role:
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
                cols.append(col + offset)
            if rest:
                break
            col += size
    kinds.append("$END")
    values.append("")
    lines.append(0)
    cols.append(0)
    return Tokens(kinds, values, lines, cols)


def _word(word: str) -> tuple[str | None, str | None, int, tuple | None]:
    """``(kind, value, size, parts)`` of a word (text without a space or line break): ``size`` is
    its length and the space after it; ``parts`` is None for a word that is one token asking
    nothing of the layout (``kind`` and ``value`` are that token's), else :func:`_parts` (kind
    None), or for a word in which a comment starts, none (kind _COMMENT)."""
    size = len(word) + 1
    if _PIECE.match(word).end() == len(word):  # one piece: no blank or comment before a token
        kind = _kind(word)  # (_OTHER for a piece of blanks or a comment, or another character)
        if kind is not _OTHER and kind not in _BRACKETS and kind not in _TAKING_BACK:
            return kind, word, size, None
    if "#" in word:
        return _COMMENT, None, size, ()
    return None, None, size, _parts(word)


def _parts(text: str) -> tuple[tuple[str, str, int, int], ...]:
    """``(kind, value, offset, role)`` of each token of ``text`` (no line break in it; offset:
    the token's column less the text's), or :class:`BailOut` on a character lark's lexer
    rejects."""
    parts = []
    at = 0
    for piece in _PIECE.findall(text):
        blank = _LEAD.match(piece).end()  # as in _PIECE: the same possessive prefix
        token = piece[blank:]
        if not token:  # the end of the text
            break
        kind = _kind(token)
        if kind is _OTHER:
            raise BailOut
        role = _BRACKET if kind in _BRACKETS else _TAKES_BACK if kind in _TAKING_BACK else _PLAIN
        parts.append((kind, token, at + blank, role))
        at += len(piece)
    return tuple(parts)


def _kind(token: str) -> str:
    """The terminal of the token _PIECE matched as ``token`` (its text decides: each alternative
    matches texts no earlier one does), or _OTHER."""
    lead = token[:1]
    if lead in _LETTERS:
        return _FIXED.get(token, "NAME")
    if lead in _DIGITS:
        if len(token) > 1 and token[1] in "xX":
            return "INT"
        return "FLOAT" if "." in token or "e" in token or "E" in token else "INT"
    return _FIXED.get(token, _OTHER)


def _take_back(kinds: list[str], values: list[str], lines: list[int], cols: list[int]) -> None:
    """Remove the '_NL' emitted last (the token after it showed its line break does not count)."""
    kinds.pop()
    values.pop()
    lines.pop()
    cols.pop()
