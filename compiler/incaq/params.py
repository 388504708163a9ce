"""Compile-time evaluation of ``param`` expressions (integers only).

This is the one evaluator of constant expressions for both languages: INCA-Q's ``param`` values
and array dimensions, and INCA-A's ``.param`` values, dimensions and constant operands (the
assembler builds these nodes from its own parse tree), so the two can never disagree.
"""
from __future__ import annotations

import math

from ...lang.diagnostics import did_you_mean
from ...lang.isa import I64_MAX, I64_MIN
from .ast import Binary, BoolOp, Call, Compare, Expr, IfExpr, Name, Not, Num, Unary


class ParamError(Exception):
    """A param expression that cannot be evaluated; ``node`` is where to point."""

    def __init__(self, message: str, node, hint: str | None = None):
        super().__init__(message)
        self.message, self.node, self.hint = message, node, hint


def _cdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


_BIN = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "/": _cdiv, "%": lambda a, b: a - _cdiv(a, b) * b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
}
# The functions a param expression may call, with their arity.
FUNCTIONS = {"min": 2, "max": 2, "isqrt": 1, "abs": 1}
_FUNCTIONS_HINT = "param expressions may use min, max, isqrt, abs and if-then-else"

_REL = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def evaluate(e: Expr, params: dict[str, int]) -> int:
    """The integer value of a param expression over already-known ``params``.

    Every value, intermediate ones included, must fit in i64 (params become i64 immediates), which
    also keeps the evaluation of any text cheap.
    """
    v = _evaluate(e, params)
    if not I64_MIN <= v <= I64_MAX:
        raise ParamError(f"the value {v} does not fit in i64", e)
    return v


def _evaluate(e: Expr, params: dict[str, int]) -> int:
    match e:
        case Num(value=v, is_float=False):
            return int(v)
        case Num():
            raise ParamError("params are integers; this literal is a float", e)
        case Name(id=n):
            if n not in params:
                raise ParamError(f"'{n}' is not a param defined before this point", e)
            return params[n]
        case Unary(op="-", operand=x):
            return -evaluate(x, params)
        case Binary(op=op, left=a, right=b) if op in _BIN:
            x, y = evaluate(a, params), evaluate(b, params)
            if op in "/%" and y == 0:
                raise ParamError("division by zero in a param expression", e)
            if op in ("<<", ">>") and not 0 <= y <= 63:
                raise ParamError(f"shift count {y} in a param expression is not between 0 and 63", e)
            return _BIN[op](x, y)
        case Compare(op=op, left=a, right=b):
            return int(_REL[op](evaluate(a, params), evaluate(b, params)))
        case BoolOp(op="and", left=a, right=b):
            return int(bool(evaluate(a, params)) and bool(evaluate(b, params)))
        case BoolOp(op="or", left=a, right=b):
            return int(bool(evaluate(a, params)) or bool(evaluate(b, params)))
        case Not(operand=x):
            return int(not evaluate(x, params))
        case IfExpr(cond=c, then=t, orelse=f):
            return evaluate(t, params) if evaluate(c, params) else evaluate(f, params)
        case Call(func=f, args=args):
            check_call(e)
            vals = [evaluate(a, params) for a in args]
            if f == "isqrt":
                if vals[0] < 0:
                    raise ParamError("isqrt of a negative number", e)
                return math.isqrt(vals[0])
            if f == "abs":
                return abs(vals[0])
            return min(vals) if f == "min" else max(vals)
    raise ParamError("this cannot be computed at compile time", e,
                     "param expressions use integers, other params, + - * / % << >> & | ^, "
                     "comparisons, and/or/not, min, max, isqrt, abs and if-then-else")


def check_call(e: Call) -> None:
    """Reject a call of anything but a param function, or with the wrong number of arguments.

    Separate from :func:`evaluate` so that the assembler, which leaves expressions over run-time
    scalars unevaluated, words a misused function exactly as a param expression does."""
    want = FUNCTIONS.get(e.func)
    if want is None:
        raise ParamError(f"'{e.func}' cannot be used in a param expression", e,
                         did_you_mean(e.func, FUNCTIONS) or _FUNCTIONS_HINT)
    if len(e.args) != want:
        raise ParamError(f"{e.func} takes {want} argument{'s' * (want > 1)}, not {len(e.args)}", e)
