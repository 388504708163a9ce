"""The bounded JSON reader (lang/userfiles.py): its nesting bound, now checked in bulk, refuses
exactly the texts the one-bracket-at-a-time scan refused, at the same line."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inca.lang.diagnostics import DiagnosticError
from inca.lang.userfiles import MAX_JSON_DEPTH, parse_json

# The definition: brackets outside JSON strings (a string runs from a quote to the next unescaped
# quote; an unterminated one is no string), counted one at a time.
TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)


def too_deep_line(text: str) -> int | None:
    depth = 0
    for m in TOKENS.finditer(text):
        c = m.group()
        if c in ("[", "{"):
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return text.count("\n", 0, m.start()) + 1
        elif c in ("]", "}"):
            depth -= 1
    return None


def depth_error(text: str) -> str | None:
    try:
        parse_json(text, "t.json")
    except DiagnosticError as e:
        (d,) = e.diagnostics
        return d.message if "nested" in d.message else None
    return None


PIECES = st.sampled_from(["[", "]", "{", "}", '"', '""', "\\", '\\"', "a", "\n", " ", ",", "1", '"["',
                          "\u00e9"])


@settings(max_examples=300, deadline=None)
@given(quote=st.booleans(), head=st.integers(0, MAX_JSON_DEPTH + 3), body=st.lists(PIECES, max_size=40))
def test_the_nesting_bound_is_the_bracket_by_bracket_one(quote, head, body):
    text = '"' * quote + "[" * head + "".join(body)
    line = too_deep_line(text)
    want = None if line is None else (f"not valid JSON data: nested more than {MAX_JSON_DEPTH} "
                                      f"levels deep (line {line})")
    assert depth_error(text) == want


@pytest.mark.parametrize("text,line", [
    ("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH, None),
    ("[" * (MAX_JSON_DEPTH + 1), 1),
    ('["' + "[" * 100 + '"]', None),  # brackets inside a string do not nest
    ('["\\"' + "[" * 100 + '"]', None),  # nor after an escaped quote
    ('"\n' + "[" * 100, 2),  # an unterminated string is no string
    ("{\n" * 70, MAX_JSON_DEPTH + 1),
    # an odd number of quotes: the last one opens no string, and a seam between two strings
    # before it must not be taken for an empty string
    ('"{""' + "[" * 70, 1),
    ('"' + "[" * 70 + '""', None),
    ('"' + "[" * 70 + '""' + "[" * 70 + '"', None),
    ('"\u00e9"' + "[" * 65, 1),
])
def test_nesting_examples(text, line):
    assert too_deep_line(text) == line
    assert (depth_error(text) is None) == (line is None)
    if line is not None:
        assert depth_error(text).endswith(f"(line {line})")
