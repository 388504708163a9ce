"""``@frozen`` and ``@record``: frozen dataclasses with slots and plain (mutable) dataclasses, made
quickly and without the ``dataclasses`` module: for the node types a compilation makes by the
hundred thousand (syntax tree, instructions, tuples), for every other frozen record of the
toolchain, and for its mutable records (a test keeps ``dataclasses`` out of the toolchain's
modules). ``@packed`` is ``@frozen`` kept in a tuple, for a record made far more often than it
is read (locations).

Three costs of ``@dataclass`` are avoided, with every behaviour kept (fields, ``==`` and ``hash``
over the compared fields, ``repr``, ``replace``, pattern matching, pickling,
``FrozenInstanceError`` on assignment; ``==`` compares the fields as one tuple, as 3.11's
dataclass does, on every Python version):

- Importing ``dataclasses`` imports ``inspect`` (with ``ast``, ``dis`` and ``tokenize``): 6-7 ms of
  every start of the tools, and making the classes took 5 more. Here a class's fields are read
  from its annotations, and what ``dataclasses`` says of it (``__dataclass_fields__`` and
  ``__dataclass_params__``, so ``dataclasses.fields``, ``replace``, ``asdict`` and
  ``is_dataclass`` work on it) is made by ``dataclasses`` itself the first time anything asks.
  :func:`fields` and :func:`replace` here serve the toolchain's own code without it.
- A frozen dataclass's ``__init__`` stores each field with ``object.__setattr__``, about three
  times what a plain class's ``self.x = x`` costs (a fifth of compiling a large kernel). Here each
  field is stored through its slot's own descriptor; and where a compilation makes a record by
  the ten thousand, through :func:`maker`'s class, with plain stores (two thirds of the
  instructions for a record of five fields).
- It compiles the source of six methods for every class as the class is made. Here nothing is
  compiled then: a frozen class's ``__init__`` is made from one compiled template per number of
  fields, its parameters renamed to the fields (``CodeType.replace``) and the setters put in its
  closure; ``repr``, ``==``, ``hash`` and pickling are compiled for a class when one of them is
  first used, and refusing assignment is one function for every class.
"""
from __future__ import annotations

from _collections import _tuplegetter  # (the fields of a namedtuple: what collections uses)
from collections.abc import Callable
from types import CellType, CodeType, FunctionType

from . import record_inits

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (2 ms of every start)
if TYPE_CHECKING:
    from typing import Any, TypeVar

    T = TypeVar("T", bound=type)
    R = TypeVar("R")


class _Sentinel:
    __slots__ = ("shown",)

    def __init__(self, shown: str) -> None:
        self.shown = shown

    def __repr__(self) -> str:
        return self.shown


MISSING = _Sentinel("MISSING")  # the default or factory of a field that has none
_FACTORY = _Sentinel("<factory>")  # the default of an argument whose field has a factory


class Field:
    """A field of a record: what :func:`field` says of it, and its name and annotation."""

    __slots__ = ("name", "type", "default", "default_factory", "repr", "hash", "compare")

    def __init__(self, default: object = MISSING, default_factory: object = MISSING,
                 repr: bool = True, hash: bool | None = None, compare: bool = True) -> None:
        self.name, self.type = "", ""
        self.default, self.default_factory = default, default_factory
        self.repr, self.hash, self.compare = repr, hash, compare

    def __repr__(self) -> str:
        return (f"Field(name={self.name!r}, type={self.type!r}, default={self.default!r}, "
                f"default_factory={self.default_factory!r}, repr={self.repr}, hash={self.hash}, "
                f"compare={self.compare})")


def field(*, default: object = MISSING, default_factory: object = MISSING, repr: bool = True,
          hash: bool | None = None, compare: bool = True) -> Any:
    """``dataclasses.field`` for a record (``init`` and ``kw_only`` are not supported)."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, repr, hash, compare)


def fields(class_or_instance: object) -> tuple[Field, ...]:
    """The fields of a record, in order, as ``dataclasses.fields`` gives a dataclass's."""
    try:
        return class_or_instance.__record_fields__
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def is_record(obj: object) -> bool:
    """Whether ``obj`` is a record or a record's type."""
    return hasattr(obj, "__record_fields__")


def replace(obj: T, /, **changes: object) -> T:
    """``dataclasses.replace`` for a record: a new one with ``changes`` over its fields (another
    dataclass is given to ``dataclasses.replace``)."""
    if not hasattr(obj, "__record_fields__"):
        import dataclasses

        return dataclasses.replace(obj, **changes)
    for f in obj.__record_fields__:
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)


