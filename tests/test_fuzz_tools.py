"""A short fuzz run of the tools (the harness is tests/fuzz/; bench/fuzz_tools.py runs it long),
and regression tests for what the fuzzer found.

The short run mutates the examples, their tuple JSON, REPL scripts and command lines, and runs
each input in-process under a time and memory bound: no exit 70, no traceback, no hang.
"""
from __future__ import annotations

import signal
import threading
import warnings

import pytest
from fuzz.campaign import Settings, Tally, run_campaign
from fuzz.seeds import TARGETS, Workspace

from inca.compiler.driver import main as incac_main

PER_TARGET = 100
SEED = 20240601


@pytest.fixture(scope="module")
def tally() -> Tally:
    return run_campaign(Settings(seed=SEED, inputs=PER_TARGET * len(TARGETS), jobs=2,
                                 budget_s=20.0, real_every=PER_TARGET))


def test_every_target_ran(tally):
    assert tally.inputs == {t: PER_TARGET for t in TARGETS}
    assert tally.real == len(TARGETS)  # input 0 of each target also ran as real processes


def test_no_findings(tally):
    assert not tally.findings


def test_a_campaign_started_by_a_threaded_process_does_not_fork_that_process():
    # pytest-xdist's workers run a thread of their own: forking them (Python 3.12 warns: "use of
    # fork() may lead to deadlocks in the child") is what the fork server avoids
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        with warnings.catch_warnings(record=True) as caught:  # (os.fork's warning cannot raise)
            warnings.simplefilter("always")
            small = run_campaign(Settings(seed=SEED, inputs=len(TARGETS), jobs=1, real_every=0))
    finally:
        stop.set()
        other.join()
    assert small.inputs == {t: 1 for t in TARGETS} and not small.findings
    assert not [w for w in caught if "fork()" in str(w.message)]


def test_a_worker_that_timed_out_is_not_sent_another_input_as_it_ends():
    # after a timeout the worker ends itself; the next input went to it while it was ending,
    # and was reported as "worker died (exit 0)" (a long campaign found one after the REPL's
    # 100,000,000 steps took 15 s)
    tally = run_campaign(Settings(seed=SEED, inputs=8, targets=("cli",), jobs=1, budget_s=0.001,
                                  real_every=0))
    assert sum(tally.inputs.values()) == 8 and any("timeout" in key for key in tally.findings)
    assert not any("worker died" in key for key in tally.findings), tally.findings


def test_an_alarm_handled_after_the_case_is_disarmed_is_ignored():
    # Python runs a signal's handler at its next check, which may come after _disarm returned,
    # in the worker's loop outside the case's try: the handler must not raise Hang there
    from fuzz import campaign

    saved = signal.signal(signal.SIGALRM, campaign._alarm)
    try:
        campaign._arm(60.0)
        with pytest.raises(campaign.Hang):
            campaign._alarm(signal.SIGALRM, None)  # the case's own timeout
        campaign._disarm()
        campaign._alarm(signal.SIGALRM, None)  # (late: ignored)
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    finally:
        signal.signal(signal.SIGALRM, saved)


def test_confine_keeps_every_path_inside_the_workspace(tmp_path):
    ws = Workspace(tmp_path.resolve())
    assert ws.confine(["-o", "../x.json", "/etc/passwd", "A=@/x.json", "--plot=/tmp/p.svg",
                       "k.incaa", "-", "/dev/null", "N=4"]) == \
        ["-o", "outside", "outside", "A=@outside", "--plot=outside", "k.incaa", "-", "/dev/null",
         "N=4"]


# ---- regressions found by the fuzzer ---------------------------------------------------------

@pytest.mark.parametrize("name", ["", ".", "./", "examples/"])
def test_incac_with_a_nameless_file_is_an_error_not_a_crash(name, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").mkdir()
    assert incac_main([name]) == 1
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["k.incaa", "-o", "y" * 300],
                                  ["x" * 300 + ".incaa"],
                                  ["k.incaa", "-o", "y" * 300 + "/out.json"]])
def test_an_output_name_too_long_is_a_cannot_write_error(argv, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.incaa").write_text("END\n")
    assert incac_main(argv) == 1
    err = capsys.readouterr().err
    assert "cannot write" in err and "too long" in err and "Traceback" not in err
