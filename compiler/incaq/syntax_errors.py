"""Syntax errors of INCA-Q, explained in words, and recovery so that every independent error is
reported: after an error the parser skips to the end of the broken statement (including any block
it opened), drops the half-parsed statement and goes on. It stops after the first error when the
braces of the file do not balance, because every later error would then be a consequence of it.
"""
from __future__ import annotations

import copy
from typing import Iterator

from lark import Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedToken
from lark.lexer import LineCounter
from lark.parsers.lalr_interactive_parser import InteractiveParser
from lark.parsers.lalr_parser_state import ParserState

from ...lang.diagnostics import Diagnostic, Loc, did_you_mean
from .grammar import Quoter, lark_parser
from .tokens import KEYWORDS, MAX_ERRORS

#: After this many syntax errors the rest of the file is not examined.

# Terminal groups, by the names lark gives the grammar's terminals.
_EXPR_START = frozenset({"NAME", "INT", "FLOAT", "LPAR", "MINUS", "NOT", "IF", "I64", "F64"})
# Accepted wherever an expression (of any precedence) may start.
_OPERAND_START = frozenset({"NAME", "INT", "FLOAT", "LPAR"})
_COMPARE = frozenset({"LT", "LE", "GT", "GE", "EQ", "NE"})
_INFIX = _COMPARE | {
    "BAR", "CARET", "AMP", "SHL", "SHR", "PLUS", "MINUS", "STAR", "SLASH", "PERCENT", "AND", "OR",
}
_STMT_END = frozenset({"_NL", "_SEMI", "RBRACE", "$END"})
# Accepted exactly where a statement may start.
_STMT_START = frozenset({"VAR", "WHILE", "FOR", "RETURN", "LOOP", "BREAK", "CONTINUE"})
_TOP_LEVEL_ONLY = {
    "PARAM": "'param' declarations",
    "INPUT": "'input' declarations",
    "OUTPUT": "'output' declarations",
    "INOUT": "'inout' declarations",
    "USE": "'use' declarations",
    "FUNC": "functions",
}
_CLOSER_OF = {"LPAR": "RPAR", "LSQB": "RSQB", "LBRACE": "RBRACE"}
_OPENER_OF = {v: k for k, v in _CLOSER_OF.items()}
# What the parser wanted, in words, where that needs no context (the rest is in _phrase()).
_WORDS = {
    frozenset({"IN"}): "'in' after the loop variable",
    frozenset({"DOTDOT"}): "'..' between the start and the end of the range",
    frozenset({"THEN"}): "'then' after the condition",
    frozenset({"WHILE"}): "'while' and the loop condition after the '}' of a 'do' block",
    frozenset({"ELSE"}): "'else' (an 'if' expression needs a value for both cases)",
    frozenset({"LBRACE", "IF"}): "'{' or 'if' after 'else'",
    frozenset({"ARROW", "LBRACE"}): "'{' to start the function body",
    frozenset({"I64", "F64"}): "a type ('i64' or 'f64')",
    frozenset({"NAME", "RPAR"}): "a parameter name or ')'",
    frozenset({"EQUAL", "LSQB"}): "'='",
    frozenset({"MINUS", "INT", "FLOAT"}): "a number as the initial value",
    frozenset({"COMMA", "RPAR"}): "',' or ')'",
}
# Keywords that start a statement or a declaration.
_STATEMENT_KEYWORDS = frozenset(
    {"param", "input", "output", "inout", "var", "use", "func", "while", "if", "for", "return",
     "do", "loop", "break", "continue"})
# Words for `else if` from other languages.
_MISSPELT_ELSE_IF = frozenset({"elif", "elsif", "elseif"})
# What follows `x` at the start of a statement: an assignment or a call.
_AFTER_STMT_NAME = frozenset({"EQUAL", "LSQB", "LPAR"})





