"""Pass ``distribute`` (-O2): a loop whose statements do not all vectorise together is split.

``for i { t = X[i] - Y[i]; d = d + t * t }`` is neither a map (d is carried) nor a reduction
(two statements), so neither ``vectorise`` nor ``reduce`` takes it. Distributed over the loop, it
is two loops, ``for i { T[i] = X[i] - Y[i] }`` (a map) and ``for i { d = d + T[i] * T[i] }`` (a
reduction), and each of them is. The same split makes two reductions in one loop two trees, and
``for i { s = 0.0; for j { s = s + A[i][j] * x[j] }; y[i] = s }`` (matrix-vector product) three
loops, the middle one a perfect nest that ``interchange`` reorders and ``vectorise`` turns into one
vector statement per j.

The body's top-level statements are kept in order and cut into consecutive groups, one loop each
(all of the first group's iterations, then all of the second's). That keeps every value the same
when no statement depends on a later one of an earlier iteration, which is shown conservatively:

- a scalar the loop assigns that two groups touch is private (its first toucher in the body
  assigns it without reading it, so no value crosses iterations) and becomes an array with one
  element per iteration (its last value copied back after the loops; ``dce`` drops that copy when
  nothing reads it), or it is the variable of the inner for loops that touch it and of nothing else;
- an array this pass made (from a scalar of an inner loop: nothing outside the loop touches it)
  whose first toucher in the body stores every element without reading any gets one row per
  iteration, as a scalar gets one element: ``for i { for j { s = 0.0; for k { s = s + A[i][k] *
  B[k][j] }; C[i][j] = s } }`` is then a 2-D initialisation, a nest that ``interchange`` makes
  ``for k { for i { for j { ... } } }``, and a 2-D copy;
- an array written by one statement and touched by another is accessed, in both, only at one
  index tuple that is the same in every access and takes a distinct element in each iteration
  (affine, with a nonzero coefficient of the loop variable, reading no other scalar the loop
  assigns), or no two accesses of different statements (one a store) touch one element in
  distinct iterations, their inner loops' variables running over those loops' constant ranges
  (:func:`.dependence.apart`, by z3: ``B[i][0]`` against ``B[i][j]``): either way only the same
  iteration's statements touch an element, in the same order as before.

Statements that fail either rule stay in one group with everything between them. Each operation
runs as many times, on the same values, as at -O0; a run that faults still faults (possibly at
another operation first, as docs/optimiser.md allows).

Done only when the estimated time (:mod:`.estimate`) of the loops after ``interchange``,
``reduce`` and ``vectorise`` (tried on a copy of the kernel) is lower than the loop's own.
"""
from __future__ import annotations

from ...lang.frozen import replace
from ..incaq.ast import Assign, For, If, Index, Name, Num, nodes
from ..incaq.checked import Sym
from .estimate import cost
from .dependence import NotAffine, apart
from .ir import Kernel, Span, affine, affine_expr, assigned_before_read, const_int, is_plain, \
    map_expr, map_exprs_in, map_stmts, names_read, names_read_in, names_written, own_exprs, \
    stmts, written_name
from .remarks import Remarks


def _touches(s) -> tuple[set[str], set[str], list[tuple[Index, bool]]]:
    """(names read, names written, array accesses with whether each is a store) of one
    statement, nested statements included."""
    reads: set[str] = set()
    writes: set[str] = set()
    accesses: list[tuple[Index, bool]] = []
    for x in stmts((s,)):
        n = written_name(x)
        if n is not None:
            writes.add(n)
        if isinstance(x, Assign) and isinstance(x.target, Index):
            accesses.append((x.target, True))
        for e in own_exprs(x):
            for node in nodes(e):
                if isinstance(node, Name):
                    reads.add(node.id)
                elif isinstance(node, Index):
                    reads.add(node.base)
                    accesses.append((node, False))
    return reads, writes, accesses


def _has_span(body: tuple) -> bool:
    return any(isinstance(n, Span) for x in stmts(body) for e in own_exprs(x) for n in nodes(e))


