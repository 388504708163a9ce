"""Cost profiles: what one executed tuple costs, in ns (MODEL.md section 3).

All parameters are exact rationals (:class:`fractions.Fraction`), so ``elem_gap = 1/3`` and a
1.28 ns message gap at 400 Gb/s accumulate without rounding; times become floats only when printed.
"""
from __future__ import annotations

import os
from functools import lru_cache
from fractions import Fraction

from ..lang.diagnostics import Diagnostic, DiagnosticError, did_you_mean
from ..lang.frozen import frozen
from ..lang.isa import OpClass
from ..lang.numbers import NumberError, parse_fraction
from ..lang.patterns import lazy
from ..lang.userfiles import read_text

# Parameters of each memory kind, with the scratchpad defaults of MODEL.md 3, in display order.
SCRATCHPAD_PARAMS: dict[str, str] = {
    "link_gbps": "102.4",  # link speed; message gap g = o = msg_bits / link_gbps
    "msg_bits": "512",  # bits per message slot
    "L": "0",  # loopback latency
    "m": "1",  # one scratchpad access
    "vec_fixed": "4.5",  # fixed time of one vector instruction
    "elem_gap": "1/3",  # time per element of a vector instruction
    "scratchpad_bytes": "1048576",  # NIC scratchpad capacity
}
HOST_PARAMS: dict[str, str] = {
    "op_ns": "310",  # any instruction with data in host memory, over PCIe
    "fetch_ns": "250",  # one more host-memory round trip: ALU with a non-immediate source
    "elem_ns": "1/2",  # per vector element: 8 bytes at 16 GB/s (not published; our choice)
}
KINDS = {"scratchpad": SCRATCHPAD_PARAMS, "host": HOST_PARAMS}

# The range of every parameter (docs/model.md#parameter-ranges) and its unit: wide enough for any
# design study, and narrow enough that every cost stays a modest exact rational and every modeled
# time a finite double (outside them, 1e-400 Gb/s overflowed only when the time was printed).
_NS = (Fraction(0), Fraction(10**9), "ns")
RANGES: dict[str, tuple[Fraction, Fraction, str]] = {
    "link_gbps": (Fraction(1, 1000), Fraction(10**6), "Gb/s"),
    "msg_bits": (Fraction(1), Fraction(10**6), "bits"),
    "L": _NS, "m": _NS, "vec_fixed": _NS, "elem_gap": _NS,
    "scratchpad_bytes": (Fraction(0), Fraction(2**40), "bytes"),
    "op_ns": _NS, "fetch_ns": _NS, "elem_ns": _NS,
}
# Counts of whole things: a fraction would be truncated silently where it is used.
INTEGER_PARAMS = frozenset({"msg_bits", "scratchpad_bytes"})
# A decimal the bounded parser refuses has too many digits or too large an exponent: it is a
# number, far out of range.
_DECIMAL = lazy(r"\s*[+-]?(?=\.?[0-9])[0-9_]*\.?[0-9_]*(?:[eE][+-]?[0-9]+)?\s*")

PRESETS: dict[str, tuple[str, dict[str, str]]] = {
    "scratchpad": ("scratchpad", {}),
    "base": ("host", {}),
    "scratchpad-400g": ("scratchpad", {"link_gbps": "400"}),
    "scratchpad-1000g": ("scratchpad", {"link_gbps": "1000"}),
}


@lru_cache(maxsize=4096)
def parse_number(text: str) -> Fraction:
    """An exact value from ``12``, ``102.4``, ``1e3`` or ``1/3`` (:func:`~inca.lang.numbers.parse_fraction`:
    size-bounded, so no text can hang it); NumberError if it is none of them. Memoised: a study
    makes hundreds of profiles from the same few texts (a Fraction is immutable; errors are not
    kept)."""
    return parse_fraction(text, "value")


def format_number(v: Fraction) -> str:
    """Shortest exact decimal when there is one (``102.4``), else the fraction (``1/3``)."""
    if v.denominator == 1:
        return str(v.numerator)
    d = v.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return f"{v.numerator}/{v.denominator}"
    digits = 0
    while (v * 10 ** digits).denominator != 1:
        digits += 1
    return f"{float(v):.{digits}f}" if digits <= 15 else f"{v.numerator}/{v.denominator}"


@frozen
class Profile:
    """A named cost profile: where data lives (``scratchpad`` or ``host``) and its parameters."""

    name: str
    memory: str
    params: tuple[tuple[str, Fraction], ...]

    def __getitem__(self, key: str) -> Fraction:
        return dict(self.params)[key]

    @property
    def capacity(self) -> int | None:
        """Bytes the data may occupy (None: host memory, unbounded here)."""
        return int(self["scratchpad_bytes"]) if self.memory == "scratchpad" else None

    def cost(self, opclass: OpClass, src_is_imm: bool, elements: int | None) -> Fraction:
        """Time of one executed tuple; ``elements`` is the vector length, None for scalar tuples."""
        if opclass is OpClass.END:
            return Fraction(0)
        p = dict(self.params)
        if self.memory == "scratchpad":
            gap = p["msg_bits"] / p["link_gbps"]
            scalar = p["L"] + 2 * gap + opclass.accesses * p["m"]
            if elements is None:
                return scalar
            # MODEL.md section 3: a vector instruction is never cheaper than its scalar class
            return max(scalar, p["vec_fixed"] + elements * p["elem_gap"])
        t = p["op_ns"] + (p["fetch_ns"] if opclass is OpClass.ALU and not src_is_imm else 0)
        return t + (elements * p["elem_ns"] if elements is not None else 0)

    def describe(self) -> str:
        """``name (memory): k=v ...`` as echoed by every run."""
        return f"{self.name} ({self.memory}): " + " ".join(
            f"{k}={format_number(v)}" for k, v in self.params)

    def as_json(self) -> dict:
        """Name, memory and parameters (exact values as strings, e.g. ``"1/3"``)."""
        return {"name": self.name, "memory": self.memory,
                "params": {k: format_number(v) for k, v in self.params}}


