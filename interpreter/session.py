"""The REPL's state machine: one live NIC memory, fed one typed line at a time, no I/O.

The session keeps the locations (name -> role, type, shape), their current values, the params,
and the functions and ``use``d modules typed so far. Each complete chunk of INCA-Q is compiled by
:func:`~inca.compiler.incaq.incremental.compile_chunk` in the context of that state, installed on a
NIC holding the session's values (:func:`~.loader.install`), run as ``--engine auto`` runs (a long
loop on the fast engines) and read back.
INCA-A is assembled with the session's declarations already in scope. A loaded program runs on a
:class:`~.stepper.Stepper`, so it can be stepped and stopped at breakpoints (:mod:`.debugger`).
Every input goes through :meth:`Session.feed`, the one dispatch point: a diagnostic becomes an
error reply, and an internal error (a bug) is reported in one line with the session's state as it
was before the input. Commands and decisions are described in docs/repl.md.
"""
from __future__ import annotations

import re
import traceback

from ..compiler.assembler import Assembler
from ..compiler.frontend import Options, kind_of, load_program, read_source
from ..compiler.incaq.incremental import Chunk, Context, Definitions, compile_chunk
from ..compiler.printer import print_program
from ..lang.diagnostics import Diagnostic, DiagnosticError, Loc, Source, did_you_mean, quote_file
from ..lang.frozen import replace
from ..lang.program import Decl, Instr, Program, format_value
from ..lang.tuples import TupleProgram, encode, listing
from . import selection
from .debugger import Debugging, Loaded
from .engine import RuntimeFault
from .inputs import check_footprint, parse_input
from .loader import RunResult, install, summarize
from .nic import NIC
from .profiles import Profile, load_profile
from .protocol import Args, Reply, changed, help_text, resolve, shape_text, stats_table, value_text
from .stepper import Stepper, Where

PROMPTS = {"incaq": "incaq> ", "incaa": "incaa> "}
CONTINUATION = "  ...> "
_DIRECTIVE = re.compile(r"^[ \t]*\.[A-Za-z_]\w*[ \t]+([A-Za-z_]\w*)", re.M)
# What an input may change, restored when it fails with an internal error (not the input count,
# so input numbers stay unique, nor an unfinished block, which the input had already ended).
_STATE = ("mode", "profile", "decls", "values", "params", "defs", "sources", "stats", "loaded",
          "run", "breaks", "last")


