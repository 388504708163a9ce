"""Generators of INCA-Q programs for the fuzz tests (hypothesis strategies; not collected).

``programs()`` draws a random valid program as a small syntax of tuples (run by the interpreter of
incaq_reference.py) with its text and inputs; ``mutants()`` draws the text of such a program with
random edits.
"""
from __future__ import annotations

import math

from hypothesis import strategies as st

from incaq_reference import ARRAYS, I64_MAX, I64_MIN, N, REL


# ---- the generator --------------------------------------------------------------------------------


class Scope:
    """What generated code may use at one point."""

    def __init__(self, arrays: dict, func_ret: str | None = None):
        self.scalars: dict[str, str] = {}  # name -> type
        self.frozen: set[str] = set()  # loop variables and counters: readable, not assignable
        self.ranges: dict[str, tuple[int, int]] = {}  # i64 names with known bounds (inclusive)
        self.arrays = arrays  # name -> (type, shape, writable)
        self.func_ret = func_ret
        self.count = 0
        self.loop: str | None = None  # the innermost loop: None, "for" or "while" (bounded by w)

    def new(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"


class Gen:
    """Draws a random valid INCA-Q program as a small syntax of tuples (and renders it)."""

    def __init__(self, draw):
        self.draw = draw
        self.funcs: dict[str, tuple] = {}  # name -> (params, ret, body)
        self.values: list[str] = []  # functions returning a value, callable in expressions
        self.procs: list[str] = []  # functions that write their array parameter X
        self.params = {"N": N, "P": self.int(-5, 5)}

    def int(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def pick(self, seq):
        return self.draw(st.sampled_from(list(seq)))

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 99)) < p * 100

    # -- expressions

    def literal(self, t: str):
        if t == "f64":
            return ("lit", "f64", self.int(-32, 32) / 4)
        if self.chance(0.15):
            return ("lit", "i64", self.pick([I64_MAX, I64_MIN, 2**62 + 3, -(2**61) - 1, 3037000500]))
        return ("lit", "i64", self.int(-9, 9))

    def expr(self, t: str, sc: Scope, depth: int, calls: bool = True, truth: bool = True):
        """An expression of type t; ``truth``: it may be a truth value made with and/or/not
        (not where an f64 is needed, where that is an error)."""
        leaf = depth <= 0 or self.chance(0.3)
        kinds = ["lit", "var", "elem"] if leaf else ["bin", "bin", "bin", "neg", "minmax", "abs",
                                                     "conv", "call", "cmp"] + ["truth", "ifx"] * truth
        kind = self.pick(kinds)
        names = [n for n, nt in sc.scalars.items() if nt == t] + (["P"] if t == "i64" else [])
        arrays = [a for a, (at, _, _) in sc.arrays.items() if at == t]
        d = depth - 1
        if kind == "var" and names:
            return ("var", t, self.pick(names))
        if kind == "elem" and arrays:
            return self.element(self.pick(arrays), sc, d)
        if kind == "bin":
            if t == "i64":
                op = self.pick(["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"])
                a = self.expr("i64", sc, d, calls)
                if op in ("<<", ">>"):
                    return ("bin", t, op, a, ("lit", "i64", self.int(0, 63)))
                b = self.expr("i64", sc, d, calls)
                if op in ("/", "%") and not self.chance(0.1):  # rarely a possible division by zero
                    b = ("bin", "i64", "|", b, ("lit", "i64", 1))
                return ("bin", t, op, a, b)
            op = self.pick(["+", "-", "*", "/"])
            if op == "/":
                b = self.pick([("lit", "f64", 0.5), ("lit", "f64", -4.0), ("lit", "i64", 3)])
                return ("bin", t, op, self.expr("f64", sc, d, calls), b)
            types = self.pick([("f64", "f64"), ("f64", "i64"), ("i64", "f64")])
            return ("bin", t, op, self.expr(types[0], sc, d, calls, False),
                    self.expr(types[1], sc, d, calls, False))
        if kind == "neg":
            return ("neg", t, self.expr(t, sc, d, calls))
        if kind == "minmax":
            other = "i64" if t == "i64" else self.pick(["i64", "f64"])
            return ("builtin", t, self.pick(["min", "max"]),
                    (self.expr(t, sc, d, calls), self.expr(other, sc, d, calls, t == "i64")))
        if kind == "abs":
            return ("builtin", t, "abs", (self.expr(t, sc, d, calls),))
        if kind == "conv":
            return ("builtin", t, t, (self.expr("f64" if t == "i64" else "i64", sc, d, calls),))
        if kind == "call" and calls:
            fits = [f for f in self.values if self.funcs[f][1] == t and self.callable(f, sc)]
            if fits:
                return ("call", t, *self.call(self.pick(fits), sc, d))
        if kind == "cmp" and t == "i64":
            return ("cmp", "i64", self.pick(REL), self.expr(self.pick(["i64", "f64"]), sc, d, calls),
                    self.expr(self.pick(["i64", "f64"]), sc, d, calls))
        if kind == "truth" and t == "i64" and calls:  # and/or/not as a value, 1 or 0
            return ("truth", "i64", self.cond(sc, 1, min(d, 1)))
        if kind == "ifx" and calls:  # if c then a else b as a value: only one arm runs
            return ("ifx", t, self.cond(sc, 1, min(d, 1)), self.expr(t, sc, d, calls),
                    self.expr(t, sc, d, calls))
        return self.literal(t)

    def passable(self, pt: str, sc: Scope, writable: bool) -> list[str]:
        """The arrays of ``sc`` that may be passed for an array parameter of type ``pt``."""
        return [a for a, (at, shape, w) in sc.arrays.items()
                if at == pt[:3] and len(shape) == 1 and (w or not writable)]

    def variables(self, pt: str, sc: Scope) -> list[str]:
        """The scalars of ``sc`` that may be passed for an ``inout`` parameter of type ``pt``."""
        return [x for x, t in sc.scalars.items() if t == pt[6:] and x not in sc.frozen]

    def callable(self, name: str, sc: Scope, writable: bool = False) -> bool:
        return all(self.passable(pt, sc, writable) for _, pt in self.funcs[name][0] if "[" in pt) \
            and all(self.variables(pt, sc) for _, pt in self.funcs[name][0] if pt.startswith("inout"))

    def call(self, name: str, sc: Scope, depth: int, writable: bool = False):
        """(name, arguments) of a call: scalars of the parameter's type (or i64 for an f64);
        a variable for an inout parameter; a small count for a tail-recursive function's n."""
        args = []
        for j, (_, pt) in enumerate(self.funcs[name][0]):
            if "[" in pt:
                args.append(("array", self.pick(self.passable(pt, sc, writable))))
            elif pt.startswith("inout"):
                args.append(("var", pt[6:], self.pick(self.variables(pt, sc))))
            elif name.startswith("r") and j == 0:
                args.append(("lit", "i64", self.int(-1, 5)))
            else:
                args.append(self.expr(pt if pt == "i64" else self.pick(["i64", "f64"]), sc, depth,
                                      truth=pt == "i64"))
        return name, tuple(args)

    def index(self, size: int, sc: Scope, depth: int):
        """An i64 index certainly within 0 .. size-1."""
        how = self.pick(["affine", "affine", "literal", "clamp", "indirect"])
        if how == "affine" and sc.ranges:
            v = self.pick(sorted(sc.ranges))
            lo, hi = sc.ranges[v]
            a = self.pick([1, -1, 2])
            vmin, vmax = min(a * lo, a * hi), max(a * lo, a * hi)
            if vmax - vmin <= size - 1:
                c = self.int(-vmin, size - 1 - vmax)
                return ("bin", "i64", "+", ("bin", "i64", "*", ("lit", "i64", a), ("var", "i64", v)),
                        ("lit", "i64", c))
        if how == "clamp":
            inner = self.expr("i64", sc, min(depth, 1), calls=False)
            return ("builtin", "i64", "min", (("builtin", "i64", "max", (inner, ("lit", "i64", 0))),
                                              ("lit", "i64", size - 1)))
        if how == "indirect" and size == N and "H" in sc.arrays:
            return ("elem", "i64", "H", (self.index(N, sc, 0),))
        return ("lit", "i64", self.int(0, size - 1))

    def element(self, name: str, sc: Scope, depth: int):
        t, shape, _ = sc.arrays[name]
        return ("elem", t, name, tuple(self.index(n, sc, depth) for n in shape))

    def cond(self, sc: Scope, depth: int, size: int = 2, operand: bool = False):
        kind = self.pick((["rel", "rel", "rel", "and", "or", "not"] if depth > 0 else ["rel"])
                         + (["num"] if operand else []))
        if kind == "rel":
            return ("rel", self.pick(REL), self.expr(self.pick(["i64", "f64"]), sc, size),
                    self.expr(self.pick(["i64", "f64"]), sc, size))
        if kind == "num":  # an i64 operand of and/or/not: true when not 0
            return ("num", self.expr("i64", sc, min(size, 1)))
        if kind == "not":
            return ("not", self.cond(sc, depth - 1, size, True))
        return (kind, self.cond(sc, depth - 1, size, True), self.cond(sc, depth - 1, size, True))

    # -- statements

    def block(self, sc: Scope, depth: int, size: int) -> list:
        return [s for _ in range(self.int(1, size)) for s in self.stmt(sc, depth)]

    def stmt(self, sc: Scope, depth: int) -> list:
        kind = self.pick(["set", "set", "set", "update", "elem", "if", "for", "while", "pcall",
                          "return", "map", "do", "loop", "exit"] if depth > 0 else ["set", "update", "elem"])
        assignable = [n for n in sc.scalars if n not in sc.frozen]
        if kind in ("set", "update") and assignable:
            x = self.pick(assignable)
            t = sc.scalars[x]
            if kind == "update":  # the x = x OP e rule
                op = self.pick(["+", "-", "*", "min", "max"] + (["&", "^"] if t == "i64" else []))
                e = self.expr("i64" if t == "i64" else self.pick(["i64", "f64"]), sc, 2, truth=t == "i64")
                if op in ("min", "max"):
                    return [("set", ("var", t, x), ("builtin", t, op, (("var", t, x), e)))]
                return [("set", ("var", t, x), ("bin", t, op, ("var", t, x), e))]
            return [("set", ("var", t, x), self.expr(t if t == "i64" else self.pick(["i64", "f64"]), sc, 3,
                                                     truth=t == "i64"))]
        writable = [a for a, (_, _, w) in sc.arrays.items() if w]
        if kind == "elem" and writable:
            target = self.element(self.pick(writable), sc, 1)
            t = target[1]
            return [("set", target, self.expr(t if t == "i64" else self.pick(["i64", "f64"]), sc, 3,
                                              truth=t == "i64"))]
        if kind == "if":
            orelse = []
            if self.chance(0.3):  # else if
                orelse = [("if", self.cond(sc, 1), self.block(sc, depth - 1, 2), [])]
            elif self.chance(0.4):
                orelse = self.block(sc, depth - 1, 2)
            return [("if", self.cond(sc, 2), self.block(sc, depth - 1, 3), orelse)]
        if kind == "exit" and sc.loop is not None:
            # break anywhere in a loop; continue only where it cannot skip a while's step
            word = self.pick(["break", "continue"] if sc.loop == "for" else ["break"])
            return [("if", self.cond(sc, 1), [(word,)], [])]
        if kind in ("do", "loop"):  # w = 0; do { body; w = w + 1 } while w < B and cond
            w = sc.new("w")
            bound = self.int(1, N)
            sc.scalars[w] = "i64"
            sc.frozen.add(w)
            sc.ranges[w] = (0, bound - 1)
            outer, sc.loop = sc.loop, "while"
            body = self.block(sc, depth - 1, 2)
            sc.loop = outer
            del sc.scalars[w], sc.ranges[w]
            sc.frozen.discard(w)
            step = ("set", ("var", "i64", w), ("bin", "i64", "+", ("var", "i64", w), ("lit", "i64", 1)))
            init = ("set", ("var", "i64", w), ("lit", "i64", 0))
            if kind == "do":
                cond = ("and", ("rel", "<", ("var", "i64", w), ("lit", "i64", bound)), self.cond(sc, 1))
                return [init, ("do", body + [step], cond)]
            leave = ("if", ("rel", ">=", ("var", "i64", w), ("lit", "i64", bound)), [("break",)], [])
            return [init, ("loop", [leave] + body + [step])]
        if kind == "for":
            i = sc.new("i")
            lo = self.int(0, 2)
            hi = self.int(lo, N)
            hi_e = ("lit", "i64", hi)
            if self.chance(0.3):  # a data-dependent bound: min(e, N)
                hi, hi_e = N, ("builtin", "i64", "min", (self.expr("i64", sc, 1, calls=False),
                                                         ("lit", "i64", N)))
            sc.scalars[i] = "i64"
            sc.frozen.add(i)
            sc.ranges[i] = (lo, max(lo, hi - 1))
            outer, sc.loop = sc.loop, "for"
            body = self.block(sc, depth - 1, 3)
            sc.loop = outer
            del sc.scalars[i], sc.ranges[i]  # (it may not have been assigned where used next)
            sc.frozen.discard(i)
            return [("for", i, ("lit", "i64", lo), hi_e, body)]
        if kind == "while":  # w = 0; while w < B and cond do { body; w = w + 1 }
            w = sc.new("w")
            bound = self.int(1, N)
            sc.scalars[w] = "i64"
            sc.frozen.add(w)
            sc.ranges[w] = (0, bound - 1)
            cond = ("and", ("rel", "<", ("var", "i64", w), ("lit", "i64", bound)), self.cond(sc, 1))
            outer, sc.loop = sc.loop, "while"
            body = self.block(sc, depth - 1, 2)
            sc.loop = outer
            del sc.scalars[w], sc.ranges[w]
            sc.frozen.discard(w)
            step = ("set", ("var", "i64", w), ("bin", "i64", "+", ("var", "i64", w), ("lit", "i64", 1)))
            return [("set", ("var", "i64", w), ("lit", "i64", 0)), ("while", cond, body + [step])]
        if kind == "map" and "OF" in sc.arrays:  # OF[i] = <A[i] ...>: --clobber may store OF in A
            i, lo, hi = sc.new("i"), self.int(0, 1), self.int(N - 1, N)
            sc.scalars[i], sc.ranges[i] = "i64", (lo, hi - 1)
            elem = ("elem", "f64", "A", (("var", "i64", i),))
            value = ("bin", "f64", self.pick(["*", "+", "-"]), elem, self.expr("f64", sc, 1))
            del sc.scalars[i], sc.ranges[i]
            return [("for", i, ("lit", "i64", lo), ("lit", "i64", hi),
                     [("set", ("elem", "f64", "OF", (("var", "i64", i),)), value)])]
        if kind == "pcall" and self.procs and self.callable(self.procs[0], sc, writable=True):
            return [("pcall", *self.call(self.procs[0], sc, 2, writable=True))]
        if kind == "return" and sc.func_ret is not None:
            return [("if", self.cond(sc, 1), [("ret", self.expr(sc.func_ret, sc, 2))], [])]
        return []

    # -- functions and the kernel

    def function(self, k: int, proc: bool) -> None:
        name = f"{'g' if proc else 'f'}{k}"
        params, arrays = [], {}
        for j in range(self.int(1, 3)):
            t = self.pick(["i64", "f64"])
            params.append((f"p{j}", t))
        if proc or self.chance(0.4):
            t = self.pick(["i64", "f64"])
            params.insert(0, ("X", t + self.pick(["[]", "[N]"])))
            arrays["X"] = (t, (N,), proc)
        if proc and self.chance(0.6):  # a scalar passed by reference
            params.append(("q", "inout " + self.pick(["i64", "f64"])))
        ret = None if proc else self.pick(["i64", "f64"])
        sc = Scope(arrays, ret)
        sc.scalars.update({p: t.removeprefix("inout ") for p, t in params if "[" not in t})
        body = []
        for _ in range(self.int(0, 2)):  # locals, assigned (or declared with a value) before use
            local = sc.new(self.pick(["k", "x"]))
            t = "i64" if local.startswith("k") else "f64"
            if self.chance(0.3):
                body.append(("decl", local, t, self.literal(t)[2]))
            else:
                body.append(("set", ("var", t, local), self.expr(t, sc, 2)))
            sc.scalars[local] = t
        body += self.block(sc, 2, 3)
        if proc:
            body.append(("set", self.element("X", sc, 1), self.expr(arrays["X"][0], sc, 2)))
            if params[-1][0] == "q":
                qt = sc.scalars["q"]
                body.append(("set", ("var", qt, "q"), ("bin", qt, "+", ("var", qt, "q"),
                                                       self.expr(qt, sc, 2, truth=qt == "i64"))))
        else:
            body.append(("ret", self.expr(ret, sc, 3)))
        self.funcs[name] = (tuple(params), ret, body)
        (self.procs if proc else self.values).append(name)

    def tail_function(self, k: int) -> None:
        """``r<k>(n, acc)``: returns acc after n steps of ``acc = acc OP e``, by self tail calls."""
        name, t = f"r{k}", self.pick(["i64", "f64"])
        sc = Scope({}, t)
        sc.scalars.update({"n": "i64", "acc": t})
        step = ("bin", t, self.pick(["+", "-", "*"]), ("var", t, "acc"),
                self.expr(t, sc, 2, calls=False, truth=t == "i64"))
        n1 = ("bin", "i64", "-", ("var", "i64", "n"), ("lit", "i64", 1))
        body = [("if", ("rel", "<=", ("var", "i64", "n"), ("lit", "i64", 0)), [("ret", ("var", t, "acc"))], []),
                ("ret", ("call", t, name, (n1, step)))]
        self.funcs[name] = ((("n", "i64"), ("acc", t)), t, body)
        self.values.append(name)

    def program(self):
        if self.chance(0.3):
            self.tail_function(8)
        for k in range(self.int(0, 3)):
            self.function(k, proc=False)
        if self.chance(0.5):
            self.function(9, proc=True)
        arrays = {a: (t, shape, role != "input") for a, (t, shape, role) in ARRAYS.items()}
        sc = Scope(arrays)
        body, decls = [], []
        for _ in range(self.int(1, 4)):
            x = sc.new(self.pick(["k", "x"]))
            t = "i64" if x.startswith("k") else "f64"
            how = self.pick(["output", "var", "implicit"])
            init = self.literal(t)
            decls.append((how, x, t, init[2]))
            if how != "var":
                body.append(("set", ("var", t, x), self.expr(t, sc, 2)))
            sc.scalars[x] = t
        body += self.block(sc, 3, 5)
        return decls, body


