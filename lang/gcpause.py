"""Pausing Python's cyclic garbage collector while a large, acyclic structure is built."""
from __future__ import annotations

import gc
from _thread import allocate_lock  # (threading's Lock, without importing threading)


class _Pause:
    """The one pause: ``with collector_paused():`` blocks may nest (a compilation encodes, the
    REPL compiles in a loop), and the collector runs again when the outermost one ends, if it ran
    before the first began. (The collector is the process's, so one count for the process is
    what a pause inside another one, or in another thread, needs.)

    Entering allocates nothing the collector tracks: a collection that an allocation at the start
    of a pause would set off (the objects made since the last pause ended, say a whole compiled
    program about to be encoded) is not run for nothing. Hence ``__enter__`` and ``__exit__`` are
    static methods: ``with`` binds the methods it looks up, and a bound method is such an
    allocation (it set off a pass over the 300,000 objects of a compiled 10,000-statement kernel,
    a twentieth of compiling it, as encoding it began); and the lock is taken by ``acquire``,
    whose call binds nothing, not by ``with``."""

    __slots__ = ("depth", "resume", "lock")

    def __init__(self) -> None:
        self.depth = 0
        self.resume = False
        self.lock = allocate_lock()

    def begin(self) -> None:
        lock = self.lock
        lock.acquire()
        try:
            if self.depth == 0:
                self.resume = gc.isenabled()
                gc.disable()
            self.depth += 1
        finally:
            lock.release()

    def end(self) -> None:
        lock = self.lock
        lock.acquire()
        try:
            self.depth -= 1
            if self.depth == 0 and self.resume:
                gc.enable()
        finally:
            lock.release()

    @staticmethod
    def __enter__() -> None:
        _PAUSE.begin()

    @staticmethod
    def __exit__(exc_type, exc, tb) -> None:
        _PAUSE.end()


_PAUSE = _Pause()


def collector_paused() -> _Pause:
    """Pause the cyclic collector for one compilation, assembly, encoding, load or study's rows.

    Reading or compiling a program builds objects that all stay alive until it ends (and makes
    next to no garbage cycles), so every collection the allocations trigger rescans all of them:
    assembling 100,000 lines spent most of its time in the collector, and compile time grew 14x
    from 1,000 to 10,000 INCA-Q statements. The collector is restored, not run, afterwards; any
    cycle left is collected at its next run.
    """
    return _PAUSE


def exiting(code: int) -> int:
    """``code``, after handing every object of the process to the collector's permanent generation
    (``gc.freeze``), for a command-line tool about to exit. At exit Python tears the modules down
    and runs its collector over every object left, which found no garbage to speak of and took a
    tenth of a short ``inca run`` (8 of 86 ms); frozen objects are not scanned. Exit handlers, the
    flushing of streams and the freeing of every object not in a cycle happen as before; only
    the last search for cycles is skipped. Never for a caller that goes on (a test calling
    ``main``), whose later garbage would then never be collected."""
    gc.freeze()
    return code
