"""The optimiser's pass pipeline: which passes run at which level, in which order.

Each pass is a function from one :class:`~.ir.Kernel` to the next (one per file in this
package); :func:`optimise` runs the level's passes in order, printing the IR after a pass when
asked (``incac --print-after PASS``) and collecting the passes' remarks (``--remarks``).
"""
from __future__ import annotations

from typing import Callable

from ...lang.frozen import field, frozen, record
from ..incaq.ast import DoWhile, For, While
from ..incaq.checked import Checked
from .argmax import argmax
from .blocks import blocks
from .canon import canon
from .coalesce import coalesce
from .combine import combine
from .compact import compact
from .dce import dce
from .delinearise import delinearise
from .distribute import distribute
from .fold import fold
from .gather import gather
from .histogram import histogram
from .ifconvert import ifconvert
from .interchange import interchange
from .propagate import propagate
from .ir import Kernel, stmts
from .licm import licm
from .narrow import narrow
from .reduce import reduce
from .scan import scan
from .split import split
from .remarks import Names, Remarks
from .rules import FAST_MATH
from .show import show
from .strength import strength
from .triangular import triangular
from .unroll import unroll
from .stripmine import stripmine
from .vectorise import vectorise


@frozen
class Level:
    """An optimisation level: 0, 1 or 2, and whether fast-math (-Ofast) is on."""

    opt: int = 0
    fast_math: bool = False

    @property
    def flags(self) -> frozenset[str]:
        return FAST_MATH if self.fast_math else frozenset()

    @property
    def name(self) -> str:
        return "fast" if self.fast_math and self.opt == 2 else str(self.opt)

    @staticmethod
    def parse(text: str) -> "Level":
        """``0``, ``1``, ``2`` or ``fast`` (what ``-O`` takes)."""
        if text == "fast":
            return Level(2, True)
        if text in ("0", "1", "2"):
            return Level(int(text))
        raise ValueError(f"unknown optimisation level {text!r} (use 0, 1, 2 or fast)")


@record
class Trace:
    """What a compilation shows besides its program: the IR after chosen passes, and remarks."""

    print_after: tuple[str, ...] = ()
    printed: list[str] = field(default_factory=list)
    remarks: Remarks = field(default_factory=Remarks)


#: (name, minimum level, pass): the order the passes run in.
PASSES: tuple[tuple[str, int, Callable], ...] = (
    ("canon", 1, lambda k, r, lv: canon(k, r)),
    ("fold", 1, lambda k, r, lv: fold(k, r, lv.flags)),
    ("blocks", 2, lambda k, r, lv: blocks(k, r)),
    ("strength", 1, lambda k, r, lv: strength(k, r)),
    ("propagate", 1, lambda k, r, lv: propagate(k, r)),
    ("dce", 1, lambda k, r, lv: dce(k, r)),
    ("licm", 1, lambda k, r, lv: licm(k, r)),
    ("delinearise", 2, lambda k, r, lv: delinearise(k, r, lv.fast_math)),
    ("triangular", 2, lambda k, r, lv: triangular(k, r)),
    ("split", 2, lambda k, r, lv: split(k, r)),
    ("compact", 2, lambda k, r, lv: compact(k, r)),
    ("ifconvert", 2, lambda k, r, lv: ifconvert(k, r, lv.flags)),
    ("gather", 2, lambda k, r, lv: gather(k, r)),
    ("histogram", 2, lambda k, r, lv: histogram(k, r, lv.fast_math)),
    ("stripmine", 2, lambda k, r, lv: stripmine(k, r, lv.fast_math)),
    ("distribute", 2, lambda k, r, lv: distribute(k, r, lv.fast_math)),
    ("interchange", 2, lambda k, r, lv: interchange(k, r, lv.fast_math)),
    ("scan", 2, lambda k, r, lv: scan(k, r, lv.fast_math)),
    ("argmax", 2, lambda k, r, lv: argmax(k, r, lv.fast_math)),
    ("reduce", 2, lambda k, r, lv: reduce(k, r, lv.fast_math)),
    ("vectorise", 2, lambda k, r, lv: vectorise(k, r)),
    ("narrow", 2, lambda k, r, lv: narrow(k, r)),
    ("unroll", 1, lambda k, r, lv: unroll(k, r, lv.opt)),
    ("combine", 1, lambda k, r, lv: combine(k, r)),
    ("fold", 1, lambda k, r, lv: fold(k, r, lv.flags)),
    ("dce", 1, lambda k, r, lv: dce(k, r)),
    ("coalesce", 2, lambda k, r, lv: coalesce(k, r)),
)

#: The names ``--print-after`` accepts.
PASS_NAMES = tuple(dict.fromkeys(name for name, _, _ in PASSES))


def optimise(checked: Checked, level: Level, trace: Trace | None = None,
             inplace: frozenset[str] = frozenset()) -> Kernel:
    """Run the level's passes over a checked kernel (``inplace``: the inputs --clobber lets the
    passes overwrite, each element of which the kernel reads at most once). The result's
    ``inplace`` is what is left of that set (a pass that reads such an input twice drops it)."""
    trace = trace if trace is not None else Trace()
    trace.remarks.names = Names(frozenset(s.name for s in checked.symbols), frozenset(
        s.loc for s in stmts(checked.body) if isinstance(s, (For, While, DoWhile))))
    k = Kernel.of(checked)
    k.inplace = inplace
    for name, least, run in PASSES:
        if level.opt < least:
            continue
        trace.remarks.pass_name = name
        k = run(k, trace.remarks, level)
        if name in trace.print_after:
            trace.printed.append(f"*** IR after {name} ***\n{show(k)}")
    return k
