"""lang/frozen.py: @frozen and @record keep every behaviour of the dataclasses they stand for."""
from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from pathlib import Path
from typing import ClassVar

import pytest

from inca.compiler.incaq import ast
from inca.lang.diagnostics import Loc, make_loc
from inca.lang import record_inits
from inca.lang.frozen import field, fields, frozen, is_record, maker, packed, record, replace
from inca.lang.program import Affine, Imm, Instr, Ref
from inca.lang.tuple_model import Tuple, encode


@frozen
class _Node:
    name: str
    count: int = 3
    loc: Loc | None = dataclasses.field(default=None, compare=False)


def test_a_frozen_node_is_a_frozen_dataclass_with_slots():
    n = _Node("a", loc=Loc("f", 1, 2))
    assert (n.name, n.count, n.loc) == ("a", 3, Loc("f", 1, 2))
    assert n == _Node("a", 3) and hash(n) == hash(_Node("a", 3)) and n != _Node("a", 4)
    assert repr(n) == "_Node(name='a', count=3, loc=Loc(file='f', line=1, col=2, end_col=None))"
    with pytest.raises(dataclasses.FrozenInstanceError):
        n.name = "b"
    assert not hasattr(n, "__dict__")
    assert dataclasses.replace(n, count=4) == _Node("a", 4)
    assert pickle.loads(pickle.dumps(n)) == n
    stock = dataclasses.dataclass(frozen=True)(type("_Node", (), {"__annotations__": _Node.__annotations__,
                                                                 "count": 3, "loc": None}))
    assert inspect.signature(_Node) == inspect.signature(stock)
    with pytest.raises(TypeError):
        _Node()
    with pytest.raises(TypeError):
        _Node("a", 1, None, 2)
    match n:
        case _Node(name="a", count=c):
            assert c == 3
        case _:
            pytest.fail("the node did not match its class pattern")


def test_the_fields_of_the_project_nodes_are_stored_in_order():
    loc = Loc("k.incaq", 3, 4, 9)
    b = ast.Binary("+", ast.Name("x", loc), ast.Num(2, False), loc)
    assert (b.op, b.left.id, b.right.value, b.loc) == ("+", "x", 2, loc)
    ins = Instr("ADD", Ref("x", (Affine(1, (("i", 2),)),)), Imm(2, "i64"), None, loc)
    t = encode_one(ins)
    assert (t.k, t.op, t.trigger.threshold, t.entry.dest, t.loc) == (1, "ADD", 1, ins.dest, loc)


def encode_one(ins: Instr) -> Tuple:
    from inca.lang.program import Decl, Program

    return encode(Program((Decl("x", "var", "i64", (4,)),), (ins, Instr("END")))).tuples[0]


def test_a_field_the_init_would_not_just_store_is_refused():
    with pytest.raises(TypeError, match="_Made"):
        @frozen
        class _Made:
            items: list = dataclasses.field(default=(), init=False)
    with pytest.raises(TypeError, match="_Post"):
        @frozen
        class _Post:
            x: int

            def __post_init__(self):
                pass
    with pytest.raises(TypeError, match="_Derived"):
        @frozen
        class _Derived(_Node):
            more: int = 0
    with pytest.raises(TypeError, match="ClassVar"):
        @frozen
        class _Shared:
            table: ClassVar[dict]
    with pytest.raises(TypeError, match="non-default argument 'b' follows default argument"):
        @frozen
        class _Order:
            a: int = 0
            b: int
    with pytest.raises(ValueError, match="mutable default"):
        @frozen
        class _Mutable:
            a: list = []


