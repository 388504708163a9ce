"""The INCA-Q fast path: a hand-written recursive-descent parser for text that has no errors.

lark's LALR parser, with its tree building and the transformer to :mod:`.ast`, takes about 200 us
a statement, most of the time of compiling a large kernel. This parser reads the token stream of
:mod:`.fast_lexer` (the one lark's parser reads) and builds the same syntax tree, with the same
locations, in a small fraction of that. ``lang/incaq.lark`` stays the normative grammar: each
method below names the rule it follows.

It reports nothing. On any text the grammar rejects, and on any text the lark path would reject
after parsing (a literal :func:`.parse_int`/:func:`.parse_float` refuse, a parse tree nested more
than ``max_nesting`` levels or chaining more than ``ast.MAX_CHAIN`` operators), it raises
:class:`.BailOut`, and :func:`.parser.parse` runs the lark path, whose diagnostics are therefore
the only ones. To decide the last two exactly, each parse method also returns the height of the
lark parse tree it stands for (counted as :func:`.parser._too_deep` counts depth), and each
operator chain its length.

Locations: a node's ``loc`` spans its tokens as lark's ``propagate_positions`` does, where a
parenthesised operand extends its parent but not itself: ``(a + b) * c`` spans from '(' while
its left operand starts at 'a'. Hence expressions travel as ``(node, first, last, height, links)``,
``first``/``last`` being the indices of the first and last token including parentheses, and
``links`` the length of the left-leaning chain of the same operator the node heads.
"""
from __future__ import annotations

from ...lang.diagnostics import Loc, Source
from ...lang.isa import I64_MAX
from ...lang.numbers import NumberError, parse_float, parse_int
from . import ast
from .fast_lexer import BailOut, Tokens, tokenize

__all__ = ["BailOut", "parse_fast"]

_SEPARATORS = frozenset({"_NL", "_SEMI"})
_TYPES = frozenset({"I64", "F64"})
_ROLES = frozenset({"INPUT", "OUTPUT", "INOUT"})
# Tokens that start an expression (after `return`, an expression follows exactly when one of them
# does, as in the LALR table).
_EXPR_START = frozenset({"NAME", "INT", "FLOAT", "LPAR", "MINUS", "NOT", "IF", "I64", "F64"})
# Binding power of each infix operator, loosest first; `not` sits between 'and' and comparisons,
# and from _BINARY on the operators are those of the `binary` rule.
_OR, _AND, _NOT, _COMPARE, _BINARY = 1, 2, 3, 4, 5
_PRECEDENCE = {
    "OR": _OR, "AND": _AND,
    "LT": _COMPARE, "LE": _COMPARE, "GT": _COMPARE, "GE": _COMPARE, "EQ": _COMPARE, "NE": _COMPARE,
    "BAR": _BINARY, "CARET": 6, "AMP": 7, "SHL": 8, "SHR": 8, "PLUS": 9, "MINUS": 9,
    "STAR": 10, "SLASH": 10, "PERCENT": 10,
}

#: An expression as the parse methods return it: (node, first token, last token, parse-tree
#: height, chain links); see the module docstring.
_Parsed = tuple[object, int, int, int, int]


def parse_fast(source: Source, max_nesting: int) -> ast.Module:
    """The syntax tree of ``source`` exactly as the lark path builds it, or :class:`BailOut`."""
    with ast.room_for_chains():  # up to max_nesting levels of a dozen frames each
        return _Parser(source.name, tokenize(source.text), max_nesting).module()


