"""lang/patterns.py: a lazy pattern is compiled when first used, then is the compiled pattern's."""
from __future__ import annotations

import re

import pytest

from inca.lang.patterns import lazy


def test_a_lazy_pattern_compiles_on_first_use_and_matches_as_the_compiled_one(monkeypatch):
    compiled = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *a: compiled.append(a) or real(*a))
    p = lazy(r"([a-z]+)(\d*)", re.I)
    assert compiled == []
    assert p.fullmatch("Ab12").groups() == ("Ab", "12") and compiled == [(r"([a-z]+)(\d*)", re.I)]
    assert p.findall("x1 y2") == [("x", "1"), ("y", "2")] and len(compiled) == 1
    assert [m.group(1) for m in p.finditer("a b")] == ["a", "b"] and p.match("9") is None
    assert p.search("9z").group() == "z" and p.sub("-", "a1 b") == "- -" and p.split("1a2") == re.split(r"([a-z]+)(\d*)", "1a2", flags=re.I)
    assert "fullmatch" in vars(p)  # later calls go to the compiled pattern's methods directly


def test_what_a_pattern_does_not_have_is_an_attribute_error():
    with pytest.raises(AttributeError):
        lazy("a").nothing  # noqa: B018