def _fail(message: str, hint: str | None = None, file: str | None = None) -> DiagnosticError:
    return DiagnosticError([Diagnostic(message, None, hint, file=file or "inca")])


def _range_text(key: str) -> str:
    lo, hi, unit = RANGES[key]
    whole = "a whole number " if key in INTEGER_PARAMS else ""
    return f"{key} is {whole}from {format_number(lo)} to {format_number(hi)} ({unit})"


def parameter_value(key: str, text: str, origin: str | None = None) -> Fraction:
    """The value of one parameter, checked against its range (every way a profile is made,
    presets, TOML files, ``--param`` and the REPL's ``:profile``, comes through here)."""
    shown = text if len(text) <= 40 else text[:40] + "..."
    try:
        v = parse_number(text)
    except NumberError:
        if _DECIMAL.fullmatch(text):
            raise _fail(f"parameter {key}={shown} is out of range", _range_text(key), origin) from None
        raise _fail(f"parameter {key}={shown!r} is not a number", "write 12, 102.4, 1e3 or 1/3",
                    origin) from None
    lo, hi, _ = RANGES[key]
    if not lo <= v <= hi:
        raise _fail(f"parameter {key}={shown} is out of range", _range_text(key), origin)
    if key in INTEGER_PARAMS and v.denominator != 1:
        raise _fail(f"parameter {key}={shown} is not a whole number", _range_text(key), origin)
    return v


def make_profile(name: str, memory: str, overrides: dict[str, str], origin: str | None = None) -> Profile:
    """A profile of ``memory`` kind with its defaults replaced by ``overrides`` (validated)."""
    defaults = KINDS[memory]
    values = dict(defaults)
    for key, text in overrides.items():
        if key not in defaults:
            raise _fail(f"unknown parameter '{key}' for a {memory} profile",
                        did_you_mean(key, defaults) or "parameters: " + ", ".join(defaults), origin)
        values[key] = str(text)
    params = [(key, parameter_value(key, text, origin)) for key, text in values.items()]
    return Profile(name, memory, tuple(params))


# A profile is a dozen ``NAME = VALUE`` lines. tomllib's time and memory grow with the square of
# a dotted key's depth (8,000 levels: 0.7 s, 260 MB) and deep arrays exhaust its recursion, so a
# file is refused before parsing when it is larger, or has more of the characters that nest, than
# any profile could (comments included).
PROFILE_BYTES = 64 << 10
PROFILE_NESTING_CHARS = 1000


def load_profile(spec: str, overrides: dict[str, str] | None = None) -> Profile:
    """A preset by name, or a TOML file; then ``--param`` overrides on top.

    A TOML profile names the preset it starts from with ``base`` (default ``scratchpad``) and
    sets any parameters as top-level keys, e.g.::

        name = "my-nic"
        base = "scratchpad"
        link_gbps = 200
    """
    overrides = dict(overrides or {})
    if spec in PRESETS:
        memory, preset = PRESETS[spec]
        return make_profile(spec, memory, {**preset, **overrides})
    if not spec.endswith(".toml"):
        raise _fail(f"unknown profile '{spec}'", did_you_mean(spec, PRESETS) or
                    "profiles: " + ", ".join(PRESETS) + ", or a .toml file")
    text = read_text(spec, PROFILE_BYTES)
    if sum(text.count(c) for c in ".[{") > PROFILE_NESTING_CHARS:
        raise _fail(f"not a cost profile: more than {PROFILE_NESTING_CHARS} '.', '[' and '{{'",
                    "a profile is a list of NAME = VALUE lines", spec)
    import tomllib  # only for profile files: a preset needs no TOML parser

    try:
        doc = tomllib.loads(text)
    except (ValueError, RecursionError) as e:
        # besides TOMLDecodeError, tomllib lets int()'s 4,300-digit ValueError through, and a few
        # hundred nested arrays exhaust its recursion
        raise _fail(f"not valid TOML: {e}" if isinstance(e, tomllib.TOMLDecodeError) else
                    "not valid TOML: a value is too large or nested too deep", file=spec) from None
    base = str(doc.pop("base", "scratchpad"))
    name = str(doc.pop("name", os.path.splitext(os.path.basename(spec))[0]))
    if base not in PRESETS:
        raise _fail(f"unknown base profile '{base}'", "base is one of " + ", ".join(PRESETS), spec)
    memory, preset = PRESETS[base]
    fields = {k: str(v) for k, v in doc.items()}
    return make_profile(name, memory, {**preset, **fields, **overrides}, spec)
