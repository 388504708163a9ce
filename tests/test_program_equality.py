"""Equality and hashing of the instruction-level IR with NaN values, on every Python version.

Python 3.13 made dataclass equality compare fields one by one, where NaN != NaN; before, field
tuples were compared and identical NaN objects passed. Imm and Decl compare on a NaN-safe key.
Also a slice's length, computed without making the difference of its bounds.
"""
from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from inca.lang.program import Affine, Decl, Imm, Slice


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


_AFFINES = st.builds(Affine, st.integers(-10**20, 10**20),
                     st.lists(st.tuples(st.sampled_from("ijk"), st.integers(-9, 9).filter(bool)),
                              max_size=3, unique_by=lambda t: t[0]).map(tuple))


@given(_AFFINES, _AFFINES, st.integers(1, 7))
def test_a_slice_s_length_is_what_the_difference_of_its_bounds_gives(lo, hi, step):
    # length took (hi - lo).const by making the difference (under a profiler 40% of translating
    # matrix multiplication at -O2 and 1 MiB for the llvm engine); it now subtracts the constants
    assert Slice(lo, hi, step).length == max(0, -(-(hi - lo).const // step))


@given(st.sampled_from(["A", "x", "r1_f64"]),
       st.lists(st.one_of(_AFFINES, st.builds(Slice, _AFFINES, _AFFINES, st.integers(1, 3))),
                max_size=2))
def test_an_operand_s_text_is_its_parts_in_incaa(name, index):
    # str(Ref) and str(Affine) have fast paths for a scalar, one index, a constant and a name
    # (writing the tuple JSON of a large kernel formats every operand); the text is what it was
    # without them
    from inca.lang.program import Ref

    assert str(Ref(name, tuple(index))) == name + "".join(f"[{i}]" for i in index)
    for a in index:
        if isinstance(a, Affine) and not a.terms:
            assert str(a) == str(a.const)
    assert (str(Affine(0)), str(Affine(-3)), str(Affine(-3, (("i", 2), ("j", -1))))) == (
        "0", "-3", "2*i-j-3")
    assert [str(Affine(c, (("i", k),))) for c, k in ((0, 1), (0, -1), (1, 1), (0, 2))] == [
        "i", "-i", "i+1", "2*i"]
    assert str(Ref("A", (Affine(0, (("i", 1),)), Slice(Affine(0), Affine(4), 2)))) == "A[i][0:4:2]"