def frozen(cls: T) -> T:
    """``@dataclass(frozen=True, slots=True)``, made as the module says (same signature, same
    methods unless the class defines its own, as the dataclass would leave them)."""
    own = _own(cls)
    fs = _fields_of(cls, "frozen")
    names = tuple(f.name for f in fs)
    body = _body(cls, names, names)
    qualname = cls.__qualname__
    factory = any(f.default_factory is not MISSING for f in fs)
    if not factory:
        # Everything goes into the class as it is made: setting a method of a made class costs
        # as much again as making it. __init__ stores through the slots' setters, which exist
        # only then: its closure's cells are filled after.
        cells = [CellType() for _ in names]
        init = _make_init(names, _defaults(fs),
                          cells, f"{qualname}.__init__")
        body.update(_extras(qualname, body["__module__"], fs, init, own, _STUBS))
    body["__setattr__"] = refuse_assignment
    body["__delattr__"] = refuse_deletion
    body["__record_params__"] = (True, True)
    made = type(cls)(cls.__name__, cls.__bases__, body)
    setters = [made.__dict__[n].__set__ for n in names]
    if not factory:
        for cell, setter in zip(cells, setters):
            cell.cell_contents = setter
    else:
        init = _compiled_init(fs, [f"__s{i}(self, {n})" for i, n in enumerate(names)],
                              {f"__s{i}": s for i, s in enumerate(setters)}, f"{qualname}.__init__")
        for name, value in _extras(qualname, made.__module__, fs, init, own, _STUBS).items():
            setattr(made, name, value)
    return made


def maker(cls: type[R]) -> Callable[..., R]:
    """What makes a ``cls``, a class of ``@frozen`` (no field with a default factory), from the
    arguments ``cls`` takes, in about two thirds of the instructions of ``cls(...)`` for five
    fields: for the records a compilation makes by the ten thousand (instructions, nodes).

    A frozen record's ``__init__`` must store each field through its slot's setter, about 730
    instructions a field, since its class refuses assignment (``__setattr__``). The maker is a
    class of no slots of its own deriving from ``cls`` that allows it, whose ``__init__`` stores
    each field as a mutable record's does (``self.x = x``: about 145, which Python specialises)
    and then makes the object a ``cls`` (``__class__`` assignment, about 600: allowed, the two
    classes' instances having the same layout). What it returns is a ``cls`` like any other,
    equal to ``cls(...)`` of the same arguments. Made once for a class, on the first call."""
    made = cls.__dict__.get("__maker__")
    if made is not None:
        return made
    if cls.__dict__.get("__record_params__") != (True, True) or issubclass(cls, tuple):
        raise TypeError(f"maker: {cls.__name__} is not a class of @frozen")
    fs = fields(cls)
    if any(f.default_factory is not MISSING for f in fs):
        raise TypeError(f"maker: {cls.__name__} has a field with a default factory")
    names = tuple(f.name for f in fs)
    init = _template("making", len(names))(cls)
    init.__code__ = _renamed(init.__code__, names, f"{cls.__qualname__}.__maker__.__init__",
                             co_names=(*names, "__class__"))
    init.__defaults__ = _defaults(fs)
    # object's own __setattr__ and __delattr__ (both: either alone leaves Python's slot that calls
    # the methods, which refuses nothing but costs a lookup and a call each store)
    made = type(cls)(cls.__name__, (cls,), {
        "__slots__": (), "__setattr__": object.__setattr__, "__delattr__": object.__delattr__,
        "__init__": init, "__module__": cls.__module__,
        "__qualname__": f"{cls.__qualname__}.__maker__"})
    type.__setattr__(cls, "__maker__", made)
    return made


