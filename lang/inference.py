"""Types of undeclared scalars in an instruction-level program (INCA-A.md, Declarations).

An undeclared scalar is f64 if any instruction writes it from an f64 source (except the
bitwise operations, which are i64 only), else i64. The assembler types undeclared names this
way, and the compiler uses it to leave out declarations the assembler would infer anyway.
"""
from __future__ import annotations

from typing import Iterable

from .isa import OPCODES
from .program import Imm, Instr, Ref


def infer_scalar_types(instrs: Iterable[Instr], known: dict[str, str]) -> dict[str, str]:
    """The type of every scalar name used in ``instrs`` but absent from ``known`` (name -> dtype)."""
    instrs = tuple(instrs)
    implicit: dict[str, str] = {}
    for ins in instrs:
        for o in (ins.dest, ins.src):
            if isinstance(o, Ref):
                for name in ((o.name,) if not o.index else ()) + o.names_read:
                    if name not in known:
                        implicit.setdefault(name, "i64")

    def dtype_of(o) -> str:
        if isinstance(o, Imm):
            return o.dtype
        return implicit.get(o.name) or known.get(o.name, "i64")

    changed = True
    while changed:
        changed = False
        for ins in instrs:
            d, s = ins.dest, ins.src
            if d is None or s is None or implicit.get(d.name) != "i64":
                continue
            if dtype_of(s) == "f64" and not OPCODES[ins.op].int_only:
                implicit[d.name] = "f64"
                changed = True
    return implicit
