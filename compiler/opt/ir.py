"""The loop IR the optimiser works on: the checked AST, plus vector indices.

The checked AST already keeps what the loop passes need: structured loops (``For`` with its bounds,
``While``), expression trees and index expressions. The one thing it cannot say is "many elements
at once", so the loop IR adds :class:`Span`, an index that stands for ``length`` positions
``start, start + step, ...``. An :class:`~inca.compiler.incaq.ast.Assign` whose target has a
Span is a vector statement; every Span of one statement carries the ``tag`` of the loop it came
from, which says how the operands' dimensions line up (NumPy broadcasting, aligned on the right).

A :class:`Kernel` is the checked kernel with its symbol table as a dict, so passes can add
locations (vector temporaries).

The helpers here are the vocabulary of every pass: what a statement reads and writes, affine index
expressions, substitution, folding of integer expressions.
"""
from __future__ import annotations

from typing import Callable, Iterator

from ...lang.diagnostics import Loc
from ...lang.frozen import field, fields, frozen, is_record, record, replace
from ..incaq.ast import (NOWHERE, Assign, Binary, BoolOp, Break, Call, Compare, Continue, DoWhile,
                         Expr, For, If, IfExpr, Index, Loop, Name, Not, Num, Unary, While, node_fields,
                         nodes)
from ..incaq.checked import Checked, Jump, Mark, Seq, Sym, TailLoop, type_of

I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1


@frozen
class Span:
    """A vector index: ``length`` positions from ``start`` every ``step`` (INCA-A ``lo:hi:step``).

    ``tag`` names the loop the positions came from (two Spans with one tag are the same dimension
    of the statement's iteration space)."""

    start: Expr
    length: int
    step: int
    tag: str
    loc: Loc = field(default=NOWHERE, compare=False, repr=False)


@record
class Kernel:
    """A kernel being optimised: its locations by name and its statements."""

    syms: dict[str, Sym]
    body: tuple
    params: tuple[tuple[str, int], ...] = ()
    inplace: frozenset[str] = frozenset()  # inputs --clobber lets passes overwrite

    @staticmethod
    def of(checked: Checked) -> "Kernel":
        return Kernel({s.name: s for s in checked.symbols}, checked.body, checked.params)

    def but(self, body: tuple) -> "Kernel":
        """This kernel with another body (the symbols are shared)."""
        return Kernel(self.syms, body, self.params, self.inplace)

    def copy(self, body: tuple | None = None) -> "Kernel":
        """A copy with symbols of its own (a pass's or a trial's new names stay in it), and this
        body or another."""
        return Kernel(dict(self.syms), self.body if body is None else body, self.params, self.inplace)

    def checked(self) -> Checked:
        return Checked(tuple(self.syms.values()), self.body, self.params)

    def fresh(self, stem: str) -> str:
        """A name no location has yet."""
        n = 1
        while f"{stem}{n}" in self.syms:
            n += 1
        return f"{stem}{n}"

    def fresh_scalar(self, stem: str) -> str:
        """A new kernel-private i64 scalar (a loop variable or a position a pass makes)."""
        name = self.fresh(stem)
        self.syms[name] = Sym(name, "scalar", "i64", implicit=True)
        return name

    def visible(self, name: str) -> bool:
        """Whether the host sees a location (so its final value matters)."""
        return self.syms[name].role in ("output", "inout")


# ---- walking and rewriting ---------------------------------------------------------------------

def wrap(v: int) -> int:
    """An integer as a wrapping i64."""
    return (v - I64_MIN) % (1 << 64) + I64_MIN


def map_expr(e, fn: Callable, opaque: tuple[type, ...] = ()):
    """Rebuild expression e bottom-up, applying fn to every rebuilt node (fn returns the node or
    its replacement); nodes of the ``opaque`` types are passed to fn whole, their insides left
    as they are."""
    if isinstance(e, (Num, Name) + opaque):
        return fn(e)
    if isinstance(e, (tuple, list)):
        return tuple(map_expr(x, fn, opaque) for x in e)
    names = node_fields(e)
    if names is None:
        return e
    changes = {}
    for name in names:
        v = getattr(e, name)
        if is_record(v) or isinstance(v, tuple):
            nv = map_expr(v, fn, opaque)
            if nv is not v:
                changes[name] = nv
    return fn(replace(e, **changes) if changes else e)


def with_blocks(s, block: Callable):
    """Statement s with ``block`` applied to each block nested in it (a loop's body, an if's
    arms); s itself when it has none, or when ``block`` returns every block itself."""
    match s:
        case For(body=b) | While(body=b) | Loop(body=b) | DoWhile(body=b) | TailLoop(body=b):
            nb = block(b)
            return s if nb is b else replace(s, body=nb)
        case If(then=t, orelse=o):
            nt, no = block(t), block(o)
            return s if nt is t and no is o else replace(s, then=nt, orelse=no)
    return s


