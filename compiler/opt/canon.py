"""Pass ``canon``: counted while loops become for loops, and for loops that are not counted
become while loops.

``i = lo; while i < hi do { S; i = i + 1 }``, where S does not write ``i`` or anything ``hi``
reads and has no early exit, is exactly ``for i in lo .. hi do { S }`` (INCA-Q.md defines the for
loop as that while loop), so the loop passes see one form of counted loop. The other way round,
a for loop whose body assigns its variable (``for i in 0 .. 8 do { if i < 4 then { i = i + 2 }
... }``) is not counted: it becomes that while loop, each ``continue`` of it stepping ``i``
first, as the for loop's does. So every ``For`` the later passes see runs its body once for each
i of ``lo .. hi``, in order.

First, the statements of inlined calls in an assignment (``g = gcd(my_abs(A[i]), ...)``, held
as :class:`~inca.compiler.incaq.checked.Seq` values) become statements of the block, before it,
in the order the lowering runs them (its ``hoist``: the target's, then the value's, left to
right, not inside an ``if`` value or ``and`` / ``or`` / ``not``, which run them only where they
are evaluated), so every pass sees them (the inlined ``return if x < 0 then -x else x`` becomes
a select ``ifconvert`` makes ``abs``). A call with an early return keeps its statements inside
the value (the passes take a block for straight-line code: a label there is a join).
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, Binary, Call, Compare, Continue, DoWhile, For, If, Index, Loop, Name, \
    Num, Unary, While
from ..incaq.checked import Seq, TailLoop
from .ir import Kernel, is_plain, map_stmts, names_read, names_written
from .remarks import Remarks


def _counted(init, loop) -> For | None:
    if not (isinstance(init, Assign) and isinstance(init.target, Name) and isinstance(loop, While)):
        return None
    i = init.target.id
    c = loop.cond
    if not (isinstance(c, Compare) and c.op == "<" and c.left == Name(i) and loop.body):
        return None
    step = loop.body[-1]
    if step != Assign(Name(i), Binary("+", Name(i), Num(1, False))):
        return None
    body = loop.body[:-1]
    if not is_plain(body) or i in names_written(body) or names_read(c.right) & names_written(body):
        return None
    if i in names_read(c.right) or i in names_read(init.value):
        return None
    return For(i, init.value, c.right, body, loop.loc)


def _uncounted(s: For) -> tuple:
    """``i = lo; while i < hi do { S; i = i + 1 }`` for a for loop whose body S assigns i."""
    def step() -> Assign:
        var = Name(s.var, s.loc)
        return Assign(var, Binary("+", var, Num(1, False, s.loc), s.loc), s.loc)

    def stepping(body: tuple) -> tuple:  # this loop's continues (not those of inner loops)
        out: list = []
        for x in body:
            if isinstance(x, Continue):
                out.extend((step(), x))
            elif isinstance(x, If):
                out.append(replace(x, then=stepping(x.then), orelse=stepping(x.orelse)))
            else:
                out.append(x)
        return tuple(out)

    return (Assign(Name(s.var, s.loc), s.lo, s.loc),
            While(Compare("<", Name(s.var, s.loc), s.hi, s.loc), stepping(s.body) + (step(),), s.loc))


def _unseq(e, pre: list, kept: list):
    """e without the inlined calls its evaluation runs first, whose statements are appended to
    ``pre`` (in the lowering's ``hoist`` order). A call with an early return or a tail call (a
    jump, a label: the passes take a block for straight-line code) stays where it is, and so
    does every call after it (``kept`` becomes non-empty), which must still run after it."""
    match e:
        case Seq():
            if kept or not is_plain(e.pre):
                kept.append(e)
                return e
            pre.extend(_flatten(e.pre))
            return _unseq(e.value, pre, kept)
        case Binary() | Compare():
            left = _unseq(e.left, pre, kept)
            return replace(e, left=left, right=_unseq(e.right, pre, kept))
        case Unary():
            return replace(e, operand=_unseq(e.operand, pre, kept))
        case Call():
            return replace(e, args=tuple(_unseq(a, pre, kept) for a in e.args))
        case Index():
            return replace(e, indices=tuple(_unseq(i, pre, kept) for i in e.indices))
    return e


def _flatten(body: tuple) -> tuple:
    """A block with the inlined calls of its assignments run as statements before them."""
    out: list = []
    for s in body:
        if isinstance(s, Assign):
            pre: list = []
            kept: list = []
            target = _unseq(s.target, pre, kept)
            s = replace(s, target=target, value=_unseq(s.value, pre, kept))
            out.extend(pre)
        out.append(s)
    return tuple(out)


def canon(k: Kernel, remarks: Remarks) -> Kernel:
    """Rewrite counted while loops as for loops, in every block."""
    def block(body: tuple) -> tuple:
        out: list = []
        for s in body:
            f = _counted(out[-1], s) if out else None
            if f is not None and k.syms.get(out[-1].target.id) is not None \
                    and k.syms[out[-1].target.id].dtype == "i64":
                out[-1] = f
                remarks.done(s.loc, f"while loop over {f.var} recognised as a counted loop")
            else:
                out.append(s)
        return tuple(out)

    def rebuild(s):
        if isinstance(s, For) and s.var in names_written(s.body):
            remarks.missed(s.loc, f"for loop over {s.var} is not a counted loop: its body assigns "
                           f"{s.var}")
            return _uncounted(replace(s, body=block(s.body)))
        return (_with_blocks(s, block),)

    flat = _flatten(map_stmts(k.body, lambda s: (_with_blocks(s, _flatten),)))
    return k.but(block(map_stmts(flat, rebuild)))


def _with_blocks(s, fn):
    """s with ``fn`` applied to each block directly in it (a loop's body, an if's arms)."""
    match s:
        case For() | While() | Loop() | DoWhile() | TailLoop():
            return replace(s, body=fn(s.body))
        case If():
            return replace(s, then=fn(s.then), orelse=fn(s.orelse))
    return s
