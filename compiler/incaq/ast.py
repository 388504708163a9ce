"""The INCA-Q syntax tree: what the parser produces and the checker, inliner and lowering consume.

Every node is a frozen dataclass with a ``loc`` (where it was written). Locations do not take part
in equality, so a parsed tree compares equal to one built by hand, and two programs that differ only
in layout have equal trees. Sequences are tuples, so trees are hashable and immutable.

What each node's ``loc`` spans:

- expressions, assignments, call statements, returns and types: the whole node (``end_col`` is
  None when the node spans several lines);
- ``While``, ``If``, ``For``, ``DoWhile``, ``Loop``, ``Break`` and ``Continue``: their keyword;
- ``Func``, ``FuncParam``, ``Param``, ``VarDecl`` and ``Use``: the declared name;
- ``Module``: line 1, column 1 of the file.

:func:`dump` prints a tree as stable, indented text (``incac --emit ast`` and golden tests).
"""
from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from operator import attrgetter

from ...lang.diagnostics import Loc
from ...lang.frozen import field, fields, frozen, is_record

#: The location of nodes built without one (by hand, in tests or by later passes).
NOWHERE = Loc("<nowhere>", 0, 0)


#: The longest chain of one left-associative operator (``a + b + ...``, 2,001 operands) a kernel may
#: write. The passes walk such a chain recursively, a few frames per operand, inside
#: :func:`room_for_chains`.
MAX_CHAIN = 2000


@contextmanager
def room_for_chains() -> Iterator[None]:
    """Raise Python's recursion limit for one pass over a syntax tree, so that a chain of
    MAX_CHAIN operators (nesting is bounded much lower by the parser) fits; restored after."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 8 * MAX_CHAIN + 2000))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def _loc() -> Loc:
    """The ``loc`` field every node ends with: defaulted, ignored by ``==`` and ``repr``."""
    return field(default=NOWHERE, compare=False, repr=False)


# ---- expressions -----------------------------------------------------------------------------------


@frozen
class Table:
    """``[1, 2, 4, 8]``: a top-level ``var`` array's initial values, one literal per element."""

    values: tuple["Num", ...]
    loc: Loc = _loc()


@frozen
class Num:
    """A number literal; ``is_float`` tells ``2.0`` from ``2`` (they are equal as Python numbers).

    A minus sign written directly before a literal is part of it: ``-7`` is ``Num(-7)``.
    """

    value: int | float
    is_float: bool
    loc: Loc = _loc()


@frozen
class Name:
    """A scalar, array or param name used as a value or as an assignment target."""

    id: str
    loc: Loc = _loc()


@frozen
class Index:
    """An array element ``base[i][j]``: one index per written dimension."""

    base: str
    indices: tuple[Expr, ...]
    loc: Loc = _loc()


@frozen
class Call:
    """A call ``func(args)``: a user function or a builtin (min, max, abs, isqrt, i64, f64)."""

    func: str
    args: tuple[Expr, ...]
    loc: Loc = _loc()


@frozen
class Unary:
    """A unary arithmetic operation; ``op`` is ``'-'`` (``not`` is :class:`Not`)."""

    op: str
    operand: Expr
    loc: Loc = _loc()


@frozen
class Binary:
    """An arithmetic or bitwise operation; ``op`` is one of ``+ - * / % & | ^ << >>``."""

    op: str
    left: Expr
    right: Expr
    loc: Loc = _loc()


@frozen
class Compare:
    """A comparison; ``op`` is one of ``< <= > >= == !=``. Comparisons do not chain."""

    op: str
    left: Expr
    right: Expr
    loc: Loc = _loc()


@frozen
class BoolOp:
    """A short-circuit ``'and'`` / ``'or'``."""

    op: str
    left: Expr
    right: Expr
    loc: Loc = _loc()


@frozen
class Not:
    """Logical negation ``not operand``."""

    operand: Expr
    loc: Loc = _loc()


