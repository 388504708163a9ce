"""``--engine auto``: the engine chosen by the run itself (docs/engines.md, "Choosing an engine").

A translating engine pays for its translation before it fires anything, in proportion to the
program's size; the reference pays nothing up front and more per tuple. What a run will cost is
not known in advance (loop trip counts depend on inputs), so auto starts every run on the
reference and hands it over when the run has shown that it repeats itself: after a budget of
steps proportional to the program's size, about what translating it would cost. A run that ends
within the budget (straight-line code, small payloads) never pays for a translation; a longer one
pays the budget once, a small share of a run long enough to leave it. The same rule moves a run
that goes on for about as long as LLVM takes to load and compile it from the python engine to
the llvm engine (when llvmlite is installed). A run whose first block alone (what it fires
before it first branches, counted in vector elements) outweighs a budget starts on the engine
after it (:func:`entry_work`).

The handover is exact: the reference stops with the counter on the next tuple to fire, the
translating engine goes on from that PC with the NIC's buffers as they are, and the fire counts
of the parts add up to the reference's own.
"""
from __future__ import annotations

import math
import sys
import time
from importlib.util import find_spec

from ..lang.isa import Update
from ..lang.program import operand_shape
from . import llvmcapi
from .engine import (Armed, Execution, LLVMUnavailable, Prepared, arm, finish, fires_by_tuple,
                     off_end, prepare, run_fast, run_some)
from .nic import NIC, CountingEvent

#: The python engine's translation and compilation cost, in reference steps (one step of scalar
#: code is about 0.4 us): about 1.6 ms for any program (4,000 steps) and 70 us per armed tuple
#: (175 steps), bench_engines.py's phases on the paper kernels. Handing over after about that
#: many steps is the classic rent-or-buy rule: never worse than twice the better engine.
MIN_STEPS = 4_000
STEPS_PER_TUPLE = 160


#: The llvm engine's fixed cost, in python engine steps (one step is about 0.08 us on matrix
#: multiplication): loading LLVM once per process, about 35 ms through llvmlite.binding and 7-9
#: ms for llvmlite's library alone (llvmcapi, where it knows the release), and compiling its first
#: tier (SROA and LLVM's code generation, without the rest of the pass pipeline: see llvmengine),
#: about 10-15 ms for a kernel and 0.3-0.8 ms more per armed tuple (bench_engines.py's phases).
LLVM_LOAD_STEPS = 450_000
LLVM_LIBRARY_LOAD_STEPS = 100_000
LLVM_MIN_STEPS = 125_000
LLVM_STEPS_PER_TUPLE = 5_000


#: Importing the python engine's modules (about 4 ms, once per process, since records are made
#: without dataclasses; 10 ms before), in reference steps.
PY_LOAD_STEPS = 10_000


#: A run that has fired this many steps, and this many more per armed tuple, loops (straight-line
#: code fires each tuple at most once): auto then looks for the mark an earlier run of the same
#: program left when it went on to the llvm engine, and with it asks for the llvm engine's code
#: now rather than after the reference's budget. The look costs about as much as the steps
#: before it, which a short run never reaches: the program's fingerprint takes 2-5 us a tuple
#: (a reference step 0.2-0.4 us), then one file's time stamp.
MARK_MIN_STEPS = 1_000
MARK_STEPS_PER_TUPLE = 16


def budget(size: int) -> int:
    """Reference steps a program of ``size`` armed PC values runs before it is handed over (the
    python engine's loading counts too until this process has loaded it)."""
    load = 0 if "inca.interpreter.pygen" in sys.modules else PY_LOAD_STEPS
    return MIN_STEPS + STEPS_PER_TUPLE * size + load


def llvm_budget(size: int) -> int | None:
    """Python engine steps before a run goes on in the llvm engine (None: llvmlite is missing):
    its compilation, and its loading unless this process has loaded it already."""
    if "llvmlite.binding" in sys.modules or llvmcapi.loaded():
        return LLVM_MIN_STEPS + LLVM_STEPS_PER_TUPLE * size
    if not find_spec("llvmlite"):
        return None
    load = LLVM_LIBRARY_LOAD_STEPS if llvmcapi.known() else LLVM_LOAD_STEPS
    return load + LLVM_MIN_STEPS + LLVM_STEPS_PER_TUPLE * size