def draw_inputs(draw) -> dict:
    ints = st.one_of(st.integers(-20, 20), st.integers(I64_MIN, I64_MAX))
    values = {}
    for a, (t, shape, role) in ARRAYS.items():
        if role in ("input", "inout"):
            n = math.prod(shape)
            elem = st.integers(0, N - 1) if a == "H" else ints if t == "i64" else \
                st.integers(-64, 64).map(lambda v: v / 8)
            values[a] = draw(st.lists(elem, min_size=n, max_size=n))
    return values


# ---- rendering ------------------------------------------------------------------------------------


def render_expr(e) -> str:
    kind = e[0]
    if kind == "lit":
        return repr(e[2]) if e[1] == "f64" else f"({e[2]})" if e[2] < 0 else str(e[2])
    if kind == "var":
        return e[2]
    if kind == "elem":
        return e[2] + "".join(f"[{render_expr(i)}]" for i in e[3])
    if kind == "neg":
        return f"(-{render_expr(e[2])})"
    if kind in ("bin", "cmp"):
        return f"({render_expr(e[3])} {e[2]} {render_expr(e[4])})"
    if kind == "truth":
        return f"({render_cond(e[2])})"
    if kind == "ifx":
        return f"(if {render_cond(e[2])} then {render_expr(e[3])} else {render_expr(e[4])})"
    if kind == "array":
        return e[1]
    return f"{e[2]}({', '.join(render_expr(a) for a in e[3])})"


