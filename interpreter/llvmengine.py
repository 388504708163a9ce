"""The llvm engine: an installed tuple program translated into LLVM IR (:mod:`.llvmgen`),
optimised and compiled to machine code by llvmlite, and run on the NIC's buffers.

:func:`run` takes a NIC as the reference engine's :func:`~.engine.run` does and leaves it as the
reference would: the same outputs, fire counts, fault (message, tuple, writes before it) and step
limit. The buffers are copied into ``array`` objects whose addresses the function gets, and copied
back (views share one storage, so they stay one). A run that faults returns at the faulting
tuple, which has written nothing; the reference then fires it, writing what it writes before its
fault and raising its own message. A run whose step budget runs out before the next check hands
its last tuples to the reference as the python engine does.

LLVM is loaded on first use only, directly from llvmlite's library where :mod:`.llvmcapi` knows
its functions (the object code loaded by :mod:`.elfload`), else through llvmlite.binding and MCJIT;
without llvmlite the engine raises :class:`LLVMUnavailable`.
A run is compiled in two tiers: first by SROA alone (the scalars out of memory into registers)
and LLVM's -O2 code generation, without the rest of the pass pipeline (matrix multiplication:
15 ms against 39 with the pipeline, and 13% slower to run), and, when the run goes on past
:data:`TIER_STEPS` steps, at full -O2, going on from the next loop header with the same buffers
and counters (the two functions are compiled from one IR, so they compute the same).

Compiled functions are cached per process by their IR and optimisation level, and on disk
(:mod:`.objcache`): a later process loads the machine code (:mod:`.elfload`) without importing
llvmlite, and runs at once the second tier's code when an earlier run compiled it. Every symbol the
machine code needs must resolve in this process: LLVM may lower 128-bit division into a call to
a libgcc helper (``__divti3``) that the JIT leaves at address 0, so the object code's undefined
symbols are checked before the function is ever called (:class:`UnresolvedSymbol`).
"""
from __future__ import annotations

import re
import time
from array import array
from collections import OrderedDict

from . import llvmcapi, objcache
from .blocks import Untranslatable, analyse, block_fires
from .engine import Execution, LLVMUnavailable, arm, finish, off_end, prepare, run_fast
from .engine import run as run_reference
from .llvmgen import BIG_IR_LINES, KERNEL_ATTRIBUTES, Translation, translate
from .nic import NIC, CountingEvent
from .pygen import FAULT, OFF_END, RECOUNT

OPT_LEVEL = 2  # LLVM's -O2 pipeline and code generation
# A kernel whose weight passes BIG_IR_LINES (from .llvmgen, which keeps such a kernel's counters
# in place) is long straight-line code (what -O2 makes of a filter or a dot product, run once),
# which -O2 would take a second or more on to save next to nothing. The weight is its lines of
# IR, and CALL_LINES for each call of an element loop: LLVM's -O2 code generation took 0.45-0.6
# ms a call, as long as about 15 lines (matrix multiplication's 768 vector ops at 1 MiB, 916
# lines of IR, took 0.47-0.65 s). Loops are short: matrix multiplication at -O0 is about 300.
CALL_LINES = 15
#: Steps a run takes in the first tier before it is compiled at full -O2. On matrix multiplication
#: the pipeline costs 8.5-9 ms more to compile and saves about 0.22 ns a step (at payload 131072 a
#: run of 5.2-5.4 ms against 1.6; at 524288 with the base profile 46-47 against 17.3-17.4), so it
#: pays off after about 40 M more steps. Moving after about that many (the rent-or-buy rule) costs
#: a run of any length at most about twice what the better single choice would.
TIER_STEPS = 40_000_000
_CACHE_SIZE = 64
_llvm: dict[str, object] = {}  # the binding module and a target machine per level, once loaded
_cache: OrderedDict[tuple[str, int, bool], tuple[object, object]] = OrderedDict()
# An integer division's opcode and operand type, [su] and the width checked by hand: a pattern that
# starts with a literal is searched for by its literal (5 ms in 5 MB of IR), one that starts with
# \b[su] or (?:div|rem) is tried at every position (300-450 ms, 50-220). Compiled when first
# searched: a run loaded from the object cache never searches.
_DIVISIONS = tuple(op + r" <?(?:\d+ x )?i(\d+)\b" for op in ("div", "rem"))


class UnresolvedSymbol(Exception):
    """The compiled code calls a symbol this process does not provide."""


#: The oldest llvmlite the engine runs on: 0.44 has no SROA pass to add, and its LLVM reads no
#: opaque pointers (the IR's ``ptr``).
OLDEST_LLVMLITE = (0, 45)
_INSTALL = "install it with: pip install 'llvmlite>=0.45,<1'"


