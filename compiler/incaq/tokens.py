"""What both INCA-Q parsers share and neither needs lark for: the reserved words, and how many
syntax errors one parse reports. (Kept apart from :mod:`.grammar` so that compiling text without
errors, which the fast path parses alone, never imports lark.)"""
from __future__ import annotations

#: The reserved words of INCA-Q (``i64``/``f64`` are types and the conversion functions).
KEYWORDS = frozenset(
    "param input output inout var use func while do if then else for in return and or not "
    "loop break continue "
    "i64 f64".split()
)

#: A parse reports at most this many syntax errors (and says when there were more).
MAX_ERRORS = 20
