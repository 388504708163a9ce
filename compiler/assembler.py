"""INCA-A text to :class:`~inca.lang.program.Program`.

Lines are parsed one at a time, so every bad line gets its own diagnostic: the common instruction
shapes by the regular expressions of :mod:`.asm_fast`, everything else (and every line with a
problem, so diagnostics have one source) with the LALR grammar ``lang/incaa.lark``. Then
declarations and ``.param`` constants are collected (expressions and literals are evaluated by
:mod:`.asm_exprs`), instruction numbers and labels resolved, operands built, undeclared scalars
typed, and the whole program checked with :func:`inca.lang.check.check_program`.
"""
from __future__ import annotations

import math
import re
from functools import lru_cache

from ..lang.check import check_program
from ..lang.frozen import record
from ..lang.gcpause import collector_paused
from ..lang.numbers import NumberError, parse_int
from ..lang.diagnostics import Diagnostic, DiagnosticError, Loc, Source, did_you_mean
from ..lang.inference import infer_scalar_types
from ..lang.isa import DTYPES, I64_MAX, I64_MIN, OPCODES, Form, lookup
from . import asm_fast
from .asm_exprs import Bad, const, expr, number, span
from ..lang.program import ROLES, Affine, Decl, Imm, Instr, Operand, Program, Ref, Slice

DIRECTIVES = ROLES + ("param",)
RESERVED = ("inf", "nan")  # float literals, so never names

# Words for the grammar's terminals, so syntax errors never show token names.
_WORDS = {
    "NAME": "a name", "INT": "an integer", "FLOAT": "a number", "COMMA": "','", "COLON": "':'",
    "LSQB": "'['", "RSQB": "']'", "LPAR": "'('", "RPAR": "')'", "EQUAL": "'='", "PLUS": "'+'",
    "MINUS": "'-'", "STAR": "'*'", "SLASH": "'/'", "PERCENT": "'%'", "DIRECTIVE": "a directive",
    "LINENO": "a line number", "$END": "the end of the line",
}
_PREFERRED = ("COMMA", "RSQB", "RPAR", "NAME", "INT", "$END", "COLON", "EQUAL", "LSQB")


@lru_cache(maxsize=1)
def _parser():
    """The lark parser of the lines the fast path leaves (the directives, and every problem).
    Building its tables takes about 0.15 s, most of an ``inca run`` of an .incaa file, so they are
    kept in lark's cache (a file in the temporary folder, checked against the grammar, lark's
    version and Python's, rebuilt when it does not match), as the INCA-Q parser's are."""
    from importlib import resources  # (on Python 3.12, with inspect and typing: 11 ms)

    from lark import Lark

    grammar = resources.files("inca.lang").joinpath("incaa.lark").read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", propagate_positions=True, maybe_placeholders=True,
                cache=True)


# The parts of a line that did not parse which still matter: its number, its label, and whether
# anything (an instruction, presumably) follows them; and the body that stands in for it.
_RECOVER = re.compile(r"[ \t]*(?:(\d+)[ \t]+)?(?:([A-Za-z_][A-Za-z0-9_]*)[ \t]*:)?[ \t]*(.?)")
_RECOVER_DECL = re.compile(r"[ \t]*\.[A-Za-z_][A-Za-z0-9_]*[ \t]+([A-Za-z_][A-Za-z0-9_]*)")
_UNPARSED = object()


def _names_used(ins: Instr) -> set[str]:
    """Every name an instruction refers to (locations and the scalars in their indices)."""
    out: set[str] = set()
    for o in (ins.dest, ins.src):
        if isinstance(o, Ref):
            out.add(o.name)
            out.update(o.names_read)
    return out


def _innermost_bracket(text: str) -> str | None:
    """The innermost bracket, '[' or '(', still open at the end of ``text`` (None if none is)."""
    stack = []
    for ch in text:
        if ch in "[(":
            stack.append(ch)
        elif ch in "])" and stack:
            stack.pop()
    return stack[-1] if stack else None