def run(nic: NIC, counter: CountingEvent, done: CountingEvent, max_steps: int = 100_000_000,
        first: int | None = None, second: int | None = -1, steps_before: int = 0,
        entry: int | None = None) -> Execution:
    """Run as :func:`.engine.run` (untraced) does: on the reference for about the first ``first``
    steps (default :func:`budget`), then, from the next loop header, on the python engine, and
    after about ``second`` more steps there (default :func:`llvm_budget`; None: never), from the
    next header it checks its fuel at, on the llvm engine.

    A run another engine began (the stepper) goes on from the counter's value: ``steps_before``
    tuples fired already (they count against ``max_steps``; the fire counts returned are this
    run's only), and ``entry`` is where the run started (the blocks are found from there)."""
    start = time.perf_counter()
    entry = counter.value if entry is None else entry
    prep = _Prepared(nic, counter)
    fires = [0] * prep.size
    own = first is None and second == -1  # auto's own budgets (not a test's)
    first = budget(prep.size) if first is None else first
    planned = rest = translation = None
    default = second == -1  # auto's own rule for the llvm engine (not a test's)
    marked = False  # an earlier run left its mark, so the llvm engine's code was asked for
    to_llvm = False  # what every run fires before it first branches would pay for LLVM
    if own and entry_work(prep.armed, counter.value, max_steps - steps_before, first) >= first:
        first = 0  # ... and for the python engine: the reference would only wait out its budget
        cost = llvm_budget(prep.size)
        to_llvm = cost is not None and entry_work(prep.armed, counter.value,
                                                  max_steps - steps_before, cost) >= cost
    if steps_before + first >= max_steps:  # the reference's own run to the end (or its step limit)
        steps, finished = run_fast(prep, counter, fires, max_steps, steps_before), True
    else:
        steps, finished = steps_before, False
        look = MARK_MIN_STEPS + MARK_STEPS_PER_TUPLE * prep.size
        if default and first > look:
            steps, finished = run_some(prep, counter, fires, steps_before + look, steps)
            if not finished and _marked(nic, counter):
                marked = True
                planned, steps, finished = _plan(nic, prep, counter, fires, steps, max_steps, entry)
                if planned is not None and not finished:
                    rest, translation = _ready_llvm(nic, counter, done, max_steps, steps, planned)
        if not finished and rest is None:
            if steps < steps_before + first:  # (finding a header after the look may pass it)
                steps, finished = run_some(prep, counter, fires, steps_before + first, steps)
            if not finished:  # a long run: only now are the code generators worth importing
                planned, steps, finished = _plan(nic, prep, counter, fires, steps, max_steps, entry,
                                                 planned)
        if finished and prep.fetch[counter.value] is None:
            raise off_end(prep, counter.value)
    if finished:
        return finish(done, prep.k_at, fires, steps, start)
    from . import pyengine

    names = ["reference"] if steps > steps_before else []
    if rest is None and default and not marked and not to_llvm:  # (to_llvm: it compiles or loads)
        rest, translation = _ready_llvm(nic, counter, done, max_steps, steps, planned)
    if rest is None and to_llvm:
        rest = _llvm(nic, counter, done, max_steps, steps, planned)
    if rest is None:
        second = llvm_budget(prep.size) if default else second
        rest = pyengine.run(nic, counter, done, max_steps, steps, planned,
                            None if second is None else steps + second)
    if isinstance(rest, pyengine.Paused):
        fires = [a + b for a, b in zip(fires, rest.fires)]
        names.append("python")
        rest = _llvm(nic, counter, done, max_steps, rest.steps, planned, translation)
    mine = fires_by_tuple(fires, prep.k_at)
    total = [a + b for a, b in zip(mine, rest.fires)]
    if rest.engine not in names:
        names.append(rest.engine)
    if rest.engine == "llvm" and default and not marked and not to_llvm:  # (to_llvm: no look)
        from . import objcache

        objcache.mark(fingerprint(nic, counter))
    return Execution(total, rest.steps, time.perf_counter() - start, "+".join(names))


class _Prepared:
    """The reference's preparation of the program (:func:`.engine.prepare`: a fetch and an apply
    for each tuple), made when the reference first fires: a run auto gives the llvm engine at once
    fires nothing there (matrix multiplication at -O2 and 1 MiB: 40 ms of 768 vector ops)."""

    def __init__(self, nic: NIC, counter: CountingEvent) -> None:
        self.nic, self.counter = nic, counter
        self.armed = arm(nic, counter)
        self.k_at, self.size = self.armed.k_at, self.armed.size

    def __getattr__(self, name: str):  # (fetch, bits or apply: the first time, all of them)
        if name not in ("fetch", "bits", "apply"):
            raise AttributeError(name)
        made: Prepared = prepare(self.nic, self.counter, self.armed)
        self.fetch, self.bits, self.apply = made.fetch, made.bits, made.apply
        return getattr(self, name)


def entry_work(armed: Armed, pc: int, tuples: int, enough: int) -> int:
    """Elements every run from ``pc`` fires before its first branch, its first return to a PC
    value it passed or its end, within ``tuples`` tuples (the step budget left), counted until
    ``enough``: a lower bound on the run's work unless it faults. A vector op counts its
    destination's elements: the reference and the python engine take about as long per element
    as per scalar step (0.4 and 0.08 us on matrix multiplication at -O2), so a step budget alone
    left a run of a few long vector ops on the reference (at 1 MiB, 768 steps in 39 s; the llvm
    engine 0.7 s)."""
    seen: set[int] = set()
    work = 0
    while work < enough and tuples > 0 and pc not in seen and 0 <= pc < armed.size:
        slot = armed.slots[pc]
        if slot is None or slot.entry is None:  # nothing armed, or END
            break
        seen.add(pc)
        tuples -= 1
        update, payload = slot.entry.update, slot.op.payload
        if update is Update.INC:
            dest = slot.entry.dest  # (an operand's shape needs no declarations)
            work += math.prod(operand_shape(dest, {})) if dest is not None else 1
            pc = slot.nxt
        elif update is Update.SET and type(payload) is int:  # JMP
            work += 1
            pc = payload
        else:  # a branch: what follows depends on the run
            break
    return work


