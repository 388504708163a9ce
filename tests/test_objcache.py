"""The llvm engine's machine code on disk (interpreter/objcache.py) and the loader that places it
without LLVM (interpreter/elfload.py; docs/engines.md, "The object cache").

* every example kernel runs alike from code compiled in the process and from code loaded from
  the cache, and as on the reference; random tuple programs too (``tests/test_engines.py`` runs
  the same generator through the cache);
* the loader's relocations: code of every code model LLVM makes for x86-64 (large, small, PIC),
  with constants, jump tables and calls into libm, computes what Python does;
* what is refused (not loaded, compiled instead): another machine, writable data, a relocation
  type the loader does not know, a symbol this process lacks; an object with random bytes
  changed or cut short loads or is refused, never raises anything else
  (``INCA_ELF_FUZZ_EXAMPLES=N``, default 300); a corrupt entry is compiled again;
* the key follows the CPU; ``INCA_OBJECT_CACHE=off`` stores nothing; a run from the cache imports
  no llvmlite; ``inca report --no-cache`` and ``--cache DIR`` reach the engine.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import io
import math
import os
import struct
import subprocess
import sys
from collections import OrderedDict
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from engine_fuzz import outcome, programs
from inca.compiler.frontend import Options, load_tuples
from inca.compiler.printer import print_program
from inca.interpreter import cli, elfload, engine, llvmcapi, llvmengine, objcache
from inca.interpreter.inputs import gather_inputs

pytest.importorskip("llvmlite")
pytestmark = pytest.mark.skipif(objcache.host() is None,
                                reason="the object cache is used on x86-64 Linux only")

ROOT = Path(__file__).resolve().parents[1]
llvm_run = functools.partial(llvmengine.run, strict=True)


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """An empty cache folder, and nothing compiled in this process."""
    where = tmp_path / "objects"
    monkeypatch.setenv(objcache.VARIABLE, str(where))
    monkeypatch.setattr(llvmengine, "_cache", OrderedDict())
    return where


def _counts():
    return dict(objcache.stats)


def _delta(before: dict) -> dict:
    return {k: objcache.stats[k] - before[k] for k in before}


def _kernels() -> list:
    return ([pytest.param(p, id=p.stem) for p in sorted((ROOT / "examples" / "kernels").glob("*.incaq"))]
            + [pytest.param(p, id=p.name) for p in sorted((ROOT / "examples" / "asm").glob("*.incaa"))])


@pytest.mark.parametrize("path", _kernels())
def test_every_example_runs_alike_compiled_and_loaded_from_the_cache(path, folder):
    tp = load_tuples(str(path), Options({"PAYLOAD": 256} if path.suffix == ".incaq" else {}))
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 1)
    want = outcome(tp, inputs, 10_000_000, engine.run)
    before = _counts()
    assert outcome(tp, inputs, 10_000_000, llvm_run) == want
    assert _delta(before) == {"hits": 0, "misses": 1, "stores": 1}
    llvmengine._cache.clear()
    assert outcome(tp, inputs, 10_000_000, llvm_run) == want
    assert _delta(before) == {"hits": 1, "misses": 1, "stores": 1}
    assert len(list(folder.glob("*.o"))) == 1


@settings(max_examples=int(os.environ.get("INCA_LLVM_FUZZ_EXAMPLES", "60")) // 2, deadline=None,
          database=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                HealthCheck.function_scoped_fixture])
@given(programs())
def test_random_programs_run_alike_loaded_from_the_cache(folder, case):
    tp, inputs, budget = case
    note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}")
    want = outcome(tp, inputs, budget, engine.run)
    assert outcome(tp, inputs, budget, llvm_run) == want  # compiled (and stored)
    llvmengine._cache.clear()
    before = _counts()
    assert outcome(tp, inputs, budget, llvm_run) == want  # loaded, where the translation ran
    assert _delta(before) == {"hits": 1, "misses": 0, "stores": 0}


# ---- the loader on every code model -----------------------------------------------------------

_IR = """
@table = private unnamed_addr constant [4 x double] [double 1.5, double 2.25, double -3.0, double 0.125]

