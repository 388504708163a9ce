"""Host-side input values: ``--input NAME=1,2,3``, ``NAME=@file.json``, and seeded random fill."""
from __future__ import annotations

import math
import random
import sys
from array import array
from itertools import chain, compress, repeat

from ..lang.diagnostics import Diagnostic, DiagnosticError, did_you_mean
from ..lang.isa import I64_MAX, I64_MIN
from ..lang.numbers import NumberError, checked_float, parse_float, parse_int
from ..lang.program import Decl, format_value
from ..lang.tuples import TupleProgram, json_value
from ..lang.userfiles import load_json

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (2 ms of every start)
if TYPE_CHECKING:
    from .profiles import Profile

# The model keeps every element in a Python list; beyond this much modeled data (host memory
# has no capacity in the model) the simulation itself would exhaust the machine.
SIMULATION_LIMIT = 1 << 30
# A JSON input file may spend this many bytes per element (pretty-printed nested lists of
# shortest-round-trip doubles need about 30), and at least JSON_MIN_BYTES whatever its size.
JSON_BYTES_PER_ELEMENT = 64
JSON_MIN_BYTES = 1 << 20


def data_bytes(tp: TupleProgram) -> int:
    """Bytes of the program's data, from its declarations alone (a view adds nothing)."""
    return sum(b.nbytes for b in tp.buffers if b.alias is None)


def check_footprint(tp: TupleProgram, profile: "Profile | None" = None) -> None:
    """Refuse a program whose data the model cannot hold, before any input is generated or any
    buffer allocated: more than :data:`SIMULATION_LIMIT` bytes, or more than the profile's
    scratchpad. ``inca run``, ``inca report``, the REPL's ``:load`` and every install call this
    first; sizes come from the declarations alone, so the check costs nothing."""
    check_data(tp.source or "inca", data_bytes(tp), profile)


def check_data(source: str, need: int, profile: "Profile | None" = None) -> None:
    """:func:`check_footprint` from the data size alone (pricing a recorded run checks the same)."""
    if need > SIMULATION_LIMIT:
        raise DiagnosticError([Diagnostic(
            f"the program's data needs {need} bytes; the reference model simulates at most "
            f"{SIMULATION_LIMIT} bytes (1 GiB)", None, "use a smaller payload", file=source)])
    capacity = profile.capacity if profile is not None else None
    if capacity is not None and need > capacity:
        raise DiagnosticError([Diagnostic(
            f"the program's data needs {need} bytes but the scratchpad of profile "
            f"'{profile.name}' holds {capacity} bytes", None, "use a smaller payload, a profile "
            "with a larger scratchpad_bytes, or the base profile (data in host memory)",
            file=source)])


def _fail(message: str, hint: str | None = None) -> DiagnosticError:
    return DiagnosticError([Diagnostic(message, hint=hint, file="--input")])


def _scalar(text, dtype: str, name: str) -> int | float:
    """One element: a JSON number (already bounded by the JSON reader) or text, which goes
    through the bounded number parser: no 4,300-digit ValueError, no silent ``inf`` from 1e400
    (explicit ``inf`` and ``nan`` are values an f64 may hold)."""
    if isinstance(text, bool) or not isinstance(text, (int, float, str)):
        raise _fail(f"{name}: {text!r} is not a number")
    try:
        if isinstance(text, str):
            body = text.strip().lstrip("+-")
            written_as_int = body.isdigit() or body[:2].lower() in ("0x", "0b", "0o")
            if dtype == "i64":
                try:
                    value = parse_int(text, "integer")
                except NumberError:
                    if written_as_int:  # too many digits, or a bad digit: the parser says which
                        raise
                    parse_float(text, "value", allow_special=True)  # not even a number: say that
                    raise _fail(f"{name} is i64 but {text.strip()!r} is not an integer") from None
            elif written_as_int and not body.isdigit():
                value = parse_int(text, "integer")
            else:  # decimal integers too: float("123") rounds exactly as float(123) does
                value = parse_float(text, "value", allow_special=True)
        else:
            value = text
        if dtype == "i64":
            if isinstance(value, float):
                raise _fail(f"{name} is i64 but {text!r} is not an integer")
            if not I64_MIN <= value <= I64_MAX:
                raise _fail(f"{name}: {value} does not fit in i64")
            return value
        return checked_float(value, "value")
    except NumberError as e:
        raise _fail(f"{name}: {e}") from None


