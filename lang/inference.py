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
                if not o.index:  # a scalar (most operands): its name is all it reads
                    if o.name not in known and o.name not in implicit:
                        implicit[o.name] = "i64"
                    continue
                for name in o.names_read:  # an element: its index names (not the array)
                    if name not in known:
                        implicit.setdefault(name, "i64")
    # f64 spreads from f64 sources along "written from" edges between undeclared names, each edge
    # followed once. (Passes over the whole program until none changed anything took one pass per
    # link of a chain of copies written last link first: 4,000 copies took 2.4 s.)
    written_from: dict[str, list[str]] = {}  # undeclared name -> undeclared names written from it
    found: list[str] = []
    int_only = _INT_ONLY
    for ins in instrs:
        d, s = ins.dest, ins.src
        if d is None or s is None or d.name not in implicit or ins.op in int_only:
            continue
        if isinstance(s, Ref) and s.name in implicit:
            written_from.setdefault(s.name, []).append(d.name)
        elif (s.dtype if isinstance(s, Imm) else known.get(s.name, "i64")) == "f64":
            found.append(d.name)
    while found:
        name = found.pop()
        if implicit[name] == "i64":
            implicit[name] = "f64"
            found.extend(written_from.get(name, ()))
    return implicit


#: The bitwise operations, which have no f64 form (they never make a name f64).
_INT_ONLY = frozenset(op for op, spec in OPCODES.items() if spec.int_only)