def test_an_encoded_tuple_is_the_tuple_built_from_its_parts():
    from inca.lang.isa import Update
    from inca.lang.program import Decl, Program
    from inca.lang.tuple_model import Entry, Trigger, operands

    loc = Loc("k.incaq", 2, 1, 8)
    x = Ref("x", (Affine(1, (("i", 2),)),), loc)
    instrs = (Instr("ADD", x, Imm(2, "i64"), None, loc), Instr("BLEZ", x, None, 1, loc),
              Instr("JMP", None, None, 1, loc), Instr("END"))
    encoded = encode(Program((Decl("x", "var", "i64", (4,)),), instrs)).tuples
    built = (Tuple(1, "ADD", Trigger("pc", 1, 1, Imm(2, "i64")),
                   Entry(1, x, "i64", "SUM", Update.INC), loc),
             Tuple(2, "BLEZ", Trigger("pc", 2, 2, 1), Entry(2, x, "i64", "CT_BLEZ", Update.BLEZ, 1), loc),
             Tuple(3, "JMP", Trigger("pc", 3, 3, 1), Entry(3, None, None, "CT_SET", Update.SET, 1), loc),
             Tuple(4, "END", Trigger("pc", 4, None, None), None))
    for ins, t, b in zip(instrs, encoded, built):
        assert type(t) is Tuple  # (not the class encode makes it with)
        assert t.instr() is ins and operands(t) == operands(b) and t.instr() == b.instr()
        fresh = pickle.loads(pickle.dumps(t))  # (before its parts are made)
        assert fresh == t and fresh.loc == t.loc and repr(fresh) == repr(b)
        assert t == b and hash(t) == hash(b) and (t.trigger, t.entry) == (b.trigger, b.entry)
        assert t.trigger is t.trigger and t.entry is t.entry  # made once
        assert t.instr() == ins and (t.k, t.op, t.loc) == (b.k, b.op, b.loc)
        with pytest.raises(dataclasses.FrozenInstanceError):
            t.entry = None
        with pytest.raises(dataclasses.FrozenInstanceError):
            del t.k
        match t:
            case Tuple(k, op, trigger=Trigger(threshold=th)):
                assert (k, op, th) == (b.k, b.op, b.k)
            case _:
                pytest.fail("the tuple did not match its class pattern")
    assert encoded[0] != encoded[1] and encoded[0] != built[1]


def _pair(annotations: dict, namespace: dict):
    """The same class made by @frozen and by the stock frozen dataclass with slots."""
    def body():
        return {"__annotations__": dict(annotations), "__qualname__": "_Shape", **namespace}

    ours = frozen(type("_Shape", (), body()))
    stock = dataclasses.dataclass(frozen=True, slots=True)(type("_Shape", (), body()))
    return ours, stock


@pytest.mark.parametrize("annotations, namespace, args", [
    ({}, {}, ()),
    ({"a": "int"}, {}, (1,)),
    ({"a": "int", "b": "str"}, {"b": "z"}, (2,)),
    ({"a": "float", "loc": "object"}, {"loc": dataclasses.field(default=None, compare=False)},
     (float("nan"), "here")),
    ({"a": "int", "note": "str"}, {"note": dataclasses.field(default="n", repr=False)}, (3, "m")),
    ({"a": "int", "b": "int"}, {"b": dataclasses.field(default=0, hash=False)}, (4, 5)),
])
def test_the_methods_made_on_first_use_are_the_dataclass_s(annotations, namespace, args):
    ours, stock = _pair(annotations, namespace)
    o, s = ours(*args), stock(*args)
    assert repr(o) == repr(s)  # completes the class: the stubs give way to compiled methods
    assert ours.__dict__["__repr__"].__qualname__ == "_Shape.__repr__"
    # fields compared as one tuple, as 3.11's dataclass does, on every Python version (3.13's
    # compares them one by one, so there the same NaN object makes two nodes unequal)
    assert o == ours(*args) and hash(o) == hash(s)
    assert (o == s) is False and o != s
    back = copy.deepcopy(o)  # through __reduce__, as pickling (the class is local: not picklable)
    assert type(back) is ours and repr(back) == repr(o)
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(stock)]
    assert ours.__match_args__ == stock.__match_args__
    with pytest.raises(dataclasses.FrozenInstanceError):
        o.a = 1


def test_each_method_first_used_completes_the_class():
    for use in (repr, hash, lambda n: n == n, copy.copy):
        cls = frozen(type("_Fresh", (), {"__annotations__": {"x": "int"}}))
        use(cls(1))
        assert all(cls.__dict__[m].__qualname__ == f"_Fresh.{m}"
                   for m in ("__repr__", "__eq__", "__hash__", "__reduce__"))
        assert cls(1) == cls(1) and cls(1) != cls(2) and hash(cls(1)) == hash((1,))


def test_a_class_s_own_methods_are_kept():
    def own_eq(self, other):
        return True

    def own_repr(self):
        return "mine"

    cls = frozen(type("_Own", (), {"__annotations__": {"x": "int"}, "__eq__": own_eq,
                                   "__repr__": own_repr, "__hash__": None}))
    assert repr(cls(1)) == "mine" and cls(1) == cls(2)
    assert hash(cls(1)) == hash((1,))  # as the dataclass: a class with only __eq__ hashes its fields


