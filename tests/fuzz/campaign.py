"""A fuzz campaign: inputs spread over worker processes, each input bounded in time and memory.

Each worker is a process forked from a fork server (a fresh, single-threaded process that has
imported the tools once; forking the caller itself, a pytest-xdist worker say, which runs a thread
of its own, may deadlock, and Python 3.12 warns of it), with an address-space limit
(``RLIMIT_AS``) and its own workspace; it runs one input at a time under a wall-clock watchdog
(``setitimer``) and is replaced every ``recycle`` inputs, so state one input leaves behind in the
tools (caches, modules) cannot build up. The parent hands out (target, index) pairs and also keeps
a hard deadline of its own, so an input that hangs where the watchdog cannot interrupt it (C code)
or that kills its worker is a finding too, recorded by the same (seed, target, index).
"""
from __future__ import annotations

import json
import multiprocessing as mp
import os
import re
import resource
import signal
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path

from .execute import Case, Corpus, Outcome, make_case, run_case, run_real, signature
from .seeds import TARGETS, Workspace

_CONTEXT = mp.get_context("forkserver")
KEEP_PER_CLASS = 5  # reproducers written per finding class; later ones are only counted


class Hang(BaseException):
    """Raised by the watchdog; a BaseException so the tools' ``except Exception`` lets it by."""


@dataclass
class Settings:
    seed: int = 0
    inputs: int = 1000  # in all, spread evenly over the targets
    targets: tuple[str, ...] = TARGETS
    jobs: int = 2
    budget_s: float = 10.0  # per input (all its commands)
    memory_bytes: int = 3 << 30
    recycle: int = 2000
    real_every: int = 500  # also run one input in this many as real processes (0: never)
    findings_dir: Path | None = None


@dataclass
class Tally:
    """Counts per target and the findings, by class."""

    inputs: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    real: int = 0
    findings: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    wall_s: float = 0.0

    def add(self, target: str, index: int, seconds: float, outcome: Outcome | None) -> None:
        self.inputs[target] = self.inputs.get(target, 0) + 1
        self.seconds[target] = self.seconds.get(target, 0.0) + seconds
        if outcome is not None and outcome.finding:
            self.findings.setdefault(f"[{target}] {outcome.finding}", []).append((target, index))


_armed = False  # whether an alarm now is the running case's timeout


def _alarm(signum, frame) -> None:
    if _armed:
        raise Hang()


def _arm(seconds: float) -> None:
    global _armed
    _armed = True
    signal.setitimer(signal.ITIMER_REAL, seconds)


def _disarm() -> None:
    """Stop the alarm. It may go off as it is being stopped, once the case has ended at the very
    end of its budget: that Hang is the one the case had left, and is dropped (it ended the
    worker, which a test with a budget of 1 ms found on a fresh clone). Python may also run the
    handler of a signal that came during ``setitimer`` only after this returns, in the worker's
    loop: disarmed first, the handler then ignores it."""
    global _armed
    while True:
        try:
            _armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            return
        except Hang:
            continue


def _worker(conn: Connection, ws: Workspace, corp: Corpus, cfg: Settings) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (cfg.memory_bytes, cfg.memory_bytes))
    signal.signal(signal.SIGALRM, _alarm)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    os.chdir(ws.root)
    os.environ.pop("INCA_PAPER_DIR", None)  # the paper columns stay empty: fewer files read
    os.environ["INCA_DEBUG"] = "1"  # `inca repl`'s internal errors carry the frames to classify by
    ws.restore()
    while (job := conn.recv()) is not None:
        target, index = job
        start = time.perf_counter()
        case = make_case(corp, ws, target, cfg.seed, index)
        try:  # (armed inside: an alarm before the try would end the worker)
            _arm(cfg.budget_s)
            outcome = run_case(case, ws)
        except Hang:
            outcome = Outcome([], signature(traceback.format_exc(), "timeout"),
                              f"over {cfg.budget_s} s")
        finally:
            _disarm()
        real = not outcome.finding and cfg.real_every > 0 and index % cfg.real_every == 0
        if real:
            outcome = run_real(case, ws)
        conn.send((target, index, time.perf_counter() - start, outcome, real))
        if outcome.finding and outcome.finding.startswith("timeout"):
            return  # interrupted anywhere: this process's state cannot be trusted any more


