"""Run a study once, price it many times: the cells of ``inca report`` (docs/studies.md).

Each execution, a (kernel, variant, opt level, payload, kernel params) with the seeded inputs, is
compiled and run once, by the local process pool or a Dask cluster (:mod:`.cluster`); every
profile point of the study (a named profile with the grid's parameter values) is priced from the
run's tally by :func:`~inca.interpreter.pricing.price`, the one pricing function. Finished
executions and cells go to the cache (:mod:`.cache`) as they arrive. Rows carry what was
computed and, where the paper published a figure for the same setting, the paper's value.
"""
from __future__ import annotations

import hashlib
import itertools
import os
import sys
from fractions import Fraction
from operator import itemgetter
from pathlib import Path
from typing import Callable, NamedTuple

from ..lang.frozen import frozen
from .cache import Cache, digest, priced_from, profile_key, tally_body, tally_from, toolchain
from .grid import MAX_ROWS, Axis
from .paper import PaperFigures
from .profiles import HOST_PARAMS, SCRATCHPAD_PARAMS, Profile, format_number, parse_number

SEED = 1
MAX_STEPS = 100_000_000
VARIANTS = ("default", "clobber")
OPTS = ("0", "1", "2", "fast")
#: The paper's hand-tuned row an optimised level is shown beside (scratchpad profile only): -O2
#: does what its "parallel" kernels do by hand, -Ofast what its "advanced-parallel" ones do.
PAPER_ROW = {("2", "default"): "parallel", ("2", "clobber"): "parallel-clobber",
             ("fast", "default"): "advanced-parallel", ("fast", "clobber"): "advanced-parallel"}


class Row(NamedTuple):
    """One measured point; ``dims`` holds the study's other dimensions (engine, grid), in order.
    (A named tuple: immutable like a frozen dataclass, and several times cheaper to build, which
    matters for studies of tens of thousands of rows.)"""

    kernel: str
    variant: str
    opt: str
    profile: str
    payload: int
    instructions: int
    time_us: str
    paper_instructions: int | None
    paper_time_us: str | None
    paper_row: str | None  # the paper's row the figures are from (its variant name)
    dims: tuple[tuple[str, str | int | None], ...] = ()

    @property
    def exact(self) -> bool | None:
        """True when every published figure equals the computed one (None: nothing published, or
        an optimised row, which is compared with the paper's hand-tuned row, not reproduced)."""
        if self.opt != "0":
            return None
        checks = []
        if self.paper_instructions is not None:
            checks.append(self.paper_instructions == self.instructions)
        if self.paper_time_us is not None:
            checks.append(self.paper_time_us == self.time_us)
        return all(checks) if checks else None


@frozen
class Study:
    """Every dimension of a study, checked."""

    kernels: dict[str, Path]
    payloads: list[int]
    profiles: list[str]
    variants: list[str]
    opts: tuple[str, ...]
    engine: str
    axes: list[Axis]
    show_engine: bool = False  # an engine column (the engine was chosen explicitly)
    max_steps: int = MAX_STEPS  # each run's step budget


@frozen
class Point:
    """A profile of the study: a named profile with the grid's parameter values applied."""

    name: str
    values: tuple[str | None, ...]  # per profile axis; None where the profile has no such parameter
    profile: Profile
    key: str  # its cache key
    setting: tuple[str, str | None] | None  # the paper's setting it is, if any
    overridden: bool


@frozen
class Run:
    """One execution: what is compiled and run once."""

    kernel: str
    path: str
    variant: str
    opt: str
    payload: int
    kparams: tuple[tuple[str, int], ...]


@frozen
class Task:
    """What a worker needs: the kernel's text travels with it, so a cluster's workers need only
    incac installed, not the study's files."""

    run: Run
    text: str
    engine: str
    profiles: tuple[Profile, ...]
    max_steps: int = MAX_STEPS


#: A priced cell: instructions, and the exact modeled time in ns as numerator and denominator
#: (kept as integers from the pricing to the printed row: a study prints tens of thousands).
Cell = tuple[int, int, int]


def cell(instructions: int, time_ns: Fraction) -> Cell:
    return instructions, time_ns.numerator, time_ns.denominator


@frozen
class Done:
    """A finished task: the program's hash, its tally and the priced cells."""

    program: str
    tally: object
    cells: tuple[Cell, ...]


RECORDING = None  # the profile runs are recorded under (made on first use: host memory, no limit)


