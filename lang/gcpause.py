"""Pausing Python's cyclic garbage collector while a large, acyclic structure is built."""
from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic collector for one compilation, assembly, load or study's rows.

    Reading or compiling a program builds objects that all stay alive until it ends (and makes
    next to no garbage cycles), so every collection the allocations trigger rescans all of them:
    assembling 100,000 lines spent most of its time in the collector, and compile time grew 14x
    from 1,000 to 10,000 INCA-Q statements. The collector is restored, not run,
    afterwards; any cycle left is collected at its next run.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
