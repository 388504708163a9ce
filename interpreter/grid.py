"""What a study sweeps: its dimensions from the command line and a study file (docs/studies.md).

A study is the product of kernels, payloads, profiles, variants, optimisation levels, one engine
and any number of grid dimensions, each a profile parameter (``link_gbps``, ``m``, ...) or a
kernel param (set as ``-D`` would). Values are written as lists (``102.4,400,1000``) and ranges
(``100:1000:50``: from 100 in steps of 50, up to and including 1000 when a step lands on it),
computed in exact rationals so that ``0.1:0.3:0.1`` ends at 0.3 and not at 0.30000000000000004.
"""
from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

from ..lang.diagnostics import Diagnostic, DiagnosticError, did_you_mean
from ..lang.frozen import frozen
from ..lang.numbers import NumberError, parse_int
from .profiles import HOST_PARAMS, SCRATCHPAD_PARAMS, format_number, parameter_value, parse_number

PROFILE_PARAMS = tuple(dict.fromkeys([*SCRATCHPAD_PARAMS, *HOST_PARAMS]))
#: At most this many values in one dimension and rows in one study: enough for any design study,
#: and a typo (``1:1e9:1``) is refused at once instead of filling the memory.
MAX_VALUES = 10_000
MAX_ROWS = 2_000_000
STUDY_KEYS = ("kernels", "kernels_dir", "payloads", "profiles", "variants", "opt", "engine", "grid")
STUDY_BYTES = 1 << 20
# ``param NAME`` at the start of a line of an INCA-Q kernel: the names -D may set
_PARAM = re.compile(r"^[ \t]*param[ \t]+([A-Za-z_][A-Za-z_0-9]*)", re.MULTILINE)


def _fail(message: str, hint: str | None = None, origin: str = "--grid") -> DiagnosticError:
    return DiagnosticError([Diagnostic(message, None, hint, file=origin)])


@frozen
class Axis:
    """One grid dimension: a profile parameter (values as exact decimal text) or a kernel param."""

    name: str
    kind: str  # "profile" or "kernel"
    values: tuple[str, ...]  # canonical text: format_number for profile parameters, int text

    def value(self, text: str) -> str | int:
        """A value as CSV and JSON carry it: exact text for a parameter, an int for a param."""
        return int(text) if self.kind == "kernel" else text


def kernel_params(path: Path) -> set[str]:
    """The params a kernel declares (what ``-D`` may set)."""
    try:
        return set(_PARAM.findall(path.read_text(encoding="utf-8", errors="replace")))
    except OSError:
        return set()


def _range(name: str, text: str, origin: str, number, fmt) -> list[str]:
    parts = text.split(":")
    if len(parts) != 3:
        raise _fail(f"{name}: a range is START:STOP:STEP, not {text!r}", "e.g. 100:1000:50", origin)
    start, stop, step = (number(p) for p in parts)
    if step <= 0 or stop < start:
        raise _fail(f"{name}: the range {text} is empty", "write START:STOP:STEP with STEP > 0 "
                    "and STOP >= START", origin)
    count = (stop - start) // step + 1
    if count > MAX_VALUES:
        raise _fail(f"{name}: the range {text} has {count} values", f"at most {MAX_VALUES} per "
                    "dimension", origin)
    return [fmt(start + i * step) for i in range(int(count))]


def parse_values(name: str, kind: str, text: str, origin: str = "--grid") -> tuple[str, ...]:
    """The values of ``NAME=text``: a comma list of numbers and ranges, duplicates dropped."""
    if kind == "kernel":
        def number(word: str) -> int:
            try:
                return parse_int(word, name)
            except NumberError as e:
                raise _fail(f"{name}: {e}", "a kernel param takes integers, e.g. T=0,1,2 or 0:8:2",
                            origin) from None
        fmt = str
    else:
        def number(word: str) -> Fraction:
            word = word.strip()
            try:
                return parse_number(word)
            except NumberError:
                raise _fail(f"parameter {name}={word!r} is not a number",
                            "write 12, 102.4, 1e3 or 1/3; a range is START:STOP:STEP", origin) from None
        fmt = format_number
    out: list[str] = []
    for word in text.split(","):
        got = _range(name, word, origin, number, fmt) if ":" in word else [fmt(number(word))]
        if kind == "profile":
            for v in got:
                parameter_value(name, v, origin)  # its range, before anything runs
        out += [v for v in got if v not in out]
        if len(out) > MAX_VALUES:
            raise _fail(f"{name}: more than {MAX_VALUES} values", None, origin)
    if not out or out == [""]:
        raise _fail(f"{name}: no values", "e.g. --grid link_gbps=102.4,400,1000", origin)
    return tuple(out)


