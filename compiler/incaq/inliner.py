"""Function calls: builtins stay, user functions are inlined (a mixin of the checker).

Scalars are passed by value (each argument is assigned to a renamed local), arrays by reference
(the parameter name is bound to the caller's array), locals are renamed apart, and a ``return``
assigns the result variable and jumps to the end of the inlined body.
"""
from __future__ import annotations

from ...lang.diagnostics import did_you_mean
from .ast import (Assign, Break, Call, Expr, For, Func, If, Index, Loop, Name, Num, Return,
                  statements)
from .checked import Ctx, Mark, Scope, Seq, Sym, TailLoop
from .modules import BUILTINS
from .tailcalls import TailCalls

MAX_DEPTH = 100  # blocks nested through inlined calls; the passes after this one recurse


class Inliner(TailCalls):
    """Checks calls and inlines user functions."""

    def call(self, c: Call, scope: Scope, want_value: bool) -> tuple[list, Expr | None, str]:
        """A builtin call stays; a user function call is inlined."""
        if c.func in BUILTINS:
            want = BUILTINS[c.func]
            if len(c.args) != want:
                self.error(c, f"{c.func} takes {want} argument{'s' * (want > 1)}, not {len(c.args)}")
                return [], None, "i64"
            pre, args, types = [], [], []
            for a in c.args:
                p, ca, ta = self.expr(a, scope)
                pre += p
                args.append(ca)
                types.append(ta)
            if any(a is None for a in args):
                return pre, None, "i64"
            t = c.func if c.func in ("i64", "f64") else ("f64" if "f64" in types else "i64")
            return pre, Call(c.func, tuple(args), c.loc), t
        f = self.funcs.get(c.func)
        if f is None:
            hint = did_you_mean(c.func, list(self.funcs) + list(BUILTINS))
            if c.func in ("isqrt",):
                hint = "isqrt is available in param expressions only"
            if not self.broken_modules:  # else the missing module's error already explains it
                self.error(c, f"unknown function '{c.func}'", hint)
            return [], None, "i64"
        if c.func in self.recursive:
            return [], None, "i64"
        if self.depth >= MAX_DEPTH:
            self.error(c, f"calling '{f.name}' here nests blocks more than {MAX_DEPTH} levels deep "
                       "once functions are inlined", "call it from a less deeply nested place")
            return [], None, "i64"
        if want_value and f.ret is None:
            self.error(c, f"function '{f.name}' returns no value")
            return [], None, "i64"
        if len(c.args) != len(f.params):
            self.error(c, f"function '{f.name}' takes {len(f.params)} argument"
                       f"{'s' * (len(f.params) != 1)}, not {len(c.args)}")
            return [], None, "i64"
        return self.inline(f, c, scope)

    def inline(self, f: Func, c: Call, scope: Scope) -> tuple[list, Expr | None, str]:
        """Bind arguments (scalars by value, arrays by reference) and check the renamed body."""
        n = self.calls[f.name] = self.calls.get(f.name, 0) + 1
        inner = Scope(Scope(None), f"{f.name}{n}_", f.name)
        for name, value in self.params.items():
            inner.parent.names[name] = Sym(name, "param", "i64", value=value)
        pre: list = []
        ok = True
        for p, a in zip(f.params, c.args):
            if p.inout and not p.type.dims:
                if not self.bind_scalar(p, a, scope, inner, f):
                    ok = False
                    self.declare(inner, Sym(p.name, "scalar", p.type.base, loc=p.loc), p.name)
                continue
            if p.type.dims:
                if not self.bind_array(p, a, scope, inner, f):
                    ok = False  # check the body against a stand-in, not a missing name
                    self.declare(inner, Sym(p.name, "array", p.type.base, (None,) * len(p.type.dims),
                                            loc=p.loc), p.name)
                continue
            pa, ca, ta = self.expr(a, scope)
            if ca is None:
                ok = False
                continue
            if p.type.base == "i64" and ta == "f64":
                self.error(a, f"argument '{p.name}' of '{f.name}' is i64 but this value is f64",
                           "convert explicitly with i64(...)")
                ok = False
            elif p.type.base == "f64" and self.no_truth(ca, f"the f64 argument '{p.name}' of '{f.name}'"):
                ok = False
            sym = self.declare(inner, Sym(p.name, "scalar", p.type.base, loc=p.loc, implicit=True),
                               p.name)
            pre += pa + [Assign(Name(sym.name, a.loc), ca, a.loc)]
        ret = None
        if f.ret is not None:
            ret = self.declare(inner, Sym("ret", "scalar", f.ret.base, loc=f.loc, implicit=True),
                               "return value")
        ctx = Ctx(f, ret, self.fresh(f"{f.name}{n}_end"), top=self.fresh(f"{f.name}{n}_top"))
        body = self.function_body(f, inner, ctx)
        if ctx.looped:
            body = [TailLoop(ctx.top, tuple(body), f.loc)]
        if ret is not None and not always_returns(f.body):
            self.error(f, f"function '{f.name}' can reach its end without returning a value")
        if ctx.jumped:
            body.append(Mark(ctx.end, f.loc))
        if not ok:
            return pre + body, None, "i64"
        result = Name(ret.name, c.loc) if ret is not None else None
        if result is None:
            return pre + body, None, "i64"
        return [], Seq(tuple(pre + body), result, c.loc), ret.dtype

    def function_body(self, f: Func, scope: Scope, ctx: Ctx) -> list:
        """Check a function's body; the caller's loops do not reach into it (break, continue)."""
        loops, self.loops = self.loops, 0
        try:
            return self.block(f.body, scope, ctx)
        finally:
            self.loops = loops

    def bind_scalar(self, p, a, scope: Scope, inner: Scope, f: Func) -> bool:
        """Pass a scalar by reference (``inout``): the parameter names the caller's variable."""
        sym = scope.lookup(a.id) if isinstance(a, Name) else None
        if sym is None or sym.kind != "scalar":
            if isinstance(a, Name) and sym is None:
                self.error(a, f"'{a.id}' is not defined", "an inout argument must be a variable "
                           f"that exists before the call, e.g. {a.id} = 0")
            else:
                what = {"param": "a param, a compile-time constant", "array": "an array"}.get(
                    sym.kind if sym else "", "a literal" if isinstance(a, Num) else "an expression")
                self.error(a, f"argument '{p.name}' of '{f.name}' is inout, so it must be a scalar "
                           f"variable, and this is {what}",
                           "assign the value to a variable first and pass the variable")
            return False
        if sym.dtype != p.type.base:
            self.error(a, f"argument '{p.name}' of '{f.name}' is an inout {p.type.base}, but "
                       f"'{a.id}' is {sym.dtype}", "an inout argument must have exactly its type")
            return False
        if sym.role == "input" and not self.clobber and p.name in written_scalars(f.body):
            self.error(a, f"'{a.id}' is an input, but '{f.name}' writes its inout parameter "
                       f"'{p.name}'", "declare it inout, or compile with --clobber")
            return False
        inner.names[p.name] = sym
        return True

    def bind_array(self, p, a, scope: Scope, inner: Scope, f: Func) -> bool:
        """Pass an array by reference; its element type, rank and fixed extents must agree."""
        sym = scope.lookup(a.id) if isinstance(a, Name) else None
        if sym is None or sym.kind != "array":
            self.error(a, f"argument '{p.name}' of '{f.name}' must be an array name")
            return False
        dims = self.dims(p.type)
        # an extent is None when open (a parameter of the function being checked on its own)
        if sym.dtype != p.type.base or len(sym.shape) != len(dims) or any(
                d is not None and s is not None and d != s for d, s in zip(dims, sym.shape)):
            want = p.type.base + "".join(f"[{'' if d is None else d}]" for d in dims)
            have = sym.dtype + "".join(f"[{s}]" for s in sym.shape)
            self.error(a, f"argument '{p.name}' of '{f.name}' must be {want}, but '{a.id}' is {have}")
            return False
        if sym.role == "input" and not self.clobber and p.name in written_arrays(f.body):
            self.error(a, f"'{a.id}' is an input, but '{f.name}' writes its parameter '{p.name}'",
                       "declare it inout, or compile with --clobber to compute over inputs")
            return False
        inner.names[p.name] = sym
        return True

    def check_function(self, f: Func) -> None:
        """Check a function body on its own (so errors show even if it is never called)."""
        scope = Scope(Scope(None), f"__{f.name}_", f.name)
        for name, value in self.params.items():
            scope.parent.names[name] = Sym(name, "param", "i64", value=value)
        saved = dict(self.symbols)
        for p in f.params:
            if p.name in scope.names:
                self.error(p, f"function '{f.name}' has two parameters named '{p.name}'")
            if p.inout and p.type.dims:
                self.error(p, f"'{p.name}' is an array, and arrays are always passed by reference",
                           f"write {p.name}: {p.type.base}[...] without 'inout'")
            dims = self.dims(p.type) if p.type.dims else ()
            shape = dims or ()
            scope.names[p.name] = Sym(f"__{p.name}", "array" if p.type.dims else "scalar",
                                      p.type.base, shape, "var", loc=p.loc)
            self.symbols[f"__{p.name}"] = scope.names[p.name]
        ret = Sym("__ret", "scalar", f.ret.base) if f.ret is not None else None
        if ret is not None:
            self.symbols["__ret"] = ret
        self.function_body(f, scope, Ctx(f, ret, "__end"))
        if ret is not None and not always_returns(f.body):
            self.error(f, f"function '{f.name}' can reach its end without returning a value")
        self.symbols = saved


def always_returns(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, Return):
        return True
    if isinstance(last, If):
        return always_returns(last.then) and always_returns(last.orelse)
    if isinstance(last, Loop):  # an endless loop is only left by a break or a return
        return not _breaks(last.body)
    return False


def _breaks(stmts) -> bool:
    """Whether a break leaves the loop whose body is ``stmts`` (not one of its inner loops)."""
    return any(isinstance(s, Break) or (isinstance(s, If) and (_breaks(s.then) or _breaks(s.orelse)))
               for s in stmts)


def written_arrays(stmts) -> set[str]:
    """Names of arrays whose elements a statement list assigns (calls are checked when inlined)."""
    return {s.target.base for s in statements(stmts)
            if isinstance(s, Assign) and isinstance(s.target, Index)}


def written_scalars(stmts) -> set[str]:
    """Names of scalars a statement list assigns (loop variables included)."""
    return {s.target.id if isinstance(s, Assign) else s.var for s in statements(stmts)
            if (isinstance(s, Assign) and isinstance(s.target, Name)) or isinstance(s, For)}