def _flatten(value, shape: tuple[int, ...], name: str, top: bool = True) -> list:
    if not shape:
        if isinstance(value, list):
            raise _fail(f"{name} is a scalar, but a list was given")
        return [value]
    if not isinstance(value, list):
        raise _fail(f"{name} has shape {list(shape)}, but a single value was given")
    if all(not isinstance(v, list) for v in value) and (top or len(value) == math.prod(shape)):
        return value  # a flat row-major list is accepted for any shape; the caller checks its length
    if len(value) != shape[0]:
        raise _fail(f"{name} has shape {list(shape)}, but {len(value)} values were given",
                    f"give {math.prod(shape)} values (row-major) or a nested list")
    out = []
    for row in value:
        out.extend(_flatten(row, shape[1:], name, top=False))
    return out


def parse_input(arg: str, decls: dict[str, Decl]) -> tuple[str, list]:
    """Parse one ``NAME=VALUES`` argument against the program's declarations."""
    name, sep, rhs = arg.partition("=")
    name = name.strip()
    if not sep:
        raise _fail(f"expected NAME=VALUES, not {arg!r}", "e.g. --input A=1,2,3 or --input A=@a.json")
    decl = decls.get(name)
    settable = [d.name for d in decls.values() if d.role in ("input", "inout")]
    if decl is None or decl.role not in ("input", "inout"):
        what = "is not an input of this program" if decl is None else f"is declared {decl.role}"
        raise _fail(f"'{name}' {what}", did_you_mean(name, settable) or
                    ("inputs: " + ", ".join(settable) if settable else "this program has no inputs"))
    if rhs.startswith("@"):
        value = load_json(rhs[1:], max(JSON_MIN_BYTES, JSON_BYTES_PER_ELEMENT * decl.size))
    elif decl.shape:
        value = [v for v in rhs.split(",")] if rhs.strip() else []
    else:
        value = rhs
    flat = _flatten(value, decl.shape, name)
    if len(flat) != decl.size:
        raise _fail(f"{name} holds {decl.size} elements, but {len(flat)} were given")
    return name, [_scalar(v, decl.dtype, name) for v in flat]


def seeded_values(decl: Decl, seed: int) -> list:
    """Deterministic pseudo-random values for an input: i64 in [-100, 100]; f64 multiples of
    1/64 in [-8, 8), which keep small sums and products exact so results are easy to check.

    They are the values ``random.Random(f"{seed}:{name}")`` gives by ``randint(-100, 100)`` or
    ``randint(-512, 511) / 64`` one after another (a test keeps them equal), drawn a block at a
    time: calling randint was most of the time ``inca run`` took to make a large input."""
    rng = random.Random(f"{seed}:{decl.name}")
    take = _SEEDED.get(decl.dtype)
    if take is None:  # (its tables are made once a process, not once an input)
        values = range(-100, 101) if decl.dtype == "i64" else [r / 64 for r in range(-512, 512)]
        take = _SEEDED[decl.dtype] = _taker(values)
    return _uniform(rng, decl.size, take)


_SEEDED: dict = {}  # dtype -> the _taker of its seeded values


def _uniform(rng: random.Random, count: int, take) -> list:
    """``count`` draws from the values of ``take`` (a :func:`_taker`) as ``rng.choice`` or
    ``randint`` makes them: each is ``values[r]`` for the top k bits r of the generator's next
    32-bit word (k the bit length of the number of values), words whose r is out of range
    skipped. The words come from one ``getrandbits`` call per block, the first word in the
    lowest bits."""
    out: list = []
    while len(out) < count:
        block = 2 * (count - len(out)) + 16  # at least half the words are kept
        out += take(rng.getrandbits(32 * block).to_bytes(4 * block, "little"))
    del out[count:]  # (the generator is this input's own: the words drawn past it are not used)
    return out


