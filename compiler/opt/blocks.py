"""Pass ``blocks`` (-O2): a loop that divides its variable by a run-time divisor becomes a nest of
blocks whose copies vectorise.

``for i in 0 .. hi do { M[(i / bl) * st + i % bl] = P[i] }`` (matrix-unpack: an MPI vector
datatype known only at run time) walks blocks of bl consecutive iterations. With ``i = q*bl + r``
(``0 <= r < bl``, exact for bl > 0 since i >= 0), its iterations in the same order are

    h = hi
    if 0 < h then {
        if 16 <= bl then {         (4 <= bl < 16: the same, in chunks of 4)
            full = h / bl
            if 0 < full then {
                base = 0; step = 0
                for q in 0 .. full do {
                    for r in 0 .. bl do { M[step + r] = P[base + r] }
                    base = base + bl; step = step + st
                }
                for r in 0 .. h - base do { M[step + r] = P[base + r] }    (the last, partial block)
                i = h
            } else {
                for i in 0 .. h do { M[i] = P[i] }                          (all in the first block)
            }
        } else { the loop as written }
    } else { i = 0 }

``i / bl`` is q (a product ``q * s`` by a scalar s the loop does not write is a counter adding s at
each block, ``step`` above, so that every index is affine), ``i % bl`` is r and i itself
``base + r``. A whole block runs in chunks of 16 (of 4 when it is shorter than 16: a vector of 4
costs what one scalar does) and its last chunk once more (when running an
iteration twice changes nothing, as in stripmine.py), the number of chunks, ``(bl - 1) / 16``,
counted once for all blocks; otherwise, and in the partial block, ``stripmine`` chunks the loop
over r. Done when the loop over r would vectorise so (tried on a copy) and the body is
assignments only.

Blocks shorter than 4 (and bl <= 0, where -O0 faults on 0) run the loop as written, which
``strength`` makes counters (-O1): a block then would cost its loop more than its copy saves.
No run is slower than at -O0 (``tests/test_opt_runtime_trips.py``). Where bl < 4 the test of
bl costs three instructions more than the loop as written at -O1, which must save them on a run
of one element even when bl is 1 and every iteration wraps strength.py's counters around: it
does when -O0 computes the bound at each of its tests (an operation: ``nbytes / 8``, two
instructions a test), hence only such loops; with a bound held in a scalar (``for i in 0 .. n``)
the loop at -O1 is two instructions ahead of -O0 there, not three. Nor where anything reads i
after the loop: its last value costs two instructions more on that path (``i = h`` and a jump
past the other versions), and a run of one element at b = 1 over ``0 .. min(n, 12)``, followed
by ``c = c + i``, took 247 ns against -O0's 240.
"""
from __future__ import annotations

from ..incaq.ast import Assign, Binary, Compare, For, If, Name, Num
from .ir import Kernel, affine, assigned_before_read, const_int, free_reads, is_plain, map_exprs_in, \
    map_loops, map_stmts, names_read, names_written, read_counts, stmts, substitute
from .remarks import Remarks
from .strength import divisors, invariant, replace_counted, varying
from .stripmine import W, idempotent, stripmine
from .vectorise import is_vector, vectorise


#: The chunks of blocks shorter than stripmine's W
SMALL = 4
#: The fewest instructions of divisions, remainders and products by the divisor (as -O0 spends
#: them in an iteration: ``strength.replace_counted``) for which the nest is made: a run of one iteration
#: pays its tests (of b, of the number of blocks, and stripmine's) from them and from what -O1
#: saves anyway. matrix-unpack's `(i / bl) * st + i % bl` is 5; `Y[i % b] = Y[i % b] + X[i]`, 2,
#: was slower than -O0 over one element with b = 16.
MIN_SAVED = 5


def _vectorises(k: Kernel, loop: For) -> bool:
    """Whether ``stripmine`` and ``vectorise`` make vector chunks of a block loop (on a copy)."""
    trial = k.copy((loop,))
    trial = vectorise(stripmine(trial, Remarks()), Remarks())
    return any(is_vector(x) for x in stmts(trial.body))


