"""Loop IR to INCA-A above -O0: the -O0 rules, plus what the optimiser's lowering adds.

- **Vector statements**: a :class:`~.ir.Span` index becomes an INCA-A slice; temporaries of a
  vector statement are arrays of its destination's shape (``t1_4x4``).
- **In-place evaluation**: ``x = e`` evaluates e directly into x (no ``r1`` and no final PUTL)
  when e does not read x's array or scalar; ``x = abs(x)`` is its negation in a temporary and one
  ``MAX`` into x.
- **Loop rotation** (no JMP per iteration): a counted loop tests at the bottom. When its bounds are
  constants it counts a register up to zero (``ADD c, c, 1; BLEZ c, top``: two instructions per
  iteration); when the loop variable is used only in indices, that register is the variable
  itself, shifted by ``hi - 1`` (strength reduction of the test). A while loop on an i64
  condition becomes ``if c { do { S } while c }``; an f64 condition stays as it is, because its
  bottom test needs one more compare (NaN) than the JMP it saves.

Faults: a run that faults at -O0 still faults, but may stop at another instruction with other
partial writes (the order of independent work is not kept); a run that finishes gives the same
outputs bit for bit.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ...lang.isa import lookup
from ...lang.program import Affine, Imm, Instr, Ref, Slice
from ..incaq.ast import (Assign, Binary, Call, Compare, DoWhile, For, If, Index, Loop, Name, Num, Unary,
                         While, nodes)
from ..incaq.checked import Checked, Jump, Mark, Seq, Sym, TailLoop
from ..incaq.lower import ALU, REL, Lowerer, _binary_parts, _Label
from .ir import Span, affine, free_reads, names_read, names_written, own_exprs, stmts
from .lower_loops import LoopLowering


def _i64_condition(c, syms) -> bool:
    from ..incaq.checked import type_of

    for n in nodes(c):
        if isinstance(n, Compare) and "f64" in (type_of(n.left, syms), type_of(n.right, syms)):
            return False
    return True


class OptLowerer(LoopLowering, Lowerer):
    """The lowering of optimised loop IR."""

    def __init__(self, checked: Checked, name: str, inplace=frozenset(), aliases=None):
        super().__init__(checked, name, inplace, aliases)
        self.vshape: tuple[int, ...] = ()
        self.free_reads = free_reads(checked.body)  # see live_after
        self.cold: list[tuple] = []  # rare paths, after END
        self.facts: list[Compare] = []  # see stmt
        self.use_facts = not any(isinstance(x, Mark) or any(isinstance(n, Seq) for e in own_exprs(x)
                                                           for n in nodes(e))
                                 for x in stmts(checked.body))
        self.pending: dict[int, Compare] = {}  # id of an if's then-arm -> its condition

    def eager_bool(self, right) -> bool:
        # A right side that needs instructions of its own costs its own plus an AND/OR when both
        # sides run; short-circuited it costs its own plus a BLEZ (and a JMP for `or` only when
        # it is skipped), so never more time at any input and less whenever the left decides.
        return _simple_value(right) and super().eager_bool(right)

    # ---- vectors -------------------------------------------------------------------------------

    def operand(self, e):
        if isinstance(e, Index) and any(isinstance(i, Span) for i in e.indices):
            index = []
            for i in e.indices:
                if isinstance(i, Span):
                    lo = self.affine(i.start)
                    index.append(Slice(lo, lo + Affine((i.length - 1) * i.step + 1), i.step))
                else:
                    index.append(self.affine(i))
            return Ref(e.base, tuple(index), self.loc)
        return super().operand(e)

    def emit(self, op: str, dest=None, src=None, target=None) -> None:
        if isinstance(src, Ref) and self.syms[src.name].dtype == "f64" and lookup(op).int_only:
            # an f64 compare's value (operand_of) read by an i64-only instruction (AND, OR, XOR,
            # shifts): converted into an i64 temporary first, as the -O0 rule does
            conv = self.new_temp("i64")
            super().emit("PUTL", conv, src)
            src = conv
        super().emit(op, dest, src, target)

    def eval_into(self, e, t: Ref, edt: str | None = None) -> None:
        r = e.right if type(e) is Binary else None
        if type(r) is Call and r.func == "f64" and e.op in ALU and type(r.args[0]) in (Name, Index) \
                and self.syms[t.name].dtype == "f64" and (edt or self.expr_type(e)) == "f64" \
                and self.expr_type(r.args[0]) == "i64":
            # a OP f64(x), x an i64 operand: the instruction converts x itself (INCA-A's mixed
            # operands: the operation is done in the destination's type after converting the
            # source), exactly as the PUTL into a temporary of the -O0 rule does
            self.eval_into(e.left, t)
            self.emit(ALU[e.op], t, self.operand(r.args[0]))
            return
        super().eval_into(e, t, edt)

    def operand_of(self, e):
        if type(e) is Compare:
            edt = self.promoted(e.left, e.right)
            if edt != self.expr_type(e):
                # an f64 compare's 1.0 or 0.0 as it is computed: the instruction reading it does
                # its operation in its destination's type after converting it (INCA-A's mixed
                # operands), exactly, where the -O0 rule spends a PUTL converting it first
                t = self.new_temp(edt)
                self.eval_into(e, t, edt)
                return t
        return super().operand_of(e)

    def temp(self, n: int, dtype: str) -> Ref:
        if not self.vshape:
            return super().temp(n, dtype)
        key = (n, dtype, self.vshape)
        if key not in self.temps:
            stem = f"t{n}_{'x'.join(map(str, self.vshape))}" + ("f" if dtype == "f64" else "i")
            name = stem
            while name in self.syms:
                name += "_"
            self.temps[key] = name
            self.syms[name] = Sym(name, "array", dtype, self.vshape, "var")
        name = self.temps[key]
        whole = tuple(Slice(Affine(0), Affine(n_), 1) for n_ in self.vshape)
        return Ref(name, whole, self.loc)

    # ---- assignments ---------------------------------------------------------------------------

    def assign(self, s: Assign) -> None:
        t = s.target
        spans = [i for i in t.indices if isinstance(i, Span)] if isinstance(t, Index) else []
        self.vshape = tuple(i.length for i in spans)
        try:
            # inlined calls run once, here; what is left has none (hoisting it again is a no-op)
            t, value = self.hoist(t), self.hoist(s.value)
            s = Assign(t, value, s.loc)
            base = t.id if isinstance(t, Name) else t.base
            if isinstance(value, Compare) and value.left == t \
                    and self.syms[base].dtype == self.promoted(value.left, value.right):
                # d = d REL e in the type the compare is done in: one REL (compact.py's mask)
                self.loc = s.loc
                self.next = self.base + 1
                self.emit(REL[value.op], self.operand(t), self.operand_of(value.right))
                return
            if isinstance(value, Call) and value.func == "abs" and value.args[0] == t:
                # x = abs(x): its negation beside it and one MAX into x (the -O0 rule copies x
                # into a temporary, computes there and copies back: two PUTLs more)
                self.loc = s.loc
                self.next = self.base + 1
                dest, dtype = self.operand(t), self.syms[base].dtype
                neg = self.new_temp(dtype)
                self.emit("PUTL", neg, dest)
                self.emit("MUL", neg, Imm(-1.0 if dtype == "f64" else -1, dtype, self.loc))
                self.emit("MAX", dest, neg)
                return
            if isinstance(value, Call) and value.func == "abs" and _simple_value(value.args[0]) \
                    and base not in names_read(value) \
                    and self.expr_type(value.args[0]) == self.syms[base].dtype:
                # T = abs(e), e an operand T is not: -e into T and one MAX with e (MAX is
                # symmetric here: a NaN result is the one NaN, and -0.0 < +0.0 either way),
                # where the -O0 rule computes -e in a temporary and copies e into T first
                self.loc = s.loc
                self.next = self.base + 1
                dest, src, dtype = self.operand(t), self.operand(value.args[0]), self.syms[base].dtype
                self.emit("PUTL", dest, src)
                self.emit("MUL", dest, Imm(-1.0 if dtype == "f64" else -1, dtype, self.loc))
                self.emit("MAX", dest, src)
                return
            if _simple_value(value) or self.clobbers(value) or (
                    base in names_read(value) and not _reads_apart(value, t, self.syms)):
                super().assign(s)
                return
            self.loc = s.loc
            self.next = self.base + 1
            self.eval_into(value, self.operand(t))
        finally:
            self.vshape = ()

    def in_place(self, e):
        return None if self.vshape else super().in_place(e)

    def clobbers(self, e) -> bool:
        """Whether --clobber's lowering computes e in an input's buffer (lower.py's in_place)."""
        parts = _binary_parts(e)
        return not self.vshape and parts is not None and isinstance(parts[1], Index) \
            and parts[1].base in self.inplace

    def decls(self, instrs):
        """Declarations of the locations the program uses (passes may leave unused ones)."""
        used = {n for ins in instrs for op in (ins.dest, ins.src) if isinstance(op, Ref)
                for n in (op.name, *op.names_read)}
        self.syms = {n: s for n, s in self.syms.items() if n in used or s.role != "var"}
        return super().decls(instrs)

    # ---- conditions folded to constants -------------------------------------------------------

    def branch_false(self, c, target) -> None:
        if isinstance(c, Num):
            if c.value == 0:
                self.emit("JMP", target=target)
            return
        x = _positive_test(c, self.syms)
        if x is not None:  # x > 0 is false exactly where BLEZ x jumps (i64: no NaN)
            self.loc = c.loc
            self.emit("BLEZ", self.operand(x), None, target)  # (affine indices: no temporary)
            return
        super().branch_false(c, target)

    def branch_true(self, c, target) -> None:
        if isinstance(c, Num):
            if c.value != 0:
                self.emit("JMP", target=target)
            return
        super().branch_true(c, target)

    # ---- loops ---------------------------------------------------------------------------------

    def stmts(self, body) -> None:
        """As at -O0; the then-arm of an ``if`` whose condition can be a fact (:meth:`stmt`) is
        lowered knowing it."""
        fact = self.pending.pop(id(body), None) if self.pending else None
        if fact is None:
            super().stmts(body)
            return
        outside = self.facts
        self.facts = [*outside, fact]
        super().stmts(body)
        self.facts = outside

    def stmt(self, s) -> None:
        """Lower one statement, keeping :attr:`facts`: the i64 compares of scalars and constants
        known true here (the conditions of the ``if`` arms around it, until a statement assigns
        what one reads); an ``if`` on one of them is its then-arm. A loop forgets those its body
        may make false before its body. None are kept in a kernel with labels (a jump may arrive
        from where none holds) or inlined calls in expressions (their statements assign what no
        statement shows)."""
        if not self.use_facts:
            self._stmt(s)
            return
        if isinstance(s, If) and s.cond in self.facts:  # known true: its then-arm is all it does
            self.stmts(s.then)
            if self.facts:
                self._forget(names_written((s,)))
            return
        if isinstance(s, If) and s.then and _fact(s.cond, self.syms):
            self.pending[id(s.then)] = s.cond
        if self.facts and isinstance(s, (For, While, DoWhile, Loop, TailLoop)):
            self._forget(names_written((s,)))
        self._stmt(s)
        if self.facts:
            self._forget(names_written((s,)))

    def _forget(self, written: set[str]) -> None:
        self.facts = [f for f in self.facts if not names_read(f) & written]

    def entered(self, s: For) -> bool:
        """Whether ``lo < hi`` of a for loop is a fact, so that its first test is known to pass
        (``==`` ignores locations; bounds that read the variable are not tested as written)."""
        return bool(self.facts) and s.var not in names_read((s.lo, s.hi)) \
            and Compare("<", s.lo, s.hi) in self.facts

    def _stmt(self, s) -> None:
        if isinstance(s, If) and not s.orelse and len(s.then) == 1 and isinstance(s.then[0], Jump) \
                and _le_zero(s.cond):
            self.loc = s.loc
            self.emit("BLEZ", self.operand(s.cond.left), None,
                      self.marks.setdefault(s.then[0].label, _Label(s.then[0].label)))
        elif isinstance(s, If) and not s.orelse and _blez_test(s.cond, self.syms):
            self.rare(s)
        elif isinstance(s, For):
            self.for_loop(s)
        elif isinstance(s, While) and _i64_condition(s.cond, self.syms):
            self.rotated_while(s)
        else:
            super().stmt(s)

    def program(self, checked: Checked):
        """As at -O0, then jumps threaded: a jump to a ``JMP`` goes to where that one goes, and a
        ``JMP`` to ``END`` is an ``END`` (free, where the jump costs a tuple): the arms of nested
        ``if``s and versioned loops end in such chains. Numbers stay; what is left unreached
        costs nothing."""
        prog = super().program(checked)
        instrs = list(prog.instrs)
        for n, ins in enumerate(instrs):
            if ins.target is None:
                continue
            target, seen = ins.target, set()
            while 1 <= target <= len(instrs) and instrs[target - 1].op == "JMP" and target not in seen:
                seen.add(target)
                target = instrs[target - 1].target
            if ins.op == "JMP" and 1 <= target <= len(instrs) and instrs[target - 1].op == "END":
                instrs[n] = Instr("END", None, None, None, ins.loc)
            elif target != ins.target:
                instrs[n] = Instr(ins.op, ins.dest, ins.src, target, ins.loc)
        return replace(prog, instrs=tuple(instrs))

    def rare(self, s: If) -> None:
        """``if x <= 0 then { S }`` on an i64 scalar x (strength.py's wrap-arounds): one BLEZ to S,
        placed after END and jumping back, so the usual path costs one instruction."""
        self.loc = s.loc
        go, back = self.label("rare"), self.label("back")
        self.emit("BLEZ", Ref(s.cond.left.id, (), s.loc), None, go)
        self.mark(back)
        self.cold.append((go, s.then, back, s.loc, tuple(self.loops), self.base))

    def after_end(self) -> None:
        while self.cold:
            go, body, back, loc, loops, base = self.cold.pop(0)
            self.mark(go)
            self.loops, self.base = list(loops), base  # as at the if: live temporaries stay
            self.stmts(body)
            self.loc = loc
            self.emit("JMP", target=back)


def _fact(c, syms) -> bool:
    """Whether compare c can be kept as a fact: i64, of scalars and constants by arithmetic, min,
    max and abs (what it reads only assignments to scalars change)."""
    return isinstance(c, Compare) and _i64_condition(c, syms) and all(
        isinstance(n, (Compare, Binary, Unary, Num)) or (isinstance(n, Name) and syms[n.id].kind == "scalar")
        or (isinstance(n, Call) and n.func in ("min", "max", "abs")) for n in nodes(c))


def _positive_test(c, syms):
    """x when c is ``x > 0`` or ``0 < x`` for an i64 scalar or element x (at affine indices, of
    no vector), else None."""
    if not isinstance(c, Compare) or c.op not in ("<", ">"):
        return None
    zero, x = (c.left, c.right) if c.op == "<" else (c.right, c.left)
    if not (isinstance(zero, Num) and not zero.is_float and zero.value == 0):
        return None
    if isinstance(x, Name) and syms[x.id].kind == "scalar" and syms[x.id].dtype == "i64":
        return x
    if isinstance(x, Index) and syms[x.base].dtype == "i64" and all(
            not isinstance(i, Span) and affine(i, syms) is not None for i in x.indices):
        return x
    return None


def _blez_test(c, syms) -> bool:
    """Whether c is ``x <= 0`` for an i64 scalar x (one BLEZ tests it)."""
    return _le_zero(c) and isinstance(c.left, Name) and syms[c.left.id].dtype == "i64" \
        and syms[c.left.id].kind == "scalar"


def _le_zero(c) -> bool:
    """Whether c is ``x <= 0`` for a scalar or element x of either type: BLEZ's own test (an f64
    -0.0 is <= 0, a NaN is not, as for the compare)."""
    return isinstance(c, Compare) and c.op == "<=" and isinstance(c.left, (Name, Index)) \
        and not any(isinstance(i, Span) for i in getattr(c.left, "indices", ())) \
        and isinstance(c.right, Num) and c.right.value == 0


def _reads_apart(e, t, syms) -> bool:
    """Whether every element of t's array that e reads is apart from every element t stores (an
    index of theirs differs by a nonzero constant), so e can be computed in t itself: ``B[j] =
    B[j - 1] + A[j]`` as ``PUTL B[j], B[j - 1]; ADD B[j], A[j]``, without -O0's temporary."""
    return isinstance(t, Index) and all(
        any(_index_apart(x, y, syms) for x, y in zip(n.indices, t.indices))
        for n in nodes(e) if isinstance(n, Index) and n.base == t.base)


def _index_apart(x, y, syms) -> bool:
    """Whether two indices of one dimension never take a common value: affine forms that differ by
    a nonzero constant, or spans of one step whose positions so differ lie in disjoint ranges."""
    spans = isinstance(x, Span), isinstance(y, Span)
    if spans[0] != spans[1] or (spans[0] and x.step != y.step):
        return False
    a, b = (affine(x.start, syms), affine(y.start, syms)) if spans[0] else (affine(x, syms), affine(y, syms))
    if a is None or b is None or a[1] != b[1]:
        return False
    if not spans[0]:
        return a[0] != b[0]
    return a[0] + x.step * (x.length - 1) < b[0] or b[0] + y.step * (y.length - 1) < a[0]


def _simple_value(e) -> bool:
    return isinstance(e, (Num, Name, Index))


def lower(checked: Checked, name: str, inplace: frozenset[str] = frozenset(),
          aliases: tuple[tuple[str, str], ...] = ()):
    """The INCA-A program of optimised loop IR; ``inplace`` and ``aliases`` are the --clobber
    plan (made before optimising, see :func:`plan_clobber`)."""
    from ..incaq.ast import room_for_chains

    with room_for_chains():
        return OptLowerer(checked, name, inplace, dict(aliases)).program(checked)


def plan_clobber(checked: Checked):
    """With --clobber: the inputs that may be evaluated into, the outputs stored in inputs, and
    the kernel rewritten to store them there (clobber.py decides on the source's own code)."""
    from ..incaq.clobber import plan, store_in_inputs

    p = plan(checked)
    return store_in_inputs(checked, p.aliases), p.inplace, p.aliases


__all__ = ["OptLowerer", "lower", "_Label"]
