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
                # a scalar names itself; an element or a vector, the scalars of its index
                for name in o.names_read if o.index else (o.name,):
                    if name not in known:
                        implicit.setdefault(name, "i64")

    # The fixed point, by propagation rather than by passes over every instruction (a 36,000-
    # instruction program took three passes): an undeclared name is f64 when an instruction that
    # is not bitwise writes it from an f64 immediate, an f64 declared name or an f64 undeclared
    # name; ``copies`` says, for each undeclared source name, which undeclared names such
    # instructions write from it.
    copies: dict[str, list[str]] = {}
    found: list[str] = []
    for ins in instrs:
        d, s = ins.dest, ins.src
        if d is None or s is None or d.name not in implicit or OPCODES[ins.op].int_only:
            continue
        if isinstance(s, Imm):
            if s.dtype == "f64":
                found.append(d.name)
        elif s.name in implicit:
            copies.setdefault(s.name, []).append(d.name)
        elif known.get(s.name) == "f64":
            found.append(d.name)
    while found:
        name = found.pop()
        if implicit[name] == "i64":
            implicit[name] = "f64"
            found.extend(copies.get(name, ()))
    return implicit
