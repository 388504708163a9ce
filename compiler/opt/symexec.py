"""Symbolic execution of an INCA-A program for translation validation (verify.py).

Every element of every buffer holds a z3 term: i64 as a 64-bit bit-vector, f64 as an IEEE double
(or, for -Ofast, as a real). The program counter stays concrete: loops whose counts do not depend
on the inputs just run. A BLEZ on a value that depends on the inputs runs both successors up to
their immediate post-dominator and merges the two states with ``If`` (so an ``if`` in a loop costs
two paths, not a doubling per iteration); an address that depends on the inputs reads through an
``If`` chain over the dimension and writes every element conditionally. A run stops after a step
budget (data-dependent loops), as Alive2 bounds loops, or when the branches on the inputs nest
more than MAX_NESTED deep (each iteration of a loop whose count is an input nests one more: the
executor recurses there, and Python's stack is the limit).

Faults (division by zero, an index out of bounds, an f64 that does not fit an i64) are collected
as a condition ``ok`` under which the run does not fault.
"""
from __future__ import annotations

import z3

from ...lang.check import broadcast_map
from ...lang.frozen import record
from ...lang.program import Imm, Program, Ref, Slice, operand_shape

F64 = z3.Float64()
RNE, RTZ = z3.RNE(), z3.RTZ()


class Unsupported(Exception):
    """The program does something the symbolic executor does not model (the reason)."""


class OutOfBudget(Exception):
    """More steps than the budget, or branches nested deeper than MAX_NESTED (a data-dependent
    loop): what was exceeded."""


#: How deep branches on the inputs may nest (a Python frame each, well inside the default limit).
MAX_NESTED = 200


@record
class State:
    mem: dict[str, list]  # base buffer -> its elements, row-major
    ok: object  # the condition under which nothing faulted so far

    def copy(self) -> "State":
        return State({k: list(v) for k, v in self.mem.items()}, self.ok)


def concrete(t) -> int | None:
    """The integer value of a bit-vector term that simplifies to a constant."""
    s = z3.simplify(t)
    return s.as_signed_long() if z3.is_bv_value(s) else None


