"""Tuple programs: instruction k as the triple (TO_k, ME_k, AOP_k) of MODEL.md section 1.

:func:`encode` turns a :class:`Program` into a :class:`TupleProgram`; :func:`listing` prints it
for people; :func:`to_json` / :func:`from_json` are the canonical machine form ``inca-tuples/1``,
which the interpreter loads without any source.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from .check import check_program
from .diagnostics import Diagnostic, DiagnosticError, Loc
from .isa import DTYPES, I64_MAX, I64_MIN, OPCODES, Form, Update
from .program import ROLES, Affine, Decl, Imm, Instr, Operand, Program, Ref, Slice

FORMAT = "inca-tuples/1"
PC = "pc"  # the counting event every tuple of a program shares
DONE = "done"  # the host's completion counter, incremented by END


@dataclass(frozen=True)
class Trigger:
    """TO_k: armed on ``counter == threshold``; sends ``payload`` with ``match_bits`` (None for END)."""

    counter: str
    threshold: int
    match_bits: int | None
    payload: Operand | int | None  # source operand, branch target, or nothing (END)


@dataclass(frozen=True)
class Entry:
    """ME_k: persistent, matches ``match_bits``; applies ``atomic`` to ``dest`` then moves the counter."""

    match_bits: int
    dest: Ref | None  # None for JMP, whose atomic only writes the counter
    dtype: str | None
    atomic: str
    update: Update
    target: int | None = None


@dataclass(frozen=True)
class Tuple:
    """One instruction as a tuple."""

    k: int
    op: str
    trigger: Trigger
    entry: Entry | None  # None for END, which only signals the host
    loc: Loc | None = field(default=None, compare=False)

    def instr(self) -> Instr:
        """The instruction this tuple encodes."""
        form = OPCODES[self.op].form
        e, p = self.entry, self.trigger.payload
        if form in (Form.MOVE, Form.BINARY):
            return Instr(self.op, dest=e.dest, src=p, loc=self.loc)
        if form is Form.BRANCH:
            return Instr(self.op, dest=e.dest, target=p, loc=self.loc)
        if form is Form.JUMP:
            return Instr(self.op, target=p, loc=self.loc)
        return Instr(self.op, loc=self.loc)


@dataclass(frozen=True)
class TupleProgram:
    """A loadable program: the buffers to allocate and one tuple per instruction."""

    buffers: tuple[Decl, ...]
    tuples: tuple[Tuple, ...]
    source: str = ""

    def program(self) -> Program:
        """The instruction-level program (for printing a loaded JSON program as INCA-A)."""
        return Program(self.buffers, tuple(t.instr() for t in self.tuples), (), self.source)


def encode(prog: Program) -> TupleProgram:
    """Encode each instruction k as tuple k (MODEL.md 1)."""
    decls = {d.name: d for d in prog.decls}
    out = []
    for k, ins in enumerate(prog.instrs, 1):
        spec = OPCODES[ins.op]
        if spec.form is Form.NONE:
            trig, entry = Trigger(PC, k, None, None), None
        else:
            payload = ins.src if spec.form in (Form.MOVE, Form.BINARY) else ins.target
            trig = Trigger(PC, k, k, payload)
            dtype = decls[ins.dest.name].dtype if ins.dest is not None else None
            target = ins.target if spec.form in (Form.BRANCH, Form.JUMP) else None
            entry = Entry(k, ins.dest, dtype, spec.atomic, spec.update, target)
        out.append(Tuple(k, ins.op, trig, entry, ins.loc))
    return TupleProgram(prog.decls, tuple(out), prog.name)


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
        lines.append(f"; buffer {b.name}: {b.role} {b.dtype}{dims}")
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


# ---- JSON -----------------------------------------------------------------------------------

def json_value(v: int | float) -> int | float | str:
    """A value as JSON: numbers as numbers; non-finite floats as the strings inf, -inf, nan."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


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


def _loc_json(loc: Loc | None) -> dict | None:
    if loc is None:
        return None
    return {"file": loc.file, "line": loc.line, "col": loc.col, "end_col": loc.end_col}


