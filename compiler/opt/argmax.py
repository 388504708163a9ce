"""Pass ``argmax`` (-O2): a running maximum or minimum that also records where it was found,
``for i { if E > m then { m = E; k = i } }``, as two reductions.

Such a loop leaves m the largest of its value before the loop and the E(i), and each payload k
(``k = P``: the index, or anything else of that iteration) as P was at the first i that reached
it (``>``; the last one with ``>=``; ``<`` and ``<=``: the smallest, first or last). So:

- ``M = max(E(lo), ..., E(hi - 1))``, a reduction;
- if ``M > m`` (some E(i) was larger), the first i where ``E(i) == M`` is the smallest of
  ``i + (E(i) != M) * n``, n the trip count (an i where E differs counts past every i where it
  does not), another reduction; then each ``k = P`` is P at that i, and ``m = M``. With ``>=``
  the test is ``M >= m`` and the i the largest of ``i - (E(i) != M) * n``.

Both reductions vectorise (``reduce``, ``vectorise``, i read from the table of counts), so the
loop's n compares and branches become about 2 log2(n) + 10 vector instructions.

Exact when m is a scalar of E's type, each payload target a distinct scalar other than m, of its
value's type (or f64: a conversion to i64 may fault), E and the payloads read none of them and
cannot fault anywhere in the loop's range (E is evaluated twice in every iteration now, and a
payload once, after the loop, at one i of the range); for i64 always, for f64 only under -Ofast
(MAX, MIN and ``==`` treat NaN and -0.0 otherwise than the loop's compares; a missed remark
otherwise). Done when the estimated time (:mod:`.estimate`) is lower than the loop's.
``tests/test_opt_argmax.py`` proves the rewrite with z3 on symbolic arrays of up to six elements
for each of the four compares.
"""
from __future__ import annotations

from ..incaq.ast import Assign, Binary, Call, Compare, For, If, Name, Num
from ..incaq.checked import Sym, type_of
from . import show
from .ir import Kernel, cannot_fault, const_int, is_plain, map_stmts, names_read, substitute
from .remarks import Remarks
from .rules import SWAPPED

#: The compare of ``E OP m`` -> (the reduction that keeps m, whether the last i that reaches it
#: is recorded rather than the first).
FORMS = {">": ("max", False), ">=": ("max", True), "<": ("min", False), "<=": ("min", True)}


class ArgReducer:
    def __init__(self, k: Kernel, remarks: Remarks, fast: bool):
        self.k, self.remarks, self.fast = k, remarks, fast

    def loop(self, s) -> tuple:
        form = self.recognise(s)
        if form is None:
            return (s,)
        m, op, e, payloads = form
        red, last = FORMS[op]
        what = f"running {'maximum' if red == 'max' else 'minimum'} of {show.expr(e)} over {s.var}"
        if self.k.syms[m].dtype == "f64" and not self.fast:
            self.remarks.missed(s.loc, f"{what} kept as a loop: as {red} and == it would differ on "
                                "NaN and -0.0 (use -Ofast)")
            return (s,)
        from .distribute import after_loop_passes
        from .estimate import cost

        syms = dict(self.k.syms)
        new = self.build(s, m, op, e, payloads)
        if after_loop_passes(self.k, new, self.fast, distribute_first=False) >= cost((s,)):
            self.k.syms.clear()
            self.k.syms.update(syms)
            return (s,)
        where = "last" if last else "first"
        self.remarks.done(s.loc, f"{what} with {', '.join(t for t, _ in payloads)} taken at its "
                          f"{where} {s.var}: a {red} reduction, then the {where} {s.var} where it "
                          "is reached, a second one")
        return new

    def recognise(self, s):
        """(m, OP, E, ((k, P), ...)) of ``for i { if E OP m then { m = E; k = P; ... } }`` when
        the rewrite is exact (module docstring), with OP put as ``E OP m``; None otherwise."""
        if not (isinstance(s, For) and len(s.body) == 1 and isinstance(s.body[0], If)):
            return None
        lo, hi = const_int(s.lo), const_int(s.hi)
        x = s.body[0]
        c = x.cond
        if lo is None or hi is None or hi - lo < 2 or x.orelse or not is_plain(s.body) \
                or not isinstance(c, Compare) or c.op not in FORMS:
            return None
        if not all(isinstance(a, Assign) and isinstance(a.target, Name) for a in x.then):
            return None
        targets = [a.target.id for a in x.then]
        if len(set(targets)) != len(targets) or s.var in targets:
            return None
        syms = self.k.syms
        for m, e, op in ((getattr(c.right, "id", None), c.left, c.op),
                         (getattr(c.left, "id", None), c.right, SWAPPED[c.op])):
            if m in targets and [a.value for a in x.then if a.target.id == m] == [e]:
                break
        else:
            return None
        payloads = tuple((a.target.id, a.value) for a in x.then if a.target.id != m)
        if not payloads or any(syms[t].kind != "scalar" for t in targets):
            return None
        if type_of(e, syms) != syms[m].dtype or any(
                type_of(p, syms) != syms[t].dtype and syms[t].dtype != "f64" for t, p in payloads):
            return None
        values = (e, *(p for _, p in payloads))
        if any(set(targets) & names_read(v) or not cannot_fault(v, self.k, s, lo, hi)
               for v in values):
            return None
        return m, op, e, payloads

    def build(self, s: For, m: str, op: str, e, payloads) -> tuple:
        """The two reductions (module docstring), with two new scalars: the best value and the
        i where it is reached."""
        loc, i = s.loc, s.var
        lo, hi = const_int(s.lo), const_int(s.hi)
        n = hi - lo
        red, last = FORMS[op]
        best, at = self.k.fresh("best"), self.k.fresh("at")
        self.k.syms[best] = Sym(best, "scalar", self.k.syms[m].dtype, (), "var", 0, loc)
        self.k.syms[at] = Sym(at, "scalar", "i64", (), "var", 0, loc)
        differs = Binary("*", Compare("!=", e, Name(best, loc), loc), Num(n, False, loc), loc)
        term = Binary("-" if last else "+", Name(i, loc), differs, loc)
        then = (Assign(Name(at, loc), Num(lo - n - 1 if last else hi + n, False, loc), loc),
                For(i, s.lo, s.hi, (Assign(Name(at, loc), Call("max" if last else "min",
                                                                (Name(at, loc), term), loc), loc),),
                    loc),
                *(Assign(Name(t, loc), substitute(p, i, Name(at, loc)), loc) for t, p in payloads),
                Assign(Name(m, loc), Name(best, loc), loc))
        return (Assign(Name(best, loc), substitute(e, i, Num(lo, False, loc)), loc),
                For(i, Num(lo + 1, False, loc), s.hi,
                    (Assign(Name(best, loc), Call(red, (Name(best, loc), e), loc), loc),), loc),
                If(Compare(op, Name(best, loc), Name(m, loc), loc), then, (), loc))


def argmax(k: Kernel, remarks: Remarks, fast: bool = False) -> Kernel:
    """Turn the kernel's running maxima and minima with payloads into reductions."""
    k = k.copy()
    k.body = map_stmts(k.body, ArgReducer(k, remarks, fast).loop)
    return k