class _Parser:
    """One pass over one token stream; methods leave ``self.i`` at the token after their rule."""

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
        return Loc(self.name, line, self.cols[first], end)

    def token(self, i: int) -> Loc:
        """The span of token ``i``."""
        col = self.cols[i]
        return Loc(self.name, self.lines[i], col, col + len(self.values[i]))

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

    def skip_separators(self) -> None:
        """Past any newlines and ';'."""
        kinds, i = self.kinds, self.i
        while kinds[i] in _SEPARATORS:
            i += 1
        self.i = i

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
        return ast.Num(value, is_float, Loc(self.name, self.lines[i], col, col + len(text)))

    # -- declarations --

    def module(self) -> ast.Module:
        """start: _sep* (_item _sep+)* _item?"""
        items = []
        height = 0
        kinds = self.kinds
        self.skip_separators()
        while kinds[self.i] != "$END":
            item, h = self.item()
            items.append(item)
            height = h if h > height else height
            if kinds[self.i] == "$END":
                break
            if kinds[self.i] not in _SEPARATORS:
                raise BailOut
            self.skip_separators()
        if height + 1 > self.max_nesting:
            raise BailOut
        return ast.Module(tuple(items), Loc(self.name, 1, 1))

    def item(self) -> tuple[object, int]:
        """_item: param | decl | func | use | _stmt (with the height of its parse tree)"""
        kind = self.kinds[self.i]
        if kind == "PARAM":  # param: "param" NAME "=" expr
            self.i += 1
            name = self.expect("NAME")
            self.expect("EQUAL")
            value, _, _, h, _ = self.expr()
            return ast.Param(self.values[name], value, self.token(name)), h + 1
        if kind in _ROLES:  # decl: role NAME ":" type ["=" expr]
            role = self.i
            self.i += 1
            name = self.expect("NAME")
            self.expect("COLON")
            typ, h = self.type(False)
            default = None
            if self.kinds[self.i] == "EQUAL":
                self.i += 1
                default, _, _, eh, _ = self.expr()
                h = max(h, eh)
            return ast.VarDecl(self.values[role], self.values[name], typ, default,
                               self.token(name)), h + 1
        if kind == "FUNC":
            return self.func()
        if kind == "USE":  # use: "use" NAME
            self.i += 1
            name = self.expect("NAME")
            return ast.Use(self.values[name], self.token(name)), 1
        return self.stmt()

    def func(self) -> tuple[ast.Func, int]:
        """func: "func" NAME "(" [fparam ("," fparam)*] ")" ["->" base] block"""
        self.i += 1
        name = self.expect("NAME")
        self.expect("LPAR")
        params = []
        h = 1
        if self.kinds[self.i] != "RPAR":
            while True:
                param, ph = self.fparam()
                params.append(param)
                h = max(h, ph)
                if self.kinds[self.i] != "COMMA":
                    break
                self.i += 1
        self.expect("RPAR")
        ret = None
        if self.kinds[self.i] == "ARROW":
            self.i += 1
            base = self.i
            if self.kinds[base] not in _TYPES:
                raise BailOut
            self.i += 1
            ret = ast.TypeRef(self.values[base], (), self.token(base))
        body, bh = self.block()
        return ast.Func(self.values[name], tuple(params), ret, body, self.token(name)), \
            max(h, bh) + 1

    def fparam(self) -> tuple[ast.FuncParam, int]:
        """fparam: [byref] NAME ":" ptype"""
        byref = self.kinds[self.i] == "INOUT"
        if byref:
            self.i += 1
        name = self.expect("NAME")
        self.expect("COLON")
        typ, h = self.type(True)
        return ast.FuncParam(self.values[name], typ, byref, self.token(name)), h + 1

    def type(self, open_extent: bool) -> tuple[ast.TypeRef, int]:
        """type: base ("[" expr "]")*, or with ``open_extent`` ptype: base ("[" [expr] "]")*"""
        base = last = self.i
        if self.kinds[base] not in _TYPES:
            raise BailOut
        self.i += 1
        dims: list[object] = []
        h = 1
        while self.kinds[self.i] == "LSQB":
            self.i += 1
            if open_extent and self.kinds[self.i] == "RSQB":
                dims.append(None)
            else:
                dim, _, _, dh, _ = self.expr()
                dims.append(dim)
                h = max(h, dh)
            last = self.expect("RSQB")
        return ast.TypeRef(self.values[base], tuple(dims), self.span(base, last)), h + 1

    def var_decl(self) -> tuple[ast.VarDecl, int]:
        """var_decl: "var" NAME ":" type ["=" (signed | table)]"""
        self.i += 1
        name = self.expect("NAME")
        self.expect("COLON")
        typ, h = self.type(False)
        init = None
        if self.kinds[self.i] == "EQUAL":
            self.i += 1
            if self.kinds[self.i] == "LSQB":  # table: "[" signed ("," signed)* "]"
                first = self.i
                self.i += 1
                values = [self.signed()]
                while self.kinds[self.i] == "COMMA":
                    self.i += 1
                    values.append(self.signed())
                init = ast.Table(tuple(values), self.span(first, self.expect("RSQB")))
                h = max(h, 2)
            else:
                init = self.signed()
        return ast.VarDecl("var", self.values[name], typ, init, self.token(name)), h + 1

    def signed(self) -> ast.Num:
        """signed: [MINUS] (INT | FLOAT)"""
        first = number = self.i
        if self.kinds[number] == "MINUS":
            number += 1
        if self.kinds[number] not in ("INT", "FLOAT"):
            raise BailOut
        self.i = number + 1
        value = self.number(number)
        if number == first:
            return value
        return ast.Num(-value.value, value.is_float, self.span(first, number))

    # -- statements --

    def block(self) -> tuple[tuple, int]:
        """block: "{" _sep* (_stmt _sep+)* _stmt? "}" """
        self.expect("LBRACE")
        self.enter()
        kinds = self.kinds
        self.skip_separators()
        stmts = []
        h = 0
        while kinds[self.i] != "RBRACE":
            stmt, sh = self.stmt()
            stmts.append(stmt)
            h = sh if sh > h else h
            if kinds[self.i] == "RBRACE":
                break
            if kinds[self.i] not in _SEPARATORS:
                raise BailOut
            self.skip_separators()
        self.i += 1
        self.nest -= 1
        return tuple(stmts), h + 1

    def stmt(self) -> tuple[object, int]:
        """_stmt: var_decl | assign | call_stmt | while_stmt | if_stmt | for_stmt | ..."""
        i = self.i
        kind = self.kinds[i]
        if kind == "NAME" or kind in _TYPES:
            return self.simple()
        if kind == "WHILE":  # while_stmt: "while" expr "do" block
            self.i += 1
            cond, _, _, ch, _ = self.expr()
            self.expect("DO")
            body, bh = self.block()
            return ast.While(cond, body, self.token(i)), max(ch, bh) + 1
        if kind == "IF":
            return self.if_stmt()
        if kind == "FOR":  # for_stmt: "for" NAME "in" expr ".." expr "do" block
            self.i += 1
            var = self.expect("NAME")
            self.expect("IN")
            lo, _, _, lh, _ = self.expr()
            self.expect("DOTDOT")
            hi, _, _, hh, _ = self.expr()
            self.expect("DO")
            body, bh = self.block()
            return ast.For(self.values[var], lo, hi, body, self.token(i)), max(lh, hh, bh) + 1
        if kind == "RETURN":  # return_stmt: "return" [expr]
            self.i += 1
            if self.kinds[self.i] not in _EXPR_START:
                return ast.Return(None, self.token(i)), 1
            value, _, last, h, _ = self.expr()
            return ast.Return(value, self.span(i, last)), h + 1
        if kind == "DO":  # do_stmt: "do" block "while" expr
            self.i += 1
            body, bh = self.block()
            self.expect("WHILE")
            cond, _, _, ch, _ = self.expr()
            return ast.DoWhile(body, cond, self.token(i)), max(bh, ch) + 1
        if kind == "LOOP":  # loop_stmt: "loop" block
            self.i += 1
            body, bh = self.block()
            return ast.Loop(body, self.token(i)), bh + 1
        if kind == "BREAK":
            self.i += 1
            return ast.Break(self.token(i)), 1
        if kind == "CONTINUE":
            self.i += 1
            return ast.Continue(self.token(i)), 1
        if kind == "VAR":
            return self.var_decl()
        raise BailOut

    def simple(self) -> tuple[object, int]:
        """assign: target "=" expr; call_stmt: call (both start with a name, or i64/f64)"""
        i = self.i
        after = self.kinds[i + 1]
        if after == "LPAR":
            call, _, last, h, _ = self.call(i)
            return ast.CallStmt(call, self.span(i, last)), h + 1
        if self.kinds[i] != "NAME":
            raise BailOut
        if after == "EQUAL":  # ?target: NAME -> name
            self.i = i + 2
            name, col = self.values[i], self.cols[i]  # self.token(i), inline
            target, th = ast.Name(name, Loc(self.name, self.lines[i], col, col + len(name))), 1
        elif after == "LSQB":  # ?target: NAME ("[" expr "]")+ -> index
            target, _, _, th, _ = self.index(i)
            self.expect("EQUAL")
        else:
            raise BailOut
        value, _, last, h, _ = self.expr()
        return ast.Assign(target, value, self.span(i, last)), (th if th > h else h) + 1

    def if_stmt(self) -> tuple[ast.If, int]:
        """if_stmt: "if" expr "then" block ["else" (block | if_stmt)]"""
        i = self.i
        self.i += 1
        cond, _, _, ch, _ = self.expr()
        self.expect("THEN")
        then, th = self.block()
        orelse: tuple = ()
        oh = 0
        if self.kinds[self.i] == "ELSE":
            self.i += 1
            if self.kinds[self.i] == "LBRACE":
                orelse, oh = self.block()
            elif self.kinds[self.i] == "IF":
                self.enter()
                inner, oh = self.if_stmt()
                self.nest -= 1
                orelse = (inner,)
            else:
                raise BailOut
        return ast.If(cond, then, orelse, self.token(i)), max(ch, th, oh) + 1

    # -- expressions --

    def expr(self) -> _Parsed:
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

    def infix(self, min_power: int, left: _Parsed | None = None) -> _Parsed:
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
            loc = Loc(self.name, line, self.cols[first], self.cols[last] + len(self.values[last])
                      if self.lines[last] == line else None)
            if power >= _BINARY:
                node = ast.Binary(self.values[op], lnode, rnode, loc)
                chained = type(lnode) is ast.Binary
            elif power == _COMPARE:
                node = ast.Compare(self.values[op], lnode, rnode, loc)
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

    def factor(self) -> _Parsed:
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
            return ast.Name(name, Loc(self.name, self.lines[first], col, col + len(name))), \
                first, first, 1, 0
        if kind == "INT" or kind == "FLOAT":
            self.i = first + 1
            return self.number(first), first, first, 1, 0
        if kind == "LPAR":  # "(" expr ")": the node is the inner one, the span includes both
            self.i += 1
            node, _, _, h, links = self.expr()
            return node, first, self.expect("RPAR"), h, links
        if kind in _TYPES and kinds[first + 1] == "LPAR":
            return self.call(first)
        raise BailOut

    def index(self, name: int) -> _Parsed:
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
        return (ast.Index(self.values[name], tuple(indices), self.span(name, last)), name, last,
                h + 1, 0)

    def call(self, callee: int) -> _Parsed:
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
