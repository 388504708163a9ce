"""llvmlite's library called directly: a function's LLVM IR compiled to an object file without
importing ``llvmlite.binding``.

Importing ``llvmlite.binding`` takes about 22 ms before any work (its modules, importlib.resources
to find the library, a ctypes declaration for each of the library's hundreds of functions),
more than compiling matrix multiplication's first tier (10 ms), and every run that compiles pays
it. The llvm engine needs 38 of those functions; they are declared here as llvmlite declares
them, and the object file LLVM emits (the bytes MCJIT would make of the same module: a test
compares them) is loaded by :mod:`.elfload`.

A library's functions carry no signature to check at run time, so this is used only with the
llvmlite releases whose binding declares every one of these functions as here (:data:`VERSIONS`,
checked against each release's sources from 0.43 on: from 0.45 to 0.47 the pipeline builder takes
a size level too, which is 0; 0.44 also differs in another), and only where :mod:`.elfload` works
(:func:`elf_host`). Anywhere else, or when anything here fails, :func:`compile` raises
:class:`Unavailable` and the engine goes through ``llvmlite.binding`` as before.
"""
from __future__ import annotations

import os
import sys
from importlib.util import find_spec

#: release -> whether its pipeline builder takes a size level after the speed level
VERSIONS = {"0.45.0": True, "0.45.1": True, "0.46.0": True, "0.47.0": True,
            "0.48.0": False, "0.49.0": False, "0.50.0": False}

_state: dict = {}  # "lib": the library with its functions declared; "tm": a target machine per level


class Unavailable(Exception):
    """This llvmlite, platform or module cannot be compiled here (llvmlite.binding can)."""


def library() -> str | None:
    """The path of the installed llvmlite's library (None: no llvmlite)."""
    spec = find_spec("llvmlite")
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        binding = os.path.join(location, "binding")
        try:
            names = sorted(n for n in os.listdir(binding) if n.startswith("libllvmlite"))
        except OSError:
            continue
        if names:
            return os.path.join(binding, names[0])
    return None


def elf_host() -> bool:
    """Whether :mod:`.elfload` loads this machine's object files (x86-64 Linux)."""
    return sys.platform == "linux" and os.uname().machine == "x86_64"


def loaded() -> bool:
    """Whether this process has loaded the library already."""
    return _state.get("lib") is not None


def known() -> bool:
    """Whether the library would be used here (platform and llvmlite release; without loading
    it)."""
    if not elf_host():
        return False
    try:
        import llvmlite
    except ImportError:
        return False
    return getattr(llvmlite, "__version__", "") in VERSIONS


def load():
    """The library with the functions this module calls declared, initialised for the host
    (once); raises Unavailable."""
    if "lib" in _state:
        if _state["lib"] is None:
            raise Unavailable(_state["why"])
        return _state["lib"]
    try:
        lib = _declare()
    except Unavailable as e:
        _state["lib"], _state["why"] = None, str(e)
        raise
    _state["lib"] = lib
    return lib


def _declare():
    if not known():
        raise Unavailable("elfload loads x86-64 Linux objects only, and the declarations here "
                          f"are those of llvmlite {', '.join(sorted(VERSIONS))}")
    path = library()
    if path is None:
        raise Unavailable("llvmlite's library is not installed")
    import llvmlite

    _state["size level"] = (0,) if VERSIONS[llvmlite.__version__] else ()
    import ctypes
    from ctypes import POINTER, c_bool, c_char_p, c_int, c_size_t, c_void_p

    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise Unavailable(f"llvmlite's library cannot be loaded ({e})") from None
    ref, out = c_void_p, POINTER(c_char_p)  # (every LLVM object is an opaque pointer)
    for name, restype, *argtypes in (
            ("InitializeNativeTarget", None), ("InitializeNativeAsmPrinter", None),
            ("GetHostCPUName", None, out), ("GetHostCPUFeatures", c_int, out),
            ("GetDefaultTargetTriple", None, out), ("GetTargetFromTriple", ref, c_char_p, out),
            ("CreateTargetMachine", ref, ref, c_char_p, c_char_p, c_char_p, c_int, c_char_p,
             c_char_p, c_int, c_int, c_char_p),
            ("GetTargetMachineTriple", None, ref, out), ("CreateTargetMachineData", ref, ref),
            ("CopyStringRepOfTargetData", None, ref, out), ("DisposeTargetData", None, ref),
            ("GetGlobalContext", ref), ("ParseAssembly", ref, ref, c_char_p, out),
            ("DisposeModule", None, ref), ("SetTarget", None, ref, c_char_p),
            ("SetDataLayout", None, ref, c_char_p), ("VerifyModule", c_bool, ref, out),
            ("PrintModuleToString", None, ref, out), ("DisposeString", None, c_void_p),
            ("CreatePipelineTuningOptions", ref), ("DisposePipelineTuningOptions", None, ref),
            ("CreatePassBuilder", ref, ref, ref), ("DisposePassBuilder", None, ref),
            ("buildPerModuleDefaultPipeline", ref, ref, c_int, *[c_int] * len(_state["size level"])),
            ("RunNewModulePassManager", None, ref, ref, ref),
            ("DisposeNewModulePassManger", None, ref),  # (sic)
            ("CreateNewFunctionPassManager", ref), ("function_AddSROAPass", None, ref),
            ("RunNewFunctionPassManager", None, ref, ref, ref),
            ("DisposeNewFunctionPassManger", None, ref),  # (sic)
            ("ModuleFunctionsIter", ref, ref), ("FunctionsIterNext", ref, ref),
            ("DisposeFunctionsIter", None, ref), ("IsDeclaration", c_int, ref),
            ("TargetMachineEmitToMemory", ref, ref, ref, c_int, out),
            ("GetBufferStart", c_void_p, ref), ("GetBufferSize", c_size_t, ref),
            ("DisposeMemoryBuffer", None, ref)):
        try:
            f = getattr(lib, "LLVMPY_" + name)
        except AttributeError:
            raise Unavailable(f"llvmlite's library has no LLVMPY_{name}") from None
        f.restype, f.argtypes = restype, argtypes
    lib.LLVMPY_InitializeNativeTarget()
    lib.LLVMPY_InitializeNativeAsmPrinter()
    return lib


