"""``inca report --cpu``: INCA's modeled time beside this machine's CPU and the paper's Haswell.

For each kernel and payload of the study, the kernel's -O0 tuple program (the plain code, as the
paper's C was) runs once on the model under every profile and level of the study, and is compiled
for this machine's CPU by the llvm engine's lowering without the model's counters, at LLVM -O0
and -O2, its outputs checked bit for bit against the model's and timed natively
(:func:`.cpu.measure`). The CPU figures are measurements of this machine, noisy, not a model; the
paper's are its Haswell's (``cpu_runtimes_us.csv``, slides 51-52), shown beside them.
"""
from __future__ import annotations

import csv
import io
import json
import sys

from ..lang.frozen import frozen
from .paper import PaperFigures

SEED = 1


@frozen
class CpuRow:
    """One kernel at one payload."""

    kernel: str
    payload: int
    inca_us: tuple[tuple[str, str], ...]  # (column name, modeled time as printed)
    cpu_o0_us: float
    cpu_o2_us: float
    paper_cpu_o0_us: str | None
    paper_cpu_o2_us: str | None


def cpu_rows(study, paper: PaperFigures, progress: bool = False) -> list[CpuRow]:
    """Measure every (kernel, payload) of ``study`` (one process: the CPU timings must not share
    the machine with the study's own workers)."""
    from ..compiler.frontend import Options, load_tuples
    from .cpu import measure
    from .inputs import gather_inputs
    from .loader import execute, time_us_text
    from .profiles import load_profile

    profiles = [(name, load_profile(name)) for name in study.profiles]
    rows = []
    work = [(k, p) for k in study.kernels for p in study.payloads]
    for i, (kernel, payload) in enumerate(work, 1):
        path = str(study.kernels[kernel])
        plain = load_tuples(path, Options({"PAYLOAD": payload}, 0, (), False, False))
        inputs = gather_inputs({b.name: b for b in plain.buffers}, [], SEED)
        inca = []
        model = None  # the plain program's run, the outputs the CPU's must equal
        for opt in study.opts:
            level = 2 if opt == "fast" else int(opt)
            tp = plain if opt == "0" else load_tuples(path, Options({"PAYLOAD": payload}, level, (),
                                                                    False, opt == "fast"))
            for name, profile in profiles:
                r = execute(tp, profile, inputs, engine=study.engine)
                inca.append((f"inca_{name}_O{opt}_us", time_us_text(r.time_ns)))
                model = r if tp is plain and model is None else model
        if model is None:
            model = execute(plain, profiles[0][1], inputs, engine=study.engine)
        t = measure(plain, model.profile, inputs, model)
        rows.append(CpuRow(kernel, payload, tuple(inca), t.o0_us, t.o2_us,
                           paper.cpu.get((kernel, "-O0", payload)),
                           paper.cpu.get((kernel, "-O2", payload))))
        if progress:
            sys.stderr.write(f"\rcpu {i}/{len(work)}")
    if progress:
        sys.stderr.write("\n")
    return rows


def _columns(rows: list[CpuRow]) -> list[str]:
    inca = [name for name, _ in rows[0].inca_us] if rows else []
    return ["kernel", "payload", *inca, "cpu_O0_us", "cpu_O2_us", "paper_cpu_O0_us", "paper_cpu_O2_us"]


#: Decimals of a measured CPU time in us: to 0.1 ns, because a small kernel at -O2 runs in a few
#: ns here, which two decimals (the paper's) printed as 0.00.
CPU_DECIMALS = 4


def _values(r: CpuRow) -> list:
    return [r.kernel, r.payload, *(v for _, v in r.inca_us), f"{r.cpu_o0_us:.{CPU_DECIMALS}f}",
            f"{r.cpu_o2_us:.{CPU_DECIMALS}f}", r.paper_cpu_o0_us, r.paper_cpu_o2_us]


def to_csv(rows: list[CpuRow]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(_columns(rows))
    for r in rows:
        w.writerow(["" if v is None else v for v in _values(r)])
    return out.getvalue()


def to_json(rows: list[CpuRow]) -> str:
    cols = _columns(rows)
    docs = []
    for r in rows:
        doc = dict(zip(cols, _values(r)))
        for k in cols[2:]:  # numbers as numbers, in the printed precision
            doc[k] = None if doc[k] is None else float(doc[k])
        docs.append(doc)
    return json.dumps(docs, indent=1) + "\n"


def to_table(rows: list[CpuRow], markdown: bool = False) -> str:
    cols = _columns(rows)
    cells = [["-" if v is None else str(v) for v in _values(r)] for r in rows]
    if markdown:
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(c) + " |" for c in cells]
    else:
        widths = [max(len(c[i]) for c in [cols, *cells]) for i in range(len(cols))]
        lines = ["  ".join(h.ljust(w) if i < 1 else h.rjust(w) for i, (h, w) in enumerate(zip(r, widths)))
                 for r in [cols, *cells]]
    note = ("cpu_*: this machine's CPU, measured (median of 5 calibrated repetitions; noisy, not a "
            "model); paper_cpu_*: the paper's 2.3 GHz Haswell")
    return "\n".join(lines) + "\n\n" + note + "\n"


FORMATS = {"table": to_table, "csv": to_csv, "json": to_json,
           "markdown": lambda rows: to_table(rows, markdown=True)}


def plot(rows: list[CpuRow], path: str) -> None:
    """Per kernel, INCA's modeled time (each column) and the CPU's against the payload."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kernels = list(dict.fromkeys(r.kernel for r in rows))
    fig, axes = plt.subplots(1, len(kernels), figsize=(4 * len(kernels), 3.5), squeeze=False)
    for ax, kernel in zip(axes[0], kernels):
        mine = [r for r in rows if r.kernel == kernel]
        xs = [r.payload for r in mine]
        for j, (name, _) in enumerate(mine[0].inca_us):
            ax.plot(xs, [float(r.inca_us[j][1]) for r in mine], marker="o", label=name)
        ax.plot(xs, [r.cpu_o0_us for r in mine], marker="s", label="cpu -O0 (this machine)")
        ax.plot(xs, [r.cpu_o2_us for r in mine], marker="s", label="cpu -O2 (this machine)")
        ax.set(title=kernel, xlabel="payload (bytes)", ylabel="us", xscale="log", yscale="log")
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
