"""Lowering of the loops left early and of truth and conditional values (a mixin of the lowering).

Each construct's INCA-A and instruction count are in docs/incaq.md ("Loops and exits", "Truth
values"); in short:

- ``do { S } while a REL b``: ``top: S; PUTL r0, a; NREL r0, r0, b; BLEZ r0, top`` (no JMP);
- ``loop { S }``: ``top: S; JMP top``; ``break`` and ``continue`` are one ``JMP`` each;
- ``x = a < b and c != d``: two compares and one ``AND`` (``OR`` for ``or``) when the right side
  cannot fault or call; otherwise a ``BLEZ`` skips it (short circuit);
- ``if c then a else b`` as a value: the if statement's code, each arm writing one temporary.

Conditions inside a value (an ``if`` value, a short-circuit ``and``) are tested in a fresh
temporary rather than ``r0``, and the statements of an inlined call inside a value run with
temporaries numbered above every live one (``base``), so nothing live is overwritten.
"""
from __future__ import annotations

from ...lang.program import Imm, Ref
from .ast import Binary, BoolOp, Break, Compare, Continue, DoWhile, IfExpr, Index, Loop, Not, Num, nodes
from .checked import Seq, TailLoop

#: The relation that is true exactly when an i64 comparison is false.
NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


def may_fault(e) -> bool:
    """Whether evaluating e may fault or run statements: a division, an index that is not a
    constant (it may be out of bounds), an inlined call. Such a right operand of and/or is
    evaluated only when it decides the result."""
    for n in nodes(e):
        if isinstance(n, Seq) or (isinstance(n, Binary) and n.op in ("/", "%")):
            return True
        if isinstance(n, Index) and not all(isinstance(i, Num) for i in n.indices):
            return True
    return False


class FlowLowering:
    """Lowers DoWhile, Loop, Break, Continue, TailLoop and the values of flow.py."""

    def eager_bool(self, right) -> bool:
        """Whether ``a and right`` / ``a or right`` as a value evaluates both sides and combines
        them with AND/OR (-O0: whenever right cannot fault or call)."""
        return not may_fault(right)

    def while_loop(self, cond, body, step: tuple, loc) -> None:
        """``top: test; body; [next: step]; JMP top; exit:`` (while and for loops)."""
        top, exit_ = self.label("top"), self.label("exit")
        cont = self.label("next") if step else top
        self.mark(top)
        self.branch_false(cond, exit_)
        self.loops.append((cont, exit_))
        self.stmts(body)
        self.loops.pop()
        if step:
            self.mark(cont)
            self.stmts(step)
        self.loc = loc
        self.emit("JMP", target=top)
        self.mark(exit_)

    def flow_stmt(self, s) -> None:
        """Lower a do-while, loop, break, continue or tail-call loop."""
        match s:
            case DoWhile(body=b, cond=c):
                top, cont, exit_ = self.label("top"), self.label("test"), self.label("exit")
                self.mark(top)
                self.loops.append((cont, exit_))
                self.stmts(b)
                self.loops.pop()
                self.mark(cont)
                self.branch_true(c, top)
                self.mark(exit_)
            case Loop(body=b):
                top, exit_ = self.label("top"), self.label("exit")
                self.mark(top)
                self.loops.append((top, exit_))
                self.stmts(b)
                self.loops.pop()
                self.loc = s.loc
                self.emit("JMP", target=top)
                self.mark(exit_)
            case Break() | Continue():
                self.loc = s.loc
                cont, exit_ = self.loops[-1]
                self.emit("JMP", target=exit_ if isinstance(s, Break) else cont)
            case TailLoop(label=name, body=b):
                self.mark(self.marks.setdefault(name, self.label(name)))
                self.stmts(b)
            case _:
                raise TypeError(f"cannot lower {s!r}")

    def eval_flow(self, e, t: Ref) -> None:
        """Evaluate a Seq, a truth value or an if value into t (of e's own type)."""
        match e:
            case Seq(pre=pre, value=v):
                saved = (self.next, self.base, self.loc, self.in_expr)
                self.base, self.in_expr = self.next, 0
                self.stmts(pre)
                self.next, self.base, self.loc, self.in_expr = saved
                self.eval_into(v, t)
            case Not(operand=Compare(op=op) as c) if self.promoted(c.left, c.right) == "i64":
                self.eval_into(Compare(NEGATED[op], c.left, c.right, c.loc), t)
            case Not(operand=x):
                self.eval_into(x, t)
                self.emit("EQ", t, Imm(0, "i64", self.loc))
            case BoolOp(op=op, left=a, right=b) if self.eager_bool(b):
                self.eval_into(a, t)
                self.emit("AND" if op == "and" else "OR", t, self.operand_of(b))
            case BoolOp(op="and", left=a, right=b):
                end = self.label("and")
                self.eval_into(a, t)
                self.emit("BLEZ", t, None, end)
                self.eval_into(b, t)
                self.mark(end)
            case BoolOp(op="or", left=a, right=b):
                rhs, end = self.label("or"), self.label("end")
                self.eval_into(a, t)
                self.emit("BLEZ", t, None, rhs)
                self.emit("JMP", target=end)
                self.mark(rhs)
                self.eval_into(b, t)
                self.mark(end)
            case IfExpr(cond=c, then=a, orelse=b):
                other, end = self.label("else"), self.label("end")
                self.in_expr += 1
                self.branch_false(c, other)
                self.in_expr -= 1
                self.eval_into(a, t)
                self.emit("JMP", target=end)
                self.mark(other)
                self.eval_into(b, t)
                self.mark(end)
            case _:
                raise TypeError(f"cannot lower {e!r}")