class Syntax:
    """One run of the LALR parser over a file, reporting and recovering from syntax errors."""

    def __init__(self, quote: Quoter):
        self.q = quote
        self.text = quote.text
        self.parser = lark_parser()
        self.shown = {
            t.name: f"'{t.pattern.value}'" for t in self.parser.terminals if t.pattern.type == "str"
        }
        self.shown.update(NAME="a name", INT="a number", FLOAT="a number")
        self.keyword = {t: v.strip("'") for t, v in self.shown.items() if v.strip("'") in KEYWORDS}

    def run(self) -> tuple[Tree | None, list[Diagnostic]]:
        """The parse tree (None if there were errors) and the syntax errors, in source order."""
        ip = self.parser.parse_interactive(self.text)
        balanced = _braces_balance(self.text)
        diags: list[Diagnostic] = []
        last = -1
        while True:
            try:
                tree = ip.resume_parse()
                return (None if diags else tree), diags
            except UnexpectedToken as e:
                pos = len(self.text) if e.token.type == "$END" else e.token.start_pos
                diag, recoverable = self._token_error(e.token, ip)
                if e.token.type == "_NL":
                    next_line = self.text.find("\n", pos) + 1
                    if not _starts_statement(self.text, next_line):
                        # The writer broke the line inside the statement (`if a` / `then {`):
                        # the next line belongs to the broken statement too.
                        pos = next_line
            except UnexpectedCharacters as e:
                pos = e.pos_in_stream
                diag, recoverable = self._char_error(pos, e.line, e.column), True
            if pos <= last:
                break  # no progress since the last error: what follows is a consequence of it
            diags.append(diag)
            last = pos
            if len(diags) == MAX_ERRORS:
                diags.append(Diagnostic("too many syntax errors; the rest of the file was not "
                                        "checked", file=self.q.name, severity="note"))
                break
            if not (recoverable and balanced and self._recover(ip, pos)):
                break
        return None, diags

    # -- recovery --

    def _recover(self, ip: InteractiveParser, pos: int) -> bool:
        """Skip from the error at ``pos`` to the end of its statement and resume the parser there.

        The half-parsed statement is dropped by popping the parser's stack until the state accepts
        the token that ends the statement (a newline, ';', the '}' of the enclosing block or the end
        of the file). False when there is no such state: nothing sensible can follow.
        """
        state = ip.parser_state
        at = _statement_end(self.text, pos)
        while not _pop_until_accepts(state, _boundary_token(self.text, at)):
            if at < len(self.text) and self.text[at] == "}":
                at = _statement_end(self.text, at + 1)  # a '}' that closes nothing open: skip it
            else:
                return False
        line_ctr = LineCounter("\n")
        line_ctr.feed(self.text[:at])
        ip.lexer_thread.state.line_ctr = line_ctr
        return True

    # -- messages --

    def _char_error(self, pos: int, line: int, col: int) -> Diagnostic:
        """The diagnostic for a character that starts no token."""
        ch = self.text[pos]
        shown = f"'{ch}'" if ch.isprintable() and not ch.isspace() else f"U+{ord(ch):04X}"
        hints = {
            "!": "use 'not' for a logical not, and '!=' for not-equal",
            '"': "INCA-Q has no strings",
            "'": "INCA-Q has no strings",
            ".": "a number needs digits on both sides of the point (1.0, 0.5); "
                 "a range is written 'a .. b'",
            "\r": "a carriage return must be followed by a newline",
        }
        hint = hints.get(ch)
        if hint is None and ch.isalpha():
            hint = "names use ASCII letters, digits and '_'"
        return self.q.diag(Loc(self.q.name, line, col, col + 1), f"unexpected character {shown}",
                           hint)

    def _token_error(self, tok: Token, ip: InteractiveParser) -> tuple[Diagnostic, bool]:
        """The diagnostic for an unexpected token, and whether recovering after it makes sense."""
        stack = ip.parser_state.value_stack
        opened = _open_brackets(stack)
        prev = stack[-1] if stack and isinstance(stack[-1], Token) else None
        if (tok.type in ("NAME", "INT", "FLOAT") and prev is not None
                and prev.type in ("INT", "FLOAT") and prev.end_pos == tok.start_pos):
            # `0x1G`, `2e`, `12abc`: one word to the writer, two tokens to the lexer
            loc = Loc(self.q.name, prev.line, prev.column, tok.end_column)
            return self.q.diag(loc, f"invalid number '{prev}{tok}'"), True
        if tok.type == "$END":
            braces = [t for t in opened if t.type == "LBRACE"]
            if braces:
                return self._unterminated(braces[-1]), False
            loc = self.q.end_of_code()
        elif tok.type == "_NL":
            loc = self.q.after_code(tok.line)
        else:
            loc = self.q.token_loc(tok)
        expected = ip.accepts()
        message, hint = self._explain(tok, expected, stack, opened)
        # After a do body that lacks its `while`, the body's '}' is still on the parser's stack
        # unreduced, so recovery would resume inside the body: stop at this error instead.
        return self.q.diag(loc, message, hint), tok.type != "$END" and expected != {"WHILE"}

    def _unterminated(self, innermost: Token) -> Diagnostic:
        """A block still open at the end of the file, pointing at the '{' that most likely lacks
        its '}': judging by indentation when a '}' closes a block indented differently."""
        culprit = _misindented_block(self.text, innermost.start_pos)
        if culprit is None:
            loc, hint = self.q.token_loc(innermost), None
        else:
            opening, closing = culprit
            loc = self.q.offset_loc(opening)
            hint = (f"the '}}' on line {self.q.offset_loc(closing).line} is indented like an outer "
                    "block: is a '}' missing before it?")
        return self.q.diag(loc, "expected '}' before the end of the file, to close the block "
                                "opened here", hint)

    def _explain(self, tok: Token, expected: set[str], stack: list,
                 opened: list[Token]) -> tuple[str, str | None]:
        """The message and hint for ``tok`` where the parser accepts ``expected``."""
        found = tok.type
        prev = stack[-1] if stack and isinstance(stack[-1], Token) else None
        # After a complete operand, operators, '[' and '(' could always continue it; what else is
        # expected is what the message is about.
        after_operand = bool(expected & (_INFIX - {"MINUS"}))  # '-' may also start an operand
        wanted = frozenset(expected - _INFIX - {"LSQB", "LPAR"}) if after_operand else frozenset(
            expected)

        if found in _TOP_LEVEL_ONLY and found not in expected and any(
                o.type == "LBRACE" for o in opened):
            return (f"{_TOP_LEVEL_ONLY[found]} are only allowed at the top level of a file, "
                    "not inside a block"), None
        if found == "ELSE" and found not in expected and not _OPERAND_START <= expected:
            return "'else' without a matching 'if'", (
                "'else' must follow the '}' that closes an 'if ... then' block")
        if (found in _COMPARE and after_operand and len(stack) >= 2
                and isinstance(stack[-2], Token) and stack[-2].type in _COMPARE):
            return "comparisons cannot be chained", "write 'a < b and b < c'"
        if found in _OPENER_OF and found not in expected and not any(
                o.type == _OPENER_OF[found] for o in opened):
            return f"unexpected {self._found(tok)}", (
                f"there is no {self.shown[_OPENER_OF[found]]} for it to close")

        phrase = self._phrase(wanted, after_operand, stack, prev)
        message = f"unexpected {self._found(tok)}" if phrase is None else f"expected {phrase}"
        return message, self._hint(tok, expected, wanted, stack, opened)

    def _phrase(self, wanted: frozenset[str], after_operand: bool, stack: list,
                prev: Token | None) -> str | None:
        """What the parser wanted, in words; None when too much would do."""
        prev_type = prev.type if prev is not None else None
        if wanted in _WORDS:
            return _WORDS[wanted]
        if wanted & _STMT_START:
            return "a statement or a declaration" if "PARAM" in wanted else "a statement"
        if wanted <= _STMT_END | {"ELSE"}:
            return ("an operator or the end of the statement" if after_operand
                    else "the end of the statement")
        if _OPERAND_START <= wanted:
            extra = wanted - _EXPR_START
            phrase = "an expression"
            if extra:
                phrase += " or " + self._join(extra)
            if prev is not None:
                phrase += f" after {self._found(prev)}"
            return phrase
        if wanted == {"DO"}:
            loop = _nearest(stack, {"WHILE", "FOR"})
            return "'do' after the " + (
                "end of the range" if loop is not None and loop.type == "FOR" else "loop condition")
        if wanted == {"LBRACE"}:
            what = {"DO": "the loop body", "LOOP": "the loop body", "THEN": "the 'then' block",
                    "ELSE": "the 'else' block"}
            return "'{' to start " + what.get(prev_type, "the function body")
        if wanted == _AFTER_STMT_NAME and prev_type == "NAME":
            return f"'=' or '(' after '{prev}'"
        if wanted == {"COLON"} and prev_type == "NAME":
            return f"':' and a type after '{prev}'"
        if wanted == {"EQUAL"} and prev_type == "NAME":
            return "'=' after the parameter name"
        if wanted == {"LPAR"} and prev_type == "NAME":
            return "'(' after the function name"
        if wanted == {"LPAR"} and prev_type in ("I64", "F64"):
            return f"'(' after '{prev}' (in an expression, '{prev}(x)' is a conversion)"
        if wanted == {"NAME"}:
            after = {"FOR": "a loop variable name after 'for'",
                     "FUNC": "a function name after 'func'",
                     "USE": "a module name after 'use'",
                     "COMMA": "a parameter name"}
            if prev_type in after:
                return after[prev_type]
            declared = prev.value if prev is not None else _role_on_top(stack)
            return f"a name after '{declared}'" if declared else "a name"
        phrase = self._join(wanted)
        return phrase if phrase.count(",") < 3 else None  # a long list helps nobody

    def _hint(self, tok: Token, expected: set[str], wanted: frozenset[str], stack: list,
              opened: list[Token]) -> str | None:
        """A guess at what the writer meant, for the common slips."""
        found = tok.type
        prev = stack[-1] if stack and isinstance(stack[-1], Token) else None
        if found == "EQUAL" and ("EQ" in expected or wanted in ({"DO"}, {"THEN"})):
            return "'=' assigns; use '==' to compare"
        if found == "EQ" and "EQUAL" in expected:
            return "'==' compares; use '=' to assign"
        if found == "LSQB" and stack and isinstance(stack[-1], Tree) and stack[-1].data == "base":
            return "a function returns a scalar: 'i64' or 'f64'"
        if found == "RSQB" and prev is not None and prev.type == "LSQB":
            return "only a function parameter may leave the size of an array open"
        if found == "THEN" and wanted == {"DO"}:
            return "loops use 'do'; 'then' belongs to 'if'"
        if found == "DO" and wanted == {"THEN"}:
            return "'if' uses 'then'; 'do' belongs to loops"
        if prev is not None and found == prev.type and found in ("AMP", "BAR"):
            word = "and" if found == "AMP" else "or"
            return f"use '{word}' for a logical {word}"
        if found == "NAME" and tok.value in _MISSPELT_ELSE_IF and "ELSE" in expected:
            return "write 'else if'"
        if found == "NAME":
            keywords = [self.keyword[t] for t in wanted if t in self.keyword]
            if keywords:
                return did_you_mean(tok.value, keywords)
        if (found != "NAME" and "NAME" in wanted and wanted <= {"NAME", "RPAR"}
                and tok.value in KEYWORDS):
            return f"'{tok.value}' is a keyword and cannot be used as a name"
        if prev is not None and prev.type == "NAME" and wanted == _AFTER_STMT_NAME:
            return did_you_mean(prev.value, _STATEMENT_KEYWORDS)
        if opened and opened[-1].type != "LBRACE" and opened[-1].line < tok.line:
            # newlines inside brackets are layout, so a missing ')' shows up lines later
            o = opened[-1]
            return f"the '{o.value}' at line {o.line}, column {o.column} is not closed"
        return None

    def _found(self, tok: Token) -> str:
        """How to name a token that was found."""
        if tok.type == "$END":
            return "end of file"
        if tok.type == "_NL":
            return "end of line"
        return f"'{tok.value}'"

    def _join(self, terminals: frozenset[str]) -> str:
        """'a', 'b' or 'c', naming each terminal for a reader."""
        words = set()
        for t in terminals:
            if t in _STMT_END:
                words.add("the end of the statement")
            else:
                words.add(self.shown.get(t, t))
        ordered = sorted(words, key=lambda w: (w.startswith("the "), w))
        return ordered[0] if len(ordered) == 1 else ", ".join(ordered[:-1]) + " or " + ordered[-1]