def map_stmts(body: tuple, fn: Callable) -> tuple:
    """Rebuild a statement list bottom-up: fn maps one statement (whose inner blocks are already
    rebuilt) to a tuple of statements. A list fn leaves as it is (each statement mapped to
    itself alone) is returned itself, so the statements around it are not copied either."""
    out: list = []
    same = type(body) is tuple
    for s in body:
        new = fn(with_blocks(s, lambda b: map_stmts(b, fn)))
        if same and (len(new) != 1 or new[0] is not s):
            same = False
        out.extend(new)
    return body if same else tuple(out)


def map_loops(body: tuple, rewrite: Callable) -> tuple:
    """:func:`map_stmts` over the for loops only: ``rewrite(loop)`` gives the statements that
    replace a loop (its inner blocks already rebuilt), or None to keep it."""
    def fn(s):
        new = rewrite(s) if isinstance(s, For) else None
        return (s,) if new is None else new
    return map_stmts(body, fn)


def map_stmts_looped(body: tuple, fn: Callable, loop: For | None = None) -> tuple:
    """:func:`map_stmts` with ``fn(s, loop)``: ``loop`` the ``For`` whose iterations run s (s in
    its body, or in an ``if`` there), None outside counted loops and inside any other loop."""
    out: list = []
    for s in body:
        match s:
            case For(body=b):
                s = replace(s, body=map_stmts_looped(b, fn, s))
            case While(body=b) | Loop(body=b) | DoWhile(body=b) | TailLoop(body=b):
                s = replace(s, body=map_stmts_looped(b, fn, None))
            case If(then=t, orelse=o):
                s = replace(s, then=map_stmts_looped(t, fn, loop), orelse=map_stmts_looped(o, fn, loop))
        out.extend(fn(s, loop))
    return tuple(out)


def map_stmts_topdown(body: tuple, fn: Callable) -> tuple:
    """Rebuild a statement list top-down: fn maps a statement to a tuple of statements, or to
    None to keep it and look inside its blocks."""
    out: list = []
    for s in body:
        new = fn(s)
        if new is not None:
            out.extend(new)
            continue
        out.append(with_blocks(s, lambda b: map_stmts_topdown(b, fn)))
    return tuple(out)


def map_exprs_in(s, fn: Callable):
    """A statement with fn applied (by :func:`map_expr`) to each of its own expressions (not the
    statements nested in it)."""
    match s:
        case Assign(target=t, value=v):
            return replace(s, target=map_expr(t, fn), value=map_expr(v, fn))
        case For(lo=lo, hi=hi):
            return replace(s, lo=map_expr(lo, fn), hi=map_expr(hi, fn))
        case While(cond=c) | If(cond=c) | DoWhile(cond=c):
            return replace(s, cond=map_expr(c, fn))
    return s


def substitute(body, name: str, value: Expr):
    """Replace every read of scalar ``name`` in a statement list (or expression) by ``value``."""
    def fn(e):
        return value if isinstance(e, Name) and e.id == name else e
    if not isinstance(body, tuple):
        return map_expr(body, fn)
    return map_stmts(body, lambda s: (map_exprs_in(s, fn),))


def rename_scalar(body: tuple, name: str, new: str) -> tuple:
    """A block with scalar ``name`` (read or assigned) renamed ``new``."""
    def fn(e):
        return Name(new, e.loc) if isinstance(e, Name) and e.id == name else e
    return map_stmts(body, lambda s: (map_exprs_in(replace(s, target=map_expr(s.target, fn))
                                                   if isinstance(s, Assign) else s, fn),))


def stmts(body) -> Iterator:
    """Every statement of a block, nested ones included."""
    for s in body:
        yield s
        match s:
            case For(body=b) | While(body=b) | Loop(body=b) | DoWhile(body=b) | TailLoop(body=b):
                yield from stmts(b)
            case If(then=t, orelse=o):
                yield from stmts(t)
                yield from stmts(o)


def own_exprs(s) -> tuple:
    """The expressions a statement evaluates itself (not those of nested statements)."""
    match s:
        case Assign(target=Index(indices=ix), value=v):
            return (*ix, v)
        case Assign(value=v):
            return (v,)
        case For(lo=lo, hi=hi):
            return (lo, hi)
        case While(cond=c) | If(cond=c) | DoWhile(cond=c):
            return (c,)
    return ()


def names_read(e) -> set[str]:
    """Scalar and array names an expression (or a tuple of expressions) reads."""
    return _reads(e if isinstance(e, tuple) else (e,))


def names_read_in(body: tuple) -> set[str]:
    """Scalar and array names the statements of a block read (nested blocks included)."""
    return _reads([x for s in stmts(body) for x in own_exprs(s)])


