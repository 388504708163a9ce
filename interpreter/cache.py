"""The study cache: finished cells on disk, so a rerun or a grown study computes only new cells.

Three kinds of entry, each one JSON file written atomically (a temporary file, then
``os.replace``), so an interrupted study loses no finished entry and never leaves half a file:

* ``compile/<key>.json``: what a kernel compiles to. The key hashes the kernel's text, the texts
  of the ``.incaq`` files beside it (modules it may ``use``), the compile options and the
  toolchain; the entry holds the hash of the tuple program's canonical JSON bytes.
* ``report/<key>.json``: the text of a whole report (:func:`~.study.report_key` says what the key
  hashes), so an unchanged study is printed without making its rows again.
* ``run/<key>.json``: one execution and its priced cells. The key hashes the tuple program's
  bytes, the input seed and the step budget; the entry holds the run's tally
  (:class:`~inca.interpreter.loader.Tally`) and the statistics under every profile priced so
  far, keyed by a hash of the profile's memory kind and exact parameters.

The toolchain is the version and a hash of the installed package's sources, recorded in every
entry, so an edited checkout never reads entries an older model wrote. An entry also carries its
own key, and its body as JSON text with the hash of that text (checked without encoding the
body again): a corrupt, truncated or foreign file is ignored and recomputed, never trusted (the
cache is a memo, not a security boundary: anyone who can write the folder can write a consistent
entry).
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from fractions import Fraction
from functools import lru_cache
from pathlib import Path

from ..lang import __version__
from ..lang.isa import OpClass
from .objcache import cache_root

FORMAT = "incac-study-cache/2"


def default_dir() -> Path:
    """``$XDG_CACHE_HOME/incac``, else ``~/.cache/incac`` (:func:`.objcache.cache_root`)."""
    return Path(cache_root())


@lru_cache(maxsize=1)
def toolchain() -> str:
    """The version and a hash of every source file of the installed toolchain (walked with
    os.walk rather than pathlib: a cached study reads it at every start)."""
    h = hashlib.sha256(__version__.encode())
    for package in ("lang", "compiler", "interpreter", "stdlib"):
        root = os.path.dirname(__import__(f"inca.{package}", fromlist=["x"]).__file__)
        base = os.path.dirname(root)
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(files):
                if name.endswith((".py", ".lark", ".incaq")):
                    path = os.path.join(folder, name)
                    with open(path, "rb") as f:
                        data = f.read()
                    rel = os.path.relpath(path, base).replace(os.sep, "/")
                    h.update(rel.encode() + b"\0" + data)
    return f"{__version__}+{h.hexdigest()[:16]}"


def digest(*parts: object) -> str:
    """A stable hash of JSON-able parts."""
    return hashlib.sha256(json.dumps(parts, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _text_hash(text) -> str:
    """The hash of an entry's body text (TypeError when it is not text)."""
    if not isinstance(text, str):
        raise TypeError("an entry's body is JSON text")
    return hashlib.sha256(text.encode()).hexdigest()


def profile_key(memory: str, params: tuple[tuple[str, Fraction], ...]) -> str:
    return digest(memory, [(k, f"{v.numerator}/{v.denominator}") for k, v in params])[:32]


class Cache:
    """Entries under ``folder`` (created on the first write)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def _path(self, kind: str, key: str) -> Path:
        return self.folder / kind / f"{key}.json"

    def read(self, kind: str, key: str) -> dict | None:
        """The body of an entry, or None when it is missing, corrupt or not this key's."""
        try:
            doc = json.loads(self._path(kind, key).read_text(encoding="utf-8"))
            text = doc["body"]
            if (doc["format"], doc["kind"], doc["key"], doc["toolchain"]) != (
                    FORMAT, kind, key, toolchain()) or doc["check"] != _text_hash(text):
                return None
            body = json.loads(text)
            return body if isinstance(body, dict) else None
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            return None

    def write(self, kind: str, key: str, body: dict) -> None:
        """Replace an entry atomically; a cache that cannot be written is only a slower study."""
        text = json.dumps(body, separators=(",", ":"))
        doc = {"format": FORMAT, "kind": kind, "key": key, "toolchain": toolchain(),
               "check": _text_hash(text), "body": text}
        path = self._path(kind, key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(doc, f, separators=(",", ":"))
                os.replace(tmp, path)
            except BaseException:
                os.unlink(tmp)
                raise
        except OSError:
            pass


# ---- the values stored: tallies and priced cells as plain JSON ----------------------------------

def tally_body(t) -> dict:
    return {"source": t.source, "data_bytes": t.data_bytes,
            "groups": [[c.name, imm, n, fires] for c, imm, n, fires in t.groups]}


def tally_from(body: dict):
    """A Tally from its stored form; ValueError/KeyError/TypeError on anything malformed."""
    from .pricing import Tally

    groups = []
    for name, imm, n, fires in body["groups"]:
        cls = OpClass[name]
        if (not cls.counted or type(imm) is not bool or not (n is None or type(n) is int and n >= 0)
                or type(fires) is not int or fires <= 0):
            raise ValueError("malformed tally")
        groups.append((cls, imm, n, fires))
    if type(body["data_bytes"]) is not int or not isinstance(body["source"], str):
        raise ValueError("malformed tally")
    return Tally(body["source"], body["data_bytes"], tuple(groups))


def priced_from(cell: list) -> tuple[int, int, int]:
    """(instructions, time_ns numerator, denominator) of a stored cell."""
    count, num, den = cell
    if type(count) is not int or type(num) is not int or type(den) is not int or den <= 0:
        raise ValueError("malformed cell")
    return count, num, den
