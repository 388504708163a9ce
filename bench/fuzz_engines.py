#!/usr/bin/env python3
"""The long run of the engines' differential fuzzer (``tests/engine_fuzz.py``).

    python bench/fuzz_engines.py                   # 10,000 random programs
    python bench/fuzz_engines.py --programs 50000 --seed 7
    python bench/fuzz_engines.py --engine llvm     # the llvm engine instead of the python one
    python bench/fuzz_engines.py --engine auto     # auto, handed over at random steps
    python bench/fuzz_engines.py --engine llvm-loaded   # llvm, each program run again from its
                                                        # machine code on disk (elfload)
    python bench/fuzz_engines.py --engine llvm-long     # llvm, each kernel compiled as a long
                                                        # one

Each random tuple program runs on the reference and on the chosen engine from the same inputs
and step budget; how the run ended (fire counts and steps, or the fault's message, tuple and
kind), the counters and every buffer's storage must agree bit for bit; the llvm engine must also
run every program itself (a program whose machine code would call an unresolved runtime symbol,
or that it would leave to another engine, is a mismatch), and moves to its second tier (full
-O2) after a random number of steps (0-300). ``auto`` hands each run over from the
reference to the python engine and on to the llvm engine after random numbers of steps (0-300
each). ``llvm-loaded`` runs each program on the llvm engine twice, compiled and then loaded from
the object cache (its second run must equal the reference too). ``llvm-long`` compiles every
kernel as the engine compiles a long one (its block counters in the counts memory; one that
calls an element loop kept as it is, ``optnone``, its loops at -O2, in one tier), which the
paper's kernels reach only at large sizes. The
campaign keeps the llvm engine's objects in a temporary folder, never in the user's cache. The
default test suite runs 300 programs of the same generator on the python engine, 60 on llvm and
30 on llvm as long kernels (``tests/test_engines.py``). Prints the programs run, how their
runs ended and the mismatches (with the first one shrunk by hypothesis and printed as INCA-A);
exits 1 on a mismatch.
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, note, seed, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from engine_fuzz import outcome, programs  # noqa: E402
from inca.compiler.printer import print_program  # noqa: E402
from inca.interpreter import (engine, llvmengine, llvmgen, objcache, pyengine,  # noqa: E402
                              selection)
from inca.interpreter.blocks import Untranslatable  # noqa: E402


def _llvm_tiered(tier_steps: int, *args, **kwargs):
    """The llvm engine (strict) moving to its second tier after ``tier_steps`` steps."""
    was = llvmengine.TIER_STEPS
    llvmengine.TIER_STEPS = tier_steps
    try:
        return llvmengine.run(*args, strict=True, **kwargs)
    finally:
        llvmengine.TIER_STEPS = was


def _llvm_long(*args, **kwargs):
    """The llvm engine (strict) treating every kernel as a long one: its counters in the counts
    memory, and any call of an element loop weighed past a long kernel's weight."""
    was = llvmengine.CALL_LINES, llvmgen.BIG_IR_LINES
    llvmengine.CALL_LINES, llvmgen.BIG_IR_LINES = llvmengine.BIG_IR_LINES + 1, 0
    try:
        return llvmengine.run(*args, strict=True, **kwargs)
    finally:
        llvmengine.CALL_LINES, llvmgen.BIG_IR_LINES = was


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", type=int, default=10_000, help="random programs (default 10000)")
    ap.add_argument("--seed", type=int, default=int(time.time()), help="hypothesis seed (default: the time)")
    ap.add_argument("--engine", choices=("python", "llvm", "auto", "llvm-loaded", "llvm-long"),
                    default="python",
                    help="the engine checked against the reference (default python)")
    args = ap.parse_args(argv)
    runs = {"python": lambda first, second: pyengine.run,
            "llvm": lambda first, second: functools.partial(_llvm_tiered, first),
            "auto": lambda first, second: functools.partial(selection.run, first=first, second=second),
            "llvm-loaded": lambda first, second: functools.partial(_llvm_tiered, first),
            "llvm-long": lambda first, second: _llvm_long}
    ends: Counter = Counter()
    mismatches = 0

    @seed(args.seed)
    @settings(max_examples=args.programs, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(programs(), st.integers(0, 300), st.integers(0, 300))
    def check(case, first, second):
        nonlocal mismatches
        tp, inputs, budget = case
        note(f"{print_program(tp.program())}\ninputs {inputs}\nmax_steps {budget}"
             + (f"\nhanded over after {first} and {second} more steps" if args.engine == "auto" else ""))
        want = outcome(tp, inputs, budget, engine.run)
        try:
            got = outcome(tp, inputs, budget, runs[args.engine](first, second))
            if args.engine == "llvm-loaded" and got == want:
                llvmengine._cache.clear()
                hits = objcache.stats["hits"]
                got = outcome(tp, inputs, budget, runs[args.engine](first, second))
                if objcache.stats["hits"] == hits:
                    got = ("not loaded from the object cache",)
        except (llvmengine.UnresolvedSymbol, Untranslatable) as e:
            got = (f"not run: {e}",)
        how = want[0]
        ends[how[0] if how[0] != "RuntimeFault" else how[3] + " (bounds)" * ("bounds" in how[1])] += 1
        if got != want:
            mismatches += 1
            raise AssertionError(f"{args.engine} engine: {got[:3]}\nreference:     {want[:3]}")

    start = time.perf_counter()
    failure = None
    with tempfile.TemporaryDirectory(prefix="incac-fuzz-objects-") as objects:
        os.environ[objcache.VARIABLE] = objects
        try:
            check()
        except AssertionError as e:
            failure = e
    wall = time.perf_counter() - start
    total = sum(ends.values())
    print(f"seed {args.seed}: {total:,} programs run on the reference and {args.engine} in {wall:.0f} s, "
          f"{mismatches} mismatching")
    print("runs ended: " + ", ".join(f"{k} {v:,}" for k, v in ends.most_common()))
    if failure is not None:
        print(f"first mismatch, shrunk:\n{failure}")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