def _taker(values):
    """The draws of one block's bytes (words little-endian) as a list, from ``values`` (fewer
    than 2**32 of them).

    The seeded inputs' k (8 and 11) make r of a word's high byte alone, or of its two high bytes,
    and a word is kept or not by its high byte: there the kept words are picked out and mapped
    through a table at C speed (``translate``, ``compress``, ``map``; a word made an int and
    shifted cost most of ``inca run``'s making of a large input, and mapping every word before
    dropping the refused ones half of what was left); any other k takes each word as an int."""
    n = len(values)
    k = n.bit_length()
    if k <= 8:
        drop = 8 - k
        picks = [values[b >> drop] if b >> drop < n else None for b in range(256)]
        kept = bytes(b >> drop < n for b in range(256))

        def by_byte(data: bytes) -> list:
            high = data[3::4]
            return list(map(picks.__getitem__, compress(high, high.translate(kept))))
        return by_byte
    low = k - 8  # the bits of r below the high byte's
    if k <= 16 and n % (1 << low) == 0:
        # a word's two high bytes (a number below 2**16) -> values[r]: each value 2**(16-k) times
        table = list(chain.from_iterable(map(repeat, values, repeat(1 << (16 - k)))))
        kept = bytes(b < n >> low for b in range(256))

        def by_half_word(data: bytes) -> list:
            halves = array("H", data)
            if sys.byteorder == "big":
                halves.byteswap()
            return list(map(table.__getitem__, compress(halves[1::2], data[3::4].translate(kept))))
        return by_half_word
    shift = 32 - k

    def by_word(data: bytes) -> list:
        words = array(_WORD, data)
        if sys.byteorder == "big":
            words.byteswap()
        return [values[r] for r in [w >> shift for w in words] if r < n]
    return by_word


_WORD = next(code for code in "IL" if array(code).itemsize == 4)


def gather_inputs(decls: dict[str, Decl], args: list[str], seed: int | None) -> dict[str, list]:
    """Inputs from ``--input`` arguments, then for every input not given its declared default, else
    (with a seed) seeded values.

    Callers first pass the program through :func:`check_footprint`, which bounds what is made here.
    """
    values: dict[str, list] = {}
    for arg in args:
        name, flat = parse_input(arg, decls)
        values[name] = flat
    # a view shares its storage: what the host gives through one name must not be overwritten by
    # a default or seed written through another, and each storage is made up once
    storage = {d.name: d.alias or d.name for d in decls.values()}
    given = {storage[n] for n in values if n in storage}
    for d in decls.values():
        if d.role not in ("input", "inout") or d.name in values or storage[d.name] in given:
            continue
        given.add(storage[d.name])
        if d.default is not None:  # a declared default wins over a seed: it is part of the kernel
            values[d.name] = [d.default] * d.size
        elif seed is not None:
            values[d.name] = seeded_values(d, seed)
    return values


def nest(flat: list, shape: tuple[int, ...]) -> list:
    """A flat row-major list as nested lists of ``shape``."""
    if len(shape) <= 1:
        return list(flat)
    step = math.prod(shape[1:])
    return [nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def to_json_data(value, shape: tuple[int, ...]):
    """A value for JSON output: nested lists, non-finite floats as strings."""
    if not shape:
        return json_value(value)
    return nest([json_value(v) for v in value], shape)


def to_text(value, shape: tuple[int, ...], dtype: str, limit: int = 8) -> str:
    """A short human form: scalars in full, arrays up to ``limit`` elements."""
    if not shape:
        return format_value(value, dtype)
    head = ", ".join(format_value(v, dtype) for v in value[:limit])
    more = f", ... ({len(value)} elements)" if len(value) > limit else ""
    return f"[{head}{more}]"
