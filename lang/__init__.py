"""inca.lang: the languages (INCA-A, INCA-Q), the instruction-set table, IR and diagnostics."""

__version__ = "0.1.0"