def test_a_stub_called_after_its_class_was_completed_gives_the_real_answer():
    # another thread, or a caller that looked the method up before the class's first use
    cls = frozen(type("_Late", (), {"__annotations__": {"x": "int"}}))
    stubs = (cls.__repr__, cls.__eq__, cls.__hash__)
    assert repr(cls(1)) == "_Late(x=1)"  # completes the class
    late_repr, late_eq, late_hash = stubs
    assert late_repr(cls(2)) == "_Late(x=2)" and late_eq(cls(3), cls(3)) is True
    assert late_hash(cls(4)) == hash((4,))


def test_init_is_made_from_a_template_with_the_fields_names_and_defaults():
    @frozen
    class _Many:  # more than ten fields: the closure's cells follow the template's free names
        a: int
        b: int
        c: int
        d: int
        e: int
        f: int
        g: int
        h: int
        i: int
        j: int
        k: int = 10
        m: int = 11

    m = _Many(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
    assert [getattr(m, n) for n in "abcdefghijkm"] == list(range(12))
    assert _Many(*range(12)) == _Many(**{n: v for n, v in zip("abcdefghijkm", range(12))})
    assert _Many.__init__.__code__.co_qualname.endswith("_Many.__init__")
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'j'"):
        _Many(*range(9))

    @frozen
    class _Empty:
        pass

    assert _Empty() == _Empty() and repr(_Empty()) == "test_init_is_made_from_a_template_with_the_fields_names_and_defaults.<locals>._Empty()"
    with pytest.raises(TypeError, match="'self'"):
        @frozen
        class _Self:
            self: int


def _record_pair(annotations: dict, namespace: dict, eq: bool):
    """The same class made by @record and by the stock dataclass (a dict in ``namespace``: the
    arguments of a field(), ours or the stock one)."""
    def body(make):
        return {"__annotations__": dict(annotations), "__qualname__": "_Rec",
                **{k: make(**v) if isinstance(v, dict) else v for k, v in namespace.items()}}

    return (record(type("_Rec", (), body(field)), eq=eq),
            dataclasses.dataclass(eq=eq)(type("_Rec", (), body(dataclasses.field))))


_RECORDS = [
    ({}, {}, ()),
    ({"a": "int"}, {}, (1,)),
    ({"a": "int", "b": "str"}, {"b": "z"}, (2,)),
    ({"a": "int", "items": "list"}, {"items": {"default_factory": list}}, (3,)),
    ({"a": "float", "loc": "object"}, {"loc": {"default": None, "compare": False}}, (4.5, "here")),
    ({"a": "int", "note": "str"}, {"note": {"default": "n", "repr": False}}, (5, "m")),
]


@pytest.mark.parametrize("eq", [True, False])
@pytest.mark.parametrize("annotations, namespace, args", _RECORDS)
def test_a_record_is_the_stock_dataclass(annotations, namespace, args, eq):
    ours, stock = _record_pair(annotations, namespace, eq)
    o, s = ours(*args), stock(*args)
    assert repr(o) == repr(s) and str(inspect.signature(ours)) == str(inspect.signature(stock))
    assert (o == ours(*args)) is eq and (o == o) and (o == s) is False
    assert (ours.__hash__ is None) is (stock.__hash__ is None) is eq
    assert ours.__match_args__ == stock.__match_args__
    for f in dataclasses.fields(stock):  # defaults stay class attributes; a factory's do not
        assert getattr(ours, f.name, "none") == getattr(stock, f.name, "none")
    made = [(f.name, f.type, f.default, f.default_factory, f.repr, f.hash, f.compare, f.init)
            for f in dataclasses.fields(ours)]
    assert made == [(f.name, f.type, f.default, f.default_factory, f.repr, f.hash, f.compare, f.init)
                    for f in dataclasses.fields(stock)]
    assert dataclasses.asdict(o) == dataclasses.asdict(s) and dataclasses.is_dataclass(o)
    assert ours.__dataclass_params__.eq is eq and not ours.__dataclass_params__.frozen
    if args:
        o.a = 9  # mutable
        assert o.a == 9 and repr(replace(o, a=1)) == repr(ours(1, *args[1:]))
        assert repr(dataclasses.replace(o, a=1)) == repr(replace(o, a=1))
    back = copy.deepcopy(o)
    assert type(back) is ours and repr(back) == repr(o)


def test_a_default_factory_makes_a_new_value_for_each_record():
    @frozen
    class _Options:
        defines: dict = dataclasses.field(default_factory=dict)
        opt: int = 0

    a, b = _Options(), _Options()
    assert a.defines == {} and a.defines is not b.defines and _Options({"N": 1}, 2).opt == 2
    assert repr(a) == "test_a_default_factory_makes_a_new_value_for_each_record.<locals>._Options(defines={}, opt=0)"

    @record
    class _Scan:
        reads: dict = field(default_factory=dict)

    assert _Scan().reads is not _Scan().reads and not hasattr(_Scan, "reads")
    with pytest.raises(ValueError, match="both"):
        field(default=1, default_factory=list)


def test_what_dataclasses_says_of_a_record_is_made_once_when_asked():
    cls = frozen(type("_Asked", (), {"__annotations__": {"x": "int"}}))
    assert "__dataclass_fields__" not in cls.__dict__ or not isinstance(
        cls.__dict__["__dataclass_fields__"], dict)
    made = dataclasses.fields(cls(1))  # asked of an instance
    assert [f.name for f in made] == ["x"] and isinstance(cls.__dict__["__dataclass_fields__"], dict)
    assert cls.__dataclass_params__.frozen and dataclasses.is_dataclass(cls)
    assert dataclasses.replace(cls(1), x=2) == cls(2) and dataclasses.asdict(cls(3)) == {"x": 3}


def test_fields_and_replace_serve_records_and_replace_other_dataclasses():
    n = _Node("a", 4)
    assert [f.name for f in fields(n)] == ["name", "count", "loc"] and fields(_Node) is fields(n)
    assert replace(n, count=5) == _Node("a", 5) and is_record(n) and not is_record((1,))
    with pytest.raises(TypeError):
        fields(1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        replace(n, size=2)
    stock = dataclasses.dataclass(type("_Stock", (), {"__annotations__": {"x": "int"}}))
    assert replace(stock(1), x=2).x == 2


@pytest.mark.parametrize("annotations, namespace, args", [
    ({"a": "int"}, {}, (1,)),
    ({"a": "int", "b": "str"}, {"b": "z"}, (2,)),
    ({"file": "str", "line": "int", "col": "int", "end_col": "int | None"}, {"end_col": None},
     ("k.incaq", 3, 4)),
])
def test_a_packed_record_is_the_frozen_dataclass_but_for_being_a_tuple(annotations, namespace, args):
    def body():
        return {"__annotations__": dict(annotations), "__qualname__": "_Shape", **namespace}

    ours = packed(type("_Shape", (), body()))
    stock = dataclasses.dataclass(frozen=True, slots=True)(type("_Shape", (), body()))
    o, s = ours(*args), stock(*args)
    assert repr(o) == repr(s) and inspect.signature(ours) == inspect.signature(stock)
    assert [getattr(o, f) for f in annotations] == [getattr(s, f) for f in annotations]
    assert o == ours(*args) and not o != ours(*args) and hash(o) == hash(ours(*args))
    assert (o == s) is False and o != s
    # equal to nothing but one of its class: not to the tuple of its fields, either way round
    plain = tuple(getattr(o, f) for f in annotations)
    assert (o == plain, plain == o, o != plain, plain != o) == (False, False, True, True)
    assert plain not in {o} and o not in {plain}
    for order in (lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: a > b, lambda a, b: a >= b):
        with pytest.raises(TypeError):
            order(o, ours(*args))
    for name in annotations:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(o, name, 1)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(o, name)
    back = copy.deepcopy(o)
    assert type(back) is ours and back == o and copy.copy(o) == o
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(stock)]
    assert [f.name for f in fields(o)] == list(annotations) and is_record(o)
    first = next(iter(annotations))
    assert replace(o, **{first: args[0]}) == o and dataclasses.replace(o, **{first: args[0]}) == o
    assert ours.__match_args__ == stock.__match_args__ and not hasattr(o, "__dict__")
    assert tuple.__new__(ours, plain) == o


def test_a_packed_record_compares_every_field_and_has_no_factory():
    for namespace in ({"b": dataclasses.field(default=0, compare=False)},
                      {"b": dataclasses.field(default_factory=list)},
                      {"b": dataclasses.field(default=0, hash=False)}):
        with pytest.raises(TypeError, match="@packed"):
            packed(type("_Bad", (), {"__annotations__": {"a": "int", "b": "int"}, **namespace}))


def test_a_location_is_packed_and_pickles_as_itself():
    loc = Loc("k.incaq", 3, 4, 9)
    assert make_loc(("k.incaq", 3, 4, 9)) == loc and type(make_loc(("f", 1, 1, None))) is Loc
    assert pickle.loads(pickle.dumps(loc)) == loc and str(loc) == "k.incaq:3:4"
    node = ast.Name("x", loc)
    assert pickle.loads(pickle.dumps(node)).loc == loc


def test_the_init_templates_are_the_text_their_generator_writes():
    text = Path(record_inits.__file__).read_text(encoding="utf-8")
    assert text.endswith(record_inits.source())
    for kind in ("frozen", "mutable", "making"):
        assert text.count(f"\ndef {kind}") == record_inits.FIELDS + 1
    # ... and cover every record of the toolchain
    import importlib
    import pkgutil

    widest = 0
    for package in ("inca.compiler", "inca.interpreter", "inca.lang"):
        for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + "."):
            module = importlib.import_module(info.name)
            for value in vars(module).values():
                if isinstance(value, type) and is_record(value) and value.__module__ == info.name:
                    widest = max(widest, len(fields(value)))
    assert 9 <= widest <= record_inits.FIELDS


