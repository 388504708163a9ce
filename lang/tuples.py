"""Tuple programs: instruction k as the triple (TO_k, ME_k, AOP_k) of MODEL.md section 1.

:func:`encode` turns a :class:`Program` into a :class:`TupleProgram`; :func:`listing` prints it
for people; :func:`to_json` / :func:`from_json` are the canonical machine form ``inca-tuples/2``
(docs/tuples.md), which the interpreter loads without any source; ``inca-tuples/1`` files still
load. Loading accepts exactly the programs the assembler can produce: a file is decoded into a
:class:`Program`, checked by the assembler's own rules (:mod:`.check`) and encoded again.
"""
from __future__ import annotations

import math

from .isa import Update
from .program import Imm, Ref, format_value
from .tuple_model import DONE, FORMAT, PC, Entry, Trigger, Tuple, TupleProgram, encode, operands
from .tuples_load import load

__all__ = ["DONE", "FORMAT", "PC", "Entry", "Trigger", "Tuple", "TupleProgram", "encode", "listing",
           "to_json", "from_json", "json_value"]


# ---- text listing ---------------------------------------------------------------------------

def _update_text(e: Entry | None) -> str:
    if e is None:
        return f"{DONE} += 1"
    if e.update is Update.INC:
        return f"{PC} += 1"
    if e.update is Update.SET:
        return f"{PC} <- {e.target}"
    return f"{PC} <- ({e.dest} <= 0 ? {e.target} : {PC} + 1)"


def listing(tp: TupleProgram) -> str:
    """A readable listing: per tuple, the trigger, the matching entry and the counter update."""
    lines = [f"; tuple program {tp.source} ({len(tp.tuples)} tuples, format {FORMAT})"]
    for b in tp.buffers:
        dims = "".join(f"[{n}]" for n in b.shape)
        default = "" if b.default is None else f" = {format_value(b.default, b.dtype)} (default)"
        lines.append(f"; buffer {b.name}: {b.role} {b.dtype}{dims}{default}")
    w = len(str(len(tp.tuples)))
    for t in tp.tuples:
        trig, e = t.trigger, t.entry
        ins = t.instr().text()
        where = f"  ; {t.loc.file}:{t.loc.line}" if t.loc else ""
        if e is None:
            lines.append(f"T{t.k:<{w}} {ins:<28} TO[{trig.counter} == {trig.threshold}] "
                         f"-> ct_inc({DONE}){where}")
            continue
        dest = f"{e.dest}:{e.dtype}" if e.dest is not None else "-"
        lines.append(f"T{t.k:<{w}} {ins:<28} TO[{trig.counter} == {trig.threshold}] "
                     f"put(bits={trig.match_bits}, payload={trig.payload}) | "
                     f"ME[bits={e.match_bits}] {e.atomic}({dest}) | {_update_text(e)}{where}")
    return "\n".join(lines) + "\n"


# ---- JSON ---------------------------------------------------------------------------------

def json_value(v: int | float) -> int | float | str:
    """A value as JSON: numbers as numbers; non-finite floats as the strings inf, -inf, nan."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def to_json(tp: TupleProgram) -> str:
    """The canonical ``inca-tuples/2`` text: fixed key order, one buffer and one tuple a line.

    A tuple is ``[op, dest, payload, loc]``: its instruction, from which the trigger and the
    matching entry follow (MODEL.md 1); operands in INCA-A syntax; a location as the string
    ``"FILE:LINE:COL-END"`` (``-END`` absent when unknown), FILE an index into ``files``. Strings
    rather than lists of numbers keep a tuple on one short line and quick to load.
    """
    import json  # (here: a run that writes no JSON does not import it)

    files: dict[str, int] = {}
    # The text of each location, by its id: a statement's tuples share theirs (tp holds them
    # all, so no id is reused while this runs)
    wheres: dict[int, str] = {}
    # Numbers as text cost about 900 instructions each by str(): small ones (columns, file
    # indices) are looked up, and an immediate's text is kept by its value for each type (floats
    # that compare equal are the same number but for 0.0 and -0.0, and NaN equals nothing)
    small = [str(n) for n in range(256)]
    immediates: dict[str, dict] = {"i64": {}, "f64": {}}
    rows = []
    where_of, imm, ref = wheres.get, Imm, Ref
    for t in tp.tuples:
        d, src, target = operands(t)  # (t.instr()'s parts, without making the instruction)
        # str(operand), with a scalar's and an immediate's inline (most operands)
        if d is None:
            dest = "null"
        elif d.index:
            dest = f'"{d}"'
        else:
            dest = f'"{d.name}"'
        kind = type(src)
        if kind is ref:
            payload = f'"{src}"' if src.index else f'"{src.name}"'
        elif kind is imm:
            value, known = src.value, immediates[src.dtype]
            payload = known.get(value)
            if payload is None:
                payload = f'"{format_value(value, src.dtype)}"'
                if value == value and (value or src.dtype == "i64"):
                    known[value] = payload
        else:
            payload = "null" if target is None else str(target)
        loc = t.loc
        if loc is None:
            where = "null"
        else:
            where = where_of(id(loc))
            if where is None:
                index, col, end = files.setdefault(loc.file, len(files)), loc.col, loc.end_col
                index = small[index] if index < 256 else str(index)
                col = small[col] if 0 <= col < 256 else str(col)
                end = "" if end is None else "-" + (small[end] if 0 <= end < 256 else str(end))
                where = wheres[id(loc)] = f'"{index}:{loc.line}:{col}{end}"'
        rows.append(f'  ["{t.op}", {dest}, {payload}, {where}]')
    buffers = [json.dumps({"name": b.name, "role": b.role, "dtype": b.dtype, "shape": list(b.shape),
                           "init": ([json_value(v) for v in b.init] if isinstance(b.init, tuple)
                                    else json_value(b.init)),
                           "implicit": b.implicit, "alias": b.alias,
                           "default": None if b.default is None else json_value(b.default)},
                          allow_nan=False) for b in tp.buffers]
    return (f'{{\n "format": "{FORMAT}",\n "source": {json.dumps(tp.source)},\n'
            f' "files": {json.dumps(list(files))},\n'
            f' "buffers": [{_block(buffers)}],\n "tuples": [{_block(rows, "")}]\n}}\n')


def _block(items: list[str], indent: str = "  ") -> str:
    if not items:
        return ""
    return "\n" + ",\n".join([indent + i for i in items] if indent else items) + "\n "


def from_json(text: str, filename: str = "<json>") -> TupleProgram:
    """Load and check a JSON tuple program (``inca-tuples/2`` or ``/1``); every problem is one
    diagnostic naming the file, never an exception of Python's."""
    return load(text, filename)
