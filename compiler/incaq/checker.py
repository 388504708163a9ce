"""INCA-Q AST to checked AST: names resolved, types checked, params substituted, calls inlined.

The checked AST is still made of :mod:`.ast` nodes, with every name the final INCA-A name (function
locals renamed apart), every param replaced by its value, every user function call inlined (a call
used as a value becomes a :class:`Seq`: statements to run, then the result), and three nodes of its
own: :class:`Seq`, :class:`Jump` and :class:`Mark` (an early ``return`` jumps to the end of its
inlined body). Its symbol table gives every location's role, type and shape.

The checked AST's types are in :mod:`.checked`; calls and inlining in :mod:`.inliner`; loading
``use``d modules and finding recursion in :mod:`.modules`.
"""
from __future__ import annotations

import math
from operator import is_ as _is

from ...lang.diagnostics import Diagnostic, DiagnosticError, Source, did_you_mean
from ...lang.frozen import maker, replace
from ...lang.isa import I64_MAX, I64_MIN
from .ast import (Assign, Break, Call, CallStmt, Continue, DoWhile, For, Func, If, Index, Loop,
                  Module, Name, Num, Param, Return, Stmt, Table, TypeRef, Unary, Use, VarDecl, While,
                  nodes, room_for_chains, statements)
from .check_exprs import Expressions
from .checked import Checked, Ctx, Jump, Scope, Sym
from .flow import NUMBERS, Flow
from .inliner import Inliner
from .modules import BUILTINS, ModuleLoader, calls_in
from .params import ParamError, evaluate

_Name, _For = maker(Name), maker(For)  # (lang/frozen.py: in fewer instructions; one of each a loop)


