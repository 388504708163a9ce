"""Optimisation remarks: what a pass did, and what it did not do and why (clang's ``-Rpass`` and
``-Rpass-missed``), each at the source location of the loop or statement it is about."""
from __future__ import annotations

from dataclasses import dataclass, field

from ...lang.diagnostics import Loc
from ...lang.frozen import frozen


@frozen
class Remark:
    """One remark: ``kind`` is ``done`` or ``missed``; ``pass_name`` is the pass that made it."""

    kind: str
    pass_name: str
    loc: Loc | None
    message: str

    def render(self) -> str:
        where = str(self.loc) if self.loc is not None and self.loc.line > 0 else "<kernel>"
        label = "remark" if self.kind == "done" else "remark (missed)"
        return f"{where}: {label}: [{self.pass_name}] {self.message}"


@dataclass
class Remarks:
    """The remarks of one compilation, in the order the passes made them."""

    items: list[Remark] = field(default_factory=list)
    pass_name: str = ""

    def done(self, loc: Loc | None, message: str) -> None:
        self.items.append(Remark("done", self.pass_name, loc, message))

    def missed(self, loc: Loc | None, message: str) -> None:
        self.items.append(Remark("missed", self.pass_name, loc, message))

    def text(self) -> str:
        """All remarks, sorted by source position (a stable order for goldens)."""
        def key(r: Remark):
            loc = r.loc
            return (loc.file, loc.line, loc.col) if loc is not None else ("", 0, 0)
        return "".join(r.render() + "\n" for r in sorted(self.items, key=key))