def run_task(task: Task) -> Done:
    """Compile, check the data against every profile (before any input is made, as ``inca run``
    does), run once under no capacity, and price under each profile."""
    global RECORDING
    from ..compiler.frontend import Options, compile_text
    from ..lang.diagnostics import DiagnosticError
    from ..lang.tuples import to_json
    from .engine import RuntimeFault
    from .inputs import check_footprint, gather_inputs
    from .loader import execute, fault_diagnostic, price
    from .profiles import make_profile

    r = task.run
    options = Options({"PAYLOAD": r.payload, **dict(r.kparams)}, 2 if r.opt == "fast" else int(r.opt),
                      (), r.variant == "clobber", r.opt == "fast")
    tp = compile_text(r.path, task.text, options)
    for profile in task.profiles:
        check_footprint(tp, profile)
    if RECORDING is None:
        RECORDING = make_profile("recording", "host", {})
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], SEED)
    try:
        result = execute(tp, RECORDING, inputs, task.max_steps, None, task.engine)
    except RuntimeFault as fault:
        raise DiagnosticError([fault_diagnostic(tp, fault)]) from None
    cells = []
    for profile in task.profiles:
        p = price(result.tally, profile)
        cells.append(cell(p.instructions, p.time_ns))
    return Done(digest(to_json(tp)), result.tally, tuple(cells))


def paper_setting(profile: Profile) -> tuple[str, str | None] | None:
    """Which of the paper's settings a profile is: its ``scratchpad`` or ``base`` column, its
    link-speed table (the scratchpad with another ``link_gbps``), or none."""
    defaults = SCRATCHPAD_PARAMS if profile.memory == "scratchpad" else HOST_PARAMS
    differ = {k for k, v in profile.params if v != parse_number(defaults[k])}
    if profile.memory == "host":
        return None if differ else ("base", None)
    if not differ:
        return ("scratchpad", None)
    return ("link", format_number(profile["link_gbps"])) if differ == {"link_gbps"} else None


def points(study: Study) -> list[Point]:
    """Every profile point, profiles in order, then the grid's values in order."""
    from .profiles import load_profile

    prof_axes = [a for a in study.axes if a.kind == "profile"]
    out = []
    for name in study.profiles:
        params = dict(load_profile(name).params)
        mine = [a for a in prof_axes if a.name in params]
        for combo in itertools.product(*(a.values for a in mine)):
            overrides = dict(zip((a.name for a in mine), combo))
            prof = load_profile(name, overrides)
            values = tuple(overrides.get(a.name) for a in prof_axes)
            out.append(Point(name, values, prof, profile_key(prof.memory, prof.params),
                             paper_setting(prof), bool(overrides)))
    return out


def runs(study: Study) -> list[Run]:
    kern_axes = [a for a in study.axes if a.kind == "kernel"]
    from .grid import kernel_params

    out = []
    for name, path in study.kernels.items():
        mine = [a for a in kern_axes if a.name in kernel_params(path)]
        for v, o, p in itertools.product(study.variants, study.opts, study.payloads):
            for combo in itertools.product(*(a.values for a in mine)):
                out.append(Run(name, str(path), v, o, p,
                               tuple((a.name, int(x)) for a, x in zip(mine, combo))))
    return out


def _folder_texts(path: Path, cache: dict) -> tuple[str, str]:
    """A kernel's text and a hash of the texts beside it (what a ``use`` may read), read and
    hashed once per folder."""
    from ..compiler.frontend import read_source

    folder = path.parent
    if folder not in cache:
        h = hashlib.sha256()
        for p in sorted(folder.glob("*.incaq")):
            data = p.read_bytes()
            h.update(f"{p.name}\0{len(data)}\0".encode() + data)
        cache[folder] = h.hexdigest()
    return read_source(str(path)).text, cache[folder]


def _compile_key(run: Run, folders: dict) -> tuple[str, str]:
    """A run's kernel text, and the key of its compilation: everything that decides the tuple
    program (the text, the texts beside it, the options, the toolchain)."""
    text, beside = _folder_texts(Path(run.path), folders)
    return text, digest("compile", text, beside, run.variant, run.opt, run.payload, run.kparams,
                        toolchain())


