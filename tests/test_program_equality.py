"""Equality and hashing of the instruction-level IR with NaN values, on every Python version.

Python 3.13 made dataclass equality compare fields one by one, where NaN != NaN; before, field
tuples were compared and identical NaN objects passed. Imm and Decl compare on a NaN-safe key.
"""
from __future__ import annotations

import math

from inca.lang.program import Decl, Imm


def test_nan_immediates_equal_and_hash_alike_whatever_the_object():
    a, b = Imm(float("nan"), "f64"), Imm(-math.nan, "f64")
    assert a.value is not b.value
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert Imm(math.nan, "f64") != Imm(math.inf, "f64") and Imm(math.nan, "f64") != Imm(0.0, "f64")


def test_nan_initial_values_equal_and_hash_alike():
    a = Decl("y", "var", "f64", (), float("nan"))
    b = Decl("y", "var", "f64", (), float("nan"))
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    assert a != Decl("z", "var", "f64", (), float("nan"))  # the other fields still count


def test_equality_ignores_locations_and_other_types():
    from inca.lang.diagnostics import Loc

    assert Imm(1.5, "f64", Loc("a", 1, 1)) == Imm(1.5, "f64", Loc("b", 2, 2))
    assert Imm(1, "i64") != Imm(1, "f64")
    assert Imm(1.5, "f64") != 1.5 and Imm(1.5, "f64").__eq__(1.5) is NotImplemented
