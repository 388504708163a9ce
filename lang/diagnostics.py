"""The one diagnostic type of the toolchain.

Every error a user can cause (a bad program, a bad tuple file, a runtime fault) is reported as a
:class:`Diagnostic` and rendered the way clang and rustc do::

    dot.incaa:3:7: error: unknown mnemonic 'PUTX'
        PUTX r0, i
        ^~~~
    hint: did you mean 'PUTL'?
"""
from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from ..stdlib import file_of
from .frozen import frozen, packed


@packed
class Loc:
    """A source location: 1-based line and column; ``end_col`` is exclusive (None = one char).

    Packed (a tuple underneath): one is made for nearly every node, instruction and tuple, and
    read only when something is reported or written. ``make_loc((file, line, col, end_col))``
    makes one without a call of ``Loc``'s ``__new__`` (the parsers' hot paths)."""

    file: str
    line: int
    col: int
    end_col: int | None = None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


make_loc = partial(tuple.__new__, Loc)


@frozen
class Diagnostic:
    """One message about the user's input, with where it points and what might fix it."""

    message: str
    loc: Loc | None = None
    hint: str | None = None
    source_line: str | None = None
    severity: str = "error"
    file: str | None = None  # for file-level errors with no line (e.g. a missing file)

    def render(self) -> str:
        """The clang-style text: header line, quoted source, caret, hint."""
        where = str(self.loc) if self.loc else (self.file or "inca")
        out = [f"{where}: {self.severity}: {self.message}"]
        if self.loc is not None and self.source_line is not None:
            line = self.source_line.rstrip("\n").expandtabs(1)
            col = max(1, min(self.loc.col, len(line) + 1))
            end = self.loc.end_col if self.loc.end_col and self.loc.end_col > col else col + 1
            end = min(end, max(len(line) + 1, col + 1))
            out.append("    " + line)
            out.append("    " + " " * (col - 1) + "^" + "~" * (end - col - 1))
        if self.hint:
            out.append(f"hint: {self.hint}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.render()


class DiagnosticError(Exception):
    """Raised with one or more diagnostics; the command-line tools print them and exit non-zero."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))

    def __reduce__(self):
        # Exceptions pickle their rendered text by default, which would rebuild this one from a
        # string; a process pool (``inca report``) must get the diagnostics themselves back.
        return (DiagnosticError, (self.diagnostics,))


class Source:
    """A named source text, which knows how to quote its own lines in diagnostics."""

    def __init__(self, name: str, text: str):
        self.name = name
        self.text = text
        self.lines = text.splitlines()

    def line(self, n: int) -> str | None:
        """Line ``n`` (1-based), or None past the end."""
        return self.lines[n - 1] if 1 <= n <= len(self.lines) else None

    def loc(self, line: int, col: int, end_col: int | None = None) -> Loc:
        """A location in this source."""
        return make_loc((self.name, line, col, end_col))

    def diag(self, loc: Loc | None, message: str, hint: str | None = None) -> Diagnostic:
        """A diagnostic quoting this source at ``loc``."""
        text = self.line(loc.line) if loc is not None and loc.file == self.name else None
        return Diagnostic(message, loc, hint, text)


def quote_file(loc: Loc | None) -> str | None:
    """Read the line ``loc`` points at from disk, if the file is still there (for loaded programs)."""
    if loc is None:
        return None
    try:
        # utf-8-sig: a byte-order mark is not part of line 1 (the frontend drops it too)
        with open(file_of(loc.file), encoding="utf-8-sig") as f:
            for n, line in enumerate(f, 1):
                if n == loc.line:
                    return line
    except (OSError, UnicodeDecodeError):
        return None
    return None


def did_you_mean(word: str, choices: Iterable[str]) -> str | None:
    """A "did you mean" hint for a misspelt name, or None when nothing is close."""
    import difflib  # here: only a misspelling needs it, and every tool imports this module

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in choices}
        if word.lower() in lowered:
            close = [lowered[word.lower()]]
    return f"did you mean '{close[0]}'?" if close else None


# Exit codes of the command-line tools (documented in docs/cli.md).
EXIT_OK = 0
EXIT_ERROR = 1  # the program or an input file has errors (diagnostics were printed)
EXIT_USAGE = 2  # bad command line
EXIT_FAULT = 3  # the kernel stopped with a runtime error
EXIT_STEPS = 4  # the kernel did not finish within --max-steps
EXIT_INTERNAL = 70  # a bug in incac itself


def short(text: str, limit: int = 40) -> str:
    """User text as quoted in a message: a megabyte of bad input must not become a megabyte of
    diagnostic, so long text keeps its start and end around an ellipsis."""
    if len(text) <= limit:
        return text
    keep = (limit - 3) // 2
    return f"{text[:keep]}...{text[-keep:]} ({len(text)} characters)"
