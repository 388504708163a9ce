"""INCA-Q AST to checked AST: names resolved, types checked, params substituted, calls inlined.

The checked AST is still made of :mod:`.ast` nodes, with every name the final INCA-A name (function
locals renamed apart), every param replaced by its value, every user function call inlined (a call
used as a value becomes a :class:`Seq`: statements to run, then the result), and three nodes of its
own: :class:`Seq`, :class:`Jump` and :class:`Mark` (an early ``return`` jumps to the end of its
inlined body). Its symbol table gives every location's role, type and shape.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from ...lang.diagnostics import Diagnostic, DiagnosticError, Loc, Source, did_you_mean
from ...lang.isa import I64_MAX, I64_MIN
from .ast import (Assign, Binary, BoolOp, Call, CallStmt, Compare, Expr, For, Func, If, IfExpr,
                  Index, Module, Name, Not, Num, Param, Return, Stmt, TypeRef, Unary, Use, VarDecl,
                  While)
from .modules import BUILTINS, ModuleLoader, calls_in
from .params import ParamError, evaluate

#: Blocks may nest this deep, counting the bodies of inlined functions: about what the parser
#: allows in one file, and far enough inside Python's recursion limit for the later passes.
MAX_DEPTH = 100

ARITH = {"+", "-", "*", "/", "%"}
BITWISE = {"&", "|", "^", "<<", ">>"}


@dataclass(frozen=True)
class Sym:
    """A location of the compiled program (or a param, while checking)."""

    name: str  # the name in INCA-A
    kind: str  # scalar | array | param
    dtype: str = "i64"
    shape: tuple[int | None, ...] = ()
    role: str = "var"  # input | output | inout | var
    value: int | float = 0  # a param's value, or a declared initial value
    loc: Loc | None = field(default=None, compare=False)
    implicit: bool = False  # declared by its first assignment, a function parameter or a result


@dataclass(frozen=True)
class Seq:
    """Run ``pre`` (an inlined call), then the value is ``value``."""

    pre: tuple
    value: Expr
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Jump:
    """Continue at :class:`Mark` ``label`` (an early return of an inlined function)."""

    label: str
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Mark:
    """A jump target."""

    label: str
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Checked:
    """A whole kernel after checking: its locations and its flat body."""

    symbols: tuple[Sym, ...]
    body: tuple
    params: tuple[tuple[str, int], ...] = ()


def type_of(e, syms: dict[str, Sym]) -> str:
    """The element type of a checked expression."""
    match e:
        case Num(is_float=f):
            return "f64" if f else "i64"
        case Name(id=n) | Index(base=n):
            return syms[n].dtype
        case Seq(value=v):
            return type_of(v, syms)
        case Unary(operand=x):
            return type_of(x, syms)
        case Compare() | BoolOp() | Not():
            return "i64"
        case Binary(left=a, right=b):
            return "f64" if "f64" in (type_of(a, syms), type_of(b, syms)) else "i64"
        case Call(func="i64"):
            return "i64"
        case Call(func="f64"):
            return "f64"
        case Call(args=args):
            return "f64" if any(type_of(a, syms) == "f64" for a in args) else "i64"
    raise TypeError(f"not a checked expression: {e!r}")


class _Scope:
    """Names visible in the kernel body or in one inlined function body."""

    def __init__(self, parent: "_Scope | None", prefix: str = "", func: str | None = None):
        self.parent, self.prefix, self.func = parent, prefix, func
        self.names: dict[str, Sym] = {}

    def lookup(self, name: str) -> Sym | None:
        if name in self.names:
            return self.names[name]
        return self.parent.lookup(name) if self.parent else None

    def visible(self) -> list[str]:
        return list(self.names) + (self.parent.visible() if self.parent else [])


@dataclass
class _Ctx:
    """Where a ``return`` goes inside the function being inlined."""

    func: Func
    ret: Sym | None
    end: str
    jumped: bool = False


class Checker(ModuleLoader):
    """Checks one kernel with its modules; collects every diagnostic."""

    def __init__(self, sources: dict[str, Source], defines: dict[str, int], include: tuple[str, ...],
                 clobber: bool = False):
        self.sources = sources
        self.defines = dict(defines)
        self.include = include
        self.clobber = clobber
        self.diags: list[Diagnostic] = []
        self._seen: set[tuple] = set()
        self.funcs: dict[str, Func] = {}
        self.symbols: dict[str, Sym] = {}  # every final name
        self.params: dict[str, int] = {}
        self.calls: dict[str, int] = {}
        self.recursive: set[str] = set()
        self.modules: set[str] = set()
        self.broken_modules = False  # a module was missing or did not parse
        self.poisoned: set[str] = set()  # params whose value could not be computed
        self.depth = 0  # blocks entered, inlined function bodies included
        self.kernel_names: frozenset[str] = frozenset()  # what the kernel's scope may declare

    # ---- diagnostics ---------------------------------------------------------------------

    def error(self, node, message: str, hint: str | None = None) -> None:
        """Record an error at a node (each distinct error once, even if a function is inlined twice)."""
        loc = getattr(node, "loc", None)
        key = (loc.file, loc.line, loc.col, message) if loc else (None, message)
        if key in self._seen:
            return
        self._seen.add(key)
        src = self.sources.get(loc.file) if loc else None
        self.diags.append(src.diag(loc, message, hint) if src else Diagnostic(message, loc, hint))

    # ---- declarations --------------------------------------------------------------------

    def fresh(self, base: str) -> str:
        """A final name not yet used, and not one the kernel's own scope may declare."""
        name = base
        while name in self.symbols or name in self.kernel_names:
            name += "_"
        return name

    def declare(self, scope: _Scope, sym: Sym, source_name: str) -> Sym:
        """Add a symbol to a scope (and to the program, under a unique final name).

        The kernel's own names are kept as written (the host reads outputs by name); only
        function locals, whose names are made from ``sym.name``, are renamed apart.
        """
        if sym.kind != "param":
            sym = replace(sym, name=self.fresh(scope.prefix + sym.name) if scope.prefix else sym.name)
            self.symbols[sym.name] = sym
        scope.names[source_name] = sym
        return sym

    def dims(self, t: TypeRef) -> tuple[int | None, ...]:
        """Evaluate a type's dimensions; None for an extent that is open (``f64[]``, which the
        grammar allows in function parameters only) or that could not be computed (reported)."""
        out: list[int | None] = []
        for d in t.dims:
            if d is None or param_names(d) & self.poisoned:
                out.append(None)
                continue
            try:
                v = evaluate(d, self.params)
            except ParamError as e:
                self.error(e.node, e.message, e.hint)
                v = None
            if v is not None and v <= 0:
                self.error(d, f"array dimension must be positive, not {v}")
                v = None
            out.append(v)
        return tuple(out)

    def param(self, p: Param, scope: _Scope) -> None:
        """Evaluate a param (or take its -D value)."""
        if scope.lookup(p.name) is not None:
            self.error(p, f"'{p.name}' is already defined")
            return
        if p.name in self.defines:
            value = self.defines.pop(p.name)
            if not I64_MIN <= value <= I64_MAX:
                self.diags.append(Diagnostic(f"-D {p.name}={value}: the value does not fit in i64",
                                             file=p.loc.file))
                value = 1
        elif param_names(p.value) & self.poisoned:
            self.poisoned.add(p.name)  # its own error was reported where the chain starts
            value = 1
        else:
            try:
                value = evaluate(p.value, self.params)
            except ParamError as e:
                self.error(e.node, e.message, e.hint)
                self.poisoned.add(p.name)
                value = 1  # keep checking with a stand-in; nothing derived from it is reported
        self.params[p.name] = value
        self.declare(scope, Sym(p.name, "param", "i64", value=value, loc=p.loc), p.name)

    def var_decl(self, d: VarDecl, scope: _Scope, top: bool = False) -> list:
        """Declare a location; inside a block its initial value becomes an assignment.

        Top-level declarations are initialised when the program is loaded (no instruction).
        """
        if d.name in scope.names:
            prev = scope.names[d.name].loc
            self.error(d, f"'{d.name}' is already defined",
                       f"first defined at line {prev.line}" if prev else None)
            return []
        shape = self.dims(d.type)
        init = d.init.value if d.init is not None else 0
        if d.init is not None and d.type.base == "i64" and d.init.is_float:
            self.error(d.init, "an i64 cannot be initialised with a float")
        elif d.init is not None and not d.init.is_float:
            self.literal(d.init)
        sym = Sym(d.name, "array" if shape else "scalar", d.type.base, shape, d.role,
                  (float(init) if d.type.base == "f64" else init) if top else 0, d.loc)
        sym = self.declare(scope, sym, d.name)
        if d.init is not None and not top:
            return [Assign(Name(sym.name, d.loc), d.init, d.loc)]
        return []

    # ---- statements ----------------------------------------------------------------------

    def block(self, stmts, scope: _Scope, ctx: _Ctx | None) -> list:
        """Check a statement list (one level deeper)."""
        out: list = []
        self.depth += 1
        for s in stmts:
            out.extend(self.stmt(s, scope, ctx))
        self.depth -= 1
        return out

    def stmt(self, s: Stmt, scope: _Scope, ctx: _Ctx | None) -> list:
        """Check one statement; returns its checked form (several statements after inlining)."""
        match s:
            case Assign(target=t, value=v):
                pre, value, vt = self.expr(v, scope)
                if value is None:
                    return []
                target = self.target(t, scope, vt)
                if target is None:
                    return pre
                tt = self.symbols[target.id if isinstance(target, Name) else target.base].dtype
                if tt == "i64" and vt == "f64":
                    self.error(s, f"assigning an f64 value to the i64 location '{_text(t)}' would "
                               "truncate it", "convert explicitly with i64(...)")
                return pre + [Assign(target, value, s.loc)]
            case CallStmt(call=c):
                if c.func in BUILTINS:
                    self.error(c, f"the result of {c.func}() is not used")
                    return []
                pre, _, _ = self.call(c, scope, want_value=False)
                return pre
            case While(cond=c, body=b):
                cond = self.cond(c, scope)
                body = self.block(b, scope, ctx)
                return [While(cond, tuple(body), s.loc)] if cond is not None else []
            case If(cond=c, then=t, orelse=o):
                cond = self.cond(c, scope)
                then = self.block(t, scope, ctx)
                orelse = self.block(o, scope, ctx)
                return [If(cond, tuple(then), tuple(orelse), s.loc)] if cond is not None else []
            case For(var=v, lo=lo, hi=hi, body=b):
                pre_lo, lo_c, lo_t = self.expr(lo, scope)
                pre_hi, hi_c, hi_t = self.expr(hi, scope)
                if "f64" in (lo_t, hi_t):
                    self.error(lo if lo_t == "f64" else hi, "for-loop bounds must be i64")
                if pre_hi or (hi_c is not None and calls_in(hi) - BUILTINS.keys()):
                    self.error(hi, "the bound of a for loop cannot call a function",
                               "compute it into a scalar before the loop")
                var = self.target(Name(v, s.loc), scope, "i64")
                body = self.block(b, scope, ctx)
                if var is None or lo_c is None or hi_c is None:
                    return []
                if self.symbols[var.id].dtype != "i64":
                    self.error(s, f"loop variable '{v}' must be i64")
                return pre_lo + [For(var.id, lo_c, hi_c, tuple(body), s.loc)]
            case Return(value=v):
                return self.ret(s, v, scope, ctx)
            case VarDecl():
                return self.var_decl(s, scope)
        self.error(s, "this declaration is only allowed at the top level of a file")
        return []

    def ret(self, s: Return, v, scope: _Scope, ctx: _Ctx | None) -> list:
        """``return``: assign the result variable, then jump to the end of the inlined body."""
        if ctx is None:
            self.error(s, "'return' outside a function")
            return []
        out: list = []
        if v is not None:
            if ctx.ret is None:
                self.error(s, f"function '{ctx.func.name}' has no return type, so it cannot return a value",
                           f"declare it as func {ctx.func.name}(...) -> f64")
            else:
                pre, value, vt = self.expr(v, scope)
                if value is not None:
                    if ctx.ret.dtype == "i64" and vt == "f64":
                        self.error(v, f"function '{ctx.func.name}' returns i64 but this value is f64",
                                   "convert explicitly with i64(...)")
                    out = pre + [Assign(Name(ctx.ret.name, s.loc), value, s.loc)]
        elif ctx.ret is not None:
            self.error(s, f"function '{ctx.func.name}' must return an {ctx.ret.dtype} value")
        if not (ctx.func.body and ctx.func.body[-1] is s):  # a final return just falls through
            ctx.jumped = True
            out.append(Jump(ctx.end, s.loc))
        return out

    def target(self, t, scope: _Scope, vt: str) -> Name | Index | None:
        """Resolve an assignment target; a new scalar name is declared with the value's type."""
        name = t.id if isinstance(t, Name) else t.base
        sym = scope.lookup(name)
        if sym is None:
            if isinstance(t, Index):
                self.error(t, f"'{name}' is not declared", did_you_mean(name, scope.visible())
                           or "declare arrays with input, output, inout or var")
                return None
            sym = self.declare(scope, Sym(name, "scalar", vt, loc=t.loc, implicit=True), name)
            return Name(sym.name, t.loc)
        if sym.kind == "param" and scope.func is not None and name not in scope.names:
            # a kernel param seen inside a function: assigning it makes a local, as `var` would
            sym = self.declare(scope, Sym(name, "scalar", vt, loc=t.loc, implicit=True), name)
            return Name(sym.name, t.loc)
        if sym.kind == "param":
            self.error(t, f"'{name}' is a param, a compile-time constant, and cannot be assigned")
            return None
        if sym.role == "input" and not self.clobber:
            self.error(t, f"'{name}' is an input, which the kernel may only read",
                       "declare it inout, or compile with --clobber to compute over inputs")
            return None
        if isinstance(t, Name):
            if sym.kind == "array":
                self.error(t, f"'{name}' is an array; assign its elements, e.g. {name}[i] = ...")
                return None
            return Name(sym.name, t.loc)
        idx = self.indices(t, sym, scope)
        return Index(sym.name, idx, t.loc) if idx is not None else None

    def indices(self, e: Index, sym: Sym, scope: _Scope) -> tuple | None:
        """Check an element's indices (count, i64, no calls)."""
        if sym.kind != "array":
            self.error(e, f"'{e.base}' is a {'param' if sym.kind == 'param' else 'scalar'} and "
                       "cannot be indexed")
            return None
        if len(e.indices) != len(sym.shape):
            self.error(e, f"'{e.base}' has {len(sym.shape)} dimension{'s' * (len(sym.shape) != 1)} "
                       f"but {len(e.indices)} {'index was' if len(e.indices) == 1 else 'indices were'} given")
            return None
        out = []
        for i in e.indices:
            pre, c, t = self.expr(i, scope)
            if c is None:
                return None
            if pre or calls_in(i) - BUILTINS.keys():  # (a call's value is a Seq, not in pre)
                self.error(i, "an index cannot call a function", "compute it into a scalar first")
                return None
            if t != "i64":
                self.error(i, "an index must be i64", "convert with i64(...)")
                return None
            size = sym.shape[len(out)]
            k = constant(c)
            if k is not None and size is not None and not 0 <= k < size:
                self.error(i, f"index {k} is out of bounds for '{e.base}' (dimension of size {size})",
                           f"valid indices are 0 to {size - 1}")
                return None
            out.append(c)
        return tuple(out)

    # ---- expressions ---------------------------------------------------------------------

    def literal(self, n: Num) -> None:
        """Reject an integer literal that does not fit in i64 (INCA-A has no wider integers)."""
        if not I64_MIN <= n.value <= I64_MAX:
            self.error(n, f"the integer {n.value} does not fit in i64",
                       "i64 values lie between -9223372036854775808 and 9223372036854775807")

    def expr(self, e: Expr, scope: _Scope) -> tuple[list, Expr | None, str]:
        """Check a value expression: (statements to run first, checked expression, type)."""
        match e:
            case Num(is_float=f):
                if not f:
                    self.literal(e)
                return [], e, "f64" if f else "i64"
            case Name(id=n):
                sym = scope.lookup(n)
                if sym is None:
                    where = f" in function '{scope.func}'" if scope.func else ""
                    hint = did_you_mean(n, scope.visible())
                    if scope.func and hint is None:
                        hint = "functions see only their parameters and locals; pass it as an argument"
                    self.error(e, f"'{n}' is not defined{where}", hint)
                    return [], None, "i64"
                if sym.kind == "param":
                    return [], Num(sym.value, False, e.loc), "i64"
                if sym.kind == "array":
                    self.error(e, f"'{n}' is an array; use an element such as {n}[i]")
                    return [], None, sym.dtype
                return [], Name(sym.name, e.loc), sym.dtype
            case Index(base=b):
                sym = scope.lookup(b)
                if sym is None:
                    self.error(e, f"'{b}' is not defined", did_you_mean(b, scope.visible()))
                    return [], None, "i64"
                idx = self.indices(e, sym, scope)
                return ([], Index(sym.name, idx, e.loc), sym.dtype) if idx is not None else ([], None, "i64")
            case Unary(op=op, operand=x):
                pre, c, t = self.expr(x, scope)
                if op == "+":
                    return pre, c, t
                return pre, (Unary(op, c, e.loc) if c is not None else None), t
            case Binary(op=op, left=a, right=b):
                pa, ca, ta = self.expr(a, scope)
                pb, cb, tb = self.expr(b, scope)
                if op in BITWISE and "f64" in (ta, tb):
                    self.error(a if ta == "f64" else b, f"'{op}' is defined on i64 only",
                               "convert with i64(...)")
                    return pa + pb, None, "i64"
                if ca is None or cb is None:
                    return pa + pb, None, "i64"
                return pa + pb, Binary(op, ca, cb, e.loc), "f64" if "f64" in (ta, tb) else "i64"
            case Compare(op=op, left=a, right=b):
                pa, ca, _ = self.expr(a, scope)
                pb, cb, _ = self.expr(b, scope)
                if ca is None or cb is None:
                    return pa + pb, None, "i64"
                return pa + pb, Compare(op, ca, cb, e.loc), "i64"
            case BoolOp() | Not():
                self.error(e, "'and', 'or' and 'not' combine conditions; they are not values here",
                           "use them in while and if conditions")
                return [], None, "i64"
            case IfExpr():
                self.error(e, "'if ... then ... else' is a param expression, not a run-time value",
                           "use an if statement")
                return [], None, "i64"
            case Call():
                return self.call(e, scope, want_value=True)
        self.error(e, "unexpected expression")
        return [], None, "i64"

    def cond(self, e: Expr, scope: _Scope):
        """Check a condition: comparisons combined with and/or/not. Calls inside stay as Seq."""
        match e:
            case BoolOp(op=op, left=a, right=b):
                ca, cb = self.cond(a, scope), self.cond(b, scope)
                return BoolOp(op, ca, cb, e.loc) if ca is not None and cb is not None else None
            case Not(operand=x):
                cx = self.cond(x, scope)
                return Not(cx, e.loc) if cx is not None else None
            case Compare(op=op, left=a, right=b):
                pa, ca, _ = self.expr(a, scope)
                pb, cb, _ = self.expr(b, scope)
                if ca is None or cb is None:
                    return None
                if pa:
                    ca = Seq(tuple(pa), ca, a.loc)
                if pb:
                    cb = Seq(tuple(pb), cb, b.loc)
                return Compare(op, ca, cb, e.loc)
        self.expr(e, scope)
        self.error(e, "a condition must be a comparison", "e.g. while x > 0 do { ... }")
        return None

    def call(self, c: Call, scope: _Scope, want_value: bool) -> tuple[list, Expr | None, str]:
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

    def inline(self, f: Func, c: Call, scope: _Scope) -> tuple[list, Expr | None, str]:
        """Bind arguments (scalars by value, arrays by reference) and check the renamed body."""
        n = self.calls[f.name] = self.calls.get(f.name, 0) + 1
        inner = _Scope(_Scope(None), f"{f.name}{n}_", f.name)
        for name, value in self.params.items():
            inner.parent.names[name] = Sym(name, "param", "i64", value=value)
        pre: list = []
        ok = True
        for p, a in zip(f.params, c.args):
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
            sym = self.declare(inner, Sym(p.name, "scalar", p.type.base, loc=p.loc, implicit=True),
                               p.name)
            pre += pa + [Assign(Name(sym.name, a.loc), ca, a.loc)]
        ret = None
        if f.ret is not None:
            ret = self.declare(inner, Sym("ret", "scalar", f.ret.base, loc=f.loc, implicit=True),
                               "return value")
        ctx = _Ctx(f, ret, self.fresh(f"{f.name}{n}_end"))
        body = self.block(f.body, inner, ctx)
        if ret is not None and not _always_returns(f.body):
            self.error(f, f"function '{f.name}' can reach its end without returning a value")
        if ctx.jumped:
            body.append(Mark(ctx.end, f.loc))
        if not ok:
            return pre + body, None, "i64"
        result = Name(ret.name, c.loc) if ret is not None else None
        if result is None:
            return pre + body, None, "i64"
        return [], Seq(tuple(pre + body), result, c.loc), ret.dtype

    def bind_array(self, p, a, scope: _Scope, inner: _Scope, f: Func) -> bool:
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
        scope = _Scope(_Scope(None), f"__{f.name}_", f.name)
        for name, value in self.params.items():
            scope.parent.names[name] = Sym(name, "param", "i64", value=value)
        saved = dict(self.symbols)
        for p in f.params:
            if p.name in scope.names:
                self.error(p, f"function '{f.name}' has two parameters named '{p.name}'")
            dims = self.dims(p.type) if p.type.dims else ()
            shape = dims or ()
            scope.names[p.name] = Sym(f"__{p.name}", "array" if p.type.dims else "scalar",
                                      p.type.base, shape, "var", loc=p.loc)
            self.symbols[f"__{p.name}"] = scope.names[p.name]
        ret = Sym("__ret", "scalar", f.ret.base) if f.ret is not None else None
        if ret is not None:
            self.symbols["__ret"] = ret
        self.block(f.body, scope, _Ctx(f, ret, "__end"))
        if ret is not None and not _always_returns(f.body):
            self.error(f, f"function '{f.name}' can reach its end without returning a value")
        self.symbols = saved

    # ---- the whole kernel ----------------------------------------------------------------

    def run(self, module: Module, path: str) -> Checked:
        """Check a kernel file; raises DiagnosticError listing every error."""
        self.load_uses(module, path)
        self.find_recursion()
        self.kernel_names = frozenset(_declared_names(module.items))
        top = _Scope(None)
        body: list = []
        for item in module.items:
            match item:
                case Param():
                    self.param(item, top)
                case VarDecl():
                    self.var_decl(item, top, top=True)
                case Func() | Use():
                    pass
                case _:
                    body.extend(self.stmt(item, top, None))
        for name in self.defines:
            self.diags.append(Diagnostic(f"-D {name}: this program has no param '{name}'",
                                         hint=did_you_mean(name, self.params), file=path))
        for f in self.funcs.values():
            if f.name not in self.recursive:
                self.check_function(f)
        if self.diags:
            self.diags.sort(key=lambda d: (d.loc.file != path, d.loc.file, d.loc.line, d.loc.col)
                            if d.loc else (False, "", 0, 0))
            raise DiagnosticError(self.diags)
        syms = tuple(s for s in self.symbols.values() if s.kind != "param")
        return Checked(syms, tuple(body), tuple(self.params.items()))


