"""The host side: install a tuple program on a NIC through its API, have the engine run the NIC,
read the results.

:func:`execute` is the one entry point the command-line tool, the REPL and the reports use.
Execution and pricing are separate: an engine leaves per-tuple fire counts, :func:`tally` groups
them by what the cost model prices (class, immediate source, vector length; nothing a profile
changes), and :func:`price`, the one pricing function, turns a tally and a profile into the
statistics: time is the sum over executed tuples of their cost, as MODEL.md 3 says. A run is thus
priced under any number of profiles without running it again (``inca report --grid``).
"""
from __future__ import annotations

from fractions import Fraction

from ..lang.diagnostics import Diagnostic, DiagnosticError, quote_file
from ..lang.frozen import frozen, replace
from ..lang.isa import OPCODES, OpClass
from ..lang.program import Imm, vector_elements
from ..lang.tuples import DONE, PC, TupleProgram
from .engine import Execution, run
from .inputs import check_footprint, data_bytes
from .nic import NIC, NICError
from .pricing import CLASSES, Priced, Tally, price, time_us_text, us_text
from .profiles import Profile

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (2 ms of every start)
if TYPE_CHECKING:
    from typing import TextIO

__all__ = ["CLASSES", "ENGINES", "Priced", "RunResult", "Tally", "execute", "install", "price",
           "reprice", "summarize", "tally", "time_us_text", "us_text"]

#: The engines that run a program (docs/engines.md): the reference fires tuple by tuple and is
#: the only one that traces; python translates the program into a Python function, llvm into
#: machine code through LLVM (llvmlite, imported only when it runs); auto starts on the reference,
#: hands a long run over to python and a very long one on to llvm.
ENGINES = ("auto", "reference", "python", "llvm")


@frozen
class TupleInfo:
    """Static facts about one tuple under a profile."""

    opclass: OpClass
    elements: int | None  # vector length, None for scalar tuples
    cost: Fraction


def tuple_info(tp: TupleProgram, profile: Profile) -> list[TupleInfo]:
    """Class, vector length and cost of every tuple (index k-1)."""
    decls = {b.name: b for b in tp.buffers}
    out = []
    for t in tp.tuples:
        ins = t.instr()
        cls = OPCODES[t.op].opclass
        n = vector_elements(ins, decls)
        out.append(TupleInfo(cls, n, profile.cost(cls, isinstance(ins.src, Imm), n)))
    return out


def tally(tp: TupleProgram, fires: list[int]) -> Tally:
    """Group per-tuple fire counts (``fires[k]`` for tuple k) by class, immediate source and
    vector length."""
    decls = {b.name: b for b in tp.buffers}
    groups: dict[tuple[OpClass, bool, int | None], int] = {}
    for k, n in enumerate(fires[1:], 1):
        if not n:
            continue
        ins = tp.tuples[k - 1].instr()
        cls = OPCODES[ins.op].opclass
        if not cls.counted:
            continue
        key = (cls, isinstance(ins.src, Imm), vector_elements(ins, decls))
        groups[key] = groups.get(key, 0) + n
    order = sorted(groups, key=lambda g: (CLASSES.index(g[0].label), g[1], g[2] is not None, g[2] or 0))
    return Tally(tp.source or "inca", data_bytes(tp), tuple((*g, groups[g]) for g in order))


@frozen
class RunResult:
    """Outputs and statistics of one run."""

    outputs: dict[str, list | int | float]  # flat element lists for arrays
    shapes: dict[str, tuple[int, ...]]
    dtypes: dict[str, str]
    instructions: int
    by_class: dict[str, int]
    messages: int
    memory_accesses: int
    time_ns: Fraction
    profile: Profile
    wall_s: float
    tuples_per_s: float
    tally: Tally  # what :func:`reprice` prices the same run from under another profile
    engine: str = "reference"  # the engine that ran it; its wall time includes any translation


def install(tp: TupleProgram, nic: NIC, inputs: dict[str, list] | None = None):
    """Bind buffers, write inputs, post MEs and arm triggered ops; returns (pc, done) counters."""
    check_footprint(tp, nic.profile)
    try:
        for b in tp.buffers:
            if b.alias is not None:
                nic.alias(b.name, b.alias, b.shape)
            else:
                # an input the host leaves alone holds its declared default
                nic.alloc(b.name, b.dtype, b.shape, b.init if b.default is None else b.default)
        for name, values in (inputs or {}).items():
            nic.write(name, values)
        pc, done = nic.ct_alloc(PC), nic.ct_alloc(DONE)
        for t in tp.tuples:
            trig, e = t.trigger, t.entry
            if e is None:
                nic.triggered_ct_inc(pc, trig.threshold, done, t.k, t.loc)
                continue
            nic.me_append(e.match_bits, e.dest, e.dtype, e.atomic, t.op, e.update, pc, e.target)
            nic.triggered_put(pc, trig.threshold, trig.match_bits, trig.payload, t.k, t.loc)
    except NICError as exc:
        raise DiagnosticError([Diagnostic(str(exc), file=tp.source or "inca")]) from None
    return pc, done