define double @kernel(double %a, double %b, i64 %i) {
entry:
  %j = and i64 %i, 3
  %p = getelementptr [4 x double], ptr @table, i64 0, i64 %j
  %t = load double, ptr %p
  %r = frem double %a, %b
  %s = fadd double %r, %t
  %c = fmul double %s, 0x400921FB54442D18
  switch i64 %i, label %other [ i64 0, label %zero
                                i64 1, label %one
                                i64 2, label %two
                                i64 3, label %three
                                i64 4, label %four
                                i64 5, label %five ]
zero:
  ret double %c
one:
  %c1 = fadd double %c, 1.0
  ret double %c1
two:
  %c2 = call double @llvm.sqrt.f64(double %c)
  ret double %c2
three:
  %c3 = call double @cos(double %c)
  ret double %c3
four:
  %c4 = fsub double %c, 4.0
  ret double %c4
five:
  %c5 = fmul double %c, 5.0
  ret double %c5
other:
  ret double -1.0
}

declare double @llvm.sqrt.f64(double)
declare double @cos(double)
"""


def _expected(a: float, b: float, i: int) -> float:
    if not 0 <= i < 6:
        return -1.0
    c = (math.fmod(a, b) + [1.5, 2.25, -3.0, 0.125][i & 3]) * math.pi
    return [c, c + 1.0, math.sqrt(c) if c >= 0 else math.nan, math.cos(c), c - 4.0, c * 5.0][i]


def _object(codemodel: str, reloc: str) -> bytes:
    llvm = llvmengine.binding()
    tm = llvm.Target.from_default_triple().create_target_machine(opt=2, reloc=reloc,
                                                                 codemodel=codemodel)
    mod = llvm.parse_assembly(_IR)
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    return tm.emit_object(mod)


@pytest.mark.parametrize("codemodel,reloc", [("large", "static"), ("small", "pic"),
                                             ("small", "static"), ("jitdefault", "default")])
def test_loaded_code_of_every_code_model_computes_what_python_does(codemodel, reloc):
    obj = _object(codemodel, reloc)
    try:
        image = elfload.load(obj)
    except elfload.Unloadable as e:
        # only an absolute 32-bit address may be out of reach (the small static model)
        assert (codemodel, reloc) == ("small", "static") and "out of reach" in str(e)
        return
    fn = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_double,
                          ctypes.c_int64)(image.address("kernel"))
    for a, b in ((7.5, 2.0), (-7.25, 3.0), (1e300, 7.0)):
        for i in range(-1, 7):
            want, got = _expected(a, b, i), fn(a, b, i)
            assert struct.pack("<d", got) == struct.pack("<d", want) or (math.isnan(got) and math.isnan(want))


def test_the_loader_refuses_what_it_does_not_place():
    good = _object("large", "static")
    elfload.load(good)
    with pytest.raises(elfload.Unloadable, match="ELF"):
        elfload.load(b"not an object")
    other = bytearray(good)
    other[0x12:0x14] = struct.pack("<H", 183)  # AArch64
    with pytest.raises(elfload.Unloadable, match="x86-64"):
        elfload.load(bytes(other))
    with pytest.raises(elfload.Unloadable, match="defines no"):
        elfload.load(good).address("no_such_function")
    # writable data: a kernel's code never has it, so an object with it is not this engine's
    llvm = llvmengine.binding()
    tm = llvm.Target.from_default_triple().create_target_machine(codemodel="large")
    mod = llvm.parse_assembly("@g = global i64 1\ndefine i64 @kernel() {\n  %v = load i64, ptr @g\n"
                              "  ret i64 %v\n}\n")
    with pytest.raises(elfload.Unloadable, match="writable"):
        elfload.load(tm.emit_object(mod))
    # a symbol this process lacks
    mod = llvm.parse_assembly("declare i64 @inca_no_such_symbol(i64)\ndefine i64 @kernel(i64 %a) {\n"
                              "  %r = call i64 @inca_no_such_symbol(i64 %a)\n  ret i64 %r\n}\n")
    with pytest.raises(elfload.Unloadable, match="inca_no_such_symbol"):
        elfload.load(tm.emit_object(mod))
    # a relocation type the loader does not know
    patched = bytearray(good)
    rela = next(s for s in elfload._sections(good) if s.type == elfload.SHT_RELA and s.size)
    info, = struct.unpack_from("<Q", good, rela.offset + 8)
    struct.pack_into("<Q", patched, rela.offset + 8, (info & ~0xFFFFFFFF) | 99)
    with pytest.raises(elfload.Unloadable, match="type 99"):
        elfload.load(bytes(patched))


@settings(max_examples=int(os.environ.get("INCA_ELF_FUZZ_EXAMPLES", "300")), deadline=None,
          database=None)
@given(st.data())
def test_a_damaged_object_loads_or_is_refused_never_anything_else(data):
    obj = bytearray(_object("large", "static"))
    for _ in range(data.draw(st.integers(1, 8))):
        at = data.draw(st.integers(0, len(obj) - 1))
        obj[at] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        del obj[data.draw(st.integers(0, len(obj))):]
    try:
        elfload.load(bytes(obj))  # (placed and relocated, never called)
    except elfload.Unloadable:
        pass


# ---- the entries --------------------------------------------------------------------------------

def _dot_product():
    tp = load_tuples(str(ROOT / "examples" / "asm" / "dot-product.incaa"), Options())
    return tp, gather_inputs({b.name: b for b in tp.buffers}, [], 1)


def test_a_corrupt_or_foreign_entry_is_compiled_again_and_replaced(folder):
    tp, inputs = _dot_product()
    want = outcome(tp, inputs, 100_000, engine.run)
    assert outcome(tp, inputs, 100_000, llvm_run) == want
    entry, = folder.glob("*.o")
    good = entry.read_bytes()
    head, _, obj = good.partition(b"\n")
    for bad in (good[:-1] + bytes([good[-1] ^ 1]),  # one bit of the code
                head.replace(b"incac-object/1", b"incac-object/9") + b"\n" + obj,  # another format
                good[:len(head) + 20],  # truncated
                b""):
        entry.write_bytes(bad)
        llvmengine._cache.clear()
        before = _counts()
        assert outcome(tp, inputs, 100_000, llvm_run) == want
        assert _delta(before) == {"hits": 0, "misses": 1, "stores": 1}
        assert entry.read_bytes() == good


def test_the_key_follows_the_cpu_and_the_llvm_installed(folder, monkeypatch):
    tp, inputs = _dot_product()
    outcome(tp, inputs, 100_000, llvm_run)
    ir, level, full = next(iter(llvmengine._cache))
    assert objcache.has(ir, level, full)
    here = objcache.host()
    monkeypatch.setattr(objcache, "host", lambda: here.replace("flags=", "flags=avx512f "))
    assert not objcache.has(ir, level, full)
    monkeypatch.setattr(objcache, "host", lambda: here + " another build")
    assert not objcache.has(ir, level, full)


def test_the_folder_keeps_the_most_recently_used_entries(tmp_path):
    names = [f"{i:064x}.o" for i in range(12)]
    for i, name in enumerate(names):
        (tmp_path / name).write_bytes(b"x")
        os.utime(tmp_path / name, ns=(i * 10**9, i * 10**9))
    os.utime(tmp_path / names[0], ns=(99 * 10**9, 99 * 10**9))  # loaded last
    (tmp_path / ".tmp-writing").write_bytes(b"")  # another process's store, under way
    objcache.trim(str(tmp_path), limit=12)
    assert len(list(tmp_path.glob("*.o"))) == 12  # at the limit: nothing goes
    (tmp_path / f"{99:064x}.o").write_bytes(b"x")
    objcache.trim(str(tmp_path), limit=12)
    kept = sorted(p.name for p in tmp_path.glob("*.o"))
    assert len(kept) == 10 and names[0] in kept and names[1] not in kept and names[3] not in kept
    assert (tmp_path / ".tmp-writing").exists()


def test_a_hit_marks_its_entry_used(folder):
    tp, inputs = _dot_product()
    outcome(tp, inputs, 100_000, llvm_run)
    entry, = folder.glob("*.o")
    os.utime(entry, ns=(0, 0))
    llvmengine._cache.clear()
    outcome(tp, inputs, 100_000, llvm_run)
    assert entry.stat().st_mtime_ns > 0


def test_a_folder_that_cannot_be_written_only_means_compiling_again(folder, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(objcache.VARIABLE, str(blocker / "objects"))
    tp, inputs = _dot_product()
    before = _counts()
    for _ in range(2):
        llvmengine._cache.clear()
        assert outcome(tp, inputs, 100_000, llvm_run) == outcome(tp, inputs, 100_000, engine.run)
    assert _delta(before) == {"hits": 0, "misses": 2, "stores": 0}


def test_off_stores_nothing(folder, monkeypatch):
    monkeypatch.setenv(objcache.VARIABLE, "off")
    tp, inputs = _dot_product()
    before = _counts()
    assert outcome(tp, inputs, 100_000, llvm_run) == outcome(tp, inputs, 100_000, engine.run)
    assert _delta(before) == {"hits": 0, "misses": 0, "stores": 0} and not folder.exists()


def test_a_run_from_the_cache_imports_no_llvmlite(tmp_path):
    # The run that compiles imports llvmlite's package (for its version) and, where llvmcapi
    # knows the release, not its binding; neither imports tempfile (with shutil) to store.
    kernel = str(ROOT / "examples" / "kernels" / "dot-product.incaq")
    script = ("import sys\nfrom inca.interpreter import cli\n"
              f"code = cli.main(['run', {kernel!r}, '--payload', '8192', '--seed', '1', '--engine', 'llvm'])\n"
              "print(code, [m for m in ('llvmlite', 'llvmlite.binding', 'tempfile') if m in sys.modules])\n")
    env = dict(os.environ, **{objcache.VARIABLE: str(tmp_path)})
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
            for _ in range(2)]
    compiling = ["llvmlite"] + ([] if llvmcapi.known() else ["llvmlite.binding"])
    assert [r.stdout.splitlines()[-1] for r in runs] == [f"0 {compiling}", "0 []"], runs[1].stderr
    first, second = ([line for line in r.stdout.splitlines()[:-1] if "tuples/s" not in line] for r in runs)
    assert first == second and len(first) > 3
    assert len(list(tmp_path.glob("*.o"))) == 1


def test_inca_report_no_cache_stores_no_object_and_cache_dir_keeps_them(tmp_path, monkeypatch):
    monkeypatch.setattr(llvmengine, "_cache", OrderedDict())
    monkeypatch.delenv(objcache.VARIABLE, raising=False)
    args = ["report", "--kernels", "dot-product", "--payloads", "8192", "--profiles", "scratchpad",
            "-j", "1", "--engine", "llvm", "--format", "csv"]
    outs, stores = [], []
    for extra in (["--no-cache"], ["--cache", str(tmp_path / "cells")]):
        out = io.StringIO()
        llvmengine._cache.clear()
        before = _counts()
        with contextlib.redirect_stdout(out):
            assert cli.main(args + extra) == 0
        assert objcache.VARIABLE not in os.environ  # set for the run only
        outs.append(out.getvalue())
        stores.append(_delta(before)["stores"])
    assert outs[0] == outs[1]
    found = list((tmp_path / "cells" / "objects").glob("*.o"))  # (the kernel at each level)
    assert stores[0] == 0 and stores[1] == len(found) > 0


def test_without_llvmlite_there_is_no_cache(monkeypatch):
    monkeypatch.setattr(llvmcapi, "find_spec", lambda name: None)
    objcache.host.cache_clear()
    try:
        assert objcache.host() is None and not objcache.enabled()
    finally:
        objcache.host.cache_clear()