def _nearest(stack: list, types: set[str]) -> Token | None:
    """The topmost token of one of ``types`` on the parser's stack."""
    for item in reversed(stack):
        if isinstance(item, Token) and item.type in types:
            return item
    return None


def _role_on_top(stack: list) -> str | None:
    """'input' / 'output' / 'inout' when a declaration's role was just read."""
    if stack and isinstance(stack[-1], Tree) and stack[-1].data == "role":
        return str(stack[-1].children[0])
    return None


def _open_brackets(stack: list) -> list[Token]:
    """The '(' '[' '{' tokens on the parser's stack that no token on it closes, outermost first."""
    opened: list[Token] = []
    for item in stack:
        if isinstance(item, Token):
            if item.type in _CLOSER_OF:
                opened.append(item)
            elif item.type in _OPENER_OF and opened and opened[-1].type == _OPENER_OF[item.type]:
                opened.pop()
    return opened


def _pop_until_accepts(state: ParserState, token_type: str) -> bool:
    """Pop ``state`` until it accepts a token of ``token_type``; False if no state on it does."""
    probe_conf = copy.copy(state.parse_conf)
    probe_conf.callbacks = {}  # probing must not build trees
    while True:
        probe = ParserState(probe_conf, state.lexer, list(state.state_stack),
                            list(state.value_stack))
        try:
            probe.feed_token(Token(token_type, ""), token_type == "$END")
            return True
        except UnexpectedToken:
            pass
        if len(state.state_stack) == 1:
            return False
        state.state_stack.pop()
        state.value_stack.pop()


