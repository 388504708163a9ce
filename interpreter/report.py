"""``inca report``: kernels x payloads x profiles x variants, run on the model, beside the paper.

Each (kernel, variant, payload) is compiled once and run under every profile with seeded inputs;
sweeps run in a process pool. Rows carry what the model computed and, where the paper published a
figure for the same thing, the paper's value. The report never recomputes the model: it reads
:class:`~inca.interpreter.loader.RunResult`.
"""
from __future__ import annotations

import csv
import io
import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from ..lang.diagnostics import Diagnostic, DiagnosticError
from ..lang.numbers import NumberError, parse_int
from ..lang.userfiles import cannot_write, check_output, write_text
from .paper import PAYLOADS, PaperFigures

FIELDS = ("kernel", "variant", "opt", "profile", "payload", "instructions", "time_us",
          "paper_instructions", "paper_time_us", "paper_row")
VARIANTS = ("default", "clobber")
OPTS = ("0", "1", "2", "fast")
#: The paper's hand-tuned row an optimised level is shown beside (scratchpad profile only): -O2
#: does what its "parallel" kernels do by hand, -Ofast what its "advanced-parallel" ones do.
PAPER_ROW = {("2", "default"): "parallel", ("2", "clobber"): "parallel-clobber",
             ("fast", "default"): "advanced-parallel", ("fast", "clobber"): "advanced-parallel"}
SEED = 1


@dataclass(frozen=True)
class Row:
    """One measured point."""

    kernel: str
    variant: str
    opt: str
    profile: str
    payload: int
    instructions: int
    time_us: str
    paper_instructions: int | None
    paper_time_us: str | None
    paper_row: str | None  # the paper's row the figures are from (its variant name)

    @property
    def exact(self) -> bool | None:
        """True when every published figure equals the computed one (None: nothing published, or
        an optimised row, which is compared with the paper's hand-tuned row, not reproduced)."""
        if self.opt != "0":
            return None
        checks = []
        if self.paper_instructions is not None:
            checks.append(self.paper_instructions == self.instructions)
        if self.paper_time_us is not None:
            checks.append(self.paper_time_us == self.time_us)
        return all(checks) if checks else None


@dataclass(frozen=True)
class Job:
    """Compile one kernel variant at one payload, run it under each profile."""

    path: str
    kernel: str
    variant: str
    payload: int
    profiles: tuple[str, ...]
    opt: str = "0"


def run_job(job: Job) -> list[tuple[str, int, str, str | None]]:
    """(profile, instructions, time_us, link_gbps) for each profile of a job."""
    from ..compiler.frontend import Options, load_tuples
    from .inputs import check_footprint, gather_inputs
    from .loader import execute, time_us_text
    from .profiles import format_number, load_profile

    opt = 2 if job.opt == "fast" else int(job.opt)
    tp = load_tuples(job.path, Options({"PAYLOAD": job.payload}, opt, (), job.variant == "clobber",
                                       job.opt == "fast"))
    profiles = [load_profile(name) for name in job.profiles]
    for profile in profiles:  # before any input is generated
        check_footprint(tp, profile)
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], SEED)
    out = []
    for name, profile in zip(job.profiles, profiles):
        r = execute(tp, profile, inputs)
        gbps = format_number(profile["link_gbps"]) if profile.memory == "scratchpad" else None
        out.append((name, r.instructions, time_us_text(r.time_ns), gbps))
    return out


def kernel_files(folder: Path, names: list[str] | None) -> dict[str, Path]:
    """The kernels to run: every ``*.incaq`` in ``folder``, or the named ones."""
    if not folder.is_dir():
        raise DiagnosticError([Diagnostic("no kernels folder", hint="run from the repository root "
                                          "or pass --kernels-dir", file=str(folder))])
    found = {p.stem: p for p in sorted(folder.glob("*.incaq"))}
    if not found:
        raise DiagnosticError([Diagnostic("no .incaq kernels in this folder", file=str(folder))])
    if names is None:
        return found
    missing = [n for n in names if n not in found]
    if missing:
        raise DiagnosticError([Diagnostic(f"no kernel named {', '.join(missing)}",
                                          hint="kernels: " + ", ".join(found), file=str(folder))])
    return {n: found[n] for n in names}


