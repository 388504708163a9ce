"""A rough static estimate of a block's time, for passes that choose between two forms of a loop.

It prices what the optimiser's lowering will emit by the scratchpad profile of MODEL.md: the
instructions of a statement (:func:`instructions`: its operations and the copies that start its
value and each compound right operand), at 11.5 ns each (between ``PUTL``'s 11 and an ALU
instruction's 12) for a scalar statement; a vector statement's instructions by the vector rule
``max(12, 4.5 + n/3)``; a counted loop its trip count times its body plus the two instructions a
rotated loop spends per iteration, or without them when ``unroll`` will unroll it at -O2 (every
pass that chooses by this estimate runs at -O2, and a loop of 16 vector additions priced with
the overhead unrolling removes looked dearer than the scalar form it replaces). A loop whose
trip count is not a constant is taken to run :data:`UNKNOWN_TRIP` times and an ``if`` to cost its
condition plus its dearer branch (or its cheaper one, when asked); a constant stored in a scalar
costs nothing (a loop variable's value after its loop, which ``propagate`` and ``dce`` remove).
The figure only ranks two forms of the same computation; it is not the model's time (the engines
and the pricing function give that).
"""
from __future__ import annotations

from ..incaq.ast import Assign, Binary, Call, Compare, For, If, Index, Name, Num, Unary, nodes
from .ir import Span, const_int, is_plain, names_written, own_exprs, size
from .unroll import LONG_SIZE, LONG_TRIP

SCALAR_NS = 11.5
LOOP_NS = 22.0  # ADD and BLEZ of a rotated loop, per iteration
UNKNOWN_TRIP = 16


def operations(e) -> int:
    """Instructions an expression needs besides the one that stores it (a rough count: ``abs``
    is a copy, a negation and a ``MAX``)."""
    return sum((3 if isinstance(n, Call) and n.func == "abs" else 1) for n in nodes(e)
               if isinstance(n, (Binary, Compare, Call, Unary)))


def _leaf(e) -> bool:
    return not isinstance(e, (Binary, Compare, Call, Unary))


def instructions(target, value) -> int:
    """The instructions of ``target = value`` as the lowering emits them: each operation, a copy
    that starts the value in the target (none when the value starts with the target itself,
    ``s = s + e``), and one that starts each operand that is not a leaf in a temporary."""
    ops = starts = 0
    for n in nodes(value):  # (one walk: this runs for every statement of every trial)
        if isinstance(n, (Binary, Compare)):
            ops += 1
            starts += not _leaf(n.right)
        elif isinstance(n, Call):
            ops += 3 if n.func == "abs" else 1
            starts += n.func in ("min", "max") and len(n.args) == 2 and not _leaf(n.args[1])
        elif isinstance(n, Unary):
            ops += 1
    if ops == 0:
        return 1
    first = value
    while not _leaf(first):
        first = first.args[0] if isinstance(first, Call) else (
            first.operand if isinstance(first, Unary) else first.left)
    return ops + starts + (0 if first == target else 1)


def elements(target) -> int:
    """How many elements an assignment to ``target`` writes (1 for a scalar)."""
    n = 1
    if isinstance(target, Index):
        for ix in target.indices:
            if isinstance(ix, Span):
                n *= ix.length
    return n


def vector_ns(n: int) -> float:
    """One instruction over n elements (MODEL.md's vector rule, scratchpad defaults)."""
    return SCALAR_NS if n == 1 else max(12.0, 4.5 + n / 3)


def will_unroll(s: For, trip: int) -> bool:
    """Whether -O2's ``unroll`` takes a counted loop of ``trip`` iterations as it is now."""
    return trip <= LONG_TRIP and trip * size(s.body) <= LONG_SIZE and is_plain(s.body) \
        and s.var not in names_written(s.body)


def cost(body: tuple, taken: bool = True) -> float:
    """Estimated nanoseconds of a block; an ``if`` costs its condition plus its dearer branch, or
    with ``taken`` false its cheaper one (what a rewrite that must never be slower is held to)."""
    total = 0.0
    for s in body:
        if isinstance(s, Assign):
            if isinstance(s.target, Name) and isinstance(s.value, Num):
                continue  # (a loop variable's value after its loop: propagated, then dead)
            total += instructions(s.target, s.value) * vector_ns(elements(s.target))
        elif isinstance(s, For):
            lo, hi = const_int(s.lo), const_int(s.hi)
            trip = max(0, hi - lo) if lo is not None and hi is not None else UNKNOWN_TRIP
            unrolled = lo is not None and hi is not None and will_unroll(s, trip)
            total += trip * (cost(s.body, taken) + (0.0 if unrolled else LOOP_NS))
        elif isinstance(s, If):
            arms = (cost(s.then, taken), cost(s.orelse, taken))
            total += SCALAR_NS * (1 + operations(s.cond)) + (max(arms) if taken else min(arms))
        elif hasattr(s, "body"):
            total += UNKNOWN_TRIP * (cost(s.body, taken) + LOOP_NS)
        else:
            total += SCALAR_NS * (1 + sum(operations(x) for x in own_exprs(s)))
    return total
