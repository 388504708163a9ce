"""Lowering the control flow of issue 11 (a mixin of :class:`~.lower.Lowerer`).

Loops with exits (:class:`~.checked.LabeledLoop`), ``break`` / ``continue`` (:class:`~.checked.Exit`
/ :class:`~.checked.Next`, one ``JMP`` each), boolean values (a compare, and ``AND`` / ``OR`` of
0/1 values where no short circuit can be observed) and ``if`` values. docs/incaq.md lists each
lowering with its instruction count.
"""
from __future__ import annotations

from ...lang.program import Imm, Ref
from dataclasses import dataclass

from .ast import Assign, Binary, BoolOp, Call, Compare, If, IfExpr, Index, Name, Not, Num, Unary
from .checked import Exit, Jump, LabeledLoop, Next
from .control import as_cond, is_boolean

NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}


@dataclass(eq=False)
class Label:
    """A position in the instruction stream, resolved to an instruction number at the end."""

    name: str


def may_fault(e) -> bool:
    """Whether evaluating e can stop the program (an index that may be out of bounds, an i64
    division or remainder by zero, a conversion of NaN to i64): such an operand of ``and`` / ``or``
    is only evaluated when it decides the value, as the short circuit says."""
    match e:
        case Num() | Name():
            return False
        case Index(indices=ix):
            return not all(isinstance(i, Num) for i in ix)
        case Binary(op=op, left=a, right=b):
            return op in ("/", "%") or may_fault(a) or may_fault(b)
        case Compare(left=a, right=b) | BoolOp(left=a, right=b):
            return may_fault(a) or may_fault(b)
        case Unary(operand=x) | Not(operand=x):
            return may_fault(x)
        case IfExpr(cond=c, then=a, orelse=b):
            return may_fault(c) or may_fault(a) or may_fault(b)
        case Call(func=f, args=args):
            return f == "i64" or any(may_fault(a) for a in args)
    return True


def _ends_in_jump(body) -> bool:
    """Whether a statement list ends by jumping elsewhere (what follows it is not reached)."""
    return bool(body) and isinstance(body[-1], (Exit, Next, Jump))


class ControlLowering:
    """Labeled loops, exits, boolean values and if values."""

    # ---- loops ---------------------------------------------------------------------------

    def labeled_loop(self, s: LabeledLoop) -> None:
        """``while``: ``top: test; S; [continue: step;] JMP top; exit:``.
        ``do``: ``top: S; continue: branch to top if cond; exit:`` (no JMP per iteration).
        ``loop``: ``top: S; JMP top; exit:`` (no JMP when S itself ends with one)."""
        top, exit_ = Label("top"), Label("exit")
        cont = Label("continue") if s.step or s.kind == "do" else top
        self.exits[s.label] = (cont, exit_)
        self.mark(top)
        if s.kind == "while":
            self.branch_false(s.cond, exit_)
        self.stmts(s.body)
        if cont is not top:
            self.mark(cont)
        self.stmts(s.step)
        self.loc = s.loc
        if s.kind == "do":
            self.branch_true(s.cond, top)
        elif not (s.kind == "loop" and _ends_in_jump(s.body)):
            self.emit("JMP", target=top)
        self.mark(exit_)

    def loop_target(self, s: Exit | Next) -> Label:
        """Where ``break`` (the loop's exit) or ``continue`` (its test, step or top) goes."""
        cont, exit_ = self.exits[s.label]
        return exit_ if isinstance(s, Exit) else cont

    def loop_jump(self, s: Exit | Next) -> None:
        """``break`` and ``continue``: one ``JMP``."""
        self.loc = s.loc
        self.emit("JMP", target=self.loop_target(s))

    # ---- values --------------------------------------------------------------------------

    def if_assign(self, target, value: IfExpr, loc) -> None:
        """``x = if c then a else b`` is ``if c then { x = a } else { x = b }``."""
        self.stmt(If(as_cond(value.cond), (Assign(target, value.then, loc),),
                     (Assign(target, value.orelse, loc),), loc))

    def truth_into(self, e, t: Ref) -> None:
        """Evaluate an i64 e into t as 1 or 0 (non-zero is true)."""
        self.eval_into(e, t)
        if not is_boolean(e):
            self.emit("NE", t, Imm(0, "i64", self.loc))

    def logic_into(self, e, t: Ref) -> None:
        """``not``, ``and``, ``or`` into the i64 temporary t, as 1 or 0."""
        if isinstance(e, Not):
            x = e.operand
            if isinstance(x, Compare) and self.promoted(x.left, x.right) == "i64":
                self.eval_into(Compare(NEGATED[x.op], x.left, x.right, x.loc), t)
            else:  # (an f64 comparison is not negated: NaN compares false both ways)
                self.eval_into(x, t)
                self.emit("EQ", t, Imm(0, "i64", self.loc))
            return
        self.truth_into(e.left, t)
        if not may_fault(e.right):
            s = self.new_temp("i64")
            self.truth_into(e.right, s)
            self.emit("AND" if e.op == "and" else "OR", t, s)
            return
        end = Label("logic_end")
        if e.op == "and":
            self.emit("BLEZ", t, None, end)
        else:
            right = Label("logic_right")
            self.emit("BLEZ", t, None, right)
            self.emit("JMP", target=end)
            self.mark(right)
        self.truth_into(e.right, t)
        self.mark(end)

    def select_into(self, e: IfExpr, t: Ref) -> None:
        """``if c then a else b`` inside a larger expression: c to 1 or 0, BLEZ, one branch."""
        flag = t if self.syms[t.name].dtype == "i64" else self.new_temp("i64")
        other, end = Label("select_else"), Label("select_end")
        self.truth_into(e.cond, flag)
        self.emit("BLEZ", flag, None, other)
        self.eval_into(e.then, t)
        self.emit("JMP", target=end)
        self.mark(other)
        self.eval_into(e.orelse, t)
        self.mark(end)
