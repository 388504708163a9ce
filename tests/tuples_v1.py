"""The ``inca-tuples/1`` writer as it was before ``inca-tuples/2``: the tests make v1 files with it
to show that they still load, and that tampering with one is still refused."""
from __future__ import annotations

import json

from inca.lang.isa import OPCODES
from inca.lang.program import Affine, Imm, Operand, Ref, Slice
from inca.lang.tuples import TupleProgram, json_value


def _affine_json(a: Affine) -> dict:
    return {"const": a.const, "terms": [[n, c] for n, c in a.terms]}


def _operand_json(op: Operand) -> dict:
    if isinstance(op, Imm):
        return {"imm": json_value(op.value), "dtype": op.dtype}
    index = []
    for i in op.index:
        if isinstance(i, Slice):
            index.append({"lo": _affine_json(i.lo), "hi": _affine_json(i.hi), "step": i.step})
        else:
            index.append(_affine_json(i))
    return {"ref": op.name, "index": index}


def to_json_v1(tp: TupleProgram) -> str:
    """An ``inca-tuples/1`` document, byte for byte as the v1 writer made it."""
    buffers = [{"name": b.name, "role": b.role, "dtype": b.dtype, "shape": list(b.shape),
                "init": json_value(b.init), "implicit": b.implicit, "alias": b.alias}
               for b in tp.buffers]
    tuples = []
    for t in tp.tuples:
        trig, e = t.trigger, t.entry
        payload = trig.payload
        loc = None if t.loc is None else {"file": t.loc.file, "line": t.loc.line, "col": t.loc.col,
                                          "end_col": t.loc.end_col}
        tuples.append({
            "k": t.k, "op": t.op, "class": OPCODES[t.op].opclass.label,
            "trigger": {"counter": trig.counter, "threshold": trig.threshold,
                        "match_bits": trig.match_bits,
                        "payload": _operand_json(payload) if isinstance(payload, (Imm, Ref))
                        else payload},
            "entry": None if e is None else {
                "match_bits": e.match_bits,
                "dest": _operand_json(e.dest) if e.dest is not None else None,
                "dtype": e.dtype, "atomic": e.atomic, "update": e.update.value, "target": e.target},
            "loc": loc})
    doc = {"format": "inca-tuples/1", "source": tp.source, "buffers": buffers, "tuples": tuples}
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"
