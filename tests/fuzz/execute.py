"""One fuzz input: built from (seed, target, index), run in-process, classified.

The tools run through their own ``main(argv)`` with standard streams replaced and the working
directory in the workspace, so an input costs milliseconds instead of a process start. What
counts as a finding: an exception escaping ``main`` (other than SystemExit), exit code 70, a
Python traceback on stderr, a REPL reply reporting an internal error, and (decided by the
campaign) an input that outlives its time budget or kills its worker.
"""
from __future__ import annotations

import io
import os
import random
import re
import subprocess
import sys
import traceback
from dataclasses import dataclass, field

from inca.compiler.driver import main as incac_main
from inca.interpreter.cli import main as inca_main
from inca.interpreter.profiles import load_profile
from inca.interpreter.session import Session

from .mutators import mutate_argv, mutate_json, mutate_script, mutate_text
from .seeds import CLI_SEEDS, OPTIONS, REPL_POOL, ROOT, Workspace, cli_value, corpus, repl_scripts

MAX_STEPS = "20000"  # every run is bounded in tuples, so time goes to the tools, not the kernels
EXTENSION = {"incaq": ".incaq", "incaa": ".incaa", "json": ".json"}
_FRAME = re.compile(r'File "([^"]+)", line \d+, in (\S+)')
_PROJECT = tuple(str(ROOT / d) + os.sep for d in ("compiler", "interpreter", "lang", "stdlib"))


@dataclass
class Case:
    """One input: the files it writes, the command lines it runs, the REPL lines it feeds."""

    target: str
    seed: int
    index: int
    files: dict[str, bytes] = field(default_factory=dict)
    commands: list[list[str]] = field(default_factory=list)  # [tool, *argv]
    stdin: str = ""
    script: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    """What an input did: ``finding`` is None when it behaved."""

    codes: list[int]
    finding: str | None = None  # the deduplication key: symptom and innermost project frame
    detail: str = ""


class Corpus:
    """The seeds of every target, loaded once per process."""

    def __init__(self, ws: Workspace):
        self.files = {t: corpus(ws, t) for t in EXTENSION}
        self.scripts = repl_scripts()


def make_case(corp: Corpus, ws: Workspace, target: str, seed: int, index: int) -> Case:
    """The input number ``index`` of ``target`` in campaign ``seed`` (deterministic)."""
    rng = random.Random(f"{seed}:{target}:{index}")
    case = Case(target, seed, index)
    if target in EXTENSION:
        seeds = corp.files[target]
        base = rng.choice(seeds)
        mutate = mutate_json if target == "json" and rng.random() < 0.7 else mutate_text
        name = "fuzz/input" + EXTENSION[target]
        case.files[name] = mutate(rng, base, seeds)
        stage = rng.choice(("json", "json", "asm", "tuples", "ast"))
        compile_argv = [name, "--emit", stage, "-o", "fuzz/out.txt"] + (["--stats"] * rng.randrange(2))
        run_argv = ["run", name, "--seed", "1", "--max-steps", MAX_STEPS] + rng.choice(
            ([], ["--json"], ["--profile", "base"], ["--clobber"]))
        # one of the two per input: both parse and check the file, and one halves the cost
        case.commands = [rng.choice((["incac"] + compile_argv, ["inca"] + run_argv))]
    elif target == "repl":
        case.script = mutate_script(rng, _window(rng, rng.choice(corp.scripts)), REPL_POOL)
    else:
        tool = rng.choice(("incac", "incac", "run", "run", "report", "repl"))
        seed_argv = rng.choice(CLI_SEEDS[tool])
        # the subcommand is kept apart (so the defaults that keep a run cheap go after it) except
        # in one input in twenty, where it is fuzzed too
        whole = tool == "incac" or rng.random() < 0.05
        argv = mutate_argv(rng, seed_argv if whole else seed_argv[1:], list(OPTIONS[tool]), cli_value)
        argv = ws.confine(argv if whole else [seed_argv[0]] + DEFAULTS[tool] + argv)
        case.commands = [["incac" if tool == "incac" else "inca"] + [_cheap(argv, i) for i in range(len(argv))]]
        if tool == "repl":
            case.stdin = "\n".join(mutate_script(rng, _window(rng, rng.choice(corp.scripts)),
                                                  REPL_POOL)) + "\n"
    return case


def _window(rng: random.Random, script: list[str]) -> list[str]:
    """A run of at most 12 consecutive lines: every line is compiled, so long scripts are slow,
    and most bugs need only a few lines of state before them."""
    start = rng.randrange(max(1, len(script) - 11))
    return script[start:start + 12]


# Put before the fuzzed options (argparse keeps the last value, so a fuzzed one still wins): runs
# bounded in tuples, reports small and in this process (the fuzzer's workers are the parallelism).
DEFAULTS = {"incac": [], "run": ["--max-steps", MAX_STEPS], "repl": ["--max-steps", MAX_STEPS],
            "report": ["--kernels", "dot-product", "--payloads", "128", "--profiles", "scratchpad",
                       "--variants", "default", "-j", "1", "-q"]}


