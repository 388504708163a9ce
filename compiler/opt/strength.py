"""Pass ``strength`` (-O1): ``i / b`` and ``i % b`` in a counted loop become counters.

In ``for i in 0 .. hi`` (b an i64 scalar the loop does not write),
``q = i / b`` and ``r = i % b`` step with i: r goes up by one and wraps to 0 at b, when q goes up
by one. The loop keeps ``f = b - r`` (counting down to 0, so the wrap test is one BLEZ) and reads
``i % b`` as ``b - f``; a product ``(i / b) * s`` with s invariant becomes its own counter that
adds s at each wrap. ``disp = (i / bl) * st + i % bl; M[disp] = P[i]`` thus costs no division,
no remainder and no product, and the index stays affine (propagate.py puts it in M's index).

This holds only for b > 0 (i >= 0 then divides like floor), so the loop is versioned:
``if b > 0 then { counters } else { the loop as written }`` (the second faults on b == 0 as -O0),
inside ``if lo < hi`` so that a loop that runs no time costs no more than at -O0.

Only loops from 0: from lo > 0 the counters' first values take a division, a remainder and a
product, more than one iteration saves, so a loop that runs once would be slower than at -O0
(``for i in 1 .. n`` over one element: 239 ns against 182).
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, Binary, Compare, For, If, Name, Num, nodes
from ..incaq.checked import Sym
from .ir import Kernel, const_int, is_plain, map_exprs_in, map_loops, map_stmts, names_read_in, \
    names_written, own_exprs, read_counts, rename_scalar, stmts
from .remarks import Remarks


def divisors(s: For) -> list[str]:
    """The scalars b of the body's ``i / b`` and ``i % b`` (i the loop's variable), in order."""
    found = [n.right.id for x in stmts(s.body) for e in own_exprs(x) for n in nodes(e)
             if isinstance(n, Binary) and n.op in ("/", "%") and n.left == Name(s.var)
             and isinstance(n.right, Name)]
    return list(dict.fromkeys(found))


def varying(s: For) -> set[str]:
    """The names whose values differ between iterations of a for loop: those its body assigns,
    and its variable."""
    return names_written(s.body) | {s.var}


def invariant(e, vary: set[str], k: Kernel) -> bool:
    """An i64 literal or an i64 scalar not in ``vary`` (:func:`varying`)."""
    if isinstance(e, Num):
        return not e.is_float
    return isinstance(e, Name) and e.id not in vary and k.syms[e.id].kind == "scalar" \
        and k.syms[e.id].dtype == "i64"


# What -O0 spends on each operation the counters replace: PUTL and DIV (MOD); the MUL of a product
COST = {"/": 2, "%": 2, "*": 1}


def replace_counted(body: tuple, replaced) -> tuple[tuple, int]:
    """``body`` with ``replaced`` (an expression to its replacement, or itself) applied to every
    expression, and what the replaced operations cost -O0 an iteration (:data:`COST`; an
    operation written twice in one statement counted once: ``Y[i / b] = Y[i / b] + 1`` divides
    once)."""
    saved = 0
    seen: set = set()

    def rewrite(e):
        nonlocal saved
        new = replaced(e)
        if new is not e and e not in seen:
            seen.add(e)
            saved += COST[e.op]
        return new

    def each(x):
        seen.clear()
        return (map_exprs_in(x, rewrite),)
    return map_stmts(body, each), saved


def _reduce(s: For, k: Kernel, remarks: Remarks):
    lo = const_int(s.lo)
    if lo != 0 or not is_plain(s.body) or s.var in names_written(s.body):
        return None
    vary = varying(s)
    b = next((d for d in divisors(s) if invariant(Name(d), vary, k)), None)
    if b is None:
        return None
    loc = s.loc
    f, q = k.fresh_scalar(f"{b}_left"), k.fresh_scalar(f"{b}_quot")
    products: dict = {}  # invariant factor -> its counter's name

    def counter(factor) -> str:
        if factor not in products:
            products[factor] = k.fresh_scalar(f"{b}_step")
        return products[factor]

    def replaced(e):
        match e:
            case Binary(op="%", left=Name(id=v), right=Name(id=d)) if v == s.var and d == b:
                return Binary("-", Name(b, e.loc), Name(f, e.loc), e.loc)
            case Binary(op="*", left=Name(id=n), right=r) if n == q and invariant(r, vary, k):
                return Name(counter(r), e.loc)
            case Binary(op="*", left=l, right=Name(id=n)) if n == q and invariant(l, vary, k):
                return Name(counter(l), e.loc)
            case Binary(op="/", left=Name(id=v), right=Name(id=d)) if v == s.var and d == b:
                return Name(q, e.loc)
        return e

    body, saved = replace_counted(s.body, replaced)
    uses_q = q in names_read_in(body)
    # Where b == 1 every iteration wraps: SUB and BLEZ of f, f = b, one ADD per counter and the
    # JMP back from the rare path. Unless that costs no more than what it replaces, such a run
    # would be slower than -O0 at every length.
    wrap_cost = 4 + uses_q + len(products)
    if saved < wrap_cost:
        for name in (f, q, *products.values()):
            k.syms.pop(name, None)
        remarks.missed(loc, f"the divisions of {s.var} by {b} in the loop over {s.var} not made "
                       f"counters: where {b} is 1 their wrap-around costs {wrap_cost} instructions "
                       f"an iteration, more than the {saved} they replace")
        return None
    if not uses_q:
        del k.syms[q]

    def num(v: int):
        return Num(v, False, loc)
    bn = Name(b, loc)
    # the counters at i = 0: f = b, q and the products 0
    init = [Assign(Name(f, loc), bn, loc)]
    wrap = [Assign(Name(f, loc), bn, loc)]
    if uses_q:
        init.append(Assign(Name(q, loc), num(0), loc))
        wrap.append(Assign(Name(q, loc), Binary("+", Name(q, loc), num(1), loc), loc))
    for factor, name in products.items():
        init.append(Assign(Name(name, loc), num(0), loc))
        wrap.append(Assign(Name(name, loc), Binary("+", Name(name, loc), factor, loc), loc))
    body = _privatise(body, s.body, k, remarks)
    step = [Assign(Name(f, loc), Binary("-", Name(f, loc), num(1), loc), loc),
            If(Compare("<=", Name(f, loc), num(0), loc), tuple(wrap), (), loc)]
    fast = (*init, For(s.var, s.lo, s.hi, body + tuple(step), loc))
    remarks.done(loc, f"{s.var} / {b} and {s.var} % {b} in the loop over {s.var} became counters "
                 f"(for {b} > 0; the loop as written runs otherwise)")
    pre: tuple = ()
    if not isinstance(s.hi, (Num, Name)):  # the bound computed once, for the test and both loops
        h = Name(k.fresh_scalar(f"{s.var}_end"), loc)
        pre = (Assign(h, s.hi, loc),)
        fast = (*init, replace(fast[-1], hi=h))
        s = replace(s, hi=h)
    versions = If(Compare(">", bn, num(0), loc), fast, (s,), loc)
    # entered only when the loop runs, so a loop that runs no time pays only -O0's first test
    return (*pre, If(Compare("<", s.lo, s.hi, loc), (versions,),
                     (Assign(Name(s.var, loc), s.lo, loc),), loc))


def _privatise(body: tuple, original: tuple, k: Kernel, remarks: Remarks) -> tuple:
    """The fast copy's own names for the scalars private to the loop (assigned before any read
    in each iteration, read nowhere else), so later passes see the two copies apart."""
    inside = read_counts(original)
    outside = read_counts(k.body)
    for x in sorted(names_written(original)):
        sym = k.syms[x]
        if sym.kind != "scalar" or sym.role != "var" or outside.get(x, 0) != inside.get(x, 0):
            continue
        first = next((st for st in original if x in names_written((st,)) or x in read_counts((st,))),
                     None)
        if not (isinstance(first, Assign) and first.target == Name(x)) or x in read_counts((first,)):
            continue
        new = k.fresh(f"{x}_")
        k.syms[new] = Sym(new, "scalar", sym.dtype, implicit=True)
        remarks.call(new, x)  # (the source's scalar, in one version of the loop)
        body = rename_scalar(body, x, new)
    return body


def strength(k: Kernel, remarks: Remarks) -> Kernel:
    """Strength-reduce the divisions and remainders of counted loops by invariants."""
    return k.but(map_loops(k.body, lambda s: _reduce(s, k, remarks)))


