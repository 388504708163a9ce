"""What ``--clobber`` may overwrite, proven safe on the checked AST.

``--clobber`` lets the compiler destroy inputs (the host's data), never change an output. Two
uses, both needing the same fact: *each element of input X is read at most once in a run*.

- In-place evaluation: ``a OP b`` with ``a = X[idx]`` is computed into ``X[idx]`` itself instead
  of a temporary (the paper's clobber dot product: ``MUL A[i], A[i], B[i]; ADD c, c, A[i]``).
- Output in input storage: output O is stored in X's buffer when O is only ever written, at one
  place, as ``O[idx] = <expr reading X[idx]>`` with the same index (the paper's clobber Hadamard
  product then computes ``MUL A[i][j], A[i][j], B[i][j]``), and that place certainly writes every
  element of O: it is nested only in for loops with constant bounds whose ranges cover each
  dimension (no if, no while, no early return around it). An element O never wrote would
  otherwise show X's value instead of 0.

Loops left early count too: a ``do ... while``, a ``loop`` and a function whose tail calls became a
loop are loops that are not counted; a while loop with a ``continue`` of its own is not counted (it
skips the step, so its variable may take a value twice); and a ``break``, ``continue`` or early
return anywhere inside a for loop means its body may not run in full.

"Read at most once" is shown conservatively: X is never written, X is read at exactly one place
in the program, and that place runs once per iteration of counted loops whose variables index
distinct dimensions of X with coefficient 1 or -1 (so no element is read twice).
"""
from __future__ import annotations

from ...lang.frozen import field, fields, frozen, is_record, record, replace
from .ast import (Assign, Binary, BoolOp, Break, Call, Compare, Continue, DoWhile, For, If, IfExpr,
                  Index, Loop, Name, Not, Num, Unary, While, nodes, statements)
from .checked import Checked, Jump, Mark, Seq, TailLoop


@record
class _Site:
    """One place an array is read or written, with the counted loops around it."""

    node: Index
    loops: tuple[str | None, ...]  # loop variables, None for a loop that is not counted
    stmt: object = None
    ranges: dict[str, tuple[int, int]] | None = None  # constant for-loop ranges; None: not sure to run


@record
class _Scan:
    reads: dict[str, list[_Site]] = field(default_factory=dict)
    writes: dict[str, list[_Site]] = field(default_factory=dict)


def _assigned(body) -> set[str]:
    """Scalar names assigned anywhere in a statement list (loop variables included)."""
    out: set[str] = set()
    for s in statements(body):
        match s:
            case Assign(target=Name(id=n)) | For(var=n):
                out.add(n)
    return out


def _counted_var(loop) -> str | None:
    """The variable of a counted loop: a for, or ``while v < e { ...; v = v + 1 }``, whose body
    does not otherwise assign it (so it takes each value once)."""
    if isinstance(loop, For):
        v, body = loop.var, loop.body
    else:
        c, body = loop.cond, loop.body
        if not (isinstance(c, Compare) and c.op == "<" and isinstance(c.left, Name) and body):
            return None
        if _continues(body):  # `continue` skips the step: the variable would take a value again
            return None
        v = c.left.id
        if body[-1] != Assign(Name(v), Binary("+", Name(v), Num(1, False))):
            return None
        body = body[:-1]
    return None if v in _assigned(body) else v


def _continues(body) -> bool:
    """Whether a loop body has a ``continue`` of its own (not one of a nested loop's)."""
    for s in body:
        if isinstance(s, Continue):
            return True
        if isinstance(s, If) and (_continues(s.then) or _continues(s.orelse)):
            return True
    return False


def _has_jump(node) -> bool:
    """Whether an early exit (a return's Jump, a break or a continue) is anywhere inside a node."""
    # iterative: an expression may be a chain of 2,000 operators
    return any(isinstance(n, (Jump, Break, Continue)) for n in nodes(node))


def _scan(body, scan: _Scan, loops: tuple, ranges: dict | None = None) -> None:
    """Record the array sites of a statement list; ``ranges`` is None unless every statement of
    the list certainly runs once per iteration of its for loops (the constant ranges given)."""
    if ranges is not None and _has_jump(tuple(body)):
        ranges = None
    for s in body:
        match s:
            case Assign(target=t, value=v):
                if isinstance(t, Index):
                    scan.writes.setdefault(t.base, []).append(_Site(t, loops, s, ranges))
                    for i in t.indices:
                        _expr(i, scan, loops, s)
                _expr(v, scan, loops, s)
            case While(cond=c, body=b):
                inner = loops + (_counted_var(s),)
                _expr(c, scan, inner, s)
                _scan(b, scan, inner)
            case For(var=v, lo=lo, hi=hi, body=b):
                _expr(lo, scan, loops, s)
                inner = loops + (_counted_var(s),)
                _expr(hi, scan, inner, s)
                constant = isinstance(lo, Num) and isinstance(hi, Num) and inner[-1] is not None
                _scan(b, scan, inner, {**ranges, v: (lo.value, hi.value)}
                      if ranges is not None and constant else None)
            case If(cond=c, then=t, orelse=o):
                _expr(c, scan, loops, s)
                _scan(t, scan, loops)
                _scan(o, scan, loops)
            case DoWhile(body=b, cond=c):
                _scan(b, scan, loops + (None,))
                _expr(c, scan, loops + (None,), s)
            case Loop(body=b) | TailLoop(body=b):
                _scan(b, scan, loops + (None,))
            case Jump() | Mark() | Break() | Continue():
                pass