class Distributor:
    def __init__(self, k: Kernel, remarks: Remarks, fast: bool):
        self.k, self.remarks, self.fast = k, remarks, fast
        self.made: set[str] = set()  # the arrays scalars were expanded into here (private)

    def loop(self, s) -> tuple:
        if not isinstance(s, For) or len(s.body) < 2:
            return (s,)
        lo, hi = const_int(s.lo), const_int(s.hi)
        if lo is None or hi is None or hi - lo < 2 or not is_plain(s.body) or _has_span(s.body):
            return (s,)  # (a span here is gather's: its start may read a private scalar)
        plan = self.plan(s)
        if plan is None:
            return (s,)
        groups, expand = plan
        syms = dict(self.k.syms)
        split = self.split(s, groups, expand, lo, hi)
        if self.tried(split) >= self.tried((s,)):
            self.k.syms.clear()
            self.k.syms.update(syms)  # (the expansions' arrays are not needed)
            return (s,)
        what = f"distributed into {len(groups)} loops"
        for kind, unit in (("scalar", "element"), ("array", "row")):
            names = sorted(n for n in expand if syms[n].kind == kind)
            if names:
                listed = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
                what += f" ({listed} expanded into one {unit} per iteration)"
        self.remarks.done(s.loc, f"loop over {s.var} {what}, so that parts of it vectorise or "
                          "reduce on their own")
        return split

    def plan(self, s: For) -> tuple[list[tuple], set[str]] | None:
        """The groups of statements (consecutive, in order) and the private scalars to expand;
        None when everything must stay in one loop."""
        body, i = s.body, s.var
        touched = [_touches(x) for x in body]
        assigned = set().union(*(w for _, w, _ in touched))
        if i in assigned:
            return None
        n = len(body)
        joined = list(range(n))  # joined[a] = the last statement that a's group reaches to

        def join(a: int, b: int) -> None:
            for c in range(a, b + 1):
                joined[c] = max(joined[c], b)
        crossing: dict[str, list[int]] = {}
        loop_vars = {x.var for x in stmts(body) if isinstance(x, For)}
        for name in assigned:
            sym = self.k.syms.get(name)
            if sym is None:
                return None
            who = [a for a, (r, w, _) in enumerate(touched) if name in r or name in w]
            if len(who) < 2:
                continue
            if sym.kind == "scalar":
                if assigned_before_read(body, name) and name not in loop_vars:
                    crossing[name] = who
                elif not all(isinstance(body[a], For) and body[a].var == name
                             and name not in names_read((body[a].lo, body[a].hi)) for a in who):
                    join(who[0], who[-1])
            elif self.overwritten(name, body):
                crossing[name] = who
            elif not self.pinned(name, [touched[a][2] for a in who], i, assigned) \
                    and not self.apart(name, [body[a] for a in who], s, assigned):
                join(who[0], who[-1])
        groups: list[tuple] = []
        a = 0
        while a < n:
            end = joined[a]
            b = a
            while b <= end:
                end = max(end, joined[b])
                b += 1
            groups.append(tuple(range(a, b)))
            a = b
        if len(groups) < 2:
            return None
        where = {a: g for g, members in enumerate(groups) for a in members}
        expand = {name for name, who in crossing.items() if len({where[a] for a in who}) > 1}
        return groups, expand

    def overwritten(self, name: str, body: tuple) -> bool:
        """Whether ``name`` is an array this pass made (so nothing outside the loop it was made
        for touches it) and the first statement of ``body`` to touch it stores every element
        without reading any, ``for j in lo .. hi { name[j - lo] = e }``: each iteration's values
        then never reach another, and it can have one row per iteration, as a scalar has one
        element (matrix multiplication with a scalar accumulator: the accumulators of one row,
        then of every row)."""
        if name not in self.made:
            return False
        first = next(x for x in body if name in _touches(x)[0] | _touches(x)[1])
        if not (isinstance(first, For) and len(first.body) == 1 and isinstance(first.body[0], Assign)):
            return False
        lo, hi, x = const_int(first.lo), const_int(first.hi), first.body[0]
        shape = self.k.syms[name].shape
        return lo is not None and hi is not None and len(shape) == 1 and hi - lo == shape[0] \
            and isinstance(x.target, Index) and x.target.base == name \
            and affine(x.target.indices[0], self.k.syms) == (-lo, {first.var: 1}) \
            and name not in names_read(x.value)

    def pinned(self, name: str, accesses: list[list[tuple[Index, bool]]], i: str,
               assigned: set[str]) -> bool:
        """Whether every access of array ``name`` is at one index tuple that takes a distinct
        element in each iteration of the loop over ``i``."""
        index = None
        for per in accesses:
            for node, _ in per:
                if node.base != name:
                    continue
                if index is None:
                    index = node.indices
                elif node.indices != index:
                    return False
        if index is None or any(isinstance(ix, Span) for ix in index):
            return False
        if (names_read(index) - {i}) & assigned:
            return False
        forms = [affine(ix, self.k.syms) for ix in index]
        return all(f is not None for f in forms) and any(f[1].get(i, 0) for f in forms)

    def apart(self, name: str, statements: list, s: For, assigned: set[str]) -> bool:
        """Whether no two of these statements touch one element of array ``name`` (one of them
        storing it) in distinct iterations of the loop ``s``, their inner loops' variables
        running over those loops' constant ranges (:func:`.dependence.apart`): the boundary
        column ``B[i][0]`` of a 2-D stencil against its interior ``B[i][j]``, j in 1 .. 9."""
        lo, hi = const_int(s.lo), const_int(s.hi)
        placed = [_placed((x,), name, {}) for x in statements]
        if any(p is None for p in placed):
            return False
        for a, mine in enumerate(placed):
            for theirs in placed[a + 1:]:
                for ix, store, inner in mine:
                    for iy, other, inner_y in theirs:
                        if not (store or other):
                            continue
                        if (names_read(ix + iy) - {s.var} - set(inner) - set(inner_y)) & assigned:
                            return False
                        try:
                            if not apart(ix, inner, iy, inner_y, s.var, lo, hi, self.k.syms):
                                return False
                        except NotAffine:
                            return False
        return True

    def split(self, s: For, groups: list[tuple], expand: set[str], lo: int, hi: int) -> tuple:
        body = s.body
        after = []
        pos = affine_expr((-lo, {s.var: 1}), s.loc)
        for name in sorted(expand):
            sym = self.k.syms[name]
            new = self.k.fresh("v")
            self.made.add(new)
            if sym.kind == "array":  # (one this pass made: nothing after the loop reads it)
                self.k.syms[new] = Sym(new, "array", sym.dtype, (hi - lo, *sym.shape), "var", 0, s.loc)
                body = _to_row(body, name, new, pos)
                continue
            self.k.syms[new] = Sym(new, "array", sym.dtype, (hi - lo,), "var", 0, s.loc)
            body = _to_element(body, name, new, pos)
            after.append(Assign(Name(name, s.loc), Index(new, (Num(hi - lo - 1, False, s.loc),),
                                                          s.loc), s.loc))
        loops = tuple(replace(s, body=tuple(body[a] for a in g)) for g in groups)
        return loops + tuple(after)

    def tried(self, block: tuple) -> float:
        return after_loop_passes(self.k, block, self.fast, distribute_first=False)


