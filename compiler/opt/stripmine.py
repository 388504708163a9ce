"""Pass ``stripmine`` (-O2): a loop whose trip count is known only at run time runs in chunks.

``for i in 0 .. hi`` (hi computed at run time; from another start, see below) whose chunks of W
iterations the loop passes that follow make cheaper than those iterations in the scalar loop
(estimated on a copy: a map vectorises; a sum's terms become a vector, added in order or as a
tree) becomes

    h = hi                      (unless hi is a scalar)
    if 0 < h then {
        chunks = h / W
        if 0 < chunks then {
            for c in 0 .. chunks do { for j in 0 .. W do { body[i := W*c + j] } }
            for j in 0 .. W do { body[i := h - W + j] }      (the last W iterations once more)
            i = h
        } else {
            for i in 0 .. h do { body }
        }
    } else {
        i = 0
    }

and the loop passes (this one runs before ``distribute``) then take each inner loop, of a
constant W iterations, as any other: a map becomes W-element vector statements. The last chunk
overlaps the ones before it (an iteration run twice writes what it wrote the first time) when
the body reads nothing it writes but scalars it assigns first in each iteration; otherwise the
iterations left after the chunks run one by one (``for i in h - h % W .. h``).

No run is slower than at -O0 (``tests/test_opt_runtime_trips.py``). A loop that runs no time
pays h (computed by -O0's first test too) and one BLEZ (and ``i = 0`` when i is read after it),
against -O0's ``PUTL i, 0`` and its test (PUTL, LT, BLEZ). One that runs fewer than W iterations
pays ``chunks`` and its BLEZ (three instructions) more than at -O1, where the loop is rotated
and its first test known to pass (``0 < h``): -O1 saves three an iteration and -O0's first test.

``for i in lo .. hi`` from a number lo > 0 is counted from 0, as a loop of
``h = max(hi, lo) - lo`` trips over its own variable v with i as ``v + lo`` in the body, where
two more conditions hold. hi is computed by an operation (``n - 1``): h then costs evaluating hi
and two instructions, where -O0 evaluates hi at each of its tests, and a run of one iteration is
no slower; up to a bare scalar, h costs three instructions -O0 does not pay (its test compares i
with the scalar itself), more than such a run saves. And nothing reads i after the loop (-O0
leaves it hi, or lo): its last value would cost another two. The max makes h exact: ``hi - lo``
wraps where hi is within lo of INT64_MIN (``n - 2`` at n = INT64_MIN + 1 was INT64_MAX, chunks ran
where -O0 runs none), and from a scalar or a negative lo it wraps the other way (from m =
INT64_MIN, where -O0 faults at once, h was negative and the loop ran no time), so neither is
taken.

In a loop over o whose every iteration runs the strip-mined loop with the same trip count
(``for i in 0 .. n { for j in 0 .. m { C[i][j] = ... } }``), the tests of h and ``chunks`` are
made once, before it, each version a copy of the loop over o (its other statements, up to
NEST_SIZE, copied with it), itself behind o's first test (``if lo < hi``; that test is then a
fact, and the loop over o makes it no more). Each run of the inner loop no longer pays the
dispatch, which at -O1 it did not have to: 50 rows of 12 ran slower at -O2 than at -O1. No run
costs more than with the tests inside: the versions are the same loops, and a loop over o that
runs no time makes its own first test alone.

Where the trip count is ``o + b`` instead (a triangle's rows: ``for j in 0 .. i + 1``, ``0 .. i``;
o from a constant, b a constant <= 1, so that no row's count wraps), the loop over o is split
where the count reaches W: ``for o in lo .. W - b`` runs the scalar loop (as at -O1; with the test
``0 < h`` only where a row may run no time), ``for o in W - b .. hi`` the chunks with no test, both
behind the one test ``W - b < hi`` (and o's first test). With the tests in each row, 12 rows of
``0 .. i + 1`` took 10,725 ns at -O2 against 9,943 at -O1 (now 9,965: that one test).

Above the diagonal (``for o in 0 .. H { for j in o + 1 .. n }``), where the count falls with o,
the rows of at least W run in chunks first, with no test, and the rest as written (:func:`_falling`).

The chunk is W = 16 elements: a vector instruction of up to 19 costs the scalar one's time, so
wider chunks would need longer runs before they pay, and each chunk costs its loop two
instructions.
"""
from __future__ import annotations