def to_json(tp: TupleProgram) -> str:
    """The canonical JSON text (fixed key order, one tuple per line block)."""
    buffers = [{"name": b.name, "role": b.role, "dtype": b.dtype, "shape": list(b.shape),
                "init": json_value(b.init), "implicit": b.implicit, "alias": b.alias}
               for b in tp.buffers]
    tuples = []
    for t in tp.tuples:
        trig, e = t.trigger, t.entry
        payload = trig.payload
        tj = {"k": t.k, "op": t.op, "class": OPCODES[t.op].opclass.label,
              "trigger": {"counter": trig.counter, "threshold": trig.threshold,
                          "match_bits": trig.match_bits,
                          "payload": _operand_json(payload) if isinstance(payload, (Imm, Ref))
                          else payload},
              "entry": None if e is None else {
                  "match_bits": e.match_bits,
                  "dest": _operand_json(e.dest) if e.dest is not None else None,
                  "dtype": e.dtype, "atomic": e.atomic, "update": e.update.value, "target": e.target},
              "loc": _loc_json(t.loc)}
        tuples.append(tj)
    doc = {"format": FORMAT, "source": tp.source, "buffers": buffers, "tuples": tuples}
    return json.dumps(doc, indent=1, allow_nan=False) + "\n"


class _Invalid(Exception):
    pass


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise _Invalid(what)


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _num(v, dtype: str, what: str) -> int | float:
    if dtype == "f64":
        if v in ("inf", "-inf", "nan"):
            return float(v)
        _need(isinstance(v, (int, float)) and not isinstance(v, bool), f"{what} must be a number")
        return float(v)
    _need(_is_int(v), f"{what} must be an integer")
    _need(I64_MIN <= v <= I64_MAX, f"{what} {v} does not fit in i64")
    return v


def _affine(j, what: str) -> Affine:
    _need(isinstance(j, dict) and isinstance(j.get("const"), int) and isinstance(j.get("terms"), list),
          f"{what} must be an object with 'const' and 'terms'")
    terms = []
    for term in j["terms"]:
        _need(isinstance(term, list) and len(term) == 2 and isinstance(term[0], str)
              and isinstance(term[1], int), f"{what} has a malformed term")
        terms.append((term[0], term[1]))
    return Affine(j["const"], tuple(terms))


def _operand(j, what: str, loc: Loc | None) -> Operand:
    _need(isinstance(j, dict), f"{what} must be an object")
    if "imm" in j:
        _need(j.get("dtype") in DTYPES, f"{what} has no valid dtype")
        return Imm(_num(j["imm"], j["dtype"], what), j["dtype"], loc)
    _need(isinstance(j.get("ref"), str) and isinstance(j.get("index"), list),
          f"{what} needs 'imm' or 'ref' and 'index'")
    index: list = []
    for i in j["index"]:
        if isinstance(i, dict) and "lo" in i:
            _need(isinstance(i.get("step"), int), f"{what} slice needs an integer step")
            index.append(Slice(_affine(i["lo"], what), _affine(i["hi"], what), i["step"]))
        else:
            index.append(_affine(i, what))
    return Ref(j["ref"], tuple(index), loc)


def from_json(text: str, filename: str = "<json>") -> TupleProgram:
    """Load and validate a JSON tuple program; every problem is a diagnostic naming the file."""
    def fail(message: str, hint: str | None = None) -> DiagnosticError:
        return DiagnosticError([Diagnostic(message, None, hint, file=filename)])

    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise DiagnosticError([Diagnostic(f"not valid JSON: {e.msg}", Loc(filename, e.lineno, e.colno),
                                          None, text.splitlines()[e.lineno - 1] if text else None)])
    except RecursionError:
        raise fail("not a tuple program: the JSON is nested too deeply") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else None
        raise fail(f"not an {FORMAT} tuple program (format is {found!r})",
                   "produce one with: incac FILE --emit json -o FILE.json")
    try:
        tp = _decode(doc)
    except _Invalid as e:
        raise fail(f"malformed tuple program: {e}") from None
    decls = {b.name: b for b in tp.buffers}
    errors = check_program(decls, [t.instr() for t in tp.tuples],
                           lambda loc, msg, hint: Diagnostic(msg, loc, hint, file=filename))
    if errors:
        raise DiagnosticError(errors)
    if encode(tp.program()) != TupleProgram(tp.buffers, tp.tuples, tp.source):
        raise fail("tuples do not follow the encoding of MODEL.md (trigger threshold, match bits, "
                   "atomic and counter update must agree with each tuple's instruction)")
    return tp


