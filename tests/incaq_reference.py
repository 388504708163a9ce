"""The reference semantics of the INCA-Q fuzz tests (a helper module, not collected).

A small interpreter written from INCA-Q.md and INCA-A.md, independent of the compiler (wrapping
i64, C division, i64 op f64 promotes to f64, short-circuit conditions and truth values, if values
that run one arm, break and continue, scalars by value, inout scalars and arrays by reference,
self tail calls as plain recursion), for the generated programs of incaq_generators.py;
test_incaq_fuzz.py compares the NIC model with it.
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from incaq_generators import Gen

I64_MIN, I64_MAX = -(2**63), 2**63 - 1
N = 6  # every 1-D array has N elements (the param N); M is 2 x 3
# name: (type, shape, role); H holds valid indices (0 .. N-1) for indirect indexing
ARRAYS = {"A": ("f64", (N,), "input"), "V": ("i64", (N,), "input"), "H": ("i64", (N,), "input"),
          "M": ("i64", (2, 3), "input"), "IO": ("i64", (N,), "inout"),
          "OI": ("i64", (N,), "output"), "OF": ("f64", (N,), "output"), "T": ("f64", (N,), "var")}


class Fault(Exception):
    """What the NIC must stop on: i64 division by zero, an f64 with no i64 value."""


# ---- the reference semantics ------------------------------------------------------------------


def wrap(v: int) -> int:
    """Two's-complement wrap into i64."""
    return (v - I64_MIN) % 2**64 + I64_MIN


def convert(v, t: str):
    """``v`` converted to type ``t``: f64 exactly, i64 truncated toward zero (or Fault)."""
    if t == "f64":
        return float(v)
    if isinstance(v, float):
        if math.isnan(v) or math.isinf(v) or not I64_MIN <= math.trunc(v) <= I64_MAX:
            raise Fault(v)
        return math.trunc(v)
    return v


def arith(op: str, a, b, t: str):
    """a op b in type t (operands already promoted)."""
    a, b = convert(a, t), convert(b, t)
    if t == "f64":
        if op in ("min", "max"):
            if math.isnan(a) or math.isnan(b):
                return math.nan
            return min(a, b) if op == "min" else max(a, b)
        if op == "/":
            if b == 0:
                if a == 0 or math.isnan(a):
                    return math.nan
                return math.copysign(math.inf, a) * math.copysign(1, b)
            return a / b
        return {"+": a + b, "-": a - b, "*": a * b}[op]
    if op in ("/", "%"):
        if b == 0:
            raise Fault("division by zero")
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return wrap(q) if op == "/" else a - q * b
    return wrap(I64_OPS[op](a, b))


I64_OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
           "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
           "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b, "min": min, "max": max}
REL = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
       ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


class Return(Exception):
    def __init__(self, value):
        self.value = value


class Break(Exception):
    """Leaves the innermost loop."""


class Continue(Exception):
    """Goes on with the innermost loop's next iteration (a for loop steps first)."""


