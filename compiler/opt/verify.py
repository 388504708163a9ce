"""Translation validation (``incac --verify``): does the optimised program compute what -O0 does?

Both INCA-A programs run symbolically (symexec.py) on the same symbolic inputs; z3 is asked for
inputs under which the -O0 program finishes without a fault while the optimised one faults or
gives a different output. Bit for bit at -O1 and -O2 (f64 as IEEE doubles; z3's equality on
them tells -0.0 from +0.0 and counts every NaN as one value); over the reals at -Ofast (values
assumed finite, as -Ofast assumes). Inputs with a default take their default value.

Each question is first asked of the two terms' skeletons (skeleton.py: data values as leaf
numbers, conditions on data as free booleans), a smaller question whose "no difference" implies
the real one's; only when that does not settle it is the full question asked.

Where a loop's count depends on the inputs, the symbolic run does not end (a step budget, or
branches nested MAX_NESTED deep); the question is then asked for each combination of small values
of the i64 scalar inputs (:func:`_bounded`), and a "bounded" verdict names those values.

The answer is "verified", "bounded" (verified at the values it names), a counterexample (inputs
that show the difference), or "not verified" with the reason (a timeout, a step budget for
data-dependent loops, an operation not modeled): never a false "verified".
"""
from __future__ import annotations

import math
import struct
import time

from ...lang.frozen import field, frozen
from ...lang.program import Program


@frozen
class Verdict:
    """``status`` is verified, bounded, counterexample or unknown; ``inputs`` the
    counterexample's."""

    status: str
    detail: str
    seconds: float
    inputs: dict = field(default_factory=dict)

    def text(self, what: str) -> str:
        if self.status == "verified":
            how = f", {self.detail}" if self.detail else ""
            return f"{what}: verified ({self.seconds:.2f} s{how})"
        if self.status == "bounded":
            return f"{what}: verified {self.detail} ({self.seconds:.2f} s)"
        if self.status == "counterexample":
            shown = "; ".join(f"{k}={_show(v)}" for k, v in self.inputs.items())
            return f"{what}: counterexample: {shown} ({self.detail})"
        return f"{what}: not verified: {self.detail}"


def _show(v) -> str:
    return "[" + ", ".join(map(repr, v)) + "]" if isinstance(v, list) else repr(v)


def verify(source: Program, optimised: Program, fast: bool = False, timeout_s: float = 60.0,
           budget: int = 200_000) -> Verdict:
    """Compare an -O0 program with its optimised version.

    At -Ofast the question is asked over the reals first, each part for at most a few seconds;
    if z3 cannot answer there, bit-for-bit equality in IEEE arithmetic (stronger than what -Ofast
    promises, and easier for z3 when the programs only copy and compare) gets the rest."""
    start = time.perf_counter()
    verdict = _verify_level(source, optimised, fast, timeout_s, budget, start, {})
    if verdict.status != "unknown" or LOOPS_ON_INPUTS not in verdict.detail:
        return verdict
    return _bounded(source, optimised, fast, timeout_s, budget, start, verdict)


def _verify_level(source: Program, optimised: Program, fast: bool, timeout_s: float, budget: int,
                  start: float, fixed: dict[str, int]) -> Verdict:
    if not fast:
        return _verify(source, optimised, False, timeout_s, budget, start, None, fixed)
    first = _verify(source, optimised, True, timeout_s, budget, start, REALS_PART_S, fixed)
    if first.status != "unknown" or "not modeled" in first.detail \
            or LOOPS_ON_INPUTS in first.detail:
        return first
    exact = _verify(source, optimised, False, timeout_s, budget, start, None, fixed)
    if exact.status == "verified":
        return Verdict("verified", "bit for bit", exact.seconds)
    return Verdict("unknown", first.detail, exact.seconds)


#: What a verdict says of a loop whose count depends on the inputs.
LOOPS_ON_INPUTS = "a loop that depends on the inputs"

#: The values each i64 scalar input takes in a bounded verification, most telling first: the
#: counts around 0 and around the optimiser's chunks of 16 (stripmine, blocks) and a negative one.
SMALL_VALUES = (0, 1, 2, 3, 16, 17, 15, -1, 33, 32, 4, 5, 18, 31, 34, 40) + tuple(range(6, 15)) \
    + tuple(range(19, 31)) + (35, 36, 37, 38, 39)
