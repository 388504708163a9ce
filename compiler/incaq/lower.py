"""Checked AST to INCA-A at -O0, exactly by the rules of INCA-Q.md (the paper's code).

- ``x = s`` (s a literal, scalar or element): ``PUTL x, s``
- ``x = x OP e``: e to an operand s (itself if simple, else a temporary), then ``OP x, x, s``
- ``x = e`` otherwise: evaluate e into ``r1``, then ``PUTL x, r1``
- ``a OP b`` into t: a into t (``PUTL t, a`` if simple), b to an operand s, ``OP t, t, s``
- ``while a REL b do {S}``: ``top: PUTL r0, a; REL r0, r0, b; BLEZ r0, exit; S; JMP top; exit:``
- ``if``: ``PUTL r0, a; REL r0, r0, b; BLEZ r0, else; S1; JMP end; else: S2; end:``
- the loops left early and the truth and ``if`` values: lower_flow.py

Temporaries are typed: ``r<n>`` belongs to the first type that uses it, and a temporary of the
other type with the same number is ``r<n>_i64`` / ``r<n>_f64``, so i64 arithmetic never passes
through an f64 location. A sub-expression of another type than its temporary is evaluated in its
own type first and converted with PUTL. Comparisons are done in the promoted type of their operands.
"""
from __future__ import annotations


from ...lang.diagnostics import Loc
from ...lang.frozen import maker, record
from ...lang.inference import infer_scalar_types
from ...lang.program import Affine, Decl, Imm, Instr, Operand, Program, Ref
from .ast import (Assign, Binary, BoolOp, Break, Call, Compare, Continue, DoWhile, For, If, Index,
                  Loop, Name, Not, Num, Unary, While, room_for_chains)
from .checked import Checked, Jump, Mark, Seq, Sym, TailLoop, initial_value, type_of
from .lower_flow import NEGATED, FlowLowering

ALU = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV", "%": "MOD", "&": "AND", "|": "OR",
       "^": "XOR", "<<": "SHL", ">>": "SHR", "min": "MIN", "max": "MAX"}
REL = {"<": "LT", "<=": "LE", ">": "GT", ">=": "GE", "==": "EQ", "!=": "NE"}
# What makes the records made most (lang/frozen.py's makers): an instruction for each of a
# kernel's, an element operand for each element written, a loop's nodes for each loop
_Instr, _Ref, _Affine = maker(Instr), maker(Ref), maker(Affine)
_Name, _Num, _Binary, _Compare, _Assign = (maker(Name), maker(Num), maker(Binary), maker(Compare),
                                           maker(Assign))


@record(eq=False)
class _Label:
    """A position in the instruction stream: ``at`` is the number of the instruction it is placed
    before (None until :meth:`Lowerer.mark` places it); jumps to it are resolved at the end."""

    name: str
    at: int | None = None


# The node types are final (no node type has subclasses), so a node's type is looked up, where
# isinstance would walk a tuple for each of the tens of thousands of nodes of a large kernel.
_SIMPLE = frozenset((Num, Name, Index))
_LEAVES = frozenset((Num, Name))  # nodes without parts (nothing to hoist)


def _simple(e) -> bool:
    return type(e) in _SIMPLE


def _binary_parts(e):
    """(ALU mnemonic, left, right) of an expression the ALU computes in one instruction, or None."""
    if isinstance(e, Binary):
        op = ALU.get(e.op)
        return None if op is None else (op, e.left, e.right)
    if isinstance(e, Call) and e.func in ("min", "max"):
        return ALU[e.func], e.args[0], e.args[1]
    return None