def execute(tp: TupleProgram, profile: Profile, inputs: dict[str, list] | None = None,
            max_steps: int = 100_000_000, trace: TextIO | None = None,
            engine: str = "auto") -> RunResult:
    """Install, start (PC <- 1), wait for END, read back outputs and derive the statistics.

    ``engine`` is one of :data:`ENGINES`; a traced run always uses the reference. Every engine
    gives the same results. Raises RuntimeFault/StepLimit (from the engine), DiagnosticError (a
    bad install) or ValueError (an unknown engine).
    """
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; the engines are {', '.join(ENGINES)}")
    nic = NIC(profile)
    pc, done = install(tp, nic, inputs)
    info = tuple_info(tp, profile)
    nic.ct_set(pc, 1)
    describe = (lambda k: _describe(tp, k)) if trace is not None else None
    cost = (lambda k: info[k - 1].cost) if trace is not None else None
    # the code generators are imported when used: pricing a cached study needs none of them
    if engine == "python" and trace is None:
        from . import pyengine

        ex: Execution = pyengine.run(nic, pc, done, max_steps)
    elif engine == "auto" and trace is None:
        from . import selection

        ex = selection.run(nic, pc, done, max_steps)
    elif engine == "llvm" and trace is None:
        from . import llvmengine

        ex = llvmengine.run(nic, pc, done, max_steps)
    else:
        ex = run(nic, pc, done, max_steps, trace, describe, cost)
    return summarize(tp, nic, ex, profile)


def _describe(tp: TupleProgram, k: int) -> str:
    """Tuple k for a trace line: its instruction and source location."""
    t = tp.tuples[k - 1]
    where = f"{t.loc.file.rsplit('/', 1)[-1]}:{t.loc.line}" if t.loc else "-"
    return f"{t.instr().text():<28} {where:<16}"


def summarize(tp: TupleProgram, nic: NIC, ex: Execution, profile: Profile) -> RunResult:
    """Outputs read back from the NIC and the statistics of the run's fire counts (END never
    counts) under ``profile``."""
    outputs = {}
    for b in tp.buffers:
        if b.role in ("output", "inout"):
            data = nic.read(b.name)
            outputs[b.name] = data if b.shape else data[0]
    t = tally(tp, ex.fires)
    p = price(t, profile)
    rate = ex.steps / ex.wall_s if ex.wall_s > 0 else 0.0
    return RunResult(outputs, {b.name: b.shape for b in tp.buffers},
                     {b.name: b.dtype for b in tp.buffers}, p.instructions, p.by_class,
                     p.messages, p.memory_accesses, p.time_ns, profile, ex.wall_s, rate,
                     t, ex.engine)


def reprice(r: RunResult, profile: Profile) -> RunResult:
    """The same run under another profile, priced from its tally (the run's fire counts and
    outputs do not depend on the profile), as :func:`execute` under that profile would give it."""
    p = price(r.tally, profile)
    return replace(r, instructions=p.instructions, by_class=p.by_class, messages=p.messages,
                   memory_accesses=p.memory_accesses, time_ns=p.time_ns, profile=profile)


def ns_text(time_ns: Fraction) -> str:
    """Nanoseconds for people: exact when the value has a finite decimal form, else 3 decimals."""
    from .profiles import format_number

    exact = format_number(time_ns)
    return exact if "/" not in exact else f"{float(time_ns):.3f}"


def summary_lines(r: RunResult) -> list[str]:
    """The statistics lines of a finished run, as ``inca run`` and the REPL print them."""
    classes = ", ".join(f"{k} {v}" for k, v in r.by_class.items())
    return [f"instructions    {r.instructions} ({classes})",
            f"messages        {r.messages}",
            f"memory accesses {r.memory_accesses}",
            f"time            {time_us_text(r.time_ns)} us ({ns_text(r.time_ns)} ns)"]


def fault_diagnostic(tp, fault) -> Diagnostic:
    """A runtime fault as a diagnostic pointing at the instruction's source line."""
    if fault.k is None:
        return Diagnostic(f"runtime error: {fault.message}", file=tp.source or "inca")
    t = tp.tuples[fault.k - 1]
    msg = f"runtime error: {fault.message} in tuple {fault.k} '{t.instr().text()}'"
    hint = "raise the limit with --max-steps N" if fault.kind == "steps" else None
    if t.loc is None:
        return Diagnostic(msg, None, hint, file=tp.source or "inca")
    return Diagnostic(msg, t.loc, hint, quote_file(t.loc))
