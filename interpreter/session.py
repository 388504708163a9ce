"""The REPL's state machine: one live NIC memory, fed one typed line at a time, no I/O.

The session keeps the declarations (name -> role, type, shape), their current values, the params,
the functions and the ``use``d modules typed so far. Each complete chunk of INCA-Q is parsed alone
as its own source ``<repl:N>`` (so carets point at the typed text); the session's params,
declarations and functions are prepended to it as syntax-tree nodes, and it is checked, lowered,
installed on a NIC holding the session's values (:func:`~.loader.install`), run by the engine and
read back. INCA-A is assembled with the session's declarations already in scope. A loaded program
runs on a :class:`~.stepper.Stepper`, so it can be stepped and stopped at breakpoints. Commands and
decisions are described in docs/repl.md.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from ..compiler.assembler import Assembler
from ..compiler.frontend import Options, kind_of, load_program, read_source
from ..compiler.incaq.ast import (Assign, CallStmt, For, Func, If, Module, Name, Num, Param,
                                  TypeRef, Use, VarDecl, While)
from ..compiler.incaq.checked import Sym
from ..compiler.incaq.checker import BUILTINS, Checker, check
from ..compiler.incaq.lower import lower
from ..compiler.incaq.parser import parse
from ..compiler.printer import print_program
from ..lang.diagnostics import (Diagnostic, DiagnosticError, Loc, Source, did_you_mean,
                                quote_file)
from ..lang.program import Decl, Instr, Program
from ..lang.tuples import TupleProgram, encode, listing
from .engine import RuntimeFault
from .inputs import check_footprint, parse_input
from .loader import RunResult, install, summarize, tuple_info
from .nic import NIC
from .profiles import Profile, load_profile
from .repl import (Args, Reply, changed, help_text, resolve, shape_text, stats_table,
                   value_text)
from .stepper import Debugging, Loaded, Stepper, Where

PROMPTS = {"incaq": "incaq> ", "incaa": "incaa> "}
CONTINUATION = "  ...> "
_DIRECTIVE = re.compile(r"^[ \t]*\.[A-Za-z_]\w*[ \t]+([A-Za-z_]\w*)", re.M)


@dataclass(frozen=True)
class _Unit:
    """One typed chunk, compiled: its program and what the session becomes once it runs."""

    prog: Program
    keep: dict[str, Decl]
    params: dict[str, int]
    funcs: dict[str, Func]
    uses: dict[str, Use]
    fresh: frozenset[str] = frozenset()  # declared again: they start from their initial value
    expr: str | None = None  # the hidden location a bare expression is evaluated into
    shift: int = 0  # columns the text was moved right by (``it = `` in front of an expression)


class Session(Debugging):
    """An interactive session on a live NIC model."""

    def __init__(self, profile: Profile, max_steps: int = 100_000_000,
                 include: tuple[str, ...] = ()):
        self.profile = profile
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
        self.funcs: dict[str, Func] = {}
        self.uses: dict[str, Use] = {}
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
            if _open_braces(text) > 0:
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
        if self.mode == "incaq" and _open_braces(line) > 0:
            self.pending = [line]
            return Reply(more=True)
        return self._guard(self._chunk, line)

    def _guard(self, fn, text: str) -> Reply:
        """Do one complete input; a diagnostic becomes an error reply and the session goes on.

        A KeyboardInterrupt goes through to the input loop (only what had finished is kept)."""
        self.count += 1
        try:
            return fn(text)
        except DiagnosticError as e:
            return Reply("\n".join(d.render() for d in e.diagnostics), error=True)

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
            raise DiagnosticError(_unshift(e.diagnostics, src, unit.shift)) from None

    def _compile_q(self, src: Source) -> _Unit:
        module, expr, shift = self._parse_q(src)
        items = module.items
        declared, introduced = _top_names(items)
        params = {i.name for i in items if isinstance(i, Param)}
        funcs = {i.name: i for i in items if isinstance(i, Func)}
        uses = {i.name: i for i in items if isinstance(i, Use)}
        # what the chunk declares again replaces the session's declaration
        prelude: list = [u for n, u in self.uses.items() if n not in uses]
        prelude += [Param(n, Num(v, False)) for n, v in self.params.items()
                    if n not in params | declared]
        prelude += [_decl_node(d) for n, d in self.decls.items() if n not in params | declared]
        prelude += [f for n, f in self.funcs.items() if n not in funcs]
        sources = {**self.sources, src.name: src}
        try:
            checked = Checker(sources, {}, self.include).run(Module(tuple(prelude) + items),
                                                              src.name)
        except DiagnosticError as e:
            raise DiagnosticError(_unshift(e.diagnostics, src, shift)) from None
        top = (declared | introduced | set(self.decls)) - params - {expr}
        keep = {s.name: _decl(s) for s in checked.symbols if s.name in top}
        return _Unit(lower(checked, src.name), keep, dict(checked.params),
                     {**self.funcs, **funcs}, {**self.uses, **uses}, frozenset(declared), expr,
                     shift)

    def _parse_q(self, src: Source) -> tuple[Module, str | None, int]:
        """The chunk's syntax tree; a bare expression ``e`` is parsed as ``it = e``."""
        try:
            module = parse(src)
        except DiagnosticError as first:
            if "\n" in src.text.strip():
                raise
            try:
                return self._parse_expr(src)
            except DiagnosticError as second:  # report the reading that got further
                raise (second if _reach(second) > _reach(first) else first) from None
        items = module.items
        if len(items) == 1 and isinstance(items[0], CallStmt) and self._returns(items, src):
            return self._parse_expr(src)
        return module, None, 0

    def _returns(self, items, src: Source) -> bool:
        """Whether the function a lone call statement calls returns a value (to show it)."""
        name = items[0].call.func
        if name in BUILTINS:
            return True
        funcs = self.funcs
        if name not in funcs:  # perhaps from a module the session uses
            checker = Checker({src.name: src}, {}, self.include)
            checker.load_uses(Module(tuple(self.uses.values())), src.name)
            funcs = checker.funcs
        return name in funcs and funcs[name].ret is not None

    def _parse_expr(self, src: Source) -> tuple[Module, str, int]:
        name = "it"
        while name in self.decls or name in self.params:
            name += "_"
        prefix = f"{name} = "
        try:
            return parse(Source(src.name, prefix + src.text)), name, len(prefix)
        except DiagnosticError as e:
            raise DiagnosticError(_unshift(e.diagnostics, src, len(prefix))) from None

    def _compile_a(self, src: Source) -> _Unit:
        again = set(_DIRECTIVE.findall(src.text))  # declared again: the new declaration wins
        asm = _SessionAssembler(src, {n: d for n, d in self.decls.items() if n not in again},
                                {n: v for n, v in self.params.items() if n not in again})
        prog = asm.run()
        if not prog.instrs or prog.instrs[-1].op != "END":
            prog = replace(prog, instrs=prog.instrs + (Instr("END"),))
        keep = {d.name: replace(d, implicit=False, loc=None) for d in prog.decls}
        return _Unit(prog, keep, dict(asm.params), self.funcs, self.uses, frozenset(again))

    def _execute(self, unit: _Unit, src: Source) -> Reply:
        """Run a compiled chunk on a NIC holding the session's values; keep what it leaves."""
        tp = encode(unit.prog)
        nic = NIC(self.profile)
        values = self._values_for(tp, everything=True)
        pc, done = install(tp, nic, {n: v for n, v in values.items() if n not in unit.fresh})
        info = tuple_info(tp, self.profile)
        nic.ct_set(pc, 1)
        fault = None
        try:
            ex = nic.run(pc, done, max_steps=self.max_steps)
        except RuntimeFault as f:  # what the kernel wrote before the fault stays written
            fault = f
        before = {n: (d, self.values[n]) for n, d in self.decls.items()}
        old_params = self.params
        self.params, self.funcs, self.uses = unit.params, unit.funcs, unit.uses
        for name in set(self.decls) & set(self.params):
            del self.decls[name], self.values[name]
        for name, decl in unit.keep.items():
            self.params.pop(name, None)
            self.decls[name] = decl
            self.values[name] = nic.read(name)
        self.sources[src.name] = src
        self.last = (unit.prog, tp)
        self._sync_paused(before)
        if fault is not None:
            raise DiagnosticError([self._fault_diag(tp, fault)])
        result = summarize(tp, nic, info, ex, self.profile)
        if result.instructions:
            lines = src.text.strip().splitlines()
            self.stats.append((lines[0] + (" ..." if len(lines) > 1 else ""), result))
        if unit.expr is not None:
            b = nic.buffers[unit.expr]
            return Reply(value_text(b.data, b.shape, b.dtype))
        out = [f"{n} = {v}" for n, v in self.params.items() if old_params.get(n) != v]
        for name, decl in unit.keep.items():
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
            module = parse(source)
            checked = check(module, source, defines, self.include)
            prog = lower(checked, path)
            names = set().union(*_top_names(module.items))
            keep = tuple(_decl(s) for s in checked.symbols if s.name in names)
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
            if old is None or (old.dtype, old.shape) != (d.dtype, d.shape):
                self.values[d.name] = [d.init] * d.size
            self.decls[d.name] = d
        rows = [f"  {d.role:<6} {d.name}: {d.dtype}{shape_text(d.shape)}" for d in keep]
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


