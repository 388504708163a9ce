"""A pausable run: a tuple program on a NIC, executed one tuple at a time.

:class:`Stepper` installs a program through the NIC API (:func:`~.loader.install`), prepares it
with the engine's own :func:`~.engine.prepare` (the same fetch and atomic of every tuple) and then
fires tuples under the host's control: each step is the engine's step exactly (the op armed on
``PC == k`` fires, its message matches ME k, the atomic runs and moves the counter), so stepping a
program to its END gives the outputs, counts and modeled time of :func:`~.loader.execute`. The REPL
uses it for ``:step``, ``:break``, ``:continue`` and ``:run`` (:mod:`.debugger`); it knows nothing
of the REPL. A run on to END with no breakpoint goes as ``inca run`` goes (``--engine auto``).
"""
from __future__ import annotations

import time
from fractions import Fraction

from ..lang.frozen import frozen
from ..lang.isa import ArithmeticFault
from ..lang.tuples import TupleProgram
from .engine import (BoundsFault, Execution, RuntimeFault, StepLimit, fault_at, fires_by_tuple,
                     off_end, prepare)
from .loader import RunResult, install, summarize
from .nic import NIC
from .profiles import Profile


@frozen
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
        self.nic.ct_set(self.counter, 1)
        self.prep = prepare(self.nic, self.counter)
        self.fires = [0] * self.prep.size  # per PC value, as the engine counts them
        self.steps = 0
        self.wall_s = 0.0
        self.finished = False
        self.through: Execution | None = None  # the rest of the run, on auto's engines
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
        if limit is None and not breaks:
            return self._through()
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

    def _through(self) -> str:
        """On to END with nothing to stop at: as ``inca run`` runs (:func:`.selection.run`: a long
        run goes on in a translating engine), not one tuple at a time; the same outputs, counts,
        faults and step limit."""
        from . import selection

        start = time.perf_counter()
        try:
            self.through = selection.run(self.nic, self.counter, self.done, self.max_steps,
                                         steps_before=self.steps, entry=1)
        finally:
            self.finished = True
            self.wall_s += time.perf_counter() - start
        self.steps = self.through.steps
        return "end"

    @property
    def time_ns(self) -> Fraction:
        """Modeled time so far: the executed tuples' costs, derived as for a finished run."""
        return self.result().time_ns

    def execution(self) -> Execution:
        """Fire counts per tuple so far, in the engine's form."""
        mine = fires_by_tuple(self.fires, self.prep.k_at)
        if self.through is None:
            return Execution(mine, self.steps, self.wall_s)
        rest = self.through.fires
        n = max(len(mine), len(rest))
        fires = [a + b for a, b in zip(mine + [0] * (n - len(mine)), rest + [0] * (n - len(rest)))]
        return Execution(fires, self.steps, self.wall_s, self.through.engine)

    def result(self) -> RunResult:
        """Outputs and statistics so far, derived exactly as :func:`~.loader.execute` does."""
        return summarize(self.tp, self.nic, self.execution(), self.profile)
