"""``inca report`` studies: grids, ranges, study files, the cache (docs/studies.md).

Every report here runs in-process through ``cli.main`` with a cache folder of the test's own.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import paper
from inca.interpreter import cli, report, study
from inca.interpreter.grid import parse_values

ROOT = Path(__file__).resolve().parents[1]
KERNELS_DIR = ROOT / "examples" / "kernels"


def inca_report(*args, cache=None) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    argv = ["report", "--kernels-dir", str(KERNELS_DIR), "--paper", str(paper.paper_dir()), "-q",
            *(["--cache", str(cache)] if cache else ["--no-cache"]), *map(str, args)]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def rows_of(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_link_speed_figure_reproduced_by_a_grid():
    code, out, err = inca_report("--kernels", "matrix-multiplication", "--payloads", "8192",
                                 "--profiles", "scratchpad", "--variants", "default",
                                 "--grid", "link_gbps=102.4,400,1000", "-j", "1")
    assert code == 0, err
    lines = [line.split() for line in out.splitlines()[2:5]]
    assert [(c[5], c[8], c[9], c[10]) for c in lines] == [
        ("102.4", "3088.59", "3088.59", "exact"), ("400", "1067.50", "1067.50", "exact"),
        ("1000", "650.24", "650.24", "exact")]
    published = {(p, g): us for p, g, us in paper.link_speeds()}  # read at test time
    assert [published[(8192, c[5])] for c in lines] == [c[9] for c in lines]


def test_grid_rows_equal_inca_run(tmp_path):
    """Spot checks: cells of a two-dimensional grid against ``inca run --param`` of the same."""
    code, out, err = inca_report("--kernels", "dot-product,filter", "--payloads", "256",
                                 "--profiles", "scratchpad,base", "--opt", "0,2", "--variants",
                                 "default", "--grid", "link_gbps=100:300:100", "--grid", "m=1/3,2",
                                 "--format", "csv", "-j", "1")
    assert code == 0, err
    rows = rows_of(out)
    assert list(rows[0]) == ["kernel", "variant", "opt", "profile", "payload", "link_gbps", "m",
                             "instructions", "time_us", "paper_instructions", "paper_time_us",
                             "paper_row"]
    assert len(rows) == 2 * 2 * (3 * 2 + 1)  # base has neither parameter: one row, empty cells
    assert all(r["link_gbps"] == r["m"] == "" for r in rows if r["profile"] == "base")
    picks = [r for r in rows if (r["link_gbps"], r["m"]) in (("300", "1/3"), ("100", "2"), ("", ""))]
    for r in picks[::3]:
        params = [a for k in ("link_gbps", "m") if r[k] for a in ("--param", f"{k}={r[k]}")]
        run = subprocess.run([sys.executable, "-m", "inca.interpreter.cli", "run",
                              str(KERNELS_DIR / f"{r['kernel']}.incaq"), "--payload", "256",
                              "-O", r["opt"], "--seed", "1", "--profile", r["profile"], *params,
                              "--json"], capture_output=True, text=True)
        doc = json.loads(run.stdout)
        assert (doc["instructions"], f"{doc['time_us']:.2f}") == (int(r["instructions"]), r["time_us"])


@pytest.mark.parametrize("text,values", [
    ("100:1000:50", [str(v) for v in range(100, 1001, 50)]),
    ("0.1:0.3:0.1", ["0.1", "0.2", "0.3"]),
    ("1:2:0.3", ["1", "1.3", "1.6", "1.9"]),
    ("1/3,1/3,2", ["1/3", "2"]),
])
def test_ranges_are_exact(text, values):
    assert list(parse_values("link_gbps", "profile", text)) == values


@pytest.mark.parametrize("args,message", [
    (("--grid", "link_gbs=100"), "error: 'link_gbs' is neither a profile parameter nor a param of the "
                                 "kernels"),
    (("--grid", "PAYLOAD=8"), "error: PAYLOAD is swept by --payloads"),
    (("--grid", "m=5:1:1"), "error: m: the range 5:1:1 is empty"),
    (("--grid", "link_gbps=0"), "error: parameter link_gbps=0 is out of range"),
    (("--grid", "T=1.5"), "error: T:"),
    (("--engine", "refrence"), "error: unknown engine refrence"),
    (("--plot", "x.png", "--x", "lnk_gbps"), "error: cannot plot against 'lnk_gbps'"),
])
def test_bad_grids_are_diagnosed(args, message):
    code, out, err = inca_report("--kernels", "filter", "--payloads", "128", *args)
    assert code == 1 and out == "" and "Traceback" not in err
    assert message in err and "hint:" in err


def test_both_a_kernel_param_and_a_profile_parameter(tmp_path):
    (tmp_path / "k.incaq").write_text("param PAYLOAD = 8\nparam m = 1\noutput y: i64\ny = m\n")
    code, _, err = inca_report("--kernels-dir", tmp_path, "--grid", "m=1,2", "--payloads", "8")
    assert code == 1 and "'m' is both a profile parameter and a param of k" in err and "hint:" in err


def test_kernel_param_grid_and_study_file(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(f'kernels = ["filter"]\nkernels_dir = "{KERNELS_DIR}"\npayloads = [128]\n'
                    'profiles = ["scratchpad"]\nvariants = ["default"]\nengine = "python"\n'
                    '[grid]\nT = "0:2:1"\nL = [0, 5]\n')
    code, out, err = inca_report("--study", spec, "--format", "json", "--grid", "L=7")
    assert code == 0, err
    doc = json.loads(out)
    assert [list(d)[5:8] for d in doc[:1]] == [["engine", "T", "L"]]
    assert [(d["engine"], d["T"], d["L"]) for d in doc] == [("python", t, "7") for t in (0, 1, 2)]
    assert all(d["paper_time_us"] is None and d["paper_instructions"] is None for d in doc)
    assert len({d["instructions"] for d in doc}) > 1  # the param changes the program
    spec.write_text('kernal = ["filter"]\n')
    code, _, err = inca_report("--study", spec)
    assert code == 1 and "unknown key 'kernal'" in err and "did you mean 'kernels'" in err


def test_cache_reuses_cells_and_distrusts_bad_entries(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    common = ("--kernels", "dot-product", "--payloads", "128,256", "--profiles", "scratchpad",
              "--variants", "default", "--format", "csv", "-j", "1")
    args = (*common, "--grid", "link_gbps=100,200")
    code, first, err = inca_report(*args, cache=cache)
    assert code == 0, err
    runs = sorted((cache / "run").glob("*.json"))
    assert len(runs) == 2 and len(list((cache / "compile").glob("*.json"))) == 2
    calls = []
    real = study.run_task
    monkeypatch.setattr(study, "run_task", lambda task: calls.append(task) or real(task))
    assert inca_report(*args, cache=cache)[1] == first and calls == []  # every cell cached
    code, grown, _ = inca_report(*common, "--grid", "link_gbps=100,200,300", cache=cache)
    assert calls == [] and len(rows_of(grown)) == 6  # a new value: priced from the cached runs
    assert [r for r in rows_of(grown) if r["link_gbps"] != "300"] == rows_of(first)
    shutil.rmtree(cache / "report")  # the cells' own entries are what is checked here
    runs[0].write_text(runs[0].read_text()[:-20])  # truncated
    doc = json.loads(runs[1].read_text())
    body = json.loads(doc["body"])
    body["cells"] = {k: [1, 1, 1] for k in body["cells"]}  # tampered
    runs[1].write_text(json.dumps({**doc, "body": json.dumps(body)}))
    compiled = sorted((cache / "compile").glob("*.json"))[0]
    doc = json.loads(compiled.read_text())
    compiled.write_text(json.dumps({**doc, "body": json.loads(doc["body"])}))  # not text: foreign
    assert inca_report(*args, cache=cache)[1] == first and len(calls) == 2
    assert inca_report(*args, cache=cache)[1] == first and len(calls) == 2  # rewritten entries


def test_an_unchanged_study_s_report_is_read_back_whole(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    args = ("--kernels", "dot-product", "--payloads", "128", "--profiles", "scratchpad",
            "--variants", "default", "--grid", "link_gbps=102.4,200", "-j", "1")
    code, first, err = inca_report(*args, "--format", "csv", cache=cache)
    assert ",1.50,scratchpad" in first  # the paper's figure beside the default link speed
    assert code == 0, err
    made = []
    real_rows = study.rows
    monkeypatch.setattr(study, "rows", lambda *a: made.append(1) or real_rows(*a))
    monkeypatch.setattr(study, "run_task", lambda task: pytest.fail("ran an execution"))
    assert inca_report(*args, "--format", "csv", cache=cache)[1] == first and made == []
    assert inca_report(*args, "--format", "json", cache=cache)[0] == 0 and made == [1]  # a new format
    (entry,) = [p for p in (cache / "report").glob("*.json")
                if json.loads(json.loads(p.read_text())["body"])["text"] == first]
    entry.write_text(entry.read_text().replace("dot-product", "dot-produkt"))  # tampered
    assert inca_report(*args, "--format", "csv", cache=cache)[1] == first and made == [1, 1]
    figures = tmp_path / "paper"  # other published figures: another report
    shutil.copytree(paper.paper_dir(), figures)
    runtimes = figures / "runtimes_us.csv"
    runtimes.write_text(runtimes.read_text().replace("1.50", "1.51"))
    code, other, _ = inca_report(*args, "--format", "csv", "--paper", str(figures), cache=cache)
    assert code == 0 and made == [1, 1, 1] and other != first


def test_an_interrupted_study_keeps_every_finished_execution(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    args = ("--kernels", "dot-product,hadamard-product", "--payloads", "128,256", "--profiles",
            "scratchpad", "--variants", "default", "--format", "csv", "-j", "1")
    real = study.run_task
    done = []

    def interrupted(task):  # Ctrl-C while the third execution runs
        if len(done) == 2:
            raise KeyboardInterrupt
        done.append(task.run)
        return real(task)

    monkeypatch.setattr(study, "run_task", interrupted)
    code, out, _ = inca_report(*args, cache=cache)
    assert code == 130 and out == ""
    again = []
    monkeypatch.setattr(study, "run_task", lambda task: again.append(task.run) or real(task))
    code, rows, err = inca_report(*args, cache=cache)
    assert code == 0, err
    assert len(again) == 2 and not set(again) & set(done)  # the two finished ones came from the cache
    assert rows == inca_report(*args)[1]


def test_default_engine_is_inca_runs():
    run = next(a for a in cli.build_parser()._subparsers._group_actions[0].choices["run"]._actions
               if "--engine" in a.option_strings)
    assert report.RUN_ENGINE == run.default


def test_a_process_with_a_thread_threading_does_not_see_spawns_its_pool():
    # regression: pytest-xdist's execnet starts its threads without `threading`, so the pool
    # forked a threaded process (Python 3.12 warns: the child may copy a lock another thread holds)
    import _thread
    import multiprocessing
    import threading

    from inca.interpreter.study import _start_method

    if multiprocessing.get_start_method() != "fork" or not os.path.isdir("/proc/self/task"):
        pytest.skip("forking is not the default here, or the OS does not list threads")
    hold, started = _thread.allocate_lock(), _thread.allocate_lock()
    hold.acquire()
    started.acquire()

    def wait() -> None:
        started.release()
        hold.acquire()
    before = threading.active_count()
    _thread.start_new_thread(wait, ())
    started.acquire()
    try:
        assert threading.active_count() == before
        assert _start_method().get_start_method() == "spawn"
    finally:
        hold.release()
