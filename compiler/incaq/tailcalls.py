"""Self tail calls become loops: a mixin of the checker's inliner.

Functions are inlined (the NIC has no call stack), so recursion cannot be compiled in general. A
*self tail call* can: ``return f(args)``, or a call statement ``f(args)`` that ends a function
without a result (last in its body, or followed by a bare ``return``), needs nothing of the current
call once it starts. It assigns the new arguments to the parameters and jumps back to the start of
the inlined body (:class:`~.checked.TailLoop`). Any other call of a function to itself, and every
cycle through several functions, is still an error, with the cycle named.

The new arguments are computed from the old parameters, so they are assigned as a parallel move:
directly where no later argument reads the parameter, through one temporary per cycle otherwise
(``gcd(b, a % b)`` is ``t = b; b = a % b; a = t``).
"""
from __future__ import annotations

from .ast import Assign, Call, CallStmt, Func, If, Name, Return, nodes
from .checked import Ctx, Jump, Scope, Sym


def tail_call_ids(f: Func) -> set[int]:
    """The ``id`` of every call in ``f`` that is a self tail call (see the module docstring)."""
    out = {id(n.value) for n in nodes(f.body)
           if isinstance(n, Return) and isinstance(n.value, Call) and n.value.func == f.name}
    if f.ret is None:
        _tail_statements(f.body, f.name, out, at_end=True)
    return out


def _tail_statements(body, name: str, out: set[int], at_end: bool) -> None:
    """Void self calls that end the function: the last statement of a body at its end, or a
    call followed by a bare ``return``; through the branches of ifs."""
    for k, s in enumerate(body):
        last = k == len(body) - 1
        nxt = body[k + 1] if not last else None
        if isinstance(s, CallStmt) and s.call.func == name and (
                (last and at_end) or (isinstance(nxt, Return) and nxt.value is None)):
            out.add(id(s.call))
        elif isinstance(s, If):
            _tail_statements(s.then, name, out, last and at_end)
            _tail_statements(s.orelse, name, out, last and at_end)


class TailCalls:
    """Compiles self tail calls into jumps (the checker provides expr, error, declare)."""

    tail_ids: set[int]  # filled per kernel by find_recursion

    def is_tail_call(self, c: Call, ctx: Ctx) -> bool:
        """Whether c is a self tail call of the function being checked."""
        return c.func == ctx.func.name and id(c) in self.tail_ids

    def tail_call(self, c: Call, scope: Scope, ctx: Ctx) -> list:
        """Assign the new arguments to the parameters and jump back to the top of the body."""
        f = ctx.func
        if len(c.args) != len(f.params):
            self.error(c, f"function '{f.name}' takes {len(f.params)} argument"
                       f"{'s' * (len(f.params) != 1)}, not {len(c.args)}")
            return []
        pre: list = []
        moves: list[tuple[str, object]] = []  # (parameter's final name, new value)
        for p, a in zip(f.params, c.args):
            sym = scope.lookup(p.name)
            if sym is None:  # the parameter was not bound: its argument's error is reported
                continue
            if p.type.dims or p.inout:
                if not (isinstance(a, Name) and scope.lookup(a.id) is sym):
                    kind = "an array" if p.type.dims else "an inout"
                    self.error(a, f"this tail call must pass '{p.name}' itself: {kind} parameter is "
                               f"bound once, when '{f.name}' is first called",
                               f"write {p.name} here, or copy into it before the call")
                continue
            pa, ca, ta = self.expr(a, scope)
            if ca is None:
                continue
            if p.type.base == "i64" and ta == "f64":
                self.error(a, f"argument '{p.name}' of '{f.name}' is i64 but this value is f64",
                           "convert explicitly with i64(...)")
                continue
            pre += pa
            if ca != Name(sym.name):  # a parameter passed on unchanged needs no move
                moves.append((sym.name, ca, ta))
        out = pre + self._parallel_move(moves, scope, c)
        ctx.looped = True
        out.append(Jump(ctx.top, c.loc))
        return out

    def _parallel_move(self, moves: list, scope: Scope, c: Call) -> list:
        """Assignments giving every parameter its new value as if all were assigned at once."""
        out: list = []
        while moves:
            for k, (name, value, _) in enumerate(moves):
                if not any(name in _reads(v) for j, (_, v, _) in enumerate(moves) if j != k):
                    out.append(Assign(Name(name, c.loc), value, c.loc))
                    del moves[k]
                    break
            else:  # every remaining parameter is still read by another value: save one first
                name, value, t = moves[0]
                tmp = self.declare(scope, Sym("tail", "scalar", t, loc=c.loc, implicit=True),
                                   f"tail call value {len(scope.names)}")
                out.append(Assign(Name(tmp.name, c.loc), value, c.loc))
                moves[0] = (name, Name(tmp.name, c.loc), t)
        return out


def _reads(value) -> set[str]:
    return {n.id for n in nodes(value) if isinstance(n, Name)}