class Machine:
    """One program's semantics over z3 terms; ``reals`` models f64 as real numbers (-Ofast)."""

    def __init__(self, prog: Program, reals: bool = False, budget: int = 200_000):
        self.prog, self.reals, self.budget = prog, reals, budget
        self.decls = {d.name: d for d in prog.decls}
        self.steps = 0
        self.nested = 0  # branches on the inputs being run, one inside the other
        self.ipdom = _post_dominators(prog)
        self.targets = {ins.target for ins in prog.instrs if ins.op in ("BLEZ", "JMP")}
        self.order_cache: dict[tuple[int, int], dict[int, int] | None] = {}

    # ---- values ----------------------------------------------------------------------------

    def const(self, v, dtype: str):
        if dtype == "i64":
            return z3.BitVecVal(int(v), 64)
        return z3.RealVal(float(v)) if self.reals else z3.FPVal(float(v), F64)

    def convert(self, t, src: str, dst: str, state: State):
        if src == dst:
            return t
        if z3.is_app_of(t, z3.Z3_OP_ITE) and all(_is_value(x) for x in t.children()[1:]):
            # a compare's 1 or 0 (if-conversion's x - (a > b)): convert each side, so the term
            # stays a choice between two constants
            c, a, b = t.children()
            return z3.If(c, z3.simplify(self.convert(a, src, dst, state)),
                         z3.simplify(self.convert(b, src, dst, state)))
        if dst == "f64":
            return z3.ToReal(z3.BV2Int(t, is_signed=True)) if self.reals else z3.fpSignedToFP(RNE, t, F64)
        if self.reals:
            i = z3.If(t >= 0, z3.ToInt(t), -z3.ToInt(-t))
            state.ok = z3.And(state.ok, i >= -(1 << 63), i < (1 << 63))
            return z3.Int2BV(i, 64)
        fits = z3.And(z3.Not(z3.fpIsNaN(t)), z3.Not(z3.fpIsInf(t)),
                      z3.fpGT(t, z3.FPVal(-9223372036854777856.0, F64)),
                      z3.fpLT(t, z3.FPVal(9223372036854775808.0, F64)))
        state.ok = z3.And(state.ok, fits)
        return z3.fpToSBV(RTZ, t, z3.BitVecSort(64))

    def apply(self, op: str, a, b, dtype: str, state: State):
        if dtype == "i64":
            t = self.apply_i64(op, a, b, state)
            # of two numerals (a loop's counter and its step, say), a numeral: the addresses it
            # goes into are then worked out in Python (index_int)
            return z3.simplify(t) if z3.is_bv_value(a) and z3.is_bv_value(b) else t
        return self.apply_f64(op, a, b, state)

    def apply_i64(self, op: str, a, b, state: State):
        one, zero = z3.BitVecVal(1, 64), z3.BitVecVal(0, 64)
        if op in ("ADD", "SUB") and _test(b) is not None:
            # x +- (a compare's 1 or 0) is written as the branch it replaces leaves it (rules
            # if-inc, if-dec), so both programs' terms simplify alike
            c = z3.Not(_test(b))
            return z3.If(c, a + 1 if op == "ADD" else a - 1, a)
        match op:
            case "ADD":
                return a + b
            case "SUB":
                return a - b
            case "MUL":
                return a * b
            case "DIV" | "MOD":
                state.ok = z3.And(state.ok, b != 0)
                return a / b if op == "DIV" else z3.SRem(a, b)
            case "AND":
                return a & b
            case "OR":
                return a | b
            case "XOR":
                return a ^ b
            case "SHL":
                return a << (b & 63)
            case "SHR":
                return a >> (b & 63)
            case "MIN":  # written as a branch would leave it (if a > b then a = b), so the two
                return z3.If(a > b, b, a)  # simplify to one term
            case "MAX":
                return z3.If(a < b, b, a)
        return z3.If(_relation(op, a, b), one, zero)

    def apply_f64(self, op: str, a, b, state: State):
        if self.reals:
            match op:
                case "ADD":
                    return a + b
                case "SUB":
                    return a - b
                case "MUL":
                    return a * b
                case "DIV":
                    state.ok = z3.And(state.ok, b != 0)  # -Ofast assumes finite values
                    return a / b
                case "MIN":
                    return z3.If(a <= b, a, b)
                case "MAX":
                    return z3.If(a >= b, a, b)
                case "MOD":
                    raise Unsupported("f64 MOD")
            return z3.If(_relation(op, a, b), z3.RealVal(1), z3.RealVal(0))
        if op in ("ADD", "MUL") and z3.is_fp_value(a) and not z3.is_fp_value(b):
            # + and * commute in z3's floating point (which has one NaN; the bits of NaNs are
            # combine.py's concern, which turns round only with numbers): a number goes second,
            # so `0.0 + p` and `p + 0.0` are one term, where z3 would have to bit-blast two
            # adders to see them equal
            a, b = b, a
        match op:
            case "ADD":
                return z3.fpAdd(RNE, a, b)
            case "SUB":
                return z3.fpSub(RNE, a, b)
            case "MUL":
                return z3.fpMul(RNE, a, b)
            case "DIV":
                return z3.fpDiv(RNE, a, b)
            case "MIN" | "MAX":
                nan = z3.fpNaN(F64)
                if op == "MIN":
                    pick = z3.Or(z3.fpLT(a, b), z3.And(z3.fpEQ(a, b), z3.fpIsNegative(a)))
                else:
                    pick = z3.Or(z3.fpGT(a, b), z3.And(z3.fpEQ(a, b), z3.fpIsPositive(a)))
                return z3.If(z3.Or(z3.fpIsNaN(a), z3.fpIsNaN(b)), nan, z3.If(pick, a, b))
            case "MOD":
                raise Unsupported("f64 MOD")
        rel = {"LT": z3.fpLT(a, b), "LE": z3.fpLEQ(a, b), "GT": z3.fpGT(a, b), "GE": z3.fpGEQ(a, b),
               "EQ": z3.fpEQ(a, b), "NE": z3.Not(z3.fpEQ(a, b))}
        return z3.If(rel[op], z3.FPVal(1.0, F64), z3.FPVal(0.0, F64))

    def le_zero(self, t, dtype: str):
        if dtype == "i64":
            return t <= 0
        return t <= 0 if self.reals else z3.fpLEQ(t, z3.FPVal(0.0, F64))

    # ---- memory ----------------------------------------------------------------------------

    def base(self, name: str) -> tuple[str, int]:
        """(storage buffer, offset 0): views and clobber aliases live in another's buffer."""
        d = self.decls[name]
        return (d.alias, 0) if d.alias is not None else (name, 0)

    def index_value(self, a, state: State):
        out = z3.BitVecVal(a.const, 64)
        for n, c in a.terms:
            out = out + z3.BitVecVal(c, 64) * self.read_scalar(n, state)
        return out

    def index_int(self, a, state: State) -> int | None:
        """The value of an index as :meth:`index_value` gives it, as a Python integer when every
        scalar it reads holds a bit-vector numeral (loop counters, and the inputs a bounded check
        fixes), else None. Building and simplifying the z3 term of each such index took two
        thirds of checking a nest of loops at fixed trip counts."""
        out = a.const
        for n, c in a.terms:
            v = self.read_scalar(n, state)
            if not z3.is_bv_value(v):
                return None
            out += c * v.as_long()  # (unsigned: the wrap below gives the sign)
        return (out + 2**63) % 2**64 - 2**63  # as the i64 arithmetic of the term wraps

    def read_scalar(self, name: str, state: State):
        return state.mem[self.base(name)[0]][0]

    def addresses(self, ref: Ref, state: State) -> list:
        """Flat addresses (ints, or bit-vector terms when they depend on the inputs)."""
        d = self.decls[ref.name]
        shape = d.shape
        if not ref.index:
            return [0]
        out = [0]
        stride = 1
        strides = []
        for n in reversed(shape):
            strides.append(stride)
            stride *= n
        strides.reverse()
        for idx, n, s in zip(ref.index, shape, strides):
            if isinstance(idx, Slice):
                lo = self.index_int(idx.lo, state)
                if lo is None:
                    start = self.index_value(idx.lo, state)
                    lo = concrete(start)
                last = (idx.length - 1) * idx.step
                if lo is None:  # a gather at an address computed from the inputs
                    state.ok = z3.And(state.ok, start >= 0, start + last < n)
                    offs = [z3.simplify(start * s + j * idx.step * s) for j in range(idx.length)]
                else:
                    if not (0 <= lo < n and 0 <= lo + last < n):
                        state.ok = z3.BoolVal(False)
                    offs = [(lo + j * idx.step) * s for j in range(idx.length)]
            else:
                c = self.index_int(idx, state)
                if c is None:
                    v = self.index_value(idx, state)
                    c = concrete(v)
                if c is None:
                    state.ok = z3.And(state.ok, v >= 0, v < n)
                    offs = [v * s]
                else:
                    if not 0 <= c < n:
                        state.ok = z3.BoolVal(False)
                    offs = [c * s]
            out = [a + o for a in out for o in offs]
        return out

    def load(self, ref: Ref, state: State) -> list:
        buf = state.mem[self.base(ref.name)[0]]
        out = []
        for a in self.addresses(ref, state):
            if isinstance(a, int):
                out.append(buf[a] if 0 <= a < len(buf) else buf[0])
            else:
                v = buf[0]
                for j in range(1, len(buf)):
                    v = z3.If(a == j, buf[j], v)
                out.append(v)
        return out

    def store(self, ref: Ref, values: list, state: State) -> None:
        buf = state.mem[self.base(ref.name)[0]]
        for a, v in zip(self.addresses(ref, state), values):
            if isinstance(a, int):
                if 0 <= a < len(buf):
                    buf[a] = v
            else:
                for j in range(len(buf)):
                    buf[j] = z3.If(a == j, v, buf[j])

    # ---- running ---------------------------------------------------------------------------

    def operand(self, src, dest: Ref, state: State) -> tuple[list, str]:
        """The source's values, broadcast to the destination's element count, and their type."""
        n = len(self.addresses(dest, state)) if dest.is_vector else 1
        if isinstance(src, Imm):
            return [self.const(src.value, src.dtype)] * n, src.dtype
        vals = self.load(src, state)
        dtype = self.decls[src.name].dtype
        if len(vals) == n:
            return vals, dtype
        if len(vals) == 1:
            return vals * n, dtype
        where = broadcast_map(operand_shape(src, self.decls), operand_shape(dest, self.decls))
        return [vals[i] for i in where], dtype

    def run(self, state: State, pc: int = 1, stop: int | None = None) -> tuple[State, int]:
        instrs = self.prog.instrs
        while pc != stop:
            self.steps += 1
            if self.steps > self.budget:
                raise OutOfBudget(f"more than {self.budget} symbolic steps")
            if not 1 <= pc <= len(instrs):
                state.ok = z3.BoolVal(False)  # ran off the program
                return state, pc
            ins = instrs[pc - 1]
            if ins.op == "END":
                return state, pc
            if ins.op == "JMP":
                pc = ins.target
                continue
            if ins.op == "BLEZ":
                cond = self.condition(ins, state)
                if z3.is_true(cond) or z3.is_false(cond):
                    pc = ins.target if z3.is_true(cond) else pc + 1
                    continue
                join = self.ipdom.get(pc)
                if join is None:
                    raise Unsupported("a branch on the inputs that never joins")
                rank = self.order(pc, join)
                if rank is not None:
                    state = self.run_forward(state, pc, cond, join, rank)
                else:
                    self.nested += 1
                    if self.nested > MAX_NESTED:
                        raise OutOfBudget(f"branches on the inputs nested more than {MAX_NESTED} deep")
                    taken, _ = self.run(state.copy(), ins.target, join)
                    fall, _ = self.run(state.copy(), pc + 1, join)
                    self.nested -= 1
                    state = _merge(cond, taken, fall)
                if join == len(instrs) + 1:  # the exit: every path ended at an END
                    return state, join
                pc = join
                continue
            self.data(ins, state)
            pc += 1
        return state, pc

    def data(self, ins, state: State) -> None:
        """One data instruction (PUTL or an ALU operation)."""
        dest_dtype = self.decls[ins.dest.name].dtype
        vals, src_dtype = self.operand(ins.src, ins.dest, state)
        vals = [self.convert(v, src_dtype, dest_dtype, state) for v in vals]
        if ins.op == "PUTL":
            self.store(ins.dest, vals, state)
        else:
            old = self.load(ins.dest, state)
            self.store(ins.dest, [self.apply(ins.op, a, b, dest_dtype, state)
                                  for a, b in zip(old, vals)], state)

    def condition(self, ins, state: State):
        """``value <= 0`` of a BLEZ, simplified (True or False when it does not depend on inputs)."""
        dtype = self.decls[ins.dest.name].dtype
        value = self.load(ins.dest, state)[0]
        test = _test(value)
        return z3.simplify(test if test is not None else self.le_zero(value, dtype))

    def order(self, pc: int, join: int) -> dict[int, int] | None:
        """A topological order of the instructions between a BLEZ and its post-dominator (their
        rank), or None when a loop runs between them."""
        key = (pc, join)
        if key not in self.order_cache:
            instrs = self.prog.instrs
            rank: dict[int, int] = {}
            done: list[int] = []
            state: dict[int, int] = {}  # 1: on the DFS stack, 2: finished

            def succ(k: int) -> list[int]:
                ins = instrs[k - 1]
                return [] if ins.op == "END" else [ins.target] if ins.op == "JMP" else \
                    [k + 1, ins.target] if ins.op == "BLEZ" else [k + 1]
            stack, ok = [(pc, iter(succ(pc)))], True
            state[pc] = 1
            while stack and ok:
                k, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    stack.pop()
                    state[k] = 2
                    done.append(k)
                elif nxt != join and 1 <= nxt <= len(instrs):
                    if state.get(nxt) == 1:
                        ok = False  # a loop
                    elif nxt not in state:
                        state[nxt] = 1
                        stack.append((nxt, iter(succ(nxt))))
            if ok:
                rank = {k: r for r, k in enumerate(reversed(done))}
                rank[join] = len(rank)
            self.order_cache[key] = rank if ok else None
        return self.order_cache[key]

    def run_forward(self, state: State, pc: int, cond, join: int, rank: dict[int, int]) -> State:
        """The paths from the BLEZ at pc to its post-dominator ``join``, run in topological order:
        states that reach one jump target are merged there (with ``If`` on their path
        conditions), so a region whose paths rejoin often costs one state per join, not one
        per path."""
        instrs = self.prog.instrs
        pending: dict[int, list] = {}

        def arrive(k: int, path, st: State, last=None) -> None:
            if not 1 <= k <= len(instrs):  # ran off the program
                st.ok, k = z3.BoolVal(False), join
            elif instrs[k - 1].op == "END":  # the paths end here (join is the exit, or END)
                k = join
            pending.setdefault(k, []).append((path, st, last))
        arrive(instrs[pc - 1].target, cond, state.copy(), cond)
        arrive(pc + 1, z3.Not(cond), state, z3.Not(cond))
        while True:
            k = min(pending, key=rank.__getitem__)
            entries = pending.pop(k)
            if len(entries) == 2 and _complement(entries[0][2], entries[1][2]):
                # two paths that left one test different ways: that test tells them apart, a
                # shorter term than the paths
                (p1, s1, c1), (p2, s2, _) = entries
                path, st = z3.Or(p1, p2), _merge(c1, s1, s2)
            else:
                path, st, _ = entries[0]
                for other, o, _ in entries[1:]:
                    st = _merge(other, o, st)
                    path = z3.Or(other, path)
            if k == join:
                return st
            while True:
                self.steps += 1
                if self.steps > self.budget:
                    raise OutOfBudget(f"more than {self.budget} symbolic steps")
                ins = instrs[k - 1]
                if ins.op == "END":
                    arrive(k, path, st)
                    break
                if ins.op == "JMP":
                    arrive(ins.target, path, st)
                    break
                if ins.op == "BLEZ":
                    c = self.condition(ins, st)
                    if z3.is_true(c) or z3.is_false(c):
                        k = ins.target if z3.is_true(c) else k + 1
                    else:
                        arrive(ins.target, z3.And(path, c), st.copy(), c)
                        arrive(k + 1, z3.And(path, z3.Not(c)), st, z3.Not(c))
                        break
                else:
                    self.data(ins, st)
                    k += 1
                if k == join or k in self.targets:
                    arrive(k, path, st)
                    break


