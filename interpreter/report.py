"""``inca report``: kernels x payloads x profiles x variants x grids, beside the paper.

The study's cells are computed by :mod:`.study` (each execution once, every profile point priced
from its fire counts, cached, locally or on a Dask cluster); this module reads the options and
the study file, checks them, and writes the rows as a table, CSV, JSON, Markdown and a plot. The
report never recomputes the model.
"""
from __future__ import annotations

import csv
import io
import json
import os
import sys
from pathlib import Path

from ..lang.diagnostics import Diagnostic, DiagnosticError, did_you_mean
from ..lang.gcpause import collector_paused
from ..lang.numbers import NumberError, parse_int
from ..lang.userfiles import cannot_write, check_output, os_reason, write_text
from .paper import PAYLOADS, PaperFigures
from .study import OPTS, VARIANTS, Row

FIELDS = ("kernel", "variant", "opt", "profile", "payload", "instructions", "time_us",
          "paper_instructions", "paper_time_us", "paper_row")


def kernel_files(folder: Path, names: list[str] | None) -> dict[str, Path]:
    """The kernels to run: every ``*.incaq`` in ``folder``, or the named ones."""
    shown = str(folder).replace("\0", "\\0")  # (a study file's path may hold a NUL)
    try:  # even asking whether a folder exists fails on a name too long
        found = {p.stem: p for p in sorted(folder.glob("*.incaq"))} if folder.is_dir() else None
    except OSError as e:
        raise DiagnosticError([Diagnostic(f"cannot read the kernels folder: {os_reason(e)}",
                                          file=shown)]) from None
    if found is None:
        raise DiagnosticError([Diagnostic("no kernels folder", hint="run from the repository root "
                                          "or pass --kernels-dir", file=shown)])
    if not found:
        raise DiagnosticError([Diagnostic("no .incaq kernels in this folder", file=shown)])
    if names is None:
        return found
    missing = [n for n in names if n not in found]
    if missing:
        raise DiagnosticError([Diagnostic(f"no kernel named {', '.join(missing)}",
                                          hint="kernels: " + ", ".join(found), file=shown)])
    return {n: found[n] for n in names}


def worker_count(jobs: int | None, tasks: int) -> int:
    """Processes for a report: ``-j`` (default one per usable core), but never more than there are
    usable cores (the runs are CPU-bound: more processes only cost memory and start-up) or runs."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(jobs or cores, cores, tasks))


def _cell(v) -> str:
    return "" if v is None else str(v)


def _dim_names(rows: list[Row]) -> list[str]:
    return [name for name, _ in rows[0].dims] if rows else []


def _values(r: Row) -> tuple:
    """A row's values in column order: FIELDS (a Row's first fields, in order) with the study's
    dimensions after ``payload``."""
    return (*r[:5], *[v for _, v in r.dims], *r[5:10])


def columns(rows: list[Row]) -> list[str]:
    """The column names: FIELDS, with the study's dimensions (engine, grid) after ``payload``."""
    return [*FIELDS[:5], *_dim_names(rows), *FIELDS[5:]]


def to_csv(rows: list[Row]) -> str:
    """CSV with the FIELDS columns (and the grid's); empty cells where the paper has no figure."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns(rows))
    w.writerows(map(_values, rows))  # csv writes None as an empty cell and str() of the rest
    return buf.getvalue()


def to_json(rows: list[Row]) -> str:
    """A JSON list of row objects (keys in column order; null where the paper has no figure)."""
    names = columns(rows)
    return json.dumps([dict(zip(names, _values(r))) for r in rows], indent=1) + "\n"


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
    return [[r.kernel, r.variant, f"-O{r.opt}", r.profile, str(r.payload),
             *(_cell(v) for _, v in r.dims), str(r.instructions), _cell(r.paper_instructions),
             r.time_us, _cell(r.paper_time_us), _mark(r), _delta(r)] for r in rows]


HEAD = ["kernel", "variant", "opt", "profile", "payload", "instr", "paper", "time_us", "paper_us",
        "match", "delta"]


def _head(rows: list[Row]) -> list[str]:
    return [*HEAD[:5], *_dim_names(rows), *HEAD[5:]]


def to_table(rows: list[Row]) -> str:
    """An aligned text table with deltas and exact-match marks, then a summary line."""
    body = _table_rows(rows)
    head = _head(rows)
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]
    right = set(range(4, len(head) - 2))  # payload, the grid's values, the counts and times
    lines = []
    for cells in [head] + body:
        lines.append("  ".join(c.rjust(w) if i in right else c.ljust(w)
                               for i, (c, w) in enumerate(zip(cells, widths))).rstrip())
    lines.insert(1, "  ".join("-" * w for w in widths))
    compared = [r for r in rows if r.exact is not None]
    exact = sum(1 for r in compared if r.exact)
    lines.append(f"\n{len(rows)} rows; {len(compared)} with published figures, {exact} match exactly")
    return "\n".join(lines) + "\n"


def to_markdown(rows: list[Row]) -> str:
    """A Markdown table (for READMEs and issues)."""
    head = _head(rows)
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for cells in _table_rows(rows):
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


FORMATS = {"table": to_table, "csv": to_csv, "json": to_json, "markdown": to_markdown}


def x_value(r: Row, x: str):
    """A row's value in dimension ``x`` (``payload``, ``variant``, ``opt``, ``profile``, or one of
    the study's dimensions)."""
    if x in ("payload", "variant", "opt", "profile"):
        return getattr(r, x)
    return dict(r.dims).get(x)