class _Slot:
    """One worker process and the job it is running."""

    def __init__(self, n: int, ws: Workspace, corp: Corpus, cfg: Settings):
        self.ws, self.corp, self.cfg = ws, corp, cfg
        self.job: tuple[str, int] | None = None
        self.sent_at = 0.0
        self.done = 0
        self.start()

    def start(self) -> None:
        self.conn, child = _CONTEXT.Pipe()
        self.proc = _CONTEXT.Process(target=_worker, daemon=False,
                                                   args=(child, self.ws, self.corp, self.cfg))
        self.proc.start()
        child.close()
        self.done = 0

    def send(self, job: tuple[str, int]) -> None:
        if self.done >= self.cfg.recycle or not self.proc.is_alive():
            self.stop()
            self.start()
        self.job, self.sent_at = job, time.monotonic()
        self.conn.send(job)
        self.done += 1

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join()
        self.conn.close()
        self.start()


def run_campaign(cfg: Settings, progress=None) -> Tally:
    """Run ``cfg.inputs`` inputs round-robin over the targets; findings written as reproducers."""
    tally = Tally()
    _CONTEXT.set_forkserver_preload([__name__])  # (until the server starts; then it has them)
    jobs = iter([(cfg.targets[i % len(cfg.targets)], i // len(cfg.targets))
                 for i in range(cfg.inputs)])
    start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="inca-fuzz-") as tmp:
        spaces = [Workspace.create(Path(tmp) / f"w{n}") for n in range(cfg.jobs)]
        corp = Corpus(spaces[0])
        slots = [_Slot(n, spaces[n], corp, cfg) for n in range(cfg.jobs)]
        try:  # (the workers are stopped whatever happens: a live one would keep this process)
            for slot in slots:
                if (job := next(jobs, None)) is not None:
                    slot.send(job)
            hard = cfg.budget_s * 3 + (120 if cfg.real_every else 0)
            while any(s.job for s in slots):
                ready = wait([s.conn for s in slots if s.job], timeout=1.0)
                for slot in slots:
                    if slot.job is None:
                        continue
                    target, index = slot.job
                    if slot.conn in ready:
                        try:
                            msg = slot.conn.recv()
                        except (EOFError, OSError):
                            code = (slot.proc.join(5), slot.proc.exitcode)[1]
                            msg = (target, index, 0.0, Outcome([], f"worker died (exit {code})"), False)
                            slot.kill()
                    elif time.monotonic() - slot.sent_at > hard:
                        msg = (target, index, hard, Outcome([], "hang: the watchdog did not stop it"),
                               False)
                        slot.kill()
                    else:
                        continue
                    _record(tally, cfg, corp, slot.ws, msg)
                    slot.job = None
                    if (msg[3].finding or "").startswith("timeout"):  # the worker ends itself after one:
                        slot.stop()  # wait for it, or the next job may reach it as it exits
                        slot.start()
                    if (job := next(jobs, None)) is not None:
                        slot.send(job)
                    if progress:
                        progress(tally)
        finally:
            for slot in slots:
                slot.stop()
    tally.wall_s = time.monotonic() - start
    return tally


def _record(tally: Tally, cfg: Settings, corp: Corpus, ws: Workspace, msg: tuple) -> None:
    target, index, seconds, outcome, real = msg
    tally.add(target, index, seconds, outcome)
    tally.real += real
    if not outcome.finding or cfg.findings_dir is None:
        return
    key = f"[{target}] {outcome.finding}"
    if len(tally.findings[key]) <= KEEP_PER_CLASS:
        write_reproducer(cfg.findings_dir, make_case(corp, ws, target, cfg.seed, index), outcome)


def write_reproducer(folder: Path, case: Case, outcome: Outcome) -> Path:
    """A folder per input: its files, and ``case.json`` with everything needed to run it again."""
    slug = re.sub(r"[^\w.-]+", "_", f"{case.target} {outcome.finding}")[:120]
    out = Path(folder) / slug / f"{case.target}-{case.seed}-{case.index}"
    out.mkdir(parents=True, exist_ok=True)
    for name, data in case.files.items():
        (out / Path(name).name).write_bytes(data)
    meta = asdict(case) | {"files": sorted(case.files), "finding": outcome.finding,
                           "detail": outcome.detail,
                           "replay": f"python bench/fuzz_tools.py --replay {case.target}:{case.seed}:{case.index}"}
    (out / "case.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False,
                                              default=repr) + "\n", encoding="utf-8", errors="replace")
    return out


def replay(target: str, seed: int, index: int) -> tuple[Case, Outcome]:
    """Build and run one input again in this process (no limits: to debug it)."""
    with tempfile.TemporaryDirectory(prefix="inca-fuzz-") as tmp:
        ws = Workspace.create(Path(tmp))
        case = make_case(Corpus(ws), ws, target, seed, index)
        here = os.getcwd()
        os.chdir(ws.root)
        try:
            return case, run_case(case, ws)
        finally:
            os.chdir(here)