def _relation(op: str, a, b):
    """A compare opcode on totally ordered terms (signed bit-vectors, reals)."""
    return {"LT": lambda: a < b, "LE": lambda: a <= b, "GT": lambda: a > b, "GE": lambda: a >= b,
            "EQ": lambda: a == b, "NE": lambda: a != b}[op]()


def _test(v):
    """``v <= 0`` for a compare's result ``If(c, 1, 0)``: ``Not(c)``, the form in which a branch
    and the min or max it may become simplify to one term; None for other values."""
    if z3.is_app_of(v, z3.Z3_OP_ITE):
        c, one, zero = v.children()
        if z3.is_bv_value(one) and z3.is_bv_value(zero) and (one.as_long(), zero.as_long()) == (1, 0):
            return z3.Not(c)
        if z3.is_fp_value(one) and z3.is_fp_value(zero) and one.py_value() == 1.0 \
                and zero.py_value() == 0.0:
            return z3.Not(c)
    return None


def _is_value(t) -> bool:
    return z3.is_bv_value(t) or z3.is_fp_value(t) or z3.is_rational_value(t)


def _complement(a, b) -> bool:
    """Whether one condition is syntactically the negation of the other."""
    if a is None or b is None:
        return False
    def strip(c):
        neg = False
        while z3.is_not(c):
            c, neg = c.arg(0), not neg
        return c, neg
    (x, nx), (y, ny) = strip(a), strip(b)
    return nx != ny and x.eq(y)


