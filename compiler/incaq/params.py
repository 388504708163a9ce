"""Compile-time evaluation of ``param`` expressions (integers only)."""
from __future__ import annotations

import math

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
        case Call(func=f, args=args) if f in ("min", "max", "isqrt", "abs"):
            want = 1 if f in ("isqrt", "abs") else 2
            if len(args) != want:
                raise ParamError(f"{f} takes {want} argument{'s' * (want > 1)}, not {len(args)}", e)
            vals = [evaluate(a, params) for a in args]
            if f == "isqrt":
                if vals[0] < 0:
                    raise ParamError("isqrt of a negative number", e)
                return math.isqrt(vals[0])
            if f == "abs":
                return abs(vals[0])
            return min(vals) if f == "min" else max(vals)
        case Call(func=f):
            raise ParamError(f"'{f}' cannot be used in a param expression", e,
                             "param expressions may use min, max, isqrt, abs and if-then-else")
    raise ParamError("this cannot be computed at compile time", e,
                     "param expressions use integers, other params, + - * / % << >> & | ^, "
                     "comparisons, and/or/not, min, max, isqrt, abs and if-then-else")