def _cheap(argv: list[str], i: int) -> str:
    """Argument ``i`` with a valid, larger-than-useful ``-j`` or ``--max-steps`` value lowered
    (a value the bounded parsers must refuse, of 60 digits or more, is left to them)."""
    prev, arg = (argv[i - 1] if i else ""), argv[i]
    m = re.fullmatch(r"(--jobs=|--max-steps=|-j)?(\d{1,59})", arg)
    if not m:
        return arg
    option = (m.group(1) or prev).rstrip("=")
    if option in ("-j", "--jobs"):
        return (m.group(1) or "") + "1"
    if option == "--max-steps" and int(m.group(2)) > int(MAX_STEPS):
        return (m.group(1) or "") + MAX_STEPS
    return arg


def _stream() -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)


def run_case(case: Case, ws: Workspace) -> Outcome:
    """Run every command of the case (or feed its script) in this process."""
    for name, data in case.files.items():
        (ws.root / name).parent.mkdir(parents=True, exist_ok=True)
        (ws.root / name).write_bytes(data)
    if case.target == "repl":
        return _feed(case.script)
    codes = []
    for tool, *argv in case.commands:
        code, err = _call(incac_main if tool == "incac" else inca_main, argv, case.stdin)
        codes.append(code)
        if code == 70 or "Traceback" in err or "internal error" in err:
            return Outcome(codes, signature(err, f"exit {code}"), f"{tool} {argv!r}\n{err[-4000:]}")
    ws.restore()
    return Outcome(codes)


def _call(main, argv: list[str], stdin: str) -> tuple[int, str]:
    """``main(argv)`` with fresh standard streams; the exit code and what went to stderr."""
    saved = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout = io.StringIO(stdin), _stream()
    sys.stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace",
                                  write_through=True)
    err = sys.stderr
    try:
        code = main(argv)
    except SystemExit as e:  # argparse (usage, --help, --version)
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except Exception:  # escaped main: always a finding, reported like the tools report a bug
        traceback.print_exc(file=err)
        code = 70
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved
    return code, err.buffer.getvalue().decode("utf-8", "replace")


def _feed(script: list[str]) -> Outcome:
    """Feed a REPL script to a Session (debug on, so an internal error carries its traceback)."""
    s = Session(load_profile("scratchpad"), max_steps=int(MAX_STEPS), debug=True)
    try:
        for line in script:
            reply = s.feed(line)
            if "internal error" in reply.text or "Traceback" in reply.text:
                return Outcome([1], signature(reply.text, "internal error"), f"{line!r}\n{reply.text[-4000:]}")
            if reply.quit:
                break
        s.end_of_input()
    except Exception:
        text = traceback.format_exc()
        return Outcome([70], signature(text, "escaped feed"), text[-4000:])
    return Outcome([0])


def signature(text: str, symptom: str) -> str:
    """Deduplication key: the symptom, the exception type and the innermost project frame."""
    frames = [m for m in _FRAME.finditer(text) if m.group(1).startswith(_PROJECT)]
    where = "no project frame"
    if frames:
        path, func = frames[-1].groups()
        where = f"{os.path.relpath(path, ROOT)}:{func}"
    exc = re.findall(r"^(\w+(?:\.\w+)*(?:Error|Exception|Exit|Interrupt|Warning|Bug)\b)", text, re.M)
    return f"{symptom}: {exc[-1] if exc else '?'} at {where}"


def run_real(case: Case, ws: Workspace, timeout: float = 60.0) -> Outcome:
    """The same commands through the installed entry points, each in a new process: checks that
    the in-process harness sees what a user sees (import-time and stream-encoding behaviour)."""
    codes = []
    for tool, *argv in case.commands or [["inca", "repl", "--max-steps", MAX_STEPS]]:
        module = "inca.compiler.driver" if tool == "incac" else "inca.interpreter.cli"
        stdin = case.stdin if case.target != "repl" else "\n".join(case.script) + "\n"
        try:
            p = subprocess.run([sys.executable, "-m", module, *argv], cwd=ws.root, timeout=timeout,
                               input=stdin.encode("utf-8", "surrogateescape"), capture_output=True,
                               env={**os.environ, "INCA_DEBUG": "1"})
        except subprocess.TimeoutExpired:
            return Outcome(codes, f"subprocess timeout: {tool}", f"{tool} {argv!r}")
        err = p.stderr.decode("utf-8", "replace")
        codes.append(p.returncode)
        if p.returncode in (70, 130) or p.returncode < 0 or "Traceback" in err:
            return Outcome(codes, signature(err, f"subprocess exit {p.returncode}"),
                           f"{tool} {argv!r}\n{err[-4000:]}")
    return Outcome(codes)
