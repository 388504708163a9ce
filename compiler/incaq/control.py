"""Checking the control flow of issue 11 (a mixin of the checker): loops that are left early
(``break``, ``continue``, ``do ... while``, ``loop``), boolean and conditional values, and self
tail calls, which become loops because functions are inlined.

A ``while`` or ``for`` loop that no ``break`` or ``continue`` names stays a plain
:class:`~.ast.While` / :class:`~.ast.For`, so that every program written before these constructs
existed is lowered exactly as before; the others become :class:`~.checked.LabeledLoop`.
"""
from __future__ import annotations

from .ast import (Assign, Binary, BoolOp, Break, Call, CallStmt, Compare, Continue, DoWhile, Expr,
                  For, Func, If, IfExpr, Loop, Name, Not, Num, Return, While, nodes)
from .checked import Ctx, Exit, LabeledLoop, Next, Scope, Seq, Sym

#: Node types whose value is a boolean: 1 or 0.
BOOLEAN = (Compare, BoolOp, Not)


def is_boolean(e) -> bool:
    """Whether a checked expression is a comparison or a logical operation (its value is 0 or 1)."""
    return isinstance(e, BOOLEAN)


def has_effects(e) -> bool:
    """Whether evaluating a checked expression runs an inlined call (a :class:`Seq`)."""
    return any(isinstance(n, Seq) for n in nodes(e))


def as_cond(e):
    """A checked i64 value as a condition: comparisons stay, other values mean ``e != 0``."""
    match e:
        case Compare():
            return e
        case BoolOp(op=op, left=a, right=b):
            return BoolOp(op, as_cond(a), as_cond(b), e.loc)
        case Not(operand=x):
            return Not(as_cond(x), e.loc)
    return Compare("!=", e, Num(0, False, e.loc), e.loc)


def tail_calls(f: Func) -> set[int]:
    """The ``id`` of every call of ``f`` to itself in tail position: ``return f(...)``, or for a
    function without a result ``f(...)`` as its last action (at the end of its body, at the end
    of an if branch that ends it, or right before a bare ``return``)."""
    out: set[int] = set()

    def walk(body, tail: bool) -> None:
        for k, s in enumerate(body):
            last = k == len(body) - 1
            match s:
                case Return(value=Call(func=name) as c) if name == f.name:
                    out.add(id(c))
                case CallStmt(call=Call(func=name) as c) if name == f.name and (
                        (tail and last) or (not last and body[k + 1] == Return(None))):
                    out.add(id(c))
                case If(then=t, orelse=o):
                    walk(t, tail and last)
                    walk(o, tail and last)
                case While() | For() | DoWhile() | Loop():
                    walk(s.body, False)

    walk(f.body, True)
    return out