from ...lang.diagnostics import Loc
from ...lang.frozen import frozen, replace
from ..incaq.ast import Assign, Binary, Call, Compare, For, If, Index, Name, Num
from .estimate import LOOP_NS, cost
from .ir import I64_MIN, Kernel, affine, assigned_before_read, const_int, free_reads, is_plain, \
    map_loops, names_read, names_read_in, names_written, size, substitute, uses_outside_index
from .remarks import Remarks
from .show import expr

W = 16


def idempotent(body: tuple, k: Kernel) -> bool:
    """Whether running an iteration again writes what it wrote: the body reads no array it
    writes, and every scalar it writes is assigned before it is read in each iteration."""
    written = names_written(body)
    for name in written & names_read_in(body):
        if k.syms[name].kind != "scalar" or not assigned_before_read(body, name):
            return False
    return True


def _pays(k: Kernel, chunk: For, body: tuple, fast: bool) -> bool:
    """Whether a chunk after the loop passes that follow (``distribute`` to ``vectorise``, tried
    on a copy) is estimated cheaper than its W iterations in the scalar loop (each with the two
    instructions of a rotated loop)."""
    from .distribute import after_loop_passes

    return after_loop_passes(k, (chunk,), fast) + LOOP_NS < W * (cost(body) + LOOP_NS)


def _mine(s: For, k: Kernel, remarks: Remarks, fast: bool, free: dict[str, int],
          missed: dict | None = None, start: str | None = None):
    """The versions of a loop strip-mined, or None. Why a loop from another start is not goes in
    ``missed`` (by the loop's id) where chunks would pay; ``start``: the variable of the loop
    around it, from which :func:`_falling` takes a start ``start + c``."""
    lo = const_int(s.lo)
    if lo is not None and const_int(s.hi) is not None:
        return None
    body, i, loc = s.body, s.var, s.loc
    if not body or not is_plain(body) or not all(isinstance(x, Assign) for x in body) \
            or i in names_written(body) or (names_read(s.hi) | names_read(s.lo)) & names_written(body) \
            or uses_outside_index(body, i):
        return None
    why = None if lo == 0 else _not_from(s, lo, k, free, start)

    def num(v: int):
        return Num(v, False, loc)
    made = [k.fresh_scalar("chunk"), k.fresh_scalar("lane")]
    # from lo != 0 the loop is counted from 0 by its own variable v, i being v + lo in the body
    if lo != 0:
        made.append(k.fresh_scalar(i))
    v = i if lo == 0 else made[2]
    body_v = body if lo == 0 else substitute(body, i, Binary("+", Name(v, loc), s.lo, loc))
    c, j = Name(made[0], loc), Name(made[1], loc)
    chunk = For(j.id, num(0), num(W), substitute(body_v, v, Binary("+", Binary("*", num(W), c, loc),
                                                                     j, loc)), loc)
    pays = _pays(k, chunk, body_v, fast)
    if why is not None or not pays:
        for name in made:
            del k.syms[name]
        if why is not None and pays and missed is not None:  # (said only where chunks would pay)
            missed[id(s)] = (loc, i, why)
        return None
    # h: the trip count (hi itself from 0, unless hi is computed)
    if lo == 0:
        h = s.hi if isinstance(s.hi, Name) else Name(k.fresh_scalar(f"{i}_end"), loc)
        pre = () if h is s.hi else (Assign(h, s.hi, loc),)
    else:
        h = Name(k.fresh_scalar(f"{i}_trips"), loc)
        pre = (Assign(h, Binary("-", Call("max", (s.hi, s.lo), loc), s.lo, loc), loc),)
    count = Name(k.fresh_scalar("chunks"), loc)
    chunks = For(c.id, num(0), count, (chunk,), loc)
    if idempotent(body, k):
        last = Binary("+", Binary("-", h, num(W), loc), j, loc)
        rest = For(j.id, num(0), num(W), substitute(body_v, v, last), loc)
        how = f"the last {W} once more"
    else:
        rest = For(v, Binary("-", h, Binary("%", h, num(W), loc), loc), h, body_v, loc)
        how = "the rest one by one"
    remarks.done(loc, f"loop over {i} strip-mined: chunks of {W} for the loop passes, {how}, when it "
                 f"runs at least {W} times (its trip count is known only at run time)")
    remarks.explained(i, loc)
    remarks.call(j.id, f"the chunks of {i}")
    scalar = (For(v, s.lo if lo == 0 else num(0), h, body_v, loc),)
    # i's last value, as -O0 leaves it (nothing reads it after a loop from lo != 0)
    done, skipped = ((Assign(Name(i, loc), h, loc),), (Assign(Name(i, loc), num(0), loc),)) \
        if lo == 0 else ((), ())
    if lo != 0:
        remarks.call(v, i)
        remarks.explained(v, loc)
    return Versions(i, pre, h, count, (chunks, rest, *done), scalar, skipped, loc)