def render_cond(c) -> str:
    if c[0] in ("and", "or"):
        return f"({render_cond(c[1])} {c[0]} {render_cond(c[2])})"
    if c[0] == "not":
        return f"not {render_cond(c[1])}"
    if c[0] == "num":
        return render_expr(c[1])
    return f"{render_expr(c[2])} {c[1]} {render_expr(c[3])}"


def render_block(body, pad: str) -> list[str]:
    out = []
    for s in body:
        if s[0] == "set":
            out.append(f"{pad}{render_expr(s[1])} = {render_expr(s[2])}")
        elif s[0] == "if":
            out.append(f"{pad}if {render_cond(s[1])} then {{")
            out += render_block(s[2], pad + "    ")
            if len(s[3]) == 1 and s[3][0][0] == "if":
                inner = render_block(s[3], pad)
                out.append(f"{pad}}} else {inner[0].lstrip()}")
                out += inner[1:]
                continue
            if s[3]:
                out.append(f"{pad}}} else {{")
                out += render_block(s[3], pad + "    ")
            out.append(pad + "}")
        elif s[0] == "for":
            out.append(f"{pad}for {s[1]} in {render_expr(s[2])} .. {render_expr(s[3])} do {{")
            out += render_block(s[4], pad + "    ") + [pad + "}"]
        elif s[0] == "while":
            out.append(f"{pad}while {render_cond(s[1])} do {{")
            out += render_block(s[2], pad + "    ") + [pad + "}"]
        elif s[0] == "do":
            out.append(f"{pad}do {{")
            out += render_block(s[1], pad + "    ") + [f"{pad}}} while {render_cond(s[2])}"]
        elif s[0] == "loop":
            out.append(f"{pad}loop {{")
            out += render_block(s[1], pad + "    ") + [pad + "}"]
        elif s[0] in ("break", "continue"):
            out.append(pad + s[0])
        elif s[0] == "pcall":
            out.append(f"{pad}{s[1]}({', '.join(render_expr(a) for a in s[2])})")
        elif s[0] == "decl":
            out.append(f"{pad}var {s[1]}: {s[2]} = {s[3]!r}")
        else:
            out.append(f"{pad}return {render_expr(s[1])}")
    return out