def plot(rows: list[Row], path: str, x: str = "payload") -> None:
    """Runtime against ``x`` (default payload, log-log) per kernel, one line per setting of the
    other dimensions, the paper's points overlaid."""
    try:
        import matplotlib
    except ImportError:
        raise DiagnosticError([Diagnostic("plotting needs matplotlib",
                                          hint="pip install -e '.[plot]'", file=path)]) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    others = [d for d in ("variant", "opt", "profile", "payload", *(n for n, _ in rows[0].dims))
              if d != x] if rows else []
    varying = [d for d in others if len({x_value(r, d) for r in rows}) > 1]
    series: dict[tuple, list[Row]] = {}
    for r in rows:
        if x_value(r, x) is not None:
            series.setdefault(tuple(_order(x_value(r, d)) for d in varying), []).append(r)
    xs_all = sorted({x_value(r, x) for r in rows} - {None}, key=_order)
    numeric = all(isinstance(_order(v), tuple) and _order(v)[0] == 0 for v in xs_all)
    kernels = sorted({r.kernel for r in rows})
    cols = min(4, len(kernels))
    nrows = -(-len(kernels) // cols)
    fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3.2 * nrows), squeeze=False)
    for ax, kernel in zip(axes.flat, kernels):
        for _, pts in sorted(series.items()):
            pts = sorted((p for p in pts if p.kernel == kernel), key=lambda p: _order(x_value(p, x)))
            if not pts:
                continue
            label = _label(pts[0], varying)
            pos = [(_order(x_value(p, x))[1] if numeric else xs_all.index(x_value(p, x))) for p in pts]
            line, = ax.plot(pos, [float(p.time_us) for p in pts], marker=".", label=label)
            paper = [(q, float(p.paper_time_us)) for q, p in zip(pos, pts) if p.paper_time_us]
            if paper:
                what = f"paper's {pts[0].paper_row}" if pts[0].opt != "0" else "paper"
                ax.scatter(*zip(*paper), marker="o", facecolors="none", edgecolors=line.get_color(),
                           s=60, label=f"{label} ({what})")
        if x == "payload":
            ax.set_xscale("log", base=2)
        if not numeric:
            ax.set_xticks(range(len(xs_all)), [str(v) for v in xs_all])
        ax.set_yscale("log")
        ax.set_title(kernel)
        ax.set_xlabel({"payload": "payload (bytes)", "link_gbps": "link speed (Gb/s)"}.get(x, x))
        ax.set_ylabel("runtime (us)")
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(kernels):]:
        ax.axis("off")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as e:
        raise cannot_write(path, "inca", os_reason(e)) from None
    finally:
        plt.close(fig)


def _order(v) -> tuple:
    """Numbers (ints, exact decimal text such as ``102.4`` or ``1/3``) by value, before other text."""
    from fractions import Fraction

    if isinstance(v, int):
        return (0, float(v))
    try:
        return (0, float(Fraction(str(v))))
    except (ValueError, ZeroDivisionError):
        return (1, str(v))


def _label(r: Row, varying: list[str]) -> str:
    parts = []
    for d in varying:
        v = x_value(r, d)
        if d == "profile":
            parts.append(v)
        elif d == "variant":
            parts.append("" if v == "default" else v)
        elif d == "opt":
            parts.append(f"-O{v}")
        else:
            parts.append(f"{d}={v}")
    return " ".join(p for p in parts if p) or r.profile


PLOT_FORMATS = (".png", ".svg", ".pdf")


#: The engine a study runs on unless told: ``inca run``'s default.
RUN_ENGINE = "auto"


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


def _list(args, study: dict, key: str, default: str) -> str:
    """An option's text: the command line's, else the study file's, else the default."""
    given = getattr(args, key)
    return given if given is not None else str(study.get(key, default))