def packed(cls: T) -> T:
    """``@frozen`` for a record that is made far more often than read (a source location: one for
    nearly every node, read when something is reported): the same behaviours, but kept in a
    tuple, which costs a third of a slotted record to make (its fields are not stored one setter
    call each) and some five times a slot to read.

    The class derives from ``tuple`` with no tuple behaviour of its own beyond that: ``==`` and
    ``hash`` compare its fields as a record's (equal only to one of its class), ordering is refused
    as a dataclass refuses it, and assignment raises ``FrozenInstanceError``. Where a record is
    made in bulk, ``tuple.__new__(cls, (field, ...))`` makes it without the call of its
    ``__new__``. All of its fields take part in ``==`` and ``hash``."""
    own = _own(cls)
    fs = _fields_of(cls, "packed")
    if any(f.default_factory is not MISSING or not f.compare or f.hash is not None for f in fs):
        raise TypeError(f"@packed: {cls.__name__}: every field is compared and has no factory")
    names = tuple(f.name for f in fs)
    body = _body(cls, names, ())
    qualname = cls.__qualname__
    for i, n in enumerate(names):
        body[n] = _tuplegetter(i, f"Field {n!r} of {qualname}.")
    params = ", ".join(names)
    fields_tuple = params + ("," if len(names) == 1 else "")
    scope: dict = {"__make": tuple.__new__}
    exec(f"def __new__(cls, {params}):\n    return __make(cls, ({fields_tuple}))\n", scope)
    new = scope["__new__"]
    new.__defaults__ = _defaults(fs)
    body.update(_extras(qualname, body["__module__"], fs, new, own, {"__repr__": _repr}))
    for name, method in _PACKED.items():
        if name not in own:
            body[name] = method
    body["__setattr__"] = refuse_assignment
    body["__delattr__"] = refuse_deletion
    body["__record_params__"] = (True, True)
    return type(cls.__name__, (tuple,) + tuple(b for b in cls.__bases__ if b is not object), body)


# Equal only to one of its class. Another tuple is answered here (False), not left to tuple's
# ``==``, which would compare the items; anything else is left to its own ``==``, as a record does.

def _packed_eq(self, other):
    if other.__class__ is self.__class__:
        return tuple.__eq__(self, other)
    return False if isinstance(other, tuple) else NotImplemented


def _packed_ne(self, other):
    if other.__class__ is self.__class__:
        return tuple.__ne__(self, other)
    return True if isinstance(other, tuple) else NotImplemented


def _unordered(self, other):
    return NotImplemented


def _packed_reduce(self):
    return self.__class__, tuple(self)


_PACKED = {"__eq__": _packed_eq, "__ne__": _packed_ne, "__hash__": tuple.__hash__,
           "__lt__": _unordered, "__le__": _unordered, "__gt__": _unordered, "__ge__": _unordered,
           "__reduce__": _packed_reduce}


def record(cls: T | None = None, /, *, eq: bool = True):
    """``@dataclass`` (``eq``: ``@dataclass(eq=eq)``), made as the module says: a plain class
    whose ``__init__`` stores each argument, with ``repr`` and (``eq``) ``==`` over the compared
    fields; as the dataclass, it is then unhashable unless it defines ``__hash__``."""
    if cls is None:
        return lambda c: record(c, eq=eq)
    own = _own(cls)
    fs = _fields_of(cls, "record")
    for f in fs:  # the class attributes the dataclass leaves: the defaults
        if f.default is not MISSING:
            setattr(cls, f.name, f.default)
        elif f.name in cls.__dict__:
            delattr(cls, f.name)
    names = tuple(f.name for f in fs)
    if all(f.default_factory is MISSING for f in fs):
        if "self" in names:
            raise TypeError(f"@record: {cls.__qualname__} has a field named 'self'")
        code = _renamed(_template("mutable", len(fs)).__code__, names,
                        f"{cls.__qualname__}.__init__", co_names=names)
        init = FunctionType(code, {}, "__init__", _defaults(fs))
    else:
        init = _compiled_init(fs, [f"self.{f.name} = {f.name}" for f in fs], {},
                              f"{cls.__qualname__}.__init__")
    stubs = {"__repr__": _repr, **({"__eq__": _eq} if eq else {})}
    for name, value in _extras(cls.__qualname__, cls.__module__, fs, init, own, stubs).items():
        setattr(cls, name, value)
    if eq and "__hash__" not in own:
        cls.__hash__ = None
    cls.__record_params__ = (eq, False)
    return cls