@frozen
class IfExpr:
    """``if cond then a else b`` as a value (the spec defines it for param expressions)."""

    cond: Expr
    then: Expr
    orelse: Expr
    loc: Loc = _loc()


# ---- types and declarations ------------------------------------------------------------------------


@frozen
class TypeRef:
    """``i64``, ``f64`` or an array of them: one dimension per ``[...]``.

    A dimension is a param expression, or None for an extent left open (``f64[]``), which only a
    function parameter may do.
    """

    base: str
    dims: tuple[Expr | None, ...]
    loc: Loc = _loc()


@frozen
class Param:
    """``param NAME = expr``: a compile-time integer, overridable with ``-D NAME=V``."""

    name: str
    value: Expr
    loc: Loc = _loc()


@frozen
class VarDecl:
    """``input|output|inout|var NAME: TYPE [= value]``: a ``var``'s initial value (a literal) or
    an input's or inout's default (a param expression, or an f64 literal)."""

    role: str
    name: str
    type: TypeRef
    init: "Expr | None"
    loc: Loc = _loc()


@frozen
class FuncParam:
    """One parameter ``[inout] name: type`` of a function; ``inout`` passes a scalar by reference."""

    name: str
    type: TypeRef
    inout: bool = False
    loc: Loc = _loc()


@frozen
class Use:
    """``use NAME``: load the module NAME.incaq."""

    name: str
    loc: Loc = _loc()


# ---- statements ------------------------------------------------------------------------------------


@frozen
class Assign:
    """``target = value``."""

    target: Name | Index
    value: Expr
    loc: Loc = _loc()


@frozen
class CallStmt:
    """A call whose result, if any, is dropped: ``f(args)``."""

    call: Call
    loc: Loc = _loc()


@frozen
class While:
    """``while cond do { body }``."""

    cond: Expr
    body: tuple[Stmt, ...]
    loc: Loc = _loc()


@frozen
class If:
    """``if cond then { then } else { orelse }``; ``else if`` is an ``orelse`` of one ``If``."""

    cond: Expr
    then: tuple[Stmt, ...]
    orelse: tuple[Stmt, ...]
    loc: Loc = _loc()


@frozen
class For:
    """``for var in lo .. hi do { body }``, ``hi`` exclusive."""

    var: str
    lo: Expr
    hi: Expr
    body: tuple[Stmt, ...]
    loc: Loc = _loc()


@frozen
class DoWhile:
    """``do { body } while cond``: the body runs once before the first test."""

    body: tuple[Stmt, ...]
    cond: Expr
    loc: Loc = _loc()


@frozen
class Loop:
    """``loop { body }``: runs until a ``break`` or a ``return`` leaves it."""

    body: tuple[Stmt, ...]
    loc: Loc = _loc()


@frozen
class Break:
    """``break``: leave the innermost loop."""

    loc: Loc = _loc()


@frozen
class Continue:
    """``continue``: go on with the next iteration of the innermost loop (a for loop steps first)."""

    loc: Loc = _loc()


@frozen
class Return:
    """``return value`` or a bare ``return`` (value None)."""

    value: Expr | None
    loc: Loc = _loc()


@frozen
class Func:
    """``func name(params) [-> ret] { body }``; ``ret`` is a scalar type or None."""

    name: str
    params: tuple[FuncParam, ...]
    ret: TypeRef | None
    body: tuple[Stmt, ...]
    loc: Loc = _loc()


@frozen
class Module:
    """One source file: declarations, functions and the kernel's statements, in source order."""

    items: tuple[Item, ...]
    loc: Loc = _loc()


Expr = Num | Name | Index | Call | Unary | Binary | Compare | BoolOp | Not | IfExpr
# A `var` declaration may also appear inside a block (a local array or scalar).
Stmt = Assign | CallStmt | While | If | For | Return | VarDecl | DoWhile | Loop | Break | Continue
Item = Use | Param | VarDecl | Func | Stmt
Node = Module | Item | FuncParam | TypeRef | Expr