def _not_from(s: For, lo: int | None, k: Kernel, free: dict[str, int],
              start: str | None = None) -> str | None:
    """Why a loop from lo != 0 is not strip-mined (see the module's docstring), or None; from
    ``start`` or ``start + 1`` (:func:`_falling`) where it also counts from 0."""
    i = s.var
    if free.get(i) or k.visible(i):
        return (f"{i} is read after it, and its last value would cost two instructions more than "
                f"a run of one iteration saves")
    if start is not None:  # (its form checked by _falling)
        return None
    if lo is None or lo < 0:
        return (f"it starts at {expr(s.lo)}: only loops from a number >= 0 are, whose trip count "
                f"cannot overflow an i64")
    if isinstance(s.hi, (Name, Num, Index)):
        return (f"up to {expr(s.hi)} from {lo}, counting its trips costs three instructions, more "
                f"than a run of one iteration saves (from 0, or up to a bound computed at each "
                f"test, they cost nothing more)")
    return None


@frozen
class Versions:
    """The strip-mined loop over ``var``: ``pre`` computes the trip count h, and the chunks run
    when ``chunks = h / W`` is positive, the scalar loop when only h is, ``skipped`` when h is
    not."""

    var: str
    pre: tuple
    h: Name
    count: Name
    vector: tuple
    scalar: tuple
    skipped: tuple
    loc: Loc

    def dispatch(self, wrap=lambda b: b) -> tuple:
        """The tests that pick a version and the versions, each passed through ``wrap``."""
        zero, loc = Num(0, False, self.loc), self.loc
        runs = (Assign(self.count, Binary("/", self.h, Num(W, False, loc), loc), loc),
                If(Compare("<", zero, self.count, loc), wrap(self.vector), wrap(self.scalar), loc))
        return (*self.pre, If(Compare("<", zero, self.h, loc), runs, wrap(self.skipped), loc))


#: The most code (ir.size) around a strip-mined loop in the body of the loop that holds it, which
#: the three versions copy when their tests are made outside that loop.
NEST_SIZE = 40