def _decode(doc: dict) -> TupleProgram:
    _need(isinstance(doc.get("buffers"), list) and isinstance(doc.get("tuples"), list),
          "needs 'buffers' and 'tuples' lists")
    buffers, seen = [], set()
    for b in doc["buffers"]:
        _need(isinstance(b, dict) and isinstance(b.get("name"), str), "a buffer needs a name")
        name = b["name"]
        _need(name not in seen, f"buffer '{name}' is declared twice")
        seen.add(name)
        _need(b.get("role") in ROLES, f"buffer '{name}' has an unknown role")
        _need(b.get("dtype") in DTYPES, f"buffer '{name}' has an unknown dtype")
        shape = b.get("shape")
        _need(isinstance(shape, list) and all(isinstance(n, int) and n > 0 for n in shape),
              f"buffer '{name}' needs a list of positive dimensions")
        init = _num(b.get("init", 0), b["dtype"], f"buffer '{name}' init")
        implicit = b.get("implicit", False)
        _need(isinstance(implicit, bool), f"buffer '{name}' implicit must be true or false")
        alias = b.get("alias")
        if alias is not None:
            prev = next((d for d in buffers if d.name == alias), None)
            _need(prev is not None and prev.alias is None and (prev.dtype, prev.shape) ==
                  (b["dtype"], tuple(shape)) and b["role"] != "var",
                  f"buffer '{name}' must alias an earlier, non-alias buffer of its type and shape")
        buffers.append(Decl(name, b["role"], b["dtype"], tuple(shape), init, implicit, alias))
    tuples = []
    for k, t in enumerate(doc["tuples"], 1):
        _need(isinstance(t, dict) and t.get("k") == k, f"tuple {k} is missing or out of order")
        op = t.get("op")
        _need(op in OPCODES, f"tuple {k} has an unknown op {op!r}")
        lj = t.get("loc")
        loc = None
        if lj is not None:
            _need(isinstance(lj, dict) and isinstance(lj.get("file"), str) and _is_int(lj.get("line"))
                  and _is_int(lj.get("col")) and (lj.get("end_col") is None or _is_int(lj["end_col"])),
                  f"tuple {k} has a malformed loc")
            loc = Loc(lj["file"], lj["line"], lj["col"], lj.get("end_col"))
        tj, ej = t.get("trigger"), t.get("entry")
        _need(isinstance(tj, dict), f"tuple {k} needs a trigger")
        _need(isinstance(tj.get("counter"), str) and _is_int(tj.get("threshold"))
              and (tj.get("match_bits") is None or _is_int(tj["match_bits"])),
              f"tuple {k} trigger needs a counter name and integer threshold and match bits")
        form = OPCODES[op].form
        _need(ej is not None or form is Form.NONE, f"tuple {k} ({op}) needs a matching entry")
        payload = tj.get("payload")
        if form in (Form.MOVE, Form.BINARY):
            payload = _operand(payload, f"tuple {k} payload", loc)
        else:
            _need(payload is None or _is_int(payload), f"tuple {k} payload must be a target")
        trig = Trigger(tj.get("counter"), tj.get("threshold"), tj.get("match_bits"), payload)
        entry = None
        if ej is not None:
            _need(isinstance(ej, dict), f"tuple {k} entry must be an object")
            _need(_is_int(ej.get("match_bits")) and (ej.get("target") is None or _is_int(ej["target"])),
                  f"tuple {k} entry needs integer match bits and target")
            dest = ej.get("dest")
            dest = _operand(dest, f"tuple {k} dest", loc) if dest is not None else None
            _need(dest is None or isinstance(dest, Ref), f"tuple {k} dest must be a location")
            _need(ej.get("update") in [u.value for u in Update], f"tuple {k} has an unknown update")
            entry = Entry(ej.get("match_bits"), dest, ej.get("dtype"), ej.get("atomic"),
                          Update(ej["update"]), ej.get("target"))
        tuples.append(Tuple(k, op, trig, entry, loc))
    source = doc.get("source", "")
    return TupleProgram(tuple(buffers), tuple(tuples), source if isinstance(source, str) else "")