def _inline_positions(body: tuple, k: Kernel, kept: set[str]) -> tuple:
    """The body with each private scalar assigned an affine value (``disp = step + r``) read from
    that value where later statements use it, and its assignment dropped unless its name is in
    ``kept`` (read after the loop or by the host): an index must be affine to vectorise
    (propagate.py does this after ``strength``; this pass runs before both)."""
    out: list = []
    values: dict[str, object] = {}
    written = names_written(body)  # (a value reading none of these means the same where it is used)
    for x in body:
        for name, e in values.items():
            x = map_exprs_in(x, lambda n, name=name, e=e: e if isinstance(n, Name) and n.id == name else n)
        t = x.target
        if isinstance(t, Name) and not names_read(x.value) & written and affine(x.value, k.syms) is not None \
                and assigned_before_read(body, t.id) and sum(1 for y in body if isinstance(y.target, Name)
                                                             and y.target.id == t.id) == 1:
            values[t.id] = x.value
            if t.id not in kept:
                continue
        out.append(x)
    return tuple(out)


def _block(s: For, k: Kernel, remarks: Remarks):
    # (a bound computed by an operation: see the module's docstring)
    if const_int(s.lo) != 0 or isinstance(s.hi, (Name, Num)) or not s.body or not is_plain(s.body) \
            or not all(isinstance(x, Assign) for x in s.body) or s.var in names_written(s.body) \
            or names_read(s.hi) & names_written(s.body):
        return None
    vary = varying(s)
    found = divisors(s)
    if len(found) != 1 or not invariant(Name(found[0]), vary, k):
        return None
    b = found[0]
    i, loc, body = s.var, s.loc, s.body
    written = names_written(body)

    def num(v: int):
        return Num(v, False, loc)
    made: list[str] = []

    def fresh(stem: str) -> Name:
        made.append(k.fresh_scalar(stem))
        return Name(made[-1], loc)
    q, r, base = fresh(f"{i}_q"), fresh(f"{i}_r"), fresh(f"{i}_base")
    counters: dict = {}  # invariant factor -> its counter

    def factor(e) -> bool:  # (a constant factor keeps the index affine: no counter)
        return isinstance(e, Name) and invariant(e, vary, k)

    def counter(f) -> Name:
        if f not in counters:
            counters[f] = fresh(f"{i}_step")
        return counters[f]

    def rewrite(e):
        match e:
            case Binary(op="/", left=Name(id=v), right=Name(id=d)) if v == i and d == b:
                return Name(q.id, e.loc)
            case Binary(op="%", left=Name(id=v), right=Name(id=d)) if v == i and d == b:
                return Name(r.id, e.loc)
            case Binary(op="*", left=Name(id=n), right=f) if n == q.id and factor(f):
                return counter(f)
            case Binary(op="*", left=f, right=Name(id=n)) if n == q.id and factor(f):
                return counter(f)
        return e

    def first_block(e):
        match e:
            case Binary(op="/", left=Name(id=v), right=Name(id=d)) if v == i and d == b:
                return num(0)
            case Binary(op="%", left=Name(id=v), right=Name(id=d)) if v == i and d == b:
                return Name(i, e.loc)
        return e
    inner, saved = replace_counted(body, rewrite)
    if saved < MIN_SAVED:
        for name in made:
            del k.syms[name]
        remarks.missed(loc, f"the divisions of {i} by {b} in the loop over {i} not made blocks: "
                       f"they cost {saved} instructions an iteration at -O0, fewer than the "
                       f"{MIN_SAVED} that pay for its tests on a run of one iteration")
        return None
    inner = substitute(inner, i, Binary("+", base, r, loc))
    outside = read_counts(k.body)
    inside = read_counts(body)
    kept = {n for n in written if k.syms[n].role != "var" or outside.get(n, 0) > inside.get(n, 0)}
    inner = _inline_positions(inner, k, kept)
    block = For(r.id, num(0), Name(b, loc), inner, loc)
    if not _vectorises(k, block):
        for name in made:
            del k.syms[name]
        return None
    h = s.hi if isinstance(s.hi, Name) else fresh(f"{i}_end")
    full = fresh(f"{i}_blocks")
    steps = ((base, Name(b, loc)), *((c, f) for f, c in counters.items()))
    last = For(r.id, num(0), Binary("-", h, base, loc), inner, loc)
    twice = idempotent(inner, k)  # running an iteration twice changes nothing
    c, j = (fresh(f"{i}_chunk"), fresh(f"{i}_lane")) if twice else (None, None)

    def nest(width: int) -> tuple:
        """The blocks, each a loop over r (stripmine chunks it) or, when running an iteration
        twice changes nothing, chunks of ``width`` and the last ``width`` once more, the number
        of chunks, (b - 1) / width, counted once for all blocks (so no block tests b)."""
        setup: tuple = ()
        block_body: tuple = (block,)
        if twice:
            lanes = fresh(f"{i}_lanes")
            setup = (Assign(lanes, Binary("/", Binary("-", Name(b, loc), num(1), loc), num(width), loc),
                            loc),)
            at = Binary("+", Binary("*", num(width), c, loc), j, loc)
            tail = Binary("+", Binary("-", Name(b, loc), num(width), loc), j, loc)
            block_body = (For(c.id, num(0), lanes, (For(j.id, num(0), num(width), substitute(inner, r.id, at),
                                                        loc),), loc),
                          For(j.id, num(0), num(width), substitute(inner, r.id, tail), loc))
        blocks = For(q.id, num(0), full, (*block_body, *(Assign(x, Binary("+", x, f, loc), loc)
                                                         for x, f in steps)), loc)
        body_ = (*setup, *(Assign(x, num(0), loc) for x, _ in steps), blocks, last,
                 Assign(Name(i, loc), h, loc))
        return (Assign(full, Binary("/", h, Name(b, loc), loc), loc),
                If(Compare("<", num(0), full, loc), body_, short, loc))
    original = (For(i, s.lo, h, body, loc),)
    # h < b: every i / b is 0 and i % b is i (a map over 0 .. h, which stripmine may chunk)
    first = map_stmts(body, lambda x: (map_exprs_in(x, first_block),))
    short = (For(i, s.lo, h, _inline_positions(first, k, kept), loc),)
    runs: tuple = (If(Compare("<=", num(W), Name(b, loc), loc), nest(W), original, loc),)
    least = W
    if twice and _vectorises(k, For(j.id, num(0), num(SMALL), substitute(inner, r.id, j), loc)):
        # blocks of 4 to 15 in chunks of 4 (a vector of 4 costs what one scalar does)
        runs = (If(Compare("<=", num(SMALL), Name(b, loc), loc),
                   (If(Compare("<=", num(W), Name(b, loc), loc), nest(W), nest(SMALL), loc),),
                   original, loc),)
        least = SMALL
    remarks.done(loc, f"loop over {i} made blocks of {b} iterations ({i} / {b} the block, {i} % {b} "
                 f"the position in it) that vectorise, when {b} >= {least} (and a map when the "
                 f"loop ends in its first block)")
    remarks.explained(i, loc)
    remarks.call(q.id, f"the blocks of {i}")
    remarks.call(r.id, f"a block of {i}")
    if twice:
        remarks.call(j.id, f"the chunks of a block of {i}")
    pre = () if h is s.hi else (Assign(h, s.hi, loc),)
    return (*pre, If(Compare("<", num(0), h, loc), runs, (Assign(Name(i, loc), num(0), loc),), loc))


def blocks(k: Kernel, remarks: Remarks) -> Kernel:
    """Make blocks of the loops that divide their variable by a run-time divisor (whose variable
    nothing reads after them: see the module's docstring)."""
    free = free_reads(k.body)
    return k.but(map_loops(k.body, lambda s: None if free.get(s.var) or k.visible(s.var)
                           else _block(s, k, remarks)))


__all__ = ["blocks"]
