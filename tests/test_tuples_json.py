"""Tuple encoding (MODEL.md 1) and the JSON forms ``inca-tuples/2`` (written) and ``/1`` (still
loaded): round trips, and one clear diagnostic (never a traceback) for every kind of malformed or
tampered file."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from inca.compiler.assembler import assemble_text
from inca.compiler.printer import print_program
from inca.interpreter import cli
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import DiagnosticError
from inca.lang.isa import Update
from inca.lang.program import Imm, Ref
from inca.lang.tuples import FORMAT, encode, from_json, listing, to_json
from tuples_v1 import to_json_v1

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples" / "asm").glob("*.incaa"))
SLIDE23 = ROOT / "examples" / "asm" / "dot-product-slide23.incaa"

MIXED = """\
.input M f64[4][8]
.inout V i64[16]
.var w f64 = nan
.var z f64 = -inf
.output r f64
start:  PUTL V[0:16:2], 3
        ADD V[2*k+1], V[2*k+1], -0x10
        PUTL r, M[3-k][0]
        MUL r, r, inf
        MIN r, r, w
        SUB V[k:k+4], V[k:k+4], V[0:1]
        ADD k, k, 1
        PUTL t, k
        SUB t, t, 3
        BLEZ t, start
        END
"""


def slide23():
    return encode(assemble_text(SLIDE23.read_text(encoding="utf-8"), "dot.incaa"))


def test_encoding_follows_model_section_1():
    tp = slide23()
    assert len(tp.tuples) == 10
    for k, t in enumerate(tp.tuples, 1):
        assert t.k == k and t.trigger.counter == "pc" and t.trigger.threshold == k
    t1, t3, t4, t6, t9, t10 = (tp.tuples[i - 1] for i in (1, 3, 4, 6, 9, 10))
    assert t1.trigger.payload == Imm(0, "i64") and t1.entry.atomic == "SWAP" and t1.entry.dest == Ref("i")
    assert t3.entry.atomic == "LT" and t3.entry.dtype == "i64" and t3.entry.update is Update.INC
    assert t4.trigger.payload == 10 and t4.entry.update is Update.BLEZ and t4.entry.target == 10
    assert t6.trigger.payload == Ref("B", t6.trigger.payload.index) and t6.entry.dtype == "f64"
    assert t6.entry.atomic == "PROD" and t6.entry.match_bits == 6 == t6.trigger.match_bits
    assert t9.entry.dest is None and t9.entry.update is Update.SET and t9.trigger.payload == 2
    assert t10.entry is None and t10.trigger.match_bits is None


def test_listing():
    text = listing(slide23())
    lines = text.splitlines()
    assert lines[0] == "; tuple program dot.incaa (10 tuples, format inca-tuples/2)"
    assert "; buffer r1: var f64" in lines
    t4 = next(line for line in lines if line.startswith("T4 "))
    assert "TO[pc == 4] put(bits=4, payload=10)" in t4 and "CT_BLEZ(r0:i64)" in t4
    assert "pc <- (r0 <= 0 ? 10 : pc + 1)" in t4 and t4.endswith("; dot.incaa:10")
    assert lines[-1].startswith("T10 END") and "ct_inc(done)" in lines[-1]


def test_json_layout_is_stable():
    text = to_json(slide23())
    doc = json.loads(text)
    assert list(doc) == ["format", "source", "files", "buffers", "tuples"]
    assert doc["format"] == FORMAT == "inca-tuples/2" and doc["source"] == "dot.incaa"
    assert doc["files"] == ["dot.incaa"]
    assert list(doc["buffers"][0]) == ["name", "role", "dtype", "shape", "init", "implicit", "alias",
                                        "default"]
    assert doc["tuples"][4] == ["PUTL", "r1", "A[i]", "0:11:3-7"]
    assert doc["tuples"][3][:3] == ["BLEZ", "r0", 10] and doc["tuples"][9][:3] == ["END", None, None]
    assert '\n  ["PUTL", "r1", "A[i]", "0:11:3-7"],\n' in text  # one tuple a line
    assert to_json(slide23()) == text  # deterministic


def test_each_immediate_and_location_is_written_as_itself():
    # to_json keeps an immediate's text by its value and looks small numbers up: 0.0 and -0.0,
    # 1 and 1.0, and each NaN are still written each as itself, and a column past the table too
    pad = " " * 300
    text = (".var x f64\n.var n i64\nPUTL x, 0.0\nPUTL x, -0.0\nPUTL x, 0.0\nPUTL n, 1\n"
            f"PUTL x, 1.0\nPUTL x, nan\nPUTL x, nan\n{pad}PUTL n, 1\nPUTL x, -0.0\nEND\n")
    tp = encode(assemble_text(text, "imm.incaa"))
    rows = json.loads(to_json(tp))["tuples"]
    assert [r[2] for r in rows[:-1]] == ["0.0", "-0.0", "0.0", "1", "1.0", "nan", "nan", "1", "-0.0"]
    assert rows[7][3] == "0:10:301-305" and rows[0][3] == "0:3:1-5"
    again = from_json(to_json(tp))
    assert math.copysign(1, again.tuples[1].instr().src.value) == -1


def test_non_finite_values_are_strict_json():
    text = to_json(encode(assemble_text(MIXED)))

    def refuse(name):
        raise AssertionError(f"non-standard JSON constant {name}")
    doc = json.loads(text, parse_constant=refuse)
    w = {"name": "w", "role": "var", "dtype": "f64", "shape": [], "init": "nan", "implicit": False,
         "alias": None, "default": None}
    assert w in doc["buffers"]
    assert doc["tuples"][3][2] == "inf"


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_round_trip_examples(path):
    tp = encode(assemble_text(path.read_text(encoding="utf-8"), str(path)))
    for write in (to_json, to_json_v1):
        text = write(tp)
        back = from_json(text, "x.json")
        assert back == tp
        assert write(back) == text
        assert [t.loc for t in back.tuples] == [t.loc for t in tp.tuples]  # locations ride along


def test_round_trip_vectors_labels_and_non_finite():
    prog = assemble_text(MIXED, "mixed.incaa")
    tp = encode(prog)
    back = from_json(to_json(tp))
    assert back == tp
    # the JSON carries no labels: the program comes back numbered, with equal instructions
    again = assemble_text(print_program(back.program()))
    assert again.instrs == prog.instrs and again.decls == prog.decls


def test_loaded_json_runs_like_the_source():
    prof = load_profile("scratchpad")
    inputs = {"A": [float(i) for i in range(50)], "B": [0.5] * 50}
    tp = slide23()
    a = execute(tp, prof, inputs)
    b = execute(from_json(to_json(tp)), prof, inputs)
    assert a.outputs == b.outputs == {"c": 0.5 * sum(range(50))}
    assert (a.instructions, a.time_ns) == (b.instructions, b.time_ns) == (404, 91 * 50 + 45)


# ---- malformed and tampered files -------------------------------------------------------------

def _doc():
    return json.loads(to_json_v1(slide23()))


def _set(path, value):
    def f(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return f


def _del(path):
    def f(doc):
        node = doc
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return f


ENC = "tuples do not follow the encoding of MODEL.md"
TAMPERED = [
    ("threshold-disagrees-with-k", _set(["tuples", 2, "trigger", "threshold"], 5), ENC),
    ("match-bits-disagree", _set(["tuples", 2, "entry", "match_bits"], 4), ENC),
    ("wrong-atomic", _set(["tuples", 6, "entry", "atomic"], "PROD"), ENC),
    ("wrong-update", _set(["tuples", 6, "entry", "update"], "set"), ENC),
    ("wrong-entry-dtype", _set(["tuples", 6, "entry", "dtype"], "i64"), ENC),
    ("jmp-entry-target", _set(["tuples", 8, "entry", "target"], 3), ENC),
    ("end-with-entry", lambda d: d["tuples"][9].__setitem__("entry", d["tuples"][8]["entry"]), ENC),
    ("unknown-op", _set(["tuples", 2, "op"], "FOO"), "tuple 3 has an unknown op 'FOO'"),
    ("unknown-update", _set(["tuples", 2, "entry", "update"], "jump"), "tuple 3 has an unknown update"),
    ("missing-buffer", lambda d: d["buffers"].pop(0), "'A' is not declared"),
    ("duplicate-buffer", lambda d: d["buffers"].append(d["buffers"][0]), "buffer 'A' is declared twice"),
    ("bad-role", _set(["buffers", 0, "role"], "scratch"), "buffer 'A' has an unknown role"),
    ("bad-dtype", _set(["buffers", 0, "dtype"], "f32"), "buffer 'A' has an unknown dtype"),
    ("bad-shape", _set(["buffers", 0, "shape"], [0]), "buffer 'A' needs a list of positive dimensions"),
    ("tuples-out-of-order", lambda d: d["tuples"].reverse(), "tuple 1 is missing or out of order"),
    ("no-trigger", _del(["tuples", 0, "trigger"]), "tuple 1 needs 'trigger'"),
    ("payload-not-object", _set(["tuples", 0, "trigger", "payload"], 3), "tuple 1 payload must be an object"),
    ("imm-wrong-type", _set(["tuples", 0, "trigger", "payload", "imm"], 0.5), "tuple 1 payload must be an integer"),
    ("target-not-int", _set(["tuples", 8, "trigger", "payload"], "2"), "tuple 9 payload must be a target"),
    ("target-missing-instruction", _set(["tuples", 8, "trigger", "payload"], 11),
     "JMP target 11 is not an instruction of this program"),
    ("undeclared-index-name", _set(["tuples", 4, "trigger", "payload", "index", 0, "terms", 0], ["zz", 1]),
     "index name 'zz' is not a known scalar"),
    ("dest-is-immediate", _set(["tuples", 0, "entry", "dest"], {"imm": 1, "dtype": "i64"}),
     "tuple 1 dest must be a location"),
    ("bitwise-on-f64", _set(["tuples", 6, "op"], "AND"), "AND is defined on i64 only"),
    ("no-lists", _set(["tuples"], {}), "'tuples' must be a list"),
    # regressions: each of these used to end in an internal error (a traceback, exit 70)
    ("threshold-float", _set(["tuples", 0, "trigger", "threshold"], 1.0),
     "tuple 1 trigger needs a counter name and integer threshold and match bits"),
    ("match-bits-float", _set(["tuples", 0, "trigger", "match_bits"], 1.0),
     "tuple 1 trigger needs a counter name and integer threshold and match bits"),
    ("missing-entry", _set(["tuples", 0, "entry"], None), "tuple 1 (PUTL) needs a matching entry"),
    ("entry-target-float", _set(["tuples", 8, "entry", "target"], 2.0),
     "tuple 9 entry needs integer match bits and target"),
    ("imm-out-of-i64", _set(["tuples", 0, "trigger", "payload", "imm"], 2**63),
     "tuple 1 payload 9223372036854775808 does not fit in i64"),
    ("init-out-of-i64", _set(["buffers", 3, "init"], -(2**63) - 1),
     "buffer 'i' init -9223372036854775809 does not fit in i64"),
    ("loc-end-col-string", _set(["tuples", 0, "loc", "end_col"], "x"), "tuple 1 has a malformed loc"),
]


@pytest.mark.parametrize("name,mutate,message", TAMPERED, ids=[t[0] for t in TAMPERED])
def test_tampered_json_gives_one_diagnostic(name, mutate, message):
    doc = _doc()
    mutate(doc)
    with pytest.raises(DiagnosticError) as e:
        from_json(json.dumps(doc), "t.json")
    (d,) = e.value.diagnostics
    assert message in d.message
    rendered = d.render()
    assert rendered.count("error:") == 1
    if d.loc is None:
        assert rendered.startswith("t.json: error: ")


@pytest.mark.parametrize("name,mutate,message", TAMPERED, ids=[t[0] for t in TAMPERED])
def test_inca_run_on_tampered_json_exits_1(tmp_path, capsys, name, mutate, message):
    doc = _doc()
    mutate(doc)
    path = tmp_path / "t.json"
    path.write_text(json.dumps(doc, indent=1))
    assert cli.main(["run", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "Traceback" not in err and err.count("error:") == 1 and message in err


@pytest.mark.parametrize("text,message", [
    ("", "not valid JSON (Expecting value)"),
    ("{", "not valid JSON (Expecting property name enclosed in double quotes)"),
    ("{\n", "not valid JSON (Expecting property name enclosed in double quotes)"),
    ('{"format": "inca-tuples/1", "buffers": []', "not valid JSON"),
    ("[]", "not an inca-tuples/2 tuple program (format is None)"),
    ("null", "not an inca-tuples/2 tuple program (format is None)"),
    ('{"format": "inca-tuples/3", "buffers": [], "tuples": []}',
     "not an inca-tuples/2 tuple program (format is 'inca-tuples/3')"),
    ('{"format": 1}', "not an inca-tuples/2 tuple program (format is 1)"),
    # regression: this used to raise RecursionError
    ("[" * 100_000, "not valid JSON data: nested more than 64 levels deep"),
])
def test_malformed_json(tmp_path, capsys, text, message):
    with pytest.raises(DiagnosticError) as e:
        from_json(text, "bad.json")
    (d,) = e.value.diagnostics
    assert d.message.startswith(message)
    path = tmp_path / "bad.json"
    path.write_text(text)
    assert cli.main(["run", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("error:") == 1


def test_json_syntax_error_points_at_the_line():
    with pytest.raises(DiagnosticError) as e:
        from_json('{\n "format": "inca-tuples/1",\n "buffers": [,]\n}\n', "bad.json")
    d = e.value.diagnostics[0]
    assert (d.loc.file, d.loc.line, d.loc.col) == ("bad.json", 3, 14)
    assert d.render().splitlines()[1] == '     "buffers": [,]'


def test_empty_program_is_refused_as_the_assembler_refuses_it():
    doc = {"format": FORMAT, "source": "", "files": [], "buffers": [], "tuples": []}
    with pytest.raises(DiagnosticError, match="it has no tuples"):
        from_json(json.dumps(doc))


def test_nan_round_trips_through_json():
    tp = encode(assemble_text(".output x f64\n.var y f64 = nan\nPUTL x, nan\nADD x, x, y\nEND\n"))
    back = from_json(to_json(tp))
    assert back == tp and from_json(to_json_v1(tp)) == tp
    assert math.isnan(back.tuples[0].trigger.payload.value)