@pytest.mark.parametrize("count", [0, 1, 5, 13, 14, 20])
def test_records_of_up_to_the_templates_fields_are_made_without_a_compile(count, monkeypatch):
    import inca.lang.frozen as module

    def no_compile(*args):
        raise AssertionError("compiled an __init__")

    if count <= record_inits.FIELDS:
        monkeypatch.setattr(module, "exec", no_compile, raising=False)
    names = [f"f{i}" for i in range(count)]
    body = {"__annotations__": {n: "int" for n in names}, "__qualname__": "_Wide"}
    if count:
        body[names[-1]] = -1  # the last field has a default
    fixed, mutable = frozen(type("_Wide", (), dict(body))), record(type("_Wide", (), dict(body)))
    args = list(range(count - 1))
    stock = dataclasses.dataclass(type("_Wide", (), dict(body)))
    for cls in (fixed, mutable):
        made = cls(*args)
        assert [getattr(made, n) for n in names] == args + ([-1] if count else [])
        assert cls.__init__.__code__.co_qualname == "_Wide.__init__"
        assert str(inspect.signature(cls)) == str(inspect.signature(stock))
    if count > 1:
        for cls in (fixed, mutable):
            with pytest.raises(TypeError, match="missing 1 required positional argument"):
                cls(*args[:-1])
    with pytest.raises(TypeError, match="'self'"):
        record(type("_Self", (), {"__annotations__": {"self": "int"}}))