def _placed(body: tuple, name: str, inner: dict[str, tuple[int, int]]) -> list | None:
    """Each access of array ``name`` in a block: (indices, whether it stores, the ranges of the
    inner for loops around it); None if one is in a loop whose range is not constant."""
    out: list = []
    for x in body:
        if isinstance(x, Assign) and isinstance(x.target, Index) and x.target.base == name:
            out.append((x.target.indices, True, inner))
        for e in own_exprs(x):
            out.extend((n.indices, False, inner) for n in nodes(e)
                       if isinstance(n, Index) and n.base == name)
        if isinstance(x, For) and None not in (const_int(x.lo), const_int(x.hi)):
            deeper = _placed(x.body, name, {**inner, x.var: (const_int(x.lo), const_int(x.hi))})
        elif isinstance(x, If):
            deeper = _placed(x.then + x.orelse, name, inner)
        elif hasattr(x, "body"):
            deeper = None if name in names_read_in(x.body) | names_written(x.body) else []
        else:
            deeper = []
        if deeper is None:
            return None
        out.extend(deeper)
    return out


def _to_element(body: tuple, name: str, new: str, pos) -> tuple:
    """A block with scalar ``name`` (read or assigned) become the element ``new[pos]``."""
    return _map_accesses(body, lambda e: Index(new, (pos,), e.loc)
                         if isinstance(e, Name) and e.id == name else e)


def _to_row(body: tuple, name: str, new: str, pos) -> tuple:
    """A block with array ``name``'s accesses ``name[...]`` become ``new[pos][...]``."""
    return _map_accesses(body, lambda e: Index(new, (pos, *e.indices), e.loc)
                         if isinstance(e, Index) and e.base == name else e)


def _map_accesses(body: tuple, fn) -> tuple:
    """A block with ``fn`` applied to every expression node, assignments' targets included."""
    def stmt(x):
        if isinstance(x, Assign):
            return (replace(x, target=map_expr(x.target, fn), value=map_expr(x.value, fn)),)
        return (map_exprs_in(x, fn),)
    return map_stmts(body, stmt)


def after_loop_passes(k: Kernel, block: tuple, fast: bool, distribute_first: bool = True,
                      taken: bool = True) -> float:
    """The estimated time of ``block`` (statements of kernel k) after the loop passes from this
    one on (``distribute``, ``interchange``, ``reduce``, ``vectorise``), run on a copy of the
    kernel with their remarks dropped (``taken``: see :func:`.estimate.cost`)."""
    from .interchange import interchange
    from .reduce import reduce
    from .vectorise import vectorise

    copy = k.copy(block)
    scratch = Remarks()
    if distribute_first:
        copy = distribute(copy, scratch, fast)
    copy = interchange(copy, scratch, fast)
    copy = reduce(copy, scratch, fast)
    return cost(vectorise(copy, scratch).body, taken)


def distribute(k: Kernel, remarks: Remarks, fast: bool = False) -> Kernel:
    """Distribute the loops whose parts then vectorise or reduce (innermost first)."""
    k = k.copy()
    d = Distributor(k, remarks, fast)
    k.body = map_stmts(k.body, d.loop)
    return k