def _hoist(outer: For, mined: dict, k: Kernel, remarks: Remarks, free: dict[str, int]):
    """``for o in lo .. hi { S1; <strip-mined loop>; S2 }`` as the strip-mined loop's tests, made
    once, each picking a copy of the loop over o with its version: where the trip count is the
    same in every iteration over o, and o's first test is made first (``if lo < hi``, whose
    ``0 < hi`` is one BLEZ, and the lowering knows it then for the loop's own first test)."""
    body = outer.body
    at = [n for n, x in enumerate(body) if id(x) in mined]
    if len(at) != 1:
        return None
    p = at[0]
    versions = mined[id(body[p])][1]
    q = p - len(versions.pre)
    if q < 0 or any(a is not b for a, b in zip(body[q:p], versions.pre)):
        return None
    around = body[:q] + body[p + 1:]
    o = outer.var
    written = names_written(body) | {o}
    counted = names_read_in(versions.pre) if versions.pre else {versions.h.id}
    lo, hi = const_int(outer.lo), const_int(outer.hi)
    offset = None
    if counted & written:
        offset = _offset(versions, o, lo, k)
        if offset is None or counted & written != {o}:
            return None
    if names_read((outer.lo, outer.hi)) & written or not is_plain(around) \
            or size(around) > NEST_SIZE or free.get(o) or k.visible(o):
        return None
    if lo is not None and hi is not None and hi <= lo:
        return None

    def wrap(b: tuple) -> tuple:
        inner = body[:q] + b + body[p + 1:]
        return (replace(outer, body=inner),) if inner else ()
    if offset is None:
        out = versions.dispatch(wrap)
        say = (f"the tests of the trip count of the loop over {remarks.say(versions.var)} made "
               f"once, outside the loop over {o}")
    else:
        out = _split_rows(outer, versions, lo, offset, lambda lo_, hi_, b: (
            replace(outer, lo=lo_, hi=hi_, body=body[:q] + b + body[p + 1:]),))
        say = (f"the loop over {o} split where the loop over {remarks.say(versions.var)} reaches "
               f"{W} iterations: chunks from there on, without tests")
    if lo is None or hi is None:
        out = (If(Compare("<", outer.lo, outer.hi, outer.loc), out, (), outer.loc),)
    remarks.done(versions.loc, say)
    remarks.explained(o, outer.loc)  # (its copies: vectorise need not say why not them)
    return out


def _offset(versions: Versions, o: str, lo: int | None, k: Kernel) -> int | None:
    """b where the strip-mined loop's trip count is ``o + b`` in each iteration of a loop over o
    from a constant lo (a triangular nest: ``for j in 0 .. i + 1``), and no iteration's ``o + b``
    wraps: b <= 1, as o < hi <= INT64_MAX, and lo + b >= INT64_MIN."""
    if lo is None:
        return None
    if not versions.pre:
        b = 0 if versions.h.id == o else None
    else:
        form = affine(versions.pre[0].value, k.syms)
        b = form[0] if form is not None and form[1] == {o: 1} else None
    return b if b is not None and b <= 1 and lo + b >= I64_MIN else None


def _split_rows(outer: For, versions: Versions, lo: int, b: int, rows) -> tuple:
    """The loop over o, whose iterations run the strip-mined loop ``o + b`` times, as its rows
    before ``o = W - b`` (fewer than W iterations: the scalar loop, as at -O1) and its rows from
    there (at least W: the chunks, with no test). ``rows(lo, hi, version)`` is the loop over o
    from lo to hi with ``version`` in place of the strip-mined loop."""
    loc = versions.loc
    zero, split = Num(0, False, loc), W - b
    h = versions.h
    scalar = versions.scalar if lo + b >= 1 else \
        (If(Compare("<", zero, h, loc), versions.scalar, versions.skipped, loc),)
    scalar = (*versions.pre, *scalar)
    vector = (*versions.pre, Assign(versions.count, Binary("/", h, Num(W, False, loc), loc), loc),
              *versions.vector)
    if lo >= split:
        return rows(outer.lo, outer.hi, vector)
    at = Num(split, False, loc)
    hi = const_int(outer.hi)
    if hi is not None:
        return rows(outer.lo, outer.hi, scalar) if hi <= split else \
            (*rows(outer.lo, at, scalar), *rows(at, outer.hi, vector))
    return (If(Compare("<", at, outer.hi, loc), (*rows(outer.lo, at, scalar), *rows(at, outer.hi, vector)),
               rows(outer.lo, outer.hi, scalar), loc),)


