"""Translation of an installed tuple program into one LLVM IR function (the llvm engine).

The blocks of :mod:`.blocks` become LLVM basic blocks one for one, so any PC graph translates
with plain branches and LLVM sees the program's loops as loops. Each block adds one to its
counter, an i64 slot that LLVM keeps in a register; the counters give every tuple's fire count
exactly. A loop header first takes its reserve from the fuel and returns to the caller when the
fuel would go negative, as the python engine's function does (:mod:`.pygen`).

    i32 @kernel(ptr %counts, ptr %where, i64 %fuel, i64 %block, ptr %scratch, ptr %m0, ...)

takes the block counters so far (read at entry, written back at every exit), the fuel, the start
PC value of the block to begin at (the entry or a header), scratch memory of ``scratch`` 8-byte
elements (where a vector op reads a source whole before storing: :mod:`.llvmops`) and one
pointer per storage (a buffer and its views share one; distinct storages never overlap, so the
pointers are ``noalias``). A scalar whose storage no other name shares lives in a slot promoted
to a register, loaded at entry and stored back at every exit. It returns a status of
:mod:`.pygen` and writes a PC value to ``where``: END or OFF_END (where the run stopped),
RECOUNT (the header whose reserve did not fit) or FAULT (the tuple that faults, which has
written nothing: the engine fires it on the reference for its message and partial writes).
Tuples are lowered by :mod:`.llvmops`, without the bounds checks :mod:`.ranges` shows cannot
fail.
"""
from __future__ import annotations

from ..lang.frozen import frozen
from ..lang.isa import Update
from .blocks import Block, Branch, Cfg, Goto, Untranslatable
from .engine import Armed
from .llvmops import IR, Lowering, ty
from .nic import NIC
from .pygen import END, FAULT, OFF_END, RECOUNT, plan_code


# Past this many lines of IR (the blocks alone here; with its calls weighed, in
# :func:`.llvmengine.first_tier`) a kernel is long straight-line code, compiled at -O0. There a
# block's counter is kept in the ``counts`` memory itself, not in a slot loaded at the entry and
# stored back at every exit: 9 lines a block became 4 (filter at -O2 and 8 KiB, 8,180 blocks:
# 157,542 lines of IR became 116,642, and LLVM's -O0 took 1.3 s on it instead of 2.1).
BIG_IR_LINES = 2500
# The kernel's attributes, the last line but one of every translation: the engine may mark a long
# kernel optnone there (:func:`.llvmengine.first_tier`). Element loops are never inlined: the ops
# of one shape share one copy, and -O2 leaves a long kernel's hundreds of calls as calls.
KERNEL_ATTRIBUTES = "attributes #0 = { nounwind }"


@frozen
class Translation:
    """The IR of a program and what its caller needs to run it."""

    ir: str
    storage: tuple[str, ...]  # the buffer naming each storage pointer, in argument order
    order: tuple[int, ...]  # block starts, in the order of the counters
    sizes: tuple[int, ...]  # tuples per block, in the same order
    scratch: int  # 8-byte elements of scratch memory the kernel needs (0: none)
    written: tuple[int, ...]  # the storages some tuple's atomic may store to (positions in storage)