@pytest.mark.parametrize("count", [0, 1, 5, 14])
def test_a_maker_makes_the_record_its_class_makes(count):
    names = [f"f{i}" for i in range(count)]
    body = {"__annotations__": {n: "int" for n in names}, "__qualname__": "_Made"}
    if count:
        body[names[-1]] = -1
    cls = frozen(type("_Made", (), body))
    make = maker(cls)
    assert maker(cls) is make  # made once
    args = list(range(count - 1)) if count else []
    made = make(*args)
    assert type(made) is cls and made == cls(*args) and repr(made) == repr(cls(*args))
    assert hash(made) == hash(cls(*args)) and copy.copy(made) == made
    assert [getattr(made, n) for n in names] == args + ([-1] if count else [])
    if count:
        assert make(**{n: 7 for n in names}) == cls(*[7] * count)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, names[0], 1)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(made, names[0])
    with pytest.raises(TypeError):
        make(*args, 1, 2)


def test_the_project_s_makers_make_its_nodes():
    # every maker a module of the compiler holds makes what its class makes
    import importlib

    from inca.lang.frozen import fields

    found = 0
    for name in ("incaq.fast_exprs", "incaq.fast_parser", "incaq.checker", "incaq.check_exprs",
                 "incaq.lower", "asm_fast"):
        module = importlib.import_module(f"inca.compiler.{name}")
        for value in vars(module).values():
            if not (isinstance(value, type) and value.__qualname__.endswith(".__maker__")):
                continue
            cls = value.__mro__[1]
            assert maker(cls) is value
            args = [None] * len(fields(cls))
            made = value(*args)
            assert type(made) is cls and made == cls(*args)
            assert pickle.loads(pickle.dumps(made)) == made
            found += 1
    assert found >= 19


def test_only_a_frozen_class_without_factories_has_a_maker():
    plain = record(type("_Plain", (), {"__annotations__": {"a": "int"}}))
    tupled = packed(type("_Tupled", (), {"__annotations__": {"a": "int"}}))
    factory = frozen(type("_Factory", (), {"__annotations__": {"a": "list"},
                                            "a": field(default_factory=list)}))
    for cls in (plain, tupled, int):
        with pytest.raises(TypeError, match="not a class of @frozen"):
            maker(cls)
    with pytest.raises(TypeError, match="default factory"):
        maker(factory)
