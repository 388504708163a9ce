"""Pass ``compact`` (-O2): a conditional append keeps its count in the program counter.

``for i in lo .. hi do { P; if c then { B[n] = v; n = n + 1 } }`` (the filter kernel: P assigns
private scalars) has one store and one count per kept element at best when if-converted (the
store is then also paid for every rejected element). Here the condition is computed for every
element at once, as a vector M (one vector compare, see below), P runs as a loop of its own, and
the loop is unrolled with its code replicated per *offset* d, the number of elements kept since
n was last moved, modulo D = 4: the block for element k at offset d is

    if M[k] <= 0 then goto (k + 1, d)            -- one BLEZ
    B[n + d] = v(k)                              -- then on to (k + 1, d + 1)

A rejected element costs one BLEZ, a kept one a BLEZ and its store; n moves once per D kept
elements, and no rejected value is ever stored (so nothing is left to put back after the loop).
The blocks are laid out as D chains, chain j holding (k, (j + k) mod D) for every k, so a kept
element falls through to the next block of its chain (with ``n = n + D`` before it where d wraps
to 0) and a rejected one jumps to another chain; every path goes from element k to k + 1, so the
code has no loop. Each chain ends in ``n = n + e`` for its final offset e, then the code after.
The code is about 3D statements per element (a label, a test and a store per block), within a
budget.

The condition vector: ``X REL K`` with a constant K becomes ``M = M REL' X`` over a vector M
whose initial value is K (``K REL' X`` is ``X REL K``: rule ``cmp-swap``), so it costs one vector
instruction; any other compare is computed as a vector the ordinary way, and a condition with
``and``, ``or`` and ``not`` as its truth bits (:func:`.conditions.truth_bits`), only when nothing they
would skip can fault (:func:`.conditions.eager_safe`: computing it first must not fault where -O0 would
not).

Every store, value and fault of -O0 happens, in the same order for each element of B; only the
condition of every element is evaluated first (a fault in it stops the run at another point, as
docs/optimiser.md allows). Exact when: the loop is at the top level with constant bounds; c and v
read neither B nor n nor anything the loop writes (but the loop variable); B is a one-dimensional
array written only there and read nowhere in the loop; n is an i64 scalar written in the loop only
by ``n = n + 1``; P only assigns scalars that c and v do not read.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, Binary, Compare, For, If, Index, Name, Num, nodes
from ..incaq.checked import IfExpr, Jump, Mark, Seq, Sym, type_of
from .conditions import eager_safe, truth_bits
from .ir import Kernel, const_int, is_plain, names_read, names_written, own_exprs, stmts, \
    substitute, write_counts
from .remarks import Remarks
from .rules import SWAPPED, identity

#: D: the count is kept in the program counter modulo D; the most code (in statements) a
#: compaction may make.
MODULUS, CODE_BUDGET = 4, 24_000


class Refused(Exception):
    """Why a conditional append is not compacted (the remark's text)."""


class NotAppend(Refused):
    """The loop is not a conditional append at all (no remark: nothing was missed)."""


def _parts(s: For, k: Kernel):
    """(P, c, B, n, v) of ``for i: P; if c then { B[n] = v; n = n + 1 }``."""
    if not s.body or not isinstance(s.body[-1], If):
        raise NotAppend("its body does not end in an if")
    x = s.body[-1]
    prefix = s.body[:-1]
    # (the condition is computed on its own, below: and / or / not in it are no control flow)
    if x.orelse or len(x.then) != 2 or not is_plain(prefix + x.then) \
            or any(isinstance(y, (Seq, IfExpr)) for y in nodes(x.cond)):
        raise NotAppend("its if is not a conditional append")
    store, step = x.then
    if not (isinstance(store, Assign) and isinstance(store.target, Index)
            and len(store.target.indices) == 1 and isinstance(store.target.indices[0], Name)):
        raise NotAppend("its if is not a conditional append")
    b, n = store.target.base, store.target.indices[0].id
    if step != Assign(Name(n), Binary("+", Name(n), Num(1, False))):
        raise NotAppend("its if is not a conditional append")
    c, v = x.cond, store.value
    bsym, nsym = k.syms[b], k.syms[n]
    if bsym.kind != "array" or len(bsym.shape) != 1 or nsym.kind != "scalar" or nsym.dtype != "i64":
        raise Refused(f"{b}[{n}] is not a store into a one-dimensional array at an i64 count")
    if not _one_compare(c) and not eager_safe(c, k, s):
        raise Refused("its condition may skip, with and / or, what could fault")
    written = names_written(s.body) - {s.var}
    if (names_read(c) | names_read(v)) & (written | {b, n}):
        raise Refused("its condition or stored value reads what the loop writes")
    for p in prefix:
        if not (isinstance(p, Assign) and isinstance(p.target, Name)) or p.target.id in (b, n) \
                or {b, n} & names_read(p.value):
            raise Refused("its body does more than assign scalars before the append")
    writes = write_counts(s.body)
    if writes.get(b) != 1 or writes.get(n) != 1:
        raise Refused(f"the loop writes {b} or {n} elsewhere")
    if b in names_read(tuple(e for y in stmts(s.body) for e in own_exprs(y))):
        raise Refused(f"the loop reads {b}")
    return prefix, c, b, n, v


def _one_compare(c) -> bool:
    return isinstance(c, Compare) and not any(isinstance(y, Compare) for y in nodes((c.left, c.right)))


class Compactor:
    def __init__(self, k: Kernel, remarks: Remarks):
        self.k, self.remarks = k, remarks
        self.count = 0

    def loop(self, s: For) -> tuple | None:
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None or hi - lo < 2:
            return None
        try:
            prefix, c, b, n, v = _parts(s, self.k)
        except NotAppend:
            return None
        except Refused as why:
            self.remarks.missed(s.loc, f"loop over {s.var} not compacted: {why}")
            return None
        trip = hi - lo
        if trip * (3 * MODULUS + 2) > CODE_BUDGET:
            self.remarks.missed(s.loc, f"loop over {s.var} not compacted: {trip} elements are "
                                "over the code budget")
            return None
        mask, fill = self.condition(s, c, lo, hi)
        self.count += 1
        # P reads neither B nor n, and nothing after it reads what P writes: it runs as a loop
        # of its own (dce drops it when its scalars are dead)
        out = [replace(s, body=prefix)] if prefix else []
        out.extend(fill)
        out.extend(self.chains(s, f"cp{self.count}", mask, lo, hi, b, n, v))
        out.append(Assign(Name(s.var, s.loc), Num(hi, False, s.loc), s.loc))
        self.remarks.done(s.loc, f"conditional append to {b} over {s.var}: {trip} conditions "
                          f"computed as a vector, the count {n} kept in the program counter "
                          f"modulo {MODULUS} (one branch per element, one store per kept one, one "
                          f"add per {MODULUS} kept)")
        return tuple(out)

    def condition(self, s: For, c, lo: int, hi: int) -> tuple[str, tuple]:
        """The vector M of the condition over the loop, and the statements computing it."""
        from .vectorise import Refused as NotVector, Vectoriser

        m = self.k.fresh("m")
        const, op, x, dtype = None, None, None, "i64"
        if not _one_compare(c):  # its truth as 1 or 0, every operand evaluated (eager_safe)
            c = truth_bits(c, self.k.syms)
        else:
            if "f64" in (type_of(c.left, self.k.syms), type_of(c.right, self.k.syms)):
                dtype = "f64"
            if isinstance(c.right, Num) and not isinstance(c.left, Num):
                const, op, x = c.right, SWAPPED[c.op], c.left
            elif isinstance(c.left, Num):
                const, op, x = c.left, c.op, c.right
        pos = Binary("-", Name(s.var, s.loc), Num(lo, False, s.loc), s.loc) if lo else Name(s.var, s.loc)
        if const is not None:
            identity(f"cmp-swap{c.op}-{dtype}")
            init = float(const.value) if dtype == "f64" else int(const.value)
            self.k.syms[m] = Sym(m, "array", dtype, (hi - lo,), "var", init, s.loc)
            value = Compare(op, Index(m, (pos,), s.loc), x, c.loc)
        else:
            self.k.syms[m] = Sym(m, "array", dtype, (hi - lo,), "var", 0, s.loc)
            value = c
        fill = For(s.var, s.lo, s.hi, (Assign(Index(m, (pos,), s.loc), value, c.loc),), s.loc)
        try:
            return m, Vectoriser(self.k, Remarks()).vectorise(fill)[:-1]
        except NotVector:  # as a loop, each element is still computed once from its K
            return m, (fill,)

    def chains(self, s: For, tag: str, mask: str, lo: int, hi: int, b: str, n: str, v) -> list:
        """The blocks (k, d) laid out as D chains: chain j holds (k, (j + k) mod D) for every k,
        so each block falls through to its kept successor (k + 1, d + 1), with ``n = n + D``
        between d = D - 1 and 0; the rejected successor (k + 1, d) is a jump to another chain.
        Each chain ends in the exit of its offset e: ``n = n + e``, then the code after."""
        x = s.body[-1]
        loc, cl, sl, nl = s.loc, x.cond.loc, x.then[0].loc, x.then[1].loc
        trip, D = hi - lo, MODULUS
        end = f"{tag}_end"

        def label(k: int, d: int) -> str:
            return f"{tag}_{k}_{d}"

        def add(e: int) -> Assign:
            identity("add-assoc")
            return Assign(Name(n, nl), Binary("+", Name(n, nl), Num(e, False, nl), nl), nl)
        out: list = []
        for j in range(D):
            for k in range(trip):
                d = (j + k) % D
                if k and d == 0:
                    out.append(add(D))
                if k or j:
                    out.append(Mark(label(k, d), loc))
                i = Num(lo + k, False, loc)
                test = Compare("<=", Index(mask, (Num(k, False, cl),), cl), Num(0, False, cl), cl)
                out.append(If(test, (Jump(label(k + 1, d), cl),), (), cl))
                at = Binary("+", Name(n, sl), Num(d, False, sl), sl) if d else Name(n, sl)
                out.append(Assign(Index(b, (at,), sl), substitute(v, s.var, i), sl))
            e = (j + trip) % D
            if e == 0:
                out.append(add(D))
            out.append(Mark(label(trip, e), loc))
            if e:
                out.append(add(e))
            if j < D - 1:
                out.append(Jump(end, loc))
        out.append(Mark(end, loc))
        return out


def compact(k: Kernel, remarks: Remarks) -> Kernel:
    """Compact the conditional appends of the kernel's top-level counted loops (their labels are
    unique because nothing copies top-level code afterwards)."""
    k = k.copy()
    comp = Compactor(k, remarks)
    out: list = []
    for s in k.body:
        new = comp.loop(s) if isinstance(s, For) else None
        out.extend(new if new is not None else (s,))
    k.body = tuple(out)
    return k