class Checker(ModuleLoader, Inliner, Flow, Expressions):
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
        # What the kernel's scope may declare (its items'), worked out when a function's local is
        # first named: a kernel without functions needs no walk over its statements for it.
        self.kernel_items: tuple = ()
        self.kernel_names: frozenset[str] | None = None

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
        if self.kernel_names is None:
            self.kernel_names = frozenset(_declared_names(self.kernel_items))
        name = base
        while name in self.symbols or name in self.kernel_names:
            name += "_"
        return name

    def declare(self, scope: Scope, sym: Sym, source_name: str) -> Sym:
        """Add a symbol to a scope (and to the program, under a unique final name).

        The kernel's own names are kept as written (the host reads outputs by name); only
        function locals, whose names are made from ``sym.name``, are renamed apart.
        """
        if sym.kind != "param":
            if scope.prefix:  # (a kernel's own name is kept: no copy of its symbol to make)
                sym = replace(sym, name=self.fresh(scope.prefix + sym.name))
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

    def param(self, p: Param, scope: Scope) -> None:
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

    def var_decl(self, d: VarDecl, scope: Scope, top: bool = False) -> list:
        """Declare a location; inside a block its initial value becomes an assignment.

        Top-level declarations are initialised when the program is loaded (no instruction).
        """
        if d.name in scope.names:
            prev = scope.names[d.name].loc
            self.error(d, f"'{d.name}' is already defined",
                       f"first defined at line {prev.line}" if prev else None)
            return []
        shape = self.dims(d.type)
        if d.role != "var":
            return self.io_decl(d, scope, shape)
        if isinstance(d.init, Table):
            return self.table_decl(d, scope, shape, top)
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

    def table_decl(self, d: VarDecl, scope: Scope, shape: tuple, top: bool) -> list:
        """``var K: i64[4] = [1, 2, 4, 8]``: a constant table, set when the program is loaded (so
        only at the top level, where no instruction initialises anything)."""
        values = d.init.values
        size = math.prod(n for n in shape if n) if shape and all(shape) else None
        if not top:
            self.error(d.init, "an array literal initialises only a top-level var",
                       "declare the table at the top level of the kernel")
        elif not shape:
            self.error(d.init, f"'{d.name}' is a scalar; an array literal needs an array")
        elif size is not None and len(values) != size:
            self.error(d.init.values[-1] if len(values) > size else d.init,
                       f"{len(values)} values for the {size} elements of '{d.name}'",
                       "give one value for every element, or one literal for all")
        for v in values:
            if d.type.base == "i64" and v.is_float:
                self.error(v, "an i64 cannot be initialised with a float")
            elif not v.is_float:
                self.literal(v)
        table = tuple(float(v.value) if d.type.base == "f64" else v.value for v in values)
        sym = Sym(d.name, "array" if shape else "scalar", d.type.base, shape, d.role,
                  table if top and size == len(values) else 0, d.loc)
        self.declare(scope, sym, d.name)
        return []

    def io_decl(self, d: VarDecl, scope: Scope, shape: tuple) -> list:
        """An input, output or inout; an input's or inout's ``= expr`` is its default, computed now
        (a param expression, or a float literal for an f64)."""
        default = None
        if d.init is not None:
            if d.role == "output":
                self.error(d.init, "an output has no default (the kernel computes it)",
                           "a default belongs to an input or inout")
            elif d.type.base == "f64" and isinstance(d.init, Num) and d.init.is_float:
                default = float(d.init.value)
            elif isinstance(d.init, Unary) and d.init.op == "-" and isinstance(d.init.operand, Num) \
                    and d.init.operand.is_float and d.type.base == "f64":
                default = -float(d.init.operand.value)
            else:
                try:
                    value = evaluate(d.init, self.params)
                    default = float(value) if d.type.base == "f64" else value
                except ParamError as e:
                    self.error(e.node, f"a default must be known at compile time: {e.message}",
                               e.hint or "write a param expression, e.g. PAYLOAD / 8")
        sym = Sym(d.name, "array" if shape else "scalar", d.type.base, shape, d.role, 0, d.loc,
                  default=default)
        self.declare(scope, sym, d.name)
        return []

    # ---- statements ----------------------------------------------------------------------

    def block(self, stmts, scope: Scope, ctx: Ctx | None) -> list:
        """Check a statement list (one level deeper)."""
        out: list = []
        self.depth += 1
        for s in stmts:
            out.extend(self.stmt(s, scope, ctx))
        self.depth -= 1
        return out

    def stmt(self, s: Stmt, scope: Scope, ctx: Ctx | None) -> list:
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
                elif tt == "f64" and type(value) not in NUMBERS:
                    self.no_truth(value, f"assigned to the f64 location '{_text(t)}'")
                return pre + [s if target is t and value is v else Assign(target, value, s.loc)]
            case CallStmt(call=c) if ctx is not None and self.is_tail_call(c, ctx):
                return self.tail_call(c, scope, ctx)
            case CallStmt(call=c):
                if c.func in BUILTINS:
                    self.error(c, f"the result of {c.func}() is not used")
                    return []
                pre, _, _ = self.call(c, scope, want_value=False)
                return pre
            case While(cond=c, body=b):
                cond = self.cond(c, scope)
                body = self.loop_block(b, scope, ctx)
                if cond is None:
                    return []
                return [s if cond is c and _same(body, b) else While(cond, tuple(body), s.loc)]
            case If(cond=c, then=t, orelse=o):
                cond = self.cond(c, scope)
                then = self.block(t, scope, ctx)
                orelse = self.block(o, scope, ctx)
                if cond is None:
                    return []
                if cond is c and _same(then, t) and _same(orelse, o):
                    return [s]
                return [If(cond, tuple(then), tuple(orelse), s.loc)]
            case For(var=v, lo=lo, hi=hi, body=b):
                pre_lo, lo_c, lo_t = self.expr(lo, scope)
                pre_hi, hi_c, hi_t = self.expr(hi, scope)
                if "f64" in (lo_t, hi_t):
                    self.error(lo if lo_t == "f64" else hi, "for-loop bounds must be i64")
                if pre_hi or (hi_c is not None and calls_in(hi) - BUILTINS.keys()):
                    self.error(hi, "the bound of a for loop cannot call a function",
                               "compute it into a scalar before the loop")
                var = self.target(_Name(v, s.loc), scope, "i64")
                body = self.loop_block(b, scope, ctx)
                if var is None or lo_c is None or hi_c is None:
                    return []
                if self.symbols[var.id].dtype != "i64":
                    self.error(s, f"loop variable '{v}' must be i64")
                return pre_lo + [_For(var.id, lo_c, hi_c, tuple(body), s.loc)]
            case Return(value=v):
                return self.ret(s, v, scope, ctx)
            case VarDecl():
                return self.var_decl(s, scope)
            case DoWhile() | Loop() | Break() | Continue():
                return self.flow_stmt(s, scope, ctx)
        self.error(s, "this declaration is only allowed at the top level of a file")
        return []

    def ret(self, s: Return, v, scope: Scope, ctx: Ctx | None) -> list:
        """``return``: assign the result variable, then jump to the end of the inlined body."""
        if ctx is None:
            self.error(s, "'return' outside a function")
            return []
        out: list = []
        if isinstance(v, Call) and self.is_tail_call(v, ctx):
            return self.tail_call(v, scope, ctx)
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
                    elif ctx.ret.dtype == "f64":
                        self.no_truth(value, f"returned by the f64 function '{ctx.func.name}'")
                    out = pre + [Assign(Name(ctx.ret.name, s.loc), value, s.loc)]
        elif ctx.ret is not None:
            self.error(s, f"function '{ctx.func.name}' must return an {ctx.ret.dtype} value")
        if not (ctx.func.body and ctx.func.body[-1] is s):  # a final return just falls through
            ctx.jumped = True
            out.append(Jump(ctx.end, s.loc))
        return out

    def target(self, t, scope: Scope, vt: str) -> Name | Index | None:
        """Resolve an assignment target; a new scalar name is declared with the value's type."""
        name = t.id if isinstance(t, Name) else t.base
        sym = scope.lookup(name)
        if sym is None:
            if isinstance(t, Index):
                self.error(t, f"'{name}' is not declared", did_you_mean(name, scope.visible())
                           or "declare arrays with input, output, inout or var")
                return None
            sym = self.declare(scope, Sym(name, "scalar", vt, loc=t.loc, implicit=True), name)
            return t if sym.name == name else Name(sym.name, t.loc)
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
            return t if sym.name == name else Name(sym.name, t.loc)
        idx = self.indices(t, sym, scope)
        if idx is None:
            return None
        return t if sym.name == name and all(map(_is, idx, t.indices)) else Index(sym.name, idx, t.loc)

    # ---- the whole kernel ----------------------------------------------------------------

    def run(self, module: Module, path: str) -> Checked:
        """Check a kernel file; raises DiagnosticError listing every error."""
        self.load_uses(module, path)
        self.find_recursion()
        self.kernel_items, self.kernel_names = module.items, None
        top = Scope(None)
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
        return Checked(syms, tuple(body), tuple(self.params.items()), bool(self.calls))


def _same(checked: list, body: tuple) -> bool:
    """Whether a checked block is its source block, statement for statement."""
    return len(checked) == len(body) and all(map(_is, checked, body))


def _text(t) -> str:
    return t.id if isinstance(t, Name) else t.base + "[...]"


def _declared_names(stmts) -> set[str]:
    """Every name a statement list may declare in its own scope (not inside functions)."""
    out: set[str] = set()
    for s in statements(stmts):
        kind = type(s)
        if kind is Assign:
            if type(s.target) is Name:
                out.add(s.target.id)
        elif kind is VarDecl:
            out.add(s.name)
        elif kind is For:
            out.add(s.var)
    return out


def check(module: Module, source: Source, defines: dict[str, int] | None = None,
          include: tuple[str, ...] = (), clobber: bool = False) -> Checked:
    """Check a parsed kernel (and the modules it uses)."""
    with room_for_chains():
        return Checker({source.name: source}, defines or {}, include, clobber).run(module, source.name)


def param_names(e) -> set[str]:
    """Every name an expression reads."""
    return {n.id for n in nodes(e) if isinstance(n, Name)}
