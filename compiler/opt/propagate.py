"""Pass ``propagate`` (-O1): a private scalar holding an affine value is read in indices directly,
and one holding a copy of a scalar or an element is read from that operand where it is used.

``disp = a + b - f; M[disp] = P[i]`` becomes ``M[a + b - f] = P[i]``: INCA-A's address
generator computes affine indices at fire time for free, so the three instructions computing
``disp`` go (dce removes the assignment once nothing reads it). It applies when every read of the
scalar in the whole kernel is an index in the statements after the assignment, in the same block,
before anything writes the scalar or a name of its value again.
"""
from __future__ import annotations

from dataclasses import replace

from ..incaq.ast import Assign, DoWhile, For, If, Index, Loop, Name, While
from ..incaq.checked import TailLoop
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
        for n, s in enumerate(out):
            if not (isinstance(s, Assign) and isinstance(s.target, Name)):
                continue
            x = s.target.id
            sym = self.k.syms[x]
            if sym.role != "var" or sym.kind != "scalar" or x in names_read(s.value):
                continue
            load = self.simple_load(s.value, sym.dtype)
            if not load and (sym.dtype != "i64" or affine(s.value, self.k.syms) is None):
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
        return tuple(out)

    def simple_load(self, e, dtype: str) -> bool:
        """A scalar or an element at affine indices, of the target's own type: an operand
        INCA-A reads directly, so reading it at each use costs what reading the copy does."""
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


def propagate(k: Kernel, remarks: Remarks) -> Kernel:
    """Forward affine scalars into the indices that read them."""
    return k.but(Propagator(k, remarks).block(k.body))
