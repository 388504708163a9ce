"""Loading JSON tuple programs, ``inca-tuples/2`` and the older ``inca-tuples/1``.

A loaded file must be a program the assembler can produce, nothing more: the document is read
with the project's bounded JSON reader (nesting, huge integers and out-of-range numbers are
diagnostics), every value is type-checked strictly (a bool is not an integer, an operand is one
thing, not two), the instructions are rebuilt and checked by the rules the assembler applies
(:func:`~.check.check_decls`, :func:`~.check.check_program`, the types it infers for undeclared
scalars), and the tuples are encoded from them again. In ``/1``, which spells out each tuple's
trigger and entry, those must also equal the encoding. The first problem found is the one
diagnostic reported.
"""
from __future__ import annotations

from .check import check_decls, check_program
from .diagnostics import Diagnostic, DiagnosticError, Loc, make_loc
from .frozen import frozen
from .gcpause import collector_paused
from .inference import infer_scalar_types
from .isa import DTYPES, I64_MAX, I64_MIN, OPCODES, Form, Update
from .numbers import NumberError, parse_float, parse_int
from .patterns import lazy
from .program import ROLES, Affine, Decl, Imm, Instr, Operand, Ref, Slice
from .tuple_model import FORMAT, Entry, Trigger, Tuple, TupleProgram, encoder
from .userfiles import parse_json

FORMAT_1 = "inca-tuples/1"

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_REF = lazy(rf"({_NAME})((?:\[[^\[\]]*\])*)")
_INDEX = lazy(r"\[([^\[\]]*)\]")
_LOC = lazy(r"([0-9]{1,9}):([0-9]{1,9}):([0-9]{1,9})(?:-([0-9]{1,9}))?")
_TERM = lazy(rf"([+-]?)(?:([0-9]+)\*)?({_NAME})|([+-]?)([0-9]+)")


class _Invalid(Exception):
    pass


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise _Invalid(what)


def _is_int(v) -> bool:
    return type(v) is int  # noqa: E721  (bool is a subclass of int, and not an integer here)


