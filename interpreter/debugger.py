"""The REPL commands that drive a loaded program: ``:run``, ``:step``, ``:continue``, ``:pc``,
``:break`` and ``:unbreak``.

:class:`Debugging` is a part of the session (:class:`~.session.Session` derives from it); the
pausable run itself is a :class:`~.stepper.Stepper`, which knows nothing of the REPL.
"""
from __future__ import annotations

from pathlib import Path

from ..lang.diagnostics import DiagnosticError
from ..lang.frozen import frozen
from ..lang.program import Decl, Program
from ..lang.tuples import TupleProgram
from .engine import RuntimeFault
from .loader import ns_text
from .protocol import Args, Reply, run_text
from .stepper import Stepper, Where


@frozen
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
