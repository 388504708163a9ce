"""Types of undeclared scalars (lang/inference.py): the least fixpoint of "a scalar written from an
f64 source by an instruction that is not bitwise is f64", found in work linear in the program."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from inca.lang.inference import infer_scalar_types
from inca.lang.isa import OPCODES
from inca.lang.program import Affine, Imm, Instr, Ref, Slice


def fixpoint(instrs: list[Instr], known: dict[str, str]) -> dict[str, str]:
    """The definition, by passes over the whole program until nothing changes."""
    implicit: dict[str, str] = {}
    for ins in instrs:
        for o in (ins.dest, ins.src):
            if isinstance(o, Ref):
                for name in ((o.name,) if not o.index else ()) + o.names_read:
                    if name not in known:
                        implicit.setdefault(name, "i64")

    def dtype(o) -> str:
        return o.dtype if isinstance(o, Imm) else implicit.get(o.name) or known.get(o.name, "i64")

    changed = True
    while changed:
        changed = False
        for ins in instrs:
            d, s = ins.dest, ins.src
            if (d is not None and s is not None and implicit.get(d.name) == "i64"
                    and dtype(s) == "f64" and not OPCODES[ins.op].int_only):
                implicit[d.name] = "f64"
                changed = True
    return implicit


NAMES = st.sampled_from(["a", "b", "c", "d", "e", "X", "Y"])
OPERANDS = st.one_of(
    NAMES.map(Ref),
    st.tuples(NAMES, NAMES).map(lambda t: Ref(t[0], (Affine.of(0, **{t[1]: 1}),))),
    st.tuples(NAMES, NAMES, NAMES).map(  # a constant, two names and a slice's bounds
        lambda t: Ref(t[0], (Affine(2), Affine.of(1, **{t[1]: 2, t[2]: 1}),
                             Slice(Affine.of(0, **{t[2]: 1}), Affine.of(4, **{t[2]: 1}))))),
    st.sampled_from([Imm(1, "i64"), Imm(1.5, "f64")]))
INSTRS = st.builds(lambda op, d, s: Instr(op, d, s), st.sampled_from(["PUTL", "ADD", "AND", "LT", "MAX"]),
                   st.one_of(NAMES.map(Ref), OPERANDS.filter(lambda o: isinstance(o, Ref))), OPERANDS)


@settings(max_examples=300, deadline=None)
@given(instrs=st.lists(INSTRS, max_size=12))
def test_inference_is_the_fixpoint(instrs):
    known = {"X": "f64", "Y": "i64"}
    got, want = infer_scalar_types(instrs, known), fixpoint(instrs, known)
    assert got == want and list(got) == list(want)  # the same types, declared in the same order


def test_the_names_an_element_reads_are_its_indices_in_order():
    ref = Ref("A", (Affine(3), Affine(1, (("i", 2), ("j", -1))),
                    Slice(Affine(0, (("k", 1),)), Affine(4, (("k", 1),)))))
    assert ref.names_read == ("i", "j", "k", "k") and Ref("x").names_read == ()
    assert Ref("B", (Slice(Affine(0), Affine(8)),)).names_read == ()


class _Counted(Instr):
    """An instruction that counts how often its operands are read."""

    reads = 0

    def __getattribute__(self, name: str):
        if name in ("dest", "src"):
            _Counted.reads += 1
        return super().__getattribute__(name)


def test_a_copy_chain_written_backwards_is_typed_in_linear_work():
    # x3000 <- x2999 <- ... <- x1 <- 1.5, the first copy written first: f64 reaches x3000 through
    # 3,000 links; one pass over the program per link was 9 million operand reads
    n = 3000
    instrs = [_Counted("PUTL", Ref(f"x{i + 1}"), Ref(f"x{i}")) for i in range(n - 1, 0, -1)]
    instrs.append(_Counted("PUTL", Ref("x1"), Imm(1.5, "f64")))
    _Counted.reads = 0
    types = infer_scalar_types(instrs, {})
    assert set(types.values()) == {"f64"} and len(types) == n
    assert _Counted.reads <= 6 * n
