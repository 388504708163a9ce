"""Reshaped views: any declaration may be ``@ X``, a view of an earlier buffer X's storage with a
shape of its own and the same element type and count (``.var M f64[4][4] @ P`` over
``P f64[16]``): one storage, two names, each bounds-checked in its own shape."""
from __future__ import annotations

import pytest

from inca.compiler.assembler import assemble_text
from inca.compiler.printer import print_program
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.interpreter.engine import RuntimeFault
from inca.lang.diagnostics import DiagnosticError
from inca.lang.tuples import encode, from_json, to_json

# A transpose of a flat 16-element input seen as a 4 x 4 matrix, into an output read back both as
# a matrix and, through a view, flat.
TRANSPOSE = """\
.input  P f64[16]
.var    M f64[4][4] @ P
.output T f64[4][4]
.output F f64[16] @ T
.var    i i64
.var    j i64
loop:
PUTL T[0:4][i], M[i][0:4]
ADD i, i, 1
PUTL j, i
SUB j, j, 3
BLEZ j, loop
END
"""
P = [float(v * v - 3) for v in range(16)]


def test_a_flat_buffer_seen_as_a_matrix():
    tp = encode(assemble_text(TRANSPOSE))
    r = execute(tp, load_profile("scratchpad"), {"P": P})
    want = [P[j * 4 + i] for i in range(4) for j in range(4)]
    assert r.outputs["T"] == want and r.outputs["F"] == want
    assert r.shapes["T"] == (4, 4) and r.shapes["F"] == (16,)


def test_round_trips_and_views_take_no_memory():
    prog = assemble_text(TRANSPOSE)
    assert assemble_text(print_program(prog)) == prog
    tp = encode(prog)
    assert from_json(to_json(tp)) == tp
    small = load_profile("scratchpad", {"scratchpad_bytes": str(16 * 8 * 2 + 16)})
    assert execute(tp, small, {"P": P}).outputs["F"][1] == P[4]  # P, T, i, j: views add nothing


def test_a_fault_names_the_view_and_its_own_shape():
    text = ".input P f64[16]\n.var M f64[2][8] @ P\n.var x f64\n.var i i64 = 2\nPUTL x, M[i][0]\nEND\n"
    with pytest.raises(RuntimeFault) as e:
        execute(encode(assemble_text(text)), load_profile("scratchpad"), {"P": P})
    assert "index 2 is out of bounds for 'M' (dimension 0 has size 2)" in e.value.message


@pytest.mark.parametrize("decl, message", [
    (".var M f64[4][5] @ P", "element count: 'P' (f64[16]) has 16 elements but this location has 20"),
    (".var Q i64[16] @ P", "'P' is f64[16], so it cannot hold this i64 location"),
    (".var R f64[16] @ P = 1.0", "a view takes no value of its own"),
    (".var S f64[16] @ Z", "'Z' is not declared before this line"),
])
def test_misuse_is_a_diagnostic_with_a_caret(decl, message):
    with pytest.raises(DiagnosticError) as e:
        assemble_text(f".input P f64[16]\n{decl}\nEND\n")
    d = e.value.diagnostics[0]
    assert message in d.message and d.loc.line == 2 and "^" in d.render()


def test_the_loader_applies_the_same_rules():
    doc = to_json(encode(assemble_text(TRANSPOSE)))
    for bad in ('"shape": [4, 5], "init": 0.0, "implicit": false, "alias": "P"',
                '"shape": [4, 4], "init": 1.0, "implicit": false, "alias": "P"'):
        text = doc.replace('"shape": [4, 4], "init": 0.0, "implicit": false, "alias": "P"', bad)
        assert text != doc
        with pytest.raises(DiagnosticError):
            from_json(text)


def test_an_input_given_through_one_name_is_not_overwritten_through_its_view():
    from inca.interpreter.inputs import gather_inputs
    tp = encode(assemble_text(".input P f64[16]\n.input M f64[4][4] @ P\n.output s f64\n"
                              "ADD s, s, M[1][0]\nEND\n"))
    decls = {b.name: b for b in tp.buffers}
    inputs = gather_inputs(decls, ["P=" + ",".join(map(str, P))], seed=1)
    assert set(inputs) == {"P"}  # the seed makes nothing for the view of a given storage
    assert execute(tp, load_profile("scratchpad"), inputs).outputs == {"s": P[4]}
    seeded = gather_inputs(decls, [], seed=1)
    assert set(seeded) == {"P"}  # one storage, seeded once
