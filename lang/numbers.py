"""The one bounded parser for numbers written by a user, in every language and on every command line.

Python's own conversions are unsafe on hostile text: ``int()`` refuses more than 4,300 digits with
a ValueError whose message means nothing to a user, ``Fraction("1e100000000")`` computes a number
of a hundred million digits (a hang), and ``float("1e999")`` silently becomes ``inf``. Everything
here checks the text's size before converting, so a conversion is always quick, and reports a
problem as a :class:`NumberError` with a message in the user's terms; callers turn it into their
own diagnostic (with their location and exit code).
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

from .diagnostics import short

# No value this toolchain accepts needs more: i64 has 19 decimal digits, 16 hex digits; a wider
# literal is an error of range anyway, and this bound keeps the conversion itself trivial.
MAX_INT_DIGITS = 64
# Decimal exponents beyond this are far outside f64 and any sane rational parameter.
MAX_EXPONENT = 400

_INT = re.compile(r"[+-]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|[0-9][0-9_]*)")
_DECIMAL = re.compile(r"[+-]?(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)(?:[eE]([+-]?[0-9]+))?")
_SPECIAL = {"inf", "+inf", "-inf", "infinity", "+infinity", "-infinity", "nan", "+nan", "-nan"}


class NumberError(ValueError):
    """Text that is not a number of the wanted kind, or one too large to be one."""


def _significant_digits(body: str) -> int:
    digits = body.replace("_", "")
    if digits[:2].lower() in ("0x", "0b", "0o"):
        digits = digits[2:]
    return len(digits.lstrip("0"))


def parse_int(text: str, what: str = "integer") -> int:
    """An integer literal in Python's syntax for ``int(text, 0)`` (decimal, 0x, 0b, 0o)."""
    t = text.strip()
    if not _INT.fullmatch(t):
        raise NumberError(f"{short(t)!r} is not an {what}" if what[0] in "aeiou" else f"{short(t)!r} is not a {what}")
    if _significant_digits(t.lstrip("+-")) > MAX_INT_DIGITS:
        raise NumberError(f"{what} has more than {MAX_INT_DIGITS} digits")
    body = t.lstrip("+-")
    try:
        # decimal digits parse in base 10, so leading zeros are harmless here (a language that
        # forbids them says so before calling)
        return int(t, 0) if body[:2].lower() in ("0x", "0b", "0o") else int(t, 10)
    except ValueError:
        raise NumberError(f"{short(t)!r} is not a valid {what}") from None


def _check_exponent(t: str, what: str) -> None:
    m = _DECIMAL.fullmatch(t)
    if not m:
        raise NumberError(f"{short(t)!r} is not a number")
    mantissa = t[:m.start(1) - 1] if m.group(1) is not None else t
    if _significant_digits(mantissa.lstrip("+-").replace(".", "")) > 1000:
        raise NumberError(f"{what} has more than 1000 digits")
    if m.group(1) is not None and len(m.group(1).lstrip("+-").lstrip("0")) > 6:
        raise NumberError(f"{what} has an exponent of more than 6 digits")


def parse_float(text: str, what: str = "number", allow_special: bool = False) -> float:
    """A decimal f64 literal. Overflow to infinity is an error, not a silent ``inf``."""
    t = text.strip()
    if t.lower() in _SPECIAL:
        if allow_special:
            return float(t)
        raise NumberError(f"{what} {short(t)!r} is not finite")
    _check_exponent(t, what)
    value = float(t)
    if math.isinf(value):
        raise NumberError(f"{what} {short(t)} is too large for f64 (largest is about 1.8e308)")
    return value


def checked_float(value: int | float, what: str = "number") -> float:
    """An int or float as an f64; an integer too large for f64 is an error."""
    try:
        result = float(value)
    except OverflowError:
        raise NumberError(f"{what} is too large for f64 (largest is about 1.8e308)") from None
    return result


def parse_fraction(text: str, what: str = "number") -> Fraction:
    """An exact rational from a decimal, an integer or ``p/q``; its size is bounded first."""
    t = text.strip()
    num, slash, den = t.partition("/")
    if slash:
        p, q = parse_int(num, what), parse_int(den, what)
        if q == 0:
            raise NumberError(f"{what} {short(t)!r} divides by zero")
        return Fraction(p, q)
    if t.lower() in _SPECIAL:
        raise NumberError(f"{what} {short(t)!r} is not finite")
    _check_exponent(t, what)
    m = _DECIMAL.fullmatch(t)
    if m.group(1) is not None and abs(int(m.group(1))) > MAX_EXPONENT:
        raise NumberError(f"{what} {short(t)} is out of range (exponent beyond {MAX_EXPONENT})")
    return Fraction(t.replace("_", ""))
