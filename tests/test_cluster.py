"""``inca report --scheduler``: a real Dask scheduler and two workers on localhost.

The cluster's rows equal the local run's; a worker killed during a study loses nothing; an
unreachable scheduler is a diagnostic within seconds.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[1]
DASK = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
WORKER = [sys.executable, "-m", "distributed.cli.dask_worker"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(cmd: list[str]) -> subprocess.Popen:
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def cluster(request):
    address = f"tcp://127.0.0.1:{free_port()}"
    procs = []
    request.addfinalizer(lambda: [stop(p) for p in procs])
    procs.append(start([*DASK, "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                        "--no-dashboard"]))
    for _ in range(2):
        procs.append(start([*WORKER, address, "--nthreads", "1", "--no-dashboard",
                            "--host", "127.0.0.1"]))
    from distributed import Client

    with Client(address, timeout=20) as client:
        client.wait_for_workers(2, timeout=30)
    return address, procs


def report(*args: str, cache: Path | None = None) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "inca.interpreter.cli", "report", "--format", "csv", "-q",
           *(("--cache", str(cache)) if cache else ("--no-cache",)), *args]
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


STUDY = ("--kernels", "dot-product,matrix-transpose", "--payloads", "128,1024", "--profiles",
         "scratchpad,base", "--variants", "default", "--opt", "0,2", "--grid", "link_gbps=100,400")


def test_cluster_rows_equal_local_rows_and_survive_a_killed_worker(cluster, tmp_path):
    address, procs = cluster
    local = report(*STUDY, "-j", "2")
    remote = report(*STUDY, "--scheduler", address)
    (lout, lerr), (rout, rerr) = local.communicate(timeout=60), remote.communicate(timeout=60)
    assert local.returncode == remote.returncode == 0, lerr + rerr
    assert rout == lout and len(lout.splitlines()) == 1 + 2 * 2 * 2 * (2 + 1)
    # a second study: one worker is killed once the first execution is in the cache
    big = ("--kernels", "matrix-multiplication,convolution", "--payloads", "2048,4096,8192",
           "--profiles", "scratchpad", "--variants", "default,clobber")
    cache = tmp_path / "cache"
    run = report(*big, "--scheduler", address, cache=cache)
    deadline = time.monotonic() + 30
    while not list((cache / "run").glob("*.json")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert run.poll() is None, "the study finished before a worker could be killed"
    stop(procs[-1])
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    want = report(*big, "-j", "2").communicate(timeout=60)[0]
    assert out == want


def test_unreachable_scheduler_is_a_diagnostic(monkeypatch, capsys):
    from inca.interpreter import cli, cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1)  # the default 5 s, shortened for the suite
    code = cli.main(["report", "--kernels-dir", str(ROOT / "examples" / "kernels"), "--no-cache",
                     "-q", "--kernels", "dot-product", "--payloads", "128", "--scheduler",
                     f"tcp://127.0.0.1:{free_port()}"])
    out, err = capsys.readouterr()
    assert code == 1 and out == "" and "Traceback" not in err
    assert "error: cannot reach the Dask scheduler at tcp://127.0.0.1:" in err and "hint:" in err