def classify(name: str, kernels: dict[str, Path], origin: str = "--grid") -> str:
    """``profile`` or ``kernel``; a name that is neither, or both, is a diagnostic."""
    params: dict[str, list[str]] = {}
    for kernel, path in kernels.items():
        for p in kernel_params(path):
            params.setdefault(p, []).append(kernel)
    if name == "PAYLOAD":
        raise _fail("PAYLOAD is swept by --payloads, not --grid", "e.g. --payloads 128,8192", origin)
    in_profile, in_kernel = name in PROFILE_PARAMS, name in params
    if in_profile and in_kernel:
        raise _fail(f"'{name}' is both a profile parameter and a param of {', '.join(params[name])}",
                    "rename the kernel's param, or set one of them with -D or --param outside the "
                    "study", origin)
    if in_profile:
        return "profile"
    if in_kernel:
        return "kernel"
    hint = did_you_mean(name, [*PROFILE_PARAMS, *params]) or (
        "profile parameters: " + ", ".join(PROFILE_PARAMS) +
        ("; kernel params: " + ", ".join(sorted(params)) if params else ""))
    raise _fail(f"'{name}' is neither a profile parameter nor a param of the kernels", hint, origin)


def parse_grid(specs: list[tuple[str, str]], kernels: dict[str, Path],
               origin: str = "--grid") -> list[Axis]:
    """``--grid NAME=VALUES`` options (a later one for the same name replaces the earlier)."""
    axes: dict[str, Axis] = {}
    for name, text in specs:
        kind = classify(name, kernels, origin)
        axes[name] = Axis(name, kind, parse_values(name, kind, text, origin))
    return list(axes.values())


def _words(value, key: str, origin: str) -> str:
    """A study file's list (or comma string) as the command line's comma text."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(
            isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value):
        return ",".join(str(v) for v in value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise _fail(f"'{key}' is a list of values or a comma-separated string", None, origin)


def load_study(path: str) -> dict[str, object]:
    """A study file: ``{key: comma text}`` for the dimensions it sets, ``grid`` as
    ``[(name, values text)]`` and ``kernels_dir`` relative to the file's folder."""
    from ..lang.userfiles import read_text

    import tomllib  # study files only

    text = read_text(path, STUDY_BYTES)
    try:
        doc = tomllib.loads(text)
    except (ValueError, RecursionError) as e:
        raise _fail(f"not valid TOML: {e}" if isinstance(e, tomllib.TOMLDecodeError) else
                    "not valid TOML: a value is too large or nested too deep", None, path) from None
    out: dict[str, object] = {}
    for key, value in doc.items():
        if key not in STUDY_KEYS:
            raise _fail(f"unknown key '{key}' in a study file", did_you_mean(key, STUDY_KEYS) or
                        "keys: " + ", ".join(STUDY_KEYS), path)
        if key == "grid":
            if not isinstance(value, dict):
                raise _fail("'grid' is a table: [grid] then NAME = [values] lines", None, path)
            out["grid"] = [(str(n), _words(v, f"grid.{n}", path)) for n, v in value.items()]
        elif key in ("kernels_dir", "engine"):
            if not isinstance(value, str):
                raise _fail(f"'{key}' is a string", None, path)
            out[key] = str(Path(path).parent / value) if key == "kernels_dir" else value
        else:
            out[key] = _words(value, key, path)
    return out
