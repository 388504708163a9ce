"""The REPL's protocol: what the session and its front ends say to each other, and its texts.

A line of input gets a :class:`Reply`. Commands are the vocabulary :data:`COMMANDS` (names,
usage, what they do; :func:`resolve` takes any unique prefix); a command handler reads its
arguments through :class:`Args`, whose diagnostics point at the typed text. The rest is how
values, runs and statistics are shown. The session (:mod:`.session`), the commands that drive a
loaded program (:mod:`.debugger`) and the terminal front end (:mod:`.repl`) all use this module,
and it uses none of them.
"""
from __future__ import annotations

from fractions import Fraction

from ..lang.diagnostics import DiagnosticError, Source, did_you_mean, short
from ..lang.frozen import frozen
from ..lang.numbers import NumberError, parse_int
from ..lang.program import format_value
from .inputs import nest, to_text
from .loader import RunResult, ns_text, summary_lines, time_us_text


@frozen
class Reply:
    """What one line of input produced: text to show (an error's goes to stderr), whether the
    chunk needs more lines, whether the session ends."""

    text: str = ""
    error: bool = False
    more: bool = False
    quit: bool = False


@frozen
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


@frozen
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
        n = _natural(word)
        if not n:
            raise self.error(col, len(word), f"expected a positive number of tuples, not '{short(word)}'")
        return n

    def line(self) -> tuple[int, int]:
        """A line number (the first argument) and its column."""
        word, col = self.words[0]
        n = _natural(word)
        if n is None:
            raise self.error(col, len(word), f"expected a line number, not '{short(word)}'")
        return n, col


def _natural(word: str) -> int | None:
    """A plain decimal count, or None; bounded (``str.isdigit`` also admits digits ``int`` refuses)."""
    if not (word.isascii() and word.isdigit()):
        return None
    try:
        return parse_int(word)
    except NumberError:
        return None


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