def _dimensions(args):
    """The study the options and the study file describe, checked before anything runs."""
    from .grid import load_study, parse_grid
    from .profiles import load_profile
    from .study import Study

    study = load_study(args.study) if args.study else {}
    kernels_text = _list(args, study, "kernels", "all")
    names = None if kernels_text == "all" else [k.strip() for k in kernels_text.split(",")]
    kernels = kernel_files(Path(args.kernels_dir or study.get("kernels_dir", "examples/kernels")), names)
    payloads = parse_payloads(args.payloads if args.payloads is not None else study.get("payloads"))
    profiles = [p.strip() for p in _list(args, study, "profiles", "scratchpad,base").split(",")]
    for p in profiles:
        load_profile(p)  # reject unknown profiles before starting the sweep
    variants = [v.strip() for v in _list(args, study, "variants", "default,clobber").split(",")]
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        raise DiagnosticError([Diagnostic(f"unknown variant {', '.join(bad)}",
                                          hint="variants: " + ", ".join(VARIANTS), file="--variants")])
    opts = tuple(dict.fromkeys(o.strip() for o in _list(args, study, "opt", "0").split(",")))
    bad = [o for o in opts if o not in OPTS]
    if bad:
        raise DiagnosticError([Diagnostic(f"unknown optimisation level {', '.join(bad)}",
                                          hint="levels: " + ", ".join(OPTS), file="--opt")])
    engine = args.engine or study.get("engine")
    if engine is not None:
        from .loader import ENGINES  # the engines run; a report from the cache needs none of them
    if engine is not None and engine not in ENGINES:
        raise DiagnosticError([Diagnostic(f"unknown engine {engine}", hint=did_you_mean(
            engine, ENGINES) or "engines: " + ", ".join(ENGINES), file="--engine")])
    axes = {a.name: a for a in parse_grid(study.get("grid", []), kernels, args.study or "--grid")}
    axes.update({a.name: a for a in parse_grid(args.grid, kernels)})
    return Study(kernels, payloads, profiles, variants, opts, engine or RUN_ENGINE, list(axes.values()),
                 engine is not None, args.max_steps)


def _check_x(x: str | None, study) -> str:
    names = ["payload", "variant", "opt", "profile", *(["engine"] if study.show_engine else []),
             *(a.name for a in study.axes)]
    if x is None:
        return "payload"
    if x not in names:
        raise DiagnosticError([Diagnostic(f"cannot plot against '{x}': it is not a dimension of "
                                          "this study", hint=did_you_mean(x, names) or
                                          "dimensions: " + ", ".join(names), file="--x")])
    return x


def cmd_report(args) -> int:
    """``inca report``."""
    from . import objcache
    from .cache import Cache, default_dir
    from .study import compute, report_key, rows as study_rows

    study = _dimensions(args)
    x = _check_x(args.x, study)
    if args.x is not None and not args.plot:
        raise DiagnosticError([Diagnostic("--x chooses the axis of a plot", hint="add --plot FILE",
                                          file="--x")])
    paper_dir, paper = _paper(args.paper)
    # every output is checked before the sweep, against everything the report reads
    read = [str(k) for k in study.kernels.values()] + [p for p in study.profiles if p.endswith(".toml")]
    read += [args.study] if args.study else []
    if paper_dir is not None:
        read += [str(f) for f in paper_dir.glob("*.csv")]
    output = args.output if args.output and args.output != "-" else None
    if output:
        check_output(output, "inca", read)
    if args.plot:
        _check_plot(args.plot)
        check_output(args.plot, "inca", read + ([output] if output else []))
    # the llvm engine's machine code goes with the cells (and --no-cache stores none of it either)
    objects = "off" if args.no_cache else (str(Path(args.cache) / "objects") if args.cache else None)
    if args.cpu:
        with objcache.setting(objects):
            return _cpu_report(args, study, paper, output)
    cache = None if args.no_cache else Cache(Path(args.cache) if args.cache else default_dir())
    # an unchanged study's report is read back whole; a plot needs the rows themselves
    key = report_key(study, paper, args.format) if cache is not None and not args.plot else None
    stored = cache.read("report", key) if key is not None else None
    text = stored.get("text") if stored is not None else None
    if not isinstance(text, str):
        with objcache.setting(objects):
            cells = compute(study, cache, lambda n: worker_count(args.jobs, n), args.scheduler,
                            progress=sys.stderr.isatty() and not args.quiet)
        with collector_paused():  # tens of thousands of rows, no cycles: nothing for it to find
            rows = study_rows(study, cells, paper)
            text = FORMATS[args.format](rows)
        if key is not None:
            cache.write("report", key, {"text": text})
    if output:
        write_text(output, text, "inca")
    else:
        sys.stdout.write(text)
    if args.plot:
        plot(rows, args.plot, x)
    return 0


def _cpu_report(args, study, paper, output: str | None) -> int:
    """``inca report --cpu`` (cpu_report.py): measured in this process, never cached."""
    from . import cpu_report
    from .blocks import Untranslatable
    from .cpu import CPUMismatch
    from .engine import LLVMUnavailable

    for option, given in (("--grid", study.axes), ("--scheduler", args.scheduler),
                          ("--x", args.x)):
        if given:
            raise DiagnosticError([Diagnostic(f"{option} does not apply to a --cpu report",
                                              hint="the CPU is timed on this machine, per kernel "
                                              "and payload", file=option)])
    try:
        rows = cpu_report.cpu_rows(study, paper, progress=sys.stderr.isatty() and not args.quiet)
    except LLVMUnavailable as e:
        raise DiagnosticError([Diagnostic(str(e), hint="pip install llvmlite", file="--cpu")]) from None
    except (CPUMismatch, Untranslatable) as e:
        raise DiagnosticError([Diagnostic(f"the CPU build of a kernel: {e}", file="--cpu")]) from None
    text = cpu_report.FORMATS[args.format](rows)
    if output:
        write_text(output, text, "inca")
    else:
        sys.stdout.write(text)
    if args.plot:
        cpu_report.plot(rows, args.plot)
    return 0
