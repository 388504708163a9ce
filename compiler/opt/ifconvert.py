"""Pass ``ifconvert`` (-O2): conditionals become straight-line code.

A clamp ``if x < K then x = K`` (or ``if K > x``) becomes ``x = max(x, K)`` (and ``>``, ``min``),
anywhere: with K an element, a running maximum is then a reduction; ``if x < 0 then x = -x``
becomes ``x = abs(x)``; a step
``if c then x = x + 1`` (``- 1``) on an i64 scalar becomes ``x = x + c`` (rules ``if-inc`` and
``if-dec`` of rules.py). A select ``if c then { T = a } else { T = b }`` becomes one assignment of
T: ``min``, ``max``, ``abs`` or the compare itself where that is one operation (anywhere), else
``T = b + c * (a - b)`` for i64 where the loop then vectorises.

``if c then { B[n] = v; n = n + 1 }`` (a compaction: the filter kernel) becomes
``B[n] = v; n = n + c``: the value is stored whether or not it is kept, and the count moves by
the condition's truth value (1 or 0). A rejected value is overwritten by the next kept one, so
after the loop only ``B[n]`` can hold one; ``if n < len(B) then B[n] = <B's initial value>``
puts it back. No branch is left in the loop, and ``n = n + c`` is a reduction whose terms the
``reduce`` pass computes as one vector.

Exact when: c and v read neither B nor n and cannot fault (v is evaluated every iteration now);
B is a one-dimensional output or private array with one initial value, written nowhere else
and read nowhere in the loop; n is an i64 scalar written nowhere else, whose value at the loop
(its initial value: the loop is not inside another loop) plus the trip count stays within B, so
every store that was not there before is in bounds.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import (Assign, Binary, BoolOp, Call, Compare, For, If, IfExpr, Index, Name, Not, Num,
                         Unary, nodes)
from ..incaq.checked import Seq, type_of
from . import show
from .conditions import eager_safe, nonzero_guard, safe_divisions, truth_bits
from .ir import Kernel, affine, cannot_fault, const_int, is_plain, map_stmts, map_stmts_looped, \
    names_read, own_exprs, stmts, write_counts
from .remarks import Remarks
from .rules import FAST_MATH, NEGATED, SWAPPED, identity


class Converter:
    def __init__(self, k: Kernel, remarks: Remarks, fast: bool):
        self.k, self.remarks, self.fast = k, remarks, fast
        self.writes = write_counts(k.body)  # how many statements write each name

    def loop(self, s: For) -> tuple | None:
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None or hi <= lo:
            return None
        body, after, done = list(s.body), [], []
        for j, x in enumerate(body):
            parts = self.append_parts(x, s, lo, hi)
            if parts is None:
                continue
            b, n, c, v = parts
            sym = self.k.syms[b]
            keep = Num(float(sym.value) if sym.dtype == "f64" else int(sym.value),
                       sym.dtype == "f64", x.loc)
            body[j] = (Assign(Index(b, (Name(n, x.loc),), x.loc), v, x.loc),
                       Assign(Name(n, x.loc), Binary("+", Name(n, x.loc), truth_bits(c, self.k.syms),
                                                     x.loc), x.loc))
            size = Num(sym.shape[0], False, x.loc)
            after.append(If(Compare("<", Name(n, x.loc), size, x.loc),
                            (Assign(Index(b, (Name(n, x.loc),), x.loc), keep, x.loc),), (), x.loc))
            done.append((x.loc, f"conditional append to {b} if-converted: stored every "
                                f"iteration, {n} counts by the condition"))
        if not done:
            return None
        flat = tuple(y for x in body for y in (x if isinstance(x, tuple) else (x,)))
        new = (replace(s, body=flat), *after)
        # a value stored in every iteration costs more than a branch the loop never takes, unless
        # the passes that follow make the loop cheaper: no slower than the untaken branch
        from .distribute import after_loop_passes

        if after_loop_passes(self.k, new, self.fast) > after_loop_passes(self.k, (s,), self.fast,
                                                                          taken=False):
            for loc, _ in done:
                self.remarks.missed(loc, "conditional append kept as a branch: storing in every "
                                    "iteration would cost more than a branch that is not taken")
            return None
        for loc, what in done:
            self.remarks.done(loc, what)
        return new

    def append_parts(self, x, loop: For, lo: int, hi: int):
        """(B, n, condition, value) of ``if c then { B[n] = v; n = n + 1 }``, if it is safe."""
        if not (isinstance(x, If) and not x.orelse and len(x.then) == 2):
            return None
        store, step = x.then
        if not (isinstance(store, Assign) and isinstance(store.target, Index)
                and len(store.target.indices) == 1 and isinstance(store.target.indices[0], Name)):
            return None
        b, n = store.target.base, store.target.indices[0].id
        if step != Assign(Name(n), Binary("+", Name(n), Num(1, False))):
            return None
        c, v = x.cond, store.value
        if not isinstance(c, (Compare, BoolOp, Not)) or {b, n} & (names_read(c) | names_read(v)):
            return None
        bsym, nsym = self.k.syms[b], self.k.syms[n]
        if bsym.role not in ("output", "var") or len(bsym.shape) != 1 or isinstance(bsym.value, tuple):
            return None
        if nsym.kind != "scalar" or nsym.dtype != "i64" or isinstance(nsym.value, tuple):
            return None
        if self.writes.get(b, 0) != 1 or self.writes.get(n, 0) != 1:
            return None
        if b in names_read(tuple(e for y in stmts(loop.body) for e in own_exprs(y))):
            return None
        if not 0 <= int(nsym.value) or int(nsym.value) + (hi - lo) > bsym.shape[0]:
            return None
        if type_of(v, self.k.syms) != bsym.dtype and bsym.dtype == "i64":
            return None  # a conversion to i64 may fault
        if not (cannot_fault(c, self.k, loop, lo, hi) and cannot_fault(v, self.k, loop, lo, hi)):
            return None
        return b, n, c, v


def _clamp(s, k: Kernel, remarks: Remarks, flags: frozenset[str]) -> tuple:
    """``if x < K then x = K`` is ``x = max(x, K)`` (``>``: min; ``K > x`` is ``x < K``; x a scalar
    or an element): one ALU instruction for a compare and a branch. K is evaluated once instead
    of twice, to the same value (it reads nothing of x's and calls no function), and x's index
    is evaluated as often as before, so only the order of faults may change. Exact for i64 (rules ``clamp<`` ... ``clamp>=``); for f64,
    max(-0.0, 0.0) is 0.0 where the branch keeps -0.0, max(x, NaN) is NaN where it keeps x, and a
    NaN x keeps its own bits (a sign bit set) where MAX gives the canonical NaN, so only with
    -Ofast's flags (zeros' signs ignored, no NaN): a constant K other than 0 was taken as exact
    until the kernel fuzzer met -inf - -inf."""
    if not (isinstance(s, If) and not s.orelse and len(s.then) == 1):
        return (s,)
    c, a = s.cond, s.then[0]
    if not (isinstance(c, Compare) and c.op in ("<", "<=", ">", ">=") and isinstance(a, Assign)
            and isinstance(a.target, (Name, Index))):
        return (s,)
    if c.left == a.target and a.value == c.right:
        op, x, bound = c.op, c.left, c.right
    elif c.right == a.target and a.value == c.left:
        op, x, bound = SWAPPED[c.op], c.right, c.left
    else:
        return (s,)
    base = x.id if isinstance(x, Name) else x.base
    dtype = type_of(x, k.syms)
    if base in names_read(bound) or type_of(bound, k.syms) != dtype \
            or any(isinstance(n, Seq) for e in (bound, x) for n in nodes(e)):
        return (s,)
    name = show.expr(x)
    if dtype == "f64" and not FAST_MATH <= flags:
        remarks.missed(s.loc, f"if on {name} kept as a branch: as {'max' if op in ('<', '<=') else 'min'} "
                       "it would differ on NaN and on -0.0 (use -Ofast)")
        return (s,)
    if dtype == "i64":
        identity(f"clamp{op}")
    func = "max" if op in ("<", "<=") else "min"
    remarks.done(s.loc, f"if on {name} turned into {func}({name}, {show.expr(bound)})")
    return (Assign(x, Call(func, (x, bound), s.loc), s.loc),)


def _abs(s, k: Kernel, flags: frozenset[str]) -> tuple[Assign | None, str | None]:
    """``if x < 0 then x = -x`` (``<=``, ``0 > x``, ``0 - x``) as ``x = abs(x)``: exact for i64
    (rules ``if-abs<``, ``if-abs<=``: both wrap at the most negative value); for f64 only with
    -Ofast's flags (abs(-0.0) is 0.0 where the branch keeps -0.0). (The assignment, or None and
    why not when only the type stands in the way.)"""
    if not (isinstance(s, If) and not s.orelse and len(s.then) == 1 and isinstance(s.cond, Compare)):
        return None, None
    c, a = s.cond, s.then[0]
    if c.op in ("<", "<=") and isinstance(c.left, Name) and _zero(c.right):
        op, x, zero = c.op, c.left, c.right
    elif c.op in (">", ">=") and isinstance(c.right, Name) and _zero(c.left):
        op, x, zero = SWAPPED[c.op], c.right, c.left
    else:
        return None, None
    negated = isinstance(a, Assign) and a.target == x and (
        isinstance(a.value, Unary) and a.value.op == "-" and a.value.operand == x
        or isinstance(a.value, Binary) and a.value.op == "-" and _zero(a.value.left)
        and a.value.right == x)
    sym = k.syms[x.id]
    if not negated or sym.kind != "scalar" or type_of(zero, k.syms) != sym.dtype:
        return None, None
    if sym.dtype == "f64" and not FAST_MATH <= flags:
        return None, f"if on {x.id} kept as a branch: as abs it would differ on -0.0 (use -Ofast)"
    if sym.dtype == "i64":
        identity(f"if-abs{op}")
    return Assign(x, Call("abs", (x,), s.loc), s.loc), None


def _swap(s, k: Kernel, flags: frozenset[str], local: set[str]) -> tuple[tuple | None, str | None]:
    """``if A > B then { t = A; A = B; B = t }`` (a compare-exchange: a sorting network's step)
    as ``t = A; A = min(A, B); B = max(B, t)``: each of A and B gets a select of the two (rules
    ``select>-swapped`` and ``select>``; ``<`` and ``<=`` the other way round), three operations
    and no branch, so a loop of them vectorises. A and B are read by the compare whatever it
    decides, so no new fault; their indices are affine and read neither t nor A or B; t is a
    private scalar of their type that every block reading it assigns first (``local``), so the
    value it now gets when nothing is swapped is never read. Exact for i64; f64 only at -Ofast
    (a NaN is never swapped but MIN and MAX give NaN; -0.0 and 0.0). Returns the statements (or
    None) and why an exchange is kept (or None)."""
    if not (isinstance(s, If) and not s.orelse and len(s.then) == 3 and isinstance(s.cond, Compare)
            and s.cond.op in ("<", "<=", ">", ">=") and all(isinstance(x, Assign) for x in s.then)):
        return None, None
    (x0, x1, x2), c = s.then, s.cond
    t = x0.target
    if not (isinstance(t, Name) and x1.target == x0.value and x1.value == x2.target
            and x2.value == t and {x0.value, x2.target} == {c.left, c.right}):
        return None, None
    first, second = c.left, c.right  # swapped when first OP second
    syms = k.syms
    scalars = {e.id for e in (first, second) if isinstance(e, Name)}
    dtype = type_of(first, syms)
    if t.id not in local or syms[t.id].role != "var" or syms[t.id].dtype != dtype \
            or type_of(second, syms) != dtype or t.id in scalars:
        return None, None
    for e in (first, second):
        if isinstance(e, Index) and any(affine(i, syms) is None or names_read(i) & (scalars | {t.id})
                                        for i in e.indices):
            return None, None
    if dtype == "f64" and not FAST_MATH <= flags:
        return None, (f"compare-exchange of {show.expr(first)} and {show.expr(second)} kept as a "
                      "branch: as min and max it would differ on NaN and on -0.0 (use -Ofast)")
    if dtype == "i64":
        identity(f"select{c.op}")
        identity(f"select{c.op}-swapped")
    low, high = ("min", "max") if c.op in (">", ">=") else ("max", "min")
    return (Assign(t, first, x0.loc), Assign(first, Call(low, (first, second), s.loc), x1.loc),
            Assign(second, Call(high, (second, t), s.loc), x2.loc)), None


def _assigned_first(body: tuple) -> set[str]:
    """The names every block that reads them (in its own statements' expressions) assigns
    before, in that block: such a name carries no value out of a block (a swap's temporary)."""
    read_first: set[str] = set()
    seen: set[str] = set()
    _scan_block(body, read_first, seen)
    return seen - read_first


def _scan_block(b: tuple, read_first: set[str], seen: set[str]) -> None:
    """Add to ``read_first`` the names block b (or a block in it) reads before assigning them,
    and to ``seen`` the names it assigns."""
    assigned: set[str] = set()
    for x in b:
        for e in own_exprs(x):
            read_first.update(names_read(e) - assigned)
        if isinstance(x, Assign) and isinstance(x.target, Name):
            assigned.add(x.target.id)
            seen.add(x.target.id)
        for inner in (getattr(x, "body", None), getattr(x, "then", None), getattr(x, "orelse", None)):
            if isinstance(inner, tuple):
                _scan_block(inner, read_first, seen)


def _in_loop(s, k: Kernel, remarks: Remarks, flags: frozenset[str], local: set[str]) -> tuple:
    """In an innermost loop, the ``if x < 0 then x = -x`` as ``x = abs(x)``, the other
    two-armed selects as ``T = b + c * (a - b)`` (:func:`_arith_select`) and the
    compare-exchanges as a min and a max (:func:`_swap`), when the loop then vectorises, or the
    loop passes that follow make it cheaper than with the branches (both tried on a copy of the
    kernel: a split loop whose part becomes a vector; than with no exchange taken, if there is
    one). A scalar abs (two operations and a MAX) costs about what the branch does, the select's
    arithmetic more, and an exchange one ALU instruction more than its compare's branch not
    taken, so elsewhere the branches stay."""
    if not isinstance(s, For) or any(isinstance(x, For) for x in s.body):
        return (s,)
    lo, hi = const_int(s.lo), const_int(s.hi)
    body, done, swaps = [], [], False
    for x in s.body:
        exchange, why = _swap(x, k, flags, local)
        if why:
            remarks.missed(x.loc, why)
        if exchange is not None:
            done.append((x.loc, f"compare-exchange of {show.expr(exchange[1].target)} and "
                                f"{show.expr(exchange[2].target)} turned into {exchange[1].value.func} "
                                f"and {exchange[2].value.func}"))
            body.extend(exchange)
            swaps = True
            continue
        new, why = _abs(x, k, flags)
        if why:
            remarks.missed(x.loc, why)
        if new is not None:
            done.append((x.loc, f"if on {new.target.id} turned into abs({new.target.id})"))
        elif lo is not None and hi is not None:
            new = _arith_select(x, k, s, lo, hi)
            if new is not None:
                done.append((x.loc, f"if/else on {show.expr(new.target)} turned into "
                                    f"{show.expr(new.target)} = {show.expr(new.value)}"))
        body.append(x if new is None else new)
    if not done or not is_plain(tuple(body)):
        return (s,)
    converted = replace(s, body=tuple(body))
    why = "so the loop vectorises"
    if not _vectorises(converted, k):
        from .distribute import after_loop_passes

        fast = flags >= FAST_MATH
        if after_loop_passes(k, (converted,), fast) >= after_loop_passes(k, (s,), fast, taken=not swaps):
            return (s,)
        why = "so it vectorises once the loop is distributed"
    for loc, what in done:
        remarks.done(loc, f"{what}, {why}")
    return (converted,)


def _negation(e, x) -> bool:
    """Whether e is ``-x`` or ``0 - x``."""
    return isinstance(e, Unary) and e.op == "-" and e.operand == x or (
        isinstance(e, Binary) and e.op == "-" and _zero(e.left) and e.right == x)


def _arms(s) -> tuple | None:
    """(T, c, a, b) of ``if c then { T = a } else { T = b }``, or of ``T = if c then a else b``
    (which an inlined ``return if ...`` leaves; nothing inlined in either)."""
    if isinstance(s, Assign) and isinstance(s.value, IfExpr):
        v = s.value
        if any(isinstance(n, (Seq, IfExpr)) for e in (v.cond, v.then, v.orelse, s.target)
               for n in nodes(e) if n is not v):
            return None
        return s.target, v.cond, v.then, v.orelse
    if not (isinstance(s, If) and len(s.then) == 1 and len(s.orelse) == 1):
        return None
    ta, tb = s.then[0], s.orelse[0]
    if not (isinstance(ta, Assign) and isinstance(tb, Assign) and ta.target == tb.target):
        return None
    if any(isinstance(n, Seq) for e in (s.cond, ta.value, tb.value, ta.target) for n in nodes(e)):
        return None
    return ta.target, s.cond, ta.value, tb.value


def _select(s, k: Kernel, remarks: Remarks, flags: frozenset[str], loop: For | None) -> tuple:
    """``if c then { T = a } else { T = b }`` as one assignment of T where one operation does
    what the branch does, so anywhere: arms that are c's operands as ``min`` or ``max`` (rules
    ``select<`` ... ``select>=-swapped``), arms 1 and 0 as c itself, 0 and 1 as c's negation
    (i64 operands: rules ``select-bool``, ``select-not<`` ...) or ``1 - c`` (rule
    ``select-not``), ``x`` and its negation as ``abs(x)`` (rules ``if-abs<``, ``if-abs<=``,
    ``select-abs>``, ``select-abs>=``). c's operands are evaluated either way, so no fault moves.
    Exact for i64; for f64, min, max and abs differ on NaN or -0.0, so only with -Ofast's flags
    (a missed remark otherwise). A condition with ``and``, ``or`` or ``not`` takes arms 1 and 0
    (or 0 and 1) only, as its :func:`.conditions.truth_bits`, in a counted ``loop`` where what
    short-circuiting skips cannot fault."""
    arms = _arms(s)
    if arms is None:
        return (s,)
    t, c, a, b = arms
    dtype, syms, loc = type_of(t, k.syms), k.syms, s.loc
    one, zero = Num(1, False), Num(0, False)
    value, rule, func = None, None, None
    if not isinstance(c, Compare):
        if dtype == "i64" and (a, b) in ((one, zero), (zero, one)) and eager_safe(c, k, loop):
            value, rule = truth_bits(c if a == one else Not(c, loc), syms), "select-bool"
    elif dtype == "i64" and type_of(c, syms) == "i64" and a == one and b == zero:
        value, rule = c, "select-bool"
    elif dtype == "i64" and type_of(c, syms) == "i64" and a == zero and b == one:
        if type_of(c.left, syms) == "i64":  # (an f64 compare's negation differs on NaN)
            value, rule = replace(c, op=NEGATED[c.op]), f"select-not{c.op}"
        else:
            value, rule = Binary("-", Num(1, False, loc), c, loc), "select-not"
    elif c.op in ("<", "<=", ">", ">=") and type_of(c.left, syms) == dtype == type_of(c.right, syms):
        x, op = None, c.op
        if _zero(c.right) and type_of(c.right, syms) == dtype:
            x = c.left
        elif _zero(c.left):
            x, op = c.right, SWAPPED[c.op]
        if x is not None and op in ("<", "<=") and _negation(a, x) and b == x:
            func, rule = "abs", f"if-abs{op}"
        elif x is not None and op in (">", ">=") and a == x and _negation(b, x):
            func, rule = "abs", f"select-abs{op}"
        if func is not None:
            value = Call("abs", (x,), loc)
        elif (a, b) in ((c.left, c.right), (c.right, c.left)) and a != b:
            swapped = a == c.right
            func = "min" if (c.op in ("<", "<=")) != swapped else "max"
            rule = f"select{c.op}" + ("-swapped" if swapped else "")
            value = Call(func, (c.left, c.right), loc)
    if value is None and isinstance(c, Compare):
        value, func, rule = _nested_clamp(c, a, b) or (None, None, None)
    if value is None:
        return (s,)
    name = show.expr(t)
    if dtype == "f64":
        # (not even with a nonzero constant arm: a NaN x fails the test and keeps its own bits,
        # sign included, where MIN and MAX give the canonical NaN)
        if not FAST_MATH <= flags:
            differs = "-0.0" if func == "abs" else "NaN and on -0.0"
            remarks.missed(loc, f"if/else on {name} kept as a branch: as {func} it would differ "
                           f"on {differs} (use -Ofast)")
            return (s,)
    else:
        identity(rule)
    new = Assign(t, value, loc)
    remarks.done(loc, f"if/else on {name} turned into {name} = {show.expr(value)}")
    return (new,)


def _nested_clamp(c: Compare, a, b) -> tuple | None:
    """(value, func, rule) of a clamp written as two selects, its inner one already a min or a
    max: ``if x < k then k else min(x, h)`` is ``max(min(x, h), k)`` and ``if x > h then h else
    max(x, k)`` is ``min(max(x, k), h)``, k and h constants with k <= h (rules ``clamp-select<``
    ... ``clamp-select>=``). For f64 only at -Ofast, as every select made a min or a max."""
    if isinstance(c.right, Num):
        x, op, bound = c.left, c.op, c.right
    elif isinstance(c.left, Num):
        x, op, bound = c.right, SWAPPED[c.op], c.left
    else:
        return None
    if a != bound or not (isinstance(b, Call) and b.func in ("min", "max") and len(b.args) == 2):
        return None
    inner, other = b.args if b.args[0] == x else b.args[::-1]
    if inner != x or not isinstance(other, Num) or other.is_float != bound.is_float:
        return None
    if op in ("<", "<=") and b.func == "min" and bound.value <= other.value:
        return Call("max", (Call("min", (x, other), b.loc), bound), c.loc), "max", f"clamp-select{op}"
    if op in (">", ">=") and b.func == "max" and other.value <= bound.value:
        return Call("min", (Call("max", (x, other), b.loc), bound), c.loc), "min", f"clamp-select{op}"
    return None


def _arith_select(s, k: Kernel, loop: For, lo: int, hi: int) -> Assign | None:
    """``if c then { T = a } else { T = b }`` on an i64 T as ``T = b + c * (a - b)`` (rule
    ``select-arith``, wrapping; c as its :func:`.conditions.truth_bits`): both arms are evaluated now,
    and all of c, so none of them may fault anywhere in the loop's range."""
    arms = _arms(s)
    if arms is None:
        return None
    t, c, a, b = arms
    syms = k.syms
    if not (type_of(t, syms) == type_of(a, syms) == type_of(b, syms) == type_of(c, syms) == "i64"):
        return None
    a, b = _guarded(c, a, b, syms)
    if not (cannot_fault(a, k, loop, lo, hi) and cannot_fault(b, k, loop, lo, hi)
            and eager_safe(c, k, loop)):
        return None
    c = truth_bits(c, syms)
    identity("select-arith")
    loc = s.loc
    return Assign(t, Binary("+", b, Binary("*", c, Binary("-", a, b, loc), loc), loc), loc)


def _guarded(c, a, b, syms) -> tuple:
    """The arms of a select on ``n != 0`` (``n == 0``: the else arm) with each i64 division or
    remainder by n in the arm taken where n != 0 dividing by ``n + (n == 0)`` instead
    (:func:`.conditions.safe_divisions`): the same value there, and no fault where the arm is not taken
    but now evaluated (``if Y[i] != 0 then Z[i] = X[i] / Y[i] else Z[i] = 0``)."""
    return safe_divisions(a, nonzero_guard(c, True), syms), safe_divisions(b, nonzero_guard(c, False), syms)


def _vectorises(s: For, k: Kernel) -> bool:
    from .vectorise import Refused, Vectoriser

    try:
        Vectoriser(k.copy(), Remarks()).vectorise(s)
    except Refused:
        return False
    return True


def _zero(e) -> bool:
    return isinstance(e, Num) and e.value == 0


def _step(s, k: Kernel, remarks: Remarks, loop: For | None) -> tuple:
    """``if c then x = x + 1`` (``- 1``) on an i64 scalar x is ``x = x + c`` (rules ``if-inc``,
    ``if-dec``): c is evaluated once either way, and the step cannot fault. A condition with
    ``and``, ``or`` or ``not`` is added as its :func:`.conditions.truth_bits`, in a counted ``loop``
    where what short-circuiting skips cannot fault."""
    if not (isinstance(s, If) and not s.orelse and len(s.then) == 1
            and (isinstance(s.cond, Compare) or eager_safe(s.cond, k, loop))):
        return (s,)
    a = s.then[0]
    if not (isinstance(a, Assign) and isinstance(a.target, Name) and isinstance(a.value, Binary)
            and a.value.op in ("+", "-") and a.value.left == a.target
            and a.value.right == Num(1, False)):
        return (s,)
    sym = k.syms[a.target.id]
    if sym.kind != "scalar" or sym.dtype != "i64":
        return (s,)
    identity("if-inc" if a.value.op == "+" else "if-dec")
    truth = truth_bits(s.cond, k.syms)
    remarks.done(s.loc, f"if on {a.target.id} turned into {a.target.id} = {a.target.id} "
                 f"{a.value.op} {show.expr(truth)}")
    return (Assign(a.target, Binary(a.value.op, a.target, truth, a.loc), s.loc),)


def ifconvert(k: Kernel, remarks: Remarks, flags: frozenset[str] = frozenset()) -> Kernel:
    """If-convert clamps and steps anywhere (``flags``: the fast-math ones granted), and the
    conditional appends of the kernel's top-level counted loops (a loop nested in another would
    start with the count the outer loop left, which is not known)."""
    k = k.but(map_stmts(k.body, lambda s: _clamp(s, k, remarks, flags)))
    k = k.but(map_stmts_looped(k.body, lambda s, loop: _select(s, k, remarks, flags, loop)))
    local = _assigned_first(k.body)
    k = k.but(map_stmts(k.body, lambda s: _in_loop(s, k, remarks, flags, local)))
    k = k.but(map_stmts_looped(k.body, lambda s, loop: _step(s, k, remarks, loop)))
    conv = Converter(k, remarks, FAST_MATH <= flags)
    out = []
    for s in k.body:
        new = conv.loop(s) if isinstance(s, For) else None
        out.extend(new if new is not None else (s,))
    return k.but(tuple(out))
