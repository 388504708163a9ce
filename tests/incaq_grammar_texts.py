"""Random texts of the INCA-Q grammar (a hypothesis strategy; not collected).

``grammar_texts()`` draws text that ``lang/incaq.lark`` accepts, from every rule of it, with random
layout: blanks, comments, blank lines, CRLF, ';', newlines inside brackets and before '{' and
'else' and the 'while' of a do loop. Syntax only: names, types and values are not meant to make
sense, so that every shape of the grammar comes out, nested (test_incaq_fast_parser.py compares
the two parser paths on them).
"""
from __future__ import annotations

from hypothesis import strategies as st

NAMES = ["x", "y1", "_t", "A", "N", "iff", "do_", "whilex", "inputs", "i64x"]
INTS = ["0", "7", "42", "0x1F", "007", "9223372036854775807", "9223372036854775808"]
FLOATS = ["2.5", "0.125", "1e3", "2E-4", "1.5e+2", "10.0"]
SEPARATORS = ["\n", "\n", ";", " ; ", "\n\n", "  # note\n", "\r\n", ";\n\t"]
# Loosest first, as in the grammar: each level's operators, or a prefix operator's word.
LEVELS = [["or"], ["and"], "not", ["<", "<=", ">", ">=", "==", "!="], ["|"], ["^"], ["&"],
          ["<<", ">>"], ["+", "-"], ["*", "/", "%"], "-"]


