"""Loops left early and truth values: a mixin of the checker for the constructs of issue 11.

- ``do { } while c``, ``loop { }``, ``break`` and ``continue``: a ``break`` or ``continue`` belongs
  to the innermost loop of its own function body (an inlined function never leaves a caller's loop);
- ``and``, ``or``, ``not`` and comparisons as i64 values (1 or 0), and ``if c then a else b`` as a
  value. Operands of and/or/not may be any number (true when not 0); a truth value is never
  silently an f64 (write ``f64(a < b)``).

Sub-expressions that must not run unless chosen (the right of ``and``/``or``, the arms of an
``if``) keep the statements of their inlined calls inside them, as a :class:`Seq`, instead of
handing them to the caller to run first.
"""
from __future__ import annotations

from .ast import (Binary, BoolOp, Break, Compare, DoWhile, Expr, For, If, IfExpr, Index, Loop, Name,
                  Not, Num, Return, Unary, While, statements)
from .checked import Ctx, Scope, Seq


def is_truth(e) -> bool:
    """Whether an expression's value is a truth value, 1 or 0 (a comparison, and, or, not)."""
    if isinstance(e, IfExpr):
        return is_truth(e.then) and is_truth(e.orelse)
    return isinstance(e, (Compare, BoolOp, Not))


#: Nodes whose value is never a truth value (the common operands: no_truth need not look).
NUMBERS = frozenset((Name, Num, Index, Binary, Unary))


def _wrap(pre: list, value):
    return Seq(tuple(pre), value, value.loc) if pre and value is not None else value


def _exits(body) -> bool:
    """Whether a loop body has a ``break`` of its own or a ``return`` (anywhere in it)."""
    for s in body:
        if isinstance(s, (Break, Return)):
            return True
        if isinstance(s, If) and (_exits(s.then) or _exits(s.orelse)):
            return True
        if isinstance(s, (While, For, DoWhile, Loop)) and any(
                isinstance(r, Return) for r in statements(s.body)):
            return True
    return False


class Flow:
    """Checks the loop statements and the truth and conditional values (see module docstring)."""

    loops = 0  # loops around the statement being checked, in its own function body

    def loop_block(self, body, scope: Scope, ctx: Ctx | None) -> list:
        """Check a loop's body: ``break`` and ``continue`` are allowed in it."""
        self.loops += 1
        try:
            return self.block(body, scope, ctx)
        finally:
            self.loops -= 1

    def flow_stmt(self, s, scope: Scope, ctx: Ctx | None) -> list:
        """``do ... while``, ``loop``, ``break``, ``continue``."""
        match s:
            case DoWhile(body=b, cond=c):
                body = self.loop_block(b, scope, ctx)
                cond = self.cond(c, scope)
                return [DoWhile(tuple(body), cond, s.loc)] if cond is not None else []
            case Loop(body=b):
                if not _exits(b):
                    self.error(s, "this loop never ends: it has no 'break' and no 'return'",
                               "leave it with break, e.g. if done == 1 then { break }")
                return [Loop(tuple(self.loop_block(b, scope, ctx)), s.loc)]
        word = "break" if isinstance(s, Break) else "continue"
        if self.loops == 0:
            where = " of this function" if ctx is not None else ""
            self.error(s, f"'{word}' outside a loop{where}",
                       f"'{word}' belongs in the body of a while, for, do or loop"
                       + (" written in the same function" if ctx is not None else ""))
            return []
        return [s]

    # ---- values --------------------------------------------------------------------------

    def truth_value(self, e, scope: Scope) -> tuple[list, Expr | None, str]:
        """``a and b``, ``a or b``, ``not a`` as a value (1 or 0)."""
        if isinstance(e, Not):
            pre, x = self.truth_operand(e.operand, scope)
            return pre, (Not(x, e.loc) if x is not None else None), "i64"
        pa, a = self.truth_operand(e.left, scope)
        pb, b = self.truth_operand(e.right, scope)
        if a is None or b is None:
            return pa, None, "i64"
        return pa, BoolOp(e.op, a, _wrap(pb, b), e.loc), "i64"

    def truth_operand(self, x, scope: Scope) -> tuple[list, Expr | None]:
        """An operand of and/or/not: a truth value, or a number standing for ``x != 0``."""
        pre, c, _ = self.expr(x, scope)
        if c is None:
            return pre, None
        if not is_truth(c):
            c = Compare("!=", c, Num(0, False, x.loc), x.loc)
        return pre, c

    def cond_operand(self, x, scope: Scope):
        """An operand of and/or/not in a condition: a condition, or a number meaning ``x != 0``."""
        if isinstance(x, (Compare, BoolOp, Not)):
            return self.cond(x, scope)
        return self.cond(Compare("!=", x, Num(0, False, x.loc), x.loc), scope)

    def if_value(self, e: IfExpr, scope: Scope) -> tuple[list, Expr | None, str]:
        """``if c then a else b`` as a value: only the chosen arm runs."""
        cond = self.cond(e.cond, scope)
        pa, a, ta = self.expr(e.then, scope)
        pb, b, tb = self.expr(e.orelse, scope)
        if cond is None or a is None or b is None:
            return [], None, "i64"
        t = "f64" if "f64" in (ta, tb) else "i64"
        if t == "f64":
            for arm in (a, b):
                self.no_truth(arm, "an f64 'if' value")
        return [], IfExpr(cond, _wrap(pa, a), _wrap(pb, b), e.loc), t

    def no_truth(self, e, where: str) -> bool:
        """Report a truth value (1 or 0, an i64) used where an f64 is needed; True if it was.

        A bare comparison is not reported: it was a value before and/or/not were, converted to
        f64 like any i64, and programs that rely on it keep compiling."""
        if e is None or type(e) in NUMBERS or not is_truth(e) or isinstance(e, Compare) or (
                isinstance(e, IfExpr) and isinstance(e.then, Compare) and isinstance(e.orelse, Compare)):
            return False
        self.error(e, f"a truth value (an i64, 1 or 0) cannot be {where}",
                   "convert it explicitly with f64(...)")
        return True