def _reads(roots) -> set[str]:
    out: set[str] = set()
    for r in roots:
        for n in nodes(r):
            if isinstance(n, Name):
                out.add(n.id)
            elif isinstance(n, Index):
                out.add(n.base)
    return out


def read_counts(body) -> dict[str, int]:
    """How many times a block reads each scalar (values, indices and conditions)."""
    out: dict[str, int] = {}
    for s in stmts(body):
        for x in own_exprs(s):
            for n in nodes(x):
                if isinstance(n, Name):
                    out[n.id] = out.get(n.id, 0) + 1
    return out


def free_reads(body) -> dict[str, int]:
    """:func:`read_counts` without the reads of a loop variable inside its own ``for`` loops:
    those loops set the variable before their body runs (canon leaves ``for`` only to loops whose
    body does not write it), so a scalar read nowhere else never has its value read after a loop
    or an assignment outside them."""
    out: dict[str, int] = {}
    _free_reads(body, out, frozenset())
    return out


def _free_reads(body, out: dict[str, int], bound: frozenset) -> None:
    for s in body:
        for x in own_exprs(s):
            for n in nodes(x):
                if isinstance(n, Name) and n.id not in bound:
                    out[n.id] = out.get(n.id, 0) + 1
        match s:
            case For(var=v, body=b):
                _free_reads(b, out, bound | {v})
            case While(body=b) | Loop(body=b) | DoWhile(body=b) | TailLoop(body=b):
                _free_reads(b, out, bound)
            case If(then=t, orelse=o):
                _free_reads(t, out, bound)
                _free_reads(o, out, bound)


def written_name(s) -> str | None:
    """The name one statement assigns (a for loop its variable), or None."""
    match s:
        case Assign(target=Name(id=n)) | Assign(target=Index(base=n)) | For(var=n):
            return n
    return None


def assigned_before_read(body: tuple, name: str) -> bool:
    """Whether the first statement of a block that touches scalar ``name`` (nested statements
    counted as their enclosing one's) assigns it without reading it, so that no value of it is
    carried into the block: a loop body's private scalar."""
    for x in body:
        reads = names_read_in((x,))
        if isinstance(x, Assign) and x.target == Name(name):
            return name not in reads
        if name in reads or name in names_written((x,)):
            return False
    return False


def names_written(body: tuple) -> set[str]:
    """Names assigned anywhere in a statement list (for loop variables included)."""
    return {n for s in stmts(body) if (n := written_name(s)) is not None}


def write_counts(body: tuple) -> dict[str, int]:
    """How many statements of a statement list (nested ones included) assign each name."""
    out: dict[str, int] = {}
    for s in stmts(body):
        n = written_name(s)
        if n is not None:
            out[n] = out.get(n, 0) + 1
    return out


def is_plain(body: tuple) -> bool:
    """True when a block has no early exits, jumps or inlined-call statements in it."""
    for s in stmts(body):
        if isinstance(s, (Break, Continue, Jump, Mark, TailLoop, Loop)):
            return False
        for x in own_exprs(s):
            if any(isinstance(n, (Seq, IfExpr, BoolOp, Not)) for n in nodes(x)):
                return False
    return True


def perfect_nest(s) -> list[For] | None:
    """The loops of a perfect nest of counted loops with constant bounds (outermost first),
    whose innermost body is one assignment, if s is one of at least two loops."""
    loops = []
    while isinstance(s, For) and const_int(s.lo) is not None and const_int(s.hi) is not None:
        loops.append(s)
        if len(s.body) != 1:
            break
        s = s.body[0]
    return loops if len(loops) >= 2 and len(loops[-1].body) == 1 \
        and isinstance(loops[-1].body[0], Assign) else None


def size(body) -> int:
    """A rough measure of code size: expression nodes and statements."""
    return sum(1 + sum(1 for x in own_exprs(s) for _ in nodes(x)) for s in stmts(body))


# ---- affine index expressions --------------------------------------------------------------------

Affine = tuple[int, dict[str, int]]


def affine(e, syms: dict[str, Sym]) -> Affine | None:
    """``(const, {name: coefficient})`` of an i64 expression that is affine in i64 scalars."""
    match e:
        case Num(value=v, is_float=False):
            return int(v), {}
        case Name(id=n) if n in syms and syms[n].dtype == "i64" and syms[n].kind == "scalar":
            return 0, {n: 1}
        case Unary(op="-", operand=x):
            a = affine(x, syms)
            return None if a is None else (-a[0], {n: -c for n, c in a[1].items()})
        case Binary(op="+" | "-", left=x, right=y):
            a, b = affine(x, syms), affine(y, syms)
            if a is None or b is None:
                return None
            sign = 1 if e.op == "+" else -1
            terms = dict(a[1])
            for n, c in b[1].items():
                terms[n] = terms.get(n, 0) + sign * c
            return a[0] + sign * b[0], {n: c for n, c in terms.items() if c}
        case Binary(op="*", left=x, right=y):
            a, b = affine(x, syms), affine(y, syms)
            if a is None or b is None or (a[1] and b[1]):
                return None
            k, other = (a[0], b) if not a[1] else (b[0], a)
            return other[0] * k, {n: c * k for n, c in other[1].items() if c * k}
    return None