def _plan(nic: NIC, prep: Prepared, counter: CountingEvent, fires: list[int], steps: int,
          max_steps: int, entry: int, planned=None):
    """The program's blocks found from ``entry`` (``planned`` when found already), and the run
    fired on to the next loop header: (planned, steps, finished). A program without them
    (None) runs on the reference to the end."""
    if planned is None:
        from . import pyengine
        from .blocks import Untranslatable

        try:
            planned = pyengine.plan(nic, counter, entry)
        except Untranslatable:
            return None, run_fast(prep, counter, fires, max_steps, steps), True
    return planned, *_to_header(prep, counter, fires, steps, max_steps, planned[1].headers)


def _marked(nic: NIC, counter: CountingEvent) -> bool:
    """Whether an earlier run of this program under auto went on to the llvm engine (the object
    cache holds its mark)."""
    from . import objcache

    return objcache.enabled() and objcache.marked(fingerprint(nic, counter))


def fingerprint(nic: NIC, counter: CountingEvent) -> str:
    """A digest of what the llvm engine's translation of the program armed on ``counter`` is made
    from, as text that does not depend on the process: the buffers (name, type, shape, and the
    buffer whose storage a view shares) and the triggered operations and matching entries (not
    their source locations). The inputs' values are left out: a run with other values may be
    shorter, and then goes on in the llvm engine where the reference would have ended sooner."""
    from . import objcache

    first_of: dict[int, str] = {}
    parts = ["incac-run/1"]
    for name, b in nic.buffers.items():
        parts.append(f"{name} {b.dtype} {b.shape} {first_of.setdefault(id(b.memory), name)}")
    for t in nic.triggered:
        if t.counter is counter:
            parts.append(f"{t.kind} {t.threshold} {t.match_bits} {_operand(t.payload)}")
    for bits, me in nic.entries.items():
        parts.append(f"{bits} {_operand(me.dest)} {me.dtype} {me.atomic} {me.op} {me.update.value} "
                     f"{me.target}")
    return objcache.digest("\n".join(parts).encode())


def _operand(o) -> str:
    """An operand as text with its kind and type (an immediate's text alone does not say it)."""
    return f"{type(o).__name__} {o} {getattr(o, 'dtype', '')}"


def _ready_llvm(nic: NIC, counter: CountingEvent, done: CountingEvent, max_steps: int, steps: int,
                planned) -> tuple[Execution | None, object]:
    """The rest of a run on the llvm engine when its machine code is ready (compiled earlier in
    this process, or by an earlier one into the object cache): it then starts at once, sooner
    than the python engine could translate the program. None when it is not, or will not load;
    with the translation made to look (None: none), which :func:`_llvm` takes later in the run
    rather than translating the program again (matrix multiplication: 2-3 ms)."""
    from . import objcache

    if "inca.interpreter.llvmengine" not in sys.modules and not objcache.enabled():
        return None, None  # nothing compiled in this process, and no cache to look in
    from . import llvmengine

    translation, ready = llvmengine.ready(nic, planned)
    if not ready:
        return None, translation
    try:
        return llvmengine.run(nic, counter, done, max_steps, steps, planned,
                              translation=translation), None
    except LLVMUnavailable:  # the entry went before it was loaded, and llvmlite will not load
        return None, None


def _llvm(nic: NIC, counter: CountingEvent, done: CountingEvent, max_steps: int, steps: int,
          planned, translation=None) -> Execution:
    """The rest of a run on the llvm engine (``translation``: :func:`_ready_llvm`'s of
    ``planned``, if it made one); on the python engine if llvmlite will not load."""
    from . import llvmengine, pyengine

    try:
        return llvmengine.run(nic, counter, done, max_steps, steps, planned,
                              translation=translation)
    except LLVMUnavailable:
        return pyengine.run(nic, counter, done, max_steps, steps, planned)


def _to_header(prep: Prepared, counter: CountingEvent, fires: list[int], steps: int,
               max_steps: int, headers: frozenset[int]) -> tuple[int, bool]:
    """Fire on the reference until the counter is on a header (every cycle passes one, so this
    takes at most one pass through a loop body) or the run ends; (steps, finished)."""
    finished = False
    while not finished and counter.value not in headers:
        if steps >= max_steps:  # the next tuple is one too many: the reference's own stop
            return run_fast(prep, counter, fires, max_steps, steps), True
        steps, finished = run_some(prep, counter, fires, steps + 1, steps)
    return steps, finished
