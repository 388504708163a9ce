"""Deterministic mutations of the five kinds of input: program text, tuple JSON, REPL scripts
and command lines.

Every function takes a ``random.Random`` and nothing else that varies, so an input is a pure
function of the generator's seed. Sizes are capped (``MAX_BYTES``) so that no mutation by itself
makes an input too large to run quickly; "huge" values are huge in magnitude or digits, which is
what the tools must bound, not in megabytes.
"""
from __future__ import annotations

import json
import random
import re
from typing import Any, Callable

MAX_BYTES = 64 * 1024
# Numbers that probe the bounded number parsers, the i64/f64 edges and the lexers.
NUMBERS = (
    "0", "-0", "1", "-1", "7", "255", "9223372036854775807", "9223372036854775808",
    "-9223372036854775808", "-9223372036854775809", "18446744073709551616", "1" + "0" * 64,
    "1" + "0" * 5000, "1e999", "-1e999", "1e308", "1.7976931348623157e308", "4.9e-324", "1e-400",
    "1e1000000", "1e9999999", "0.5", "-0.0", "2.5", "1.", ".5", "1e", "1e+", "0x", "0x10",
    "0x" + "f" * 40, "0b101", "0b", "0o17", "1_000", "00000000008", "nan", "inf", "-inf", "NaN",
    "Infinity", "1/3", "1/0", "0/0", "\u0663", "\u00b2", "\uff11", "+1", "--1", "1e-5", "3.14e2",
)
KEYWORDS = (
    "input", "output", "inout", "var", "param", "func", "return", "use", "while", "for", "in",
    "do", "if", "then", "else", "and", "or", "not", "i64", "f64", "PAYLOAD", "N", "A", "B", "c",
    "i", "k", "r0", "END", "PUTL", "ADD", "SUB", "MUL", "DIV", "MOD", "BLEZ", "JMP", "LT", "MAX",
    ".input", ".output", ".inout", ".var", ".param", "start", "_", "x" * 300, "\u00e9t\u00e9",
    "f64[4][4]", "i64[0]", "f64[-1]", "i64[" + "9" * 30 + "]",
)
# Characters that matter to lexers, block structure, decoders and terminals.
CHARS = ("{", "}", "[", "]", "(", ")", ",", ":", ";", "#", "=", "..", "\n", "\r", "\t", "\0",
         "\ufeff", "\u2028", "\u00e9", "\U0001f600", "\x1b[2J", "\\", '"', "'", " " * 200, "@")
_TOKEN = re.compile(r"[0-9][\w.]*(?:[eE][+-]?\d+)?|[A-Za-z_.][\w.]*")
_NUMBER = re.compile(r"-?[0-9][\w.]*(?:[eE][+-]?\d+)?")


def pick_number(rng: random.Random) -> str:
    """An interesting number, sometimes a random one."""
    if rng.random() < 0.2:
        return str(rng.randint(-2**70, 2**70)) if rng.random() < 0.5 else repr(rng.uniform(-1e6, 1e6))
    return rng.choice(NUMBERS)


# ---- text ----------------------------------------------------------------------------------

def _span(rng: random.Random, n: int) -> tuple[int, int]:
    a = rng.randrange(n + 1)
    return a, min(n, a + rng.choice((1, 1, 2, 4, 16, 64, 512)))


def byte_mutation(rng: random.Random, data: bytes, others: list[bytes]) -> bytes:
    """One byte-level change: flip, insert, delete, duplicate a span, or splice with another."""
    op = rng.randrange(7)
    a, b = _span(rng, len(data))
    if op == 0 and data:
        i = rng.randrange(len(data))
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
    if op == 1:
        ins = rng.choice(CHARS).encode("utf-8") if rng.random() < 0.7 else bytes(
            rng.randrange(256) for _ in range(rng.randint(1, 8)))
        return data[:a] + ins + data[a:]
    if op == 2:
        return data[:a] + data[b:]
    if op == 3:
        return data[:b] + data[a:b] * rng.choice((1, 2, 8, 100)) + data[b:]
    if op == 4 and others:
        other = rng.choice(others)
        return data[:a] + other[rng.randrange(len(other) + 1):]
    if op == 5:
        return data[:a]
    return data[:a] + bytes([0xff, 0xfe, 0xc3, 0x80, 0xed, 0xa0][rng.randrange(6):]) + data[a:]


def token_mutation(rng: random.Random, text: str) -> str:
    """One token- or line-level change of source text."""
    op = rng.randrange(8)
    tokens = list(_TOKEN.finditer(text))
    if op <= 1 and tokens:  # a number swapped for an extreme one, or any token for a number
        numbers = [m for m in tokens if _NUMBER.fullmatch(m.group())] or tokens
        m = rng.choice(numbers if op == 0 else tokens)
        return text[:m.start()] + pick_number(rng) + text[m.end():]
    if op == 2 and tokens:  # an identifier swapped for another of the file's or a keyword
        m = rng.choice(tokens)
        new = rng.choice(tokens).group() if rng.random() < 0.5 else rng.choice(KEYWORDS)
        return text[:m.start()] + new + text[m.end():]
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    if op == 3:
        lines[i:i] = [lines[rng.randrange(len(lines))]] * rng.choice((1, 1, 2, 50))
    elif op == 4:
        del lines[i]
    elif op == 5:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 6:  # braces and brackets dropped, or one kind swapped for another
        lines[i] = re.sub(r"[{}\[\]()]", lambda m: rng.choice(("", m.group(), "{", ")", "]")), lines[i])
    else:  # deep nesting inside an expression or a block
        n = rng.choice((10, 100, 1000, 5000))
        lines[i] = lines[i] + rng.choice((" (" * n + "1" + ")" * n, " {" * n + "}" * n, "[0]" * n,
                                          " -" * n + "1", " not" * n + " 1"))
    return "\n".join(lines)


