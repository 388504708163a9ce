"""``inca``: run INCA programs on the reference NIC model.

Subcommands: ``run`` (execute a program and report counts and modeled time), ``report`` and
``repl`` (an interactive session; bare ``inca`` on a terminal starts it too). Heavy modules are
imported inside the handlers so ``inca --version`` stays instant.
"""
from __future__ import annotations

import argparse
import sys

from ..compiler.cmdline import Formatter, parse_command_line
from ..compiler.frontend import add_compile_options, any_int, compile_options, positive_int
from ..lang import __version__
from ..lang.diagnostics import (EXIT_ERROR, EXIT_FAULT, EXIT_INTERNAL, EXIT_OK, EXIT_STEPS,
                                EXIT_USAGE, DiagnosticError)

EPILOG = """\
examples:
  inca run examples/asm/dot-product.incaa --seed 1
  inca run kernel.incaa --profile base --input A=1,2,3,4 --input B=@b.json --json
  inca run kernel.json --profile my-nic.toml --param link_gbps=400 --trace

exit codes: 0 ok, 1 errors in the program or inputs, 2 bad command line,
            3 runtime fault in the kernel, 4 --max-steps exceeded, 70 internal error
"""


def _param(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    return name.strip(), value.strip()


def _grid(text: str) -> tuple[str, str]:
    name, sep, values = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=V1,V2,... or NAME=START:STOP:STEP, not {text!r}")
    return name.strip(), values.strip()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``inca``."""
    parser = argparse.ArgumentParser(
        prog="inca", description="Run INCA kernels on the reference NIC model.", epilog=EPILOG,
        formatter_class=Formatter)
    parser.add_argument("--version", action="version", version=f"inca {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    run = sub.add_parser("run", help="run a program and report counts and modeled time",
                         description="Run a program (.incaq, .incaa or tuple .json) on the NIC model.",
                         epilog=EPILOG, formatter_class=Formatter)
    run.add_argument("file", help="program file: .incaq, .incaa or .json")
    run.add_argument("--profile", default="scratchpad",
                     help="scratchpad (default), base, scratchpad-400g, scratchpad-1000g, or a .toml file")
    run.add_argument("--param", metavar="NAME=VALUE", action="append", type=_param, default=[],
                     help="override a profile parameter, e.g. link_gbps=400 or elem_gap=1/3")
    run.add_argument("--input", metavar="NAME=VALUES", action="append", default=[],
                     help="input values: 1,2,3 or @file.json (a number or nested list)")
    run.add_argument("--seed", type=any_int, help="pseudo-random values for every input not given")
    run.add_argument("--max-steps", type=positive_int, default=100_000_000, metavar="N",
                     help="stop a runaway kernel after N tuples (default 100000000)")
    run.add_argument("--engine", choices=("auto", "reference", "python", "llvm"), default="auto",
                     help="what runs the program: auto (default: the reference, then python "
                          "once the run proves long, then llvm if it goes on), reference (fires tuple by tuple), python "
                          "(translates it into Python first) or llvm (into machine code, needs "
                          "llvmlite); same results, --trace always uses the reference")
    run.add_argument("--cpu", action="store_true",
                     help="also time the kernel compiled natively for this machine's CPU at LLVM "
                          "-O0 and -O2 (a measurement, not a model; needs llvmlite)")
    run.add_argument("--trace", action="store_true", help="print one line per fired tuple")
    run.add_argument("--json", action="store_true", help="print one JSON object")
    add_compile_options(run)
    rep = sub.add_parser(
        "report", help="run kernels x payloads x profiles and compare with the paper",
        description="Run every kernel of a folder over payloads, profiles and variants and show the "
                    "results beside the paper's published figures.",
        epilog="examples:\n  inca report\n  inca report --format csv --profiles scratchpad,base\n"
               "  inca report --kernels dot-product,hadamard-product --variants default,clobber\n"
               "  inca report --opt 0,2,fast --profiles scratchpad\n"
               "  inca report --plot runtimes.png\n"
               "  inca report --kernels matrix-multiplication --payloads 8192 --profiles scratchpad "
               "--grid link_gbps=102.4,400,1000\n"
               "  inca report --study examples/studies/link-and-access.toml --plot study.png --x link_gbps",
        formatter_class=Formatter)
    rep.add_argument("--kernels", metavar="LIST",
                     help="comma-separated kernel names, or all (default)")
    rep.add_argument("--kernels-dir", metavar="DIR",
                     help="folder of .incaq kernels (default examples/kernels)")
    rep.add_argument("--payloads", metavar="LIST", help="bytes per input array (default: the "
                     "paper's 128,256,512,1024,2048,4096,8192)")
    rep.add_argument("--profiles", metavar="LIST",
                     help="profiles to run under (default scratchpad,base)")
    rep.add_argument("--variants", metavar="LIST",
                     help="default and/or clobber (compiled with --clobber; default both)")
    rep.add_argument("--opt", metavar="LIST",
                     help="optimisation levels to compile at: 0, 1, 2 and/or fast (default 0); the "
                          "rows of -O2 and -Ofast are shown beside the paper's hand-tuned parallel "
                          "and advanced-parallel rows")
    rep.add_argument("--engine", metavar="NAME",
                     help="the engine that runs the kernels (default: inca run's); adds an engine "
                          "column")
    rep.add_argument("--max-steps", type=positive_int, default=100_000_000, metavar="N",
                     help="stop a kernel that runs more than N tuples (default 100000000), as "
                          "inca run does")
    rep.add_argument("--grid", metavar="NAME=VALUES", action="append", type=_grid, default=[],
                     help="sweep a profile parameter or a kernel param too: NAME=V1,V2,... or "
                          "NAME=START:STOP:STEP (repeatable; docs/studies.md)")
    rep.add_argument("--study", metavar="FILE", help="a study file (TOML) with the dimensions; "
                     "options given on the command line override it")
    rep.add_argument("--format", choices=("table", "csv", "json", "markdown"), default="table")
    rep.add_argument("--plot", metavar="FILE", help="draw runtime against payload (.png or .svg; "
                     "needs matplotlib: pip install -e '.[plot]')")
    rep.add_argument("--x", metavar="NAME", help="the dimension the plot's x axis shows "
                     "(default payload)")
    rep.add_argument("--paper", metavar="DIR", help="folder of the paper's CSV figures (default: "
                     "$INCA_PAPER_DIR, else the copy the package ships)")
    rep.add_argument("-j", "--jobs", type=positive_int, metavar="N",
                     help="worker processes (default: one per core)")
    rep.add_argument("--cache", metavar="DIR", help="where finished cells are kept (default "
                     "$XDG_CACHE_HOME/incac, else ~/.cache/incac)")
    rep.add_argument("--no-cache", action="store_true", help="compute every cell, store nothing")
    rep.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run the executions on this "
                     "Dask cluster (needs pip install 'incac[cluster]')")
    rep.add_argument("--cpu", action="store_true",
                     help="instead: INCA's modeled time beside this machine's CPU (the kernel "
                          "compiled at LLVM -O0 and -O2, measured; needs llvmlite) and the paper's "
                          "Haswell, per kernel and payload")
    rep.add_argument("-o", dest="output", metavar="FILE", help="write the report to FILE")
    rep.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_repl_parser(sub)
    return parser


def add_repl_parser(sub) -> None:
    """``inca repl``: its options (docs/repl.md describes the session)."""
    repl = sub.add_parser(
        "repl", help="an interactive session on a live NIC model",
        description="Type INCA-Q statements (or INCA-A after :asm) and run them on a NIC model\n"
                    "whose memory persists; load, step and inspect kernels. :help lists the\n"
                    "commands. With stdin not a terminal, lines are read one by one with no\n"
                    "prompt (inca repl < session.txt).",
        epilog="examples:\n  inca repl\n  inca repl examples/kernels/dot-product.incaq --profile base\n"
               "  inca repl < session.txt\n\nhistory: $INCA_HISTORY (empty: none), else ~/.inca_history",
        formatter_class=Formatter)
    repl.add_argument("file", nargs="?", help="a program to :load at the start")
    repl.add_argument("--profile", default="scratchpad",
                      help="scratchpad (default), base, scratchpad-400g, scratchpad-1000g, or a .toml file")
    repl.add_argument("--param", metavar="NAME=VALUE", action="append", type=_param, default=[],
                      help="override a profile parameter, e.g. link_gbps=400")
    repl.add_argument("--max-steps", type=positive_int, default=100_000_000, metavar="N",
                      help="stop a runaway statement or program after N tuples (default 100000000)")
    repl.add_argument("-I", dest="include", metavar="DIR", action="append", default=[],
                      help="add a folder to the INCA-Q module search path (for use)")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``inca`` command."""
    parser = build_parser()
    args = parse_command_line(parser, argv)
    if args.command is None and argv is None and sys.stdin.isatty() and sys.stdout.isatty():
        # the bare command typed at a terminal; a caller passing argv gets the help instead
        args = parser.parse_args(["repl"])
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    try:
        if args.command == "repl":
            from .repl import cmd_repl

            return cmd_repl(args)
        if args.command == "report":
            from .report import cmd_report

            return cmd_report(args)
        return cmd_run(args)
    except DiagnosticError as e:
        for d in e.diagnostics:
            print(d.render(), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception:  # a bug in the toolchain, never the user's fault
        import traceback

        traceback.print_exc()
        print("inca: internal error; please report it with the command line above", file=sys.stderr)
        return EXIT_INTERNAL


def cmd_run(args) -> int:
    """``inca run``."""
    from ..compiler.frontend import load_tuples
    from .engine import RuntimeFault, StepLimit
    from .inputs import check_footprint, gather_inputs, to_json_data, to_text
    from .engine import LLVMUnavailable
    from .loader import execute, fault_diagnostic, summary_lines, time_us_text
    from .profiles import load_profile

    tp = load_tuples(args.file, compile_options(args))
    profile = load_profile(args.profile, dict(args.param))
    check_footprint(tp, profile)
    inputs = gather_inputs({b.name: b for b in tp.buffers}, args.input, args.seed)
    trace = (sys.stderr if args.json else sys.stdout) if args.trace else None
    try:
        r = execute(tp, profile, inputs, args.max_steps, trace, args.engine)
    except LLVMUnavailable as e:
        print(f"inca: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except RuntimeFault as fault:
        print(fault_diagnostic(tp, fault).render(), file=sys.stderr)
        return EXIT_STEPS if isinstance(fault, StepLimit) else EXIT_FAULT
    cpu = None
    if args.cpu:
        from .blocks import Untranslatable
        from .cpu import cpu_json, cpu_lines, measure

        try:
            cpu = measure(tp, profile, inputs, r)
        except LLVMUnavailable as e:
            print(f"inca: error: {e}", file=sys.stderr)
            return EXIT_USAGE
        except Untranslatable as e:
            print(f"inca: error: --cpu cannot compile this program: {e}", file=sys.stderr)
            return EXIT_ERROR
    if args.json:
        doc = {
            "outputs": {n: to_json_data(v, r.shapes[n]) for n, v in r.outputs.items()},
            "instructions": r.instructions,
            "by_class": r.by_class,
            "messages": r.messages,
            "memory_accesses": r.memory_accesses,
            "time_ns": float(r.time_ns),
            "time_us": float(time_us_text(r.time_ns)),
            "profile": profile.as_json(),
            "wall_s": round(r.wall_s, 6),
            "tuples_per_s": round(r.tuples_per_s),
            "engine": r.engine,
        }
        if cpu is not None:
            doc["cpu"] = cpu_json(cpu)
        import json

        print(json.dumps(doc))
        return EXIT_OK
    missing = [b.name for b in tp.buffers if b.role in ("input", "inout") and b.name not in inputs]
    for name, value in r.outputs.items():
        print(f"{name} = {to_text(value, r.shapes[name], r.dtypes[name])}")
    print("\n".join(summary_lines(r)))
    print(f"profile         {profile.describe()}")
    print(f"simulated       {_figure(r.wall_s)} s, {_figure(r.tuples_per_s / 1e6)} M tuples/s "
          f"({r.engine} engine)")
    if cpu is not None:
        print("\n".join(cpu_lines(cpu)))
    if missing:
        print(f"note: inputs not given were zero: {', '.join(missing)} (use --input or --seed)")
    return EXIT_OK


def _figure(x: float) -> str:
    """A measured figure to three significant digits, in decimals and in full from 1,000 on: a
    fixed number of decimals showed a short run as "0.0000 s" and a run of long vector ops as
    "0.00 M tuples/s"."""
    import math

    if x <= 0:
        return "0"
    return f"{x:.{max(0, 2 - math.floor(math.log10(x)))}f}"


def program() -> int:
    """The ``inca`` program (its console script): :func:`main` on the command line, and a
    quick exit (:func:`~inca.lang.gcpause.exiting`)."""
    from ..lang.gcpause import exiting

    return exiting(main())


if __name__ == "__main__":
    sys.exit(program())