def translate(nic: NIC, armed: Armed, cfg: Cfg, counters: bool = True) -> Translation:
    """The kernel function's IR for the blocks of ``cfg``. Without ``counters`` it has no block
    counters and no fuel (the host-CPU baseline, :mod:`.cpu`): it returns at END or a fault."""
    p = plan_code(nic, armed, cfg)
    storage_of, first, cached, runs = p.storage_of, p.first, p.cached, p.runs
    ir = IR()
    low = Lowering(ir, nic.buffers, storage_of, cached, p.ranges)
    gen = _Gen(ir, low, armed, cfg, {b.start: j for j, b in enumerate(runs)}, counters)
    start = gen.target(cfg.entry)
    for block in runs:
        gen.block(block)
    for pc, label in sorted(ir.faults.items()):
        ir.label(label)
        gen.leave(FAULT, pc)
    for pc, label in sorted(gen.stops.items()):
        ir.label(label)
        ex = cfg.blocks[pc].exit
        gen.leave(END if ex.end else OFF_END, pc)

    scalars = sorted((storage_of[n], n) for n in cached)
    head = ["entry:", *ir.allocas, "  %st = alloca i32", "  %wh = alloca i64",
            "  %fuelp = alloca i64", "  store i64 %fuel, ptr %fuelp"]
    for j, n in scalars:
        t = ty(nic.buffers[n].dtype)
        head += [f"  %s{j} = alloca {t}", f"  %s{j}.0 = load {t}, ptr %m{j}",
                 f"  store {t} %s{j}.0, ptr %s{j}"]
    tail = ["exit:"]
    for j, n in scalars:
        t = ty(nic.buffers[n].dtype)
        tail += [f"  %s{j}.x = load {t}, ptr %s{j}", f"  store {t} %s{j}.x, ptr %m{j}"]
    if counters and len(ir.lines) > BIG_IR_LINES:  # compiled at -O0: each counter in place
        head += [f"  %c{j} = getelementptr i64, ptr %counts, i64 {j}" for j in range(len(runs))]
    elif counters:  # in a slot, which SROA promotes to a register, loaded and stored back
        for j in range(len(runs)):
            head += [f"  %c{j} = alloca i64", f"  %c{j}.p = getelementptr i64, ptr %counts, i64 {j}",
                     f"  %c{j}.0 = load i64, ptr %c{j}.p", f"  store i64 %c{j}.0, ptr %c{j}"]
            tail += [f"  %c{j}.x = load i64, ptr %c{j}", f"  store i64 %c{j}.x, ptr %c{j}.p"]
    tail += ["  %wh.x = load i64, ptr %wh", "  store i64 %wh.x, ptr %where",
             "  %st.x = load i32, ptr %st", "  ret i32 %st.x"]
    resume = " ".join(f"i64 {h}, label %{gen.target(h)}" for h in sorted(cfg.headers)
                      if cfg.blocks[h].pcs)
    head.append(f"  switch i64 %block, label %{start} [{resume}]")
    params = "".join(f", ptr noalias %m{j}" for j in range(len(first)))
    text = "\n".join([
        f"define i32 @kernel(ptr noalias %counts, ptr noalias %where, i64 %fuel, i64 %block, "
        f"ptr noalias %scratch{params}) #0 {{",
        *head, *ir.lines, *tail, "}",
        *ir.functions, "declare double @llvm.fabs.f64(double)", KERNEL_ATTRIBUTES,
        "attributes #1 = { nounwind noinline }", ""])
    # (a superset: every armed entry's destination, run or not, and a BLEZ's, which it only reads)
    dests = {slot.entry.dest.name for slot in armed.slots
             if slot is not None and slot.entry is not None and slot.entry.dest is not None}
    written = {storage_of[n] for n in dests if n in storage_of}
    return Translation(text, first, tuple(b.start for b in runs), tuple(len(b.pcs) for b in runs),
                       low.scratch, tuple(sorted(written)))


class _Gen:
    """Writes the blocks: counters, fuel, tuples, branches."""

    def __init__(self, ir: IR, low: Lowering, armed: Armed, cfg: Cfg, ids: dict[int, int],
                 counters: bool):
        self.ir, self.low, self.armed, self.cfg, self.ids = ir, low, armed, cfg, ids
        self.counters = counters
        self.stops: dict[int, str] = {}

    def target(self, pc: int) -> str:
        """The label that goes on at PC value ``pc``: a block, or a stop."""
        if self.cfg.blocks[pc].pcs:
            return f"b{pc}"
        return self.stops.setdefault(pc, f"stop{pc}")

    def leave(self, status: int, pc: int) -> None:
        self.ir.emit(f"store i32 {status}, ptr %st")
        self.ir.emit(f"store i64 {pc}, ptr %wh")
        self.ir.emit("br label %exit")

    def block(self, block: Block) -> None:
        ir, low = self.ir, self.low
        ir.label(f"b{block.start}")
        if self.counters and block.start in self.cfg.headers:
            fuel = ir.op("load i64, ptr %fuelp")
            left = ir.op(f"sub i64 {fuel}, {self.cfg.reserve[block.start]}")
            ir.emit(f"store i64 {left}, ptr %fuelp")
            out = ir.op(f"icmp slt i64 {left}, 0")
            ir.emit(f"br i1 {out}, label %rc{block.start}, label %bb{block.start}")
            ir.label(f"rc{block.start}")
            self.leave(RECOUNT, block.start)
            ir.label(f"bb{block.start}")
        if self.counters:
            j = self.ids[block.start]
            count = ir.op(f"load i64, ptr %c{j}")
            ir.emit(f"store i64 {ir.op(f'add i64 {count}, 1')}, ptr %c{j}")
        st = low.ranges.entry[block.start]
        for pc in block.pcs:
            slot = self.armed.slots[pc]
            low.pc, low.state = pc, st
            st = st and low.ranges.step(st, slot)
            update = slot.entry.update
            if update is Update.INC:
                low.data_op(slot)
            elif update is Update.BLEZ:
                taken = low.blez(slot)
                ir.emit(f"br i1 {taken}, label %{self.target(slot.op.payload)}, "
                        f"label %{self.target(slot.nxt)}")
            elif update is not Update.SET:  # JMP only moves the counter, which the blocks do
                raise Untranslatable(f"PC {pc}: atomic {slot.entry.atomic} with update {update.value}")
        if isinstance(block.exit, Goto):
            ir.emit(f"br label %{self.target(block.exit.pc)}")
        elif not isinstance(block.exit, Branch):
            raise Untranslatable(f"block {block.start} ends with {block.exit}")
