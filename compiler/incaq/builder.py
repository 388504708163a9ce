"""Parse tree to syntax tree: lark's tree of ``lang/incaq.lark`` to the nodes of :mod:`.ast`."""
from __future__ import annotations

from lark import Token, Transformer_NonRecursive, v_args

from ...lang.diagnostics import Diagnostic, Loc
from ...lang.isa import I64_MAX
from ...lang.numbers import NumberError, parse_float, parse_int
from . import ast
from .grammar import Quoter



@v_args(meta=True)
class Builder(Transformer_NonRecursive):
    """Turns lark's parse tree into :mod:`.ast` nodes (bottom-up, without recursion)."""

    def __init__(self, quote: Quoter):
        super().__init__()
        self.q = quote
        self.diags: list[Diagnostic] = []

    def _keyword_loc(self, meta, keyword: str) -> Loc:
        """The span of the keyword that starts a compound statement."""
        return Loc(self.q.name, meta.line, meta.column, meta.column + len(keyword))

    # declarations

    def start(self, meta, items):
        return ast.Module(tuple(items), Loc(self.q.name, 1, 1))

    def param(self, meta, children):
        name, value = children
        return ast.Param(str(name), value, self.q.token_loc(name))

    def decl(self, meta, children):
        role, name, typ, default = children
        return ast.VarDecl(role, str(name), typ, default, self.q.token_loc(name))

    def var_decl(self, meta, children):
        name, typ, init = children
        return ast.VarDecl("var", str(name), typ, init, self.q.token_loc(name))

    def role(self, meta, children):
        return str(children[0])

    def use(self, meta, children):
        return ast.Use(str(children[0]), self.q.token_loc(children[0]))

    def func(self, meta, children):
        name, *params, ret, body = children
        ret_type = None if ret is None else ast.TypeRef(str(ret), (), self.q.token_loc(ret))
        return ast.Func(str(name), tuple(p for p in params if p is not None), ret_type, body,
                        self.q.token_loc(name))

    def fparam(self, meta, children):
        byref, name, typ = children
        return ast.FuncParam(str(name), typ, byref is not None, self.q.token_loc(name))

    def byref(self, meta, children):
        return True

    def type(self, meta, children):
        base, *dims = children
        return ast.TypeRef(str(base), tuple(dims), self.q.meta_loc(meta))

    ptype = type

    def base(self, meta, children):
        return children[0]

    # statements

    def assign(self, meta, children):
        target, value = children
        return ast.Assign(target, value, self.q.meta_loc(meta))

    def call_stmt(self, meta, children):
        return ast.CallStmt(children[0], self.q.meta_loc(meta))

    def while_stmt(self, meta, children):
        cond, body = children
        return ast.While(cond, body, self._keyword_loc(meta, "while"))

    def if_stmt(self, meta, children):
        cond, then, orelse = children
        if orelse is None:
            orelse = ()
        elif isinstance(orelse, ast.If):
            orelse = (orelse,)
        return ast.If(cond, then, orelse, self._keyword_loc(meta, "if"))

    def for_stmt(self, meta, children):
        var, lo, hi, body = children
        return ast.For(str(var), lo, hi, body, self._keyword_loc(meta, "for"))

    def do_stmt(self, meta, children):
        body, cond = children
        return ast.DoWhile(body, cond, self._keyword_loc(meta, "do"))

    def loop_stmt(self, meta, children):
        return ast.Loop(children[0], self._keyword_loc(meta, "loop"))

    def break_stmt(self, meta, children):
        return ast.Break(self._keyword_loc(meta, "break"))

    def continue_stmt(self, meta, children):
        return ast.Continue(self._keyword_loc(meta, "continue"))

    def return_stmt(self, meta, children):
        return ast.Return(children[0], self.q.meta_loc(meta))

    def block(self, meta, children):
        return tuple(children)

    # expressions

    def if_expr(self, meta, children):
        return ast.IfExpr(*children, self.q.meta_loc(meta))

    def or_op(self, meta, children):
        return ast.BoolOp("or", *children, self.q.meta_loc(meta))

    def and_op(self, meta, children):
        return ast.BoolOp("and", *children, self.q.meta_loc(meta))

    def not_op(self, meta, children):
        return ast.Not(children[0], self.q.meta_loc(meta))

    def compare(self, meta, children):
        left, op, right = children
        return ast.Compare(str(op), left, right, self.q.meta_loc(meta))

    def binary(self, meta, children):
        left, op, right = children
        return ast.Binary(str(op), left, right, self.q.meta_loc(meta))

    def neg(self, meta, children):
        operand = children[1]
        if isinstance(operand, ast.Num) and (operand.is_float or operand.value >= -I64_MAX):
            # `-7` is a literal, as the spec lists it, so `x = -7` is a simple PUTL at -O0.
            # `-(-9223372036854775808)` stays a negation: it wraps to itself in i64.
            return ast.Num(-operand.value, operand.is_float, self.q.meta_loc(meta))
        return ast.Unary("-", operand, self.q.meta_loc(meta))

    def table(self, meta, children):
        return ast.Table(tuple(children), self.q.meta_loc(meta))

    def signed(self, meta, children):
        minus, number = children
        value = self._number(number)
        if minus is not None:
            value = ast.Num(-value.value, value.is_float, self.q.meta_loc(meta))
        return value

    def call(self, meta, children):
        callee, *args = children
        return ast.Call(str(callee), tuple(a for a in args if a is not None),
                        self.q.meta_loc(meta))

    def callee(self, meta, children):
        return children[0]

    def index(self, meta, children):
        base, *indices = children
        return ast.Index(str(base), tuple(indices), self.q.meta_loc(meta))

    def name(self, meta, children):
        return ast.Name(str(children[0]), self.q.meta_loc(meta))

    def int(self, meta, children):
        return self._number(children[0])

    float = int

    def _number(self, tok: Token) -> ast.Num:
        loc = self.q.token_loc(tok)
        is_float = tok.type == "FLOAT"
        try:
            value = parse_float(str(tok), "float literal") if is_float else parse_int(str(tok),
                                                                                      "integer literal")
        except NumberError as e:  # thousands of digits, or a float beyond f64 (never inf)
            self.diags.append(self.q.diag(loc, str(e)))
            value = 0.0 if is_float else 0
        return ast.Num(value, is_float, loc)