class ControlFlow:
    """Loops with exits, boolean and conditional values, self tail calls."""

    # ---- loops ---------------------------------------------------------------------------

    def loop_body(self, body, scope: Scope, ctx: Ctx | None) -> tuple[str, bool, list]:
        """Check a loop body: (its label, whether a break or continue names it, checked body)."""
        self.loop_count += 1
        label = f"loop#{self.loop_count}"  # '#' keeps labels apart from every INCA-Q name
        self.loops.append([label, False])
        checked = self.block(body, scope, ctx)
        _, used = self.loops.pop()
        return label, used, checked

    def loop_stmt(self, s, scope: Scope, ctx: Ctx | None) -> list:
        """``while`` (with exits), ``do ... while``, ``loop``, ``break`` and ``continue``."""
        match s:
            case While(cond=c, body=b):
                cond = self.cond(c, scope)
                label, used, body = self.loop_body(b, scope, ctx)
                if cond is None:
                    return []
                if not used:
                    return [While(cond, tuple(body), s.loc)]
                return [LabeledLoop("while", cond, tuple(body), label, (), s.loc)]
            case DoWhile(body=b, cond=c):
                label, _, body = self.loop_body(b, scope, ctx)
                cond = self.cond(c, scope)
                return [LabeledLoop("do", cond, tuple(body), label, (), s.loc)] if cond else []
            case Loop(body=b):
                label, _, body = self.loop_body(b, scope, ctx)
                return [LabeledLoop("loop", None, tuple(body), label, (), s.loc)]
            case Break() | Continue():
                word = "break" if isinstance(s, Break) else "continue"
                if not self.loops:
                    where = " of this function" if ctx is not None else ""
                    self.error(s, f"'{word}' outside a loop{where}",
                               "break and continue act on the innermost while, for, do or loop"
                               + (" of the function itself; leave a function with return"
                                  if ctx is not None else ""))
                    return []
                self.loops[-1][1] = True
                return [(Exit if word == "break" else Next)(self.loops[-1][0], s.loc)]
        raise TypeError(f"not a loop statement: {s!r}")

    def for_with_exits(self, s: For, var: Name, lo, hi, body: list, label: str) -> list:
        """A for loop that ``break`` or ``continue`` leaves: ``continue`` runs the step first."""
        step = Assign(var, Binary("+", var, Num(1, False, s.loc), s.loc), s.loc)
        return [Assign(var, lo, s.loc),
                LabeledLoop("while", Compare("<", var, hi, s.loc), tuple(body), label, (step,), s.loc)]

    # ---- values --------------------------------------------------------------------------

    def logic_value(self, e, scope: Scope) -> tuple[list, Expr | None, str]:
        """``a and b``, ``a or b``, ``not a`` as a value, 1 or 0; operands are i64 (non-zero is
        true). A right operand that runs an inlined call is only run when it decides the value."""
        if isinstance(e, Not):
            pre, x, t = self.expr(e.operand, scope)
            if x is None or not self.logic_operand(e.operand, t, "not"):
                return pre, None, "i64"
            return pre, Not(x, e.loc), "i64"
        pa, a, ta = self.expr(e.left, scope)
        pb, b, tb = self.expr(e.right, scope)
        ok = self.logic_operand(e.left, ta, e.op) & self.logic_operand(e.right, tb, e.op)
        if a is None or b is None or not ok:
            return pa + pb, None, "i64"
        if not (pb or has_effects(b)):
            return pa + pb, BoolOp(e.op, a, b, e.loc), "i64"
        # The right operand calls a function: make the short circuit explicit statements.
        tmp = self.value_temp(scope, "i64", e)
        b_value = b if is_boolean(b) else Compare("!=", b, Num(0, False, e.loc), e.loc)
        rhs = pb + [Assign(tmp, b_value, e.loc)]
        known = [Assign(tmp, Num(int(e.op == "or"), False, e.loc), e.loc)]
        then, orelse = (rhs, known) if e.op == "and" else (known, rhs)
        return pa + [If(as_cond(a), tuple(then), tuple(orelse), e.loc)], tmp, "i64"

    def logic_operand(self, node, t: str, op: str) -> bool:
        if t == "f64":
            self.error(node, f"the operands of '{op}' are i64 (a comparison, or 0 for false), "
                       "but this is f64", "compare it, e.g. x != 0.0")
            return False
        return True

    def if_value(self, e: IfExpr, scope: Scope) -> tuple[list, Expr | None, str]:
        """``if c then a else b`` as a value: only the chosen branch is evaluated."""
        pc, c, tc = self.expr(e.cond, scope)
        pa, a, ta = self.expr(e.then, scope)
        pb, b, tb = self.expr(e.orelse, scope)
        if c is not None and tc == "f64":
            self.error(e.cond, "the condition of an 'if' value must be i64 (a comparison)",
                       "compare it, e.g. x != 0.0")
            return [], None, "i64"
        if a is None or b is None or c is None:
            return pc + pa + pb, None, "i64"
        t = "f64" if "f64" in (ta, tb) else "i64"
        if t == "f64":
            for node, v in ((e.then, a), (e.orelse, b)):
                self.no_boolean(v, node, "an f64 'if' value")
        if not (pa or pb or has_effects(a) or has_effects(b)):
            return pc, IfExpr(c, a, b, e.loc), t
        tmp = self.value_temp(scope, t, e)
        return pc + [If(as_cond(c), tuple(pa + [Assign(tmp, a, e.loc)]),
                        tuple(pb + [Assign(tmp, b, e.loc)]), e.loc)], tmp, t

    def value_temp(self, scope: Scope, dtype: str, e) -> Name:
        """A fresh scalar holding a value computed by statements (a short circuit over calls)."""
        name = self.fresh((scope.prefix or "") + "v")
        self.symbols[name] = Sym(name, "scalar", dtype, loc=e.loc, implicit=True)
        return Name(name, e.loc)

    def no_boolean(self, value, node, where: str) -> bool:
        """Report a logical value (an i64 0 or 1) used where an f64 is needed; True when it is
        not one. A bare comparison is still converted, as programs did before and/or/not became
        values (so every program that compiled compiles the same)."""
        if isinstance(value, (BoolOp, Not)):
            self.error(node, f"this is a boolean (an i64, 1 or 0), but {where} is f64",
                       "convert explicitly with f64(...) if the number is meant")
            return False
        return True

    # ---- self tail calls -----------------------------------------------------------------

    def tail_call(self, c: Call, scope: Scope, ctx: Ctx) -> list:
        """A self tail call: assign the parameters their new values, then start the next
        iteration of the loop the function body became."""
        f = ctx.func
        if len(c.args) != len(f.params):
            self.error(c, f"function '{f.name}' takes {len(f.params)} argument"
                       f"{'s' * (len(f.params) != 1)}, not {len(c.args)}")
            return []
        moves: list[tuple[Sym, list, Expr, str]] = []
        for p, a, sym in zip(f.params, c.args, ctx.bound):
            if p.type.dims or p.by_ref:
                if a != Name(p.name):
                    what = "array" if p.type.dims else "inout"
                    self.error(a, f"a tail call of '{f.name}' must pass its {what} parameter "
                               f"'{p.name}' itself", "the loop the call becomes keeps working on "
                               "the same locations")
                continue
            pre, value, t = self.expr(a, scope)
            if value is None:
                continue
            if p.type.base == "i64" and t == "f64":
                self.error(a, f"argument '{p.name}' of '{f.name}' is i64 but this value is f64",
                           "convert explicitly with i64(...)")
                continue
            if p.type.base == "f64":
                self.no_boolean(value, a, f"parameter '{p.name}'")
            if not pre and value == Name(sym.name):
                continue  # passed on unchanged
            moves.append((sym, pre, value, p.name))
        return self.parallel_move(moves, scope, c) + [Next(ctx.tail_loop, c.loc)]

    def parallel_move(self, moves: list, scope: Scope, c: Call) -> list:
        """Assign parameters their new values as if all at once (a parallel move).

        A parameter is assigned as soon as no other pending value reads it; when every pending
        parameter is still read (a cycle, as in gcd(b, a % b)), one value is computed into a
        temporary first. Values that run inlined calls are all computed first, in order.
        """
        def temp(source_name: str, sym: Sym) -> Name:
            t = self.declare(scope, Sym(f"{source_name}_next", "scalar", sym.dtype, loc=c.loc,
                                        implicit=True), f"#{source_name}")
            return Name(t.name, c.loc)

        out: list = []
        pending: list[tuple[Sym, Expr]] = []
        if any(pre or has_effects(v) for _, pre, v, _ in moves):
            for sym, pre, value, source_name in moves:
                t = temp(source_name, sym)
                out += pre + [Assign(t, value, c.loc)]
                pending.append((sym, t))
        else:
            pending = [(sym, value) for sym, _, value, _ in moves]
        while pending:
            reads = [{n.id for n in nodes(v) if isinstance(n, Name)} for _, v in pending]
            free = [k for k, (sym, _) in enumerate(pending)
                    if not any(sym.name in r for j, r in enumerate(reads) if j != k)]
            if free:
                sym, value = pending.pop(free[0])
                out.append(Assign(Name(sym.name, c.loc), value, c.loc))
                continue
            # a cycle: set aside the first value that is not a plain copy
            k = next((k for k, (_, v) in enumerate(pending) if not isinstance(v, Name)), 0)
            sym, value = pending[k]
            source = next(m[3] for m in moves if m[0] is sym)
            t = temp(source, sym)
            out.append(Assign(t, value, c.loc))
            pending[k] = (sym, t)
        return out
