"""``@frozen``: a frozen dataclass with slots, made quickly: for the node types a compilation
makes by the hundred thousand (syntax tree, locations, instructions, tuples), and for every other
frozen record of the toolchain it can make (a stock frozen dataclass costs most of a millisecond
to define, paid at each start of a tool that imports it; a test keeps them all ``@frozen``).

Two costs of ``@dataclass(frozen=True, slots=True)`` are avoided, with every behaviour kept
(fields, ``==`` and ``hash`` over the compared fields, ``repr``, ``replace``, pattern matching,
pickling, ``FrozenInstanceError`` on assignment; ``==`` compares the fields as one tuple, as
3.11's dataclass does, on every Python version):

- Its ``__init__`` stores each field with ``object.__setattr__``, about three times what a plain
  class's ``self.x = x`` costs (a fifth of compiling a large kernel). Here each field is stored
  through its slot's own descriptor.
- It compiles the source of six methods for every class as the class is made: that was most of
  importing the compiler (the syntax tree's module took 18 ms), paid at every start of the tools,
  for methods most runs never call. Here nothing is compiled then: ``__init__`` is made from one
  compiled template per number of fields, its parameters renamed to the fields (``CodeType.replace``)
  and the setters put in its closure; ``repr``, ``==``, ``hash`` and pickling are compiled for a
  class when one of them is first used, and refusing assignment is one function for every class.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
from types import CellType, CodeType, FunctionType

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (2 ms of every start)
if TYPE_CHECKING:
    from typing import TypeVar

    T = TypeVar("T", bound=type)


def frozen(cls: T) -> T:
    """``@dataclass(frozen=True, slots=True)``, made as the module says (same signature, same
    methods unless the class defines its own, as the dataclass would leave them).

    Only plain fields (each an argument, with or without a default value) are supported."""
    own = set(cls.__dict__)
    if "__eq__" in own and cls.__dict__.get("__hash__", 0) is None:
        own.discard("__hash__")  # Python's own None for a class that defines only __eq__
    cls = dataclass(slots=True, init=False, repr=False, eq=False)(cls)
    fs = fields(cls)
    if hasattr(cls, "__post_init__") or any(
            not f.init or f.kw_only or f.default_factory is not MISSING for f in fs):
        raise TypeError(f"@frozen: {cls.__name__} has a field its __init__ would not just store")
    names = tuple(f.name for f in fs)
    defaults = tuple(f.default for f in fs if f.default is not MISSING)
    init = _make_init(names, defaults, [cls.__dict__[n].__set__ for n in names],
                      f"{cls.__qualname__}.__init__")
    _adopt(cls, init)
    init.__annotations__ = {**{f.name: f.type for f in fs}, "return": None}
    for name, stub in _STUBS.items():
        if name not in own:
            setattr(cls, name, stub)
    cls.__setattr__ = refuse_assignment
    cls.__delattr__ = refuse_deletion
    return cls


def _adopt(cls: type, method: Callable) -> None:
    method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
    method.__module__ = cls.__module__
    setattr(cls, method.__name__, method)


_TEMPLATES: dict[int, CodeType] = {}  # number of fields -> the code of a template __init__


def _make_init(names: tuple[str, ...], defaults: tuple, setters: list, qualname: str) -> FunctionType:
    """``__init__(self, *names)`` storing each argument through its slot's setter, the last
    ``len(defaults)`` arguments with those defaults: the template for this many fields, with
    the fields' names as its parameters and the setters as the cells of its closure."""
    if "self" in names:
        raise TypeError(f"@frozen: {qualname} has a field named 'self'")
    n = len(names)
    template = _TEMPLATES.get(n)
    if template is None:
        params = ", ".join(f"a{i}" for i in range(n))
        stores = "".join(f"\n        s{i}(self, a{i})" for i in range(n)) or "\n        pass"
        scope: dict = {}
        exec(f"def factory({', '.join(f's{i}' for i in range(n))}):\n"
             f"    def __init__(self, {params}):{stores}\n"
             "    return __init__\n", scope)
        template = _TEMPLATES[n] = scope["factory"](*[None] * n).__code__
    code = template.replace(co_varnames=("self", *names) + template.co_varnames[n + 1:],
                            co_qualname=qualname)
    closure = tuple(CellType(setters[int(free[1:])]) for free in code.co_freevars)
    return FunctionType(code, {}, "__init__", defaults or None, closure)


def _complete(cls: type) -> type:
    """Compile the ``__repr__``, ``__eq__``, ``__hash__`` and ``__reduce__`` (a node pickles as
    its constructor's call on its fields) of the class of ``@frozen`` that ``cls`` is or derives
    from, in place of its stubs; that class (``cls`` itself when another call, another
    thread's say, has completed it since a stub was looked up)."""
    owner = next((c for c in cls.__mro__ if any(c.__dict__.get(n) is s for n, s in _STUBS.items())),
                 None)
    if owner is None:
        return cls
    fs = fields(owner)

    def of(who: str, which) -> str:
        return "(" + "".join(f"{who}.{f.name}, " for f in which) + ")"

    compared = [f for f in fs if f.compare]
    hashed = [f for f in fs if (f.compare if f.hash is None else f.hash)]
    shown = ", ".join(f"{f.name}={{self.{f.name}!r}}" for f in fs if f.repr)
    scope: dict = {}
    exec("def __repr__(self):\n"
         f"    return self.__class__.__qualname__ + f'({shown})'\n"
         "def __eq__(self, other):\n"
         "    if other.__class__ is self.__class__:\n"
         f"        return {of('self', compared)} == {of('other', compared)}\n"
         "    return NotImplemented\n"
         "def __hash__(self):\n"
         f"    return hash({of('self', hashed)})\n"
         "def __reduce__(self):\n"
         f"    return self.__class__, {of('self', fs)}\n", scope)
    for name, stub in _STUBS.items():
        if owner.__dict__.get(name) is stub:
            _adopt(owner, scope[name])
    return owner


# Until a class's first ``repr``, ``==``, ``hash`` or pickling, these stand in for its methods:
# most node types of a run never need them, and compiling them was most of importing the
# compiler. Each completes the class and calls the real method.

def _repr(self) -> str:
    return _complete(type(self)).__repr__(self)


def _eq(self, other: object):
    return _complete(type(self)).__eq__(self, other)


def _hash(self) -> int:
    return _complete(type(self)).__hash__(self)


def _reduce(self):
    return _complete(type(self)).__reduce__(self)


_STUBS = {"__repr__": _repr, "__eq__": _eq, "__hash__": _hash, "__reduce__": _reduce}


# The ``__setattr__`` and ``__delattr__`` of every frozen node type (a hand-written one too).

def refuse_assignment(self, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def refuse_deletion(self, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")
