"""Types of undeclared scalars in an instruction-level program (INCA-A.md, Declarations).

An undeclared scalar is f64 if any instruction writes it from an f64 source (except the
bitwise operations, which are i64 only), else i64. The assembler types undeclared names this
way, and the compiler uses it to leave out declarations the assembler would infer anyway.
"""
from __future__ import annotations

from collections.abc import Iterable

from .isa import OPCODES
from .program import Affine, Instr, Ref


def infer_scalar_types(instrs: Iterable[Instr], known: dict[str, str]) -> dict[str, str]:
    """The type of every scalar name used in ``instrs`` but absent from ``known`` (name -> dtype)."""
    instrs = tuple(instrs)
    implicit: dict[str, str] = {}
    seen = set(known)  # the names known or found so far: most operands need one lookup
    ref = Ref  # (an operand is a Ref or an Imm, never of a subclass)
    for ins in instrs:
        # the destination, then the source: a tuple of the two for each instruction and a loop
        # over it took a third of the scan
        o = ins.dest
        if type(o) is ref:
            if not o.index:  # a scalar (most operands): its name is all it reads
                if o.name not in seen:
                    implicit[o.name] = "i64"
                    seen.add(o.name)
            else:
                _index_names(o, seen, implicit)
        o = ins.src
        if type(o) is ref:
            if not o.index:
                if o.name not in seen:
                    implicit[o.name] = "i64"
                    seen.add(o.name)
            else:
                _index_names(o, seen, implicit)
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
        if type(s) is ref:
            if s.name in implicit:
                written_from.setdefault(s.name, []).append(d.name)
            elif known.get(s.name, "i64") == "f64":
                found.append(d.name)
        elif s.dtype == "f64":  # an Imm
            found.append(d.name)
    while found:
        name = found.pop()
        if implicit[name] == "i64":
            implicit[name] = "f64"
            found.extend(written_from.get(name, ()))
    return implicit


def _index_names(o: Ref, seen: set[str], implicit: dict[str, str]) -> None:
    """Add the names an element's index reads (not the array's) that are new to ``seen``: those
    of ``o.names_read``, read from the terms (the property makes a tuple for each part of each
    index, about 10,000 instructions an element)."""
    for i in o.index:
        for name, _ in i.terms if type(i) is Affine else i.lo.terms + i.hi.terms:  # (a Slice)
            if name not in seen:
                implicit[name] = "i64"
                seen.add(name)


#: The bitwise operations, which have no f64 form (they never make a name f64).
_INT_ONLY = frozenset(op for op, spec in OPCODES.items() if spec.int_only)
