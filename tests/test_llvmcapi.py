"""interpreter/llvmcapi.py: llvmlite's library called directly makes what llvmlite.binding makes.

* its declarations of the library's functions are llvmlite's own, for the installed release;
* every example kernel, at each LLVM level and tier, compiles to the same optimised IR and the
  same object bytes as through llvmlite.binding and MCJIT (random tuple programs: the engine
  tests, which now compile through it);
* a compilation imports no llvmlite.binding; another llvmlite release, IR that does not parse or
  verify, and a platform elfload does not serve are Unavailable, and the engine then compiles
  through llvmlite.binding with the same results.
"""
from __future__ import annotations

import ctypes
import os
import subprocess
import sys
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


def _through_llvmlite(ir: str, level: int, full: bool) -> tuple[str, bytes]:
    llvm = llvmengine.binding()
    tm = llvmengine._target_machine(level)
    mod = llvm.parse_assembly(ir)
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    pb = llvm.create_pass_builder(tm, llvm.PipelineTuningOptions(speed_level=level))
    if full:
        pb.getModulePassManager().run(mod, pb)
    else:
        fpm = llvm.create_new_function_pass_manager()
        fpm.add_sroa_pass()
        for f in mod.functions:
            if not f.is_declaration:
                fpm.run(f, pb)
    optimised = str(mod)  # (before code generation, which changes the module)
    objects: list[bytes] = []
    ee = llvm.create_mcjit_compiler(mod, tm)
    ee.set_object_cache(lambda _m, data: objects.append(bytes(data)), lambda _m: None)
    ee.finalize_object()
    return optimised, objects[0]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_example_compiles_to_what_llvmlite_and_mcjit_make(path):
    ir = _ir(path)
    for level, full in ((2, False), (2, True), (0, True)):
        assert llvmcapi.compile(ir, level, full) == _through_llvmlite(ir, level, full), (level, full)


def test_a_compilation_imports_no_llvmlite_binding(tmp_path):
    # nor tempfile (with shutil) to store the object
    kernel = str(ROOT / "examples" / "kernels" / "matrix-multiplication.incaq")
    script = ("import sys\nfrom inca.interpreter import cli\n"
              f"code = cli.main(['run', {kernel!r}, '--payload', '8192', '--seed', '1', '--engine', 'llvm'])\n"
              "print(code, [m for m in ('llvmlite.binding', 'tempfile') if m in sys.modules])\n")
    env = dict(os.environ, **{objcache.VARIABLE: str(tmp_path)})
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert out.stdout.splitlines()[-1] == "0 []", out.stderr
    assert len(list(tmp_path.glob("*.o"))) == 1


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
    monkeypatch.setattr(llvmcapi, "VERSIONS", frozenset({"0.0.1"}))
    _same_run_without_llvmcapi(monkeypatch, "declarations here are those of llvmlite")


def test_another_platform_compiles_through_llvmlite_binding(monkeypatch):
    monkeypatch.setattr(llvmcapi.sys, "platform", "darwin")
    _same_run_without_llvmcapi(monkeypatch, "x86-64 Linux")
