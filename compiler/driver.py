"""``incac``: the compiler driver, used the way people use cc.

``incac FILE`` writes ``<stem>.tuples.json``; ``--emit`` picks the stage to print. Only argparse
and the diagnostics are imported at start-up, so ``incac --version`` is instant.
"""
from __future__ import annotations

import argparse
import os
import sys

from ..lang import __version__
from ..lang.diagnostics import (EXIT_ERROR, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, Diagnostic,
                                DiagnosticError)
from .cmdline import Formatter, parse_command_line

EMITS = ("ast", "loopir", "loopir-opt", "asm", "tuples", "json")

EPILOG = """\
examples:
  incac kernel.incaq                                write kernel.tuples.json
  incac kernel.incaq -S -o -                        print the INCA-A code (-O0)
  incac kernel.incaq -O2 -S --remarks               optimise; say what was done and what not
  incac kernel.incaq -O2 --print-after vectorise    show the loop IR after one pass
  incac kernel.incaq --payload 8192 --stats         compile for 8 KiB inputs, show sizes
  incac examples/asm/dot-product.incaa              write dot-product.tuples.json
  incac kernel.incaa --emit tuples                  print the tuple listing
  incac examples/asm/dot-product.incaa -D N=128 --stats

exit codes: 0 ok, 1 errors in the program, 2 bad command line, 70 internal error
"""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``incac``."""
    from .frontend import add_compile_options, seconds

    p = argparse.ArgumentParser(
        prog="incac", description="Compile INCA kernels (INCA-Q .incaq, INCA-A .incaa) to tuple programs.",
        epilog=EPILOG, formatter_class=Formatter)
    p.add_argument("file", nargs="?", help="source file (.incaq or .incaa) or tuple program (.json)")
    p.add_argument("-o", dest="output", metavar="OUT", help="output file; - for stdout "
                   "(default: <stem>.tuples.json for json, stdout for other stages)")
    p.add_argument("--emit", choices=EMITS, default=None,
                   help="stage to output: ast (INCA-Q syntax tree), loopir (the loop IR the "
                        "optimiser starts from), loopir-opt (the loop IR after the -O level's "
                        "passes), asm (INCA-A), tuples (listing) or json (default)")
    p.add_argument("-S", dest="emit", action="store_const", const="asm", help="same as --emit asm")
    p.add_argument("--stats", action="store_true",
                   help="print the static instruction count and data footprint per memory")
    p.add_argument("--isa", action="store_true", help="print the instruction set table and exit")
    p.add_argument("--remarks", action="store_true",
                   help="print the optimiser's remarks (what each pass did, and what it did not "
                        "do and why) to stderr")
    p.add_argument("--verify", action="store_true",
                   help="check with z3 that the optimised program computes what the -O0 program "
                        "computes (translation validation; with -O1, -O2 or -Ofast)")
    p.add_argument("--verify-timeout", metavar="S", type=seconds, default=60.0,
                   help="seconds z3 may take for --verify (default 60)")
    p.add_argument("--print-after", metavar="PASS", action="append", default=[],
                   help="print the loop IR after optimisation pass PASS to stderr (repeatable; "
                        "'all' for every pass; docs/optimiser.md lists the passes)")
    p.add_argument("--version", action="version", version=f"incac {__version__}")
    add_compile_options(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``incac`` command."""
    parser = build_parser()
    args = parse_command_line(parser, argv)
    if args.isa:
        from ..lang.isa import isa_table_markdown

        print(isa_table_markdown())
        return EXIT_OK
    if args.file is None:
        parser.print_usage(sys.stderr)
        print("incac: error: no input file", file=sys.stderr)
        return EXIT_USAGE
    try:
        check_print_after(args.print_after)
    except DiagnosticError as e:  # a bad command line, like argparse's own errors
        print(e.diagnostics[0].render(), file=sys.stderr)
        return EXIT_USAGE
    try:
        return compile_command(args)
    except DiagnosticError as e:
        for d in e.diagnostics:
            print(d.render(), file=sys.stderr)
        n = sum(1 for d in e.diagnostics if d.severity == "error")
        if n > 1:
            print(f"{n} errors generated.", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:  # Ctrl-C: quietly, with the shell's code for SIGINT (as inca does)
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception:  # a bug in the toolchain, never the user's fault
        import traceback

        traceback.print_exc()
        print("incac: internal compiler error; please report it with the command line above",
              file=sys.stderr)
        return EXIT_INTERNAL


def stats_text(prog) -> str:
    """Static instruction count (END excluded) and data footprint per memory."""
    from ..lang.isa import OPCODES

    counted = [i for i in prog.instrs if OPCODES[i.op].opclass.counted]
    by_role: dict[str, int] = {}
    for d in prog.decls:
        by_role[d.role] = by_role.get(d.role, 0) + d.nbytes
    total = sum(by_role.values())
    roles = ", ".join(f"{r} {n}" for r, n in by_role.items())
    return (f"static instructions: {len(counted)} ({len(prog.instrs)} tuples with END)\n"
            f"data: {total} bytes ({roles}); in scratchpad profiles all of it is NIC memory "
            f"(capacity 1048576 by default), in the base profile host memory\n")


def emit_ast(args) -> str:
    """``--emit ast``: the text of the parsed INCA-Q syntax tree."""
    from .frontend import read_source
    from .incaq.ast import dump
    from .incaq.parser import parse

    if not args.file.endswith(".incaq"):
        raise DiagnosticError([Diagnostic("--emit ast needs an INCA-Q (.incaq) file", file=args.file)])
    return dump(parse(read_source(args.file))) + "\n"


def check_print_after(names: list[str]) -> None:
    """Every ``--print-after`` name is a pass (or ``all``), else a diagnostic with a hint."""
    if not names:
        return
    import difflib

    from .opt.pipeline import PASS_NAMES

    for n in names:
        if n != "all" and n not in PASS_NAMES:
            close = difflib.get_close_matches(n, PASS_NAMES, 1)
            hint = f"did you mean '{close[0]}'?" if close else "the passes are " + ", ".join(PASS_NAMES)
            raise DiagnosticError([Diagnostic(f"--print-after: no pass named '{n}'", hint=hint,
                                              file="incac")])


def emit_loopir(args, options, optimised: bool) -> str:
    """``--emit loopir`` / ``loopir-opt``: the loop IR before or after the optimiser's passes."""
    from .frontend import read_source
    from .incaq.checker import check
    from .incaq.parser import parse
    from .incaq.ast import deepest
    from .incaq.pipeline import OPT_MAX_DEPTH
    from .incaq.pipeline import optimised as optimise_kernel
    from .opt.ir import Kernel
    from .opt.pipeline import Level
    from .opt.show import show

    if not args.file.endswith(".incaq"):
        raise DiagnosticError([Diagnostic(f"--emit {args.emit} needs an INCA-Q (.incaq) file",
                                          file=args.file)])
    src = read_source(args.file)
    checked = check(parse(src), src, options.defines, options.include, options.clobber)
    depth, where = deepest(checked.body)
    if depth > OPT_MAX_DEPTH:
        raise DiagnosticError([src.diag(
            where, f"this statement nests {depth} levels deep; the loop IR takes at most "
            f"{OPT_MAX_DEPTH}", "the optimiser compiles such a kernel as at -O0: --emit asm shows "
            "its code")])
    if optimised:
        return show(optimise_kernel(checked, options.clobber, options.level or Level())[0])
    return show(Kernel.of(checked))


def verify_command(args, options, prog) -> int:
    """``--verify``: translation validation of the optimised program against -O0's."""
    from ..lang.frozen import replace
    from .frontend import load_program
    from .opt.verify import verify

    if not args.file.endswith(".incaq") or options.level is None or options.level.opt == 0:
        raise DiagnosticError([Diagnostic("--verify compares an optimised INCA-Q kernel with its "
                                          "-O0 code", hint="give an .incaq file and -O1, -O2 or "
                                          "-Ofast", file=args.file)])
    source = load_program(args.file, replace(options, opt=0, fast_math=False))
    verdict = verify(source, prog, options.level.fast_math, args.verify_timeout)
    print(verdict.text(f"{args.file}: -O{options.level.name}"), file=sys.stderr)
    if verdict.status == "counterexample":
        print("incac: the optimiser changed what this kernel computes; please report it with the "
              "command line above", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_OK


def output_path(args, emit: str) -> str:
    """Where the output goes: ``-o``, else ``<stem>.tuples.json`` for json from a source file,
    else ``-`` (stdout)."""
    if args.output is not None:
        return args.output
    if emit == "json" and not args.file.endswith(".json"):
        # splitext, not Path.with_suffix: that raises on a path with no name ('', '.', 'dir/'),
        # which must reach the frontend's "unknown file kind" diagnostic instead
        return os.path.splitext(args.file)[0] + ".tuples.json"
    return "-"


def compile_command(args) -> int:
    """Load, compile and write the requested stage."""
    from ..lang.tuples import encode, listing, to_json
    from ..lang.userfiles import check_output, write_text
    from .frontend import compile_options, load_program
    from .printer import print_program

    options = compile_options(args)
    emit = args.emit or "json"
    out = output_path(args, emit)
    if out != "-":
        check_output(out, "incac", [args.file])  # before compiling: a bad -o fails at once
    prog = None
    trace = None  # the optimiser's modules are imported only when it runs or is asked about
    if options.level is not None or args.print_after or args.remarks:
        from .opt.pipeline import PASS_NAMES, Trace

        trace = Trace(PASS_NAMES if "all" in args.print_after else tuple(args.print_after))
    if emit == "ast":
        text = emit_ast(args)
    elif emit in ("loopir", "loopir-opt"):
        text = emit_loopir(args, options, emit == "loopir-opt")
    else:
        prog = load_program(args.file, options, trace)
        if emit == "asm":
            text = print_program(prog, locations=not args.file.endswith(".incaa"))
        elif emit == "tuples":
            text = listing(encode(prog))
        else:
            text = to_json(encode(prog))
    for printed in trace.printed if trace is not None else ():
        sys.stderr.write(printed)
    if args.verify and prog is not None:
        code = verify_command(args, options, prog)
        if code != EXIT_OK:
            return code
    if args.remarks:
        sys.stderr.write(trace.remarks.text())
    if out == "-":
        sys.stdout.write(text)
    else:
        write_text(out, text, "incac")
    if args.stats and prog is not None:
        sys.stderr.write(stats_text(prog))
    return EXIT_OK


def program() -> int:
    """The ``incac`` program (its console script): :func:`main` on the command line, and a
    quick exit (:func:`~inca.lang.gcpause.exiting`)."""
    from ..lang.gcpause import exiting

    return exiting(main())


if __name__ == "__main__":
    sys.exit(program())