# ---- traversal ---------------------------------------------------------------------------------------


def nodes(root) -> Iterator:
    """Every node inside ``root`` (itself included), depth first, without recursion."""
    stack = [root]
    pop, push = stack.pop, stack.extend
    kinds = _KINDS
    while stack:
        n = pop()
        kind = kinds.get(type(n))
        if kind is None:
            kind = _kind(n)
        if kind is _LEAF:
            continue
        if kind is _SEQUENCE:
            push(reversed(n))
            continue
        yield n
        push(kind(n))


def deepest(body) -> tuple[int, Loc | None]:
    """How deep the nodes of a block nest (a statement of the block is at depth 1), and the
    location of the block's statement where they nest deepest; without recursion."""
    best, where = 0, None
    for top in body:
        stack = [(top, 1)]
        while stack:
            n, d = stack.pop()
            if isinstance(n, (list, tuple)):
                stack.extend((c, d) for c in n)
                continue
            names = node_fields(n)
            if names is None:
                continue
            if d > best:
                best, where = d, getattr(top, "loc", None)
            stack.extend((getattr(n, f), d + 1) for f in names)
    return best, where


def node_fields(n) -> tuple[str, ...] | None:
    """The fields other than ``loc`` of a node, in order (None: n is not a node), found once for
    each type."""
    names = _PARTS.get(type(n))
    return names if names is not None else _learn(n)


def _learn(n) -> tuple[str, ...] | None:
    """The fields other than ``loc`` of a node type met for the first time (None: not a node)."""
    if not is_record(n):
        return None
    names = _PARTS[type(n)] = tuple(f.name for f in fields(n) if f.name != "loc")
    return names


def _kind(n):
    """How :func:`nodes` treats a value of a type met for the first time: a node's function giving
    its parts (last first, for the stack), or :data:`_SEQUENCE` or :data:`_LEAF`. (Looked up by
    type, a name, number or operator costs one lookup: each took a call that found it no node.)"""
    if isinstance(n, (list, tuple)):
        kind = _SEQUENCE
    else:
        names = node_fields(n)
        if names is None:
            kind = _LEAF
        elif not names:
            kind = _no_parts
        elif len(names) == 1:
            name = names[0]
            kind = lambda node: (getattr(node, name),)  # noqa: E731
        else:
            kind = attrgetter(*reversed(names))
    _KINDS[type(n)] = kind
    return kind


def _no_parts(node) -> tuple:
    return ()


_SEQUENCE, _LEAF = object(), object()
_KINDS: dict[type, object] = {}


#: The fields other than ``loc`` of each node type met.
_PARTS: dict[type, tuple[str, ...]] = {}


def statements(body) -> Iterator:
    """Every statement of a block and of the blocks nested in it (not inside expressions)."""
    for s in body:
        yield s
        if isinstance(s, (While, For, DoWhile, Loop)):
            yield from statements(s.body)
        elif isinstance(s, If):
            yield from statements(s.then)
            yield from statements(s.orelse)


# ---- dump ------------------------------------------------------------------------------------------


def dump(node: Node) -> str:
    """A stable, readable, indented text form of ``node`` (locations are not shown).

    Statements and declarations get one line each, with nested bodies indented by two spaces.
    Expressions are printed on one line, fully parenthesised, so the text shows how the source was
    grouped: ``c = c + A[i] * B[i]`` dumps as ``Assign c = (c + (A[i] * B[i]))``.
    """
    with room_for_chains():
        if isinstance(node, (Num, Name, Index, Call, Unary, Binary, Compare, BoolOp, Not, IfExpr)):
            return dump_expr(node)
        if isinstance(node, TypeRef):
            return _type(node)
        if isinstance(node, FuncParam):
            return _param(node)
        lines: list[str] = []
        _dump_stmt(node, 0, lines)
        return "\n".join(lines)


