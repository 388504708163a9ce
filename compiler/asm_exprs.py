"""INCA-A's constant and index expressions, and its number literals.

Every part of an expression whose names are all ``.param``s is computed by INCA-Q's param
evaluator (:mod:`inca.compiler.incaq.params`), so constant expressions mean the same in both
languages; only ``+``, ``-`` and ``*`` by a constant may involve run-time scalars (affine indices
such as ``i+1`` or ``2*k``). Problems are :class:`Bad` with a column span, which the assembler
turns into diagnostics on its line.
"""
from __future__ import annotations


from ..lang.diagnostics import Loc
from ..lang.frozen import fields
from ..lang.isa import I64_MAX
from ..lang.numbers import NumberError, parse_float, parse_int
from ..lang.program import Affine
from .incaq.ast import Binary, BoolOp, Call, Compare, Expr, IfExpr, Name, Not, Num, Unary
from .incaq.params import ParamError, check_call, evaluate


class Bad(Exception):
    """A semantic error on one line: message, column span, hint."""

    def __init__(self, message: str, col: int, end_col: int | None = None, hint: str | None = None):
        super().__init__(message)
        self.message, self.col, self.end_col, self.hint = message, col, end_col, hint


def int_literal(tok) -> int:
    """The value of an INT token; a decimal with a leading zero is rejected (no octal in INCA-A)."""
    text = str(tok)
    value = number(parse_int, tok, "integer literal")
    if len(text) > 1 and text[0] == "0" and text[1].isdigit():
        raise Bad(f"integer literal '{text}' has a leading zero", tok.column, tok.end_column,
                   f"write {value} (INCA-A has no octal literals)")
    return value


def float_literal(tok) -> float:
    """The value of a FLOAT token; one beyond f64 (``1e999``) is an error, not infinity."""
    return number(lambda t, what: parse_float(t, what, allow_special=True), tok, "float literal")


def number(convert, tok, what: str):
    """A number token converted by the bounded parser of :mod:`inca.lang.numbers`."""
    try:
        return convert(str(tok), what)
    except NumberError as e:
        raise Bad(str(e), tok.column, tok.end_column) from None



def span(node) -> tuple[int, int | None]:
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return meta.column, meta.end_column
    col = getattr(node, "column", None)
    if col is not None:
        return col, getattr(node, "end_column", None)
    return 1, None



# INCA-A's names for the arithmetic nodes of its grammar, as INCA-Q operators.
_ARITH = {"add": "+", "sub": "-", "mul": "*", "div": "/", "mod": "%"}
# How a diagnostic names an operation that has a run-time scalar among its operands.
_OPERATION = {Call: "'{e.func}'", Not: "'not'", IfExpr: "'if ... then ... else'"}


def _first_dynamic(e: Expr, dynamic: set[int]) -> Name | Num:
    """The first run-time name or float literal in a node that cannot be evaluated (to name it)."""
    while not isinstance(e, (Name, Num)):
        kids = (k for f in fields(e) for v in [getattr(e, f.name)]
                for k in (v if isinstance(v, tuple) else (v,)))
        e = next(k for k in kids if id(k) in dynamic)
    return e


def expr(t, params: dict[str, int], file: str) -> Affine | float:
    """Evaluate an expression tree to an affine index expression or a float literal.

    Every part whose names are all .params is computed by INCA-Q's param evaluator, so
    constant expressions mean the same in both languages; only + - and * by a constant may
    involve run-time scalars (affine indices such as ``i+1`` or ``2*k``)."""
    dynamic: set[int] = set()
    try:
        return _affine(_ast(t, dynamic, params, file), dynamic, params)
    except RecursionError:
        col, end = span(t)
        raise Bad("expression is nested too deeply", col, end) from None
    except ParamError as e:
        raise Bad(e.message, e.node.loc.col, e.node.loc.end_col, e.hint) from None

