"""The host-CPU baseline: the kernel's tuple program lowered by the llvm engine's code generator
(:mod:`.llvmgen`) without the model's counters and fuel, compiled at LLVM -O0 and -O2, and timed
natively on this machine.

This is a *measurement of this machine*, noisy, not a model: each figure is the median of
several repetitions of a calibrated loop (calls repeated until they add up to at least
:data:`MIN_SECONDS`), the time of the kernel's function alone (the buffers are reset to the
inputs between calls, outside the timed span). The first call's outputs are checked equal, bit
for bit, to the model's (the reference's or any engine's ``RunResult``).
"""
from __future__ import annotations

import ctypes
import statistics
import struct
import time
from dataclasses import dataclass

from ..lang.tuples import TupleProgram
from .blocks import analyse
from .engine import arm
from .llvmgen import translate
from .loader import RunResult, install
from .nic import NIC
from .profiles import Profile
from .pygen import END

MIN_SECONDS = 0.05  # a repetition's calls add up to at least this
REPETITIONS = 5
LEVELS = (0, 2)


class CPUMismatch(Exception):
    """The natively compiled kernel did not compute the model's outputs (or did not finish)."""


@dataclass(frozen=True)
class CPUTimes:
    """This machine's time for one run of the kernel at each LLVM level, in microseconds."""

    o0_us: float
    o2_us: float
    calls: tuple[int, int]  # calls per repetition at -O0 and -O2


def _bits(values: list) -> list:
    return [struct.pack("<d", v).hex() if type(v) is float else v for v in values]


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
    pristine = [bytes(a) for a in arrays]
    pointers = [a.buffer_info()[0] for a in arrays]
    where = ctypes.c_int64()
    counts = (ctypes.c_int64 * 1)()
    times, calls = [], []
    for level in LEVELS:
        _engine, address = llvmengine.compile_ir(tr.ir, level)
        kernel = llvmengine.kernel_function(address, len(arrays))

        def reset() -> None:
            for p, data in zip(pointers, pristine):
                ctypes.memmove(p, data, len(data))

        reset()
        if kernel(counts, ctypes.byref(where), 0, cfg.entry, *pointers) != END:
            raise CPUMismatch(f"the kernel compiled at -O{level} stopped at PC {where.value}")
        llvmengine.unpack(nic, tr.storage, arrays)
        for name, want in model.outputs.items():
            got = nic.read(name)
            got = got if isinstance(want, list) else got[0]
            if _bits(got if isinstance(got, list) else [got]) != _bits(want if isinstance(want, list) else [want]):
                raise CPUMismatch(f"output '{name}' of the kernel compiled at -O{level} differs "
                                  f"from the model's")
        medians, n = [], 0
        for _ in range(REPETITIONS):
            spent, n = 0.0, 0
            while spent < MIN_SECONDS:
                reset()
                t0 = time.perf_counter()
                kernel(counts, ctypes.byref(where), 0, cfg.entry, *pointers)
                spent += time.perf_counter() - t0
                n += 1
            medians.append(spent / n)
        times.append(statistics.median(medians) * 1e6)
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

