"""Optimisation remarks: what a pass did, and what it did not do and why (clang's ``-Rpass`` and
``-Rpass-missed``), each at the source location of the loop or statement it is about.

Remarks speak of the source (``docs/optimiser.md``, Remarks): a name the compiler made is spelt
as what it stands for where the pass that made it says so ("the chunks of i" for stripmine's
lane); a pass that turns a loop into versions says when each runs, or that keeps a reduction in
order says so, and then no remark says again why a later pass could not do more with that loop;
and a remark made twice is kept once (each of a loop's versions vectorises the same way).
"""
from __future__ import annotations

import re

from ...lang.diagnostics import Loc
from ...lang.frozen import field, frozen, record


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


@record
class Names:
    """What remarks know of names, shared by a compilation's passes (and their trials)."""

    #: the locations the source declares (None: every name is the source's, as when a test runs
    #: a pass on its own); the others the compiler made
    source: frozenset[str] | None = None
    #: the locations of the source's loop statements (where it writes no assignment)
    loops: frozenset[Loc] = frozenset()
    #: what a name the compiler made stands for, where the pass that made it said
    phrases: dict[str, str] = field(default_factory=dict)
    #: loops a pass's remark explained, as (variable, location)
    explained: set[tuple[str, Loc]] = field(default_factory=set)


@record
class Remarks:
    """The remarks of one compilation, in the order the passes made them."""

    items: list[Remark] = field(default_factory=list)
    pass_name: str = ""
    names: Names = field(default_factory=Names)
    _seen: set[Remark] = field(default_factory=set, repr=False, compare=False)

    def done(self, loc: Loc | None, message: str) -> None:
        self._add(Remark("done", self.pass_name, loc, self._spelt(message)))

    def missed(self, loc: Loc | None, message: str) -> None:
        self._add(Remark("missed", self.pass_name, loc, self._spelt(message)))

    def _add(self, remark: Remark) -> None:
        if remark not in self._seen:
            self._seen.add(remark)
            self.items.append(remark)

    def _spelt(self, message: str) -> str:
        phrases = self.names.phrases
        if not phrases:
            return message
        # (whole identifiers only: a made name is fresh, so no other name contains it as a word)
        return re.sub(r"[A-Za-z_][A-Za-z0-9_]*", lambda m: phrases.get(m[0], m[0]), message)

    def trial(self) -> "Remarks":
        """Remarks for a pass's trial, kept only if the trial is: :meth:`adopt` them then."""
        return Remarks(pass_name=self.pass_name, names=self.names)

    def adopt(self, trial: "Remarks") -> None:
        for r in trial.items:
            self._add(r)

    # ---- names -------------------------------------------------------------------------------

    def made(self, name: str) -> bool:
        """Whether the compiler made ``name`` (the source does not declare it)."""
        return self.names.source is not None and name not in self.names.source

    def call(self, name: str, phrase: str) -> None:
        """Spell the compiler's ``name`` as ``phrase`` in the remarks that follow."""
        self.names.phrases[name] = self.say(phrase)

    def say(self, name: str) -> str:
        """How remarks spell ``name``."""
        return self._spelt(name)

    def explained(self, var: str, loc: Loc) -> None:
        """A pass's remark has said what became of the loop over ``var`` at ``loc`` (its versions
        and when each runs, its reduction kept in order): the passes after it do not say again
        why they could not do more with that loop."""
        self.names.explained.add((var, loc))

    def is_explained(self, var: str, loc: Loc) -> bool:
        """Whether a loop is one the compiler made (over a name it made) or one a pass explained."""
        return self.made(var) or (var, loc) in self.names.explained

    def placed(self, loc: Loc | None) -> bool:
        """Whether an assignment at ``loc`` is one a pass placed (a loop's last value, say): the
        source writes none at the location of a loop statement."""
        return loc in self.names.loops

    def text(self) -> str:
        """All remarks, sorted by source position (a stable order for goldens)."""
        def key(r: Remark):
            loc = r.loc
            return (loc.file, loc.line, loc.col) if loc is not None else ("", 0, 0)
        return "".join(r.render() + "\n" for r in sorted(self.items, key=key))