#: At most this many runs of both programs in a bounded verification (each scalar takes the first
#: MAX_CASES ** (1 / scalars) of SMALL_VALUES: all 42 for one, 11 for two, 5 for three).
MAX_CASES = 128


def _bounded(source: Program, optimised: Program, fast: bool, timeout_s: float, budget: int,
             start: float, first: Verdict) -> Verdict:
    """Where a loop's count depends on the inputs: the question for each combination of small
    values of the i64 scalar inputs without a default (the sizes a kernel's loops run to), the
    arrays and f64 inputs still symbolic, as a bounded model checker takes small scopes. The
    verdict is ``bounded`` (verified at those values only), a counterexample, or ``first`` when
    fixing the scalars does not make the loops' counts known."""
    import itertools

    scalars = [d.name for d in source.decls if d.role in ("input", "inout") and d.alias is None
               and d.default is None and not d.shape and d.dtype == "i64"]
    if not scalars:
        return first
    per = max(2, int(MAX_CASES ** (1 / len(scalars)) + 1e-9))
    values = tuple(sorted(SMALL_VALUES[:per]))
    cases = list(itertools.product(values, repeat=len(scalars)))[:MAX_CASES]
    for done, case in enumerate(cases):
        fixed = dict(zip(scalars, case))
        at = ", ".join(f"{k} = {v}" for k, v in fixed.items())
        if time.perf_counter() - start >= timeout_s:
            return Verdict("unknown", f"no answer within {timeout_s:g} s (at {at}, after "
                           f"{done} of {len(cases)} combinations of small values of "
                           f"{', '.join(scalars)} verified)", time.perf_counter() - start)
        verdict = _verify_level(source, optimised, fast, timeout_s, budget, start, fixed)
        if verdict.status == "counterexample":
            return verdict
        if verdict.status != "verified":
            if LOOPS_ON_INPUTS in verdict.detail:
                return first
            return Verdict("unknown", f"{verdict.detail} (at {at})", verdict.seconds)
    names = ", ".join(scalars)
    shown = _ranges(values)
    where = f"{names} in {shown}" if len(scalars) == 1 else f"each of {names} in {shown}"
    if len(cases) < len(values) ** len(scalars):
        where += f" (the first {len(cases)} combinations)"
    return Verdict("bounded", f"for {where} (bounded: its i64 scalar inputs at small values, "
                   f"the others any; not checked beyond)", time.perf_counter() - start)


