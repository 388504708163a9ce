"""compiler/opt/dependence.py: the questions answered without z3 get z3's answer."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inca.compiler.incaq.ast import Binary, Index, Name, Num
from inca.compiler.incaq.checked import Sym
from inca.compiler.opt import dependence
from inca.compiler.opt.dependence import Access, conflict
from inca.compiler.opt.ir import Span, names_read

SYMS = {n: Sym(n, "scalar", "i64") for n in ("i", "j", "k")}
SYMS["x"] = Sym("x", "scalar", "f64")  # not affine: an f64 scalar


def _term(name: str, c: int):
    return Name(name) if c == 1 else Binary("*", Num(c, False), Name(name))


def _expr(const: int, terms: list[tuple[str, int]]):
    e = Num(const, False)
    for name, c in terms:
        e = Binary("+", e, _term(name, c))
    return e


coefficient = st.integers(-3, 3)
forms = st.builds(_expr, st.integers(-4, 4),
                  st.lists(st.tuples(st.sampled_from(["i", "j", "k", "x"]), coefficient), max_size=2))
spans = st.builds(lambda start, length, step: Span(start, length, step, "t"), forms,
                  st.integers(0, 4), st.integers(1, 3))
indices = st.lists(st.one_of(forms, forms, spans), min_size=1, max_size=2)


@st.composite
def questions(draw):
    a = draw(indices)
    # b shares some of a's indices (the cases with a known answer), or has its own
    b = [x if draw(st.booleans()) else draw(st.one_of(forms, spans)) for x in a]
    ranges = {n: (lo, lo + draw(st.integers(0, 3))) for n in draw(st.sets(st.sampled_from(["j", "k"])))
              for lo in [draw(st.integers(-2, 2))]}
    lo = draw(st.integers(-2, 2))
    return a, b, lo, lo + draw(st.integers(0, 4)), ranges


def _access(index) -> Access:
    return Access("A", tuple(index), True, 0, Index("A", ()))


@settings(max_examples=300, deadline=None)
@given(questions())
def test_a_question_answered_without_z3_gets_z3s_answer(q):
    a, b, lo, hi, ranges = q
    asked = []
    real = dependence._satisfiable

    def ask(question: str) -> bool:
        asked.append(question)
        return real(question)

    dependence._satisfiable = ask
    try:
        got = conflict(_access(a), _access(b), "i", lo, hi, SYMS, ranges)
    except dependence.NotAffine:
        return
    finally:
        dependence._satisfiable = real
    known = dependence._known_answer(_access(a), _access(b), "i", lo, hi, SYMS, ranges)
    if known is None:
        assert len(asked) == 1
        return
    assert not asked and got is known
    # z3 itself, on the question conflict() would have asked it
    original_known = dependence._known_answer
    dependence._known_answer = lambda *args: None
    try:
        assert conflict(_access(a), _access(b), "i", lo, hi, SYMS, ranges) is known
    finally:
        dependence._known_answer = original_known


def test_the_two_kinds_of_known_answer():
    i = Name("i")
    same_moving = [_access([i]), _access([i])]
    assert dependence._known_answer(*same_moving, "i", 0, 4, SYMS, {}) is False
    fixed = [_access([Name("j")]), _access([Name("j")])]
    assert dependence._known_answer(*fixed, "i", 0, 4, SYMS, {"j": (0, 3)}) is True
    # one iteration only, or an empty range of j: left to z3 (which says no conflict)
    assert dependence._known_answer(*fixed, "i", 0, 1, SYMS, {}) is None
    assert dependence._known_answer(*fixed, "i", 0, 4, SYMS, {"j": (2, 2)}) is None
    assert conflict(*fixed, "i", 0, 4, SYMS, {"j": (2, 2)}) is False


def _value(form, i: int, j: int) -> int:
    """An index form of :data:`inner_forms` at i and j."""
    if isinstance(form, Num):
        return form.value
    if isinstance(form, Name):
        return {"i": i, "j": j}[form.id]
    left, right = _value(form.left, i, j), _value(form.right, i, j)
    return left * right if form.op == "*" else left + right


inner_forms = st.builds(_expr, st.integers(-4, 4),
                        st.lists(st.tuples(st.sampled_from(["i", "j"]), coefficient), max_size=2))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 2).flatmap(lambda n: st.tuples(st.lists(inner_forms, min_size=n, max_size=n),
                                                     st.lists(inner_forms, min_size=n, max_size=n))),
       st.tuples(st.integers(-2, 2), st.integers(0, 3)), st.tuples(st.integers(-2, 2), st.integers(0, 3)),
       st.booleans(), st.booleans(), st.integers(-2, 2), st.integers(0, 4), st.booleans())
def test_apart_agrees_with_trying_every_iteration(ab, ja, jb, a_inner, b_inner, lo, trip, same):
    # two accesses in distinct iterations i1 != i2, each in its own inner loop over j (or none);
    # ``same``: one access against itself (a store's own element), which apart answers without
    # z3 when an index moves with i alone
    a, b = ab
    if same:
        b = a
    ra = {"j": (ja[0], ja[0] + ja[1])} if a_inner else {}
    rb = {"j": (jb[0], jb[0] + jb[1])} if b_inner else {}
    if not a_inner and any("j" in names_read(x) for x in a) or \
            not b_inner and any("j" in names_read(x) for x in b):
        return  # j outside its loop would be a scalar shared by both: not this question
    hi = lo + trip
    a_js = range(*ra["j"]) if a_inner else [0]
    b_js = range(*rb["j"]) if b_inner else [0]
    meet = any(all(_value(x, i1, j1) == _value(y, i2, j2) for x, y in zip(a, b))
               for i1 in range(lo, hi) for i2 in range(lo, hi) if i1 != i2
               for j1 in a_js for j2 in b_js)
    assert dependence.apart(tuple(a), ra, tuple(b), rb, "i", lo, hi, SYMS) == (not meet)