class Lowerer(FlowLowering):
    """Emits the instructions of one checked kernel."""

    def __init__(self, checked: Checked, name: str, inplace: frozenset[str] = frozenset(),
                 aliases: dict[str, str] | None = None):
        self.name = name
        self.inplace = inplace  # inputs --clobber lets us compute into (see clobber.py)
        self.aliases = aliases or {}  # output -> the input whose buffer stores it (--clobber)
        self.syms: dict[str, Sym] = {s.name: s for s in checked.symbols}
        # The instructions in order, a jump as (op, dest, src, label, loc) until its label is
        # resolved at the end; ``jumps`` holds the indices of those
        self.items: list = []
        self.jumps: list[int] = []
        self.temps: dict[tuple[int, str], str] = {}
        self.next = 1
        self.marks: dict[str, _Label] = {}
        self.loc: Loc | None = None
        self.loops: list[tuple[_Label, _Label]] = []  # (continue, break) targets, innermost last
        self.base = 0  # temporaries below this number are live (statements run inside a value)
        self.in_expr = 0  # > 0 while a condition is tested inside a value (not in r0)
        # The scalar operands and the literals' immediates, one object each for the whole kernel
        # (a kernel names its scalars again and again). An operand made here has no location of
        # its own: its instruction's is where it was written, as for an operand read from tuple
        # JSON, and what reports an operand falls back to its instruction's location.
        self.refs: dict[str, Ref] = {}
        self.imms: dict[tuple[str, int | float], Imm] = {}
        self.types: dict[int, tuple[Binary, str]] = {}  # see expr_type
        self.temp_names: set[str] = set()
        self.seqs = checked.inlined  # whether expressions may hold inlined calls (see hoist)

    # ---- emission ------------------------------------------------------------------------

    def emit(self, op: str, dest: Ref | None = None, src: Operand | None = None,
             target: _Label | None = None) -> None:
        """Append one instruction (a jump's target is resolved, and its instruction made, at the
        end)."""
        if target is None:
            self.items.append(_Instr(op, dest, src, None, self.loc))
        else:
            self.jumps.append(len(self.items))
            self.items.append((op, dest, src, target, self.loc))

    def mark(self, label: _Label) -> None:
        """Place a label before the next instruction."""
        label.at = len(self.items) + 1

    @staticmethod
    def label(name: str) -> _Label:
        """A new label (placed later with :meth:`mark`)."""
        return _Label(name)

    def temp(self, n: int, dtype: str) -> Ref:
        """Temporary number n of a type (see the module docstring for naming)."""
        key = (n, dtype)
        if key not in self.temps:
            syms, temps = self.syms, self.temp_names  # (not copied for each temporary)
            name = f"r{n}"
            if name in syms or name in temps:
                name = f"r{n}_{dtype}"
            while name in syms or name in temps:
                name += "_"
            self.temps[key] = name
            temps.add(name)
            self.syms[name] = Sym(name, "scalar", dtype, implicit=True)
        return self.scalar(self.temps[key])

    def scalar(self, name: str) -> Ref:
        """The operand of scalar ``name``."""
        ref = self.refs.get(name)
        if ref is None:
            ref = self.refs[name] = Ref(name)
        return ref

    def new_temp(self, dtype: str) -> Ref:
        """The next free temporary of this statement."""
        t = self.temp(self.next, dtype)
        self.next += 1
        return t

    # ---- operands and expressions ----------------------------------------------------------

    def affine(self, e) -> Affine | None:
        """An index expression as fire-time addressing, if it is affine in i64 scalars."""
        match e:
            case Num(value=v, is_float=False):
                return _Affine(int(v))
            case Name(id=n) if self.syms[n].dtype == "i64":
                return _Affine(0, ((n, 1),))
            case Unary(op="-", operand=x):
                a = self.affine(x)
                return a.scale(-1) if a is not None else None
            case Binary(op="+" | "-", left=x, right=y):
                a, b = self.affine(x), self.affine(y)
                if a is None or b is None:
                    return None
                return a + b if e.op == "+" else a - b
            case Binary(op="*", left=x, right=y):
                a, b = self.affine(x), self.affine(y)
                if a is None or b is None or not (a.is_const or b.is_const):
                    return None
                return b.scale(a.const) if a.is_const else a.scale(b.const)
        return None

    def operand(self, e) -> Operand:
        """A simple expression as an operand; non-affine indices are computed into temporaries."""
        kind = type(e)
        if kind is Name:
            return self.scalar(e.id)
        if kind is Num:
            dtype = "f64" if e.is_float else "i64"
            value = float(e.value) if e.is_float else int(e.value)
            if not value or value != value:  # (0.0 and -0.0 are equal keys, and NaN no key)
                return Imm(value, dtype)
            imm = self.imms.get((dtype, value))
            if imm is None:
                imm = self.imms[dtype, value] = Imm(value, dtype)
            return imm
        index = []
        for i in e.indices:
            a = self.affine(i)
            if a is None:
                t = self.new_temp("i64")
                self.eval_into(i, t)
                a = _Affine(0, ((t.name, 1),))
            index.append(a)
        return _Ref(e.base, tuple(index), self.loc)

    def in_place(self, e) -> Ref | None:
        """With --clobber: compute ``X[idx] OP b`` into X[idx] itself, if X may be clobbered."""
        parts = _binary_parts(e)
        if parts is None or not isinstance(parts[1], Index) or parts[1].base not in self.inplace:
            return None
        if self.expr_type(e) != self.syms[parts[1].base].dtype:
            return None
        dest = self.operand(parts[1])
        self.emit(parts[0], dest, self.operand_of(parts[2]))
        return dest

    def operand_of(self, e) -> Operand:
        """An operand for e: itself if simple, else a new temporary holding its value."""
        if type(e) in _SIMPLE:
            return self.operand(e)
        done = self.in_place(e)
        if done is not None:
            return done
        edt = self.expr_type(e)
        t = self.new_temp(edt)
        self.eval_into(e, t, edt)
        return t

    def eval_into(self, e, t: Ref, edt: str | None = None) -> None:
        """Evaluate e into temporary t (``edt``: e's type, when the caller knows it)."""
        kind = type(e)
        if kind in _SIMPLE:
            self.emit("PUTL", t, self.operand(e))
            return
        tdt = self.syms[t.name].dtype
        if edt is None:
            edt = self.expr_type(e)
        if kind is Compare:
            edt = self.promoted(e.left, e.right)
        if edt != tdt:  # evaluate in its own type, then convert
            own = self.new_temp(edt)
            self.eval_into(e, own, edt)
            self.emit("PUTL", t, own)
            return
        if kind is Binary and e.op in ALU:  # _binary_parts(e), the commonest case inline
            self.eval_into(e.left, t)
            self.emit(ALU[e.op], t, self.operand_of(e.right))
            return
        parts = _binary_parts(e)
        if parts is not None:
            op, a, b = parts
            self.eval_into(a, t)
            self.emit(op, t, self.operand_of(b))
        elif isinstance(e, Compare):
            self.eval_into(e.left, t)
            self.emit(REL[e.op], t, self.operand_of(e.right))
        elif isinstance(e, Unary):
            self.eval_into(e.operand, t)
            self.emit("MUL", t, Imm(-1.0 if tdt == "f64" else -1, tdt, self.loc))
        elif isinstance(e, Call) and e.func == "abs":
            self.eval_into(e.args[0], t)
            neg = self.new_temp(tdt)
            self.emit("PUTL", neg, t)
            self.emit("MUL", neg, Imm(-1.0 if tdt == "f64" else -1, tdt, self.loc))
            self.emit("MAX", t, neg)
        elif isinstance(e, Call) and e.func in ("i64", "f64"):
            self.emit("PUTL", t, self.operand_of(e.args[0]))
        else:
            self.eval_flow(e, t)

    def promoted(self, a, b) -> str:
        """The type a comparison of a and b is done in."""
        return "f64" if "f64" in (self.expr_type(a), self.expr_type(b)) else "i64"

    def expr_type(self, e) -> str:
        """:func:`.checked.type_of`, remembered for each operation node: lowering a chain
        ``a + b + ...`` asks for the type of every link, which walked the rest of the chain each
        time (a sum of 2,000 terms took 3 s)."""
        if type(e) is not Binary:
            return type_of(e, self.syms)
        known = self.types.get(id(e))
        if known is not None and known[0] is e:
            return known[1]
        left, right = self.expr_type(e.left), self.expr_type(e.right)
        t = "f64" if left == "f64" or right == "f64" else "i64"
        self.types[id(e)] = (e, t)  # e kept alive with it, so its id is not reused
        return t

    def hoist(self, e):
        """Run the statements of inlined calls inside e (left to right); returns e without them
        (e itself when it has none: most expressions, which need no copy)."""
        kind = type(e)
        if kind is Num or kind is Name:
            return e
        if kind is Binary or kind is Compare:
            a, b = e.left, e.right
            ha = a if type(a) in _LEAVES else self.hoist(a)
            hb = b if type(b) in _LEAVES else self.hoist(b)
            return e if ha is a and hb is b else kind(e.op, ha, hb, e.loc)
        if kind is Index and all(type(i) is Name or type(i) is Num for i in e.indices):
            return e
        match e:
            case Seq(pre=pre, value=v):
                self.stmts(pre)
                return self.hoist(v)
            case Binary(op=op, left=a, right=b):
                ha, hb = self.hoist(a), self.hoist(b)
                return e if ha is a and hb is b else Binary(op, ha, hb, e.loc)
            case Compare(op=op, left=a, right=b):
                ha, hb = self.hoist(a), self.hoist(b)
                return e if ha is a and hb is b else Compare(op, ha, hb, e.loc)
            case Unary(op=op, operand=x):
                hx = self.hoist(x)
                return e if hx is x else Unary(op, hx, e.loc)
            case Call(func=f, args=args):
                hargs = tuple(self.hoist(a) for a in args)
                return e if hargs == args else Call(f, hargs, e.loc)
            case Index(base=b, indices=ix):
                hix = tuple(self.hoist(i) for i in ix)
                return e if hix == ix else Index(b, hix, e.loc)
        return e

    # ---- conditions ------------------------------------------------------------------------

    def compare(self, c: Compare, op: str) -> Ref:
        """``PUTL r0, a; REL r0, r0, b`` (in the promoted type); returns r0.

        Inside a value (an ``if`` value's condition) the test goes to a new temporary instead,
        and inlined calls in it run where they are evaluated (see lower_flow.py)."""
        if self.in_expr:
            r = self.new_temp(self.promoted(c.left, c.right))
            self.eval_into(c.left, r)
            self.emit(REL[op], r, self.operand_of(c.right))
            return r
        if self.seqs:
            c = self.hoist(c)
        self.loc = c.loc
        self.next = self.base + 1
        r0 = self.temp(self.base, self.promoted(c.left, c.right))
        self.eval_into(c.left, r0)
        self.emit(REL[op], r0, self.operand_of(c.right))
        return r0

    def branch_false(self, c, target: _Label) -> None:
        """Jump to target when c is false; fall through when it is true."""
        match c:
            case Compare(op=op):
                r0 = self.compare(c, op)
                self.emit("BLEZ", r0, None, target)
            case BoolOp(op="and", left=a, right=b):
                self.branch_false(a, target)
                self.branch_false(b, target)
            case BoolOp(op="or", left=a, right=b):
                true = _Label("or")
                self.branch_true(a, true)
                self.branch_false(b, target)
                self.mark(true)
            case Not(operand=x):
                self.branch_true(x, target)

    def branch_true(self, c, target: _Label) -> None:
        """Jump to target when c is true; fall through when it is false."""
        match c:
            case Compare(op=op):
                if self.promoted(c.left, c.right) == "i64":
                    r0 = self.compare(c, NEGATED[op])
                else:  # f64: the negated relation is wrong for NaN, so test (a REL b) == 0
                    r0 = self.compare(c, op)
                    self.emit("EQ", r0, Imm(0.0, "f64", self.loc))
                self.emit("BLEZ", r0, None, target)
            case BoolOp(op="and", left=a, right=b):
                false = _Label("and")
                self.branch_false(a, false)
                self.branch_true(b, target)
                self.mark(false)
            case BoolOp(op="or", left=a, right=b):
                self.branch_true(a, target)
                self.branch_true(b, target)
            case Not(operand=x):
                self.branch_false(x, target)

    # ---- statements ------------------------------------------------------------------------

    def stmts(self, body) -> None:
        """Lower a statement list."""
        for s in body:
            self.stmt(s)

    def stmt(self, s) -> None:
        """Lower one checked statement."""
        match s:
            case Assign():
                self.assign(s)
            case While(cond=c, body=b):
                self.while_loop(c, b, (), s.loc)
            case If(cond=c, then=t, orelse=o):
                end = _Label("end")
                other = _Label("else") if o else end
                self.branch_false(c, other)
                self.stmts(t)
                if o:
                    self.loc = s.loc
                    self.emit("JMP", target=end)
                    self.mark(other)
                    self.stmts(o)
                self.mark(end)
            case For(var=v, lo=lo, hi=hi, body=b):
                var = _Name(v, s.loc)
                self.assign(_Assign(var, lo, s.loc))
                step = _Assign(var, _Binary("+", var, _Num(1, False, s.loc), s.loc), s.loc)
                self.while_loop(_Compare("<", var, hi, s.loc), b, (step,), s.loc)
            case Jump(label=name):
                self.loc = s.loc
                self.emit("JMP", target=self.marks.setdefault(name, _Label(name)))
            case Mark(label=name):
                self.mark(self.marks.setdefault(name, _Label(name)))
            case DoWhile() | Loop() | Break() | Continue() | TailLoop():
                self.flow_stmt(s)
            case _:
                raise TypeError(f"cannot lower {s!r}")

    def assign(self, s: Assign) -> None:
        """The three assignment rules of INCA-Q.md."""
        target, value = s.target, s.value
        if self.seqs:
            target, value = self.hoist(target), self.hoist(value)
        self.loc = s.loc
        self.next = self.base + 1
        dest = self.operand(target)
        if _simple(value):
            self.emit("PUTL", dest, self.operand(value))
            return
        parts = _binary_parts(value)
        if parts is not None and parts[1] == target:
            op, _, b = parts
            self.emit(op, dest, self.operand_of(b))
            return
        t = self.in_place(value)
        if t is None:
            edt = self.expr_type(value)
            t = self.temp(self.next, edt)
            self.next += 1
            self.eval_into(value, t, edt)
        self.emit("PUTL", dest, t)

    # ---- the program -------------------------------------------------------------------------

    def program(self, checked: Checked) -> Program:
        """Lower the whole kernel, append END, number the instructions and resolve labels."""
        self.stmts(checked.body)
        self.loc = None
        self.emit("END")
        self.after_end()
        instrs = self.items
        for n in self.jumps:
            op, dest, src, target, loc = instrs[n]
            if target.at is None:
                raise ValueError(f"a jump to label {target.name!r}, which was never placed")
            instrs[n] = _Instr(op, dest, src, target.at, loc)
        return Program(self.decls(instrs), tuple(instrs), (), self.name)

    def after_end(self) -> None:
        """Code placed after END (none at -O0; the optimiser's lowering puts rare paths there)."""

    def decls(self, instrs: list[Instr]) -> tuple[Decl, ...]:
        """Declarations; scalars the assembler would infer the same way are left implicit.

        Declared locations come first, then implicit scalars in order of first use, the order
        the assembler gives them, so printed INCA-A re-assembles to an equal program.
        """
        known = {n: s.dtype for n, s in self.syms.items() if not s.implicit}
        while True:  # the assembler infers from the declared types, so infer again from those
            inferred = infer_scalar_types(instrs, known)
            loud = {n: self.syms[n].dtype for n in inferred if not self.quiet(self.syms[n], inferred)}
            if not loud:
                break
            known.update(loud)
        first_use = {name: n for n, name in enumerate(inferred)}
        declared, implicit = [], []
        for s in self.syms.values():
            init = initial_value(s)
            quiet = s.name in inferred and self.quiet(s, inferred)
            d = Decl(s.name, s.role, s.dtype, tuple(s.shape), init, quiet, self.aliases.get(s.name), s.loc,
                     s.default)
            (implicit if quiet else declared).append(d)
        implicit.sort(key=lambda d: first_use[d.name])
        return tuple(declared + implicit)

    @staticmethod
    def quiet(s: Sym, inferred: dict[str, str]) -> bool:
        """Whether the assembler would infer this location as it is (so it needs no directive)."""
        return s.implicit and not s.shape and inferred.get(s.name) == s.dtype and s.value == 0


def lower(checked: Checked, name: str, clobber: bool = False) -> Program:
    """The -O0 INCA-A program of a checked kernel (``clobber``: may overwrite inputs)."""
    with room_for_chains():
        return _lower(checked, name, clobber)


def _lower(checked: Checked, name: str, clobber: bool) -> Program:
    if not clobber:
        return Lowerer(checked, name).program(checked)
    from .clobber import plan, store_in_inputs

    p = plan(checked)
    checked = store_in_inputs(checked, p.aliases)
    return Lowerer(checked, name, p.inplace, dict(p.aliases)).program(checked)
