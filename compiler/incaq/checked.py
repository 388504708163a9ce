"""The checked AST: what the checker produces and the lowering consumes.

Made of :mod:`.ast` nodes whose names are final INCA-A names, plus nodes of its own (:class:`Seq`,
:class:`Jump`, :class:`Mark`, and for loops that are left or repeated early :class:`LabeledLoop`,
:class:`Exit`, :class:`Next`), a symbol table of :class:`Sym`, and the scopes the checker resolves
names in.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ...lang.diagnostics import Loc
from .ast import Binary, BoolOp, Call, Compare, Expr, Func, IfExpr, Index, Name, Not, Num, Unary

@dataclass(frozen=True)
class Sym:
    """A location of the compiled program (or a param, while checking)."""

    name: str  # the name in INCA-A
    kind: str  # scalar | array | param
    dtype: str = "i64"
    shape: tuple[int | None, ...] = ()
    role: str = "var"  # input | output | inout | var
    value: int | float = 0  # a param's value, or a declared initial value
    loc: Loc | None = field(default=None, compare=False)
    implicit: bool = False  # declared by its first assignment, a function parameter or a result


@dataclass(frozen=True)
class Seq:
    """Run ``pre`` (an inlined call), then the value is ``value``."""

    pre: tuple
    value: Expr
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Jump:
    """Continue at :class:`Mark` ``label`` (an early return of an inlined function)."""

    label: str
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Mark:
    """A jump target."""

    label: str
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class LabeledLoop:
    """A loop that ``Exit`` / ``Next`` name by ``label``.

    ``kind`` is ``while`` (test at the top), ``do`` (test at the bottom) or ``loop`` (no test,
    ``cond`` is None). ``step`` runs after the body and on ``Next``: the increment of a for loop.
    A ``while`` or ``for`` loop that no ``break`` or ``continue`` leaves stays a plain
    :class:`~.ast.While` / :class:`~.ast.For`, so its lowering is exactly the spec's.
    """

    kind: str
    cond: Expr | None
    body: tuple
    label: str
    step: tuple = ()
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Exit:
    """Leave the loop ``label`` (``break``, or a return out of a self-tail-recursive function)."""

    label: str
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Next:
    """Go on with the next iteration of loop ``label`` (``continue``, or a self tail call)."""

    label: str
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Checked:
    """A whole kernel after checking: its locations and its flat body."""

    symbols: tuple[Sym, ...]
    body: tuple
    params: tuple[tuple[str, int], ...] = ()


def type_of(e, syms: dict[str, Sym]) -> str:
    """The element type of a checked expression."""
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
        if name in self.names:
            return self.names[name]
        return self.parent.lookup(name) if self.parent else None

    def visible(self) -> list[str]:
        return list(self.names) + (self.parent.visible() if self.parent else [])


@dataclass
class Ctx:
    """Where a ``return`` goes inside the function being inlined."""

    func: Func
    ret: Sym | None
    end: str
    jumped: bool = False
    #: For a function whose self tail calls became a loop: that loop's label, and the symbols
    #: its parameters are bound to (a tail call assigns them and starts the next iteration).
    tail_loop: str | None = None
    bound: tuple[Sym, ...] = ()