class Texts:
    """Draws the pieces of a program; ``inside`` says whether a newline would be layout there
    (inside ( ) or [ ])."""

    def __init__(self, draw):
        self.draw = draw

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def chance(self, percent: int) -> bool:
        return self.draw(st.integers(0, 99)) < percent

    def gap(self, inside: bool = False) -> str:
        """What may separate two tokens."""
        return self.pick([" ", " ", "  ", "\t"] + (["\n    ", " # c\n  ", "\r\n"] * inside))

    def join(self, parts: list[str], inside: bool = False) -> str:
        out = parts[0]
        for p in parts[1:]:
            out += self.gap(inside) + p
        return out

    def opening(self) -> str:
        """A '{', or newlines before it."""
        return self.pick(["{", "{", "\n{", "\n\n  {", " # c\n{"])

    # -- expressions

    def expr(self, depth: int, inside: bool = False) -> str:
        if depth > 0 and self.chance(10):
            return self.join(["if", self.expr(depth - 1, inside), "then",
                              self.expr(depth - 1, inside), "else",
                              self.expr(depth - 1, inside)], inside)
        return self.level(0, depth, inside)

    def level(self, k: int, depth: int, inside: bool) -> str:
        if k == len(LEVELS):
            return self.atom(depth, inside)
        ops = LEVELS[k]
        if depth <= 0 or not self.chance(30):
            return self.level(k + 1, depth, inside)
        if isinstance(ops, str):  # prefix: `not not_test`, `-factor`
            space = self.gap(inside) if ops == "not" or self.chance(30) else ""
            return ops + space + self.level(k, depth - 1, inside)
        # comparisons do not chain: both operands one level tighter
        left = self.level(k + 1 if "<" in ops else k, depth - 1, inside)
        return self.join([left, self.pick(ops), self.level(k + 1, depth - 1, inside)], inside)

    def atom(self, depth: int, inside: bool) -> str:
        kind = self.pick(["int", "float", "name", "name", "index", "call", "parens"]
                         if depth > 0 else ["int", "float", "name"])
        if kind == "int":
            return self.pick(INTS)
        if kind == "float":
            return self.pick(FLOATS)
        if kind == "name":
            return self.pick(NAMES)
        if kind == "index":
            return self.pick(NAMES) + "".join(
                "[" + self.expr(depth - 1, True) + "]" for _ in range(self.draw(st.integers(1, 3))))
        if kind == "call":
            args = [self.expr(depth - 1, True) for _ in range(self.draw(st.integers(0, 3)))]
            return self.pick(NAMES + ["i64", "f64"]) + "(" + self.join(
                [", ".join(args)] if args else [""], True) + ")"
        return "(" + self.expr(depth - 1, True) + ")"

    # -- statements and declarations

    def type(self, open_extent: bool = False) -> str:
        dims = ["[" + ("" if open_extent and self.chance(30) else self.expr(1, True)) + "]"
                for _ in range(self.draw(st.integers(0, 2)))]
        return self.pick(["i64", "f64"]) + "".join(dims)

    def signed(self) -> str:
        return self.pick(["", "-", "- "]) + self.pick(INTS + FLOATS)

    def block(self, depth: int) -> str:
        stmts = [self.stmt(depth - 1) for _ in range(self.draw(st.integers(0, 3)))]
        if not stmts or self.chance(30):
            return self.opening() + " " + " ; ".join(stmts) + " }"
        return self.opening() + self.separators(stmts) + self.pick(["\n", ";\n", " # c\n"]) + "}"

    def separators(self, items: list[str]) -> str:
        out = self.pick(["", "\n", "\n\n"])
        for item in items:
            out += item + self.pick(SEPARATORS)
        return out[:-1] if items and self.chance(20) and out.endswith(";") else out

    def stmt(self, depth: int) -> str:
        kinds = ["assign", "assign", "call", "return", "break", "var"]
        if depth > 0:
            kinds += ["while", "if", "for", "do", "loop"]
        kind = self.pick(kinds)
        e = self.expr
        if kind == "assign":
            target = self.pick(NAMES) + "".join("[" + self.expr(1, True) + "]"
                                                for _ in range(self.draw(st.integers(0, 2))))
            return self.join([target, "=", e(2)])
        if kind == "call":
            return self.pick(NAMES + ["i64", "f64"]) + "(" + ", ".join(
                self.expr(1, True) for _ in range(self.draw(st.integers(0, 2)))) + ")"
        if kind == "return":
            return self.pick(["return", "return " + e(2)])
        if kind == "break":
            return self.pick(["break", "continue"])
        if kind == "var":
            init = "" if self.chance(50) else " = " + (self.signed() if self.chance(60) else
                                                       "[" + ", ".join(self.signed() for _ in range(
                                                           self.draw(st.integers(1, 3)))) + "]")
            return f"var {self.pick(NAMES)}: {self.type()}{init}"
        if kind == "while":
            return self.join(["while", e(2), "do", self.block(depth)])
        if kind == "if":
            return self.if_stmt(depth)
        if kind == "for":
            return self.join(["for", self.pick(NAMES), "in", e(2), "..", e(2), "do",
                              self.block(depth)])
        if kind == "do":
            return "do " + self.block(depth) + self.pick([" ", "\n", "\n # c\n"]) + "while " + e(2)
        return "loop " + self.block(depth)

    def if_stmt(self, depth: int) -> str:
        """With an 'else' block, an 'else if' (nesting) or neither."""
        text = self.join(["if", self.expr(2), "then", self.block(depth)])
        choice = self.pick(["", "", "block", "if"] if depth > 0 else ["", "block"])
        if choice:
            text += self.pick([" ", "\n", "\n\n"]) + "else " + (
                self.block(depth) if choice == "block" else self.if_stmt(depth - 1))
        return text

    def item(self) -> str:
        kind = self.pick(["param", "decl", "func", "use", "stmt", "stmt", "stmt"])
        if kind == "param":
            return f"param {self.pick(NAMES)} = {self.expr(2)}"
        if kind == "decl":
            default = f" = {self.expr(1)}" if self.chance(30) else ""
            return f"{self.pick(['input', 'output', 'inout'])} {self.pick(NAMES)}: {self.type()}" \
                   + default
        if kind == "func":
            params = [f"{self.pick(['', 'inout '])}{self.pick(NAMES)}: {self.type(True)}"
                      for _ in range(self.draw(st.integers(0, 3)))]
            ret = self.pick(["", " -> i64", " -> f64", "->f64"])
            return f"func {self.pick(NAMES)}(" + self.join([", ".join(params)] if params else [""],
                                                            True) + f"){ret} " + self.block(3)
        if kind == "use":
            return "use " + self.pick(NAMES)
        return self.stmt(3)


@st.composite
def grammar_texts(draw) -> str:
    """A random text that the grammar accepts (a program's syntax, not its sense)."""
    t = Texts(draw)
    text = t.separators([t.item() for _ in range(draw(st.integers(0, 6)))])
    return text + t.pick(["", "", " # the end, without a newline", "\t"])


@st.composite
def edited(draw, texts) -> str:
    """A text of ``texts`` after one to four random character edits."""
    text = draw(texts)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        piece = draw(st.one_of(st.sampled_from(list("(){}[]=<>-+*;,:.#\n\r\t x1_") + [
            "if", "else", "do", "not", "0x", "1e", "..", "->"]), st.characters(codec="utf-8")))
        kind = draw(st.sampled_from(["delete", "insert", "replace"]))
        cut = draw(st.integers(1, 3))
        if kind == "delete":
            text = text[:at] + text[at + cut:]
        elif kind == "insert":
            text = text[:at] + piece + text[at:]
        else:
            text = text[:at] + piece + text[at + cut:]
    return text
