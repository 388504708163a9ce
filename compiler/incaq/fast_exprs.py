"""The expressions of the INCA-Q fast path (:mod:`.fast_parser`, which parses the rest): the
token cursor both share and the rules from ``expr`` down to ``atom``.

Every parse method returns :data:`Parsed`, ``(node, first, last, height, links)``, and raises
:class:`.BailOut` wherever the lark path would report something; :mod:`.fast_parser`'s docstring
says why and how the locations are made.
"""
from __future__ import annotations

from ...lang.diagnostics import Loc, make_loc
from ...lang.frozen import maker
from ...lang.isa import I64_MAX
from ...lang.numbers import NumberError, parse_float, parse_int
from . import ast
from .fast_lexer import BailOut, Tokens

TYPES = frozenset({"I64", "F64"})
# Binding power of each infix operator, loosest first; `not` sits between 'and' and comparisons,
# and from _BINARY on the operators are those of the `binary` rule.
_OR, _AND, _NOT, _COMPARE, _BINARY = 1, 2, 3, 4, 5
_PRECEDENCE = {
    "OR": _OR, "AND": _AND,
    "LT": _COMPARE, "LE": _COMPARE, "GT": _COMPARE, "GE": _COMPARE, "EQ": _COMPARE, "NE": _COMPARE,
    "BAR": _BINARY, "CARET": 6, "AMP": 7, "SHL": 8, "SHR": 8, "PLUS": 9, "MINUS": 9,
    "STAR": 10, "SLASH": 10, "PERCENT": 10,
}

# The nodes made most, made by their makers (lang/frozen.py), which store fields in fewer
# instructions than the nodes' own __init__
_Name, _Num, _Binary, _Compare, _Index = (maker(ast.Name), maker(ast.Num), maker(ast.Binary),
                                          maker(ast.Compare), maker(ast.Index))

#: An expression as the parse methods return it: (node, first token, last token, parse-tree
#: height, chain links); see :mod:`.fast_parser`'s docstring.
Parsed = tuple[object, int, int, int, int]


