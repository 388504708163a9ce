"""Program files in, tuple programs out: the one place that knows the file kinds.

``.incaa`` is assembled, ``.json`` is an ``inca-tuples/1`` program loaded as is, ``.incaq`` is
compiled. Both command-line tools (``incac`` and ``inca run``) load programs through here.
"""
from __future__ import annotations

import argparse

from ..lang.diagnostics import Diagnostic, DiagnosticError, Source
from ..lang.frozen import field, frozen
from ..lang.numbers import NumberError, parse_float, parse_int
from ..lang.userfiles import read_text

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (2 ms of every start)
if TYPE_CHECKING:  # the program model is imported when a program is read, not by the options
    from ..lang.program import Program
    from ..lang.tuples import TupleProgram

KINDS = (".incaq", ".incaa", ".json")


@frozen
class Options:
    """Compilation options shared by incac and inca run."""

    defines: dict[str, int] = field(default_factory=dict)
    opt: int = 0
    include: tuple[str, ...] = ()
    clobber: bool = False
    fast_math: bool = False  # -Ofast or -ffast-math

    @property
    def level(self):
        """The optimiser's :class:`~inca.compiler.opt.pipeline.Level` (None at -O0)."""
        if self.opt == 0 and not self.fast_math:
            return None
        from .opt.pipeline import Level

        return Level(self.opt, self.fast_math)


def read_source(path: str) -> Source:
    """The text of a file as a Source; a missing, unreadable, oversized or non-UTF-8 file is a
    diagnostic, and a leading byte-order mark is dropped (:func:`~inca.lang.userfiles.read_text`)."""
    return Source(path, read_text(path))


def kind_of(path: str) -> str:
    """The file kind by extension, or a diagnostic naming the kinds understood."""
    for ext in KINDS:
        if path.endswith(ext):
            return ext
    raise DiagnosticError([Diagnostic("unknown kind of program file",
                                      hint="give an .incaq, .incaa or .json (tuple program) file",
                                      file=path)])


def load_program(path: str, options: Options = Options(), trace=None) -> Program:
    """The instruction-level program of a source file (a JSON program is decoded back);
    ``trace`` (an :class:`~inca.compiler.opt.pipeline.Trace`) collects the optimiser's remarks
    and printed stages."""
    kind = kind_of(path)
    src = read_source(path)
    if kind == ".incaa":
        from .assembler import assemble

        return assemble(src, options.defines)
    if kind == ".incaq":
        from .incaq.pipeline import compile_source

        return compile_source(src, options.defines, options.include, options.clobber,
                              options.level, trace)
    from ..lang.tuples import from_json

    return from_json(src.text, path).program()


def load_tuples(path: str, options: Options = Options()) -> TupleProgram:
    """The tuple program of any program file."""
    from ..lang.tuples import encode, from_json

    if kind_of(path) == ".json":
        return from_json(read_source(path).text, path)
    return encode(load_program(path, options))


def compile_text(path: str, text: str, options: Options = Options()) -> TupleProgram:
    """The tuple program of INCA-Q ``text`` named ``path``, as :func:`load_tuples` would give it
    from the file (a study's worker is sent the text, not the file)."""
    from ..lang.tuples import encode
    from .incaq.pipeline import compile_source

    return encode(compile_source(Source(path, text), options.defines, options.include,
                                 options.clobber, options.level))


def _define(text: str) -> tuple[str, int]:
    """argparse type for -D: NAME=INT."""
    name, sep, value = text.partition("=")
    if not sep or not name.isidentifier():
        raise argparse.ArgumentTypeError(f"expected NAME=INTEGER, not {text!r}")
    try:
        return name, parse_int(value)
    except NumberError as e:
        raise argparse.ArgumentTypeError(f"{name}: {e}") from None


def any_int(text: str) -> int:
    """argparse type: an integer (decimal, 0x, 0b, 0o) of bounded size (:mod:`inca.lang.numbers`)."""
    try:
        return parse_int(text)
    except NumberError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def positive_int(text: str) -> int:
    """argparse type: a positive integer."""
    v = any_int(text)
    if v <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return v


#: The longest --verify-timeout, in seconds (a day): z3's own timeout is a count of milliseconds.
MAX_SECONDS = 86_400


def seconds(text: str) -> float:
    """argparse type: a duration in seconds, above 0 and at most :data:`MAX_SECONDS` (a NaN, an
    infinity or 1e400 was taken as a float and ended in a traceback)."""
    try:
        v = parse_float(text, "seconds")
    except (NumberError, ValueError):
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not 0 < v <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be above 0 and at most {MAX_SECONDS} seconds")
    return v


def add_compile_options(p: argparse.ArgumentParser) -> None:
    """Options that control how a source program is compiled (shared with incac)."""
    p.add_argument("-D", dest="defines", metavar="NAME=INT", action="append", type=_define,
                   default=[], help="set a param (INCA-Q) or .param (INCA-A)")
    p.add_argument("--payload", metavar="BYTES", type=positive_int,
                   help="shorthand for -D PAYLOAD=BYTES")
    p.add_argument("-O", dest="opt", metavar="LEVEL", type=_level, default=(0, False),
                   help="optimisation level for INCA-Q: 0 (default, the paper's code), 1 (scalar "
                        "optimisations), 2 (also vectorisation), fast (-O2 and -ffast-math); "
                        "-O1 and -O2 keep every output bit, -Ofast agrees with -O0 within "
                        "rounding only (see docs/optimiser.md)")
    p.add_argument("-ffast-math", dest="fast_math", action="store_true",
                   help="let f64 reductions be reassociated, the sign of zero be ignored and values "
                        "be assumed finite: results agree with -O0 within rounding, not bit for bit")
    p.add_argument("-I", dest="include", metavar="DIR", action="append", default=[],
                   help="add a folder to the module search path")
    p.add_argument("--clobber", action="store_true", help="allow overwriting inputs")


def _level(text: str) -> tuple[int, bool]:
    """argparse type for -O: 0, 1, 2 or fast, as (level, fast-math)."""
    if text == "fast":
        return 2, True
    if text in ("0", "1", "2"):
        return int(text), False
    raise argparse.ArgumentTypeError(f"unknown level {text!r} (use 0, 1, 2 or fast)")


def compile_options(args):
    """The frontend Options from parsed arguments."""
    defines = dict(args.defines)
    if args.payload is not None:
        defines["PAYLOAD"] = args.payload
    opt, fast = args.opt
    return Options(defines, opt, tuple(args.include), args.clobber, fast or args.fast_math)