class Interp:
    """Runs the generated syntax (tuples, see Gen) directly."""

    def __init__(self, funcs: dict, params: dict):
        self.funcs, self.params = funcs, params

    def expr(self, e, env, arrays):
        kind, t = e[0], e[1]
        if kind == "lit":
            return e[2]
        if kind == "var":
            return self.params[e[2]] if e[2] in self.params else env[e[2]]
        if kind == "elem":
            data, shape = arrays[e[2]]
            flat = 0
            for i, n in zip(e[3], shape):
                flat = flat * n + self.expr(i, env, arrays)
            return data[flat]
        if kind == "neg":
            return arith("*", self.expr(e[2], env, arrays), -1, t)
        if kind == "bin":
            return arith(e[2], self.expr(e[3], env, arrays), self.expr(e[4], env, arrays), t)
        if kind == "cmp":
            a, b = self.expr(e[3], env, arrays), self.expr(e[4], env, arrays)
            p = "f64" if "f64" in (e[3][1], e[4][1]) else "i64"
            return int(REL[e[2]](convert(a, p), convert(b, p)))
        if kind == "truth":
            return int(self.cond(e[2], env, arrays))
        if kind == "ifx":
            return convert(self.expr(e[3] if self.cond(e[2], env, arrays) else e[4], env, arrays), t)
        if kind == "builtin":
            args = [self.expr(a, env, arrays) for a in e[3]]
            if e[2] in ("i64", "f64"):
                return convert(args[0], e[2])
            if e[2] == "abs":
                return abs(args[0]) if t == "f64" else wrap(abs(args[0]))
            return arith(e[2], args[0], args[1], t)
        return self.call(e[2], e[3], env, arrays)

    def call(self, name, args, env, arrays):
        params, ret, body = self.funcs[name]
        inner_env, inner_arrays, refs = {}, {}, {}
        for (p, pt), a in zip(params, args):
            if a[0] == "array":
                inner_arrays[p] = arrays[a[1]]
            elif pt.startswith("inout"):  # by reference: copied in and out (never aliased here)
                inner_env[p], refs[p] = env[a[2]], a[2]
            else:
                inner_env[p] = convert(self.expr(a, env, arrays), pt)
        try:
            self.block(body, inner_env, inner_arrays)
        except Return as r:
            return convert(r.value, ret)
        finally:
            for p, x in refs.items():
                env[x] = inner_env[p]
        return None

    def cond(self, c, env, arrays) -> bool:
        if c[0] == "and":
            return self.cond(c[1], env, arrays) and self.cond(c[2], env, arrays)
        if c[0] == "or":
            return self.cond(c[1], env, arrays) or self.cond(c[2], env, arrays)
        if c[0] == "not":
            return not self.cond(c[1], env, arrays)
        if c[0] == "num":
            return self.expr(c[1], env, arrays) != 0
        return bool(self.expr(("cmp", "i64") + c[1:], env, arrays))

    def assign(self, target, value, env, arrays):
        v = convert(value, target[1])
        if target[0] == "var":
            env[target[2]] = v
        else:
            data, shape = arrays[target[2]]
            flat = 0
            for i, n in zip(target[3], shape):
                flat = flat * n + self.expr(i, env, arrays)
            data[flat] = v

    def block(self, body, env, arrays):
        for s in body:
            kind = s[0]
            if kind == "set":
                self.assign(s[1], self.expr(s[2], env, arrays), env, arrays)
            elif kind == "if":
                self.block(s[2] if self.cond(s[1], env, arrays) else s[3], env, arrays)
            elif kind == "for":  # i = lo; while i < hi do { body; i = i + 1 }
                env[s[1]] = self.expr(s[2], env, arrays)
                while env[s[1]] < self.expr(s[3], env, arrays):
                    if self.loop_body(s[4], env, arrays):
                        break
                    env[s[1]] = wrap(env[s[1]] + 1)
            elif kind == "while":
                while self.cond(s[1], env, arrays):
                    if self.loop_body(s[2], env, arrays):
                        break
            elif kind == "do":
                while not self.loop_body(s[1], env, arrays) and self.cond(s[2], env, arrays):
                    pass
            elif kind == "loop":
                while not self.loop_body(s[1], env, arrays):
                    pass
            elif kind == "break":
                raise Break()
            elif kind == "continue":
                raise Continue()
            elif kind == "pcall":
                self.call(s[1], s[2], env, arrays)
            elif kind == "decl":
                env[s[1]] = s[3]
            elif kind == "ret":
                raise Return(self.expr(s[1], env, arrays))


    def loop_body(self, body, env, arrays) -> bool:
        """Run one iteration; True when a break left the loop."""
        try:
            self.block(body, env, arrays)
        except Break:
            return True
        except Continue:
            pass
        return False


def reference(gen: Gen, decls, body, inputs: dict) -> dict:
    """The outputs of a generated program by the interpreter above, or raises Fault."""
    arrays = {}
    for a, (t, shape, role) in ARRAYS.items():
        zero = 0.0 if t == "f64" else 0
        arrays[a] = (list(inputs[a]) if a in inputs else [zero] * math.prod(shape), shape)
    env = {x: init if how == "var" else convert(0, t) for how, x, t, init in decls}
    Interp(gen.funcs, gen.params).block(body, env, arrays)
    outputs = {a: arrays[a][0] for a, (_, _, role) in ARRAYS.items() if role in ("output", "inout")}
    for how, x, t, _ in decls:
        outputs[x if how == "output" else f"o_{x}"] = env[x]
    return outputs
