"""Dependence: can two iterations of a loop touch the same element? Decided exactly, by z3.

An access is an array name and its index expressions, affine in the loop variable, in scalars the
loop does not write (the same value in both iterations) and, for a vector index (:class:`Span`),
in a position variable running over the span. Two accesses conflict when some pair of distinct
iterations ``i1 != i2`` in the loop's range makes every index equal. The question is a small
linear integer problem; z3 answers it exactly (z3 is imported only when a loop is analysed). The
question is handed to z3 as SMT-LIB text, parsed in one call: built term by term through z3's
Python API, the same constraints cost about twenty times as much as z3 takes to answer them
(most of an -O2 compilation's time). And the answers are remembered by the question's text: the
passes ask the same few questions many times (convolution at -O2: 417 questions, 7 different).
The two commonest kinds of question are answered without z3 (:func:`_known_answer`), exactly as
z3 answers them (a test compares the two on random accesses).
"""
from __future__ import annotations

from functools import lru_cache

from ...lang.frozen import frozen
from ..incaq.ast import Index, nodes
from ..incaq.checked import Sym
from .ir import Span, affine, const_int


@frozen
class Access:
    """One array access of a loop body: ``write`` tells a store from a load."""

    array: str
    index: tuple
    write: bool
    stmt: int
    node: Index


def accesses_of(body: tuple) -> list[Access]:
    """Every array access of a block of assignments to elements, each value's before its
    store."""
    out = []
    for n, x in enumerate(body):
        out.extend(Access(e.base, e.indices, False, n, e) for e in nodes(x.value) if isinstance(e, Index))
        out.append(Access(x.target.base, x.target.indices, True, n, x.target))
    return out


def store_pairs(accesses: list[Access]):
    """Each (store, access) pair of one array: the pairs a dependence test asks about."""
    return ((a, b) for a in accesses if a.write for b in accesses if b.array == a.array)


class NotAffine(Exception):
    """An index is not an affine expression of loop-invariant scalars."""


def _num(v: int) -> str:
    return str(v) if v >= 0 else f"(- {-v})"


def _linear(e, syms: dict[str, Sym], env: dict[str, str], fresh: list, names: set[str]) -> str:
    """The SMT-LIB term of an index: ``env`` names the loop variable's symbol in this iteration,
    other scalars are one symbol each (the same in both iterations), a Span a fresh position."""
    if isinstance(e, Span):
        t = f"|t{len(fresh)}|"
        fresh.append((t, e.length))
        return f"(+ {_linear(e.start, syms, env, fresh, names)} (* {_num(e.step)} {t}))"
    a = affine(e, syms)
    if a is None:
        raise NotAffine(e)
    terms = [_num(a[0])]
    for n, c in a[1].items():
        if n not in env:
            names.add(n)
        terms.append(f"(* {_num(c)} {env.get(n, _symbol(n))})")
    return f"(+ {' '.join(terms)})" if len(terms) > 1 else terms[0]


def _symbol(name: str) -> str:
    return f"|{name}|"  # quoted: any INCA-Q name, never an SMT-LIB keyword


def conflict(a: Access, b: Access, var: str, lo: int, hi: int, syms: dict[str, Sym],
             ranges: dict[str, tuple[int, int]]) -> bool:
    """Whether iterations ``i1 != i2`` of ``for var in lo .. hi`` give a and b a common element.

    ``ranges`` bounds other scalars (enclosing loop variables), which are the same in both
    iterations. Raises NotAffine when an index cannot be analysed."""
    fresh: list = []
    names: set[str] = set(ranges)
    i1, i2 = "|__i1|", "|__i2|"
    facts = [f"(= {_linear(x, syms, {var: i1}, fresh, names)} {_linear(y, syms, {var: i2}, fresh, names)})"
             for x, y in zip(a.index, b.index)]
    facts += [f"(>= {t} 0) (< {t} {_num(n)})" for t, n in fresh]
    facts += [f"(>= {_symbol(n)} {_num(rlo)}) (< {_symbol(n)} {_num(rhi)})"
              for n, (rlo, rhi) in ranges.items()]
    facts.append(f"(>= {i1} {_num(lo)}) (< {i1} {_num(hi)}) (>= {i2} {_num(lo)}) (< {i2} {_num(hi)}) "
                 f"(distinct {i1} {i2})")
    symbols = [i1, i2, *(t for t, _ in fresh), *(_symbol(n) for n in sorted(names))]
    known = _known_answer(a, b, var, lo, hi, syms, ranges)
    if known is not None:
        return known
    return _satisfiable("".join(f"(declare-const {x} Int)" for x in symbols)
                        + f"(assert (and {' '.join(facts)}))")