def _text(lib, call, *args) -> tuple[object, str]:
    """What ``call`` returns and the string it writes to its last (output) argument, freed."""
    import ctypes

    s = ctypes.c_char_p(None)
    result = call(*args, ctypes.byref(s))
    text = "" if s.value is None else s.value.decode("utf-8", "replace")
    if s.value is not None:
        lib.LLVMPY_DisposeString(ctypes.cast(s, ctypes.c_void_p))
    return result, text


def _target(lib, level: int) -> tuple[int, bytes, bytes]:
    """The host's target machine at -O``level`` (made once, as llvmlite's
    ``create_target_machine`` makes it for the engine), its triple and data layout."""
    if level not in _state.setdefault("tm", {}):
        if "host" not in _state:
            _, cpu = _text(lib, lib.LLVMPY_GetHostCPUName)
            _, features = _text(lib, lib.LLVMPY_GetHostCPUFeatures)
            _, triple = _text(lib, lib.LLVMPY_GetDefaultTargetTriple)
            # as llvmlite's FeatureMap.flatten: sorted by name, each with its sign
            flat = ",".join(sorted((f for f in features.split(",") if f), key=lambda f: f[1:]))
            _state["host"] = (cpu.encode(), flat.encode(), triple.encode())
        cpu, features, triple = _state["host"]
        target, error = _text(lib, lib.LLVMPY_GetTargetFromTriple, triple)
        if not target:
            raise Unavailable(f"no target for {triple.decode()}: {error}")
        tm = lib.LLVMPY_CreateTargetMachine(target, triple, cpu, features, level, b"default",
                                            b"jitdefault", 0, 0, b"")
        if not tm:
            raise Unavailable("the target machine cannot be made")
        data = lib.LLVMPY_CreateTargetMachineData(tm)
        _, layout = _text(lib, lib.LLVMPY_CopyStringRepOfTargetData, data)
        lib.LLVMPY_DisposeTargetData(data)
        _, tm_triple = _text(lib, lib.LLVMPY_GetTargetMachineTriple, tm)
        _state["tm"][level] = (tm, tm_triple.encode(), layout.encode())
    return _state["tm"][level]


def compile(ir: str, level: int, full: bool) -> tuple[str, bytes]:
    """The module ``ir`` optimised (``full``: LLVM's -O``level`` pipeline; else SROA alone on
    each function, the engine's first tier) and compiled at -O``level``: its optimised IR and
    its object code. Raises Unavailable (see the module)."""
    import ctypes

    lib = load()
    tm, triple, layout = _target(lib, level)
    module, error = _text(lib, lib.LLVMPY_ParseAssembly, lib.LLVMPY_GetGlobalContext(),
                          ir.encode())
    if not module:
        raise Unavailable(f"the IR does not parse: {error}")
    try:
        lib.LLVMPY_SetTarget(module, triple)
        lib.LLVMPY_SetDataLayout(module, layout)
        broken, error = _text(lib, lib.LLVMPY_VerifyModule, module)
        if broken:
            raise Unavailable(f"the IR does not verify: {error}")
        options = lib.LLVMPY_CreatePipelineTuningOptions()
        builder = lib.LLVMPY_CreatePassBuilder(tm, options)
        try:
            if full:
                passes = lib.LLVMPY_buildPerModuleDefaultPipeline(builder, level, *_state["size level"])
                lib.LLVMPY_RunNewModulePassManager(passes, module, builder)
                lib.LLVMPY_DisposeNewModulePassManger(passes)
            else:
                passes = lib.LLVMPY_CreateNewFunctionPassManager()
                lib.LLVMPY_function_AddSROAPass(passes)
                functions = lib.LLVMPY_ModuleFunctionsIter(module)
                while f := lib.LLVMPY_FunctionsIterNext(functions):
                    if not lib.LLVMPY_IsDeclaration(f):
                        lib.LLVMPY_RunNewFunctionPassManager(passes, f, builder)
                lib.LLVMPY_DisposeFunctionsIter(functions)
                lib.LLVMPY_DisposeNewFunctionPassManger(passes)
        finally:
            lib.LLVMPY_DisposePassBuilder(builder)
            lib.LLVMPY_DisposePipelineTuningOptions(options)
        _, optimised = _text(lib, lib.LLVMPY_PrintModuleToString, module)
        buffer, error = _text(lib, lib.LLVMPY_TargetMachineEmitToMemory, tm, module, 1)
        if not buffer:
            raise Unavailable(f"no object code: {error}")
        try:
            obj = ctypes.string_at(lib.LLVMPY_GetBufferStart(buffer), lib.LLVMPY_GetBufferSize(buffer))
        finally:
            lib.LLVMPY_DisposeMemoryBuffer(buffer)
    finally:
        lib.LLVMPY_DisposeModule(module)
    return optimised, obj