def binding():
    """llvmlite's binding, initialised for the host (imported here, on first use)."""
    if "llvm" not in _llvm:
        try:
            import llvmlite.binding as llvm

            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
        except (ImportError, OSError, RuntimeError) as e:
            raise LLVMUnavailable(f"the llvm engine needs llvmlite, which cannot be loaded ({e}); "
                                  f"{_INSTALL}") from None
        import llvmlite

        version = getattr(llvmlite, "__version__", "")
        if tuple(int(p) for p in re.findall(r"\d+", version)[:2]) < OLDEST_LLVMLITE:
            raise LLVMUnavailable(f"the llvm engine needs llvmlite 0.45 or newer, not {version}; "
                                  f"{_INSTALL}")
        _llvm["llvm"] = llvm
    return _llvm["llvm"]


def load_llvm() -> None:
    """Load LLVM, directly (:mod:`.llvmcapi`) or through llvmlite.binding; raises LLVMUnavailable
    when llvmlite cannot be loaded."""
    try:
        llvmcapi.load()
    except llvmcapi.Unavailable:
        binding()


def _target_machine(level: int):
    """A target machine for the host (a new one each time: an execution engine owns its own)."""
    llvm = binding()
    if "cpu" not in _llvm:
        _llvm["cpu"] = (llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())
    cpu, features = _llvm["cpu"]
    return llvm.Target.from_default_triple().create_target_machine(
        cpu=cpu, features=features, opt=level, codemodel="jitdefault")


class Jitted:
    """Code compiled in this process: its execution engine, kept alive with it."""

    def __init__(self, ee):
        self.ee = ee

    def address(self, name: str) -> int:
        return self.ee.get_function_address(name)


def compile_ir(ir: str, level: int = OPT_LEVEL, name: str = "kernel", full: bool = True):
    """The code of ``ir`` compiled at LLVM -O``level`` (kept alive while it may run: its
    ``address(name)`` gives any function of it) and the address of function ``name``.
    ``full=False``: the first tier, SROA alone (the scalars out of memory into registers)
    instead of the -O``level`` pipeline, then code generation at -O``level``.

    Cached in this process, and on disk (:mod:`.objcache`): a function compiled by an earlier
    process is loaded without llvmlite."""
    key = (ir, level, full)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    code = objcache.lookup(ir, level, full)
    entry = None
    if code is not None:
        from .elfload import Unloadable  # (imported already, to load the code)

        try:
            entry = (code, code.address(name))
        except Unloadable:
            pass
    if entry is None:
        code, obj = _compile(ir, level, full)
        entry = (code, code.address(name))
        if obj is not None:  # (code not Jitted: elfload placed obj, and it defines name)
            objcache.store(ir, level, full, obj, name, placed=not isinstance(code, Jitted))
    _cache[key] = entry
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return entry


def compiled(ir: str, level: int, full: bool) -> bool:
    """Whether this function is compiled already, in this process or on disk."""
    return (ir, level, full) in _cache or objcache.has(ir, level, full)


def _compile(ir: str, level: int, full: bool):
    """Compile with LLVM: the code and its object code (None when MCJIT made other than one
    object). Through :mod:`.llvmcapi` when it can (no llvmlite.binding; the object loaded by
    :mod:`.elfload`), else through llvmlite.binding and MCJIT."""
    from .elfload import Unloadable, load, undefined_symbols

    try:
        optimised, obj = llvmcapi.compile(ir, level, full)
    except llvmcapi.Unavailable:
        pass
    else:
        _refuse_wide_division(optimised)
        try:
            return load(obj), obj
        except (Unloadable, OSError):  # (MCJIT compiles it again, and names a missing symbol)
            pass
    llvm = binding()
    ee, optimised, objects = through_binding(ir, level, full)
    _refuse_wide_division(optimised)
    missing = [s for obj in objects for s in undefined_symbols(obj) if not llvm.address_of_symbol(s)]
    if missing:
        raise UnresolvedSymbol(f"the compiled code calls {', '.join(sorted(set(missing)))}, "
                               f"which this process does not provide")
    return Jitted(ee), objects[0] if len(objects) == 1 else None