def affine_expr(a: Affine, loc: Loc = NOWHERE) -> Expr:
    """An expression for an affine form (terms first, then the constant)."""
    const, terms = a
    out: Expr | None = None
    for n, c in terms.items():
        term: Expr = Name(n, loc) if c == 1 else Binary("*", Num(c, False, loc), Name(n, loc), loc)
        out = term if out is None else Binary("+", out, term, loc)
    if out is None:
        return Num(const, False, loc)
    if const:
        out = Binary("+", out, Num(const, False, loc), loc)
    return out


def const_int(e) -> int | None:
    """The value of an i64 constant expression."""
    return int(e.value) if isinstance(e, Num) and not e.is_float else None


#: The calls no operand makes fault (``i64`` of an f64 does: NaN, or out of range).
_NEVER_FAULT = frozenset({"min", "max", "abs", "f64"})


def cannot_fault(e, k: Kernel, loop: For, lo: int, hi: int) -> bool:
    """Whether evaluating e in any iteration of ``loop`` (``lo .. hi``) cannot fault: no i64
    division or remainder but by a nonzero constant or a :func:`safe_divisor` (``INT64_MIN / -1``
    wraps), no conversion to i64 and no call but ``min``, ``max``, ``abs`` and ``f64``, and every
    index affine in the loop variable and inside its array over the loop's range. (f64 division
    is IEEE's: never a fault.)"""
    for node in nodes(e):
        if isinstance(node, Binary) and node.op in ("/", "%") and type_of(node, k.syms) == "i64" \
                and const_int(node.right) in (None, 0) and safe_divisor_of(node.right) is None:
            return False
        if hasattr(node, "pre") or hasattr(node, "func") and node.func not in _NEVER_FAULT:
            return False
        if isinstance(node, Index):
            for ix, dim in zip(node.indices, k.syms[node.base].shape):
                a = affine(ix, k.syms)
                if a is None or set(a[1]) - {loop.var} or dim is None:
                    return False
                step = a[1].get(loop.var, 0)
                ends = (a[0] + step * lo, a[0] + step * (hi - 1))
                if min(ends) < 0 or max(ends) >= dim:
                    return False
    return True


def safe_divisor(n: Expr) -> Expr:
    """``n + (n == 0)``: n wherever n != 0, and never 0 (rules ``safe-divisor``,
    ``safe-divisor-nonzero``)."""
    loc = n.loc
    return Binary("+", n, Compare("==", n, Num(0, False, loc), loc), loc)


def safe_divisor_of(e) -> Expr | None:
    """The n of a divisor :func:`safe_divisor` made, else None."""
    if isinstance(e, Binary) and e.op == "+" and isinstance(e.right, Compare) and e.right.op == "==" \
            and e.right.right == Num(0, False) and e.right.left == e.left:
        return e.left
    return None


def uses_outside_index(body, name: str, syms: dict[str, Sym] | None = None) -> bool:
    """Whether ``name`` is assigned, or read anywhere but inside an index expression (with
    ``syms``: anywhere but inside an affine one, which fire-time addressing computes; another is
    computed into a temporary, a value like any other)."""
    def value_use(e) -> bool:
        stack = [e]
        while stack:
            n = stack.pop()
            if isinstance(n, Name) and n.id == name:
                return True
            if isinstance(n, Index) and syms is not None:
                stack.extend(ix for ix in n.indices if not isinstance(ix, Span) and affine(ix, syms) is None)
            if isinstance(n, (Index, Span)):
                continue  # a use inside an index is an address, not a value
            if is_record(n):
                for f in fields(n):
                    v = getattr(n, f.name)
                    stack.extend(v if isinstance(v, tuple) else (v,))
        return False
    for s in stmts(body):
        match s:
            case Assign(target=Name(id=n), value=v):
                if n == name or value_use(v):
                    return True
            case Assign(target=t, value=v):
                if value_use(v) or (syms is not None and value_use(t)):
                    return True
            case _:
                if any(value_use(x) for x in own_exprs(s)):
                    return True
    return False


__all__ = ["Span", "Kernel", "map_expr", "map_stmts", "map_stmts_topdown", "map_exprs_in", "substitute", "stmts",
           "own_exprs", "rename_scalar", "read_counts", "names_read", "names_read_in", "names_written", "assigned_before_read", "is_plain", "size", "affine", "affine_expr",
           "const_int", "cannot_fault", "uses_outside_index", "wrap", "Call", "Compare"]