def _decl(s: Sym) -> Decl:
    """A checked symbol as a session declaration (its initial value in its own type)."""
    init = float(s.value) if s.dtype == "f64" else int(s.value)
    return Decl(s.name, s.role, s.dtype, tuple(s.shape), init)


def _decl_node(d: Decl) -> VarDecl:
    """A session location as a declaration to prepend to a chunk (its value comes from the NIC)."""
    return VarDecl(d.role, d.name, TypeRef(d.dtype, tuple(Num(n, False) for n in d.shape)), None)


def _top_names(items) -> tuple[set[str], set[str]]:
    """Names a chunk declares, and names its statements introduce by assignment or as loop
    variables, outside function bodies (the locals of inlined functions are not session state)."""
    declared: set[str] = set()
    introduced: set[str] = set()
    stack = [i for i in items if not isinstance(i, Func)]
    while stack:
        s = stack.pop()
        if isinstance(s, VarDecl):
            declared.add(s.name)
        elif isinstance(s, Assign) and isinstance(s.target, Name):
            introduced.add(s.target.id)
        elif isinstance(s, For):
            introduced.add(s.var)
            stack.extend(s.body)
        elif isinstance(s, While):
            stack.extend(s.body)
        elif isinstance(s, If):
            stack.extend(s.then + s.orelse)
    return declared, introduced


def _open_braces(text: str) -> int:
    """'{' minus '}' outside comments: above zero, the block goes on."""
    return sum(c.count("{") - c.count("}") for c in (ln.split("#", 1)[0] for ln in text.splitlines()))


def _reach(e: DiagnosticError) -> tuple[int, int]:
    """How far into the text a failed parse got (the position of its first error)."""
    loc = e.diagnostics[0].loc if e.diagnostics else None
    return (loc.line, loc.col) if loc is not None else (0, 0)


def _unshift(diags, src: Source, shift: int) -> list[Diagnostic]:
    """Diagnostics about ``it = e`` pointed back at what was typed, ``e``."""
    if not shift:
        return list(diags)
    out = []
    for d in diags:
        loc = d.loc
        if loc is not None and loc.file == src.name and loc.line == 1:
            end = max(1, loc.end_col - shift) if loc.end_col is not None else None
            d = replace(d, loc=replace(loc, col=max(1, loc.col - shift), end_col=end),
                        source_line=src.line(1))
        out.append(d)
    return out
