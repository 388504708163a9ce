"""Shared helpers of the INCA-Q program tests (a helper module, not collected).

The cases themselves are in incaq_cases_control.py, incaq_cases_arithmetic.py and
incaq_cases_functions.py; test_incaq_programs.py runs them.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def wrap(v: int) -> int:
    """Two's-complement wrap into i64, as INCA-A's ALU does."""
    return (v + 2**63) % 2**64 - 2**63


def cdiv(a: int, b: int) -> int:
    """C division: truncate toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def cmod(a: int, b: int) -> int:
    """C remainder: the sign of the dividend."""
    return a - cdiv(a, b) * b


@dataclass
class Case:
    """An INCA-Q program, its inputs, -D defines, -I modules and its expected outputs."""

    text: str
    expected: dict
    inputs: dict = field(default_factory=dict)
    defines: dict = field(default_factory=dict)
    modules: dict = field(default_factory=dict)  # name -> text, written to an -I folder


def registrar(cases: dict[str, Callable[[], Case]]) -> Callable:
    """A decorator that adds a case function to ``cases`` under the function's name."""
    def case(f: Callable[[], Case]) -> Callable[[], Case]:
        cases[f.__name__] = f
        return f
    return case


def merged(*registries: dict[str, Callable[[], Case]]) -> dict[str, Callable[[], Case]]:
    """The cases of all ``registries``, in order; a name defined twice is an error."""
    out: dict[str, Callable[[], Case]] = {}
    for registry in registries:
        for name, f in registry.items():
            if name in out:
                raise ValueError(f"INCA-Q program case {name!r} is defined twice")
            out[name] = f
    return out
