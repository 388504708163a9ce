"""Program to INCA-A text. The output re-assembles to an equal :class:`Program`."""
from __future__ import annotations

from ..lang.program import Decl, Program, format_value


def decl_text(d: Decl) -> str:
    """One declaration directive, e.g. ``.input A f64[4][8]`` or ``.var i i64 = 3``."""
    dims = "".join(f"[{n}]" for n in d.shape)
    init = ""
    if isinstance(d.init, tuple):
        init = " = " + ", ".join(format_value(v, d.dtype) for v in d.init)
    elif d.role == "var" and d.init != 0:
        init = f" = {format_value(d.init, d.dtype)}"
    elif d.default is not None:
        init = f" = {format_value(d.default, d.dtype)}"
    at = f" @ {d.alias}" if d.alias else ""
    return f".{d.role} {d.name} {d.dtype}{dims}{at}{init}"


def print_program(prog: Program, locations: bool = False) -> str:
    """INCA-A text in the program's own style: numbered lines (the paper's) or labels.

    Implicit scalars are left undeclared (the assembler infers them again). With ``locations``,
    each instruction carries its source location as a comment (how compiled INCA-Q programs show
    the line each instruction came from).
    """
    out = [decl_text(d) for d in prog.decls if not d.implicit]
    if out:
        out.append("")
    names: dict[int, str] = {}  # the name a branch to k is printed with (its first label)
    extra: dict[int, list[str]] = {}  # any further labels on the same instruction
    for name, k in prog.labels:
        if k in names:
            extra.setdefault(k, []).append(name)
        else:
            names[k] = name
    if prog.labels:
        # every branch target needs a name in the label style
        for ins in prog.instrs:
            if ins.target is not None and ins.target not in names:
                names[ins.target] = f"L{ins.target}"
    width = len(str(len(prog.instrs)))
    for k, ins in enumerate(prog.instrs, 1):
        tname = names.get(ins.target) if prog.labels and ins.target is not None else None
        text = ins.text(tname)
        if prog.labels:
            if k in names:
                out.extend(f"{name}:" for name in [names[k], *extra.get(k, ())])
            line = f"    {text}"
        else:
            line = f"{k:>{width}} {text}"
        if locations and ins.loc is not None:
            line = f"{line:<40} ; {ins.loc.file}:{ins.loc.line}"
        out.append(line)
    return "\n".join(out) + "\n"