def _expr(e, scan: _Scan, loops: tuple, stmt) -> None:
    match e:
        case Index(base=b, indices=ix):
            scan.reads.setdefault(b, []).append(_Site(e, loops, stmt))
            for i in ix:
                _expr(i, scan, loops, stmt)
        case Seq(pre=pre, value=v):
            _scan(pre, scan, loops)
            _expr(v, scan, loops, stmt)
        case Binary(left=a, right=b) | Compare(left=a, right=b) | BoolOp(left=a, right=b):
            _expr(a, scan, loops, stmt)
            _expr(b, scan, loops, stmt)
        case Unary(operand=x) | Not(operand=x):
            _expr(x, scan, loops, stmt)
        case IfExpr(cond=c, then=a, orelse=b):
            for x in (c, a, b):
                _expr(x, scan, loops, stmt)
        case Call(args=args):
            for a in args:
                _expr(a, scan, loops, stmt)


def _loop_var_of(e) -> tuple[str | None, bool]:
    """(variable, ok) of an index that is ``v``, ``v + k``, ``v - k``, ``k - v`` or a constant."""
    match e:
        case Num(is_float=False):
            return None, True
        case Name(id=v):
            return v, True
        case Binary(op="+" | "-", left=Name(id=v), right=Num(is_float=False)):
            return v, True
        case Binary(op="+", left=Num(is_float=False), right=Name(id=v)):
            return v, True
        case Binary(op="-", left=Num(is_float=False), right=Name(id=v)):
            return v, True
    return None, False


def _covered(e, ranges: dict[str, tuple[int, int]]) -> tuple[int, int] | None:
    """The first and last index an index of :func:`_loop_var_of`'s forms takes over ``ranges``."""
    match e:
        case Name(id=v) if v in ranges:
            lo, hi = ranges[v]
            return lo, hi - 1
        case Binary(op="+", left=Name() as x, right=Num(value=k)) | \
                Binary(op="+", left=Num(value=k), right=Name() as x):
            span = _covered(x, ranges)
            return (span[0] + k, span[1] + k) if span else None
        case Binary(op="-", left=Name() as x, right=Num(value=k)):
            span = _covered(x, ranges)
            return (span[0] - k, span[1] - k) if span else None
        case Binary(op="-", left=Num(value=k), right=Name() as x):
            span = _covered(x, ranges)
            return (k - span[1], k - span[0]) if span else None
    return None


def _writes_all(site: _Site, shape: tuple[int, ...]) -> bool:
    """True when ``site`` (already known to write each element at most once) writes them all."""
    if site.ranges is None or any(lo >= hi for lo, hi in site.ranges.values()):
        return False
    return all(_covered(i, site.ranges) == (0, n - 1) for i, n in zip(site.node.indices, shape))


def _once(site: _Site) -> bool:
    """True when ``site`` touches each element at most once in a run (see module docstring)."""
    if any(v is None for v in site.loops):
        return False
    used = []
    for i in site.node.indices:
        v, ok = _loop_var_of(i)
        if not ok or (v is not None and v not in site.loops):
            return False
        if v is not None:
            used.append(v)
    return sorted(used) == sorted(site.loops) and len(set(used)) == len(used)


@frozen
class Plan:
    """Inputs that may be evaluated into in place, and outputs stored in an input's buffer."""

    inplace: frozenset[str]
    aliases: tuple[tuple[str, str], ...]  # (output, input whose storage it takes)


def plan(checked: Checked) -> Plan:
    """Decide what --clobber may overwrite in this kernel."""
    scan = _Scan()
    _scan(checked.body, scan, (), {})
    syms = {s.name: s for s in checked.symbols}
    once = {name for name, sites in scan.reads.items()
            if syms[name].role == "input" and name not in scan.writes and len(sites) == 1
            and _once(sites[0])}
    aliases = []
    for out, writes in scan.writes.items():
        o = syms[out]
        if o.role != "output" or out in scan.reads or len(writes) != 1 or not _once(writes[0]) \
                or not _writes_all(writes[0], o.shape):
            continue
        w = writes[0]
        for x in sorted(once):
            xs = syms[x]
            site = scan.reads[x][0]
            if (xs.dtype, xs.shape) == (o.dtype, o.shape) and site.stmt is w.stmt and \
                    site.node.indices == w.node.indices and x not in {a for _, a in aliases}:
                aliases.append((out, x))
                break
    taken = {x for _, x in aliases}
    return Plan(frozenset(once - taken), tuple(aliases))


def _rename(node, mapping: dict[str, str]):
    """A copy of a checked node with every element of an array in ``mapping`` renamed."""
    if isinstance(node, tuple):
        return tuple(_rename(n, mapping) for n in node)
    if isinstance(node, Index) and node.base in mapping:
        return Index(mapping[node.base], _rename(node.indices, mapping), node.loc)
    if is_record(node):
        changes = {f.name: _rename(getattr(node, f.name), mapping) for f in fields(node)
                   if f.name != "loc"}
        return replace(node, **changes)
    return node


def store_in_inputs(checked: Checked, aliases: tuple[tuple[str, str], ...]) -> Checked:
    """Rewrite the body so each aliased output is computed directly in its input's buffer."""
    if not aliases:
        return checked
    return replace(checked, body=_rename(checked.body, dict(aliases)))