def _ranges(values: tuple[int, ...]) -> str:
    """``-1 .. 5, 15, 16`` style: runs of consecutive values as ranges."""
    parts, run = [], [values[0]]
    for v in values[1:]:
        if v == run[-1] + 1:
            run.append(v)
            continue
        parts.append(run)
        run = [v]
    parts.append(run)
    return ", ".join(f"{r[0]} .. {r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in parts)


#: Seconds the skeleton check (skeleton.py) of one question may take before the full question.
SKELETON_S = 2.0

#: At -Ofast, seconds each part of the question over the reals may take before the bit-exact try.
REALS_PART_S = 5.0


def _verify(source: Program, optimised: Program, fast: bool, timeout_s: float, budget: int,
            start: float, part_s: float | None, fixed: dict[str, int]) -> Verdict:
    import z3

    from .skeleton import Skeleton
    from .symexec import Machine, OutOfBudget, Unsupported

    def elapsed() -> float:
        return time.perf_counter() - start
    try:
        symbols, inputs = _inputs(source, fast, fixed)
        states = []
        for prog in (source, optimised):
            m = Machine(prog, reals=fast, budget=budget)
            state, _ = m.run(_initial(prog, m, inputs))
            states.append((m, state))
    except Unsupported as e:
        return Verdict("unknown", f"{e} is not modeled", elapsed())
    except OutOfBudget as e:
        return Verdict("unknown", f"{e} ({LOOPS_ON_INPUTS})", elapsed())
    (m0, s0), (m1, s1) = states
    # one question per output element (smaller questions are much easier for z3 than their
    # disjunction); an element both programs compute by the same term needs none
    questions = [("a fault", s1.ok, z3.BoolVal(True))]
    for d in source.decls:
        if d.role in ("output", "inout"):
            for j, (x, y) in enumerate(zip(_values(m0, s0, d.name), _values(m1, s1, d.name))):
                x, y = z3.simplify(x), z3.simplify(y)
                if not x.eq(y):
                    questions.append((f"{d.name}[{j}]" if d.shape else d.name, x, y))
    def left() -> float:
        return timeout_s - elapsed() if part_s is None else min(part_s, timeout_s - elapsed())
    skeleton = Skeleton()  # one numbering of leaves and atoms for every question
    for what, x, y in questions:
        if left() <= 0:
            return Verdict("unknown", f"z3 gave no answer within {timeout_s:g} s", elapsed())
        if skeleton.proves_equal(s0.ok, x, y, int(min(left(), SKELETON_S) * 1000)):
            continue
        if left() <= 0:
            return Verdict("unknown", f"z3 gave no answer about {what} within {timeout_s:g} s",
                           elapsed())
        solver = _solver(fast)
        solver.set("timeout", max(1, int(left() * 1000)))
        solver.add(s0.ok, z3.Not(x == y))
        answer = solver.check()
        if answer == z3.unknown:
            return Verdict("unknown", f"z3 gave no answer about {what} within {timeout_s:g} s",
                           elapsed())
        if answer == z3.sat:
            model = solver.model()
            found = {name: [_value(model, t) for t in terms] if name not in fixed else [fixed[name]]
                     for name, terms in symbols.items()}
            found = {k: v[0] if len(v) == 1 and not _is_array(source, k) else v
                     for k, v in found.items()}
            return Verdict("counterexample", f"the optimised program differs in {what}",
                           elapsed(), found)
    return Verdict("verified", "", elapsed())


def _solver(fast: bool):
    """Floating point is bit-blasted to SAT (faster than z3's default on these copies and
    compares); reals and bit-vectors take z3's default."""
    import z3

    if fast:
        return z3.Solver()
    return z3.Then("simplify", "fpa2bv", "simplify", "bit-blast", "sat").solver()


def _is_array(prog: Program, name: str) -> bool:
    return bool(prog.decl(name).shape)


def _inputs(prog: Program, fast: bool, fixed: dict[str, int]):
    """Symbolic elements for each input without a default (a default is the host's value), the
    scalars in ``fixed`` the constant given."""
    import z3

    from .symexec import F64

    symbols, values = {}, {}
    for d in prog.decls:
        if d.role not in ("input", "inout") or d.alias is not None:
            continue
        if d.default is not None:
            continue
        terms = []
        if d.name in fixed:
            symbols[d.name] = values[d.name] = [z3.BitVecVal(fixed[d.name], 64)]
            continue
        for k in range(d.size):
            name = f"{d.name}[{k}]" if d.shape else d.name
            if d.dtype == "i64":
                terms.append(z3.BitVec(name, 64))
            else:
                terms.append(z3.Real(name) if fast else z3.FP(name, F64))
        symbols[d.name] = terms
        values[d.name] = terms
    return symbols, values


def _initial(prog: Program, m, inputs: dict):
    import z3

    from .symexec import State

    mem = {}
    for d in prog.decls:
        if d.alias is not None:
            continue
        init = d.default if d.default is not None else d.init
        vals = list(init) if isinstance(init, tuple) else [init] * d.size
        # a copy per program: a run writes its buffers in place (--clobber writes inputs)
        mem[d.name] = list(inputs[d.name]) if d.name in inputs else [m.const(v, d.dtype) for v in vals]
    return State(mem, z3.BoolVal(True))


def _values(m, state, name: str) -> list:
    d = m.decls[name]
    base = d.alias if d.alias is not None else name
    return state.mem[base][:d.size]


def _value(model, t):
    import z3

    v = model.eval(t, model_completion=True)
    if z3.is_bv_value(v):
        return v.as_signed_long()
    if z3.is_rational_value(v):
        return float(v.as_fraction())
    bits = z3.simplify(z3.fpToIEEEBV(v))
    if z3.is_bv_value(bits):
        return struct.unpack("<d", struct.pack("<Q", bits.as_long()))[0]
    return math.nan
