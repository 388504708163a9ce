"""Command-line parsing shared by ``incac`` and ``inca``, kept free of heavy imports so
``--version`` and ``--help`` stay instant."""
from __future__ import annotations

import argparse
import sys


def parse_command_line(parser: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """``parser.parse_args``, refusing ``--opt=--`` first: argparse drops a ``--`` it finds inside
    an option's value, leaving an empty list where the option's type was never applied."""
    for word in sys.argv[1:] if argv is None else argv:
        if word.startswith("-") and word.endswith("=--"):
            parser.error(f"argument {word[:-3]}: expected a value, not '--'")
    return parser.parse_args(argv)
