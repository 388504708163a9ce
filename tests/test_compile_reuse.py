"""What keeps compiling a large kernel quick (bench/bench_compile.py measures the speed): the
checker hands on the parser's nodes rather than equal copies, the lowering makes one operand per
scalar and literal and lowers a long sum in linear work, and encoding pauses the collector
(pauses nest, also across threads) without changing its state, entering a pause sets off no
collection, the garbage cycles a pause leaves are found by young collections, and compiling or assembling
leaves no reference cycle (its trees are freed as soon as they are done with)."""
from __future__ import annotations

import gc
from pathlib import Path

import pytest

from inca.compiler.frontend import Options, load_tuples
from inca.compiler.incaq import ast
from inca.compiler.incaq.checker import check
from inca.compiler.incaq.lower import lower
from inca.compiler.incaq.parser import parse
from inca.lang.diagnostics import Source
from inca.lang.check import check_program
from inca.lang.program import Affine, Decl, Imm, Instr, Program, Ref, Slice
from inca.lang.tuples import encode, from_json, to_json

KERNEL = """\
param N = 4
input A: f64[N]
output s: f64
func twice(x: f64) -> f64 {
    y = x * 2.0
    return y
}
for i in 0 .. N do {
    s = s + A[i] * 0.5
}
if s > 1.0 then { s = s - 1.0 } else { s = twice(s) }
"""


def _checked():
    src = Source("k.incaq", KERNEL)
    module = parse(src)
    return module, check(module, src)


def test_the_checked_kernel_is_made_of_the_parsed_nodes_where_nothing_changed():
    module, checked = _checked()
    loop, cond = module.items[-2], module.items[-1]
    body = checked.body
    # the loop's bound N is a param, replaced by its value: a new For around the same body
    assert isinstance(body[0], ast.For) and body[0].hi == ast.Num(4, False)
    assert body[0].body[0] is loop.body[0]
    # the if inlines a call in its else branch: its condition and then branch are the parsed ones
    assert body[1].cond is cond.cond and body[1].then[0] is cond.then[0]
    # the function's local y is renamed in its inlined copy, with its own source location
    (call,) = body[1].orelse
    y = next(s.target for s in call.value.pre if s.target.id.endswith("_y"))
    source_y = module.items[3].body[0].target
    assert y.id != source_y.id and y is not source_y and y.loc == source_y.loc


def test_one_operand_per_scalar_and_literal_for_the_whole_kernel():
    _, checked = _checked()
    prog = lower(checked, "k.incaq")
    scalars, literals = {}, {}
    for ins in prog.instrs:
        for op in (ins.dest, ins.src):
            if isinstance(op, Ref) and not op.index:
                assert scalars.setdefault(op.name, op) is op
            elif isinstance(op, Imm) and op.value:
                assert literals.setdefault((op.dtype, op.value), op) is op
            if op is not None and not (isinstance(op, Ref) and op.index):
                assert op.loc is None  # where it was written is its instruction's location
    assert ("f64", 1.0) in literals  # (written twice: `s > 1.0` and `s - 1.0`)
    add = next(ins for ins in prog.instrs if ins.op == "ADD" and ins.dest.name == "s")
    putl = [ins for ins in prog.instrs if ins.loc is add.loc and ins.op == "PUTL"]
    temps = {ins.dest.name: ins.dest for ins in putl}
    # the temporary written by PUTL is the very operand ADD reads
    assert add.src is temps[add.src.name]


def test_an_operand_without_a_location_is_reported_at_its_instruction():
    src = Source("k.incaa", "BLEZ v[0:2], 1\n")
    loc = src.loc(1, 1, 5)
    decls = {"v": Decl("v", "var", "i64", (4,))}
    instrs = (Instr("BLEZ", Ref("v", (Slice(Affine(0), Affine(2)),)), None, 1, loc), Instr("END"))
    (diag,) = check_program(decls, instrs, src.diag)
    assert diag.loc == loc and "one value" in diag.message


@pytest.mark.parametrize("enabled", [True, False])
def test_encoding_leaves_the_collector_as_it_was(enabled):
    prog = Program((Decl("x", "var", "i64"),), (Instr("PUTL", Ref("x"), Ref("x")), Instr("END")))
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        encode(prog)
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def _sum_kernel(terms: int) -> str:
    return ("input A: f64[4]\noutput y: f64\n" + "".join(f"var a{i}: f64\n" for i in range(terms))
            + "y = " + " + ".join(f"a{i} * A[{i % 4}]" for i in range(terms)) + "\n")


class _CountedIter(dict):
    iterations = 0

    def __iter__(self):
        _CountedIter.iterations += 1
        return super().__iter__()


