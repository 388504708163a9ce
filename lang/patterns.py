"""Regular expressions compiled when first used.

Compiling a pattern costs 0.1-1 ms, and a module compiles its patterns as it is imported: a
command paid for the patterns of every module it imports, most of which it never matches (a tuple
file's syntax when it compiles INCA-Q, a JSON file's nesting when it reads none). A module whose
patterns serve only some of its callers declares them with :func:`lazy`.
"""
from __future__ import annotations

import re

_METHODS = ("match", "fullmatch", "search", "findall", "finditer", "sub", "split")


class LazyPattern:
    """``re.compile(pattern, flags)`` on first use of one of its matching methods; then those
    methods are the compiled pattern's own, kept on the instance (no look-up through this class)."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern, self.flags = pattern, flags

    def __getattr__(self, name: str):  # (only for an attribute not found: before the compile)
        if name not in _METHODS:
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self.flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        return getattr(compiled, name)


def lazy(pattern: str, flags: int = 0) -> LazyPattern:
    """A pattern compiled when one of its matching methods is first looked up."""
    return LazyPattern(pattern, flags)