@record
class _Line:
    """One parsed line."""

    n: int  # source line number
    lineno: int | None  # the paper-style instruction number written on the line
    lineno_col: int
    label: tuple[str, int] | None  # name, column
    body: object  # lark Tree of a directive or instruction, a FastLine, or None


def _parts(tree) -> tuple[int | None, int, tuple[str, int] | None, object]:
    """A parsed line's instruction number (and its column), label and body."""
    parts = list(tree.children)
    lineno = label = None
    col = 1
    if parts and getattr(parts[0], "type", None) == "LINENO":
        lineno, col = number(parse_int, parts[0], "instruction number"), parts[0].column
        parts.pop(0)
    if parts and getattr(parts[0], "data", None) == "label":
        tok = parts[0].children[0]
        label = (str(tok), tok.column)
        parts.pop(0)
    return lineno, col, label, parts[0] if parts else None


class Assembler:
    """Assembles one source; collects every diagnostic before giving up."""

    def __init__(self, source: Source, defines: dict[str, int] | None = None):
        self.src = source
        self.defines = dict(defines or {})
        self.diags: list[Diagnostic] = []
        self.params: dict[str, int] = {}
        self.decls: dict[str, Decl] = {}
        self.broken: set[str] = set()  # names whose declaration had an error (already reported)

    def error(self, line: int, col: int, message: str, end_col: int | None = None,
              hint: str | None = None) -> None:
        """Record a diagnostic at a line and column of the source."""
        self.diags.append(self.src.diag(self.src.loc(line, col, end_col), message, hint))

    # ---- parsing -------------------------------------------------------------------------

    def parse_lines(self) -> list[_Line]:
        """Parse every non-blank line; syntax errors are recorded and the line skipped."""
        out = []
        well_formed: set[str] = set()
        for n, text in enumerate(self.src.lines, 1):
            stripped = text.lstrip(" \t")
            fast = (asm_fast.scan_directive(text) if stripped[:1] == "."
                    else asm_fast.scan(text, well_formed))
            if fast is not None:
                out.append(_Line(n, fast[0], fast[1], fast[2], fast[3]))
                continue
            if not stripped or stripped[0] in ";#":
                continue
            from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput

            try:
                tree = _parser().parse(text)
            except UnexpectedCharacters as e:
                self.error(n, e.column, f"unexpected character {text[e.column - 1]!r}")
                self._recover(n, text, out)
                continue
            except UnexpectedInput as e:
                self._syntax_error(n, text, e)
                self._recover(n, text, out)
                continue
            except LarkError as e:  # any other parser failure is still the user's line
                self.error(n, 1, f"cannot parse this line ({e.__class__.__name__})")
                self._recover(n, text, out)
                continue
            try:
                lineno, col, label, body = _parts(tree)
            except Bad as b:
                self.error(n, b.col, b.message, b.end_col, b.hint)
                self._recover(n, text, out)
                continue
            if lineno is not None or label is not None or body is not None:
                out.append(_Line(n, lineno, col, label, body))
        return out

    def _recover(self, n: int, text: str, out: list[_Line]) -> None:
        """Keep the line number, label and instruction slot of a line that did not parse, so the
        lines after it are numbered and labelled as written (no cascade of follow-on errors)."""
        decl = _RECOVER_DECL.match(text)
        if decl:
            self.broken.add(decl.group(1))
        m = _RECOVER.match(text)
        try:
            lineno = parse_int(m.group(1)) if m.group(1) else None
        except NumberError:  # reported already, as the line's own error
            lineno = 0
        label = (m.group(2), m.start(2) + 1) if m.group(2) else None
        body = _UNPARSED if m.group(3) not in ("", ".", ";", "#") else None
        if lineno is not None or label is not None or body is not None:
            out.append(_Line(n, lineno, m.start(1) + 1 if lineno is not None else 1, label, body))

    def _syntax_error(self, n: int, text: str, e) -> None:
        token = getattr(e, "token", None)
        expected = set(getattr(e, "expected", ()) or ())
        if token is not None and token.type != "$END":
            # LALR lookaheads are merged across contexts: keep only the closers that can apply here
            inner = _innermost_bracket(text[:token.column - 1])
            expected -= {"RSQB", "COLON"} if inner != "[" else set()
            expected -= {"RPAR"} if inner != "(" else {"COMMA"}
            expected -= {"COMMA"} if inner == "[" else set()
            if inner is None and "COMMA" in expected:
                expected.add("$END")  # after a complete operand the line may end
        words = [_WORDS[t] for t in _PREFERRED if t in expected][:2]
        want = " or ".join(words) if words else "an operator"
        if token is None or token.type == "$END":
            self.error(n, len(text.rstrip()) + 1, f"unexpected end of line; expected {want}")
            return
        kind = _WORDS.get(token.type, "")
        what = f"'{token}'" if not kind or kind.startswith("'") else f"{kind.split()[-1]} '{token}'"
        self.error(n, token.column, f"unexpected {what}; expected {want}", end_col=token.end_column)

    # ---- expressions ---------------------------------------------------------------------

    # ---- declarations --------------------------------------------------------------------

    def directive(self, line: _Line) -> None:
        """Record a declaration or a .param."""
        kw_tok, name_tok, *rest = line.body.children
        kw = str(kw_tok)[1:].lower()
        name = str(name_tok)
        typ = next((c for c in rest if getattr(c, "data", None) == "type"), None)
        at = next((c for c in rest if getattr(c, "data", None) == "alias"), None)
        values = [c for c in rest if getattr(c, "data", None) not in ("type", "alias")]
        init = values[0] if values else None
        if kw not in DIRECTIVES:
            hint = did_you_mean(kw, DIRECTIVES)
            raise Bad(f"unknown directive '.{kw}'", kw_tok.column, kw_tok.end_column,
                       (hint.replace("'", "'.", 1) if hint else None) or
                       "directives are " + ", ".join("." + d for d in DIRECTIVES))
        if name in RESERVED:
            raise Bad(f"'{name}' is a float literal and cannot name a location", name_tok.column,
                       name_tok.end_column)
        if kw == "param":
            if typ is not None or at is not None or init is None:
                raise Bad("write a parameter as '.param NAME = integer'", kw_tok.column)
            if name in self.params or name in self.decls:
                what = ".param" if name in self.params else "location"
                raise Bad(f"'{name}' is already a {what}", name_tok.column, name_tok.end_column)
            value = self.defines[name] if name in self.defines else const(init, "a .param value", self.params, self.src.name)
            self.params[name] = value
            return
        if name in self.decls:
            prev = self.decls[name].loc
            raise Bad(f"'{name}' is declared twice", name_tok.column, name_tok.end_column,
                       f"first declared on line {prev.line}" if prev else None)
        if name in self.params:
            raise Bad(f"'{name}' is already a .param", name_tok.column, name_tok.end_column)
        if typ is None:
            raise Bad(f"'.{kw} {name}' needs a type, e.g. f64 or i64[16]", name_tok.end_column)
        dt_tok = typ.children[0]
        dtype = str(dt_tok)
        if dtype not in DTYPES:
            raise Bad(f"unknown element type '{dtype}'", dt_tok.column, dt_tok.end_column,
                       did_you_mean(dtype, DTYPES) or "element types are i64 and f64")
        shape = []
        for dim in typ.children[1:]:
            size = const(dim.children[0], "an array dimension", self.params, self.src.name)
            if size <= 0:
                col, end = span(dim)
                raise Bad(f"array dimension must be positive, not {size}", col, end)
            shape.append(size)
        value: int | float = 0 if dtype == "i64" else 0.0
        default = None
        if init is not None:
            if kw == "output":
                col, end = span(init)
                raise Bad("an .output takes no initial value (the kernel computes it)", col, end,
                           "an .input or .inout value after '=' is its default, a .var's its initial value")
            if len(values) > 1:
                if kw != "var":
                    col, end = span(values[1])
                    raise Bad(f"only a .var takes a table of values (an .{kw} takes one default)",
                               col, end)
                if len(values) != math.prod(shape):
                    col, end = span(values[-1])
                    raise Bad(f"{len(values)} values for {math.prod(shape)} elements", col, end,
                               "give one value for every element, or one for all")
                value = tuple(self.init_value(v, dtype) for v in values)
            elif kw == "var":
                value = self.init_value(init, dtype)
            else:
                default = self.init_value(init, dtype)
        alias = self.alias_of(at, kw, dtype, tuple(shape)) if at is not None else None
        if alias is not None and init is not None:
            col, end = span(init)
            raise Bad(f"a view takes no value of its own: it shares the storage of '{alias}'", col, end)
        self.decls[name] = Decl(name, kw, dtype, tuple(shape), value, alias=alias,
                                loc=self.src.loc(line.n, name_tok.column, name_tok.end_column),
                                default=default)

    def fast_directive(self, d: asm_fast.FastDirective, n: int) -> bool:
        """Record a declaration the scanner read as :meth:`directive` would; False, recording
        nothing, for any declaration that method would refuse or that needs its parser."""
        kw, name = d.kind.lower(), d.name
        if kw not in DIRECTIVES or name in RESERVED or name in self.decls or name in self.params:
            return False
        if kw == "param":
            given = None if d.value is None else asm_fast.number(d.value)
            if d.dtype is not None or type(given) is not int:
                return False
            self.params[name] = self.defines.get(name, given)
            return True
        if d.dtype not in DTYPES:
            return False
        shape = tuple(asm_fast.dimension(dim, self.params) for dim in d.dims)
        if None in shape:
            return False
        value: int | float = 0 if d.dtype == "i64" else 0.0
        default = None
        if d.value is not None:
            given = asm_fast.number(d.value)
            if given is None or kw == "output" or (type(given) is float and d.dtype == "i64"):
                return False
            given = given if d.dtype == "i64" else float(given)
            value, default = (given, None) if kw == "var" else (value, given)
        self.decls[name] = Decl(name, kw, d.dtype, shape, value,
                                loc=self.src.loc(n, d.name_col, d.name_col + len(name)),
                                default=default)
        return True

    def alias_of(self, at, kw: str, dtype: str, shape: tuple[int, ...]) -> str:
        """``@ X``: this location is a view of X's storage, in a shape of its own with as many
        elements (``.var M f64[32][32] @ P`` over ``P f64[1024]``); X must be declared before, of
        the same element type, and not itself a view."""
        tok = at.children[0]
        target = self.decls.get(str(tok))
        if target is None:
            raise Bad(f"'{tok}' is not declared before this line", tok.column, tok.end_column,
                       "'@ X' stores this location in the buffer of an earlier declaration X")
        if target.alias is not None:
            raise Bad(f"'{tok}' is itself stored in '{target.alias}'", tok.column, tok.end_column,
                       f"write '@ {target.alias}'")
        dims = "".join(f"[{n}]" for n in target.shape)
        if target.dtype != dtype:
            raise Bad(f"'{tok}' is {target.dtype}{dims}, so it cannot hold this {dtype} location",
                       tok.column, tok.end_column, "a view and its storage need the same element type")
        if target.size != math.prod(shape):
            raise Bad(f"element count: '{tok}' ({target.dtype}{dims}) has {target.size} elements but "
                       f"this location has {math.prod(shape)}", tok.column, tok.end_column,
                       "a view needs the element count of its storage (its shape may differ)")
        return str(tok)

    def init_value(self, t, dtype: str) -> int | float:
        """A literal initial value converted to ``dtype``."""
        v = expr(t, self.params, self.src.name)
        col, end = span(t)
        if isinstance(v, float):
            if dtype == "i64":
                raise Bad("an i64 cannot be initialised with a float", col, end)
            return v
        if not v.is_const:
            raise Bad("an initial value must be a literal", col, end)
        self.check_i64(v.const, col, end)
        return v.const if dtype == "i64" else float(v.const)

    @staticmethod
    def check_i64(v: int, col: int, end: int | None) -> None:
        """Reject integer literals that do not fit in i64."""
        if not I64_MIN <= v <= I64_MAX:
            raise Bad(f"integer {v} does not fit in i64", col, end)

    # ---- instructions --------------------------------------------------------------------

    def operand(self, t, n: int) -> Operand:
        """Build an immediate or a reference from an operand tree."""
        col, end = span(t)
        loc = self.src.loc(n, col, end)
        if getattr(t, "data", None) == "ref":
            name_tok, *idx = t.children
            return Ref(str(name_tok), tuple(self.index(i.children[0], str(name_tok), k)
                                            for k, i in enumerate(idx)), loc)
        v = expr(t, self.params, self.src.name)
        if isinstance(v, float):
            return Imm(v, "f64", loc)
        if v.is_const:
            self.check_i64(v.const, col, end)
            return Imm(v.const, "i64", loc)
        if v.const == 0 and len(v.terms) == 1 and v.terms[0][1] == 1:
            return Ref(v.terms[0][0], (), loc)
        raise Bad(f"operand '{v}' computes a value; operands are literals, names or elements",
                   col, end, "compute it into a scalar first (PUTL t, i then ADD t, t, 1)")

    def index(self, t, array: str, k: int) -> Affine | Slice:
        """An affine index or a slice; omitted slice bounds default to the whole dimension."""
        if getattr(t, "data", None) != "slice":
            v = expr(t, self.params, self.src.name)
            if isinstance(v, float):
                col, end = span(t)
                raise Bad("an index must be an integer expression", col, end)
            return v
        parts = t.children  # [lo] ":" [hi] [":" step]: absent bounds are None
        col, _ = span(t)
        lo = expr(parts[0], self.params, self.src.name) if parts[0] is not None else Affine(0)
        if parts[1] is not None:
            hi = expr(parts[1], self.params, self.src.name)
        else:
            decl = self.decls.get(array)
            if decl is None or len(decl.shape) <= k:
                raise Bad(f"cannot take the whole dimension of '{array}' here", col)
            hi = Affine(decl.shape[k])
        step = const(parts[2], "a slice step", self.params, self.src.name) if parts[2] is not None else 1
        if isinstance(lo, float) or isinstance(hi, float):
            raise Bad("slice bounds must be integer expressions", col)
        return Slice(lo, hi, step)

    def instruction(self, line: _Line, number_of, k: int) -> Instr:
        """Build instruction number ``k`` from its line."""
        mn_tok, *ops = line.body.children
        spec = lookup(str(mn_tok))
        if spec is None:
            raise Bad(f"unknown mnemonic '{mn_tok}'", mn_tok.column, mn_tok.end_column,
                       did_you_mean(str(mn_tok).upper(), OPCODES))
        loc = self.src.loc(line.n, mn_tok.column, mn_tok.end_column)
        form, op = spec.form, spec.mnemonic
        expected = {Form.MOVE: (2,), Form.BINARY: (3, 2), Form.BRANCH: (2,), Form.JUMP: (1,),
                    Form.NONE: (0,)}[form]
        if len(ops) not in expected:
            usage = f"{op} {form.value}".strip()
            raise Bad(f"{op} takes {expected[0]} operand{'s' * (expected[0] != 1)}, not {len(ops)}",
                       mn_tok.column, mn_tok.end_column, f"write '{usage}'")
        if form is Form.NONE:
            return Instr(op, loc=loc)
        if form is Form.JUMP:
            return Instr(op, target=number_of(ops[0], line.n), loc=loc)
        if form is Form.BRANCH:
            return Instr(op, dest=self.dest(ops[0], line.n, op), target=number_of(ops[1], line.n), loc=loc)
        dest = self.dest(ops[0], line.n, op)
        if form is Form.BINARY and len(ops) == 3:
            mid = self.operand(ops[1], line.n)
            if mid != dest:
                col, end = span(ops[1])
                raise Bad(f"{op} is two-address: the middle operand must be the destination "
                           f"'{dest}', not '{mid}'", col, end,
                           f"copy first: PUTL {dest}, {mid} then {op} {dest}, {dest}, ...")
        return Instr(op, dest=dest, src=self.operand(ops[-1], line.n), loc=loc)

    def dest(self, t, n: int, op: str) -> Ref:
        """A destination operand: a name, element or vector, never an immediate."""
        v = self.operand(t, n)
        if isinstance(v, Imm):
            col, end = span(t)
            raise Bad(f"the first operand of {op} must be a location, not the literal {v}", col, end)
        return v

    # ---- the whole program ---------------------------------------------------------------

    def run(self) -> Program:
        """Assemble the source, raising DiagnosticError with every error found."""
        with collector_paused():
            return self._run()

    def _run(self) -> Program:
        lines = self.parse_lines()
        instr_lines: list[_Line] = []
        labels: dict[str, int] = {}
        numbered = next((ln.lineno is not None for ln in lines
                         if ln.lineno is not None or ln.label is not None), False)
        pending: list[tuple[str, int, int]] = []
        for ln in lines:
            unparsed_instr = ln.body is _UNPARSED and (ln.lineno is not None or not numbered)
            is_instr = unparsed_instr or getattr(ln.body, "data", None) == "instruction"
            try:
                if ln.body is not _UNPARSED:  # its syntax error is reported already
                    self._check_style(ln, numbered, len(instr_lines) + 1, is_instr)
                if ln.label is not None:
                    name, col = ln.label
                    if name in RESERVED:
                        raise Bad(f"'{name}' is a float literal and cannot be a label", col,
                                   col + len(name))
                    if name in labels or any(p[0] == name for p in pending):
                        raise Bad(f"label '{name}' is defined twice", col, col + len(name))
                    pending.append((name, col, ln.n))
                if type(ln.body) is asm_fast.FastDirective:
                    if not self.fast_directive(ln.body, ln.n):  # the parser path words the problem
                        ln = _Line(ln.n, ln.lineno, ln.lineno_col, ln.label,
                                   _parts(_parser().parse(ln.body.text))[3])
                        self.directive(ln)
                elif getattr(ln.body, "data", None) == "directive":
                    self.directive(ln)
                elif is_instr:
                    instr_lines.append(ln)
                    for name, _, _ in pending:
                        labels[name] = len(instr_lines)
                    pending.clear()
            except Bad as b:
                if getattr(ln.body, "data", None) == "directive":
                    name = str(ln.body.children[1])
                    if name not in self.decls and name not in self.params:
                        self.broken.add(name)
                self.error(ln.n, b.col, b.message, b.end_col, b.hint)
        for name in self.defines:
            if name not in self.params:
                self.diags.append(Diagnostic(f"-D {name}: this program has no .param '{name}'",
                                             hint=did_you_mean(name, self.params), file=self.src.name))
        for name, col, n in pending:
            self.error(n, col, f"label '{name}' does not mark an instruction", col + len(name),
                       "put an instruction (END, say) after it")

        def number_of(t, n: int) -> int:
            v = expr(t, self.params, self.src.name)
            col, end = span(t)
            if isinstance(v, Affine) and v.is_const:
                return v.const
            if isinstance(v, Affine) and len(v.terms) == 1 and v.const == 0 and v.terms[0][1] == 1:
                name = v.terms[0][0]
                if name in labels:
                    return labels[name]
                raise Bad(f"no label '{name}' in this program", col, end, did_you_mean(name, labels))
            raise Bad("a branch target is a line number or a label", col, end)

        instrs = []
        fast = asm_fast.Builder(self.src, self.params)
        for k, ln in enumerate(instr_lines, 1):
            if ln.body is _UNPARSED:
                continue
            try:
                if isinstance(ln.body, asm_fast.FastLine):
                    try:
                        instrs.append(fast.instruction(ln.body, ln.n, labels))
                        continue
                    except asm_fast.Unrecognised:  # let the parser path find and word the problem
                        ln = _Line(ln.n, ln.lineno, ln.lineno_col, ln.label,
                                   _parts(_parser().parse(ln.body.text))[3])
                instrs.append(self.instruction(ln, number_of, k))
            except Bad as b:
                self.error(ln.n, b.col, b.message, b.end_col, b.hint)
        if self.broken:  # do not report every use of a name whose declaration was bad
            instrs = [i for i in instrs if not self.broken.intersection(_names_used(i))]
        decls = self._infer_scalars(instrs)
        if len(instrs) == len(instr_lines):
            self.diags.extend(check_program(decls, instrs, self.src.diag))
        else:  # still check the lines that did build, so every independent error is reported
            self.diags.extend(d for d in check_program(decls, instrs, self.src.diag)
                              if "target" not in d.message)
        if self.diags:
            self.diags.sort(key=lambda d: (d.loc.line, d.loc.col) if d.loc else (0, 0))
            raise DiagnosticError(self.diags)
        label_list = tuple(sorted(labels.items(), key=lambda kv: kv[1])) if not numbered else ()
        return Program(tuple(decls.values()), tuple(instrs), label_list, self.src.name)

    def _check_style(self, ln: _Line, numbered: bool, expect: int, is_instr: bool) -> None:
        if ln.label is not None and numbered:
            name, col = ln.label
            raise Bad("this program numbers its lines, so it cannot also use labels", col,
                       col + len(name), "use one style: line numbers or labels")
        if ln.lineno is not None and not numbered:
            raise Bad("this program uses labels, so its lines cannot be numbered", ln.lineno_col,
                       hint="use one style: line numbers or labels")
        if numbered and is_instr and ln.lineno != expect:
            col = ln.lineno_col if ln.lineno is not None else span(ln.body)[0]
            found = f"found {ln.lineno}" if ln.lineno is not None else "the line has none"
            raise Bad(f"expected instruction number {expect}, {found}", col,
                       hint="number the instructions 1, 2, 3, ... in order")
        if ln.lineno is not None and not is_instr:
            raise Bad("only instructions are numbered", ln.lineno_col)

    def _infer_scalars(self, instrs: list[Instr]) -> dict[str, Decl]:
        """Declare undeclared scalars with the types :func:`infer_scalar_types` gives them."""
        decls = dict(self.decls)
        types = infer_scalar_types(instrs, {n: d.dtype for n, d in decls.items()})
        first: dict[str, Loc | None] = {}
        for ins in instrs:
            for o in (ins.dest, ins.src):
                if isinstance(o, Ref):
                    for name in ((o.name,) if not o.index else ()) + o.names_read:
                        first.setdefault(name, o.loc or ins.loc)
        for name, dt in types.items():
            decls[name] = Decl(name, "var", dt, (), 0 if dt == "i64" else 0.0, implicit=True,
                               loc=first[name])
        return decls


def assemble(source: Source, defines: dict[str, int] | None = None) -> Program:
    """Assemble INCA-A text; ``defines`` override ``.param`` values (``-D NAME=V``).

    A whole program has at least one instruction (the REPL's :class:`Assembler` reads fragments,
    which need not)."""
    prog = Assembler(source, defines).run()
    if not prog.instrs:
        raise DiagnosticError([Diagnostic("the program has no instructions", hint="a program ends "
                                          "with END, its last instruction", file=source.name)])
    return prog


def assemble_text(text: str, name: str = "<input>", defines: dict[str, int] | None = None) -> Program:
    """Convenience wrapper: assemble a string."""
    return assemble(Source(name, text), defines)
