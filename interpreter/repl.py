"""``inca repl``: the REPL's text interface around :class:`~.session.Session`.

Here: the command vocabulary (names, usage, prefixes), how a command's arguments are read and
their errors pointed at, how values and statistics are shown, completion, and the two input loops.
On a terminal the loop uses prompt_toolkit (line editing, persistent history in ``$INCA_HISTORY``
or ``~/.inca_history``, tab completion of commands and names); otherwise lines are read from stdin
with no prompt, so a session can be scripted (``inca repl < session.txt``). prompt_toolkit is
imported only when a terminal session starts.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..lang.diagnostics import EXIT_ERROR, EXIT_OK, DiagnosticError, Source, did_you_mean
from ..lang.program import format_value
from .inputs import nest, to_text
from .loader import RunResult, ns_text, summary_lines, time_us_text

if TYPE_CHECKING:
    from .session import Session


@dataclass(frozen=True)
class Reply:
    """What one line of input produced: text to show (an error's goes to stderr), whether the
    chunk needs more lines, whether the session ends."""

    text: str = ""
    error: bool = False
    more: bool = False
    quit: bool = False


@dataclass(frozen=True)
class Command:
    """One REPL command: its name, how its arguments are written, what it does."""

    name: str
    usage: str
    text: str


COMMANDS = (
    Command("help", "[COMMAND]", "this list, or one command"),
    Command("load", "FILE [NAME=INT ...]", "load a program (.incaq, .incaa, .json), not run; "
            "NAME=INT: a param"),
    Command("set", "NAME VALUE", "set a location: 2.5, 1,2,3 (row-major) or @file.json"),
    Command("run", "", "run the loaded program from its start (stops at breakpoints)"),
    Command("step", "[N]", "fire the next N tuples of the loaded program (default 1)"),
    Command("break", "[LINE]", "stop where the loaded program enters LINE; no LINE: list them"),
    Command("unbreak", "[LINE]", "remove the breakpoint on LINE, or every breakpoint"),
    Command("continue", "", "go on until a breakpoint or END"),
    Command("pc", "", "where the paused program is: PC, tuple, source line"),
    Command("mem", "[NAME]", "one location in full, or every location"),
    Command("tuples", "", "tuple listing of the last statement or loaded program"),
    Command("listing", "", "INCA-A listing of the same"),
    Command("profile", "[NAME [KEY=VALUE ...]]", "show or change the cost profile"),
    Command("stats", "", "counts and modeled time per statement and run, and in total"),
    Command("reset", "", "forget locations, params, functions, the program, statistics"),
    Command("asm", "", "type INCA-A from now on"),
    Command("incaq", "", "type INCA-Q from now on"),
    Command("quit", "", "leave the session (also :q)"),
)
_BY_NAME = {c.name: c for c in COMMANDS}


def resolve(typed: str, src: Source, col: int) -> Command:
    """A command by name or unique prefix (``:q`` is :quit, as in GHCi); ``typed`` is the word as
    written (with or without its colon) and ``col`` its column."""
    word = typed.lstrip(":")
    if word in _BY_NAME:
        return _BY_NAME[word]
    found = [c for c in COMMANDS if c.name.startswith(word)] if word else []
    if word == "q" or len(found) == 1:
        return _BY_NAME["quit"] if word == "q" else found[0]
    loc = src.loc(1, col, col + len(typed))
    if found:
        names = ", ".join(f":{c.name}" for c in found)
        raise DiagnosticError([src.diag(loc, f"':{word}' is ambiguous: {names}")])
    hint = did_you_mean(word, _BY_NAME)
    raise DiagnosticError([src.diag(loc, f"unknown command ':{word}'",
                                    hint.replace("'", "':", 1) if hint else "type :help")])


def help_text(word: str | None = None, col: int = 1, src: Source | None = None) -> str:
    """``:help``: every command, or the one ``word`` (typed at ``col`` of ``src``) names."""
    if word is not None:
        c = resolve(word, src, col)
        return f":{c.name} {c.usage}".rstrip() + f"\n    {c.text}"
    width = max(len(f":{c.name} {c.usage}") for c in COMMANDS)
    rows = [f"  {f':{c.name} {c.usage}':<{width}}  {c.text}" for c in COMMANDS]
    return ("Type INCA-Q statements (INCA-A after :asm); a block goes on until its braces balance,\n"
            "and :{ ... :} holds any lines together. A bare expression shows its value.\n"
            "Any unique prefix of a command works.\ncommands:\n" + "\n".join(rows))


@dataclass(frozen=True)
class Args:
    """A command's arguments with their columns, and diagnostics pointing at them."""

    src: Source
    words: list[tuple[str, int]]
    cmd: Command

    def error(self, col: int, width: int, message: str, hint: str | None = None) -> DiagnosticError:
        """A diagnostic with its caret under the typed text at ``col``."""
        return DiagnosticError([self.src.diag(self.src.loc(1, col, col + max(width, 1)), message,
                                              hint)])

    def whole(self, message: str, hint: str | None = None) -> DiagnosticError:
        """A diagnostic about the command as a whole."""
        text = self.src.text
        col = len(text) - len(text.lstrip()) + 1
        return self.error(col, len(text.strip()), message, hint)

    def need(self, i: int, what: str) -> tuple[str, int]:
        """Argument ``i``, or a diagnostic saying what was expected there."""
        if len(self.words) <= i:
            raise self.error(len(self.src.text.rstrip()) + 2, 1, f":{self.cmd.name} needs {what}",
                             f"usage: :{self.cmd.name} {self.cmd.usage}")
        return self.words[i]

    def count(self, default: int) -> int:
        """An optional positive count (``:step N``)."""
        if not self.words:
            return default
        word, col = self.words[0]
        if not word.isdigit() or int(word) == 0:
            raise self.error(col, len(word), f"expected a positive number of tuples, not '{word}'")
        return int(word)

    def line(self) -> tuple[int, int]:
        """A line number (the first argument) and its column."""
        word, col = self.words[0]
        if not word.isdigit():
            raise self.error(col, len(word), f"expected a line number, not '{word}'")
        return int(word), col


# ---- how things are shown ----------------------------------------------------------------------

def shape_text(shape: tuple[int, ...]) -> str:
    """``[4][8]`` for a shape, empty for a scalar."""
    return "".join(f"[{n}]" for n in shape)


def value_text(flat: list, shape: tuple[int, ...], dtype: str, limit: int = 8) -> str:
    """A location's value: a scalar, nested lists in its shape, or its first ``limit`` elements."""
    if not shape:
        return format_value(flat[0], dtype)
    if len(flat) > limit:
        return to_text(flat, shape, dtype, limit)

    def text(v) -> str:
        return "[" + ", ".join(map(text, v)) + "]" if isinstance(v, list) else format_value(v, dtype)
    return text(nest(flat, shape))


def changed(old: list, new: list) -> bool:
    """Whether a value changed (a NaN that stays NaN has not)."""
    return any(a != b and not (a != a and b != b) for a, b in zip(old, new))


def run_text(r: RunResult) -> str:
    """A finished run: its outputs and statistics, as ``inca run`` prints them."""
    lines = [f"{n} = {value_text(v if r.shapes[n] else [v], r.shapes[n], r.dtypes[n])}"
             for n, v in r.outputs.items()]
    return "\n".join(lines + summary_lines(r))


def stats_table(rows: list[tuple[str, RunResult]]) -> str:
    """Per statement or run: counts, modeled time and profile; then the totals."""
    if not rows:
        return "nothing has run yet"
    out = [f"{'#':>3}  {'what':<32} {'instr':>7} {'msgs':>7} {'accesses':>8} {'time ns':>12}  "
           "profile"]
    total = dict.fromkeys(rows[0][1].by_class, 0)
    msgs = accesses = 0
    time_ns = Fraction(0)
    for i, (what, r) in enumerate(rows, 1):
        what = what if len(what) <= 32 else what[:29] + "..."
        out.append(f"{i:>3}  {what:<32} {r.instructions:>7} {r.messages:>7} "
                   f"{r.memory_accesses:>8} {ns_text(r.time_ns):>12}  {r.profile.name}")
        for k, v in r.by_class.items():
            total[k] += v
        msgs += r.messages
        accesses += r.memory_accesses
        time_ns += r.time_ns
    classes = ", ".join(f"{k} {v}" for k, v in total.items())
    out.append(f"total: {len(rows)} run{'s' * (len(rows) > 1)}, {sum(total.values())} "
               f"instructions ({classes}), {msgs} messages, {accesses} memory accesses, "
               f"{time_us_text(time_ns)} us ({ns_text(time_ns)} ns)")
    return "\n".join(out)


# ---- completion ------------------------------------------------------------------------------

def completions(session: "Session", text: str) -> tuple[int, list[str]]:
    """Words completing the word before the cursor in ``text``, and that word's length."""
    from ..compiler.incaq.checker import BUILTINS
    from ..compiler.incaq.parser import KEYWORDS
    from ..lang.isa import OPCODES
    from .profiles import PRESETS

    stripped = text.lstrip()
    if stripped.startswith(":") and not any(c.isspace() for c in stripped):
        return len(stripped), sorted(":" + c.name for c in COMMANDS
                                     if (":" + c.name).startswith(stripped))
    word = re.search(r"[A-Za-z_]\w*$|$", text).group()
    names: list[str] = []
    if stripped.startswith(":"):
        head = stripped.split()
        try:
            cmd = resolve(head[0], Source("<completion>", stripped), 1)
        except DiagnosticError:
            return 0, []
        first = len(head) == 1 or (len(head) == 2 and word)
        if cmd.name in ("mem", "set") and first:
            names = list(session.decls) + (list(session.params) if cmd.name == "mem" else [])
        elif cmd.name == "help" and first:
            names = [c.name for c in COMMANDS]
        elif cmd.name == "profile" and first:
            names = list(PRESETS)
    elif session.mode == "incaq":
        names = [*session.decls, *session.params, *session.funcs, *BUILTINS, *sorted(KEYWORDS)]
    else:
        names = [*session.decls, *session.params, *OPCODES]
    return len(word), sorted({n for n in names if n.startswith(word) and n != word})


# ---- the input loops ---------------------------------------------------------------------------

def show(reply: Reply, out: TextIO, err: TextIO) -> None:
    """Print a reply: its text to ``out``, or to ``err`` for an error."""
    if not reply.text:
        return
    if reply.error:
        out.flush()
        print(reply.text, file=err, flush=True)
    else:
        print(reply.text, file=out, flush=True)


def run_lines(session: "Session", lines, out: TextIO, err: TextIO) -> int:
    """Feed lines (stdin that is not a terminal); exit status 1 if any input was an error."""
    for line in lines:
        reply = session.feed(line)
        show(reply, out, err)
        if reply.quit:
            break
    else:
        show(session.end_of_input(), out, err)
    return EXIT_ERROR if session.errors else EXIT_OK


def history_path() -> str | None:
    """Where terminal history persists: ``$INCA_HISTORY`` (empty: nowhere), else ~/.inca_history."""
    path = os.environ.get("INCA_HISTORY")
    if path is None:
        return str(Path.home() / ".inca_history")
    return path or None


def run_terminal(session: "Session") -> int:
    """The interactive loop: prompt_toolkit line editing, history and completion."""
    try:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.completion import Completer, Completion, PathCompleter
        from prompt_toolkit.document import Document
        from prompt_toolkit.history import FileHistory, InMemoryHistory
    except ImportError:
        print("(no line editing: pip install prompt_toolkit)", flush=True)
        return _plain_terminal(session)

    paths = PathCompleter(expanduser=True)

    class _Completer(Completer):
        def get_completions(self, document, complete_event):
            text = document.text_before_cursor
            m = re.match(r"\s*:(lo|loa|load)\s+(\S*)$", text)
            if m:  # :load FILE completes file names
                yield from paths.get_completions(Document(m.group(2)), complete_event)
                return
            n, words = completions(session, text)
            for w in words:
                yield Completion(w, start_position=-n)

    path = history_path()
    writable = path is not None and os.access(Path(path).parent, os.W_OK)
    history = FileHistory(path) if writable else InMemoryHistory()
    prompt = PromptSession(history=history, completer=_Completer(), complete_while_typing=False)
    while True:
        try:
            line = prompt.prompt(session.prompt)
        except KeyboardInterrupt:  # Ctrl-C drops the line and any unfinished block
            session.cancel()
            continue
        except EOFError:
            return EXIT_OK
        if _interactive_feed(session, line):
            return EXIT_OK


def _interactive_feed(session: "Session", line: str) -> bool:
    """Feed a typed line and show the reply; True when the session ends. Ctrl-C stops what is
    running, and a bug in the toolchain is reported without ending the session."""
    try:
        reply = session.feed(line)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr, flush=True)
        return False
    except Exception:  # a bug in the toolchain, never the user's fault
        import traceback

        traceback.print_exc()
        print("inca: internal error; please report it with the input above", file=sys.stderr)
        return False
    show(reply, sys.stdout, sys.stderr)
    return reply.quit


def _plain_terminal(session: "Session") -> int:
    while True:
        try:
            line = input(session.prompt)
        except KeyboardInterrupt:
            print()
            session.cancel()
            continue
        except EOFError:
            print()
            return EXIT_OK
        if _interactive_feed(session, line):
            return EXIT_OK


def cmd_repl(args) -> int:
    """``inca repl`` (and bare ``inca`` on a terminal)."""
    from ..lang import __version__
    from .profiles import load_profile
    from .session import Session

    profile = load_profile(args.profile, dict(args.param))
    session = Session(profile, args.max_steps, tuple(args.include))
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if interactive:
        print(f"inca {__version__} REPL on the NIC model (profile {profile.name}). "
              ":help for commands, :q to quit.", flush=True)
    if args.file:
        show(session.feed(f":load {args.file}"), sys.stdout, sys.stderr)
    if not interactive:
        return run_lines(session, sys.stdin, sys.stdout, sys.stderr)
    return run_terminal(session)
