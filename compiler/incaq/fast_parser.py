"""The INCA-Q fast path: a hand-written recursive-descent parser for text that has no errors.

lark's LALR parser, with its tree building and the transformer to :mod:`.ast`, takes about 200 us
a statement, most of the time of compiling a large kernel. This parser reads the token stream of
:mod:`.fast_lexer` (the one lark's parser reads) and builds the same syntax tree, with the same
locations, in a small fraction of that. ``lang/incaq.lark`` stays the normative grammar: each
method below, and each of :mod:`.fast_exprs` (expressions), names the rule it follows.

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

from ...lang.diagnostics import Loc, Source, make_loc
from ...lang.frozen import maker
from . import ast
from .fast_exprs import TYPES, ExprParser, _Name
from .fast_lexer import BailOut, tokenize

__all__ = ["BailOut", "parse_fast"]

_Assign, _For, _If, _While = (maker(ast.Assign), maker(ast.For), maker(ast.If),
                              maker(ast.While))  # (see fast_exprs.py)
_SEPARATORS = frozenset({"_NL", "_SEMI"})
_ROLES = frozenset({"INPUT", "OUTPUT", "INOUT"})
# Tokens that start an expression (after `return`, an expression follows exactly when one of them
# does, as in the LALR table).
_EXPR_START = frozenset({"NAME", "INT", "FLOAT", "LPAR", "MINUS", "NOT", "IF", "I64", "F64"})


def parse_fast(source: Source, max_nesting: int) -> ast.Module:
    """The syntax tree of ``source`` exactly as the lark path builds it, or :class:`BailOut`."""
    with ast.room_for_chains():  # up to max_nesting levels of a dozen frames each
        return _Parser(source.name, tokenize(source.text), max_nesting).module()


class _Parser(ExprParser):
    """The declarations and statements of one token stream (expressions: :class:`ExprParser`)."""

    # -- helpers --

    def skip_separators(self) -> None:
        """Past any newlines and ';'."""
        kinds, i = self.kinds, self.i
        while kinds[i] in _SEPARATORS:
            i += 1
        self.i = i

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
            if self.kinds[base] not in TYPES:
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
        if self.kinds[base] not in TYPES:
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
        if kind == "NAME" or kind in TYPES:
            return self.simple()
        if kind == "WHILE":  # while_stmt: "while" expr "do" block
            self.i += 1
            cond, _, _, ch, _ = self.expr()
            self.expect("DO")
            body, bh = self.block()
            return _While(cond, body, self.token(i)), max(ch, bh) + 1
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
            return _For(self.values[var], lo, hi, body, self.token(i)), max(lh, hh, bh) + 1
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
            target, th = _Name(name, make_loc((self.name, self.lines[i], col, col + len(name)))), 1
        elif after == "LSQB":  # ?target: NAME ("[" expr "]")+ -> index
            target, _, _, th, _ = self.index(i)
            self.expect("EQUAL")
        else:
            raise BailOut
        value, _, last, h, _ = self.expr()
        return _Assign(target, value, self.span(i, last)), (th if th > h else h) + 1

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
        return _If(cond, then, orelse, self.token(i)), max(ch, th, oh) + 1
