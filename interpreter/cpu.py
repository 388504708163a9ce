"""The host-CPU baseline: the kernel's tuple program lowered by the llvm engine's code generator
(:mod:`.llvmgen`) without the model's counters and fuel, compiled at LLVM -O0 and -O2, and timed
natively on this machine.

This is a *measurement of this machine*, noisy, not a model: each figure is the median of
several repetitions of a calibrated loop. The loop is native code compiled into the kernel's own
module (:func:`harness`): each pass copies the inputs back into the buffers and calls the kernel,
so no foreign call or timer read (about 1.5 us through ctypes) sits between two calls. The same
loop with the call left out times the copies, which are subtracted. The first call's outputs are
checked equal, bit for bit, to the model's (the reference's or any engine's ``RunResult``).
"""
from __future__ import annotations

import ctypes
from array import array
import statistics
import struct
import time

from ..lang.frozen import frozen
from ..lang.tuples import TupleProgram
from .blocks import analyse
from .engine import arm
from .llvmgen import translate
from .loader import RunResult, install
from .nic import NIC
from .profiles import Profile
from .pygen import END

MIN_SECONDS = 0.05  # a repetition's loop takes at least this
REPETITIONS = 5
LEVELS = (0, 2)


class CPUMismatch(Exception):
    """The natively compiled kernel did not compute the model's outputs (or did not finish)."""


@frozen
class CPUTimes:
    """This machine's time for one run of the kernel at each LLVM level, in microseconds."""

    o0_us: float
    o2_us: float
    calls: tuple[int, int]  # calls per repetition at -O0 and -O2


def _bits(values: list) -> list:
    return [struct.pack("<d", v).hex() if type(v) is float else v for v in values]


def harness(storages: int) -> str:
    """LLVM IR of ``i32 @repeat(i64 n, i1 call, ptr counts, ptr where, i64 block, ptr scratch,
    ptr work, ptr pristine, ptr sizes)``: ``n`` times, copy each pristine buffer over its working
    buffer (the three tables hold their addresses and byte sizes) and, when ``call`` is set, call
    ``@kernel`` on the working buffers (with the kernel's scratch memory). The call is kept out
    of line so every pass runs the kernel as it is, not folded into the loop."""
    lines = ["declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)",
             "define i32 @repeat(i64 %n, i1 %call, ptr %counts, ptr %where, i64 %block, "
             "ptr %scratch, ptr %work, ptr %pristine, ptr %sizes) {",
             "entry:", "  br label %test",
             "test:", "  %i = phi i64 [0, %entry], [%i.next, %next]",
             "  %more = icmp ult i64 %i, %n", "  br i1 %more, label %pass, label %out",
             "pass:"]
    for j in range(storages):
        lines += [f"  %w{j}.p = getelementptr i64, ptr %work, i64 {j}",
                  f"  %w{j}.a = load volatile i64, ptr %w{j}.p", f"  %w{j} = inttoptr i64 %w{j}.a to ptr",
                  f"  %p{j}.p = getelementptr i64, ptr %pristine, i64 {j}",
                  f"  %p{j}.a = load volatile i64, ptr %p{j}.p", f"  %p{j} = inttoptr i64 %p{j}.a to ptr",
                  f"  %n{j}.p = getelementptr i64, ptr %sizes, i64 {j}",
                  f"  %n{j} = load volatile i64, ptr %n{j}.p",
                  f"  call void @llvm.memcpy.p0.p0.i64(ptr %w{j}, ptr %p{j}, i64 %n{j}, i1 false)"]
    args = "".join(f", ptr %w{j}" for j in range(storages))
    lines += ["  br i1 %call, label %run, label %next",
              "run:", f"  %st = call i32 @kernel(ptr %counts, ptr %where, i64 0, i64 %block, "
              f"ptr %scratch{args}) #0",
              "  br label %next",
              "next:", "  %i.next = add i64 %i, 1", "  br label %test",
              "out:", "  ret i32 0", "}", "attributes #0 = { noinline }", ""]
    return "\n".join(lines)