def _text(t) -> str:
    return t.id if isinstance(t, Name) else t.base + "[...]"


def _declared_names(stmts) -> set[str]:
    """Every name a statement list may declare in its own scope (not inside functions)."""
    out: set[str] = set()
    for s in stmts:
        match s:
            case VarDecl(name=n) | Assign(target=Name(id=n)):
                out.add(n)
            case For(var=v, body=b):
                out |= {v} | _declared_names(b)
            case While(body=b):
                out |= _declared_names(b)
            case If(then=t, orelse=o):
                out |= _declared_names(t) | _declared_names(o)
    return out


def _always_returns(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, Return):
        return True
    if isinstance(last, If):
        return _always_returns(last.then) and _always_returns(last.orelse)
    return False


def check(module: Module, source: Source, defines: dict[str, int] | None = None,
          include: tuple[str, ...] = (), clobber: bool = False) -> Checked:
    """Check a parsed kernel (and the modules it uses)."""
    return Checker({source.name: source}, defines or {}, include, clobber).run(module, source.name)


def constant(e) -> int | None:
    """The value of an integer expression made of literals only (params are literals by now)."""
    match e:
        case Num(value=v, is_float=False):
            return int(v)
        case Unary(op="-", operand=x):
            v = constant(x)
            return -v if v is not None else None
        case Binary(op="+" | "-" | "*", left=a, right=b):
            x, y = constant(a), constant(b)
            if x is None or y is None:
                return None
            return x + y if e.op == "+" else x - y if e.op == "-" else x * y
    return None


def written_arrays(stmts) -> set[str]:
    """Names of arrays whose elements a statement list assigns (calls are checked when inlined)."""
    out: set[str] = set()
    for s in stmts:
        match s:
            case Assign(target=Index(base=b)):
                out.add(b)
            case For(body=b) | While(body=b):
                out |= written_arrays(b)
            case If(then=t, orelse=o):
                out |= written_arrays(t) | written_arrays(o)
    return out


def param_names(e) -> set[str]:
    """Every name an expression reads."""
    out: set[str] = set()
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, Name):
            out.add(n.id)
        elif isinstance(n, tuple):
            stack.extend(n)
        elif hasattr(n, "__dataclass_fields__"):
            stack.extend(getattr(n, f) for f in n.__dataclass_fields__ if f != "loc")
    return out
