"""Pass ``canon``: counted while loops become for loops, and for loops that are not counted
become while loops.

``i = lo; while i < hi do { S; i = i + 1 }``, where S does not write ``i`` or anything ``hi``
reads and has no early exit, is exactly ``for i in lo .. hi do { S }`` (INCA-Q.md defines the for
loop as that while loop), so the loop passes see one form of counted loop. The other way round,
a for loop whose body assigns its variable (``for i in 0 .. 8 do { if i < 4 then { i = i + 2 }
... }``) is not counted: it becomes that while loop, each ``continue`` of it stepping ``i``
first, as the for loop's does. So every ``For`` the later passes see runs its body once for each
i of ``lo .. hi``, in order.
"""
from __future__ import annotations

from dataclasses import replace

from ..incaq.ast import Assign, Binary, Compare, Continue, DoWhile, For, If, Loop, Name, Num, While
from ..incaq.checked import TailLoop
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
        match s:
            case For() | While() | Loop() | DoWhile() | TailLoop():
                return (replace(s, body=block(s.body)),)
            case If():
                return (replace(s, then=block(s.then), orelse=block(s.orelse)),)
        return (s,)

    return k.but(block(map_stmts(k.body, rebuild)))
