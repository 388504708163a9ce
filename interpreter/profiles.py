"""Cost profiles: what one executed tuple costs, in ns (MODEL.md section 3).

All parameters are exact rationals (:class:`fractions.Fraction`), so ``elem_gap = 1/3`` and a
1.28 ns message gap at 400 Gb/s accumulate without rounding; times become floats only when printed.
"""
from __future__ import annotations

import tomllib
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from ..lang.diagnostics import Diagnostic, DiagnosticError, did_you_mean
from ..lang.isa import OpClass

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

PRESETS: dict[str, tuple[str, dict[str, str]]] = {
    "scratchpad": ("scratchpad", {}),
    "base": ("host", {}),
    "scratchpad-400g": ("scratchpad", {"link_gbps": "400"}),
    "scratchpad-1000g": ("scratchpad", {"link_gbps": "1000"}),
}


def parse_number(text: str) -> Fraction:
    """An exact value from ``12``, ``102.4``, ``1e3`` or ``1/3``; ValueError if it is none of them."""
    return Fraction(text.strip())


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


@dataclass(frozen=True)
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
            if elements is not None:
                return p["vec_fixed"] + elements * p["elem_gap"]
            gap = p["msg_bits"] / p["link_gbps"]
            return p["L"] + 2 * gap + opclass.accesses * p["m"]
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


def make_profile(name: str, memory: str, overrides: dict[str, str], origin: str | None = None) -> Profile:
    """A profile of ``memory`` kind with its defaults replaced by ``overrides`` (validated)."""
    defaults = KINDS[memory]
    values = dict(defaults)
    for key, text in overrides.items():
        if key not in defaults:
            raise _fail(f"unknown parameter '{key}' for a {memory} profile",
                        did_you_mean(key, defaults) or "parameters: " + ", ".join(defaults), origin)
        values[key] = str(text)
    params = []
    for key, text in values.items():
        try:
            v = parse_number(text)
        except (ValueError, ZeroDivisionError):
            raise _fail(f"parameter {key}={text!r} is not a number", "write 12, 102.4, 1e3 or 1/3",
                        origin) from None
        if v < 0 or (key in ("link_gbps", "msg_bits") and v == 0):
            raise _fail(f"parameter {key} must be {'positive' if key in ('link_gbps', 'msg_bits') else 'non-negative'}, not {text}",
                        None, origin)
        params.append((key, v))
    return Profile(name, memory, tuple(params))


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
    path = Path(spec)
    if not spec.endswith(".toml"):
        raise _fail(f"unknown profile '{spec}'", did_you_mean(spec, PRESETS) or
                    "profiles: " + ", ".join(PRESETS) + ", or a .toml file")
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise _fail(f"cannot read profile: {e.strerror}", file=spec) from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise _fail(f"not valid TOML: {e}", file=spec) from None
    base = str(doc.pop("base", "scratchpad"))
    name = str(doc.pop("name", path.stem))
    if base not in PRESETS:
        raise _fail(f"unknown base profile '{base}'", "base is one of " + ", ".join(PRESETS), spec)
    memory, preset = PRESETS[base]
    fields = {k: str(v) for k, v in doc.items()}
    return make_profile(name, memory, {**preset, **fields, **overrides}, spec)