def mutate_text(rng: random.Random, data: bytes, others: list[bytes]) -> bytes:
    """One to four stacked mutations of a text file, capped at MAX_BYTES."""
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        if rng.random() < 0.5:
            data = byte_mutation(rng, data, others)
        else:
            text = data.decode("utf-8", "surrogateescape")
            data = token_mutation(rng, text).encode("utf-8", "surrogateescape")
        data = data[:MAX_BYTES]
    return data


# ---- JSON ----------------------------------------------------------------------------------

_DEEP = "\u0000deep\u0000"  # a marker replaced by deep nesting after serialising


def _strange(rng: random.Random, old: Any) -> Any:
    """A value of another type, or an extreme one of the same type."""
    choices: list[Callable[[], Any]] = [
        lambda: [old], lambda: {"x": old}, lambda: str(old), lambda: rng.choice((True, False)),
        lambda: None, lambda: rng.choice((0, -1, 1, 2**63, -2**63 - 1, 10**30, 10**400)),
        lambda: rng.choice((0.5, -0.0, 1e308, float("nan"), float("inf"), float("-inf"))),
        lambda: rng.choice(("", "x", "f64", "i64", "pc", "PUTL", "\u00e9", "x" * 10000)),
        lambda: [], lambda: {}, lambda: _DEEP, lambda: [old, old],
    ]
    return rng.choice(choices)()


def _nodes(doc: Any, path: tuple = ()) -> list[tuple]:
    """Every path into the document (keys and indices)."""
    out = [path]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out += _nodes(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out += _nodes(v, path + (i,))
    return out


def json_mutation(rng: random.Random, doc: Any) -> Any:
    """One structural change: a node's type or value, a key removed or added, an element
    removed or duplicated. The root may be replaced too."""
    path = rng.choice(_nodes(doc))
    if not path:
        return _strange(rng, doc)
    parent = doc
    for step in path[:-1]:
        parent = parent[step]
    key = path[-1]
    op = rng.randrange(4)
    if op == 0 and isinstance(parent, dict):
        del parent[key]
    elif op == 1 and isinstance(parent, dict):
        parent[rng.choice(("extra", "k", "op", "name", "shape", key + "_"))] = _strange(rng, parent[key])
    elif op == 2 and isinstance(parent, list):
        parent.insert(key, parent[key]) if rng.random() < 0.5 else parent.pop(key)
    else:
        parent[key] = _strange(rng, parent[key])
    return doc


def mutate_json(rng: random.Random, data: bytes, others: list[bytes]) -> bytes:
    """Structural mutations of a tuple program, then sometimes a textual one on top."""
    doc = json.loads(data)
    for _ in range(rng.choice((1, 1, 2, 3))):
        doc = json_mutation(rng, doc)
    depth = rng.choice((100, 1000, 100000))
    text = json.dumps(doc, indent=rng.choice((None, 1))).replace(
        json.dumps(_DEEP), "[" * depth + "]" * depth)
    out = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.3:
        out = mutate_text(rng, out, others)
    return out[:MAX_BYTES * 4]


# ---- REPL scripts --------------------------------------------------------------------------

def mutate_script(rng: random.Random, lines: list[str], pool: list[str]) -> list[str]:
    """Line-level changes (insert a command from the pool, drop, duplicate, swap) and text
    mutations of single lines."""
    lines = list(lines)
    for _ in range(rng.choice((1, 2, 3, 5))):
        op = rng.randrange(5)
        i = rng.randrange(len(lines) + 1)
        if op == 0 or not lines:
            lines.insert(i, rng.choice(pool))
        elif op == 1:
            del lines[min(i, len(lines) - 1)]
        elif op == 2:
            j = rng.randrange(len(lines))
            lines.insert(i, lines[j])
        elif op == 3:
            j, k = rng.randrange(len(lines)), rng.randrange(len(lines))
            lines[j], lines[k] = lines[k], lines[j]
        else:
            j = rng.randrange(len(lines))
            data = mutate_text(rng, lines[j].encode("utf-8", "surrogateescape"), [])
            lines[j:j + 1] = data.decode("utf-8", "replace").split("\n")
    return lines[:400]


# ---- command lines -------------------------------------------------------------------------

def mutate_argv(rng: random.Random, argv: list[str], options: list[str],
                values: Callable[[random.Random], str]) -> list[str]:
    """Options dropped, duplicated, swapped or added (from ``options``), values replaced
    (from ``values``), tokens mutated, sometimes joined as ``--opt=value``."""
    argv = list(argv)
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        op = rng.randrange(7)
        i = rng.randrange(len(argv) + 1)
        if op == 0 and argv:
            del argv[min(i, len(argv) - 1)]
        elif op == 1 and argv:
            argv.insert(i, argv[rng.randrange(len(argv))])
        elif op == 2:
            argv[i:i] = [rng.choice(options), values(rng)]
        elif op == 3:
            argv.insert(i, rng.choice(options))
        elif op == 4 and argv:
            argv[min(i, len(argv) - 1)] = values(rng)
        elif op == 5 and argv:
            j = min(i, len(argv) - 1)
            argv[j] = mutate_text(rng, argv[j].encode("utf-8", "surrogateescape"), []).decode(
                "utf-8", "surrogateescape")[:5000]
        elif op == 6 and len(argv) > 1:
            j = rng.randrange(len(argv) - 1)
            if argv[j].startswith("--"):
                argv[j:j + 2] = [argv[j] + "=" + argv[j + 1]]
    return [a.replace("\0", "") for a in argv]  # no process can be given a NUL in its argv
