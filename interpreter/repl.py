"""``inca repl``: the terminal front end of :class:`~.session.Session`.

Here: completion and the two input loops. On a terminal the loop uses prompt_toolkit (line
editing, persistent history in ``$INCA_HISTORY`` or ``~/.inca_history``, tab completion of
commands and names); otherwise lines are read from stdin with no prompt, so a session can be
scripted (``inca repl < session.txt``). prompt_toolkit is imported only when a terminal session
starts. This module is the top of the REPL: only the command line (:mod:`.cli`) imports it; the
session and the protocol they share (:mod:`.protocol`) know nothing of it.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import TextIO

from ..compiler.incaq.incremental import RESERVED
from ..lang import __version__
from ..lang.diagnostics import EXIT_ERROR, EXIT_OK, DiagnosticError, Source
from ..lang.isa import OPCODES
from .profiles import PRESETS, load_profile
from .protocol import COMMANDS, Reply, resolve
from .session import Session


# ---- completion ------------------------------------------------------------------------------

def completions(session: Session, text: str) -> tuple[int, list[str]]:
    """Words completing the word before the cursor in ``text``, and that word's length."""
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
        names = [*session.decls, *session.params, *session.defs.functions, *RESERVED]
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


def run_lines(session: Session, lines, out: TextIO, err: TextIO) -> int:
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


def run_terminal(session: Session) -> int:
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


def _interactive_feed(session: Session, line: str) -> bool:
    """Feed a typed line and show the reply; True when the session ends. Ctrl-C stops what is
    running (the session itself reports a bug in the toolchain and goes on)."""
    try:
        reply = session.feed(line)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr, flush=True)
        return False
    show(reply, sys.stdout, sys.stderr)
    return reply.quit


def _plain_terminal(session: Session) -> int:
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
    profile = load_profile(args.profile, dict(args.param))
    # INCA_DEBUG (set, not empty or 0): an internal error shows its traceback
    debug = os.environ.get("INCA_DEBUG", "") not in ("", "0")
    session = Session(profile, args.max_steps, tuple(args.include), debug)
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if interactive:
        print(f"inca {__version__} REPL on the NIC model (profile {profile.name}). "
              ":help for commands, :q to quit.", flush=True)
    if args.file:
        show(session.feed(f":load {args.file}"), sys.stdout, sys.stderr)
    if not interactive:
        return run_lines(session, sys.stdin, sys.stdout, sys.stderr)
    return run_terminal(session)