def _body(cls: type, names: tuple[str, ...], slots: tuple[str, ...]) -> dict:
    """The namespace of the class made in place of ``cls``: its own, less the fields' defaults
    and the instance dictionary, with ``slots`` and its qualified name."""
    body = dict(cls.__dict__)
    for n in names:
        body.pop(n, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    body["__slots__"] = slots
    body["__qualname__"] = cls.__qualname__
    return body


def _own(cls: type) -> set[str]:
    """The names the class defines itself (not ``__hash__`` when it is the None Python sets for
    a class that defines only ``__eq__``)."""
    own = set(cls.__dict__)
    if "__eq__" in own and cls.__dict__.get("__hash__", 0) is None:
        own.discard("__hash__")
    return own


def _fields_of(cls: type, how: str) -> tuple[Field, ...]:
    """The fields of the class ``@how`` makes, from its own annotations in order."""
    mro = cls.__mro__  # (a look in each class's own attributes: a failed hasattr is slower)
    if any("__post_init__" in c.__dict__ for c in mro):
        raise TypeError(f"@{how}: {cls.__name__} has a __post_init__")
    if any("__record_fields__" in c.__dict__ or "__dataclass_fields__" in c.__dict__
           for c in mro[1:]):
        raise TypeError(f"@{how}: {cls.__name__} derives from a record")
    out: list[Field] = []
    attrs = cls.__dict__
    for name, ann in attrs.get("__annotations__", {}).items():
        if not isinstance(ann, str) or "Var" in ann or "KW_ONLY" in ann:  # (most need no look)
            kind = (ann.split("[")[0].strip() if isinstance(ann, str)
                    else getattr(ann, "__name__", ""))
            if kind.rpartition(".")[2] in ("ClassVar", "InitVar", "KW_ONLY"):
                raise TypeError(f"@{how}: {cls.__name__}.{name} is a {kind}, "
                                "which is not supported")
        value = attrs.get(name, MISSING)
        f = Field() if value is MISSING else _as_field(value, how, cls, name)
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not "
                             "allowed: use default_factory")
        if out and f.default is MISSING and f.default_factory is MISSING and (
                out[-1].default is not MISSING or out[-1].default_factory is not MISSING):
            raise TypeError(f"non-default argument {name!r} follows default argument")
        f.name, f.type = name, ann
        out.append(f)
    return tuple(out)


def _as_field(value: object, how: str, cls: type, name: str) -> Field:
    """A new Field for a class attribute: a :func:`field`, a ``dataclasses.field`` or a default
    (of field ``name`` of the class ``@how`` makes)."""
    kind = type(value)
    if kind is Field:
        return Field(value.default, value.default_factory, value.repr, value.hash, value.compare)
    if kind.__name__ == "Field" and kind.__module__ == "dataclasses":
        import dataclasses  # (imported already: the value is one of its fields)

        if not value.init or value.kw_only is True:
            raise TypeError(f"@{how}: {cls.__name__}.{name} is a field its __init__ would not "
                            "just store")
        return Field(MISSING if value.default is dataclasses.MISSING else value.default,
                     MISSING if value.default_factory is dataclasses.MISSING else value.default_factory,
                     value.repr, value.hash, value.compare)
    return Field(value)


def _extras(qualname: str, module: str, fs: tuple[Field, ...], init: FunctionType,
            own: set[str], stubs: dict[str, Callable]) -> dict[str, object]:
    """What a record's class gets besides its own: its fields, ``init`` (its ``__init__``, or
    its ``__new__`` as the function is named), match arguments, stubs and dataclass view."""
    name = init.__name__
    init.__qualname__, init.__module__ = f"{qualname}.{name}", module
    init.__annotations__ = {**{f.name: f.type for f in fs}, "return": None}
    out: dict[str, object] = {name: init, "__record_fields__": fs}
    if "__match_args__" not in own:
        out["__match_args__"] = tuple(f.name for f in fs)
    for name, stub in stubs.items():
        if name not in own:
            out[name] = stub
    out["__dataclass_fields__"] = _DataclassView("__dataclass_fields__")
    out["__dataclass_params__"] = _DataclassView("__dataclass_params__")
    return out


class _DataclassView:
    """A record's ``__dataclass_fields__`` or ``__dataclass_params__`` until first read: then
    ``dataclasses`` makes both, from a class of the same fields, and they replace the two."""

    def __init__(self, attr: str) -> None:
        self.attr = attr

    def __get__(self, obj: object, owner: type) -> object:
        import dataclasses

        cls = next(c for c in owner.__mro__ if c.__dict__.get(self.attr) is self)
        body: dict = {"__annotations__": {}, "__module__": cls.__module__,
                      "__qualname__": cls.__qualname__}
        for f in cls.__record_fields__:
            body["__annotations__"][f.name] = f.type
            body[f.name] = dataclasses.field(
                default=dataclasses.MISSING if f.default is MISSING else f.default,
                default_factory=(dataclasses.MISSING if f.default_factory is MISSING
                                 else f.default_factory),
                repr=f.repr, hash=f.hash, compare=f.compare)
        eq, frozen_ = cls.__record_params__
        made = dataclasses.dataclass(eq=eq, frozen=frozen_)(type(cls.__name__, (), body))
        type.__setattr__(cls, "__dataclass_fields__", made.__dataclass_fields__)
        type.__setattr__(cls, "__dataclass_params__", made.__dataclass_params__)
        return getattr(cls, self.attr)