def report_key(study: Study, paper: PaperFigures, fmt: str) -> str | None:
    """The key of a whole report's text: every compilation's key with what the rows show of the
    run, every profile point, the grid's axes, the engine column, the seed and step budget, the
    paper's figures, the format and the toolchain (which prints it). None for a study too large
    to run (:func:`compute` says so)."""
    pts, all_runs = points(study), runs(study)
    if len(pts) * len(all_runs) > MAX_ROWS:
        return None
    folders: dict = {}
    compiled = [(_compile_key(run, folders)[1], run.kernel, run.variant, run.opt, run.payload,
                 run.kparams) for run in all_runs]
    figures = [sorted(paper.counts.items()), sorted(paper.runtimes.items()), sorted(paper.link.items())]
    return digest("report", toolchain(), fmt, compiled,
                  [(p.key, p.name, p.values) for p in pts],
                  [(a.name, a.kind, a.values) for a in study.axes], study.profiles,
                  study.engine, study.show_engine, SEED, study.max_steps, figures)


def compute(study: Study, cache: Cache | None, workers: Callable[[int], int], scheduler: str | None,
            progress: bool) -> dict[Run, tuple[list[Point], list[Cell]]]:
    """Every cell: from the cache where it is there, else computed (and stored as it arrives);
    ``workers(n)`` is how many local processes run n executions."""
    from .pricing import price

    pts = points(study)
    all_runs = runs(study)
    total = len(pts) * len(all_runs)
    if total > MAX_ROWS:
        from ..lang.diagnostics import Diagnostic, DiagnosticError

        raise DiagnosticError([Diagnostic(f"the study has {total} rows", None,
                                          f"at most {MAX_ROWS}: sweep fewer values", file="--grid")])
    cells: dict[Run, tuple[list[Point], list]] = {}
    tasks: list[tuple[Task, str | None]] = []
    folders: dict = {}
    bar = Progress(progress, total)
    for run in all_runs:
        text, ckey = _compile_key(run, folders)
        body = cache.read("compile", ckey) if cache else None
        rkey = digest("run", body.get("program"), SEED, study.max_steps) if body else None
        entry = cache.read("run", rkey) if rkey else None
        got = _from_entry(entry, pts)
        if got is None:
            tasks.append((Task(run, text, study.engine, tuple(p.profile for p in pts),
                               study.max_steps), ckey))
            continue
        tally, stored = got
        new = [p for p in pts if p.key not in stored]
        for p in new:  # a study grown by a value: the run is cached, only its new cells are priced
            q = price(tally, p.profile)
            stored[p.key] = cell(q.instructions, q.time_ns)
        if new:
            _store(cache, rkey, tally, stored)
        cells[run] = (pts, [stored[p.key] for p in pts])
        bar.add(len(pts) - len(new), len(new))
    for i, done in _execute([t for t, _ in tasks], workers, scheduler):
        task, ckey = tasks[i]
        cells[task.run] = (pts, list(done.cells))
        if cache is not None:
            rkey = digest("run", done.program, SEED, study.max_steps)
            old = _from_entry(cache.read("run", rkey), [])
            stored = old[1] if old else {}
            stored.update({p.key: c for p, c in zip(pts, done.cells)})
            _store(cache, rkey, done.tally, stored)
            cache.write("compile", ckey, {"program": done.program})
        bar.add(0, len(pts))
    bar.end()
    return cells


def _from_entry(entry: dict | None, pts: list[Point]):
    """(tally, {profile key: cell}) of a run entry, or None when it is absent or malformed."""
    if entry is None:
        return None
    try:
        cells = entry["cells"]
        if not isinstance(cells, dict):
            return None
        return tally_from(entry["tally"]), {k: priced_from(v) for k, v in cells.items()}
    except (KeyError, ValueError, TypeError):
        return None


def _store(cache: Cache | None, rkey: str, tally, stored: dict) -> None:
    if cache is None:
        return
    cells = {k: list(c) for k, c in stored.items()}
    cache.write("run", rkey, {"tally": tally_body(tally), "cells": cells})


def _execute(tasks: list[Task], workers: Callable[[int], int], scheduler: str | None):
    """(index, Done) for each task as it finishes: on a Dask cluster, in a process pool, or here."""
    if not tasks:
        return
    if scheduler is not None:
        from .cluster import run_on_cluster

        yield from run_on_cluster(scheduler, run_task, tasks)
        return
    processes = workers(len(tasks))
    if processes == 1:
        for i, task in enumerate(tasks):
            yield i, run_task(task)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed  # not needed when all is cached

    with ProcessPoolExecutor(max_workers=processes, mp_context=_start_method()) as pool:
        try:
            futures = {pool.submit(run_task, t): i for i, t in enumerate(tasks)}
            for f in as_completed(futures):
                yield futures[f], f.result()
        except BaseException:  # a kernel's diagnostic, or Ctrl-C: do not run the rest first
            pool.shutdown(cancel_futures=True)
            raise


