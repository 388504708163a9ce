"""The REPL: scripted sessions (``inca repl < session``), the session state machine, the stepper,
the transcripts in the documentation, and a pseudo-terminal test of completion and history.

Expected counts and times are computed with :func:`inca.interpreter.loader.execute` on the same
program and inputs, never copied from an earlier run.
"""
from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from inca.compiler.frontend import Options, load_tuples
from inca.interpreter.loader import execute, time_us_text, tuple_info
from inca.interpreter.profiles import load_profile
from inca.interpreter.repl import completions
from inca.interpreter.session import CONTINUATION, PROMPTS, Session

ROOT = Path(__file__).resolve().parents[1]
DOT = "examples/kernels/dot-product.incaq"

# Line 7 is the loop body's first statement: tuple 5, `ADD s, s, A[i]` (INCA-Q.md's -O0 rules).
KERNEL = """\
# a small kernel for the REPL tests
input  A: i64[3]
output s: i64

i = 0
while i < 3 do {
    s = s + A[i]
    i = i + 1
}
"""


def repl(stdin: str, *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """``inca repl ARGS`` with ``stdin`` as its input (not a terminal)."""
    env = dict(os.environ, INCA_HISTORY="")
    return subprocess.run([sys.executable, "-m", "inca.interpreter.cli", "repl", *args],
                          input=stdin, capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=120)


def new_session(**kw) -> Session:
    return Session(load_profile(kw.pop("profile", "scratchpad")), **kw)


def feed(s: Session, text: str) -> str:
    """Feed every line; the text of the last reply (earlier replies must not be errors)."""
    lines = text.splitlines()
    for line in lines[:-1]:
        reply = s.feed(line)
        assert not reply.error, reply.text
    return s.feed(lines[-1]).text


def error(s: Session, line: str) -> str:
    reply = s.feed(line)
    assert reply.error, reply.text
    return reply.text


@pytest.fixture
def kernel(tmp_path, monkeypatch) -> str:
    monkeypatch.chdir(tmp_path)
    Path("k.incaq").write_text(KERNEL, encoding="utf-8")
    return "k.incaq"


# ---- scripted sessions (subprocess, stdin not a terminal) ------------------------------------

def test_scripted_arithmetic_loop_and_an_error_that_leaves_the_session_usable():
    proc = repl("x = 6 * 7\n"
                "x + 1\n"
                "s = 0\n"
                "i = 0\n"
                "while i < 4 do {\n"
                "    s = s + i\n"
                "    i = i + 1\n"
                "}\n"
                "y = x +\n"
                "y = x / 2\n"
                "s\n")
    assert proc.stdout == "x = 42\n43\ns = 0\ni = 0\ns = 6\ni = 4\ny = 21\n6\n"
    assert proc.stderr == ("<repl:6>:1:8: error: expected an expression after '+'\n"
                           "    y = x +\n"
                           "           ^\n")
    assert proc.returncode == 1  # a scripted session reports that some input failed


def test_scripted_load_set_run_mem(tmp_path):
    (tmp_path / "b.json").write_text("[0.5, 0.5, 0.5, 0.5]", encoding="utf-8")
    proc = repl(f":load {DOT} PAYLOAD=32\n"
                ":set A 1,2,3,4\n"
                f":set B @{tmp_path / 'b.json'}\n"
                ":run\n"
                ":mem c\n"
                ":q\n"
                "this line is never read\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    tp = load_tuples(str(ROOT / DOT), Options({"PAYLOAD": 32}))
    r = execute(tp, load_profile("scratchpad"), {"A": [1.0, 2.0, 3.0, 4.0], "B": [0.5] * 4})
    lines = proc.stdout.splitlines()
    assert lines[0] == (f"loaded {DOT}: {len(tp.tuples)} tuples (not run yet: :set its inputs, "
                        "then :run or :step)")
    assert "  input  A: f64[4]" in lines and "  output c: f64" in lines
    assert "A = [1.0, 2.0, 3.0, 4.0]" in lines and "B = [0.5, 0.5, 0.5, 0.5]" in lines
    classes = ", ".join(f"{k} {v}" for k, v in r.by_class.items())
    run = lines.index(f"c = {r.outputs['c']}")
    assert lines[run:run + 6] == [
        "c = 5.0",
        f"instructions    {r.instructions} ({classes})",
        f"messages        {r.messages}",
        f"memory accesses {r.memory_accesses}",
        f"time            {time_us_text(r.time_ns)} us ({float(r.time_ns):g} ns)",
        "c: output f64 = 5.0",
    ]


def test_scripted_step_and_break_show_the_pc_and_the_source_line(kernel, tmp_path):
    proc = repl(":load k.incaq\n"
                ":set A 10,20,30\n"
                ":break 7\n"
                ":run\n"
                ":step\n"
                ":continue\n"
                ":mem i\n"
                ":pc\n"
                ":unbreak 7\n"
                ":continue\n", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    tp = load_tuples(str(tmp_path / "k.incaq"))
    prof = load_profile("scratchpad")
    fired = [1, 2, 3, 4, 5, 6, 7, 2, 3, 4]  # to the second entry into line 7 (tuple 5)
    t10 = sum(tuple_info(tp, prof)[k - 1].cost for k in fired)
    r = execute(tp, prof, {"A": [10, 20, 30]})
    classes = ", ".join(f"{k} {v}" for k, v in r.by_class.items())
    assert proc.stdout.splitlines()[4:] == [
        "A = [10, 20, 30]",
        "breakpoint at k.incaq:7 (tuple 5)",
        "breakpoint, line 7",
        "pc 5: ADD s, s, A[i]  (k.incaq:7)",
        "     7 |     s = s + A[i]",
        "pc 6: ADD i, i, 1  (k.incaq:8)",
        "     8 |     i = i + 1",
        "breakpoint, line 7",
        "pc 5: ADD s, s, A[i]  (k.incaq:7)",
        "     7 |     s = s + A[i]",
        "i: var i64 = 1",
        "pc 5: ADD s, s, A[i]  (k.incaq:7)",
        "     7 |     s = s + A[i]",
        f"  10 tuples fired, modeled time {float(t10):g} ns",
        "breakpoint on line 7 removed",
        "s = 60",
        f"instructions    {r.instructions} ({classes})",
        f"messages        {r.messages}",
        f"memory accesses {r.memory_accesses}",
        f"time            {time_us_text(r.time_ns)} us ({float(r.time_ns):g} ns)",
    ]


def test_bare_inca_without_a_terminal_prints_help_and_exits_2():
    proc = subprocess.run([sys.executable, "-m", "inca.interpreter.cli"], capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=60)
    assert proc.returncode == 2
    assert "repl" in proc.stdout and "usage: inca" in proc.stdout


def test_repl_file_argument_loads_it(kernel, tmp_path):
    proc = repl(":set A 1,2,3\n:run\n", "k.incaq", "--profile", "base", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("loaded k.incaq: 8 tuples")
    r = execute(load_tuples(str(tmp_path / "k.incaq")), load_profile("base"), {"A": [1, 2, 3]})
    assert f"time            {time_us_text(r.time_ns)} us ({float(r.time_ns):g} ns)" in proc.stdout


def test_unfinished_block_at_the_end_of_input_is_an_error():
    proc = repl("x = 1\nwhile x < 3 do {\n  x = x + 1\n")
    assert proc.stdout == "x = 1\n"
    assert proc.stderr == ("<repl:2>: error: the input ended inside an unfinished block (its "
                           "braces do not balance)\n")
    assert proc.returncode == 1


# ---- the session ------------------------------------------------------------------------------

def test_prompts_show_the_mode_and_continuation():
    s = new_session()
    assert s.prompt == PROMPTS["incaq"] == "incaq> "
    assert s.feed("if 1 > 0 then {").more
    assert s.prompt == CONTINUATION
    assert feed(s, "  y = 2\n}") == "y = 2"
    s.feed(":asm")
    assert s.prompt == PROMPTS["incaa"] == "incaa> "
    assert s.feed(":{").more and s.prompt == CONTINUATION
    assert feed(s, "PUTL z, y\nADD z, z, 1\n:}") == "z = 3"
    s.feed(":incaq")
    assert feed(s, "z * y") == "6"


def test_state_persists_declarations_params_and_functions():
    s = new_session()
    assert feed(s, "param N = 3") == "N = 3"
    assert feed(s, "inout V: f64[N]") == "V = [0.0, 0.0, 0.0]"
    assert feed(s, "func sq(v: f64) -> f64 { return v * v }") == ""
    assert feed(s, "for k in 0 .. N do { V[k] = sq(f64(k)) }") == "V = [0.0, 1.0, 4.0]\nk = 3"
    assert feed(s, "sq(V[2])") == "16.0"
    assert feed(s, "V") == "[0.0, 1.0, 4.0]"  # a bare name is shown from memory
    assert sorted(s.decls) == ["V", "k"]  # no temporaries, no inlined locals, no `it`
    assert s.params == {"N": 3}
    # typing a declaration or function again replaces it
    assert feed(s, "func sq(v: f64) -> f64 { return v * v * v }\nsq(2.0)") == "8.0"
    assert feed(s, "inout V: i64[2]") == "V = [0, 0]"
    assert s.decls["V"].shape == (2,) and s.decls["V"].dtype == "i64"
    feed(s, "V[1] = 5\nvar t: i64 = 3\nt = 4")
    assert feed(s, "inout V: i64[2]\nvar t: i64 = 3") == "t = 3"  # back to the initial values
    assert s.values["V"] == [0, 0]


def test_used_modules_persist_and_their_calls_show_values():
    s = new_session()
    feed(s, "use linalg\ninout V: f64[3]\n:set V 1,2,3")
    assert feed(s, "dot(V, V, 3)") == "14.0"  # a value-returning module function: an expression
    assert feed(s, "scale(2.0, V, 3)") == "V = [2.0, 4.0, 6.0]"  # no value: a statement
    assert sorted(s.decls) == ["V"]


def test_errors_point_at_the_typed_text_and_change_nothing():
    s = new_session()
    feed(s, "x = 1")
    assert error(s, "x + ") == ("<repl:2>:1:4: error: expected an expression after '+'\n"
                                "    x + \n"
                                "       ^")
    assert error(s, "y = q + 1") == ("<repl:3>:1:5: error: 'q' is not defined\n"
                                     "    y = q + 1\n"
                                     "        ^")
    assert error(s, "x + 2.5 * q").startswith("<repl:4>:1:11: error: 'q' is not defined\n")
    assert error(s, "x = 2.5").splitlines()[0] == ("<repl:5>:1:1: error: assigning an f64 value to "
                                                   "the i64 location 'x' would truncate it")
    assert error(s, ":set x 2.5").splitlines()[:3] == [
        "<repl:6>:1:8: error: x is i64 but '2.5' is not an integer", "    :set x 2.5",
        "           ^~~"]
    assert error(s, ":mem xx").endswith("hint: did you mean 'x'?")
    assert error(s, ":frob").splitlines()[0] == "<repl:8>:1:1: error: unknown command ':frob'"
    assert error(s, ":s").splitlines()[0] == "<repl:9>:1:1: error: ':s' is ambiguous: :set, :step, :stats"
    assert s.decls.keys() == {"x"} and s.values["x"] == [1] and s.errors == 8
    assert feed(s, "x = x + 1") == "x = 2"


def test_a_runtime_fault_is_a_diagnostic_and_memory_stays_as_the_nic_left_it():
    s = new_session(max_steps=50)
    feed(s, "inout V: i64[2]")
    text = error(s, "for k in 0 .. 4 do { V[k] = 7 }")
    assert text.startswith("<repl:2>:1:22: error: runtime error: index 2 is out of bounds for 'V' "
                           "(dimension 0 has size 2) in tuple ")
    assert s.values["V"] == [7, 7] and s.values["k"] == [2]
    text = error(s, "while 1 > 0 do { k = k + 1 }")
    assert "did not finish within 50 steps" in text
    assert text.endswith("hint: start the REPL with a larger --max-steps N")
    assert feed(s, "k = 0") == "k = 0"


def test_a_long_loop_runs_on_the_fast_engines_and_leaves_what_the_reference_leaves(monkeypatch):
    """A statement runs as ``inca run --engine auto`` does: a loop stopped by the default limit
    of 100,000,000 steps took 15 s on the reference (0.3 s now). At a step limit and at a fault
    the session keeps what the reference would have left."""
    import inca.interpreter.engine as reference
    import inca.interpreter.pyengine as pyengine
    import inca.interpreter.selection as selection

    fast = []
    python_run = pyengine.run
    monkeypatch.setattr(pyengine, "run", lambda *a, **k: fast.append(1) or python_run(*a, **k))
    script = ("inout V: i64[2]\nd = 0\nn = 5", "while n > 0 do { d = d + 1 }",
              "for k in 0 .. 300000 do { V[k / 100000] = k }")
    left = []
    for engine in ("auto", "reference"):
        if engine == "reference":
            monkeypatch.setattr(selection, "run", lambda nic, pc, done, steps: reference.run(
                nic, pc, done, steps))
        s = new_session(max_steps=3_000_001)
        feed(s, script[0])
        assert "did not finish within 3000001 steps" in error(s, script[1])
        assert "index 2 is out of bounds for 'V'" in error(s, script[2])
        left.append((s.values["d"], s.values["V"], s.values["k"]))
    assert left[0] == left[1] and len(fast) == 2  # (the auto session's two loops)


def test_asm_mode_sees_the_session_and_declares_into_it():
    s = new_session()
    feed(s, "inout V: i64[4]\nparam N = 4")
    s.feed(":asm")
    assert feed(s, ".var acc i64 = 5") == "acc = 5"
    assert feed(s, "PUTL V[0:4], 3") == "V = [3, 3, 3, 3]"
    assert feed(s, ":{\n  PUTL j, 0\ntop:\n  ADD acc, acc, V[j]\n  ADD j, j, 1\n  PUTL r0, j\n"
                   "  LT r0, r0, N\n  BLEZ r0, done\n  JMP top\ndone:\n  END\n:}"
                ) == "acc = 17\nj = 4\nr0 = 0"
    assert error(s, "ADD acc, q, 1").startswith("<repl:7>:1:10: error: ADD is two-address")
    assert feed(s, ".var acc f64") == "acc = 0.0"  # declared again: the new declaration wins
    s.feed(":incaq")
    assert feed(s, "acc + 1.5") == "1.5"


def test_load_set_run_agrees_with_execute_and_shares_memory(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    s = new_session(profile="base")
    feed(s, f":load {DOT} PAYLOAD=64")
    (tmp_path / "a.json").write_text(json.dumps(list(range(8))), encoding="utf-8")
    feed(s, f":set A @{tmp_path / 'a.json'}\n:set B 1,1,1,1,1,1,1,2")
    out = feed(s, ":run")
    tp = load_tuples(DOT, Options({"PAYLOAD": 64}))
    r = execute(tp, load_profile("base"), {"A": [float(v) for v in range(8)],
                                           "B": [1.0] * 7 + [2.0]})
    assert out.splitlines()[0] == f"c = {r.outputs['c']}" == "c = 35.0"
    assert feed(s, "c * 2.0") == "70.0"  # the program's output is session memory
    assert feed(s, ":run").splitlines()[0] == "c = 35.0"  # a run starts as `inca run` does
    assert s.stats[-1][1].time_ns == r.time_ns
    assert error(s, ":set A 1,2").splitlines()[0] == ("<repl:7>:1:8: error: A holds 8 elements, "
                                                      "but 2 were given")


def test_stepping_a_paused_program_with_set_and_statements(kernel):
    s = new_session()
    feed(s, ":load k.incaq\n:set A 1,2,3")
    assert feed(s, ":step 4") == "pc 5: ADD s, s, A[i]  (k.incaq:7)\n     7 |     s = s + A[i]"
    assert feed(s, ":mem r0") == "r0: var i64 = 1"  # a private scalar of the paused program
    assert feed(s, ":set i 2") == "i = 2"  # written into the paused NIC
    feed(s, "s = 100")  # a statement's changes reach the paused memory too
    assert feed(s, ":continue").splitlines()[0] == "s = 103"
    assert feed(s, ":pc") == "no program is running (:load one, then :step or :run)"
    assert error(s, ":continue").splitlines()[0] == "<repl:9>:1:1: error: no program is paused"
    assert error(s, ":break 4").splitlines() == [
        "<repl:10>:1:8: error: no instruction comes from line 4 of k.incaq", "    :break 4",
        "           ^", "hint: lines with instructions: 5, 6, 7, 8"]


def test_stats_accumulate_per_statement_and_in_total(kernel):
    s = new_session()
    assert feed(s, ":stats") == "nothing has run yet"
    feed(s, "x = 2\nfunc f() { }\n:load k.incaq\n:set A 1,1,1\n:run\n:profile base\ny = x * 3")
    rows = feed(s, ":stats").splitlines()
    results = [r for _, r in s.stats]
    assert [w for w, _ in s.stats] == ["x = 2", ":run k.incaq", "y = x * 3"]
    assert results[1].instructions == execute(load_tuples("k.incaq"), load_profile("scratchpad"),
                                              {"A": [1, 1, 1]}).instructions
    assert results[2].profile.name == "base"
    total = sum(r.time_ns for r in results)
    assert rows[-1].endswith(f"{time_us_text(total)} us ({float(total):g} ns)")
    assert rows[-1].startswith(f"total: 3 runs, {sum(r.instructions for r in results)} instructions")


def test_listing_tuples_profile_reset_help_and_quit(kernel):
    s = new_session()
    assert error(s, ":tuples").splitlines()[0] == "<repl:1>:1:1: error: nothing to list yet"
    feed(s, "x = 3")
    assert feed(s, ":listing").splitlines() == [f"{'1 PUTL x, 3':<40} ; <repl:2>:1", "2 END"]
    feed(s, ":load k.incaq")
    assert feed(s, ":tuples").splitlines()[0] == "; tuple program k.incaq (8 tuples, format inca-tuples/2)"
    assert feed(s, ":profile scratchpad-400g m=2").startswith("profile scratchpad-400g (scratchpad): "
                                                             "link_gbps=400 msg_bits=512 L=0 m=2")
    assert error(s, ":profile nope").splitlines()[1:3] == ["    :profile nope", "             ^~~~"]
    assert "commands:" in feed(s, ":help") and feed(s, ":he ste").startswith(":step [N]")
    assert feed(s, ":reset").startswith("reset:") and not s.decls and s.loaded is None
    assert s.profile.name == "scratchpad-400g"
    assert s.feed(":q").quit and s.feed(":quit").quit


def test_a_command_drops_an_unfinished_block():
    s = new_session()
    assert s.feed("while 1 > 0 do {").more
    assert s.feed(":mem").text == "(the unfinished block was dropped)\nno locations yet"
    assert s.prompt == PROMPTS["incaq"]


def test_completion_of_commands_and_names():
    s = new_session()
    feed(s, "counter = 1\ncount2 = 2\nfunc clamp(v: i64) -> i64 { return max(v, 0) }")
    assert completions(s, ":st") == (3, [":stats", ":step"])
    assert completions(s, "x = cou") == (3, ["count2", "counter"])
    assert completions(s, "y = cl") == (2, ["clamp"])
    assert completions(s, "wh") == (2, ["while"])
    assert completions(s, ":mem co") == (2, ["count2", "counter"])
    assert completions(s, ":profile ba") == (2, ["base"])
    s.feed(":asm")
    assert completions(s, "PU") == (2, ["PUTL"])


# ---- the documentation's transcripts are real ---------------------------------------------------

@pytest.mark.parametrize("page", ["README.md", "docs/repl.md"])
def test_transcripts_in_the_docs_replay(page, monkeypatch):
    monkeypatch.chdir(ROOT)
    text = (ROOT / page).read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- repl-transcript -->\n```[a-z]*\n(.*?)```\n<!-- /repl-transcript -->",
                        text, re.S)
    assert blocks, f"{page} has no <!-- repl-transcript --> block"
    prompts = (*PROMPTS.values(), CONTINUATION)
    for block in blocks:
        s = new_session()
        lines = block.splitlines()
        lines = lines[next(i for i, ln in enumerate(lines) if ln.startswith(prompts)):]
        got: list[str] = []
        for line in lines:
            if not line.startswith(prompts):
                continue
            prompt = next(p for p in prompts if line.startswith(p))
            assert prompt == s.prompt, f"{page}: prompt of {line!r}"
            got.append(line)
            reply = s.feed(line[len(prompt):])
            got.extend(reply.text.splitlines())
        assert "\n".join(got) == "\n".join(lines), f"{page}: the transcript is not what the REPL prints"


# ---- a terminal: completion and history (prompt_toolkit) ---------------------------------------

class _Terminal:
    """A child process on a pseudo-terminal, read with timeouts."""

    def __init__(self, env: dict):
        import pty

        master, slave = pty.openpty()
        self.proc = subprocess.Popen([sys.executable, "-m", "inca.interpreter.cli"], stdin=slave,
                                     stdout=slave, stderr=slave, env=env, cwd=ROOT, close_fds=True)
        os.close(slave)
        self.fd, self.buf, self.pos = master, b"", 0

    def expect(self, want: str, timeout: float = 20) -> None:
        end = time.monotonic() + timeout
        while (i := self.buf.find(want.encode(), self.pos)) < 0:
            assert time.monotonic() < end, f"{want!r} did not appear in {self.buf[self.pos:]!r}"
            if select.select([self.fd], [], [], 0.1)[0]:
                try:
                    self.buf += os.read(self.fd, 4096)
                except OSError:  # the child closed the terminal
                    pass
        self.pos = i + len(want)

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def settle(self, quiet: float = 0.5, timeout: float = 20) -> None:
        """Read until the child has written something and then nothing for ``quiet`` seconds."""
        start, end = len(self.buf), time.monotonic() + timeout
        last = time.monotonic()
        while time.monotonic() < end and (len(self.buf) == start or time.monotonic() - last < quiet):
            if select.select([self.fd], [], [], 0.05)[0]:
                try:
                    self.buf += os.read(self.fd, 4096)
                    last = time.monotonic()
                except OSError:
                    break
        self.pos = len(self.buf)

    def close(self) -> int:
        code = self.proc.wait(timeout=20)
        os.close(self.fd)
        return code


def test_terminal_completion_and_persistent_history(tmp_path):
    pytest.importorskip("prompt_toolkit")
    pytest.importorskip("pty")
    history = tmp_path / "history"
    env = dict(os.environ, INCA_HISTORY=str(history), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    t = _Terminal(env)  # bare `inca` on a terminal starts the REPL
    t.expect("incaq>")  # each key is sent once the prompt is up (its keys are read raw)
    t.send("counter = 41\r")
    t.expect("counter = 41\r\n")
    t.expect("incaq>")
    t.send("cou\t")  # completes the name
    t.expect("nter")
    t.send(" + 1\r")
    t.expect("42\r\n")
    t.expect("incaq>")
    t.send(":he\t")  # completes the command
    t.expect("lp")
    t.send("\r")
    t.expect("commands:")
    t.expect("incaq>")
    t.send(":q\r")
    assert t.close() == 0
    assert [ln[1:] for ln in history.read_text().splitlines() if ln.startswith("+")] == [
        "counter = 41", "counter + 1", ":help", ":q"]
    t = _Terminal(env)  # a new session recalls the old one's lines
    t.expect("incaq>")
    for _ in range(4):  # :q, :help, counter + 1, counter = 41
        t.send("\x1b[A")
        t.settle()
    t.send("\r")
    t.expect("counter = 41\r\n")
    t.expect("incaq>")
    t.send("\x04")  # Ctrl-D ends the session
    assert t.close() == 0


def test_run_summary_is_the_one_inca_run_prints():
    # regression: the REPL kept its own copy of the summary and printed 3052760 ns as 3.05276e+06
    from pathlib import Path

    from inca.compiler.assembler import assemble_text
    from inca.interpreter.loader import execute, summary_lines
    from inca.interpreter.profiles import load_profile
    from inca.interpreter.protocol import run_text
    from inca.lang.tuples import encode

    text = (Path(__file__).resolve().parents[1] / "examples" / "asm" / "dot-product-slide23.incaa").read_text()
    r = execute(encode(assemble_text(text.replace("50", "1024"))), load_profile("base"))
    assert run_text(r).splitlines()[1:] == summary_lines(r)
    assert summary_lines(r)[3] == "time            3052.76 us (3052760 ns)"


def test_do_while_and_loop_span_lines():
    s = new_session()
    feed(s, "x = 0")
    # the `while` of a do block may follow its `}` on the next line: the input goes on
    assert s.feed("do {").more
    assert s.feed("  x = x + 3").more
    assert s.feed("}").more and s.prompt == CONTINUATION
    assert feed(s, "while x < 10") == "x = 12"
    assert s.feed("do { x = x - 1 }").more
    assert feed(s, "while x > 5") == "x = 5"
    assert feed(s, "do {\n  x = x + 1\n} while x < 7") == "x = 7"
    assert s.feed("loop {").more
    assert feed(s, "  x = x * 2\n  if x > 100 then { break }\n}") == "x = 112"
    assert feed(s, "x > 100 and x % 2 == 0") == "1"
    # names first assigned inside a do or loop body stay in the session
    assert feed(s, "do { fresh = 5 } while x < 0\nloop { other = 6; break }") == "other = 6"
    assert s.decls["fresh"].dtype == "i64" and feed(s, "fresh + other") == "11"