class Session(Debugging):
    """An interactive session on a live NIC model."""

    def __init__(self, profile: Profile, max_steps: int = 100_000_000,
                 include: tuple[str, ...] = (), debug: bool = False):
        self.profile = profile
        self.debug = debug  # show an internal error's traceback
        self.max_steps = max_steps
        self.include = include
        self.mode = "incaq"
        self.count = 0  # complete inputs so far; input N is the source <repl:N>
        self.errors = 0
        self.reset()

    def reset(self) -> None:
        """Forget all state except the profile and the input mode."""
        self.decls: dict[str, Decl] = {}
        self.values: dict[str, list] = {}
        self.params: dict[str, int] = {}
        self.defs = Definitions()  # the functions and modules typed so far
        self.sources: dict[str, Source] = {}
        self.stats: list[tuple[str, RunResult]] = []
        self.loaded: Loaded | None = None
        self.run: Stepper | None = None
        self.breaks: set[Where] = set()
        self.last: tuple[Program, TupleProgram] | None = None
        self.pending: list[str] | None = None
        self.block = False  # inside :{ ... :}

    @property
    def prompt(self) -> str:
        """The prompt for the next line: the mode, or a continuation."""
        return CONTINUATION if self.pending is not None else PROMPTS[self.mode]

    # ---- input -----------------------------------------------------------------------------

    def feed(self, line: str) -> Reply:
        """Take one line of input and do what it completes."""
        reply = self._feed(line.rstrip("\r\n"))
        self.errors += reply.error
        return reply

    def cancel(self) -> None:
        """Drop an unfinished block (Ctrl-C at the prompt)."""
        self.pending, self.block = None, False

    def end_of_input(self) -> Reply:
        """The input ended: an unfinished block is an error."""
        if self.pending is None:
            return Reply()
        what = ":{ block (end it with :})" if self.block else "block (its braces do not balance)"
        self.cancel()
        self.errors += 1
        return Reply(f"<repl:{self.count + 1}>: error: the input ended inside an unfinished {what}",
                     error=True)

    def _feed(self, line: str) -> Reply:
        word = line.strip()
        if self.block:
            if word != ":}":
                self.pending.append(line)
                return Reply(more=True)
            text = "\n".join(self.pending)
            self.cancel()
            return self._guard(self._chunk, text)
        if self.pending is not None and not word.startswith(":"):
            self.pending.append(line)
            text = "\n".join(self.pending)
            if _open_braces(text) > 0 or _awaits_while(text):
                return Reply(more=True)
            self.cancel()
            return self._guard(self._chunk, text)
        if self.pending is not None:  # a command ends an unfinished block
            self.cancel()
            reply = self._feed(line)
            return replace(reply, text="(the unfinished block was dropped)"
                           + ("\n" + reply.text if reply.text else ""))
        if word == ":{":
            self.pending, self.block = [], True
            return Reply(more=True)
        if word.startswith(":"):
            return self._guard(self._command, line)
        if not word or word.startswith(("#", ";")):
            return Reply()
        if self.mode == "incaq" and (_open_braces(line) > 0 or _awaits_while(line)):
            self.pending = [line]
            return Reply(more=True)
        return self._guard(self._chunk, line)

    def _guard(self, fn, text: str) -> Reply:
        """Do one complete input (every command and chunk comes through here).

        A diagnostic becomes an error reply and the session goes on. Any other exception is a bug
        in the toolchain, never the user's fault: it is reported in one line (with its traceback
        when the session debugs) and the session is put back as it was before the input, so no
        bug loses a session. A KeyboardInterrupt goes through to the input loop (only what had
        finished is kept)."""
        self.count += 1
        saved = self._save()
        try:
            return fn(text)
        except DiagnosticError as e:
            return Reply("\n".join(d.render() for d in e.diagnostics), error=True)
        except Exception as exc:
            return self._internal_error(text, exc, saved)

    def _save(self) -> dict:
        """The state an input may change (containers copied: their values are never mutated in
        place, only replaced)."""
        saved = {k: (v.copy() if isinstance(v, (dict, list, set)) else v)
                 for k, v in ((k, getattr(self, k)) for k in _STATE)}
        saved["run steps"] = self.run.steps if self.run is not None else None
        return saved

    def _internal_error(self, text: str, exc: Exception, saved: dict) -> Reply:
        """Put the state back as ``saved`` and report ``exc`` as a bug."""
        steps = saved.pop("run steps")
        for k, v in saved.items():
            setattr(self, k, v)
        note = ""
        if self.run is not None and (self.run.steps != steps or self.run.finished):
            self.run = None  # it may have stopped inside a tuple: it cannot go on
            note = "; the paused run was abandoned"
        lines = text.strip().splitlines() or [""]
        what = lines[0] + (" ..." if len(lines) > 1 else "")
        what = what if len(what) <= 60 else what[:57] + "..."
        try:
            cause = (str(exc).splitlines() or [""])[0][:200]
        except Exception:  # a broken __str__ must not take the session down with it
            cause = "(its message cannot be shown)"
        line = (f"<repl:{self.count}>: internal error in '{what}': {type(exc).__name__}"
                f"{': ' + cause if cause else ''}; the session is as it was before this input"
                f"{note}. Please report it with the input (INCA_DEBUG=1 shows the traceback)")
        if self.debug:
            line = "".join(traceback.format_exception(exc)) + line
        return Reply(line, error=True)

    # ---- typed statements ------------------------------------------------------------------

    def _chunk(self, text: str) -> Reply:
        name = text.strip()
        if self.mode == "incaq" and name in self.decls:  # shown from memory, nothing runs
            d = self.decls[name]
            return Reply(value_text(self.values[name], d.shape, d.dtype))
        src = Source(f"<repl:{self.count}>", text)
        unit = self._compile_q(src) if self.mode == "incaq" else self._compile_a(src)
        try:
            return self._execute(unit, src)
        except DiagnosticError as e:
            raise DiagnosticError(unit.as_typed(e.diagnostics, src)) from None

    def _compile_q(self, src: Source) -> Chunk:
        return compile_chunk(src, Context(self.decls, self.params, self.defs, self.sources,
                                          self.include))

    def _compile_a(self, src: Source) -> Chunk:
        again = set(_DIRECTIVE.findall(src.text))  # declared again: the new declaration wins
        asm = _SessionAssembler(src, {n: d for n, d in self.decls.items() if n not in again},
                                {n: v for n, v in self.params.items() if n not in again})
        prog = asm.run()
        if not prog.instrs or prog.instrs[-1].op != "END":
            prog = replace(prog, instrs=prog.instrs + (Instr("END"),))
        keep = {d.name: replace(d, implicit=False, loc=None) for d in prog.decls}
        return Chunk(prog, keep, dict(asm.params), self.defs, frozenset(again))

    def _execute(self, unit: Chunk, src: Source) -> Reply:
        """Run a compiled chunk on a NIC holding the session's values; keep what it leaves."""
        tp = encode(unit.program)
        nic = NIC(self.profile)
        values = self._values_for(tp, everything=True)
        pc, done = install(tp, nic, {n: v for n, v in values.items() if n not in unit.fresh})
        nic.ct_set(pc, 1)
        fault = None
        try:
            ex = selection.run(nic, pc, done, self.max_steps)  # (long loops on the fast engines)
        except RuntimeFault as f:  # what the kernel wrote before the fault stays written
            fault = f
        before = {n: (d, self.values[n]) for n, d in self.decls.items()}
        old_params = self.params
        self.params, self.defs = dict(unit.params), unit.defs
        for name in set(self.decls) & set(self.params):
            del self.decls[name], self.values[name]
        for name, decl in unit.locations.items():
            self.params.pop(name, None)
            self.decls[name] = decl
            self.values[name] = nic.read(name)
        self.sources[src.name] = src
        self.last = (unit.program, tp)
        self._sync_paused(before)
        if fault is not None:
            raise DiagnosticError([self._fault_diag(tp, fault)])
        result = summarize(tp, nic, ex, self.profile)
        if result.instructions:
            lines = src.text.strip().splitlines()
            self.stats.append((lines[0] + (" ..." if len(lines) > 1 else ""), result))
        if unit.result is not None:
            b = nic.buffers[unit.result]
            return Reply(value_text(b.data, b.shape, b.dtype))
        out = [f"{n} = {v}" for n, v in self.params.items() if old_params.get(n) != v]
        for name, decl in unit.locations.items():
            old = before.get(name)
            if old is None or old[0] != decl or changed(old[1], self.values[name]):
                out.append(f"{name} = {value_text(self.values[name], decl.shape, decl.dtype)}")
        return Reply("\n".join(out))

    def _values_for(self, tp: TupleProgram, everything: bool) -> dict[str, list]:
        """The session's values of the program's locations it holds alike: all of them for a
        typed chunk, the inputs and inouts for a loaded program (which starts as ``inca run``)."""
        out = {}
        for b in tp.buffers:
            d = self.decls.get(b.name)
            if d is not None and (d.dtype, d.shape) == (b.dtype, b.shape) and (
                    everything or b.role in ("input", "inout")):
                out[b.name] = self.values[b.name]
        return out

    def _sync_paused(self, before: dict[str, tuple[Decl, list]]) -> None:
        """What a statement changed is written into a paused program's memory too."""
        if self.run is None:
            return
        bufs = self.run.nic.buffers
        for name, decl in self.decls.items():
            if name not in bufs or before.get(name) == (decl, self.values[name]):
                continue
            if (bufs[name].dtype, bufs[name].shape) != (decl.dtype, decl.shape):
                self.run = None  # redeclared: the paused memory no longer fits the session's
                return
            self.run.nic.write(name, self.values[name])

    # ---- diagnostics and source lines ------------------------------------------------------

    def _line(self, loc: Loc | None) -> str | None:
        if loc is None:
            return None
        src = self.sources.get(loc.file)
        return src.line(loc.line) if src is not None else quote_file(loc)

    def _fault_diag(self, tp: TupleProgram, fault: RuntimeFault) -> Diagnostic:
        if fault.k is None:
            return Diagnostic(f"runtime error: {fault.message}", file=tp.source or "inca")
        t = tp.tuples[fault.k - 1]
        hint = "start the REPL with a larger --max-steps N" if fault.kind == "steps" else None
        return Diagnostic(f"runtime error: {fault.message} in tuple {fault.k} "
                          f"'{t.instr().text()}'", t.loc, hint, self._line(t.loc),
                          file=tp.source or "inca")

    def _command(self, line: str) -> Reply:
        src = Source(f"<repl:{self.count}>", line)
        words = [(m.group(), m.start() + 1) for m in re.finditer(r"\S+", line)]
        if words[0][0] == ":}":
            raise DiagnosticError([src.diag(src.loc(1, words[0][1], words[0][1] + 2),
                                            "':}' ends a :{ block, and none is open")])
        cmd = resolve(words[0][0], src, words[0][1])
        return getattr(self, "cmd_" + cmd.name)(Args(src, words[1:], cmd))

    def cmd_help(self, a: Args) -> Reply:
        """``:help [COMMAND]``."""
        if a.words:
            return Reply(help_text(*a.words[0], a.src))
        return Reply(help_text())

    def cmd_quit(self, a: Args) -> Reply:
        """``:quit``."""
        return Reply(quit=True)

    def cmd_asm(self, a: Args) -> Reply:
        """``:asm``: INCA-A input from now on."""
        self.mode = "incaa"
        return Reply()

    def cmd_incaq(self, a: Args) -> Reply:
        """``:incaq``: INCA-Q input from now on."""
        self.mode = "incaq"
        return Reply()

    def cmd_reset(self, a: Args) -> Reply:
        """``:reset``."""
        self.reset()
        return Reply("reset: no locations, params, functions, program or statistics")

    def cmd_load(self, a: Args) -> Reply:
        """``:load FILE [NAME=INT ...]``: compile or read a program; it is not run."""
        path, _ = a.need(0, "a program file")
        defines = {}
        for word, col in a.words[1:]:
            name, _, value = word.partition("=")
            try:
                defines[name] = int(value, 0)
            except ValueError:
                raise a.error(col, len(word), f"expected NAME=INTEGER (a param), not '{word}'") from None
        kind = kind_of(path)
        source = read_source(path)
        if kind == ".incaq":
            chunk = compile_chunk(source, Context(include=self.include), defines, expressions=False)
            prog, keep = chunk.program, tuple(chunk.locations.values())
        else:
            prog = load_program(path, Options(defines, 0, tuple(self.include)))
            keep = tuple(d for d in prog.decls if not d.implicit)
        tp = encode(prog)
        check_footprint(tp)  # before the values below are allocated
        self.run = None
        if self.loaded is None or self.loaded.path != path:
            self.breaks.clear()
        self.loaded = Loaded(path, tp, prog, keep)
        self.sources[path] = source
        self.last = (prog, tp)
        for d in keep:
            self.params.pop(d.name, None)
            old = self.decls.get(d.name)
            if d.default is not None:  # a default follows the params of this load, so always
                self.values[d.name] = [d.default] * d.size
            elif old is None or (old.dtype, old.shape) != (d.dtype, d.shape):
                self.values[d.name] = list(d.init) if isinstance(d.init, tuple) else [d.init] * d.size
            self.decls[d.name] = d
        rows = [f"  {d.role:<6} {d.name}: {d.dtype}{shape_text(d.shape)}"
                + ("" if d.default is None else f" = {format_value(d.default, d.dtype)} (default)")
                for d in keep]
        return Reply(f"loaded {path}: {len(tp.tuples)} tuples (not run yet: :set its inputs, "
                     "then :run or :step)\n" + "\n".join(rows))

    def cmd_set(self, a: Args) -> Reply:
        """``:set NAME VALUE``: a scalar, a comma list (row-major) or @file.json."""
        name, col = a.need(0, "a location name")
        _, vcol = a.need(1, "a value: 3, 1,2,3 or @file.json")
        value = a.src.text[vcol - 1:].strip()
        paused = self.run.nic.buffers if self.run is not None else {}
        decl = self.decls.get(name)
        if decl is None and name in paused:
            decl = Decl(name, "var", paused[name].dtype, paused[name].shape)
        if decl is None:
            raise a.error(col, len(name), f"'{name}' is not a location of this session",
                          did_you_mean(name, list(self.decls) + list(paused)))
        try:
            _, flat = parse_input(f"{name}={value}", {name: replace(decl, role="inout")})
        except DiagnosticError as e:
            raise a.error(vcol, len(value), e.diagnostics[0].message, e.diagnostics[0].hint) from None
        if name in self.decls:
            self.values[name] = flat
        if name in paused and (paused[name].dtype, paused[name].shape) == (decl.dtype, decl.shape):
            self.run.nic.write(name, flat)
        return Reply(f"{name} = {value_text(flat, decl.shape, decl.dtype)}")

    def cmd_mem(self, a: Args) -> Reply:
        """``:mem [NAME]``: a location in full, or every location briefly."""
        paused = self.run.nic.buffers if self.run is not None else {}
        if not a.words:
            rows = [f"  {d.role:<6} {n}: {d.dtype}{shape_text(d.shape)} = "
                    f"{value_text(self.values[n], d.shape, d.dtype)}" for n, d in self.decls.items()]
            rows += [f"  param  {n} = {v}" for n, v in self.params.items()]
            extra = [n for n in paused if n not in self.decls]
            if extra:
                rows.append("  in the paused program only: " + ", ".join(extra))
            return Reply("\n".join(rows) or "no locations yet")
        name, col = a.words[0]
        if name in paused:
            b = paused[name]
            role = next(d.role for d in self.run.tp.buffers if d.name == name)
            return Reply(f"{name}: {role} {b.dtype}{shape_text(b.shape)} = "
                         f"{value_text(b.data, b.shape, b.dtype, 256)}")
        if name in self.decls:
            d = self.decls[name]
            return Reply(f"{name}: {d.role} {d.dtype}{shape_text(d.shape)} = "
                         f"{value_text(self.values[name], d.shape, d.dtype, 256)}")
        if name in self.params:
            return Reply(f"{name}: param = {self.params[name]}")
        raise a.error(col, len(name), f"'{name}' is not a location of this session",
                      did_you_mean(name, list(self.decls) + list(self.params) + list(paused)))

    def cmd_tuples(self, a: Args) -> Reply:
        """``:tuples``: the tuple listing of the loaded program or the last statement."""
        return Reply(listing(self._need_last(a)[1]).rstrip("\n"))

    def cmd_listing(self, a: Args) -> Reply:
        """``:listing``: the INCA-A listing of the loaded program or the last statement."""
        return Reply(print_program(self._need_last(a)[0], locations=True).rstrip("\n"))

    def cmd_profile(self, a: Args) -> Reply:
        """``:profile [NAME [KEY=VALUE ...]]``: show or change the cost profile."""
        if a.words:
            overrides = {}
            for word, col in a.words[1:]:
                key, sep, value = word.partition("=")
                if not sep:
                    raise a.error(col, len(word), f"expected KEY=VALUE, not '{word}'")
                overrides[key] = value
            name, col = a.words[0]
            try:
                self.profile = load_profile(name, overrides)
            except DiagnosticError as e:
                d = e.diagnostics[0]
                raise a.error(col, len(a.src.text.rstrip()) + 1 - col, d.message, d.hint) from None
        note = "\n(the paused program keeps the profile it started with)" if self.run else ""
        return Reply(f"profile {self.profile.describe()}{note}")

    def cmd_stats(self, a: Args) -> Reply:
        """``:stats``: counts and modeled time per statement and run, and in total."""
        return Reply(stats_table(self.stats))

    # ---- the loaded program ----------------------------------------------------------------

    def _need_last(self, a: Args) -> tuple[Program, TupleProgram]:
        if self.last is None:
            raise a.whole("nothing to list yet", "type a statement or :load a program first")
        return self.last

class _SessionAssembler(Assembler):
    """Assembles typed INCA-A with the session's declarations and params already in scope."""

    def __init__(self, source: Source, decls: dict[str, Decl], params: dict[str, int]):
        super().__init__(source)
        self.decls.update(decls)
        self.params.update(params)


def _open_braces(text: str) -> int:
    """'{' minus '}' outside comments: above zero, the block goes on."""
    return sum(c.count("{") - c.count("}") for c in (ln.split("#", 1)[0] for ln in text.splitlines()))


def _awaits_while(text: str) -> bool:
    """Whether the text ends with the '}' of a ``do { ... }`` block, its ``while COND`` still to
    come on the next line (the braces balance, but the statement is not finished)."""
    code = "\n".join(ln.split("#", 1)[0] for ln in text.splitlines()).rstrip()
    if not code.endswith("}"):
        return False
    depth = 0
    for k in range(len(code) - 1, -1, -1):
        depth += {"}": 1, "{": -1}.get(code[k], 0)
        if depth == 0:
            return re.search(r"(?:^|[;{}\n])[ \t]*do$", code[:k].rstrip()) is not None
    return False
