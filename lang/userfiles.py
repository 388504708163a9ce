"""Files a user names on a command line: read bounded and decoded, written only where safe.

Every tool reads programs, profiles and input data and writes outputs through here, so each
failure has one wording and becomes a :class:`~.diagnostics.DiagnosticError` (exit 1), never a
traceback: a file too large to be what it claims (or endless, like ``/dev/zero``), bytes that are
not UTF-8 (the diagnostic names the line, column and byte offset), JSON nested deeper than any
data or with numbers out of range, an output path that is a folder, in a missing folder, or the
very file being read.
"""
from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import accumulate

from .diagnostics import Diagnostic, DiagnosticError, Loc
from .numbers import NumberError, parse_float, parse_int
from .patterns import lazy

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from pathlib import Path

# Far above any program or profile a person writes or the compiler emits (the largest example
# tuple program is a few hundred KiB), and small enough that reading one stays well under a second.
MAX_TEXT_BYTES = 64 << 20
# JSON data nests one level per array dimension; tuple programs a few levels. Python's own decoder
# recurses per level and dies of RecursionError near 1,000.
MAX_JSON_DEPTH = 64

_BOM = "\ufeff"
_JSON_NESTING = lazy(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)
# The same strings (the unrolled form of the same language, so each match is the same one) and
# brackets, with only the bracket captured: findall gives '' for a string, so the brackets outside
# strings come out in order without a match object each.
_JSON_BRACKETS = lazy(r'"[^"\\]*(?:\\.[^"\\]*)*"|([\[\]{}])', re.S)
_JSON_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
# For str.translate: every other ASCII character dropped.
_QUOTES_AND_BRACKETS = {c: None for c in range(128) if chr(c) not in '"[]{}'}


def _fail(path: str, message: str, hint: str | None = None) -> DiagnosticError:
    return DiagnosticError([Diagnostic(message, hint=hint, file=path)])


def os_reason(e: OSError) -> str:
    """Why the operating system refused a path, as a diagnostic says it (``file name too long``)."""
    return (e.strerror or str(e)).lower()


def _nul_free(path: str, what: str) -> None:
    """No operating system call takes a path with a NUL byte (Python raises ValueError, not an
    OSError, so it needs its own check); the diagnostic shows the byte as ``\\0``."""
    if "\0" in path:
        raise _fail(path.replace("\0", "\\0"), f"cannot {what}: the path contains a NUL byte")


def read_bytes(path: str, limit: int = MAX_TEXT_BYTES) -> bytes:
    """At most ``limit`` bytes of a file; a longer (or endless) file is a diagnostic."""
    _nul_free(path, "read")
    try:
        with open(path, "rb") as f:
            data = f.read(limit + 1)
    except FileNotFoundError:
        raise _fail(path, "no such file") from None
    except IsADirectoryError:
        raise _fail(path, "is a directory, not a file") from None
    except OSError as e:
        raise _fail(path, f"cannot read: {e.strerror or e}") from None
    if len(data) > limit:
        raise _fail(path, f"the file is larger than {limit} bytes, the most this tool reads for it")
    return data


