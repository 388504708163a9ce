"""The REPL never loses its session: a bug (any unexpected exception) in a command or a typed
chunk is reported in one line and the session goes on with its state as before the input; and
hostile inputs end in diagnostics, never in an exception out of the session.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import inca.interpreter.session as session_module
from inca.interpreter.debugger import Debugging
from inca.interpreter.profiles import load_profile
from inca.interpreter.session import Session

ROOT = Path(__file__).resolve().parents[1]
DOT = str(ROOT / "examples" / "kernels" / "dot-product.incaq")  # wherever pytest starts
KERNEL = """\
input  A: i64[3]
output s: i64

i = 0
while i < 3 do {
    s = s + A[i]
    i = i + 1
}
"""


class Bug(Exception):
    """What the injected failures raise."""


def boom(*args, **kwargs):
    raise Bug("injected\nsecond line")


def ok(s: Session, line: str) -> str:
    reply = s.feed(line)
    assert not reply.error, reply.text
    return reply.text


def state(s: Session) -> tuple:
    """Everything an input may change, by value."""
    return (dict(s.decls), {n: list(v) for n, v in s.values.items()}, dict(s.params),
            s.defs, dict(s.sources), list(s.stats), s.loaded, s.run, set(s.breaks), s.last,
            s.mode, s.profile)


@pytest.fixture
def s(tmp_path) -> Session:
    """A session with a location, a param, a function, a loaded kernel and a breakpoint."""
    (tmp_path / "k.incaq").write_text(KERNEL)
    session = Session(load_profile("scratchpad"))
    for line in ("x = 3", "param N = 4", "var v: f64[2]", "func twice(a: i64) -> i64 { return 2 * a }",
                 f":load {tmp_path / 'k.incaq'}", ":set A 1,2,3", ":break 6"):
        ok(session, line)
    return session


def assert_internal_error(text: str, what: str) -> None:
    assert text.count("\n") == 0, text  # one line, no traceback
    assert "internal error" in text and f"'{what}'" in text and "Bug: injected" in text
    assert "report" in text and "INCA_DEBUG" in text


def test_a_failing_command_handler_is_reported_and_the_session_goes_on(s, monkeypatch):
    before = state(s)
    errors = s.errors
    monkeypatch.setattr(Session, "cmd_mem", boom)
    reply = s.feed(":mem x")
    assert reply.error and not reply.quit
    assert_internal_error(reply.text, ":mem x")
    assert state(s) == before
    assert s.errors == errors + 1
    monkeypatch.undo()
    assert ok(s, "x") == "3"
    assert ok(s, "twice(x) + N") == "10"
    ok(s, ":unbreak")
    assert "s = 6" in ok(s, ":run")


def test_a_failing_compiler_is_reported_and_the_session_goes_on(s, monkeypatch):
    before = state(s)
    monkeypatch.setattr(session_module, "compile_chunk", boom)
    reply = s.feed("x = x + 1")
    assert_internal_error(reply.text, "x = x + 1")
    # a :load goes through the same function
    assert_internal_error(s.feed(f":load {DOT}").text, f":load {DOT}")
    assert state(s) == before
    monkeypatch.undo()
    assert ok(s, "x = x + 1") == "x = 4"


def test_a_failure_after_the_state_changed_puts_the_state_back(s, monkeypatch):
    # summarize runs after the chunk's results were taken into the session
    before = state(s)
    monkeypatch.setattr(session_module, "summarize", boom)
    assert_internal_error(s.feed("x = 100").text, "x = 100")
    assert state(s) == before
    assert ok(s, "x") == "3"


def test_a_multiline_chunk_is_named_by_its_first_line(s, monkeypatch):
    monkeypatch.setattr(session_module, "compile_chunk", boom)
    assert s.feed("for j in 0 .. 2 do {").more
    reply = s.feed("x = x + j }")
    assert "internal error in 'for j in 0 .. 2 do { ...'" in reply.text
    assert s.prompt == session_module.PROMPTS["incaq"]  # the block is over


def test_a_paused_run_the_failure_advanced_is_abandoned(s, monkeypatch):
    ok(s, ":step 2")
    monkeypatch.setattr(Debugging, "_read_back", boom)  # after the tuples fired
    reply = s.feed(":step")
    assert_internal_error(reply.text.split("\n")[-1], ":step")
    assert "the paused run was abandoned" in reply.text
    assert s.run is None
    monkeypatch.undo()
    ok(s, ":unbreak")
    assert "s = 6" in ok(s, ":run")


def test_a_paused_run_the_failure_did_not_touch_is_kept(s, monkeypatch):
    ok(s, ":step 2")
    run = s.run
    monkeypatch.setattr(Session, "cmd_stats", boom)
    assert "abandoned" not in s.feed(":stats").text
    assert s.run is run


def test_an_exception_that_cannot_describe_itself_is_reported_too(s, monkeypatch):
    class Mute(Exception):
        def __str__(self):
            raise RuntimeError("no message")

    def mute(*args):
        raise Mute()

    monkeypatch.setattr(Session, "cmd_stats", mute)
    reply = s.feed(":stats")
    assert "internal error in ':stats': Mute: (its message cannot be shown)" in reply.text
    assert ok(s, "x") == "3"


def test_debug_shows_the_traceback(monkeypatch):
    s = Session(load_profile("scratchpad"), debug=True)
    monkeypatch.setattr(Session, "cmd_stats", boom)
    text = s.feed(":stats").text
    assert text.startswith("Traceback") and "in boom" in text
    assert "internal error in ':stats'" in text.splitlines()[-1]


@pytest.mark.parametrize("line, message", [
    (":load no/such/file.incaq", "no such file"),
    (":load {bad}", "not UTF-8"),
    (":load {dir}", "is a directory"),
    (f":load {DOT} PAYLOAD=8000000000000", "simulates at most"),
    (f":load {DOT} PAYLOAD=1e400", "expected NAME=INTEGER"),
    ("var big: i64[100000000000]", "simulates at most"),
    (":set m=1e400", ":set needs a value"),
    (":set L=1e100000000", ":set needs a value"),
    (":set x 1e400", "too large"),
    (":profile scratchpad L=1e100000000", "out of range"),
    (":profile scratchpad m=1e400", "out of range"),
    (":profile scratchpad L=notanumber", "notanumber"),
    (":profile nosuchprofile", "nosuchprofile"),
    (":step " + "9" * 5000, "expected a positive number"),
    (":step \u00b2", "expected a positive number"),
    (":break " + "9" * 5000, "expected a line number"),
])
def test_hostile_inputs_are_diagnostics_and_change_nothing(s, tmp_path, line, message):
    (tmp_path / "bad.incaq").write_bytes(b"input A: i64\n\xff\xfe\n")
    (tmp_path / "dir.incaq").mkdir()
    line = line.format(bad=tmp_path / "bad.incaq", dir=tmp_path / "dir.incaq")
    before = state(s)
    reply = s.feed(line)
    assert reply.error, reply.text
    assert "internal error" not in reply.text
    assert message in reply.text
    assert state(s) == before
    assert ok(s, "x") == "3"


def test_load_of_data_beyond_the_model_allocates_nothing(s):
    # regression: :load gave the session a copy of each shared location before the install
    # refused the program, and [0] * 10**12 raised MemoryError out of the session
    reply = s.feed(f":load {DOT} PAYLOAD=8000000000000")
    assert reply.error and "1 GiB" in reply.text


def test_scripted_session_survives_hostile_inputs(tmp_path):
    (tmp_path / "bad.incaq").write_bytes(b"\xff\xfe")
    lines = ["x = 3", ":load missing.incaq", ":load bad.incaq", ":set m=1e400",
             f":load {DOT} PAYLOAD=8000000000000", "x + 1"]
    env = dict(os.environ, INCA_HISTORY="")
    proc = subprocess.run([sys.executable, "-m", "inca.interpreter.cli", "repl"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 1, proc.stderr  # inputs failed; not 70, an internal error
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert proc.stdout.splitlines() == ["x = 3", "4"]
