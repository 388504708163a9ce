"""A study's executions on an existing Dask distributed cluster (``inca report --scheduler``).

Dask is the scheduler: the tasks are submitted to it and come back as they finish; a task whose
worker dies is run again on another (the scheduler's ``allowed-failures``), so a lost worker costs
time, not the study. ``distributed`` is imported only here (the ``cluster`` extra). Every worker
must run the same toolchain as the client (checked before anything is submitted), so a cluster's
rows are those of a local run.
"""
from __future__ import annotations

from typing import Callable, Iterator

from ..lang.diagnostics import Diagnostic, DiagnosticError

#: Seconds to reach the scheduler before giving up with a diagnostic.
CONNECT_TIMEOUT = 5


def _fail(address: str, message: str, hint: str | None = None) -> DiagnosticError:
    return DiagnosticError([Diagnostic(message, None, hint, file="--scheduler")])


def _toolchain() -> str:
    from .cache import toolchain

    return toolchain()


def run_on_cluster(address: str, fn: Callable, tasks: list) -> Iterator[tuple[int, object]]:
    """(index, result) of ``fn(task)`` for each task, as they finish on the cluster."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise _fail(address, "running on a cluster needs Dask distributed",
                    "pip install 'incac[cluster]'") from None
    if "://" not in address:
        raise _fail(address, f"'{address}' is not a scheduler address", "e.g. tcp://HOST:8786")
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise _fail(address, f"cannot reach the Dask scheduler at {address}: {e}",
                    "start one with `dask scheduler` and its workers with `dask worker ADDRESS`; "
                    "see docs/studies.md") from None
    try:
        mine = _toolchain()
        theirs = client.run(_toolchain)
        if not theirs:
            raise _fail(address, f"the Dask scheduler at {address} has no workers",
                        "start workers with `dask worker ADDRESS`")
        other = sorted(w for w, t in theirs.items() if t != mine)
        if other:
            raise _fail(address, f"workers {', '.join(other)} run another incac ({theirs[other[0]]}; "
                        f"this one is {mine})", "install the same incac on every worker")
        futures = {client.submit(fn, t, pure=False): i for i, t in enumerate(tasks)}
        try:
            for f in as_completed(futures, loop=client.loop):
                yield futures[f], f.result()
        except BaseException:  # a kernel's diagnostic or Ctrl-C: withdraw the rest
            client.cancel(list(futures))
            raise
    finally:
        client.close()