def _start_method():
    """How the pool starts its processes: the platform's default, except that a process running
    other threads (a Dask client, a test runner's worker) does not fork, which could copy a lock
    another thread holds and hang the child (Python 3.12+ warns about it); it spawns instead."""
    import multiprocessing

    if _threads() > 1 and multiprocessing.get_start_method() == "fork":
        return multiprocessing.get_context("spawn")
    return None


def _threads() -> int:
    """The process's threads: every OS thread where the system lists them, as Python's own fork
    warning counts them (threads started outside ``threading``, by pytest-xdist's execnet or a
    native library, are invisible to ``threading.active_count()``)."""
    import threading

    try:
        return max(len(os.listdir("/proc/self/task")), threading.active_count())
    except OSError:
        return threading.active_count()


class Progress:
    """``[####......] 120/22400 cells (80 cached)`` on stderr when it is a terminal."""

    def __init__(self, on: bool, total: int):
        self.on, self.total, self.done, self.cached = on, total, 0, 0

    def add(self, cached: int, computed: int) -> None:
        self.cached += cached
        self.done += cached + computed
        if self.on and self.total:
            filled = 30 * self.done // self.total
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} "
                             f"cells ({self.cached} cached)")
            sys.stderr.flush()

    def end(self) -> None:
        if self.on:
            sys.stderr.write("\n")


def rows(study: Study, cells: dict[Run, tuple[list[Point], list]], paper: PaperFigures) -> list[Row]:
    """A row per cell with the paper's figures beside, in a fixed order: kernel, variant, opt
    level, profile, the grid's values in the order given, payload."""
    from .pricing import us_text

    prof_axes = [a for a in study.axes if a.kind == "profile"]
    kern_axes = [a for a in study.axes if a.kind == "kernel"]
    order = {a.name: {v: i for i, v in enumerate(a.values)} for a in study.axes}
    engine = (("engine", study.engine),) if study.show_engine else ()
    # what depends only on the profile point and the kernel params (not on the run's counts),
    # worked out once per pair: a study prints tens of thousands of rows from a few hundred pairs
    placed: dict = {}

    def place(pt: Point, kp: dict) -> tuple:
        grid = {**dict(zip((a.name for a in prof_axes), pt.values)), **kp}
        dims = engine + tuple((a.name, None if grid[a.name] is None else a.value(grid[a.name]))
                              for a in study.axes)
        rank = tuple(-1 if grid[a.name] is None else order[a.name][grid[a.name]] for a in study.axes)
        return dims, (study.profiles.index(pt.name), rank)

    out = []
    new = tuple.__new__
    for run, (pts, got) in cells.items():
        params = dict(run.kparams)
        kp = {a.name: (str(params[a.name]) if a.name in params else None) for a in kern_axes}
        kp_key = tuple(kp.values())
        head = (run.kernel, VARIANTS.index(run.variant), OPTS.index(run.opt))
        for pt, (count, num, den) in zip(pts, got):
            where = placed.get((pt.key, kp_key))
            if where is None:
                where = placed[pt.key, kp_key] = place(pt, kp)
            dims, rank = where
            figures = _paper_figures(run, pt, paper) if not params else (None, None, None)
            # tuple.__new__: a Row without its generated __new__'s Python call, per row
            out.append(((*head, *rank, run.payload),
                        new(Row, (run.kernel, run.variant, run.opt, pt.name, run.payload, count,
                                  us_text(num, den), *figures, dims))))
    out.sort(key=itemgetter(0))
    return [r for _, r in out]


def _paper_figures(run: Run, pt: Point, paper: PaperFigures):
    """(instructions, time_us, row name) published for this cell: its own figures at -O0, its
    hand-tuned row's time above, each only where the profile is the paper's setting."""
    setting = pt.setting
    if run.opt == "0":
        published = paper.time_us(run.kernel, run.variant, setting[0], setting[1], run.payload) \
            if setting else None
        row = None
        if published is not None:
            row = (run.variant if run.variant != "default" else
                   pt.name if not pt.overridden or setting[0] != "link" else f"link_gbps={setting[1]}")
        return paper.count(run.kernel, run.variant, run.payload), published, row
    name = PAPER_ROW.get((run.opt, run.variant)) if setting == ("scratchpad", None) else None
    published = paper.time_us(run.kernel, name, "scratchpad", None, run.payload) if name else None
    return None, published, name if published is not None else None