def through_binding(ir: str, level: int, full: bool):
    """``ir`` compiled through llvmlite.binding and MCJIT (as :func:`_compile` says): its
    execution engine, the optimised IR (before code generation, which changes the module) and
    the object files MCJIT made."""
    llvm = binding()
    tm = _target_machine(level)
    mod = llvm.parse_assembly(ir)
    mod.triple = tm.triple
    mod.data_layout = str(tm.target_data)
    mod.verify()
    pb = llvm.create_pass_builder(tm, llvm.PipelineTuningOptions(speed_level=level))
    if full:
        pb.getModulePassManager().run(mod, pb)
    else:
        fpm = llvm.create_new_function_pass_manager()
        fpm.add_sroa_pass()
        for f in mod.functions:
            if not f.is_declaration:
                fpm.run(f, pb)
    optimised = str(mod)
    objects: list[bytes] = []
    ee = llvm.create_mcjit_compiler(mod, tm)
    ee.set_object_cache(lambda _m, data: objects.append(bytes(data)), lambda _m: None)
    ee.finalize_object()
    return ee, optimised, objects


def _refuse_wide_division(optimised: str) -> None:
    """A division of 128 bits or more is lowered to a libgcc call whatever this process
    provides: refuse it outright."""
    found = (m for pattern in _DIVISIONS for m in re.finditer(pattern, optimised))
    for m in sorted(found, key=lambda m: m.start()):  # (the first, as one pattern would find)
        at = m.start() - 1  # sdiv, udiv, srem or urem, a whole word: not fdiv, frem, a name's end
        before = optimised[at - 1:at] if at > 0 else ""
        if (at >= 0 and optimised[at] in "su" and not (before.isalnum() or before == "_")
                and int(m.group(1)) >= 128):
            raise UnresolvedSymbol(
                f"the optimised code has a wide division ({optimised[at:m.end()]})")


def kernel_function(address: int, storages: int):
    """A ctypes function for a kernel's address: (counts, where, fuel, block, scratch,
    *storages)."""
    import ctypes

    proto = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64,
                             ctypes.c_int64, *[ctypes.c_void_p] * (storages + 1))
    return proto(address)


def scratch(tr) -> array:
    """The scratch memory a translation's kernel needs (at least one element)."""
    return array("q", bytes(8 * max(1, tr.scratch)))


def pack(nic: NIC, names: tuple[str, ...]) -> list[array]:
    """Each storage as a C array (i64 values beyond i64, which only a hand-written input can
    hold, raise Untranslatable)."""
    try:
        return [array("d" if nic.buffers[n].dtype == "f64" else "q", nic.buffers[n].data) for n in names]
    except (OverflowError, TypeError) as e:
        raise Untranslatable(f"a value the engine cannot hold: {e}") from None


def unpack(nic: NIC, names: tuple[str, ...], arrays: list[array],
           written: tuple[int, ...] | None = None) -> None:
    """The storages back into the NIC's buffers; ``written``: only those (the others the kernel
    only reads: the inputs of matrix multiplication at -Ofast and 1 MiB took 8 ms of 36)."""
    for j in range(len(names)) if written is None else written:
        nic.buffers[names[j]].data[:] = arrays[j].tolist()


def first_tier(ir: str, level: int | None = None) -> tuple[str, int, bool]:
    """The IR, the level and whether to run the whole pass pipeline (``full``) for the first
    compilation of a run (``level``: the one a caller asked for, compiled as asked, in one tier).

    A short kernel: -O2, in two tiers. A long one (:data:`BIG_IR_LINES`) that is long for the
    element loops it calls, not for its own lines, is marked ``optnone`` and the module compiled at
    -O2, in one tier: the kernel is compiled as at -O0 and its loops optimised (matrix
    multiplication at -O2 and 1 MiB, 768 vector ops of 262,144 elements: 0.1 s to compile, and
    0.8 ns an element where all at -O0 took 3.5). Any other long one: -O0 (an ``optnone`` kernel of
    many blocks takes -O2's code generation minutes: filter at -O2 and 8 KiB, 157,541 lines)."""
    if level is not None:
        return ir, level, True
    calls = ir.count(" call void @loop")
    if ir.count("\n") + CALL_LINES * calls <= BIG_IR_LINES:
        return ir, OPT_LEVEL, False
    if calls and ir.count("\n", 0, ir.find("\ndefine internal")) <= BIG_IR_LINES:
        return ir.replace(KERNEL_ATTRIBUTES, KEPT_AS_IS), OPT_LEVEL, True
    return ir, 0, True


KEPT_AS_IS = "attributes #0 = { nounwind noinline optnone }"


def ready(nic: NIC, planned) -> tuple[Translation | None, bool]:
    """The translation of a run's rest (``planned``: the armed program and its blocks, the counter
    on a header; None when there is nothing to look in, or it cannot be translated), and whether
    its machine code is ready, compiled in this process or in the object cache, so the engine
    would start at once, without llvmlite or a compilation. A translation whose code is not
    ready serves :func:`run` later in the same run (``translation``)."""
    if not (_cache or objcache.enabled()):
        return None, False
    try:
        tr = translate(nic, *planned)
    except Untranslatable:
        return None, False
    ir, chosen, full = first_tier(tr.ir)
    return tr, compiled(ir, chosen, full) or compiled(ir, chosen, True)