def render(gen: Gen, decls, body) -> str:
    lines = [f"param N = {N}", f"param P = {gen.params['P']}"]
    for a, (t, shape, role) in ARRAYS.items():
        dims = "".join(f"[{'N' if n == N else n}]" for n in shape)
        lines.append(f"var {a}: {t}{dims}" if role == "var" else f"{role} {a}: {t}{dims}")
    for how, x, t, init in decls:
        if how == "output":
            lines.append(f"output {x}: {t}")
        else:
            lines.append(f"output o_{x}: {t}")
            if how == "var":
                lines.append(f"var {x}: {t} = {init!r}")
    for name, (params, ret, fbody) in gen.funcs.items():
        sig = ", ".join(f"inout {p}: {t[6:]}" if t.startswith("inout") else f"{p}: {t}"
                        for p, t in params)
        lines.append(f"func {name}({sig}){'' if ret is None else ' -> ' + ret} {{")
        lines += render_block(fbody, "    ") + ["}"]
    lines += render_block(body, "")
    for how, x, t, _ in decls:
        if how != "output":
            lines.append(f"o_{x} = {x}")
    return "\n".join(lines) + "\n"


@st.composite
def programs(draw):
    """(gen, decls, body, text, inputs) of a random valid program."""
    gen = Gen(draw)
    decls, body = gen.program()
    return gen, decls, body, render(gen, decls, body), draw_inputs(draw)