def _falling(outer: For, k: Kernel, remarks: Remarks, fast: bool, free: dict[str, int],
             missed: dict):
    """``for o in 0 .. H { S1; for j in o + c .. hi { body }; S2 }`` (c 0 or 1, hi a scalar or
    a number the rows do not write: the rows of a triangle above its diagonal, fewer iterations
    in each) as its rows of at least W iterations, the chunks with no test, then the rest as
    written (L below is 0):

        if L + c + W - 1 < hi then {
            p = min(hi - (c + W - 1), H)
            for o in L .. p { S1; <the loop over j in chunks>; S2 }
            for o in p .. H { S1; <the loop over j as written>; S2 }
        } else { the loop as written }

    (behind o's own first test where H is not a number). Row o runs ``max(hi, o + c) - (o + c)``
    iterations, exact as o + c >= 0, at least W for o < p; p > L there. A run with no long row
    pays the one test of hi against the loop as written, which o's first test made before it
    repays in part, and -O1's loop the rest (an upper triangle of 1 row: 159 ns, -O1 148, -O0
    169). Where o starts elsewhere (that test is three instructions, not one BLEZ) or hi is
    computed (``n - 2``: evaluated for the test too), runs of one or two rows were measured
    slower than -O0, so those nests stay as written."""
    o, body = outer.var, outer.body
    at = [n for n, x in enumerate(body) if isinstance(x, For)]
    if const_int(outer.lo) != 0 or free.get(o) or k.visible(o) or len(at) != 1:
        return None
    p = at[0]
    inner = body[p]
    form = affine(inner.lo, k.syms)
    written = names_written(body) | {o}
    around = body[:p] + body[p + 1:]
    if form is None or form[1] != {o: 1} or form[0] not in (0, 1) \
            or not isinstance(inner.hi, (Name, Num)) or affine(inner.hi, k.syms) is None \
            or names_read(inner.hi) & written or names_read((outer.lo, outer.hi)) & written \
            or not is_plain(around) or size(around) > NEST_SIZE:
        return None
    hi, loc = const_int(outer.hi), inner.loc
    if hi is not None and hi <= 0:
        return None
    trial = remarks.trial()
    versions = _mine(inner, k, trial, fast, free, start=o)
    if versions is None:
        return None
    missed.pop(id(inner), None)
    remarks.adopt(trial)
    c = form[0]

    def num(v: int):
        return Num(v, False, loc)

    def rows(lo_, hi_, b: tuple) -> For:
        return replace(outer, lo=lo_, hi=hi_, body=body[:p] + b + body[p + 1:])
    # in these rows hi - o - c >= W: no max, no wrap
    trips = Binary("-", inner.hi, Name(o, loc), loc)
    vector = (Assign(versions.h, Binary("-", trips, num(c), loc) if c else trips, loc),
              Assign(versions.count, Binary("/", versions.h, num(W), loc), loc), *versions.vector)
    split = Name(k.fresh_scalar(f"{o}_rows"), loc)
    first = Binary("-", inner.hi, num(c + W - 1), loc)  # (below hi: below H too where H is hi)
    long_rows = (Assign(split, first if inner.hi == outer.hi else Call("min", (first, outer.hi), loc),
                        loc),
                 rows(outer.lo, split, vector), rows(split, outer.hi, (inner,)))
    out: tuple = (If(Compare("<", num(c + W - 1), inner.hi, loc), long_rows, (outer,), loc),)
    if hi is None:
        out = (If(Compare("<", outer.lo, outer.hi, outer.loc), out, (), outer.loc),)
    remarks.done(loc, f"the loop over {o} split where the loop over {remarks.say(versions.var)} "
                 f"falls below {W} iterations: chunks before, with no test")
    remarks.explained(o, outer.loc)
    return out


def stripmine(k: Kernel, remarks: Remarks, fast: bool = False) -> Kernel:
    """Strip-mine the innermost loops with run-time trip counts whose chunks the loop passes make
    cheaper (their tests outside the loop that holds them, where they can be)."""
    free = free_reads(k.body)  # (a loop from lo != 0 is versioned only where nothing reads i after it)
    mined: dict[int, tuple] = {}  # id of a strip-mined loop's test -> (the test, its Versions)
    missed: dict[int, tuple] = {}  # id of a loop left as written -> (loc, var, why)

    def rewrite(s: For):
        out = _hoist(s, mined, k, remarks, free)
        if out is None:
            out = _falling(s, k, remarks, fast, free, missed)
        if out is not None:
            return out
        versions = _mine(s, k, remarks, fast, free, missed)
        if versions is None:
            return None
        out = versions.dispatch()
        mined[id(out[-1])] = (out[-1], versions)
        return out
    out = k.but(map_loops(k.body, rewrite))
    for loc, i, why in missed.values():
        remarks.missed(loc, f"loop over {i} not strip-mined: {why}")
        remarks.explained(i, loc)
    return out


__all__ = ["stripmine", "idempotent", "W"]
