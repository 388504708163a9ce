"""The llvm engine's machine code on disk: a program run again in a new process is loaded by
:mod:`.elfload` without importing llvmlite or compiling anything (about 45 ms of an ``inca run``
of matrix multiplication; docs/engines.md, "The object cache").

One file per compiled function, ``<key>.o`` in the folder ``$INCA_OBJECT_CACHE``, else
``objects`` in the cache folder (``$XDG_CACHE_HOME/incac``, else ``~/.cache/incac``; ``inca report
--cache DIR`` uses ``DIR/objects``, and child processes inherit it through the variable): a header
line with the format, the key and the BLAKE2b hash of the object code, then the object code LLVM
produced. The key hashes the LLVM IR, the optimisation level and tier, this machine's CPU (its
identity and feature flags as Linux reports them: a cache folder shared by machines of another CPU
never hands them code they cannot run) and the installed LLVM (the llvmlite library's size and
time stamp). A file whose header does not match, or whose code does not hash to it, is ignored;
files are replaced atomically; past :data:`MAX_ENTRIES`, the least recently used go. The cache is
a memo, not a security boundary: anyone who can write the folder can run code as its user.

Beside the objects, ``<fingerprint>.run`` marks a program whose run under ``--engine auto`` went on
to the llvm engine (:func:`mark`): auto's next run of it looks for the code early instead of
after the reference's budget (:mod:`.selection`).

Only x86-64 Linux, where the loader works; elsewhere, or with ``INCA_OBJECT_CACHE=off`` in the
environment (``inca report --no-cache`` sets it for its own run), every run compiles.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from functools import lru_cache

from . import llvmcapi

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing
if TYPE_CHECKING:
    from .elfload import Image

try:  # CPython's own BLAKE2 (hashlib would load OpenSSL first: 2 ms of every run that looks up)
    from _blake2 import blake2b
except ImportError:
    from hashlib import blake2b

FORMAT = "incac-object/1"
#: Entries kept at most (an entry is one function's code: 1.6 KB for matrix multiplication, tens
#: of KB for long straight-line kernels), the least recently used removed first.
MAX_ENTRIES = 2000
#: What the lookups of this process found, for tests: hits, misses, stores.
stats = {"hits": 0, "misses": 0, "stores": 0}
#: The environment variable that moves the cache (a folder) or turns it off ("off").
VARIABLE = "INCA_OBJECT_CACHE"
_OFF = ("off", "0", "no", "false")


@contextmanager
def setting(value: str | None):
    """``INCA_OBJECT_CACHE`` set to ``value`` (a folder, or "off") inside the block, for this
    process and the workers it starts; None leaves it as it is."""
    if value is None:
        yield
        return
    was = os.environ.get(VARIABLE)
    os.environ[VARIABLE] = value
    try:
        yield
    finally:
        if was is None:
            del os.environ[VARIABLE]
        else:
            os.environ[VARIABLE] = was


def cache_root() -> str:
    """The toolchain's cache folder, ``$XDG_CACHE_HOME/incac``, else ``~/.cache/incac`` (the
    study cache's default too, :func:`.cache.default_dir`; defined here, where a run that only
    looks up machine code need not import the study cache's modules)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "incac")


def folder() -> str:
    """Where objects are kept: ``$INCA_OBJECT_CACHE``, else ``objects`` in the cache folder."""
    return os.environ.get(VARIABLE) or os.path.join(cache_root(), "objects")


def enabled() -> bool:
    """Whether lookups and stores happen (the platform, llvmlite, the environment)."""
    if os.environ.get(VARIABLE, "").lower() in _OFF:
        return False
    return host() is not None


@lru_cache(maxsize=1)
def host() -> str | None:
    """This machine's CPU and installed LLVM as text for the key; None where the cache is not
    used (not x86-64 Linux, no llvmlite, no CPU description)."""
    if not llvmcapi.elf_host():
        return None
    path = llvmcapi.library()
    cpu = _cpu()
    if path is None or cpu is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return f"{cpu}\n{os.path.basename(path)} {st.st_size} {st.st_mtime_ns}"


def _cpu() -> str | None:
    """The first processor's identity and flags from /proc/cpuinfo (not its clock, which varies)."""
    wanted = ("vendor_id", "cpu family", "model", "model name", "stepping", "flags")
    fields = []
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break
                name, _, value = line.partition(":")
                if name.strip() in wanted:
                    fields.append(f"{name.strip()}={value.strip()}")
    except OSError:
        return None
    return "\n".join(fields) if any(f.startswith("flags=") for f in fields) else None


