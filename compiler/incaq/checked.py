"""The checked AST: what the checker produces and the lowering consumes.

Made of :mod:`.ast` nodes whose names are final INCA-A names, plus three nodes of its own
(:class:`Seq`, :class:`Jump`, :class:`Mark`, :class:`TailLoop`), a symbol table of :class:`Sym`, and the scopes the
checker resolves names in.
"""
from __future__ import annotations


from ...lang.diagnostics import Loc
from ...lang.frozen import field, frozen, record
from .ast import Binary, BoolOp, Call, Compare, Expr, Func, IfExpr, Index, Name, Not, Num, Unary

@frozen
class Sym:
    """A location of the compiled program (or a param, while checking)."""

    name: str  # the name in INCA-A
    kind: str  # scalar | array | param
    dtype: str = "i64"
    shape: tuple[int | None, ...] = ()
    role: str = "var"  # input | output | inout | var
    value: int | float | tuple = 0  # a param's value, a declared initial value or table
    loc: Loc | None = field(default=None, compare=False)
    implicit: bool = False  # declared by its first assignment, a function parameter or a result
    default: int | float | None = None  # an input's value when the host gives none


def initial_value(s: Sym) -> int | float | tuple:
    """A location's initial value in its own type: one for all elements, or a constant table."""
    convert = float if s.dtype == "f64" else int
    return tuple(convert(v) for v in s.value) if isinstance(s.value, tuple) else convert(s.value)


@frozen
class Seq:
    """Run ``pre`` (an inlined call), then the value is ``value``."""

    pre: tuple
    value: Expr
    loc: Loc | None = field(default=None, compare=False)


@frozen
class Jump:
    """Continue at :class:`Mark` ``label`` (an early return of an inlined function)."""

    label: str
    loc: Loc | None = field(default=None, compare=False)


@frozen
class Mark:
    """A jump target."""

    label: str
    loc: Loc | None = field(default=None, compare=False)


@frozen
class TailLoop:
    """An inlined function whose self tail calls became jumps back to ``label``, at its start.

    It is a loop whose back edges are those :class:`Jump` s (the lowering places ``label`` and
    then the body: no instruction of its own); the clobber analysis treats it as a loop that is
    not counted.
    """

    label: str
    body: tuple
    loc: Loc | None = field(default=None, compare=False)


@frozen
class Checked:
    """A whole kernel after checking: its locations and its flat body."""

    symbols: tuple[Sym, ...]
    body: tuple
    params: tuple[tuple[str, int], ...] = ()
    # Whether a function was inlined: only then can the body hold a Seq (an inlined call's
    # statements inside an expression), which the lowering must look for in every expression.
    inlined: bool = field(default=True, compare=False)


def type_of(e, syms: dict[str, Sym]) -> str:
    """The element type of a checked expression."""
    kind = type(e)  # the common nodes first, without matching patterns
    if kind is Name:
        return syms[e.id].dtype
    if kind is Num:
        return "f64" if e.is_float else "i64"
    if kind is Index:
        return syms[e.base].dtype
    if kind is Binary:
        left, right = type_of(e.left, syms), type_of(e.right, syms)
        return "f64" if left == "f64" or right == "f64" else "i64"
    match e:
        case Num(is_float=f):
            return "f64" if f else "i64"
        case Name(id=n) | Index(base=n):
            return syms[n].dtype
        case Seq(value=v):
            return type_of(v, syms)
        case Unary(operand=x):
            return type_of(x, syms)
        case Compare() | BoolOp() | Not():
            return "i64"
        case IfExpr(then=a, orelse=b):
            return "f64" if "f64" in (type_of(a, syms), type_of(b, syms)) else "i64"
        case Binary(left=a, right=b):
            return "f64" if "f64" in (type_of(a, syms), type_of(b, syms)) else "i64"
        case Call(func="i64"):
            return "i64"
        case Call(func="f64"):
            return "f64"
        case Call(args=args):
            return "f64" if any(type_of(a, syms) == "f64" for a in args) else "i64"
    raise TypeError(f"not a checked expression: {e!r}")


class Scope:
    """Names visible in the kernel body or in one inlined function body."""

    def __init__(self, parent: "Scope | None", prefix: str = "", func: str | None = None):
        self.parent, self.prefix, self.func = parent, prefix, func
        self.names: dict[str, Sym] = {}

    def lookup(self, name: str) -> Sym | None:
        scope = self
        while scope is not None:
            sym = scope.names.get(name)
            if sym is not None:
                return sym
            scope = scope.parent
        return None

    def visible(self) -> list[str]:
        return list(self.names) + (self.parent.visible() if self.parent else [])


@record
class Ctx:
    """Where a ``return`` goes inside the function being inlined, and where a self tail call
    goes (``top``, the start of its body)."""

    func: Func
    ret: Sym | None
    end: str
    jumped: bool = False
    top: str = "__top"
    scope: Scope | None = None  # the function's own scope (its parameters' final names)
    looped: bool = False  # a self tail call jumped to ``top``