def sweep(kernels: dict[str, Path], payloads: list[int], profiles: list[str], variants: list[str],
          paper: PaperFigures, jobs: int | None = None, progress: bool = False,
          opts: tuple[str, ...] = ("0",)) -> list[Row]:
    """Run every combination and attach the paper's figures; rows in a fixed order."""
    work = [Job(str(path), name, v, p, tuple(profiles), o)
            for name, path in kernels.items() for v in variants for o in opts for p in payloads]
    results: dict[Job, list] = {}
    workers = worker_count(jobs, len(work))
    if workers == 1:
        for i, job in enumerate(work, 1):
            results[job] = run_job(job)
            _progress(progress, i, len(work))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            try:
                for i, (job, res) in enumerate(zip(work, pool.map(run_job, work)), 1):
                    results[job] = res
                    _progress(progress, i, len(work))
            except BaseException:  # a kernel's diagnostic, or Ctrl-C: do not run the rest first
                pool.shutdown(cancel_futures=True)
                raise
    if progress:
        sys.stderr.write("\n")
    rows = []
    for job in work:
        for profile, count, time_us, gbps in results[job]:
            rows.append(_row(job, profile, count, time_us, gbps, paper))
    rows.sort(key=lambda r: (r.kernel, VARIANTS.index(r.variant) if r.variant in VARIANTS else 9,
                             OPTS.index(r.opt), profiles.index(r.profile), r.payload))
    return rows


def _row(job: Job, profile: str, count: int, time_us: str, gbps: str | None,
         paper: PaperFigures) -> Row:
    """A row with the paper's figures: its own row at -O0, its hand-tuned row above."""
    if job.opt == "0":
        published = paper.time_us(job.kernel, job.variant, profile, gbps, job.payload)
        return Row(job.kernel, job.variant, job.opt, profile, job.payload, count, time_us,
                   paper.count(job.kernel, job.variant, job.payload), published,
                   (job.variant if job.variant != "default" else profile)
                   if published is not None else None)
    row = PAPER_ROW.get((job.opt, job.variant)) if profile == "scratchpad" else None
    published = paper.time_us(job.kernel, row, profile, None, job.payload) if row else None
    return Row(job.kernel, job.variant, job.opt, profile, job.payload, count, time_us, None,
               published, row if published is not None else None)


def worker_count(jobs: int | None, tasks: int) -> int:
    """Processes for a sweep: ``-j`` (default one per usable core), but never more than there are
    usable cores (the runs are CPU-bound: more processes only cost memory and start-up) or runs."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(jobs or cores, cores, tasks))


def _progress(on: bool, done: int, total: int) -> None:
    if on:
        width = 30
        filled = width * done // total
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} runs")
        sys.stderr.flush()


def _cell(v) -> str:
    return "" if v is None else str(v)


def to_csv(rows: list[Row]) -> str:
    """CSV with the FIELDS columns; empty cells where the paper has no figure."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(FIELDS)
    for r in rows:
        w.writerow([_cell(getattr(r, f)) for f in FIELDS])
    return buf.getvalue()


def to_json(rows: list[Row]) -> str:
    """A JSON list of row objects (keys in FIELDS order; null where the paper has no figure)."""
    out = []
    for r in rows:
        d = asdict(r)
        out.append({f: d[f] for f in FIELDS})
    return json.dumps(out, indent=1) + "\n"


