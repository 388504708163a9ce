"""Every INCA-Q program case, kernel and example at -O1, -O2 and -Ofast against -O0 (and each
example of examples/optimiser at least ten times faster at -O2).

-O1 and -O2 must give the same outputs bit for bit (the cases' expected values, which Python
computed) and never a slower modeled time, under the scratchpad and base profiles, with and
without --clobber; -Ofast must agree within 1e-12 relative and is never slower either.
"""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from inca.compiler.frontend import Options, load_tuples
from inca.interpreter.inputs import seeded_values
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile
from test_incaq_programs import CASES, write

ROOT = Path(__file__).resolve().parent.parent
LEVELS = ((1, False), (2, False), (2, True))
KERNELS = sorted((ROOT / "examples" / "kernels").glob("*.incaq"))
PROGRAMS = sorted((ROOT / "examples" / "programs").glob("*.incaq"))
GOLDEN = sorted((ROOT / "tests" / "golden" / "programs").glob("*.incaq"))
GALLERY = sorted((ROOT / "examples" / "optimiser").glob("*.incaq"))


def close(a, b) -> bool:
    """Equal, or (floats) within 1e-12 relative, element by element."""
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b or abs(a - b) <= 1e-12 * max(abs(a), abs(b))
    return a == b


def same(a, b) -> bool:
    """Equal bit for bit (NaN equals NaN; -0.0 differs from 0.0)."""
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, float):
        return math.copysign(1, a) == math.copysign(1, b) and (a == b or (a != a and b != b))
    return a == b


def compare_levels(path: Path, defines: dict, include: tuple, inputs_for) -> None:
    for clobber in (False, True):
        base = Options(defines, 0, include, clobber)
        tp0 = load_tuples(str(path), base)
        inputs = inputs_for(tp0)
        for profile in ("scratchpad", "base"):
            prof = load_profile(profile)
            r0 = execute(tp0, prof, {k: list(v) for k, v in inputs.items()})
            for opt, fast in LEVELS:
                tp = load_tuples(str(path), Options(defines, opt, include, clobber, fast))
                r = execute(tp, prof, {k: list(v) for k, v in inputs.items()})
                where = (path.name, opt, fast, clobber, profile)
                for name, v in r0.outputs.items():
                    assert (close if fast else same)(r.outputs[name], v), (where, name)
                assert r.time_ns <= r0.time_ns, (where, r.time_ns, r0.time_ns)


@pytest.mark.parametrize("name", CASES)
def test_program_case_at_every_level(name, tmp_path):
    c = CASES[name]()
    src, mods = write(tmp_path, c)
    compare_levels(src, c.defines, (str(mods),), lambda tp: c.inputs)


def seeded(tp) -> dict:
    return {b.name: seeded_values(b, 1) for b in tp.buffers
            if b.role in ("input", "inout") and b.alias is None and b.default is None}


@pytest.mark.parametrize("payload", (128, 1024))
@pytest.mark.parametrize("path", KERNELS, ids=lambda p: p.stem)
def test_kernel_at_every_level(path, payload):
    compare_levels(path, {"PAYLOAD": payload}, (), seeded)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_example_program_at_every_level(path):
    compare_levels(path, {}, (), seeded)


@pytest.mark.parametrize("path", GALLERY, ids=lambda p: p.stem)
def test_optimiser_example_at_every_level_and_ten_times_faster_at_O2(path):
    compare_levels(path, {}, (), seeded)
    # what each of these examples is for: -O2 makes its plain loop at least ten times faster
    tp0, tp2 = (load_tuples(str(path), Options({}, opt)) for opt in (0, 2))
    prof, inputs = load_profile("scratchpad"), seeded(tp0)
    t0, t2 = (execute(tp, prof, {k: list(v) for k, v in inputs.items()}).time_ns for tp in (tp0, tp2))
    assert t2 * 10 < t0, (path.name, t2, t0)


def golden_args(path: Path) -> tuple[dict, tuple]:
    """The -D defines and -I folders of a golden program's ``# ARGS:`` line (--clobber is
    exercised by compare_levels anyway)."""
    import shlex

    defines, include = {}, []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        if line.startswith("# ARGS:"):
            words = shlex.split(line[len("# ARGS:"):])
            for flag, value in zip(words, words[1:]):
                if flag == "-D":
                    name, _, v = value.partition("=")
                    defines[name] = int(v)
                elif flag == "-I":
                    include.append(str(path.parent / value))
    return defines, tuple(include)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_golden_program_at_every_level(path):
    defines, include = golden_args(path)
    compare_levels(path, defines, include, seeded)
