"""inca.stdlib: reusable INCA-Q modules (the .incaq files in this folder).

Source locations name these files ``<stdlib>/NAME.incaq`` rather than by where the package is
installed, so one kernel compiles to the same bytes from every checkout and install;
:func:`file_of` turns such a name back into the file, to quote its lines.
"""
from __future__ import annotations

import os

FOLDER = os.path.dirname(__file__)  # (not pathlib: importing it is 18 M instructions of every start)
PREFIX = "<stdlib>/"


def file_of(name: str) -> str:
    """The file a source name stands for: a ``<stdlib>/`` name is a file in this package, any
    other name is a path already."""
    return os.path.join(FOLDER, name.removeprefix(PREFIX)) if name.startswith(PREFIX) else name