def _merge(cond, a: State, b: State) -> State:
    mem = {}
    for name, xs in a.mem.items():
        ys = b.mem[name]
        mem[name] = [x if x.eq(y) else z3.If(cond, x, y) for x, y in zip(xs, ys)]
    return State(mem, z3.If(cond, a.ok, b.ok))


def _post_dominators(prog: Program) -> dict[int, int]:
    """The immediate post-dominator of each BLEZ (instruction numbers; END's exit is len + 1)."""
    n = len(prog.instrs)
    exit_ = n + 1
    succ: dict[int, list[int]] = {}
    for k, ins in enumerate(prog.instrs, 1):
        if ins.op == "END":
            succ[k] = [exit_]
        elif ins.op == "JMP":
            succ[k] = [ins.target]
        elif ins.op == "BLEZ":
            succ[k] = [k + 1, ins.target]
        else:
            succ[k] = [k + 1]
    nodes = list(range(1, n + 1))
    every = set(nodes) | {exit_}
    pdom = {k: set(every) for k in nodes}
    pdom[exit_] = {exit_}
    changed = True
    while changed:
        changed = False
        for k in reversed(nodes):
            sets = [pdom.get(s, every) for s in succ[k] if 1 <= s <= exit_]
            new = {k} | (set.intersection(*sets) if sets else set())
            if new != pdom[k]:
                pdom[k], changed = new, True
    out = {}
    for k, ins in enumerate(prog.instrs, 1):
        if ins.op != "BLEZ":
            continue
        strict = pdom[k] - {k}
        # the immediate one: the strict post-dominator that every other strict one post-dominates
        for c in strict:
            if all(o in pdom.get(c, ()) for o in strict):
                out[k] = c
                break
    return out
