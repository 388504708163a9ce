"""Pricing: a run's fire counts, grouped by what the cost model prices (a :class:`Tally`), and
:func:`price`, the one pricing function, which turns a tally and a profile into the statistics
(time is the sum over executed tuples of their cost, MODEL.md 3), and the printed forms of a
time. Kept apart from the loader (which re-exports all of it) so that what only prices or prints,
like a study read back from its cache, imports no engine and no program model.
"""
from __future__ import annotations

from fractions import Fraction

from ..lang.frozen import frozen
from ..lang.isa import OpClass
from .profiles import Profile

CLASSES = ("PUTL", "ALU", "BLEZ", "JMP")


@frozen
class Tally:
    """A run's fire counts grouped by what the cost model prices, and the data size the footprint
    check needs: everything :func:`price` reads, and nothing a profile changes."""

    source: str  # the program's file, for the footprint diagnostic
    data_bytes: int
    # (class, source is an immediate, vector length or None, fires), END excluded, in a fixed order
    groups: tuple[tuple[OpClass, bool, int | None, int], ...]


@frozen
class Priced:
    """The statistics of a run under one profile."""

    instructions: int
    by_class: dict[str, int]
    messages: int
    memory_accesses: int
    time_ns: Fraction


def price(t: Tally, profile: Profile) -> Priced:
    """The one pricing function: statistics of a tallied run under ``profile``. A profile the
    program's data does not fit is the same diagnostic as installing it (check_footprint)."""
    from .inputs import check_data  # the footprint check inca run makes

    check_data(t.source, t.data_bytes, profile)
    by_class = dict.fromkeys(CLASSES, 0)
    accesses = 0
    time_ns = Fraction(0)
    for cls, imm, elements, n in t.groups:
        by_class[cls.label] += n
        accesses += n * cls.accesses * (elements or 1)
        time_ns += n * profile.cost(cls, imm, elements)
    instructions = sum(by_class.values())
    return Priced(instructions, by_class, instructions, accesses, time_ns)


def time_us_text(time_ns: Fraction) -> str:
    """The paper's print format: ns/1000 as a double, two decimals."""
    return us_text(time_ns.numerator, time_ns.denominator)


def us_text(numerator: int, denominator: int) -> str:
    """:func:`time_us_text` of numerator/denominator ns. (Integer true division rounds correctly,
    as float() of the quotient does, without building a Fraction: studies print tens of
    thousands of these.)"""
    return f"{numerator / (denominator * 1000):.2f}"