def _boundary_token(text: str, at: int) -> str:
    """The token type that starts at a statement boundary found by :func:`_statement_end`."""
    if at >= len(text):
        return "$END"
    return {"\n": "_NL", ";": "_SEMI", "}": "RBRACE"}[text[at]]


def _statement_end(text: str, pos: int) -> int:
    """Where the statement containing offset ``pos`` ends: the offset of the newline or ';' after
    it, or of the '}' closing the enclosing block, or the length of the text.

    Brackets opened after ``pos`` are skipped whole (a block belongs to its statement), a newline
    followed by '{' or 'else' does not end a statement (as in :class:`Layout`), and closing ')'
    and ']' without an opening one belong to the broken statement.
    """
    depth = 0
    i = pos
    n = len(text)
    while i < n:
        c = text[i]
        if c == "#":
            i = text.find("\n", i)
            if i < 0:
                return n
            continue
        if c in "([{":
            depth += 1
        elif c in ")]":
            depth = max(0, depth - 1)
        elif c == "}":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0 and (c == ";" or (c == "\n" and not _continues(text, i + 1))):
            return i
        i += 1
    return n


def _starts_statement(text: str, i: int) -> bool:
    """Whether the code from offset ``i`` (after blanks and comments) can start a statement."""
    i = _skip_blank(text, i)
    if i == len(text) or text[i] in "};":
        return True
    end = i
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    word = text[i:end]
    return bool(word) and not word[0].isdigit() and (
        word not in KEYWORDS or word in _STATEMENT_KEYWORDS)


