"""A pausable run: a tuple program on a NIC, executed one tuple at a time.

:class:`Stepper` installs a program through the NIC API (:func:`~.loader.install`), prepares it
with the engine's own :func:`~.engine.prepare` (the same fetch and atomic of every tuple) and then
fires tuples under the host's control: each step is the engine's step exactly (the op armed on
``PC == k`` fires, its message matches ME k, the atomic runs and moves the counter), so stepping a
program to its END gives the outputs, counts and modeled time of :func:`~.loader.execute`. The REPL
uses it for ``:step``, ``:break``, ``:continue`` and ``:run``: those commands are here too, in
:class:`Debugging`, the part of the REPL session (:mod:`.session`) that drives a loaded program.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..lang.diagnostics import DiagnosticError
from ..lang.isa import ArithmeticFault
from ..lang.program import Decl, Program
from ..lang.tuples import TupleProgram
from .engine import BoundsFault, Execution, RuntimeFault, StepLimit, fault_at, off_end, prepare
from .loader import RunResult, install, ns_text, summarize, tuple_info
from .nic import NIC
from .profiles import Profile
from .repl import Args, Reply, run_text


@dataclass(frozen=True)
class Where:
    """A source line a tuple came from (file as the tuple's location names it)."""

    file: str
    line: int


class Stepper:
    """One run of ``tp`` on a fresh NIC, started (PC = 1) and paused before its first tuple."""

    def __init__(self, tp: TupleProgram, profile: Profile, inputs: dict[str, list] | None = None,
                 max_steps: int = 100_000_000):
        self.tp = tp
        self.profile = profile
        self.max_steps = max_steps
        self.nic = NIC(profile)
        self.counter, self.done = install(tp, self.nic, inputs)
        self.info = tuple_info(tp, profile)
        self.nic.ct_set(self.counter, 1)
        self.prep = prepare(self.nic, self.counter)
        self.fires = [0] * self.prep.size  # per PC value, as the engine counts them
        self.steps = 0
        self.wall_s = 0.0
        self.finished = False
        self._where = [None] * self.prep.size
        for pc, k in enumerate(self.prep.k_at):
            loc = tp.tuples[k - 1].loc if k is not None else None
            if loc is not None:
                self._where[pc] = Where(loc.file, loc.line)

    @property
    def pc(self) -> int:
        """The program counter: the tuple armed on this value fires next."""
        return self.counter.value

    @property
    def k(self) -> int | None:
        """The tuple that fires next (None when nothing is armed on the PC)."""
        pc = self.pc
        return self.prep.k_at[pc] if 0 <= pc < self.prep.size else None

    def where(self, pc: int) -> Where | None:
        """The source line of the tuple armed on ``pc``, if known."""
        return self._where[pc] if 0 <= pc < self.prep.size else None

    def advance(self, limit: int | None = None, breaks: frozenset[Where] = frozenset()) -> str:
        """Fire tuples until ``limit`` have fired, END is reached, or execution enters a line of
        ``breaks`` (the next tuple is on such a line and the one just fired was not).

        Returns ``"step"``, ``"break"`` or ``"end"``. Raises RuntimeFault or StepLimit as the
        engine does; after one, or after an interrupt, the run cannot go on.
        """
        if self.finished:
            return "end"
        prep, tuples = self.prep, self.tp.tuples
        fetch, bits, apply, k_at, fires = prep.fetch, prep.bits, prep.apply, prep.k_at, self.fires
        where = self._where
        pc = self.counter.value
        fired = 0
        start = time.perf_counter()
        try:
            while limit is None or fired < limit:
                f = fetch[pc]  # the triggered op armed on PC == pc fires
                if f is None:
                    raise off_end(prep, pc)
                k = k_at[pc]
                if tuples[k - 1].entry is None:  # END: a counter increment of the host's counter
                    self.done.value += 1
                    self.finished = True
                    return "end"
                if self.steps >= self.max_steps:
                    raise StepLimit(f"the kernel did not finish within {self.max_steps} steps", k,
                                    "steps")
                try:
                    nxt = apply[bits[pc]](f())  # matched by its bits; the ME's atomic runs
                except (BoundsFault, ArithmeticFault) as exc:
                    raise fault_at(prep, pc, exc) from None
                fires[pc] += 1
                self.steps += 1
                fired += 1
                before, pc = pc, nxt
                self.counter.value = pc
                if breaks and where[pc] in breaks and where[pc] != where[before]:
                    return "break"
            return "step"
        except (RuntimeFault, KeyboardInterrupt):
            self.finished = True
            raise
        finally:
            self.wall_s += time.perf_counter() - start

    @property
    def time_ns(self) -> Fraction:
        """Modeled time so far: the executed tuples' costs, derived as for a finished run."""
        return self.result().time_ns

    def execution(self) -> Execution:
        """Fire counts per tuple so far, in the engine's form."""
        by_k = [0] * (max((k for k in self.prep.k_at if k is not None), default=0) + 1)
        for pc, n in enumerate(self.fires):
            if n:
                by_k[self.prep.k_at[pc]] += n
        return Execution(by_k, self.steps, self.wall_s)

    def result(self) -> RunResult:
        """Outputs and statistics so far, derived exactly as :func:`~.loader.execute` does."""
        return summarize(self.tp, self.nic, self.info, self.execution(), self.profile)


@dataclass(frozen=True)
class Loaded:
    """A program loaded with ``:load``: its tuples, instructions and the locations it shares."""

    path: str
    tp: TupleProgram
    prog: Program
    keep: tuple[Decl, ...]

    @property
    def file(self) -> str:
        """The source file its tuples' locations name (for a JSON program, its original source)."""
        return self.tp.source or self.path


class Debugging:
    """The commands that drive the loaded program: ``:run``, ``:step``, ``:continue``, ``:pc``,
    ``:break`` and ``:unbreak`` (a part of :class:`~.session.Session`, which holds the state:
    ``loaded``, ``run``, ``breaks``, the values it shares and the statistics)."""

    def cmd_run(self, a: Args) -> Reply:
        """``:run``: the loaded program from its start, until END or a breakpoint."""
        self._start(a)
        return self._go(None)

    def cmd_step(self, a: Args) -> Reply:
        """``:step [N]``: fire N tuples (starting the loaded program if it is not running)."""
        n = a.count(1)
        if self.run is None:
            self._start(a)
        return self._go(n)

    def cmd_continue(self, a: Args) -> Reply:
        """``:continue``: on until a breakpoint or END."""
        if self.run is None:
            raise a.whole("no program is paused", "start the loaded program with :run or :step")
        return self._go(None)

    def cmd_pc(self, a: Args) -> Reply:
        """``:pc``: where the paused program is."""
        if self.run is None:
            return Reply("no program is running (:load one, then :step or :run)")
        return Reply(self.where_text() + f"\n  {self.run.steps} tuples fired, modeled time "
                     f"{ns_text(self.run.time_ns)} ns")

    def cmd_break(self, a: Args) -> Reply:
        """``:break [LINE]``: stop where the loaded program enters source line LINE; or list."""
        if not a.words:
            rows = [f"breakpoint at {w.file}:{w.line}"
                    for w in sorted(self.breaks, key=lambda w: w.line)]
            return Reply("\n".join(rows) or "no breakpoints")
        loaded = self._need_loaded(a)
        line, col = a.line()
        ks = [t.k for t in loaded.tp.tuples if t.loc is not None
              and (t.loc.file, t.loc.line) == (loaded.file, line)]
        if not ks:
            lines = sorted({t.loc.line for t in loaded.tp.tuples
                            if t.loc is not None and t.loc.file == loaded.file})
            raise a.error(col, len(str(line)), f"no instruction comes from line {line} of "
                          f"{loaded.file}", "lines with instructions: " + ", ".join(map(str, lines))
                          if lines else None)
        self.breaks.add(Where(loaded.file, line))
        return Reply(f"breakpoint at {loaded.file}:{line} (tuple{'s' * (len(ks) > 1)} "
                     f"{', '.join(map(str, ks))})")

    def cmd_unbreak(self, a: Args) -> Reply:
        """``:unbreak [LINE]``: remove one breakpoint, or all."""
        if not a.words:
            self.breaks.clear()
            return Reply("no breakpoints")
        line, col = a.line()
        found = {w for w in self.breaks if w.line == line}
        if not found:
            raise a.error(col, len(str(line)), f"there is no breakpoint on line {line}")
        self.breaks -= found
        return Reply(f"breakpoint on line {line} removed")

    def _need_loaded(self, a: Args) -> Loaded:
        if self.loaded is None:
            raise a.whole("no program is loaded", "load one with :load FILE "
                          "(an .incaq, .incaa or .json program)")
        return self.loaded

    def _start(self, a: Args) -> None:
        """A fresh run of the loaded program, paused before its first tuple."""
        tp = self._need_loaded(a).tp
        self.run = None
        try:
            self.run = Stepper(tp, self.profile, self._values_for(tp, everything=False),
                               self.max_steps)
        except RuntimeFault as fault:  # a JSON program whose tuples cannot be armed
            raise DiagnosticError([self._fault_diag(tp, fault)]) from None

    def _go(self, limit: int | None) -> Reply:
        run = self.run
        try:
            why = run.advance(limit, frozenset(self.breaks))
        except RuntimeFault as fault:
            self._read_back(run)
            self.run = None
            raise DiagnosticError([self._fault_diag(run.tp, fault)]) from None
        except KeyboardInterrupt:  # stopped at no tuple boundary: the run cannot go on
            self.run = None
            raise
        self._read_back(run)
        if why == "break":
            return Reply(f"breakpoint, line {run.where(run.pc).line}\n" + self.where_text())
        if why == "step":
            return Reply(self.where_text())
        self.run = None
        result = run.result()
        self.stats.append((f":run {Path(self.loaded.path).name}", result))
        return Reply(run_text(result))

    def _read_back(self, run: Stepper) -> None:
        """The loaded program's shared locations, from its NIC into the session."""
        for d in self.loaded.keep:
            held = self.decls.get(d.name)
            if held is not None and (held.dtype, held.shape) == (d.dtype, d.shape):
                self.values[d.name] = run.nic.read(d.name)

    def where_text(self) -> str:
        """The paused program's PC, the tuple armed on it and the source line it came from."""
        run = self.run
        if run.k is None:
            return f"pc {run.pc}: nothing is armed on this value (the next step faults)"
        t = run.tp.tuples[run.k - 1]
        text = f"pc {run.pc}: {t.instr().text()}"
        if t.loc is not None:
            text += f"  ({t.loc.file}:{t.loc.line})"
            line = self._line(t.loc)
            if line is not None:
                text += f"\n  {t.loc.line:>4} | {line.rstrip()}"
        return text