def dump_expr(e: Expr) -> str:
    """One expression as fully parenthesised source text, e.g. ``(a + (b * c))``."""
    match e:
        case Table(values=vs):
            return "[" + ", ".join(dump_expr(v) for v in vs) + "]"
        case Num(value=v, is_float=True):
            return repr(float(v))
        case Num(value=v):
            return str(v)
        case Name(id=n):
            return n
        case Index(base=b, indices=ix):
            return b + "".join(f"[{dump_expr(i)}]" for i in ix)
        case Call(func=f, args=args):
            return f"{f}({', '.join(dump_expr(a) for a in args)})"
        case Unary(op=op, operand=x):
            return f"({op}{dump_expr(x)})"
        case Not(operand=x):
            return f"(not {dump_expr(x)})"
        case Binary(op=op, left=a, right=b) | Compare(op=op, left=a, right=b) | BoolOp(
            op=op, left=a, right=b
        ):
            return f"({dump_expr(a)} {op} {dump_expr(b)})"
        case IfExpr(cond=c, then=a, orelse=b):
            return f"(if {dump_expr(c)} then {dump_expr(a)} else {dump_expr(b)})"
    raise TypeError(f"not an INCA-Q expression: {e!r}")


def _param(p: FuncParam) -> str:
    return ("inout " if p.inout else "") + f"{p.name}: {_type(p.type)}"


def _type(t: TypeRef) -> str:
    return t.base + "".join("[]" if d is None else f"[{dump_expr(d)}]" for d in t.dims)


def _dump_body(body: tuple[Stmt, ...], depth: int, lines: list[str]) -> None:
    for s in body:
        _dump_stmt(s, depth, lines)


def _dump_stmt(node: Node, depth: int, lines: list[str]) -> None:
    pad = "  " * depth
    match node:
        case Module(items=items):
            lines.append(pad + "Module")
            _dump_body(items, depth + 1, lines)
        case Use(name=n):
            lines.append(f"{pad}Use {n}")
        case Param(name=n, value=v):
            lines.append(f"{pad}Param {n} = {dump_expr(v)}")
        case VarDecl(role=r, name=n, type=t, init=init):
            tail = "" if init is None else f" = {dump_expr(init)}"
            lines.append(f"{pad}VarDecl {r} {n}: {_type(t)}{tail}")
        case Func(name=n, params=ps, ret=ret, body=body):
            sig = ", ".join(_param(p) for p in ps)
            arrow = "" if ret is None else f" -> {_type(ret)}"
            lines.append(f"{pad}Func {n}({sig}){arrow}")
            _dump_body(body, depth + 1, lines)
        case Assign(target=t, value=v):
            lines.append(f"{pad}Assign {dump_expr(t)} = {dump_expr(v)}")
        case CallStmt(call=c):
            lines.append(f"{pad}CallStmt {dump_expr(c)}")
        case While(cond=c, body=body):
            lines.append(f"{pad}While {dump_expr(c)}")
            _dump_body(body, depth + 1, lines)
        case If(cond=c, then=then, orelse=orelse):
            lines.append(f"{pad}If {dump_expr(c)}")
            lines.append(f"{pad}  then")
            _dump_body(then, depth + 2, lines)
            if orelse:
                lines.append(f"{pad}  else")
                _dump_body(orelse, depth + 2, lines)
        case For(var=v, lo=lo, hi=hi, body=body):
            lines.append(f"{pad}For {v} in {dump_expr(lo)} .. {dump_expr(hi)}")
            _dump_body(body, depth + 1, lines)
        case Return(value=v):
            lines.append(pad + "Return" + ("" if v is None else f" {dump_expr(v)}"))
        case DoWhile(body=body, cond=c):
            lines.append(f"{pad}DoWhile {dump_expr(c)}")
            _dump_body(body, depth + 1, lines)
        case Loop(body=body):
            lines.append(pad + "Loop")
            _dump_body(body, depth + 1, lines)
        case Break():
            lines.append(pad + "Break")
        case Continue():
            lines.append(pad + "Continue")
        case _:
            raise TypeError(f"not an INCA-Q statement or declaration: {node!r}")