def _compiled_init(fs: tuple[Field, ...], stores: list[str], scope: dict,
                   qualname: str) -> FunctionType:
    """``__init__`` compiled from source, storing each argument by ``stores`` (for a class with
    a default factory, or a mutable record: a few of them)."""
    params, lines = [], []
    for i, f in enumerate(fs):
        if f.default_factory is not MISSING:
            scope[f"__f{i}"], scope["__FACTORY"] = f.default_factory, _FACTORY
            params.append(f"{f.name}=__FACTORY")
            lines.append(f"if {f.name} is __FACTORY: {f.name} = __f{i}()")
        elif f.default is not MISSING:
            scope[f"__d{i}"] = f.default
            params.append(f"{f.name}=__d{i}")
        else:
            params.append(f.name)
    if "self" in (f.name for f in fs):
        raise TypeError(f"{qualname} has a field named 'self'")
    body = "".join(f"\n        {line}" for line in lines + stores) or "\n        pass"
    exec(f"def factory({', '.join(scope)}):\n"
         f"    def __init__(self, {', '.join(params)}):{body}\n"
         "    return __init__\n", scope)
    init = scope["factory"](*[scope[k] for k in scope if k not in ("factory", "__builtins__")])
    init.__qualname__ = qualname
    init.__code__ = init.__code__.replace(co_qualname=qualname)  # (what a traceback shows)
    return init


def _adopt(cls: type, method: Callable) -> None:
    method.__qualname__ = f"{cls.__qualname__}.{method.__name__}"
    method.__module__ = cls.__module__
    setattr(cls, method.__name__, method)


_TEMPLATES: dict[int, CodeType] = {}  # number of fields -> the code of a template __init__


def _template(kind: str, n: int) -> FunctionType:
    """:mod:`.record_inits`' template ``<kind><n>``, compiled from its text for more fields than
    that module holds."""
    made = getattr(record_inits, f"{kind}{n}", None)
    if made is None:
        scope: dict = {}
        exec(record_inits.text(kind, n), scope)
        made = scope[f"{kind}{n}"]
    return made


def _make_init(names: tuple[str, ...], defaults: tuple | None, cells: list[CellType],
               qualname: str) -> FunctionType:
    """``__init__(self, *names)`` storing each argument through the setter ``cells`` hold, the
    last ``len(defaults)`` arguments with those defaults (:func:`_defaults`): the template for this many fields, with
    the fields' names as its parameters and ``cells`` as its closure."""
    if "self" in names:
        raise TypeError(f"@frozen: {qualname} has a field named 'self'")
    n = len(names)
    template = _TEMPLATES.get(n)
    if template is None:
        template = _TEMPLATES[n] = _template("frozen", n)(*[None] * n).__code__
    code = _renamed(template, names, qualname)
    closure = tuple(cells[int(free[1:])] for free in code.co_freevars)
    return FunctionType(code, {}, "__init__", defaults, closure)


def _renamed(code: CodeType, names: tuple[str, ...], qualname: str, **changes) -> CodeType:
    """A template's code with its parameters after ``self`` renamed to the fields' ``names``
    (and ``changes``, such as the attribute names it stores)."""
    return code.replace(co_varnames=("self", *names) + code.co_varnames[len(names) + 1:],
                        co_qualname=qualname, **changes)


def _defaults(fs: tuple[Field, ...]) -> tuple | None:
    """The defaults of an ``__init__`` (or ``__new__``) of fields ``fs``, as a function holds
    them (None for none)."""
    return tuple(f.default for f in fs if f.default is not MISSING) or None


def _complete(cls: type) -> type:
    """Compile the ``__repr__``, ``__eq__``, ``__hash__`` and ``__reduce__`` (a node pickles as
    its constructor's call on its fields) of the class of ``@frozen`` or ``@record`` that ``cls``
    is or derives from, in place of its stubs; that class (``cls`` itself when another call, another
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


# The ``__setattr__`` and ``__delattr__`` of every frozen node type (a hand-written one too): they
# raise the dataclass's own error, importing ``dataclasses`` only then.

def refuse_assignment(self, name: str, value: object) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def refuse_deletion(self, name: str) -> None:
    from dataclasses import FrozenInstanceError

    raise FrozenInstanceError(f"cannot delete field {name!r}")