_HARNESS = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.c_bool, ctypes.c_void_p,
                            ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p,
                            ctypes.c_void_p, ctypes.c_void_p)


def _seconds(loop, n: int) -> float:
    t0 = time.perf_counter()
    loop(n)
    return time.perf_counter() - t0


def _calibrate(loop) -> int:
    """Passes for one repetition: doubled until the loop takes at least MIN_SECONDS."""
    n = 1
    while _seconds(loop, n) < MIN_SECONDS:
        n *= 2
    return n


def measure(tp: TupleProgram, profile: Profile, inputs: dict[str, list] | None,
            model: RunResult) -> CPUTimes:
    """Compile ``tp`` for this CPU at -O0 and -O2, check its outputs against ``model``'s and time
    it (raises CPUMismatch, LLVMUnavailable, or Untranslatable for a hand-built program)."""
    from . import llvmengine

    nic = NIC(profile)
    pc, _ = install(tp, nic, inputs)
    nic.ct_set(pc, 1)
    armed = arm(nic, pc)
    cfg = analyse(armed, pc.value)
    tr = translate(nic, armed, cfg, counters=False)
    arrays = llvmengine.pack(nic, tr.storage)
    pristine = [array(a.typecode, a) for a in arrays]
    table = ctypes.c_int64 * max(1, len(arrays))
    work = table(*(a.buffer_info()[0] for a in arrays))
    sources = table(*(a.buffer_info()[0] for a in pristine))
    sizes = table(*(len(a) * a.itemsize for a in arrays))
    spare = llvmengine.scratch(tr)  # (kept alive while the kernel may run)
    scratch = spare.buffer_info()[0]
    where = ctypes.c_int64()
    counts = (ctypes.c_int64 * 1)()
    ir = tr.ir + "\n" + harness(len(arrays))
    times, calls = [], []
    for level in LEVELS:
        engine, address = llvmengine.compile_ir(ir, level)
        kernel = llvmengine.kernel_function(address, len(arrays))
        repeat = _HARNESS(engine.address("repeat"))
        for a, p in zip(arrays, pristine):
            a[:] = p
        if kernel(counts, ctypes.byref(where), 0, cfg.entry, scratch, *work) != END:
            raise CPUMismatch(f"the kernel compiled at -O{level} stopped at PC {where.value}")
        llvmengine.unpack(nic, tr.storage, arrays)
        for name, want in model.outputs.items():
            got = nic.read(name)
            got = got if isinstance(want, list) else got[0]
            if _bits(got if isinstance(got, list) else [got]) != _bits(want if isinstance(want, list) else [want]):
                raise CPUMismatch(f"output '{name}' of the kernel compiled at -O{level} differs "
                                  f"from the model's")

        def passes(n: int, call: bool = True) -> None:
            repeat(n, call, counts, ctypes.byref(where), cfg.entry, scratch, work, sources, sizes)

        n = _calibrate(passes)
        runs = [_seconds(passes, n) for _ in range(REPETITIONS)]
        copies = [_seconds(lambda k: passes(k, False), n) for _ in range(REPETITIONS)]
        times.append(max(statistics.median(runs) - statistics.median(copies), 0.0) / n * 1e6)
        calls.append(n)
    return CPUTimes(times[0], times[1], (calls[0], calls[1]))


def cpu_json(t: CPUTimes) -> dict:
    """The figures as ``inca run --json`` prints them (fixed key order)."""
    return {"o0_us": round(t.o0_us, 3), "o2_us": round(t.o2_us, 3),
            "note": "measured on this machine (median of repetitions), not modeled"}


def cpu_lines(t: CPUTimes) -> list[str]:
    return [f"cpu -O0         {t.o0_us:.2f} us (this machine, median of {REPETITIONS} x "
            f"{t.calls[0]} calls; measured, not modeled)",
            f"cpu -O2         {t.o2_us:.2f} us (this machine, median of {REPETITIONS} x "
            f"{t.calls[1]} calls; measured, not modeled)"]