def apart(a: tuple, a_inner: dict[str, tuple[int, int]], b: tuple, b_inner: dict[str, tuple[int, int]],
          var: str, lo: int, hi: int, syms: dict[str, Sym]) -> bool:
    """Whether two accesses (index tuples) of one array never touch a common element in distinct
    iterations ``i1 != i2`` of ``for var in lo .. hi``, each nested in inner loops whose variables
    run over the ranges ``a_inner`` and ``b_inner`` (chosen freely in each access's own
    iteration). Other scalars are the same in both. Raises NotAffine when an index cannot be
    analysed."""
    for x, y in zip(a, b):
        # the same affine form in both, moving with var and with no inner loop's variable (chosen
        # apart in each access): c*i1 + r = c*i2 + r gives i1 = i2, so they never meet (z3's
        # answer, without importing z3 for the commonest question: M[i][j] over i)
        if isinstance(x, Span) or isinstance(y, Span):
            continue
        form = affine(x, syms)
        if form is not None and form == affine(y, syms) and form[1].get(var) \
                and not set(form[1]) & (set(a_inner) | set(b_inner)):
            return True
    fresh: list = []
    names: set[str] = set()
    i1, i2 = "|__i1|", "|__i2|"
    env_a = {var: i1, **{n: f"|__a.{n}|" for n in a_inner}}
    env_b = {var: i2, **{n: f"|__b.{n}|" for n in b_inner}}
    facts = [f"(= {_linear(x, syms, env_a, fresh, names)} {_linear(y, syms, env_b, fresh, names)})"
             for x, y in zip(a, b)]
    facts += [f"(>= {t} 0) (< {t} {_num(n)})" for t, n in fresh]
    for env, inner in ((env_a, a_inner), (env_b, b_inner)):
        facts += [f"(>= {env[n]} {_num(rlo)}) (< {env[n]} {_num(rhi)})" for n, (rlo, rhi) in inner.items()]
    facts.append(f"(>= {i1} {_num(lo)}) (< {i1} {_num(hi)}) (>= {i2} {_num(lo)}) (< {i2} {_num(hi)}) "
                 f"(distinct {i1} {i2})")
    symbols = [i1, i2, *(t for t, _ in fresh), *(env_a[n] for n in a_inner),
               *(env_b[n] for n in b_inner), *(_symbol(n) for n in sorted(names))]
    return not _satisfiable("".join(f"(declare-const {x} Int)" for x in symbols)
                            + f"(assert (and {' '.join(facts)}))")


def distinct_stores(indices: tuple, loops: list, syms: dict[str, Sym]) -> bool:
    """Whether an access at ``indices`` inside the counted ``loops`` (outermost first, constant
    bounds) touches a distinct element in each iteration of them taken together: for each loop,
    no two of its iterations meet, the loops before it the same in both and those after it free
    in each (``T[a + b]`` over a and b is not such an access: (0, 1) and (1, 0) meet)."""
    for n, outer in enumerate(loops):
        after = {o.var: (const_int(o.lo), const_int(o.hi)) for o in loops[n + 1:]}
        try:
            if not apart(indices, after, indices, after, outer.var, const_int(outer.lo),
                         const_int(outer.hi), syms):
                return False
        except NotAffine:
            return False
    return True


def _known_answer(a: Access, b: Access, var: str, lo: int, hi: int, syms: dict[str, Sym],
                  ranges: dict[str, tuple[int, int]]) -> bool | None:
    """z3's answer to :func:`conflict`'s question where one reading of the indices gives it, else
    None. Most questions of the paper's kernels are of two kinds; answering them here leaves z3
    unimported by their -O2 compilations (importing it is a third of one):

    - some index is the same affine form in a and b with a non-zero multiple ``c`` of the loop
      variable (``X[i]`` against ``X[i]``): ``c*i1 + r = c*i2 + r`` gives ``i1 = i2``, so two
      distinct iterations never meet (unsatisfiable);
    - every index is the same form in a and b, none moving with the loop variable (a Span: the
      same start, step and length): every choice of the other symbols makes them equal, so any
      two distinct iterations meet, when there are two and every range is non-empty."""
    same_everywhere = True
    for x, y in zip(a.index, b.index):
        if isinstance(x, Span) or isinstance(y, Span):
            if not (isinstance(x, Span) and isinstance(y, Span) and x.step == y.step
                    and x.length == y.length >= 1):
                same_everywhere = False
                continue
            x, y = x.start, y.start
            form = affine(x, syms)
            if form is None or var in form[1] or form != affine(y, syms):
                same_everywhere = False
            continue
        form = affine(x, syms)
        if form is None or form != affine(y, syms):
            same_everywhere = False
        elif form[1].get(var):
            return False
    if same_everywhere and hi - lo >= 2 and all(rlo < rhi for rlo, rhi in ranges.values()):
        return True
    return None


@lru_cache(maxsize=1024)
def _satisfiable(question: str) -> bool:
    """Whether z3 finds the SMT-LIB ``question`` satisfiable or cannot tell (within 2 s)."""
    import z3

    solver = z3.Solver()
    solver.set("timeout", 2000)
    solver.from_string(question)
    return solver.check() != z3.unsat
