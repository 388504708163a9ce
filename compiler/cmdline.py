"""Command-line parsing shared by ``incac`` and ``inca``, kept free of heavy imports so
``--version`` and ``--help`` stay instant."""
from __future__ import annotations

import argparse
import os
import sys


def terminal_columns() -> int:
    """The width ``shutil.get_terminal_size`` gives (``$COLUMNS`` if a positive integer, else the
    terminal of standard output, else 80), without importing shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


class Formatter(argparse.RawDescriptionHelpFormatter):
    """argparse's formatter for descriptions and epilogs written as they should print, told the
    terminal's width: given none, each formatter imports shutil to ask, and argparse makes one
    for every argument added (importing shutil, with bz2 and lzma, was 1.5 ms of every start)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None):
        super().__init__(prog, indent_increment, max_help_position,
                         terminal_columns() - 2 if width is None else width)


def parse_command_line(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """``parser.parse_args``, refusing ``--opt=--`` first: argparse drops a ``--`` it finds inside
    an option's value, leaving an empty list where the option's type was never applied."""
    for word in sys.argv[1:] if argv is None else argv:
        if word.startswith("-") and word.endswith("=--"):
            parser.error(f"argument {word[:-3]}: expected a value, not '--'")
    return parser.parse_args(argv)
