"""interpreter/llvmcapi.py: llvmlite's library called directly makes what llvmlite.binding makes.

* its declarations of the library's functions are llvmlite's own, for the installed release;
* every example kernel, at each LLVM level and tier, compiles to the same optimised IR and the
  same object bytes as through llvmlite.binding and MCJIT (random tuple programs: the engine
  tests, which now compile through it);
* another llvmlite release, IR that does not parse or verify, and a platform elfload does not
  serve are Unavailable, and the engine then compiles through llvmlite.binding with the same
  results (that a compiling run imports no llvmlite.binding: ``tests/test_objcache.py``).
"""
from __future__ import annotations

import ctypes
from collections import OrderedDict
from pathlib import Path

import pytest

from inca.compiler.frontend import Options, load_tuples
from inca.interpreter import engine, llvmcapi, llvmengine, objcache
from inca.interpreter.blocks import analyse
from inca.interpreter.inputs import gather_inputs
from inca.interpreter.loader import install
from inca.interpreter.nic import NIC
from inca.interpreter.profiles import load_profile

llvmlite = pytest.importorskip("llvmlite")
pytestmark = pytest.mark.skipif(llvmlite.__version__ not in llvmcapi.VERSIONS
                                or objcache.host() is None,
                                reason="llvmcapi serves known llvmlite releases on x86-64 Linux")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples" / "kernels").glob("*.incaq")) + sorted(
    (ROOT / "examples" / "asm").glob("*.incaa"))


def _kind(t) -> str:
    """A ctypes type as the C ABI sees it: every pointer but a string is an address."""
    if t is None:
        return "void"
    if t is ctypes.c_char_p:
        return "char*"
    if t is ctypes.c_void_p or (isinstance(t, type) and issubclass(t, ctypes._Pointer)
                                and t is not ctypes.POINTER(ctypes.c_char_p)):
        return "ptr"
    if t is ctypes.POINTER(ctypes.c_char_p):
        return "char**"
    return t.__name__


def test_the_declarations_are_llvmlite_s_own():
    from llvmlite.binding import ffi  # (the package declares every function of the library)

    lib = llvmcapi.load()
    names = [n for n in vars(lib) if n.startswith("LLVMPY_")]
    assert len(names) >= 30
    for name in names:
        ours, theirs = getattr(lib, name), getattr(ffi.lib, name)._cfn
        if theirs.argtypes is not None:  # (llvmlite leaves a few to ctypes's defaults)
            assert [_kind(t) for t in ours.argtypes] == [_kind(t) for t in theirs.argtypes], name
        # (a function llvmlite declares no result for has ctypes's default, int)
        assert _kind(ours.restype) in (_kind(theirs.restype), "void" if theirs.restype is ctypes.c_int else ""), name


def _ir(path: Path) -> str:
    tp = load_tuples(str(path), Options({"PAYLOAD": 256} if path.suffix == ".incaq" else {}))
    nic = NIC(load_profile("scratchpad"))
    pc, _ = install(tp, nic, gather_inputs({b.name: b for b in tp.buffers}, [], 1))
    nic.ct_set(pc, 1)
    armed = engine.arm(nic, pc)
    return llvmengine.translate(nic, armed, analyse(armed, pc.value)).ir


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_compiles_to_what_llvmlite_and_mcjit_make(path):
    ir = _ir(path)
    for level, full in ((2, False), (2, True), (0, True)):
        _, optimised, objects = llvmengine.through_binding(ir, level, full)
        assert llvmcapi.compile(ir, level, full) == (optimised, objects[0]), (level, full)


@pytest.mark.parametrize("ir, says", [
    ("define i32 @kernel( {", "the IR does not parse"),
    ("define i32 @kernel() {\nentry:\n  ret i64 0\n}\n", "the IR does not parse"),
    ("define i32 @kernel() {\nentry:\n  %a = add i32 %b, 1\n  %b = add i32 %a, 1\n  ret i32 %a\n}\n",
     "the IR does not verify"),
])
def test_ir_llvm_refuses_is_unavailable_with_llvm_s_message(ir, says):
    with pytest.raises(llvmcapi.Unavailable, match=says):
        llvmcapi.compile(ir, 2, True)


def _same_run_without_llvmcapi(monkeypatch, why: str):
    tp = load_tuples(str(ROOT / "examples" / "kernels" / "dot-product.incaq"), Options({"PAYLOAD": 512}))
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 1)
    from engine_fuzz import outcome

    want = outcome(tp, inputs, 10_000_000, engine.run)
    monkeypatch.setenv(objcache.VARIABLE, "off")
    monkeypatch.setattr(llvmengine, "_cache", OrderedDict())
    monkeypatch.setattr(llvmcapi, "_state", {})
    calls = []
    real = llvmengine.binding
    monkeypatch.setattr(llvmengine, "binding", lambda: calls.append(1) or real())
    assert outcome(tp, inputs, 10_000_000, llvmengine.run) == want
    assert calls, f"{why}: compiled through llvmlite.binding"
    with pytest.raises(llvmcapi.Unavailable, match=why):
        llvmcapi.load()


def test_another_llvmlite_release_compiles_through_llvmlite_binding(monkeypatch):
    monkeypatch.setattr(llvmcapi, "VERSIONS", {"0.0.1": False})
    _same_run_without_llvmcapi(monkeypatch, "declarations here are those of llvmlite")


def test_another_platform_compiles_through_llvmlite_binding(monkeypatch):
    monkeypatch.setattr(llvmcapi.sys, "platform", "darwin")
    _same_run_without_llvmcapi(monkeypatch, "x86-64 Linux")
