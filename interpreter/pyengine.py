"""The python engine: an installed tuple program translated into Python and run as one function.

:func:`run` takes a NIC as the reference engine's :func:`~.engine.run` does and leaves the NIC
as it would: the same outputs, fire counts, fault (message, tuple, writes before it) and step
limit. Translation (:mod:`.blocks`, :mod:`.pygen`) and compilation count in its wall time. A
program it cannot translate (only a hand-built one the loader would refuse) runs on the reference.
"""
from __future__ import annotations

import time

from ..lang.frozen import frozen
from .blocks import Untranslatable, analyse, block_fires
from .engine import Execution, arm, fault_at, finish, off_end, prepare, run_fast
from .engine import run as run_reference
from .nic import NIC, CountingEvent
from .pygen import FAULT, OFF_END, RECOUNT, translate


@frozen
class Paused:
    """A run stopped on a block header after ``steps`` steps in all (``pause``), for another
    engine to go on from there: this engine's fires per PC value."""

    fires: list[int]
    steps: int


def plan(nic: NIC, counter: CountingEvent, entry: int | None = None):
    """The armed program and its blocks, found from ``entry`` (default: the counter's value).
    Raises Untranslatable."""
    armed = arm(nic, counter)
    return armed, analyse(armed, counter.value if entry is None else entry)


def run(nic: NIC, counter: CountingEvent, done: CountingEvent,
        max_steps: int = 100_000_000, steps_before: int = 0, planned=None,
        pause: int | None = None) -> Execution | Paused:
    """Run from the counter's current value until END, as :func:`.engine.run` (untraced) does.

    When another engine fired the run's first ``steps_before`` tuples (they count against
    ``max_steps``; the fire counts returned are this engine's only), ``planned`` is the
    :func:`plan` from where the run started, and the counter is on one of its headers: the blocks
    are the program's own, so its loops translate as loops wherever the run is handed over.

    With ``pause`` (below ``max_steps``), a run still going after about that many steps in all
    stops on the next header it checks its fuel at and returns :class:`Paused`."""
    start = time.perf_counter()
    try:
        armed, cfg = plan(nic, counter) if planned is None else planned
        if counter.value not in cfg.headers:
            raise Untranslatable(f"the run goes on at PC {counter.value}, not a block header")
        tr = translate(nic, armed, cfg)
    except Untranslatable:
        return run_reference(nic, counter, done, max_steps, steps_before=steps_before)
    kernel = tr.compile()
    mem = [nic.buffers[name].data for name in tr.storage]
    ids = {s: j for j, s in enumerate(tr.order)}
    counts: tuple[int, ...] = (0,) * len(tr.order)
    limit = max_steps if pause is None else min(pause, max_steps)
    fuel, block = limit - steps_before, ids.get(counter.value, 0)
    while True:
        status, where, got, exc = kernel(mem, counts, fuel, block)
        if status == FAULT:
            pc = tr.line_pc[where]
            counter.value = pc
            raise fault_at(armed, pc, exc) from None
        counts = got
        steps = steps_before + sum(n * size for n, size in zip(counts, tr.sizes))
        if status != RECOUNT:
            break
        if steps + cfg.reserve[where] <= limit:  # the estimate was loose: go on from here
            fuel, block = limit - steps, ids[where]
            continue
        if limit < max_steps:  # paused, with steps to spare: the next engine goes on from here
            counter.value = where
            return Paused(block_fires(cfg, tr.order, counts, armed.size), steps)
        # the budget runs out before the next check: the reference fires the last tuples
        fires = block_fires(cfg, tr.order, counts, armed.size)
        counter.value = where
        steps = run_fast(prepare(nic, counter), counter, fires, max_steps, steps)
        return finish(done, armed.k_at, fires, steps, start, "python")
    counter.value = where
    if status == OFF_END:
        raise off_end(armed, where)
    return finish(done, armed.k_at, block_fires(cfg, tr.order, counts, armed.size), steps, start,
                  "python")