def test_a_long_sum_is_lowered_in_linear_work(monkeypatch):
    # y = a0 * A[0] + a1 * A[1] + ... : the type of each link of the chain was computed by walking
    # the rest of it (600 terms: 180,000 type_of calls), and each new temporary copied every name
    # of the program to pick its own (600 copies of 1,200 names)
    from inca.compiler.incaq import checked as checked_ast, lower as lowering

    terms = 600
    src = Source("sum.incaq", _sum_kernel(terms))
    checked = check(parse(src), src)
    calls = 0
    type_of = lowering.type_of

    def counted(e, syms):
        nonlocal calls
        calls += 1
        return type_of(e, syms)

    monkeypatch.setattr(lowering, "type_of", counted)
    monkeypatch.setattr(checked_ast, "type_of", counted)  # its own recursive calls too
    lowerer = lowering.Lowerer(checked, "sum.incaq")
    lowerer.syms = _CountedIter(lowerer.syms)
    _CountedIter.iterations = 0
    prog = lowerer.program(checked)
    assert len(prog.instrs) == 3 * terms + 1
    assert calls <= 4 * terms
    assert _CountedIter.iterations <= 2


def test_nested_and_concurrent_pauses_resume_the_collector_once_all_end():
    import threading

    from inca.lang.gcpause import collector_paused

    was = gc.isenabled()
    gc.enable()
    try:
        with collector_paused():
            with collector_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()  # the outer pause is still on
        assert gc.isenabled()
        inside, leave = threading.Barrier(9), threading.Event()

        def pause():
            with collector_paused():
                inside.wait()
                leave.wait()

        threads = [threading.Thread(target=pause) for _ in range(8)]
        for t in threads:
            t.start()
        inside.wait()
        assert not gc.isenabled()
        leave.set()
        for t in threads:
            t.join()
        assert gc.isenabled()
        gc.disable()  # a collector the caller turned off stays off
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()


def test_entering_a_pause_sets_off_no_collection():
    from inca.lang.gcpause import collector_paused

    was = gc.isenabled()
    gc.disable()
    try:
        made = [[] for _ in range(3 * gc.get_threshold()[0])]  # tracked: past the first threshold
        before = gc.get_count()[0]
        gc.enable()
        with collector_paused():
            inside = gc.get_count()[0]  # a collection as the pause began would have reset it
        assert len(made) and before > gc.get_threshold()[0] and inside >= before
    finally:
        (gc.enable if was else gc.disable)()


def test_garbage_cycles_made_in_pauses_are_left_to_the_young_collections():
    # A long session compiles again and again (the REPL, a report, a study's worker). The cycles
    # a pause leaves must be found by the young collections the process runs anyway: moved to the
    # oldest generation unscanned (as an attempt to spare that scan did), only a full collection
    # finds them, and in a loop of compilations none ran: 126,000 objects after 1,200 of them.
    import weakref

    from inca.lang.gcpause import collector_paused

    class Node:
        pass

    was = gc.isenabled()
    gc.enable()
    try:
        gone = []
        for _ in range(50):
            with collector_paused():
                kept = [[] for _ in range(100)]
                cycle = Node()
                cycle.self = cycle
                gone.append(weakref.ref(cycle))
                del cycle
        gc.collect(1)  # the young generations only
        assert all(ref() is None for ref in gone) and kept
    finally:
        (gc.enable if was else gc.disable)()


def _cycles_left_by(work) -> list:
    """The objects that only the cyclic collector could free after ``work()`` (run once first,
    so that caches it fills are not counted)."""
    work()
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        work()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.mark.parametrize("opt", ["0", "1", "2", "fast"])
def test_compiling_leaves_no_reference_cycle(opt):
    # A cycle (a nested function that called itself, in the checker's search for recursion) held
    # the whole syntax tree until the collector's next run: memory a REPL or study kept, and work
    # the collector did for each compilation.
    options = Options({"PAYLOAD": 64}, opt=2 if opt == "fast" else int(opt), fast_math=opt == "fast")
    kernels = [(p, options) for p in sorted((EXAMPLES / "kernels").glob("*.incaq"))]
    for path, opts in kernels + [(EXAMPLES / "asm" / "dot-product.incaa", Options())]:
        def work():
            tp = load_tuples(str(path), opts)
            from_json(to_json(tp), "k.json")
        # (measured again when something was left: what another thread drops meanwhile, an
        # event loop an earlier test's cluster closes, is garbage too, but not again)
        left = _cycles_left_by(work) and _cycles_left_by(work)
        assert not left, f"{path.name} at -O{opt}: {len(left)} objects in cycles, " \
            f"{sorted({type(o).__name__ for o in left})}"