def _delta(r: Row) -> str:
    if r.opt != "0":
        if r.paper_time_us is None:
            return ""
        ratio = float(r.time_us) / float(r.paper_time_us) if float(r.paper_time_us) else None
        return f"{ratio:.2f}x the paper's {r.paper_row}" if ratio is not None else ""
    parts = []
    if r.paper_instructions is not None and r.paper_instructions != r.instructions:
        parts.append(f"{r.instructions - r.paper_instructions:+d} instr")
    if r.paper_time_us is not None and r.paper_time_us != r.time_us:
        parts.append(f"{float(r.time_us) - float(r.paper_time_us):+.2f} us")
    return ", ".join(parts)


def _mark(r: Row) -> str:
    return {True: "exact", False: "differs", None: ""}[r.exact]


def _table_rows(rows: list[Row]) -> list[list[str]]:
    return [[r.kernel, r.variant, f"-O{r.opt}", r.profile, str(r.payload), str(r.instructions),
             _cell(r.paper_instructions), r.time_us, _cell(r.paper_time_us), _mark(r), _delta(r)]
            for r in rows]


HEAD = ["kernel", "variant", "opt", "profile", "payload", "instr", "paper", "time_us", "paper_us",
        "match", "delta"]


def to_table(rows: list[Row]) -> str:
    """An aligned text table with deltas and exact-match marks, then a summary line."""
    body = _table_rows(rows)
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(HEAD)]
    right = {4, 5, 6, 7, 8}
    lines = []
    for cells in [HEAD] + body:
        lines.append("  ".join(c.rjust(w) if i in right else c.ljust(w)
                               for i, (c, w) in enumerate(zip(cells, widths))).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    compared = [r for r in rows if r.exact is not None]
    exact = sum(1 for r in compared if r.exact)
    lines.append(f"\n{len(rows)} rows; {len(compared)} with published figures, {exact} match exactly")
    return "\n".join(lines) + "\n"


def to_markdown(rows: list[Row]) -> str:
    """A Markdown table (for READMEs and issues)."""
    lines = ["| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
    for cells in _table_rows(rows):
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


FORMATS = {"table": to_table, "csv": to_csv, "json": to_json, "markdown": to_markdown}


def plot(rows: list[Row], path: str) -> None:
    """Runtime against payload per kernel (log-log), the paper's points overlaid."""
    try:
        import matplotlib
    except ImportError:
        raise DiagnosticError([Diagnostic("plotting needs matplotlib",
                                          hint="pip install -e '.[plot]'", file=path)]) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series: dict[tuple[str, str, str, int], list[Row]] = {}
    for r in rows:
        series.setdefault((r.kernel, r.variant, r.profile, OPTS.index(r.opt)), []).append(r)
    kernels = sorted({r.kernel for r in rows})
    cols = min(4, len(kernels))
    nrows = -(-len(kernels) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3.2 * nrows), squeeze=False)
    for ax, kernel in zip(axes.flat, kernels):
        for (k, variant, profile, opt), pts in sorted(series.items()):
            if k != kernel:
                continue
            label = profile if variant == "default" else f"{profile} {variant}"
            label += f" -O{OPTS[opt]}" if opt else ""
            xs = [p.payload for p in pts]
            line, = ax.plot(xs, [float(p.time_us) for p in pts], marker=".", label=label)
            paper = [(p.payload, float(p.paper_time_us)) for p in pts if p.paper_time_us]
            if paper:
                what = f"paper's {pts[0].paper_row}" if opt else "paper"
                ax.scatter(*zip(*paper), marker="o", facecolors="none", edgecolors=line.get_color(),
                           s=60, label=f"{label} ({what})")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(kernel)
        ax.set_xlabel("payload (bytes)")
        ax.set_ylabel("runtime (us)")
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(kernels):]:
        ax.axis("off")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as e:
        raise cannot_write(path, "inca", (e.strerror or str(e)).lower()) from None
    finally:
        plt.close(fig)


PLOT_FORMATS = (".png", ".svg", ".pdf")


