"""``@frozen``: a frozen dataclass with slots and a quicker ``__init__``, for the node types a
compilation makes by the hundred thousand (syntax tree, locations, instructions, tuples).

A frozen dataclass's generated ``__init__`` stores each field with ``object.__setattr__``, which
costs about three times what a plain class's ``self.x = x`` does; that was a fifth of compiling a
large kernel. Here each field is stored through its slot's own descriptor instead, which skips the
frozen class's ``__setattr__`` without going through ``object.__setattr__``'s lookup. Everything
else is the dataclass's: fields, ``==`` and ``hash``, ``repr``, ``replace``, pattern matching,
pickling. Slots also make the nodes smaller and their attributes quicker to read.
"""
from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import TypeVar

T = TypeVar("T", bound=type)


def frozen(cls: T) -> T:
    """``@dataclass(frozen=True, slots=True)`` with the quicker ``__init__`` (same signature).

    Only plain fields (each an argument, with or without a default value) are supported; the
    dataclass's own ``__init__`` is never made (making it costs a node type as much again as the
    rest of the decorator, which is paid at every start of the tools)."""
    cls = dataclass(frozen=True, slots=True, init=False)(cls)
    fs = fields(cls)
    if hasattr(cls, "__post_init__") or any(
            not f.init or f.kw_only or f.default_factory is not MISSING for f in fs):
        raise TypeError(f"@frozen: {cls.__name__} has a field its __init__ would not just store")
    names = [f.name for f in fs]
    env = {f"_set_{n}": cls.__dict__[n].__set__ for n in names}
    env.update({f"_default_{f.name}": f.default for f in fs if f.default is not MISSING})
    params = ", ".join(n if f.default is MISSING else f"{n}=_default_{n}" for n, f in zip(names, fs))
    body = "".join(f"\n        _set_{n}(self, {n})" for n in names) or "\n        pass"
    # the setters and defaults are a factory's closure, so the body reads them as cells
    factory = (f"def factory({', '.join(env)}):\n"
               f"    def __init__(self, {params}):{body}\n"
               "    return __init__\n")
    scope: dict = {}
    exec(factory, scope)
    init = scope["factory"](**env)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__annotations__ = {**{f.name: f.type for f in fs}, "return": None}
    cls.__init__ = init
    return cls
