"""The tuple loader checks each distinct instruction once (unrolled code repeats them): a repeat
of a well-formed tuple loads with its own number and location, and a tampered repeat is refused
with the diagnostic, the tuple number and the location it had when every tuple was checked."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inca.compiler.assembler import assemble_text
from inca.lang import check
from inca.lang.diagnostics import DiagnosticError
from inca.lang.tuples import encode, from_json, to_json

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

from bench_scale import incaa  # noqa: E402

# Ten tuples, five distinct instructions; JMP's target (10) is beyond the number of distinct ones.
SOURCE = """\
.input A f64[4]
.output B f64[4]
.var i i64
top:
    PUTL B[0], A[1]
    ADD i, 1
    PUTL B[0], A[1]
    ADD i, 1
    BLEZ i, top
    BLEZ i, top
    JMP last
    JMP last
    PUTL B[0], A[1]
last:
    END
"""
TP = encode(assemble_text(SOURCE, "r.incaa"))
DOC = json.loads(to_json(TP))


def _load(doc):
    return from_json(json.dumps(doc), "r.json")


def _refused(doc):
    with pytest.raises(DiagnosticError) as e:
        _load(doc)
    (d,) = e.value.diagnostics
    return d


def _edited(k: int, field: int, value):
    """DOC with field ``field`` of tuple ``k`` (1-based) set to ``value``."""
    doc = json.loads(json.dumps(DOC))
    doc["tuples"][k - 1][field] = value
    return doc


def test_repeats_load_each_with_its_own_number_and_location():
    tp = _load(DOC)
    assert tp == TP and [t.k for t in tp.tuples] == list(range(1, 11))
    assert [t.loc for t in tp.tuples] == [t.loc for t in TP.tuples]
    assert len({t.loc.line for t in tp.tuples}) == 10


@pytest.mark.parametrize("k", [3, 9])  # later uses of tuple 1's instruction
def test_a_tampered_repeat_is_refused_at_its_own_tuple(k):
    d = _refused(_edited(k, 2, "A[4]"))
    assert "index 4 is out of bounds for 'A'" in d.message
    assert d.loc == TP.tuples[k - 1].loc


def test_of_two_equal_bad_tuples_the_first_is_reported():
    doc = _edited(9, 2, "A[7]")
    doc["tuples"][2][2] = "A[7]"
    assert _refused(doc).loc == TP.tuples[2].loc


@pytest.mark.parametrize("k,value", [(6, True), (6, 1.0), (8, 10.0)])
def test_a_repeat_whose_target_is_an_equal_value_of_another_type_is_refused(k, value):
    # True == 1.0 == 1 as dict keys: the repeat must not pass for the well-formed tuple before it
    assert f"tuple {k} ({DOC['tuples'][k - 1][0]}) payload must be a target" in _refused(
        _edited(k, 2, value)).message


def test_a_repeat_with_a_malformed_loc_is_refused():
    assert _refused(_edited(3, 3, "9:1:1")).message.endswith("tuple 3 has a malformed loc")


def test_a_target_beyond_the_program_is_refused_in_a_repeat():
    d = _refused(_edited(8, 2, 11))
    assert "JMP target 11 is not an instruction of this program" in d.message
    assert d.hint == "targets run from 1 to 10" and d.loc == TP.tuples[7].loc


def test_each_distinct_instruction_is_checked_once(monkeypatch):
    text = to_json(encode(assemble_text(incaa(8000), "s.incaa")))
    checked = []
    original = check._check_instr
    monkeypatch.setattr(check, "_check_instr", lambda ins, *rest: checked.append(ins) or original(ins, *rest))
    from_json(text, "s.json")
    doc = json.loads(text)
    distinct = {tuple(row[:3]) for row in doc["tuples"]}
    assert len(checked) == len(distinct) < len(doc["tuples"]) // 10


FIELDS = st.one_of(st.none(), st.booleans(), st.integers(-1, 11), st.floats(-1, 11),
                   st.sampled_from(["PUTL", "ADD", "BLEZ", "JMP", "END", "A[1]", "A[4]", "B[0]", "i",
                                    "1", "1.0", "top"]),
                   st.lists(st.integers(0, 2), max_size=2), st.builds(dict))


@settings(max_examples=200, deadline=None)
@given(data=st.data())
def test_copied_and_edited_rows_are_refused_or_load_as_written(data):
    """Rows copied over or between others (repeats of instructions, some out of place) and fields
    set to values equal to well-formed ones but of another type: a file that loads must write back
    exactly as it reads (true is not 1, 1.0 is not 1)."""
    rows = json.loads(json.dumps(DOC["tuples"]))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(rows) - 1))
        j = data.draw(st.integers(0, len(rows) - 1))
        how = data.draw(st.sampled_from(["copy", "insert", "field"]))
        if how == "copy":
            rows[i] = list(rows[j])
        elif how == "insert":
            rows.insert(i, list(rows[j]))
        else:
            rows[i][data.draw(st.integers(0, 2))] = data.draw(FIELDS)
    doc = dict(DOC, tuples=rows)
    try:
        tp = _load(doc)
    except DiagnosticError as e:
        assert len(e.diagnostics) == 1
        return
    assert json.dumps(json.loads(to_json(tp))["tuples"]) == json.dumps(rows)
