"""Pass ``propagate`` (-O1): a private scalar holding an affine value is read in indices directly,
and one holding a constant or a copy of a scalar or an element is read from that operand where it
is used.

``disp = a + b - f; M[disp] = P[i]`` becomes ``M[a + b - f] = P[i]``: INCA-A's address
generator computes affine indices at fire time for free, so the three instructions computing
``disp`` go (dce removes the assignment once nothing reads it). It applies when every read of the
scalar in the whole kernel is an index in the statements after the assignment, in the same block,
before anything writes the scalar or a name of its value again.

A private scalar holding any other value that only the next statement reads, once, in its value
(``t = X[i] * X[i]; s = s + t``), is computed there (``s = s + X[i] * X[i]``), so the passes after
this one see the accumulation whole (the reduction pass then computes its terms as a vector). The
value is computed at the same point as before, between the same two statements, to the same bits
(it must have the scalar's own type, so no conversion is lost); a fault it may raise is still
the first of the statement (nothing evaluated before it in the statement may fault, and a store's
own address is computed after its value).
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, Binary, Call, Compare, DoWhile, For, If, Index, Loop, Name, Num, \
    Unary, While, nodes
from ..incaq.checked import Seq, TailLoop, type_of
from .dce import may_fault
from .ir import Kernel, affine, names_read, names_written, read_counts, substitute, \
    uses_outside_index
from . import show
from .remarks import Remarks


class Propagator:
    def __init__(self, k: Kernel, remarks: Remarks):
        self.k, self.remarks = k, remarks
        self.total = read_counts(k.body)

    def block(self, body: tuple) -> tuple:
        body = tuple(self.inner(s) for s in body)
        out = list(body)
        moved: set[int] = set()  # assignments computed in the next statement now
        for n, s in enumerate(out):
            if not (isinstance(s, Assign) and isinstance(s.target, Name)):
                continue
            x = s.target.id
            sym = self.k.syms[x]
            if sym.role != "var" or sym.kind != "scalar" or x in names_read(s.value):
                continue
            load = self.simple_load(s.value, sym.dtype)
            if not load and (sym.dtype != "i64" or affine(s.value, self.k.syms) is None):
                if self.forward(out, n, s, x):
                    moved.add(n)
                continue
            guarded = names_read(s.value) | {x}
            end = n + 1
            while end < len(out) and not names_written(out[end:end + 1]) & guarded:
                end += 1
            window = tuple(out[n + 1:end])
            stop = out[end:end + 1]
            if stop and x in read_counts(stop):  # it reads the value before writing a new one
                continue
            if read_counts(window).get(x, 0) != self.total.get(x, 0) or not self.total.get(x):
                continue
            if not load and uses_outside_index(window, x):
                continue
            if isinstance(s.value, Index) and s.value.base in self.k.inplace \
                    and read_counts(window).get(x, 0) > 1:
                # read at each use now: --clobber's read-once input is read-once no more
                self.k.inplace = self.k.inplace - {s.value.base}
            out[n + 1:end] = substitute(window, x, s.value)
            self.remarks.done(s.loc, f"{x} read from {show.expr(s.value)} where it is used" if load
                              else f"{x} computed in the indices that read it")
        return tuple(s for n, s in enumerate(out) if n not in moved)

    def forward(self, out: list, n: int, s: Assign, x: str) -> bool:
        """Whether ``x = e`` at ``out[n]`` is computed in the next statement now, its only
        reader (see the module's docstring for when); the caller drops the assignment."""
        if n + 1 == len(out) or self.total.get(x) != 1:
            return False
        nxt = out[n + 1]
        if not isinstance(nxt, Assign) or x not in names_read(nxt.value):
            return False
        syms = self.k.syms
        t = nxt.target
        if isinstance(t, Index) and any(affine(i, syms) is None for i in t.indices):
            return False  # an index computed before the value, whose fault would come first
        if type_of(s.value, syms) != syms[x].dtype or not _reached_first(nxt.value, x, syms) \
                or any(isinstance(e, Seq) for e in (*nodes(s.value), *nodes(nxt.value))):
            return False  # an inlined call's statements run before the statement's value
        out[n + 1] = replace(nxt, value=substitute(nxt.value, x, s.value))  # (it may assign x)
        self.remarks.done(s.loc, f"{x} = {show.expr(s.value)} computed where it is used "
                                 f"(line {nxt.loc.line})")
        return True

    def simple_load(self, e, dtype: str) -> bool:
        """A constant, a scalar or an element at affine indices, of the target's own type: an
        operand INCA-A reads directly, so reading it at each use costs what reading the copy
        does (a constant, an immediate, costs less; and a loop bound that is one makes the loop
        counted: ``m = 8; for i in 1 .. m``, as an inlined call's argument becomes)."""
        if isinstance(e, Num):
            return type_of(e, self.k.syms) == dtype
        if isinstance(e, Name) and self.k.syms[e.id].kind == "scalar":
            return self.k.syms[e.id].dtype == dtype
        if isinstance(e, Index):
            return self.k.syms[e.base].dtype == dtype and all(
                affine(i, self.k.syms) is not None for i in e.indices)
        return False

    def inner(self, s):
        match s:
            case For() | While() | Loop() | DoWhile() | TailLoop():
                return replace(s, body=self.block(s.body))
            case If():
                return replace(s, then=self.block(s.then), orelse=self.block(s.orelse))
        return s


def _reached_first(e, x: str, syms) -> bool:
    """Whether evaluating ``e`` (operands left to right, each operation after its operands, as
    -O0 lowers it) reaches its read of scalar ``x`` before anything that may fault, and surely
    reaches it (not in a branch of a conditional or behind `and`/`or`)."""
    if isinstance(e, Name):
        return e.id == x
    if isinstance(e, (Binary, Compare)):
        parts = (e.left, e.right)
    elif isinstance(e, Unary):
        parts = (e.operand,)
    elif isinstance(e, Call):  # a built-in (calls of functions are inlined, as Seq, by now)
        parts = e.args
    elif isinstance(e, Index):  # the access comes after its indices
        parts = e.indices
    else:
        return False
    for part in parts:
        if x in names_read(part):
            return _reached_first(part, x, syms)
        if may_fault(part, syms):
            return False
    return False


def propagate(k: Kernel, remarks: Remarks) -> Kernel:
    """Forward affine scalars into the indices that read them."""
    return k.but(Propagator(k, remarks).block(k.body))
