"""Pass ``scan`` (-O2): prefix sums (and prefix min, max, products...) as log2(n) vector steps.

``for i in lo .. hi { P[i] = P[i - 1] + X[i] }`` carries P from each iteration to the next, so
neither ``vectorise`` nor ``reduce`` takes it; nor the running value stored each iteration,
``for i { s = s + X[i]; P[i] = s }`` (inclusive) or ``for i { P[i] = s; s = s + X[i] }``
(exclusive). Written as a vector ``x`` of n + 1 elements, the value before the loop then the n
terms, each step of Hillis and Steele's scan adds to every element the one ``d`` places before
it, ``x[d:] = x[d:] OP x[:-d]`` for d = 1, 2, 4, ... < n + 1; after the last, ``x[k]`` is the
value before the loop combined with the first k terms, which is what the loop stores. One vector
statement reads its source whole before it stores (docs/model.md), so each step is one
instruction.

The array form scans P itself (its element before the first store is the value before the loop,
and the terms are stored where the loop stores); the scalar forms scan a temporary and copy it to
P, and leave the last element in the scalar.

Exact when OP may be reassociated without changing a bit (reduce.py's ``tree_ok``: i64 + * min max
& | ^, f64 min and max, f64 + and * under -Ofast; otherwise a missed remark), the terms read
neither P nor the scalar, and they and the accumulator have one type. Done when the estimated
time (:mod:`.estimate`) is lower than the loop's.
"""
from __future__ import annotations

from ..incaq.ast import Assign, For, Index, Name, Num
from ..incaq.checked import Sym, type_of
from .estimate import cost
from .ir import Kernel, Span, affine, affine_expr, const_int, is_plain, map_stmts, names_read
from .reduce import combine, operation, tree_ok
from .remarks import Remarks


def _step(v, is_previous) -> tuple | None:
    """(OP, e) when v is ``p OP e`` or ``e OP p`` for a p that ``is_previous`` accepts (OP a
    reduction operator, all of them commutative)."""
    parts = operation(v)
    if parts is None:
        return None
    o, a, b = parts
    e = b if is_previous(a) else a if is_previous(b) else None
    return None if e is None else (o, e)


class Scanner:
    def __init__(self, k: Kernel, remarks: Remarks, fast: bool):
        self.k, self.remarks, self.fast = k, remarks, fast

    def loop(self, s) -> tuple:
        if not isinstance(s, For) or not is_plain(s.body) or not 1 <= len(s.body) <= 2:
            return (s,)
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None or hi - lo < 2:
            return (s,)
        form = self.recognise(s)
        if form is None:
            return (s,)
        kind, array, offset, op, e, scalar = form
        dtype = self.k.syms[array].dtype
        if type_of(e, self.k.syms) != dtype or (scalar and self.k.syms[scalar].dtype != dtype):
            return (s,)
        if not tree_ok(op, dtype, self.fast):
            self.remarks.missed(s.loc, f"prefix {op} over {s.var} kept in order: use -Ofast to "
                                "reassociate")
            return (s,)
        syms = dict(self.k.syms)
        new = self.build(s, kind, array, offset, op, e, scalar, lo, hi)
        if new is None or cost(new) >= cost((s,)):
            self.k.syms.clear()
            self.k.syms.update(syms)
            return (s,)
        steps = (hi - lo).bit_length()  # d = 1, 2, 4, ... below n + 1
        self.remarks.done(s.loc, f"prefix {op} over {s.var} ({kind}) turned into {steps} vector "
                          f"steps ({hi - lo} terms)")
        return new

    def recognise(self, s: For):
        """(kind, P, d, OP, e, scalar) of the loop's scan, or None."""
        i, body = s.var, s.body
        if len(body) == 1:
            x = body[0]
            d = self.position(x.target, i) if isinstance(x, Assign) else None
            if d is None:
                return None
            p = x.target.base

            def previous(y) -> bool:
                return isinstance(y, Index) and y.base == p and len(y.indices) == 1 \
                    and affine(y.indices[0], self.k.syms) == (d - 1, {i: 1})
            parts = _step(x.value, previous)
            if parts is None or p in names_read(parts[1]):
                return None
            return "array", x.target.base, d, parts[0], parts[1], None
        a, b = body
        if not (isinstance(a, Assign) and isinstance(b, Assign)):
            return None
        update, store, kind = (a, b, "inclusive") if isinstance(a.target, Name) else (b, a, "exclusive")
        if not isinstance(update.target, Name) or store.value != update.target:
            return None
        d = self.position(store.target, i)
        parts = _step(update.value, lambda y: y == update.target)
        if d is None or parts is None or {store.target.base, update.target.id} & names_read(parts[1]) \
                or self.k.syms[update.target.id].kind != "scalar":
            return None
        return kind, store.target.base, d, parts[0], parts[1], update.target.id

    def position(self, target, i: str) -> int | None:
        """d when target is ``P[i + d]`` of a one-dimensional array P."""
        if not isinstance(target, Index) or len(target.indices) != 1 \
                or len(self.k.syms[target.base].shape) != 1:
            return None
        a = affine(target.indices[0], self.k.syms)
        return a[0] if a is not None and a[1] == {i: 1} else None

    def build(self, s: For, kind: str, array: str, d: int, op: str, e, scalar, lo: int,
              hi: int) -> tuple | None:
        from .vectorise import Refused, Vectoriser

        loc, n = s.loc, hi - lo
        if kind == "array":
            x, first = array, lo + d - 1  # P[lo + d - 1 ..] is the vector
        else:
            x, first = self.k.fresh("v"), 0
            self.k.syms[x] = Sym(x, "array", self.k.syms[array].dtype, (n + 1,), "var", 0, loc)
        fill = For(s.var, s.lo, s.hi, (Assign(Index(x, (affine_expr((first + 1 - lo, {s.var: 1}), loc),), loc),
                                              e, loc),), loc)
        try:
            terms = Vectoriser(self.k, Remarks()).vectorise(fill)
        except Refused:
            return None

        def part(start: int, length: int):
            return Index(x, (Span(Num(first + start, False, loc), length, 1, "scan", loc),), loc)
        out = [] if kind == "array" else [Assign(Index(x, (Num(0, False, loc),), loc), Name(scalar, loc), loc)]
        out.extend(terms)
        step = 1
        while step < n + 1:
            out.append(Assign(part(step, n + 1 - step),
                              combine(op, part(step, n + 1 - step), part(0, n + 1 - step), loc), loc))
            step *= 2
        if kind != "array":
            source = part(1, n) if kind == "inclusive" else part(0, n)
            dest = Index(array, (Span(Num(lo + d, False, loc), n, 1, "scan", loc),), loc)
            out.append(Assign(dest, source, loc))
            out.append(Assign(Name(scalar, loc), Index(x, (Num(n, False, loc),), loc), loc))
        return tuple(out)


def scan(k: Kernel, remarks: Remarks, fast: bool = False) -> Kernel:
    """Turn the prefix scans of the kernel's loops into vector steps."""
    k = k.copy()
    k.body = map_stmts(k.body, Scanner(k, remarks, fast).loop)
    return k