def _skip_blank(text: str, i: int) -> int:
    """The offset of the first code character at or after ``i`` (skipping blanks and comments)."""
    n = len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n":
            i += 1
        elif c == "#":
            j = text.find("\n", i)
            i = n if j < 0 else j
        else:
            return i
    return n


def _continues(text: str, i: int) -> bool:
    """Whether the code after the newline(s) from offset ``i`` starts with '{' or 'else'."""
    i = _skip_blank(text, i)
    return text.startswith("{", i) or (text.startswith("else", i) and not (
        text[i + 4:i + 5].isalnum() or text[i + 4:i + 5] == "_"))


def _braces(text: str) -> Iterator[tuple[int, str]]:
    """The offsets of the '{' and '}' of the code (outside comments)."""
    in_comment = False
    for i, c in enumerate(text):
        if in_comment:
            in_comment = c != "\n"
        elif c == "#":
            in_comment = True
        elif c in "{}":
            yield i, c


def _braces_balance(text: str) -> bool:
    """Whether every '{' of the code has its '}' and every '}' its '{'."""
    depth = 0
    for _, c in _braces(text):
        depth += 1 if c == "{" else -1
        if depth < 0:
            return False
    return depth == 0


def _misindented_block(text: str, after: int) -> tuple[int, int] | None:
    """The first brace pair opened after offset ``after`` whose '}' starts a line indented unlike
    the line of its '{' (the sign of a missing '}'), as (offset of '{', offset of '}')."""

    def indent(i: int) -> tuple[int, bool]:
        start = text.rfind("\n", 0, i) + 1
        lead = len(text[start:i]) - len(text[start:i].lstrip(" \t"))
        return len(text[start:start + lead].expandtabs(8)), lead == i - start

    opened: list[int] = []
    for i, c in _braces(text):
        if c == "{":
            opened.append(i)
        elif opened:
            o = opened.pop()
            width, starts_line = indent(i)
            if o > after and starts_line and width != indent(o)[0]:
                return o, i
    return None