class ExprParser:
    """A cursor over one token stream and the expression rules; methods leave ``self.i`` at the
    token after their rule."""

    def __init__(self, name: str, toks: Tokens, max_nesting: int):
        self.name = name
        self.kinds: list[str] = toks.kinds
        self.values: list[str] = toks.values
        self.lines: list[int] = toks.lines
        self.cols: list[int] = toks.cols
        self.i = 0
        # Python frames in use, in levels of expressions and blocks (parentheses counted too,
        # though lark's tree has no level for them): past max_nesting the parse bails out, which
        # bounds the recursion whatever the text.
        self.nest = 0
        self.max_nesting = max_nesting
        self.numbers: dict[str, int | float] = {}

    # -- helpers --

    def span(self, first: int, last: int) -> Loc:
        """From token ``first`` to the end of token ``last`` (end column only on one line)."""
        line = self.lines[first]
        end = self.cols[last] + len(self.values[last]) if self.lines[last] == line else None
        return make_loc((self.name, line, self.cols[first], end))

    def token(self, i: int) -> Loc:
        """The span of token ``i``."""
        col = self.cols[i]
        return make_loc((self.name, self.lines[i], col, col + len(self.values[i])))

    def expect(self, kind: str) -> int:
        """The index of the current token, which must be a ``kind``; moves past it."""
        i = self.i
        if self.kinds[i] != kind:
            raise BailOut
        self.i = i + 1
        return i

    def enter(self) -> None:
        """One level deeper (the caller takes ``self.nest`` back down when it is done)."""
        self.nest += 1
        if self.nest > self.max_nesting:
            raise BailOut

    def number(self, i: int) -> ast.Num:
        """An INT or FLOAT token, converted as :class:`.builder.Builder` converts it."""
        text = self.values[i]
        is_float = self.kinds[i] == "FLOAT"
        value = self.numbers.get(text)
        if value is None:
            try:
                value = parse_float(text, "float literal") if is_float else parse_int(
                    text, "integer literal")
            except NumberError:
                raise BailOut from None
            self.numbers[text] = value
        col = self.cols[i]  # self.token(i), inline
        return _Num(value, is_float, make_loc((self.name, self.lines[i], col, col + len(text))))

    # -- expressions --

    def expr(self) -> Parsed:
        """?expr: or_test | "if" expr "then" expr "else" expr -> if_expr"""
        self.nest += 1  # self.enter(), inline
        if self.nest > self.max_nesting:
            raise BailOut
        if self.kinds[self.i] == "IF":
            first = self.i
            self.i += 1
            cond, _, _, ch, _ = self.expr()
            self.expect("THEN")
            then, _, _, th, _ = self.expr()
            self.expect("ELSE")
            orelse, _, last, oh, _ = self.expr()
            result = (ast.IfExpr(cond, then, orelse, self.span(first, last)), first, last,
                      max(ch, th, oh) + 1, 0)
        else:
            result = self.infix(0)
        self.nest -= 1
        return result

    def infix(self, min_power: int, left: Parsed | None = None) -> Parsed:
        """The rules from or_test to term, by precedence climbing: operators binding at least
        ``min_power``, each loop step one left-associative level (comparisons do not chain).
        ``left`` is the first operand when the caller has parsed it."""
        kinds = self.kinds
        if left is None:
            if kinds[self.i] == "NOT" and min_power <= _NOT:  # ?not_test: "not" not_test -> not_op
                first = self.i
                self.i += 1
                self.enter()
                operand, _, last, h, _ = self.infix(_NOT)
                self.nest -= 1
                left = (ast.Not(operand, self.span(first, last)), first, last, h + 1, 0)
            else:
                left = self.factor()
        while True:
            op = self.i
            power = _PRECEDENCE.get(kinds[op])
            if power is None or power < min_power:
                return left
            self.i = op + 1
            # The right operand is self.infix(power + 1); most are one factor followed by an
            # operator that binds no tighter, which needs no call of its own.
            if kinds[op + 1] == "NOT" and power < _NOT:
                right = self.infix(power + 1)
            else:
                right = self.factor()
                after = _PRECEDENCE.get(kinds[self.i])
                if after is not None and after > power:
                    right = self.infix(power + 1, right)
            lnode, first, _, lh, links = left
            rnode, _, last, rh, _ = right
            line = self.lines[first]  # self.span(first, last), inline
            loc = make_loc((self.name, line, self.cols[first], self.cols[last] + len(self.values[last])
                            if self.lines[last] == line else None))
            if power >= _BINARY:
                node = _Binary(self.values[op], lnode, rnode, loc)
                chained = type(lnode) is ast.Binary
            elif power == _COMPARE:
                node = _Compare(self.values[op], lnode, rnode, loc)
                if _PRECEDENCE.get(kinds[self.i]) == _COMPARE:
                    raise BailOut  # `a < b < c`: comparisons do not chain
                chained = False
            else:
                word = "or" if power == _OR else "and"
                node = ast.BoolOp(word, lnode, rnode, loc)
                chained = type(lnode) is ast.BoolOp and lnode.op == word
            # As in _too_deep: a left operand of the same operator continues a chain at the same
            # level, anything else is a level deeper.
            links = links + 1 if chained else 0
            if links > ast.MAX_CHAIN:
                raise BailOut
            h = lh if chained else lh + 1
            left = (node, first, last, h if h > rh else rh + 1, links)

    def factor(self) -> Parsed:
        """?factor: postfix | MINUS factor -> neg; ?postfix and ?atom"""
        kinds = self.kinds
        first = self.i
        kind = kinds[first]
        if kind == "MINUS":
            self.i += 1
            self.enter()
            operand, _, last, h, _ = self.factor()
            self.nest -= 1
            loc = self.span(first, last)
            if type(operand) is ast.Num and (operand.is_float or operand.value >= -I64_MAX):
                # as in Builder.neg: `-7` is a literal; `-(-9223372036854775808)` a negation
                return ast.Num(-operand.value, operand.is_float, loc), first, last, h + 1, 0
            return ast.Unary("-", operand, loc), first, last, h + 1, 0
        if kind == "NAME":
            after = kinds[first + 1]
            if after == "LSQB":
                return self.index(first)
            if after == "LPAR":
                return self.call(first)
            self.i = first + 1
            name, col = self.values[first], self.cols[first]  # self.token(first), inline
            return _Name(name, make_loc((self.name, self.lines[first], col, col + len(name)))), \
                first, first, 1, 0
        if kind == "INT" or kind == "FLOAT":
            self.i = first + 1
            return self.number(first), first, first, 1, 0
        if kind == "LPAR":  # "(" expr ")": the node is the inner one, the span includes both
            self.i += 1
            node, _, _, h, links = self.expr()
            return node, first, self.expect("RPAR"), h, links
        if kind in TYPES and kinds[first + 1] == "LPAR":
            return self.call(first)
        raise BailOut

    def index(self, name: int) -> Parsed:
        """NAME ("[" expr "]")+ -> index"""
        self.i = name + 1
        indices = []
        h = 0
        last = name
        while self.kinds[self.i] == "LSQB":
            self.i += 1
            index, _, _, ih, _ = self.expr()
            indices.append(index)
            h = ih if ih > h else h
            last = self.expect("RSQB")
        return (_Index(self.values[name], tuple(indices), self.span(name, last)), name, last,
                h + 1, 0)

    def call(self, callee: int) -> Parsed:
        """call: callee "(" [expr ("," expr)*] ")" (the current token is the callee)"""
        self.i = callee + 2
        args = []
        h = 1
        if self.kinds[self.i] != "RPAR":
            while True:
                arg, _, _, ah, _ = self.expr()
                args.append(arg)
                h = max(h, ah)
                if self.kinds[self.i] != "COMMA":
                    break
                self.i += 1
        last = self.expect("RPAR")
        return (ast.Call(self.values[callee], tuple(args), self.span(callee, last)), callee, last,
                h + 1, 0)