def run(nic: NIC, counter: CountingEvent, done: CountingEvent, max_steps: int = 100_000_000,
        steps_before: int = 0, planned=None, *, level: int | None = None,
        strict: bool = False, translation=None) -> Execution:
    """Run from the counter's current value until END, as :func:`.engine.run` (untraced) does.

    A program the translation leaves alone runs on the reference, one whose code would call an
    unresolved symbol on the python engine (``strict``: raise instead, for the fuzzers).
    ``level``: LLVM's optimisation level, in one tier (default: :func:`first_tier`'s choice).
    Raises LLVMUnavailable when llvmlite cannot be loaded.

    ``steps_before`` and ``planned`` as :func:`.pyengine.run` takes them: another engine fired the
    run's first steps, and the counter is on a header of the blocks found from the run's start;
    ``translation``: what :func:`ready` made of them (it does not depend on where the run is)."""
    start = time.perf_counter()
    if not objcache.enabled():  # (with it, LLVM is loaded only when a function is compiled)
        load_llvm()
    try:
        armed, cfg = (arm(nic, counter), None) if planned is None else planned
        cfg = analyse(armed, counter.value) if cfg is None else cfg
        if counter.value != cfg.entry and counter.value not in cfg.headers:  # where it can resume
            raise Untranslatable(f"the run goes on at PC {counter.value}, not a block header")
        tr = translate(nic, armed, cfg) if translation is None else translation
        arrays = pack(nic, tr.storage)
    except Untranslatable:
        if strict:
            raise
        return run_reference(nic, counter, done, max_steps, steps_before=steps_before)
    ir, chosen, full = first_tier(tr.ir, level)
    if not full and compiled(ir, chosen, True):  # the second tier costs nothing now: no first
        full = True
    try:
        ee, address = compile_ir(ir, chosen, full=full)
    except UnresolvedSymbol:
        if strict:
            raise
        from . import pyengine

        return pyengine.run(nic, counter, done, max_steps, steps_before, planned)
    import ctypes

    engines = [ee]  # each kept alive while its code may run
    kernel = kernel_function(address, len(arrays))
    work = scratch(tr)
    pointers = [work.buffer_info()[0], *(a.buffer_info()[0] for a in arrays)]
    counts = (ctypes.c_int64 * max(1, len(tr.order)))()
    where = ctypes.c_int64()
    # the step count at which the first tier hands over (None: this is the last tier)
    tier_end = None if full else steps_before + TIER_STEPS
    block = counter.value
    fuel = max_steps - steps_before if tier_end is None else min(max_steps, tier_end) - steps_before
    while True:
        status = kernel(counts, ctypes.byref(where), fuel, block, *pointers)
        pc = where.value
        steps = steps_before + sum(n * size for n, size in zip(counts, tr.sizes))
        if status == RECOUNT and steps + cfg.reserve[pc] <= max_steps:
            if tier_end is not None and steps + cfg.reserve[pc] > tier_end:
                tier_end = None
                try:  # the next tier goes on from this header, with the same buffers and counts
                    ee, address = compile_ir(ir, chosen)
                    engines.append(ee)
                    kernel = kernel_function(address, len(arrays))
                except UnresolvedSymbol:
                    if strict:
                        raise
            # the estimate was loose, or the next tier starts: go on from this header
            fuel, block = (max_steps if tier_end is None else min(max_steps, tier_end)) - steps, pc
            continue
        break
    unpack(nic, tr.storage, arrays, tr.written)
    fires = block_fires(cfg, tr.order, counts, armed.size)
    if status == FAULT:  # nothing of the faulting tuple has run: its block's count includes it
        block_of = next(b for b in cfg.blocks.values() if pc in b.pcs)
        for later in block_of.pcs[block_of.pcs.index(pc):]:
            fires[later] -= 1
        steps = steps_before + sum(fires)
    if status in (FAULT, RECOUNT):  # the reference fires the faulting tuple, or the last ones
        counter.value = pc
        steps = run_fast(prepare(nic, counter), counter, fires, max_steps, steps)
        return finish(done, armed.k_at, fires, steps, start, "llvm")
    counter.value = pc
    if status == OFF_END:
        raise off_end(armed, pc)
    return finish(done, armed.k_at, fires, steps, start, "llvm")

