"""The paper's published figures, read for comparison, never modified.

Reports show these beside the model's computed values; the model itself never reads them. The
package ships a byte-for-byte copy of ``shared/paper/`` in ``paper_figures/`` (they are facts from
the paper; tests/test_install.py keeps the copy equal to the original).
"""
from __future__ import annotations

import csv
import os
from pathlib import Path

from ..lang.frozen import field, record

PAYLOADS = (128, 256, 512, 1024, 2048, 4096, 8192)
PAPER_ENV = "INCA_PAPER_DIR"
PACKAGED_DIR = Path(__file__).with_name("paper_figures")


def find_paper_dir() -> Path | None:
    """``$INCA_PAPER_DIR`` if it is set (``None`` if it names no folder), else the copy shipped in
    this package, so a report shows the paper's figures from any folder after any install."""
    env = os.environ.get(PAPER_ENV)
    if env:
        try:  # (a name too long is no folder either)
            return Path(env) if Path(env).is_dir() else None
        except OSError:
            return None
    return PACKAGED_DIR


@record
class PaperFigures:
    """Instruction counts, runtimes and link-speed runtimes as published."""

    counts: dict[tuple[str, int], int] = field(default_factory=dict)
    runtimes: dict[tuple[str, str, int], str] = field(default_factory=dict)  # two-decimal text
    link: dict[tuple[str, int, str], str] = field(default_factory=dict)  # (kernel, payload, gbps)
    cpu: dict[tuple[str, str, int], str] = field(default_factory=dict)  # (kernel, "-O0"/"-O2", payload)

    def count(self, kernel: str, variant: str, payload: int) -> int | None:
        """The published dynamic instruction count (published for the default variant only)."""
        return self.counts.get((kernel, payload)) if variant == "default" else None

    def time_us(self, kernel: str, variant: str, setting: str, link_gbps: str | None,
                payload: int) -> str | None:
        """The published runtime, as printed, for a kernel and variant in one of the paper's
        settings: ``scratchpad`` or ``base`` (its default profiles) or ``link`` (the scratchpad at
        ``link_gbps``, its link-speed table); None if the paper has none."""
        if setting == "link":
            return self.link.get((kernel, payload, link_gbps)) if variant == "default" else None
        if variant == "default":
            return self.runtimes.get((kernel, setting, payload))
        return self.runtimes.get((kernel, variant, payload)) if setting == "scratchpad" else None


def load_paper(folder: Path | None) -> PaperFigures:
    """Read the CSVs in ``folder`` (empty figures when there is none)."""
    figures = PaperFigures()
    if folder is None:
        return figures
    with open(folder / "instruction_counts.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for p in PAYLOADS:
                if row.get(str(p)):
                    figures.counts[(row["kernel"], p)] = int(row[str(p)])
    with open(folder / "runtimes_us.csv", newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for p in PAYLOADS:
                if row.get(str(p)):
                    figures.runtimes[(row["kernel"], row["variant"], p)] = row[str(p)]
    link = folder / "link_speed_us.csv"
    if link.is_file():
        with open(link, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                figures.link[(row["kernel"], int(row["payload"]), row["link_gbps"])] = row["runtime_us"]
    cpu = folder / "cpu_runtimes_us.csv"
    if cpu.is_file():  # the Haswell CPU's times of the same kernels in C (slides 51-52)
        with open(cpu, newline="", encoding="utf-8") as f:
            for row in csv.DictReader(f):
                for p in PAYLOADS:
                    if row.get(str(p)):
                        figures.cpu[(row["kernel"], row["opt"], p)] = row[str(p)]
    return figures