def _keys(j, what: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """``j`` is an object with the ``required`` keys, perhaps the ``optional`` ones, no other."""
    if not isinstance(j, dict):
        raise _Invalid(f"{what} must be an object")
    missing = [k for k in required if k not in j]
    if missing:
        raise _Invalid(f"{what} needs {', '.join(repr(k) for k in missing)}")
    extra = len(j) > len(required) and sorted(set(j) - set(required) - set(optional))
    if extra:  # (with no key missing and no more keys than required, there is none)
        raise _Invalid(f"{what} has unknown keys {', '.join(repr(k) for k in extra)}")


@frozen
class _Decoded:
    """A decoded document, before any rule of the assembler is applied to it.

    Tuple k encodes ``instrs[uses[k - 1]]`` at ``locs[k - 1]``. Unrolled code repeats
    instructions (a 100,000-tuple program may have a few hundred distinct ones), and every check of
    an instruction depends on what it is and on the program, never on where it stands, so
    ``/2``'s decoder lists each distinct instruction once, in the order of its first tuple and with
    that tuple's location, and each is checked once. The first tuple with an error is then the
    first use of an instruction with that error: the one diagnostic reported is the one checking
    every tuple would report first, at the same place.
    """

    decls: tuple[Decl, ...]
    instrs: tuple[Instr, ...]
    uses: tuple[int, ...]
    locs: tuple[Loc | None, ...]
    source: str
    given: tuple[Tuple, ...] | None = None  # inca-tuples/1: the tuples as written


def load(text: str, filename: str) -> TupleProgram:
    """The tuple program of a JSON text (see the module's description)."""
    def fail(message: str, hint: str | None = None) -> DiagnosticError:
        return DiagnosticError([Diagnostic(message, None, hint, file=filename)])

    # The JSON document is as large as the program and as acyclic: the collector is paused while
    # it is read too (collections during json.loads of 100,000 tuples cost 0.4 s).
    with collector_paused():
        doc = parse_json(text, filename)
        found = doc.get("format") if isinstance(doc, dict) else None
        if found not in (FORMAT, FORMAT_1):
            raise fail(f"not an {FORMAT} tuple program (format is {found!r})",
                       "produce one with: incac FILE --emit json -o FILE.json")
        try:
            got = (_decode_v2 if found == FORMAT else _decode_v1)(doc)
        except _Invalid as e:
            raise fail(f"malformed tuple program: {e}") from None
        errors = [fail(f"malformed tuple program: {m}").diagnostics[0] for m in check_decls(got.decls)]
        if not errors:
            errors = check_program({d.name: d for d in got.decls}, got.instrs,
                                   lambda loc, msg, hint: Diagnostic(msg, loc, hint, file=filename),
                                   count=len(got.uses))
        if errors:
            raise DiagnosticError(errors[:1])
        if not got.uses:
            raise fail("malformed tuple program: it has no tuples (a program ends with END)")
        implicit = _implicit_problem(got.decls, got.instrs)
        if implicit:
            raise fail(f"malformed tuple program: {implicit}")
        dtypes = {d.name: d.dtype for d in got.decls}
        encoders = [encoder(ins, None if ins.dest is None else dtypes[ins.dest.name])
                    for ins in got.instrs]
        tuples = tuple(encoders[i](k, loc) for k, (i, loc) in enumerate(zip(got.uses, got.locs), 1))
        if got.given is not None and got.given != tuples:
            raise fail("tuples do not follow the encoding of MODEL.md (trigger threshold, match "
                       "bits, atomic and counter update must agree with each tuple's instruction)")
    return TupleProgram(got.decls, tuples, got.source)


def _implicit_problem(decls: tuple[Decl, ...], instrs: tuple[Instr, ...]) -> str | None:
    """The assembler declares undeclared scalars itself, after the declared ones, with the types
    it infers; implicit buffers must be exactly those (or the program would print differently)."""
    explicit = [d for d in decls if not d.implicit]
    if any(d.implicit for d in decls[:len(explicit)]):
        return "implicit buffers must come after the declared ones"
    types = infer_scalar_types(instrs, {d.name: d.dtype for d in explicit})
    got = [(d.name, d.dtype) for d in decls[len(explicit):]]
    if got != list(types.items()):
        want = ", ".join(f"{n}: {t}" for n, t in types.items()) or "none"
        return f"the implicit buffers must be the undeclared scalars with their inferred types ({want})"
    return None


# ---- inca-tuples/2 -------------------------------------------------------------------------

_ATOMS = (str, int, type(None))  # the types of a well-formed tuple's op, dest and payload


def _decode_v2(doc: dict) -> _Decoded:
    _keys(doc, "the document", ("format", "source", "files", "buffers", "tuples"))
    files, source = doc["files"], doc["source"]
    _need(isinstance(source, str), "'source' must be a string")
    _need(isinstance(files, list) and all(isinstance(f, str) for f in files),
          "'files' must be a list of file names")
    decls = _buffers(doc["buffers"], ("name", "role", "dtype", "shape", "init", "implicit", "alias",
                                      "default"), ("default",))
    rows = doc["tuples"]
    _need(isinstance(rows, list), "'tuples' must be a list")
    operands = _Operands()
    # (op, dest, payload) of each well-formed tuple seen -> its instruction's index. Only values
    # of exactly these types are looked up, so 1, 1.0 and true (equal keys in a dict) never meet.
    seen: dict[tuple, int] = {}
    instrs: list[Instr] = []
    uses: list[int] = []
    locs: list[Loc | None] = []
    where_seen: dict[str, Loc] = {}  # the tuples compiled from one statement share its location
    # The checks of every row raise directly: _need's message would be formatted for each row.
    for k, row in enumerate(rows, 1):
        if not (isinstance(row, list) and len(row) == 4):
            raise _Invalid(f"tuple {k} must be [op, dest, payload, loc]")
        op, dest, payload, where = row
        key = (op, dest, payload)
        i = (seen.get(key) if type(op) is str and type(dest) in _ATOMS and type(payload) in _ATOMS
             else None)
        if i is None and not (isinstance(op, str) and op in OPCODES):
            raise _Invalid(f"tuple {k} has an unknown op {op!r}")
        loc = where_seen.get(where) if type(where) is str else None
        if loc is None and where is not None:
            loc = where_seen[where] = _loc(where, files, k)
        if i is None:
            instrs.append(_instr(op, dest, payload, loc, operands, f"tuple {k} ({op})"))
            i = seen[key] = len(instrs) - 1
        uses.append(i)
        locs.append(loc)
    return _Decoded(tuple(decls), tuple(instrs), tuple(uses), tuple(locs), source)


def _loc(where: object, files: list[str], k: int) -> Loc:
    m = _LOC.fullmatch(where) if isinstance(where, str) else None
    if m is None or int(m.group(1)) >= len(files):
        raise _Invalid(f"tuple {k} has a malformed loc")
    file, line, col, end = m.groups()
    return make_loc((files[int(file)], int(line), int(col), None if end is None else int(end)))


def _instr(op: str, dest, payload, loc: Loc | None, operands: _Operands, what: str) -> Instr:
    """The instruction of one tuple's op, dest and payload, each checked."""
    form = OPCODES[op].form
    d = s = target = None
    if form in (Form.MOVE, Form.BINARY, Form.BRANCH):
        _need(isinstance(dest, str), f"{what} needs a destination")
        d = operands.get(dest, what)
        _need(isinstance(d, Ref), f"{what}: the destination must be a location")
    else:
        _need(dest is None, f"{what} takes no destination")
    if form in (Form.MOVE, Form.BINARY):
        _need(isinstance(payload, str), f"{what} needs a source operand")
        s = operands.get(payload, what)
    elif form in (Form.BRANCH, Form.JUMP):
        _need(_is_int(payload), f"{what} payload must be a target")
        target = payload
    else:
        _need(payload is None, f"{what} takes no payload")
    return Instr(op, d, s, target, loc)


class _Operands:
    """Operands in INCA-A syntax, as printed: each text parsed once (unrolled code repeats them)
    and accepted only in its canonical spelling, so a file prints back exactly as it reads.

    One text is one operand object wherever it stands, so it carries no location of its own:
    every check falls back to its instruction's, which is all a tuple file gives it anyway."""

    def __init__(self) -> None:
        self.seen: dict[str, Operand] = {}
        self.indices: dict[str, Affine | Slice] = {}  # A[k] and B[k]: operands share indices

    def get(self, text: str, what: str) -> Operand:
        operand = self.seen.get(text)
        if operand is None:
            operand = self.seen[text] = self._parse(text, what)
        return operand

    def _parse(self, text: str, what: str) -> Operand:
        bad = f"{what}: {text[:40]!r} is not an operand in INCA-A syntax"
        m = _REF.fullmatch(text)
        if m is not None and m.group(1) not in ("inf", "nan"):
            # A reference prints as its name and each index in brackets, and the regular
            # expressions cut the text exactly there: it prints back as it reads when each index
            # does, which _index checks once per index text.
            return Ref(m.group(1), tuple(self._index(i, bad) for i in _INDEX.findall(m.group(2))))
        try:
            if any(c in text for c in ".en"):  # decimal point, exponent, inf or nan: f64
                operand = Imm(parse_float(text, allow_special=True), "f64")
            else:
                value = parse_int(text)
                _need(I64_MIN <= value <= I64_MAX, f"{what}: {text} does not fit in i64")
                operand = Imm(value, "i64")
        except NumberError:
            raise _Invalid(bad) from None
        _need(str(operand) == text, bad)
        return operand

    def _index(self, text: str, bad: str) -> Affine | Slice:
        """The index written ``text`` between brackets, accepted in its canonical spelling only."""
        index = self.indices.get(text)
        if index is None:
            index = self._parse_index(text, bad)
            _need(str(index) == text, bad)
            self.indices[text] = index
        return index

    @staticmethod
    def _parse_index(text: str, bad: str) -> Affine | Slice:
        parts = [_affine(p, bad) for p in text.split(":")]
        _need(len(parts) <= 3, bad)
        if len(parts) == 1:
            return parts[0]
        step = parts[2] if len(parts) == 3 else Affine(1)
        _need(step.is_const, bad)
        return Slice(parts[0], parts[1], step.const)


def _affine(text: str, bad: str) -> Affine:
    """``2*k+1``, ``-i``, ``3``: constant and terms, merged (a non-canonical spelling of them
    is refused by the caller's round-trip check)."""
    if text.isascii() and text.isdigit():  # a constant, the index of most unrolled code
        return Affine(_digits(text, bad))
    const, terms, pos = 0, {}, 0
    while pos < len(text):
        m = _TERM.match(text, pos)
        _need(m is not None and m.end() > pos and (pos == 0 or m.group(1) or m.group(4)), bad)
        if m.group(3) is not None:
            coef = _digits(m.group(2), bad) if m.group(2) else 1
            terms[m.group(3)] = terms.get(m.group(3), 0) + (-coef if m.group(1) == "-" else coef)
        else:
            const += -_digits(m.group(5), bad) if m.group(4) == "-" else _digits(m.group(5), bad)
        pos = m.end()
    _need(pos > 0, bad)
    return Affine(const, tuple((n, c) for n, c in terms.items() if c))


def _digits(text: str, bad: str) -> int:
    """A number in an index, bounded: int() refuses more than 4,300 digits with a ValueError."""
    try:
        return parse_int(text)
    except NumberError:
        raise _Invalid(bad) from None


# ---- shared ---------------------------------------------------------------------------------

def _buffers(items, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> list[Decl]:
    """The declarations of a document. A program may have a buffer per scalar it uses, so the
    checks raise directly rather than through _need, whose message is formatted every time."""
    _need(isinstance(items, list), "'buffers' must be a list")
    required = tuple(k for k in keys if k not in optional)
    out = []
    for n, b in enumerate(items, 1):
        name = b.get("name") if isinstance(b, dict) else None
        what = f"buffer '{name}'" if isinstance(name, str) else f"buffer {n}"
        _keys(b, what, required, optional)
        if not isinstance(name, str):
            raise _Invalid(f"{what} needs a name")
        role, dtype, shape = b["role"], b["dtype"], b["shape"]
        if role not in ROLES:
            raise _Invalid(f"{what} has an unknown role")
        if dtype not in DTYPES:
            raise _Invalid(f"{what} has an unknown dtype")
        if not (isinstance(shape, list) and all(_is_int(d) and d > 0 for d in shape)):
            raise _Invalid(f"{what} needs a list of positive dimensions")
        init = b.get("init", 0)
        if isinstance(init, list):  # a constant table: one value per element
            init = tuple(_value(v, dtype, what, " init") for v in init)
        else:
            init = _value(init, dtype, what, " init")
        implicit = b.get("implicit", False)
        if not isinstance(implicit, bool):
            raise _Invalid(f"{what} implicit must be true or false")
        alias = b.get("alias")
        if not (alias is None or isinstance(alias, str)):
            raise _Invalid(f"{what} alias must be a name or null")
        default = b.get("default")
        if default is not None:
            default = _value(default, dtype, what, " default")
        out.append(Decl(name, role, dtype, tuple(shape), init, implicit, alias, default=default))
    return out


def _value(v, dtype: str, what: str, field: str = "") -> int | float:
    """A value of ``dtype``, ``field`` of ``what`` in messages (" init" of "buffer 'x'")."""
    if dtype == "f64":
        if v in ("inf", "-inf", "nan"):
            return float(v)
        if not (isinstance(v, float) or _is_int(v)):
            raise _Invalid(f"{what}{field} must be a number")
        return float(v)
    if not _is_int(v):
        raise _Invalid(f"{what}{field} must be an integer")
    if not I64_MIN <= v <= I64_MAX:
        raise _Invalid(f"{what}{field} {v} does not fit in i64")
    return v


# ---- inca-tuples/1 -------------------------------------------------------------------------

_V1_BUFFER = ("name", "role", "dtype", "shape", "init", "implicit", "alias")
_V1_OPTIONAL = ("init", "implicit", "alias")  # absent from files written before --clobber


def _decode_v1(doc: dict) -> _Decoded:
    """An ``inca-tuples/1`` document, each tuple its own instruction (no file of this older format
    is large), with its tuples as written (to compare with the encoding)."""
    _keys(doc, "the document", ("format", "buffers", "tuples"), ("source",))
    decls = _buffers(doc["buffers"], _V1_BUFFER, _V1_OPTIONAL)
    _need(isinstance(doc["tuples"], list), "'tuples' must be a list")
    tuples, instrs = [], []
    for k, t in enumerate(doc["tuples"], 1):
        _need(isinstance(t, dict) and t.get("k") == k and _is_int(t.get("k")),
              f"tuple {k} is missing or out of order")
        _keys(t, f"tuple {k}", ("k", "op", "trigger", "entry"), ("class", "loc"))
        op = t["op"]
        _need(isinstance(op, str) and op in OPCODES, f"tuple {k} has an unknown op {op!r}")
        loc = _v1_loc(t.get("loc"), k)
        tj, ej = t["trigger"], t["entry"]
        _keys(tj, f"tuple {k} trigger", ("counter", "threshold", "match_bits", "payload"))
        _need(isinstance(tj["counter"], str) and _is_int(tj["threshold"])
              and (tj["match_bits"] is None or _is_int(tj["match_bits"])),
              f"tuple {k} trigger needs a counter name and integer threshold and match bits")
        form = OPCODES[op].form
        _need(ej is not None or form is Form.NONE, f"tuple {k} ({op}) needs a matching entry")
        payload = tj["payload"]
        if form in (Form.MOVE, Form.BINARY):
            payload = _v1_operand(payload, f"tuple {k} payload", loc)
        else:
            _need(payload is None or _is_int(payload), f"tuple {k} payload must be a target")
        trig = Trigger(tj["counter"], tj["threshold"], tj["match_bits"], payload)
        entry = None
        if ej is not None:
            _keys(ej, f"tuple {k} entry", ("match_bits", "dest", "dtype", "atomic", "update", "target"))
            _need(_is_int(ej["match_bits"]) and (ej["target"] is None or _is_int(ej["target"])),
                  f"tuple {k} entry needs integer match bits and target")
            dest = ej["dest"]
            dest = _v1_operand(dest, f"tuple {k} dest", loc) if dest is not None else None
            _need(dest is None or isinstance(dest, Ref), f"tuple {k} dest must be a location")
            _need(ej["update"] in [u.value for u in Update], f"tuple {k} has an unknown update")
            _need(ej["dtype"] is None or ej["dtype"] in DTYPES, f"tuple {k} has an unknown dtype")
            _need(isinstance(ej["atomic"], str), f"tuple {k} atomic must be a name")
            entry = Entry(ej["match_bits"], dest, ej["dtype"], ej["atomic"], Update(ej["update"]),
                          ej["target"])
        tup = Tuple(k, op, trig, entry, loc)
        tuples.append(tup)
        instrs.append(tup.instr())
    source = doc.get("source", "")
    _need(isinstance(source, str), "'source' must be a string")
    return _Decoded(tuple(decls), tuple(instrs), tuple(range(len(instrs))),
                    tuple(t.loc for t in tuples), source, tuple(tuples))


def _v1_loc(lj, k: int) -> Loc | None:
    if lj is None:
        return None
    _keys(lj, f"tuple {k} loc", ("file", "line", "col"), ("end_col",))
    _need(isinstance(lj["file"], str) and _is_int(lj["line"]) and _is_int(lj["col"])
          and (lj.get("end_col") is None or _is_int(lj["end_col"])), f"tuple {k} has a malformed loc")
    return Loc(lj["file"], lj["line"], lj["col"], lj.get("end_col"))


def _v1_affine(j, what: str) -> Affine:
    _keys(j, what, ("const", "terms"))
    _need(_is_int(j["const"]) and isinstance(j["terms"], list),
          f"{what} must be an object with 'const' and 'terms'")
    terms: dict[str, int] = {}
    for term in j["terms"]:
        _need(isinstance(term, list) and len(term) == 2 and isinstance(term[0], str)
              and _is_int(term[1]) and term[1] != 0 and term[0] not in terms,
              f"{what} has a malformed term")
        terms[term[0]] = term[1]
    return Affine(j["const"], tuple(terms.items()))


def _v1_operand(j, what: str, loc: Loc | None) -> Operand:
    _need(isinstance(j, dict), f"{what} must be an object")
    if "imm" in j:
        _keys(j, what, ("imm", "dtype"))
        _need(j["dtype"] in DTYPES, f"{what} has no valid dtype")
        return Imm(_value(j["imm"], j["dtype"], what), j["dtype"], loc)
    _keys(j, what, ("ref", "index"))
    _need(isinstance(j["ref"], str) and isinstance(j["index"], list),
          f"{what} needs 'imm' or 'ref' and 'index'")
    index: list = []
    for i in j["index"]:
        if isinstance(i, dict) and ("lo" in i or "hi" in i or "step" in i):
            _keys(i, f"{what} slice", ("lo", "hi", "step"))
            _need(_is_int(i["step"]), f"{what} slice needs an integer step")
            index.append(Slice(_v1_affine(i["lo"], what), _v1_affine(i["hi"], what), i["step"]))
        else:
            index.append(_v1_affine(i, what))
    return Ref(j["ref"], tuple(index), loc)
