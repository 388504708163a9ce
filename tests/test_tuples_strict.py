"""The tuple loader accepts exactly the programs the assembler can produce: hand-edited JSON that
the assembler would refuse is a diagnostic (exit 1), never a different program or a traceback."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inca.compiler.assembler import assemble_text
from inca.compiler.driver import main
from inca.compiler.printer import print_program
from inca.lang.diagnostics import DiagnosticError
from inca.lang.tuples import encode, from_json, to_json
from tuples_v1 import to_json_v1

SOURCE = """\
.input A f64[4]
.output B f64[4]
.output c f64
.var n i64 = 2
.var w f64 = 1.5
    PUTL c, A[n+1]
    PUTL B[0:4], A[0:4]
loop:
    BLEZ n, done
    MUL B[0:4], 2.0
    SUB n, 1
    ADD k, 3
    JMP loop
done:
    END
"""
TP = encode(assemble_text(SOURCE, "s.incaa"))
V2 = json.loads(to_json(TP))
V1 = json.loads(to_json_v1(TP))


def _refused(doc, fragment: str) -> None:
    with pytest.raises(DiagnosticError) as e:
        from_json(json.dumps(doc), "t.json")
    assert len(e.value.diagnostics) == 1 and fragment in e.value.diagnostics[0].message


def _edit(doc, path, value):
    doc = json.loads(json.dumps(doc))
    node = doc
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return doc


@pytest.mark.parametrize("doc,path,value,fragment", [
    (V2, ["buffers", 1, "init"], 3.0, "only a var takes an initial value"),
    (V1, ["buffers", 1, "init"], 3.0, "only a var takes an initial value"),
    (V2, ["buffers", 0, "shape"], [True], "positive dimensions"),
    (V1, ["buffers", 0, "shape"], [True], "positive dimensions"),
    (V1, ["tuples", 0, "trigger", "payload"], {"imm": 1, "dtype": "i64", "ref": "A", "index": []},
     "unknown keys"),
    (V1, ["tuples", 0, "op"], ["PUTL"], "unknown op"),
    (V2, ["tuples", 0, 0], ["PUTL"], "unknown op"),
    (V1, ["tuples", 1, "trigger", "payload", "index", 0], {"lo": {"const": 0, "terms": []}}, "needs 'hi'"),
    (V2, ["tuples", 0, 2], "A[n + 1]", "not an operand in INCA-A syntax"),
    (V2, ["tuples", 0, 2], "A[1+n]", "not an operand in INCA-A syntax"),
    (V2, ["tuples", 0, 2], "A[03]", "not an operand in INCA-A syntax"),
    (V2, ["tuples", 1, 2], "A[0:4:1]", "not an operand in INCA-A syntax"),
    (V2, ["tuples", 1, 1], "B[0:4][]", "not an operand in INCA-A syntax"),
    (V2, ["tuples", 3, 2], "2.00", "not an operand in INCA-A syntax"),
    (V2, ["tuples", 4, 2], "0x1", "not an operand in INCA-A syntax"),
    (V2, ["tuples", 4, 1], "7", "the destination must be a location"),
    (V2, ["buffers", 0, "name"], "a b", "not a name INCA-A can write"),
    (V2, ["buffers", 5, "dtype"], "f64", "implicit buffers must be the undeclared scalars"),
    (V2, ["buffers", 3, "implicit"], True, "only a scalar var of initial value 0 can be implicit"),
    (V2, ["tuples"], [], "it has no tuples"),
    (V2, ["tuples", 0, 3], "0:1", "malformed loc"),
    # regressions: numbers in an index beyond int()'s 4,300 digits were a ValueError (exit 70)
    (V2, ["tuples", 0, 2], "A[" + "9" * 5000 + "]", "not an operand in INCA-A syntax"),
    (V2, ["tuples", 0, 2], "A[" + "9" * 5000 + "*n]", "not an operand in INCA-A syntax"),
    (V2, ["tuples", 1, 2], "A[0:4:" + "9" * 5000 + "]", "not an operand in INCA-A syntax"),
    (V2, ["tuples", 0, 3], "5:1:1", "malformed loc"),
])
def test_hand_edits_the_assembler_would_refuse(doc, path, value, fragment):
    _refused(_edit(doc, path, value), fragment)


@pytest.mark.parametrize("text,fragment", [
    ("{\n", "not valid JSON"),
    ("[" * 100_000, "nested more than 64 levels"),
    (to_json(TP).replace('"init": 2,', '"init": ' + "9" * 5000 + ","), "more than 64 digits"),
    (to_json(TP).replace('"init": 1.5,', '"init": 1e400,'), "too large for f64"),
])
def test_malformed_files_exit_1_without_a_traceback(tmp_path, capsys, text, fragment):
    path = tmp_path / "t.json"
    path.write_text(text)
    assert main([str(path), "-S", "-o", "-"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("error:") == 1 and fragment in err


def test_v1_and_v2_load_to_the_same_program():
    assert from_json(json.dumps(V1)) == from_json(json.dumps(V2)) == TP
    assert to_json(from_json(to_json(TP))) == to_json(TP)


def _mutations(doc):
    """Paths to every value in a JSON document."""
    out = []
    todo = [((), doc)]
    while todo:
        path, node = todo.pop()
        out.append(path)
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        todo.extend((path + (k,), v) for k, v in items)
    return sorted(out, key=repr)


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 70), st.floats(allow_nan=False),
                   st.sampled_from(["", "A", "B[0]", "A[n+1]", "n", "k", "7", "2.0", "inf", "PUTL",
                                    "var", "output", "f64", "i64", "0:1:1-2", "pc", "a b"]),
                   # a fresh dict each draw: one shared dict inserted twice could contain itself
                   st.lists(st.integers(-1, 5), max_size=3), st.builds(dict))


@pytest.mark.parametrize("base", [V2, V1], ids=["v2", "v1"])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_json_is_refused_or_prints_and_reassembles_to_the_same_tuples(base, data):
    paths = [p for p in _mutations(base) if p]
    doc = json.loads(json.dumps(base))
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(paths))
        node = doc
        try:
            for key in path[:-1]:
                node = node[key]
            if data.draw(st.booleans()) and isinstance(node, dict):
                node.pop(path[-1], None)
            else:
                node[path[-1]] = data.draw(VALUES)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation removed this path
    try:
        tp = from_json(json.dumps(doc), "m.json")
    except DiagnosticError as e:
        assert len(e.diagnostics) >= 1
        return
    again = encode(assemble_text(print_program(tp.program()), "again.incaa"))
    assert again.tuples == tp.tuples and again.buffers == tp.buffers