def decode(data: bytes, path: str) -> str:
    """UTF-8 text without a leading byte-order mark (accepted as Python and clang do, so columns
    count from the first real character); a bad byte is reported where it is."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        start = data.rfind(b"\n", 0, e.start) + 1
        end = data.find(b"\n", e.start)
        quoted = data[start:end if end >= 0 else len(data)].decode("utf-8", "replace")
        col = len(data[start:e.start].decode("utf-8", "replace")) + 1
        raise DiagnosticError([Diagnostic(
            f"the file is not UTF-8 text: byte 0x{data[e.start]:02x} at offset {e.start} ({e.reason})",
            Loc(path, line, col), "save the file as UTF-8", quoted)]) from None
    return text[1:] if text.startswith(_BOM) else text


def read_text(path: str, limit: int = MAX_TEXT_BYTES) -> str:
    """A UTF-8 text file, bounded and decoded (see :func:`read_bytes` and :func:`decode`)."""
    return decode(read_bytes(path, limit), path)


# The bounded conversions are Python code and json calls them for every number, but data repeats
# its numbers (every scalar's initial value 0.0, shapes, branch targets): a 100,000-buffer tuple
# program spent 0.3 s converting 0.0. (A number that is refused raises, and is never cached.)
@lru_cache(maxsize=4096)
def _json_number_int(text: str) -> int:
    return parse_int(text, "JSON integer")


@lru_cache(maxsize=4096)
def _json_number_float(text: str) -> float:
    return parse_float(text, "JSON number")


def parse_json(text: str, path: str):
    """A JSON document whose nesting and numbers are bounded before Python converts anything:
    more than :data:`MAX_JSON_DEPTH` levels, an integer of more than 64 digits or a number beyond
    f64 (which ``json`` would silently make ``inf``) is a diagnostic."""
    if _json_depth(text) > MAX_JSON_DEPTH:
        raise _fail(path, f"not valid JSON data: nested more than {MAX_JSON_DEPTH} levels "
                          f"deep (line {_too_deep_line(text)})")
    import json  # (here: a run that reads no JSON does not import it)

    try:
        return json.loads(text, parse_int=_json_number_int, parse_float=_json_number_float)
    except json.JSONDecodeError as e:
        lines = text.splitlines()
        quoted = lines[e.lineno - 1] if 0 < e.lineno <= len(lines) else None
        raise DiagnosticError([Diagnostic(f"not valid JSON ({e.msg})", Loc(path, e.lineno, e.colno),
                                          None, quoted)]) from None
    except NumberError as e:
        raise _fail(path, f"not valid JSON data: {e}") from None


def _json_depth(text: str) -> int:
    """How deep the brackets outside strings nest in ``text``, JSON or not (the tokens of
    :data:`_JSON_NESTING`, one at a time, define it; :func:`_too_deep_line` counts that way).

    In bulk: a tuple program of 100,000 tuples has 600,000 strings and brackets, and one Python
    step for each took a quarter of a second. Without a backslash a string runs from a quote to the
    next, so only quotes and brackets matter and one C pass drops the rest; when the quotes then
    pair up (an even number), each two adjacent ones are an empty string or the seam between two
    strings, and dropping them (another C pass) moves no bracket into or out of a string. That
    leaves a tenth of the text for the regular expression."""
    if text.isascii() and "\\" not in text:
        text = text.translate(_QUOTES_AND_BRACKETS)
        if text.count('"') % 2 == 0:
            text = text.replace('""', "")
    brackets = "".join(_JSON_BRACKETS.findall(text))
    return max(accumulate(map(_JSON_DEPTH_STEP.__getitem__, brackets)), default=0)


def _too_deep_line(text: str) -> int:
    """The line where ``text`` first nests more than :data:`MAX_JSON_DEPTH` levels deep."""
    depth, at = 0, 0
    for m in _JSON_NESTING.finditer(text):
        c, at = m.group(), m.start()
        depth += (c in "[{") - (c in "]}")
        if depth > MAX_JSON_DEPTH:
            break
    return text.count("\n", 0, at) + 1


def load_json(path: str, limit: int = MAX_TEXT_BYTES):
    """A JSON file read with :func:`read_text` and :func:`parse_json`."""
    return parse_json(read_text(path, limit), path)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.samefile(b)
    except OSError:  # one of them does not exist (yet): compare where they would be
        return a.resolve() == b.resolve()


def check_output(path: str, tool: str, inputs: Iterable[str] = ()) -> None:
    """Refuse, before any work is done, an output path that cannot be written or that is one of
    the ``inputs`` (writing it would destroy what was read)."""
    from pathlib import Path  # (not at the start of every tool: 18 M instructions)

    _nul_free(path, "write")
    try:
        _check_output(Path(path), path, tool, inputs)
    except OSError as e:  # the path itself is unusable: a name too long, a loop of links
        raise cannot_write(path, tool, os_reason(e)) from None


def _check_output(p: Path, path: str, tool: str, inputs: Iterable[str]) -> None:
    from pathlib import Path

    for i in inputs:
        if _same_file(p, Path(i)):
            raise cannot_write(path, tool, f"it is the input file '{i}'",
                                "choose another output path")
    if p.is_dir():
        raise cannot_write(path, tool, "it is a directory")
    parent = p.parent
    if not parent.is_dir():
        raise cannot_write(path, tool, f"no such directory '{parent}'")
    if not os.access(p if p.exists() else parent, os.W_OK):
        raise cannot_write(path, tool, "permission denied")


def write_text(path: str, text: str, tool: str) -> None:
    """Write an output file; any OS failure is the same diagnostic as :func:`check_output`'s."""
    _nul_free(path, "write")
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise cannot_write(path, tool, os_reason(e)) from None


def cannot_write(path: str, tool: str, reason: str, hint: str | None = None) -> DiagnosticError:
    """The one diagnostic for an output that cannot be written: ``tool: error: cannot write 'PATH': reason``."""
    return DiagnosticError([Diagnostic(f"cannot write '{path}': {reason}", hint=hint, file=tool)])