def _ast(t, dynamic: set[int], params: dict[str, int], file: str) -> Expr:
    """The INCA-Q expression node of a parse tree; the ids of nodes that cannot be evaluated
    at assembly time (they hold a run-time scalar or a float literal) go into ``dynamic``."""
    col, end = span(t)
    loc = Loc(file, 0, col, end)  # only the columns are used (see expr)
    kind = t.data
    if kind in ("int", "float"):
        tok = t.children[0]
        e: Expr = (Num(int_literal(tok), False, loc) if kind == "int"
                   else Num(float_literal(tok), True, loc))
        if kind == "float":
            dynamic.add(id(e))  # floats keep their own value and their own messages
        return e
    if kind == "name":
        e = Name(str(t.children[0]), loc)
        if e.id not in params:
            dynamic.add(id(e))
        return e
    kids = [_ast(c, dynamic, params, file) for c in t.children if hasattr(c, "data")]
    toks = [str(c) for c in t.children if isinstance(c, str)]  # lark tokens are strings
    if kind == "neg":
        x = kids[0]
        if isinstance(x, Num) and (x.is_float or x.value >= -I64_MAX):
            # a minus sign before a literal is part of it (as in INCA-Q), so
            # -9223372036854775808 is a literal and not the negation of one beyond i64
            e = Num(-x.value, x.is_float, loc)
        else:
            e = Unary("-", x, loc)
    elif kind in _ARITH:
        e = Binary(_ARITH[kind], *kids, loc)
    elif kind == "binary":
        e = Binary(toks[0], *kids, loc)
    elif kind == "compare":
        e = Compare(toks[0], *kids, loc)
    elif kind in ("and_op", "or_op"):
        e = BoolOp(kind[:-3], *kids, loc)
    elif kind == "not_op":
        e = Not(kids[0], loc)
    elif kind == "if_expr":
        e = IfExpr(*kids, loc)
    elif kind == "call":
        e = Call(toks[0], tuple(kids), loc)
    else:
        raise Bad("unexpected expression", col, end)
    if any(id(k) in dynamic for k in kids):
        dynamic.add(id(e))
    return e

def _affine(e: Expr, dynamic: set[int], params: dict[str, int]) -> Affine | float:
    if id(e) not in dynamic:
        return Affine(evaluate(e, params))
    col, end = e.loc.col, e.loc.end_col
    match e:
        case Num(value=v):
            return v
        case Name(id=name):
            return Affine(0, ((name, 1),))
        case Unary(operand=x):
            v = _affine(x, dynamic, params)
            return -v if isinstance(v, float) else v.scale(-1)
        case Binary(op=op, left=left, right=right) if op in "+-*/%":
            a, b = _affine(left, dynamic, params), _affine(right, dynamic, params)
            if isinstance(a, float) or isinstance(b, float):
                raise Bad("float literals cannot take part in arithmetic here", col, end)
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                if a.is_const:
                    return b.scale(a.const)
                if b.is_const:
                    return a.scale(b.const)
                raise Bad(f"'{a}*{b}' is not affine: an index may multiply a name by a constant "
                           "only", col, end, "compute the product into a scalar with MUL first")
            if not (a.is_const and b.is_const):
                raise Bad(f"'{op}' is allowed between constants only", col, end)
            # constant after all (like i-i): still the param evaluator's division
            return Affine(evaluate(Binary(op, Num(a.const, False, left.loc),
                                          Num(b.const, False, right.loc), e.loc), {}))
    if isinstance(e, Call):
        check_call(e)  # an unknown function or a wrong arity is the first thing to fix
    what = _OPERATION.get(type(e)) or f"'{getattr(e, 'op', '?')}'"
    leaf = _first_dynamic(e, dynamic)
    if isinstance(leaf, Num):
        raise Bad("float literals cannot take part in arithmetic here", col, end)
    raise Bad(f"{what.format(e=e)} needs constant operands, and '{leaf.id}' is not a .param",
               col, end, "only + - and * by a constant may involve run-time scalars "
               "(compute the rest into a scalar with instructions)")

def const(t, what: str, params: dict[str, int], file: str) -> int:
    """An integer constant expression (shapes, params)."""
    v = expr(t, params, file)
    col, end = span(t)
    if isinstance(v, float) or not v.is_const:
        names = "" if isinstance(v, float) else f" ('{v.names[0]}' is not a .param)"
        raise Bad(f"{what} must be an integer constant{names}", col, end)
    return v.const