def key(ir: str, level: int, full: bool) -> str:
    h = blake2b(f"{FORMAT}\n{host()}\n{level} {int(full)}\n".encode(), digest_size=32)
    h.update(ir.encode())
    return h.hexdigest()


def digest(data: bytes) -> str:
    """The cache's hash of some bytes (an object's check, a program's fingerprint), as hex."""
    return blake2b(data, digest_size=32).hexdigest()


def _path(k: str) -> str:
    return os.path.join(folder(), f"{k}.o")


def has(ir: str, level: int, full: bool) -> bool:
    """Whether an entry is there (not read or checked: :func:`lookup` does that)."""
    return enabled() and os.path.exists(_path(key(ir, level, full)))


def lookup(ir: str, level: int, full: bool) -> Image | None:
    """The stored code of this function, loaded; None when there is none or it cannot be used."""
    if not enabled():
        return None
    k = key(ir, level, full)
    try:
        with open(_path(k), "rb") as f:
            data = f.read()
    except OSError:
        stats["misses"] += 1
        return None
    from . import elfload  # (with ctypes: only when there is something to load)

    head, _, obj = data.partition(b"\n")
    if head != f"{FORMAT} {k} {digest(obj)}".encode():
        stats["misses"] += 1
        return None
    try:
        image = elfload.load(obj)
    except (elfload.Unloadable, OSError):  # (OSError: no memory could be mapped)
        stats["misses"] += 1
        return None
    stats["hits"] += 1
    try:  # used now: the last to go when the folder is trimmed
        os.utime(_path(k))
    except OSError:
        pass
    return image


def store(ir: str, level: int, full: bool, obj: bytes, name: str, placed: bool = False) -> None:
    """Keep the object code of a function just compiled, if the loader can place it and it
    defines ``name`` (``placed``: the loader did already; a cache that cannot be written only
    means compiling again)."""
    if not enabled():
        return
    if not placed:
        from . import elfload

        try:
            elfload.load(obj).address(name)
        except (elfload.Unloadable, OSError):
            return
    k = key(ir, level, full)
    where = folder()
    try:
        os.makedirs(where, exist_ok=True)
        # a new file of this process's own (as tempfile.mkstemp makes, without importing tempfile
        # and shutil: 2.4 ms of a first run)
        tmp = os.path.join(where, f".tmp-{os.getpid()}-{os.urandom(8).hex()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(f"{FORMAT} {k} {digest(obj)}\n".encode() + obj)
            os.replace(tmp, _path(k))
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return
    stats["stores"] += 1
    trim(where)


def marked(fingerprint: str) -> bool:
    """Whether an earlier run of the program ``fingerprint`` (:func:`.selection.fingerprint`)
    went on to the llvm engine under ``--engine auto``: a mark ``<fingerprint>.run`` is in the
    folder (touched, so that trimming the folder keeps it while the program is run)."""
    if not enabled():
        return False
    path = os.path.join(folder(), f"{fingerprint}.run")
    try:
        os.utime(path)
    except FileNotFoundError:
        return False
    except OSError:  # a folder this user may read but not write: the mark still counts
        return os.path.exists(path)
    return True


def mark(fingerprint: str) -> None:
    """Leave the mark :func:`marked` looks for (an empty file; one that cannot be written only
    means the next run takes the usual way)."""
    if not enabled():
        return
    where = folder()
    try:
        os.makedirs(where, exist_ok=True)
        path = os.path.join(where, f"{fingerprint}.run")
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    except OSError:
        return
    trim(where)


def trim(where: str, limit: int | None = None) -> None:
    """Past ``limit`` entries (default :data:`MAX_ENTRIES`; objects and marks), remove the
    least recently used (stored or loaded) down to nine tenths of it, so the folder never grows
    without bound."""
    limit = MAX_ENTRIES if limit is None else limit
    try:
        with os.scandir(where) as it:
            entries = [e for e in it if e.name.endswith((".o", ".run"))
                       and not e.name.startswith(".")]
        if len(entries) <= limit:
            return
        entries.sort(key=lambda e: e.stat().st_mtime_ns)
        for e in entries[:len(entries) - limit * 9 // 10]:
            os.unlink(e.path)
    except OSError:  # another process trimming too, or a folder gone: nothing to do
        pass
