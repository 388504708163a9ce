"""The optimiser's lowering of loops (a part of :class:`.lower.OptLowerer`): rotated loops, loops
counted in place, bounds computed once, and while loops tested at the bottom.

See :mod:`.lower` for what each form costs; every form of a loop that runs no time costs no more
than -O0's first test.
"""
from __future__ import annotations

from ...lang.program import Imm, Ref
from ..incaq.ast import Assign, Binary, BoolOp, Compare, For, IfExpr, Name, Num, While, nodes
from ..incaq.checked import Seq, Sym
from .ir import I64_MAX, I64_MIN, const_int, is_plain, names_read, names_written, substitute, \
    uses_outside_index


class LoopLowering:
    """The loop methods of :class:`.lower.OptLowerer` (which provides emission, labels, operands,
    facts and the statements)."""

    def for_loop(self, s: For) -> None:
        lo, hi = const_int(s.lo), const_int(s.hi)
        var = Name(s.var, s.loc)
        if s.var in names_written(s.body):
            super().stmt(s)
            return
        if lo is not None and hi is not None and I64_MIN <= lo - hi + 1 and hi - 1 <= I64_MAX:
            if hi <= lo:
                self.assign(Assign(var, s.lo, s.loc))
                return
            if is_plain(s.body) and not uses_outside_index(s.body, s.var):
                self.counted_in_place(s, lo, hi)
            else:
                self.counted(s, lo, hi)
            return
        if not names_read(s.hi) & names_written(s.body) and not any(
                isinstance(n, (Seq, IfExpr, BoolOp)) for n in nodes(s.hi)):
            self.runtime_counted(s)
            return
        self.rotated(s, s.hi)

    def rotated(self, s: For, hi) -> None:
        """``i = lo``, -O0's first test, then the body with the test at its bottom (no JMP)."""
        var = Name(s.var, s.loc)
        top, cont, exit_ = self.label("top"), self.label("next"), self.label("exit")
        self.assign(Assign(var, s.lo, s.loc))
        if not self.entered(s):
            self.branch_false(Compare("<", var, hi, s.loc), exit_)
        self.mark(top)
        self.body(s.body, cont, exit_)
        self.step(s.var, s.loc)
        self.branch_true(Compare("<", var, hi, s.loc), top)
        self.mark(exit_)

    def body(self, body: tuple, cont, exit_) -> None:
        """A loop's body; ``continue`` goes to ``cont`` (marked after it), ``break`` to exit_."""
        self.loops.append((cont, exit_))
        self.stmts(body)
        self.loops.pop()
        self.mark(cont)

    def runtime_counted(self, s: For) -> None:
        """A bound the body cannot change is computed once (loop-invariant code motion: -O0
        computes it before every test), where -O0's first test computes it.

        When the variable appears only in affine indices (where the shift below is free: each
        use in a computed index would cost two instructions per iteration, more than the test
        saves) and ``lo`` is a constant >= 0, -O0's first test
        (``lo < h``) guards a loop in which the variable counts itself: ``i = lo + 1 - h`` up to
        0 (no wrap-around, since lo < h and lo >= 0), indices add ``h - 1``: ``ADD i, 1;
        BLEZ i, top`` per iteration. Otherwise the test is at the bottom (``PUTL r0, i; GE r0, h;
        BLEZ r0, top``). Either way a loop that runs no time costs no more than -O0's first
        test."""
        loc, var = s.loc, Name(s.var, s.loc)
        if isinstance(s.hi, (Num, Name)):
            hv = s.hi
        else:
            h = self.counter("h")
            hv = Name(h.name, loc)
            self.assign(Assign(hv, s.hi, loc))
        lo = const_int(s.lo)
        top, cont, exit_ = self.label("top"), self.label("next"), self.label("exit")
        if lo is not None and lo >= 0 and is_plain(s.body) and not uses_outside_index(s.body, s.var, self.syms):
            # -O0's first test, on lo itself (unless known to pass); then lo < h, so lo + 1 - h
            # does not wrap (lo >= 0)
            skip = None if self.entered(s) else self.label("skip")
            if skip is not None:
                self.branch_false(Compare("<", Num(lo, False, loc), hv, loc), skip)
            self.assign(Assign(var, Binary("-", Num(lo + 1, False, loc), hv, loc), loc))
            self.mark(top)
            self.body(substitute(s.body, s.var, Binary("-", Binary("+", var, hv, loc),
                                                       Num(1, False, loc), loc)), cont, exit_)
            self.step(s.var, loc)
            self.emit("BLEZ", Ref(s.var, (), loc), None, top)
            self.mark(exit_)
            if not self.live_after(s):
                if skip is not None:
                    self.mark(skip)
                return
            self.emit("PUTL", Ref(s.var, (), loc), self.operand(hv))  # it ran: its last value is h
            if skip is None:
                return
            done = self.label("done")
            self.emit("JMP", target=done)
            self.mark(skip)
            self.emit("PUTL", Ref(s.var, (), loc), Imm(lo, "i64", loc))
            self.mark(done)
            return
        self.rotated(s, hv)

    def live_after(self, s: For) -> bool:
        """Whether the loop variable's final value may be read: by the host, or by a read outside
        every for loop over it (each of those sets it first)."""
        return self.free_reads.get(s.var, 0) > 0 or self.syms[s.var].role != "var"

    def step(self, name: str, loc) -> None:
        self.loc = loc
        self.emit("ADD", Ref(name, (), loc), Imm(1, "i64", loc))

    def counted_in_place(self, s: For, lo: int, hi: int) -> None:
        """The variable itself counts from ``lo - hi + 1`` up to 0; indices add ``hi - 1``."""
        shift = hi - 1
        body = substitute(s.body, s.var, Binary("+", Name(s.var, s.loc), Num(shift, False, s.loc),
                                                s.loc))
        self.loc = s.loc
        self.emit("PUTL", Ref(s.var, (), s.loc), Imm(lo - shift, "i64", s.loc))
        top, cont, exit_ = self.label("top"), self.label("next"), self.label("exit")
        self.mark(top)
        self.body(body, cont, exit_)
        self.step(s.var, s.loc)
        self.emit("BLEZ", Ref(s.var, (), s.loc), None, top)
        self.mark(exit_)
        if self.live_after(s):
            self.emit("PUTL", Ref(s.var, (), s.loc), Imm(hi, "i64", s.loc))

    def counted(self, s: For, lo: int, hi: int) -> None:
        """The variable counts as written; a separate register counts up to 0 for the test."""
        count = self.counter()
        self.loc = s.loc
        self.emit("PUTL", Ref(s.var, (), s.loc), Imm(lo, "i64", s.loc))
        self.emit("PUTL", count, Imm(lo - hi + 1, "i64", s.loc))
        top, cont, exit_ = self.label("top"), self.label("next"), self.label("exit")
        self.mark(top)
        self.body(s.body, cont, exit_)
        self.step(s.var, s.loc)
        self.loc = s.loc
        self.emit("ADD", count, Imm(1, "i64", s.loc))
        self.emit("BLEZ", count, None, top)
        self.mark(exit_)

    def counter(self, stem: str = "n") -> Ref:
        """A new kernel-private i64 scalar (a loop's count or hoisted bound)."""
        n = 1
        while f"{stem}{n}" in self.syms:
            n += 1
        name = f"{stem}{n}"
        self.syms[name] = Sym(name, "scalar", "i64", implicit=True)
        return Ref(name, (), self.loc)

    def rotated_while(self, s: While) -> None:
        exit_, top, test = self.label("exit"), self.label("top"), self.label("test")
        self.branch_false(s.cond, exit_)
        self.mark(top)
        self.body(s.body, test, exit_)
        self.branch_true(s.cond, top)
        self.mark(exit_)