# ---- mutations ------------------------------------------------------------------------------------

TOKENS = ["x", "A[i]", "=", "==", "(", ")", "[", "]", "{", "}", "\n", ";", "+", "-", "*", "/", "%",
          "<<", "0", "1", "-1", "2.5", "1e308", "9223372036854775807", "99999999999999999999",
          "if", "then", "else", "while", "do", "for", "in", "..", "func", "return", "and", "or",
          "not", "i64", "f64", "i64(", "min(", "abs(", "param", "input", "output", "var", "use",
          "f0(", "g9(", "N", "P", ",", ":", "->", "#", "0x", "@", "\t", "N*N*N*N"]


@st.composite
def mutants(draw):
    """The text of a random valid program after one to four random edits."""
    gen, decls, body, text, _ = draw(programs())
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        kind = draw(st.sampled_from(["delete", "insert-token", "insert-char", "replace-token"]))
        if kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 8)):]
        elif kind == "insert-char":
            text = text[:at] + draw(st.characters(codec="utf-8")) + text[at:]
        else:
            token = draw(st.sampled_from(TOKENS))
            end = at
            if kind == "replace-token":
                while end < len(text) and (text[end].isalnum() or text[end] == "_"):
                    end += 1
            text = text[:at] + token + text[max(end, at + (kind == "replace-token")):]
    return text