def parse_payloads(text: str | None) -> list[int]:
    """``--payloads``: comma-separated positive byte counts (bounded integers), duplicates dropped."""
    if text is None:
        return list(PAYLOADS)
    out: list[int] = []
    for word in text.split(","):
        try:
            p = parse_int(word, "payload")
        except NumberError as e:
            raise DiagnosticError([Diagnostic(str(e), hint="e.g. --payloads 128,256,8192",
                                              file="--payloads")]) from None
        if p <= 0:
            raise DiagnosticError([Diagnostic(f"a payload must be positive, not {p}", file="--payloads")])
        if p not in out:
            out.append(p)
    return out


def _paper(arg: str | None) -> tuple[Path | None, PaperFigures]:
    """The folder of the paper's figures (``--paper`` or the one found) and what it holds; a bad
    folder or a malformed CSV is a diagnostic."""
    from .paper import find_paper_dir, load_paper

    folder = Path(arg) if arg else find_paper_dir()
    try:
        # inside the try: even asking whether a file exists fails on a name too long or a NUL
        if arg and not (folder / "runtimes_us.csv").is_file():
            raise DiagnosticError([Diagnostic("not a folder of the paper's figures (no runtimes_us.csv)",
                                              file=arg)])
        return folder, load_paper(folder)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, csv.Error) as e:
        raise DiagnosticError([Diagnostic(f"cannot read the paper's figures: {e}",
                                          file=str(folder))]) from None


def _check_plot(path: str) -> None:
    """Refuse a --plot that cannot be drawn before running anything."""
    import importlib.util

    if not path.endswith(PLOT_FORMATS):
        raise DiagnosticError([Diagnostic("a plot is written as " + ", ".join(PLOT_FORMATS),
                                          file=path)])
    if importlib.util.find_spec("matplotlib") is None:
        raise DiagnosticError([Diagnostic("plotting needs matplotlib", hint="pip install -e '.[plot]'",
                                          file=path)])


def cmd_report(args) -> int:
    """``inca report``."""
    from .profiles import load_profile

    names = None if args.kernels in (None, "all") else [k.strip() for k in args.kernels.split(",")]
    kernels = kernel_files(Path(args.kernels_dir), names)
    payloads = parse_payloads(args.payloads)
    profiles = [p.strip() for p in args.profiles.split(",")]
    for p in profiles:
        load_profile(p)  # reject unknown profiles before starting the sweep
    variants = [v.strip() for v in args.variants.split(",")]
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        raise DiagnosticError([Diagnostic(f"unknown variant {', '.join(bad)}",
                                          hint="variants: " + ", ".join(VARIANTS), file="--variants")])
    opts = tuple(dict.fromkeys(o.strip() for o in args.opt.split(",")))
    bad = [o for o in opts if o not in OPTS]
    if bad:
        raise DiagnosticError([Diagnostic(f"unknown optimisation level {', '.join(bad)}",
                                          hint="levels: " + ", ".join(OPTS), file="--opt")])
    paper_dir, paper = _paper(args.paper)
    # every output is checked before the sweep, against everything the report reads
    read = [str(k) for k in kernels.values()] + [p for p in profiles if p.endswith(".toml")]
    if paper_dir is not None:
        read += [str(f) for f in paper_dir.glob("*.csv")]
    output = args.output if args.output and args.output != "-" else None
    if output:
        check_output(output, "inca", read)
    if args.plot:
        _check_plot(args.plot)
        check_output(args.plot, "inca", read + ([output] if output else []))
    rows = sweep(kernels, payloads, profiles, variants, paper, args.jobs,
                 progress=sys.stderr.isatty() and not args.quiet, opts=opts)
    text = FORMATS[args.format](rows)
    if output:
        write_text(output, text, "inca")
    else:
        sys.stdout.write(text)
    if args.plot:
        plot(rows, args.plot)
    return 0
