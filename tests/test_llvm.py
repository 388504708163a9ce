"""The llvm engine's own cases (docs/engines.md); its differential tests against the reference are
in ``test_engines.py``.

* every operation on special values, through vector ops, bit for bit against the reference (one
  compiled program per element type);
* a NaN that turns up part way through a loop (the NaN test is a branch), and MIN and MAX of
  zeros of both signs, are the reference's, in each tier and at each level;
* the runtime-symbol trap: code that would call a symbol this process does not provide (a
  128-bit division's libgcc helper) is refused before it runs;
* without llvmlite, ``inca run --engine llvm`` fails with one line and the usage exit code;
* ``inca run --cpu`` prints the two CPU times (text and JSON), timed by a native loop that
  resets the buffers and calls the kernel once a pass.
"""
from __future__ import annotations

import contextlib
import ctypes
import functools
import io
import itertools
import json
import math
import re
import struct
import sys
from array import array
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inca.interpreter import cli, cpu, engine, llvmcapi, llvmengine, objcache
from inca.compiler.frontend import Options, load_tuples
from inca.interpreter.blocks import analyse
from inca.interpreter.llvmgen import KERNEL_ATTRIBUTES, translate
from inca.interpreter.inputs import gather_inputs
from inca.interpreter.loader import execute, install
from inca.interpreter.nic import NIC
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import EXIT_USAGE
from inca.lang.isa import OPCODES, semantics
from inca.lang.tuples import encode
from inca.compiler.assembler import assemble_text
from engine_fuzz import outcome
from test_engines import F64S, I64S, assert_same, llvm_run, tier_steps

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("dtype", ["i64", "f64"])
def test_every_operation_on_special_values_is_the_reference_s(dtype):
    values = I64S if dtype == "i64" else F64S
    pairs = list(itertools.product(values, values))
    nonzero = [(r, s) for r, s in pairs if s != 0]  # an i64 division by zero faults the whole op
    ops = [op for op, spec in OPCODES.items() if spec.form.name == "BINARY" and semantics(spec, dtype)]
    lines = [f".input R {dtype}[{len(pairs)}]", f".input S {dtype}[{len(pairs)}]",
             f".input P {dtype}[{len(nonzero)}]", f".input Q {dtype}[{len(nonzero)}]"]
    for op in ops:
        a, b, n = ("P", "Q", len(nonzero)) if op in ("DIV", "MOD") and dtype == "i64" else ("R", "S", len(pairs))
        lines += [f".output d{op} {dtype}[{n}]", f"PUTL d{op}[0:{n}], {a}[0:{n}]",
                  f"{op} d{op}[0:{n}], d{op}[0:{n}], {b}[0:{n}]"]
        # and one element at a time, as a scalar op computes it
        lines += [f".output e{op} {dtype}", f"PUTL e{op}, {a}[{n - 1}]", f"{op} e{op}, e{op}, {b}[{n - 1}]"]
    tp = encode(assemble_text("\n".join(lines + ["END"]) + "\n", "ops.incaa"))
    inputs = {"R": [r for r, _ in pairs], "S": [s for _, s in pairs],
              "P": [r for r, _ in nonzero], "Q": [s for _, s in nonzero]}
    prof = load_profile("base")
    want = execute(tp, prof, inputs, engine="reference")
    assert_same(execute(tp, prof, inputs, engine="llvm"), want, "llvm")


NAN_LOOP = """.param N = 12
.input A f64[N]
.input B f64[N]
.output c f64
.output d f64[N]
.output e f64
PUTL i, 0
PUTL r0, i
LT r0, r0, N
BLEZ r0, 15
PUTL r1, A[i]
MUL r1, r1, B[i]
ADD c, c, r1
SUB d[0:N], d[0:N], B[0:N]
PUTL d[i], c
DIV d[i], d[i], r1
MAX e, e, A[i]
MIN d[0:N], d[0:N], A[0:N]
ADD i, i, 1
JMP 2
END
"""


def from_bits(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b))[0]


@pytest.mark.parametrize("level, tier", [(None, None), (None, 5), (2, None), (0, None)],
                         ids=["first-tier", "moving", "O2", "O0"])
def test_nans_part_way_through_a_loop_and_signed_zeros_are_the_reference_s(level, tier):
    tp = encode(assemble_text(NAN_LOOP, "nan.incaa"))
    nan = from_bits(0x7FF8000000000123)
    signalling = from_bits(0xFFF0000000000456)
    cases = [  # the first NaN comes from an operand, the other operand's, or inf - inf
        {"A": [1.0] * 5 + [nan] + [2.0] * 6, "B": [0.5] * 9 + [-nan] + [1.0] * 2},
        {"A": [1.0] * 12, "B": [1.0] * 3 + [signalling] + [-math.inf] * 8},
        {"A": [1.0, 2.0, math.inf] + [1.0] * 9, "B": [1.0] * 7 + [-math.inf] * 5},
        {"A": [0.0, -0.0] * 6, "B": [-0.0, 0.0, 1.0] * 4},  # MIN and MAX of zeros, 0 / 0
    ]
    run = functools.partial(llvmengine.run, level=level, strict=True)
    for inputs in cases:
        with tier_steps(tier) if tier is not None else contextlib.nullcontext():
            assert outcome(tp, inputs, 10_000, run) == outcome(tp, inputs, 10_000, engine.run)


def test_vector_ops_longer_than_the_stack_holds_run():
    # 1,100,000 elements (8.8 MB) a source: read whole first into the stack, it overflowed the
    # main thread's 8 MB and the process died (linear-interpolation -O2 at 1 MiB, --profile base)
    n = 1_100_000
    text = (f".input A f64[{n}]\n.input B f64[{n}]\n.output C f64[{n}]\n"
            f"PUTL C[0:{n}], A[0:{n}]\nMUL C[0:{n}], C[0:{n}], B[0:{n}]\n"  # another storage
            f"ADD A[1:{n}], A[1:{n}], A[0:{n - 1}]\n"  # the same storage: scratch memory
            f"DIV C[0:{n}], C[0:{n}], A[0:{n}]\nEND\n")
    tp = encode(assemble_text(text, "long.incaa"))
    inputs = {"A": [float(i % 7) - 3.0 for i in range(n)], "B": [0.5 + i % 3 for i in range(n)]}
    prof = load_profile("base")
    want = execute(tp, prof, inputs, engine="reference")
    assert_same(execute(tp, prof, inputs, engine="llvm"), want, "llvm")


BROADCASTS = """.input A f64[4][3]
.input R f64[3]
.inout M f64[4][3]
.var V f64[12] @ M
.output C f64[4][3]
PUTL C[0:4][0:3], A[0:4][1:2]
ADD C[0:4][0:3], C[0:4][0:3], R[0:3]
MUL C[0:4][0:3], C[0:4][0:3], A[2:3][0:3]
SUB M[0:4][0:3], M[0:4][0:3], M[0:4][2:3]
ADD M[1:4][0:3], M[1:4][0:3], V[0:3]
DIV C[0:2][0:3], C[0:2][0:3], M[3:4][0:3]
END
"""


def test_broadcast_sources_are_read_through_strides_alike():
    # a column, a row, one row of a matrix, from another storage and from the destination's own
    # (scratch memory): each read as the reference reads it, with no table of positions
    tp = encode(assemble_text(BROADCASTS, "spread.incaa"))
    inputs = {"A": [float(i) - 5.5 for i in range(12)], "R": [0.5, -0.0, 2.0],
              "M": [float(i * i % 7) - 1.0 for i in range(12)]}
    prof = load_profile("base")
    want = execute(tp, prof, inputs, engine="reference")
    assert_same(execute(tp, prof, inputs, engine="llvm"), want, "llvm")
    nic = NIC(prof)
    pc, _ = install(tp, nic, inputs)
    nic.ct_set(pc, 1)
    armed = engine.arm(nic, pc)
    assert "@tab" not in translate(nic, armed, analyse(armed, pc.value)).ir


def test_matrix_multiplication_at_O2_translates_to_a_short_function():
    # at -O2 each step is a vector op over the whole matrix with a column of A broadcast along
    # the rows: 128 x 128 made 17.5 MB of IR through tables of positions (1.3 s to compile)
    tp = load_tuples(str(ROOT / "examples" / "kernels" / "matrix-multiplication.incaq"),
                     Options({"PAYLOAD": 131072}, 2, (), False, False))
    nic = NIC(load_profile("base"))
    pc, _ = install(tp, nic, None)
    nic.ct_set(pc, 1)
    armed = engine.arm(nic, pc)
    assert len(translate(nic, armed, analyse(armed, pc.value)).ir) < 500_000



def _translated(tp, inputs):
    nic = NIC(load_profile("base"))
    pc, _ = install(tp, nic, inputs)
    nic.ct_set(pc, 1)
    armed = engine.arm(nic, pc)
    return translate(nic, armed, analyse(armed, pc.value)).ir


def test_ops_of_one_shape_share_one_element_loop_and_a_long_kernel_keeps_them_optimised():
    # 400 vector ops (what -O2 makes of a long kernel), of two loops in all: the kernel calls them
    # with its base offsets; past the weight of a long kernel it is kept as it is (optnone) and its
    # loops optimised, with the reference's results
    n = 64
    steps = "".join(f"ADD C[0:{n}], C[0:{n}], A[{k}:{k + n}]\n"
                    f"MUL D[0:{n}], D[0:{n}], B[{k % 7}:{k % 7 + n}]\n" for k in range(200))
    text = (f".input A f64[{n + 200}]\n.input B f64[{n + 7}]\n.output C f64[{n}]\n"
            f".inout D f64[{n}]\n{steps}END\n")
    tp = encode(assemble_text(text, "loops.incaa"))
    inputs = {"A": [(i % 11) / 8 - 0.5 for i in range(n + 200)],
              "B": [1 + (i % 3) / 64 for i in range(n + 7)], "D": [1.0] * n}
    ir = _translated(tp, inputs)
    assert ir.count("define internal") == 2 and ir.count(" call void @loop") == 400
    marked, level, full = llvmengine.first_tier(ir)
    assert (level, full) == (llvmengine.OPT_LEVEL, True) and llvmengine.KEPT_AS_IS in marked
    prof = load_profile("base")
    want = execute(tp, prof, inputs, engine="reference")
    assert_same(execute(tp, prof, inputs, engine="llvm"), want, "llvm")



def test_a_long_kernel_keeps_its_counters_in_place_with_the_reference_s_results():
    # what -O2 makes of filter at 1 KiB (about 1,000 blocks, 19,000 lines of IR) is compiled at
    # -O0, each block's counter kept in the counts memory (the random programs of test_engines.py
    # run with counters in place too: faults, step limits, loops)
    tp = load_tuples(str(ROOT / "examples" / "kernels" / "filter.incaq"),
                     Options({"PAYLOAD": 1024}, 2, (), False, False))
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 1)
    ir = _translated(tp, inputs)
    assert "%c0 = getelementptr i64, ptr %counts, i64 0" in ir and "%c0 = alloca" not in ir
    assert llvmengine.first_tier(ir)[1:] == (0, True)
    assert outcome(tp, inputs, 10**8, llvm_run) == outcome(tp, inputs, 10**8, engine.run)



def test_only_the_storages_a_kernel_may_write_are_copied_back():
    text = (".input A f64[4]\n.input B f64[4]\n.output C f64[4]\n.var V f64[2][2] @ C\n.var k i64\n"
            "PUTL C[0:4], A[0:4]\nADD V[1][0:2], V[1][0:2], B[2:4]\nPUTL k, 3\nEND\n")
    tp = encode(assemble_text(text, "written.incaa"))
    inputs = {"A": [1.0, 2.0, 3.0, 4.0], "B": [0.5, 0.25, -1.0, 8.0]}
    nic = NIC(load_profile("base"))
    pc, _ = install(tp, nic, inputs)
    nic.ct_set(pc, 1)
    armed = engine.arm(nic, pc)
    tr = translate(nic, armed, analyse(armed, pc.value))
    assert sorted(tr.storage[j] for j in tr.written) == ["C", "k"]  # (V is C's storage)
    prof = load_profile("base")
    assert_same(execute(tp, prof, inputs, engine="llvm"),
                execute(tp, prof, inputs, engine="reference"), "llvm")


def _kernel_ir(lines: int, calls: int) -> str:
    body = "".join("  %x = add i64 0, 0\n" for _ in range(lines))
    body += "".join("  call void @loop0(ptr %m0, i64 0)\n" for _ in range(calls))
    return (f"define i32 @kernel(ptr %m0) #0 {{\nentry:\n{body}  ret i32 0\n}}\n"
            "define internal void @loop0(ptr noalias %d, i64 %db) #1 {\nentry:\n  ret void\n}\n"
            f"{KERNEL_ATTRIBUTES}\nattributes #1 = {{ nounwind noinline }}\n")


@pytest.mark.parametrize("lines, calls, tier", [
    (100, 0, (llvmengine.OPT_LEVEL, False)),  # short: two tiers
    (100, 100, (llvmengine.OPT_LEVEL, False)),  # 1,600 lines' weight
    (100, 200, (llvmengine.OPT_LEVEL, True)),  # long for its calls: optnone, loops at -O2
    (2200, 200, (llvmengine.OPT_LEVEL, True)),  # its own 2,400 lines with the calls
    (3000, 0, (0, True)),  # long for its own lines: -O0
    (3000, 1, (0, True)),
])
def test_the_first_tier_weighs_a_kernel_s_lines_and_its_calls(lines, calls, tier):
    ir = _kernel_ir(lines, calls)
    marked, *got = llvmengine.first_tier(ir)
    assert tuple(got) == tier
    kept = tier == (llvmengine.OPT_LEVEL, True)
    assert marked == (ir.replace(KERNEL_ATTRIBUTES, llvmengine.KEPT_AS_IS) if kept else ir)
    assert llvmengine.first_tier(ir, 0) == (ir, 0, True)  # a level asked for is compiled as asked


def test_code_calling_a_symbol_the_process_lacks_is_refused():
    missing = ("declare i64 @inca_no_such_symbol(i64)\n"
               "define i64 @kernel(i64 %a) {\n  %r = call i64 @inca_no_such_symbol(i64 %a)\n"
               "  ret i64 %r\n}\n")
    with pytest.raises(llvmengine.UnresolvedSymbol, match="inca_no_such_symbol"):
        llvmengine.compile_ir(missing, 0)
    wide = ("define i64 @kernel(i64 %a, i64 %b) {\n  %x = sext i64 %a to i128\n"
            "  %y = sext i64 %b to i128\n  %q = sdiv i128 %x, %y\n  %t = trunc i128 %q to i64\n"
            "  ret i64 %t\n}\n")
    with pytest.raises(llvmengine.UnresolvedSymbol, match="i128"):
        llvmengine.compile_ir(wide, 2)
    # a call LLVM makes of frem resolves in this process (libm's fmod), so it is accepted
    frem = "define double @kernel(double %a, double %b) {\n  %r = frem double %a, %b\n  ret double %r\n}\n"
    llvmengine.compile_ir(frem, 2)



# the pattern the check had been: the same verdict on every text, searched at each position
_WIDE_PATTERN = r"\b[su](?:div|rem) <?(?:\d+ x )?i(?:12[89]|1[3-9]\d|[2-9]\d\d|\d{4,})\b"


_DIVISION_TEXT = st.tuples(
    st.sampled_from(["", " ", "  %q = ", "x", "_", "%", "9", "\n"]),
    st.sampled_from(["sdiv", "udiv", "srem", "urem", "fdiv", "frem", "div", "rem", "sdivx"]),
    st.sampled_from([" ", "  ", ""]), st.sampled_from(["", "<4 x ", "<", "4 x "]),
    st.sampled_from(["i", "x"]),
    st.sampled_from(["1", "8", "64", "127", "128", "129", "199", "200", "999", "1000", "65536"]),
    st.sampled_from(["", " ", "x", "_", ", ", ">"])).map("".join)


@settings(max_examples=500, deadline=None)
@given(st.lists(_DIVISION_TEXT, max_size=4).map("".join))
def test_the_wide_division_check_is_the_patterns_verdict(text):
    wide = re.search(_WIDE_PATTERN, text)
    if wide:
        with pytest.raises(llvmengine.UnresolvedSymbol) as refused:
            llvmengine._refuse_wide_division(text)
        assert wide.group(0) in str(refused.value)
    else:
        llvmengine._refuse_wide_division(text)


def test_without_llvmlite_the_llvm_engine_fails_with_one_line(monkeypatch):
    monkeypatch.setattr(llvmengine, "_llvm", {})
    monkeypatch.setattr(llvmcapi, "_state", {})
    monkeypatch.setattr(objcache, "host", lambda: None)  # what it finds without llvmlite
    monkeypatch.setitem(sys.modules, "llvmlite", None)  # what a failed import leaves
    monkeypatch.setitem(sys.modules, "llvmlite.binding", None)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["run", str(ROOT / "examples" / "asm" / "dot-product.incaa"), "--seed", "1",
                         "--engine", "llvm"])
    assert code == EXIT_USAGE and out.getvalue() == ""
    assert err.getvalue().startswith("inca: error: the llvm engine needs llvmlite")
    assert err.getvalue().count("\n") == 1 and "Traceback" not in err.getvalue()


def test_inca_run_cpu_times_the_kernel_compiled_for_this_machine():
    path = str(ROOT / "examples" / "asm" / "dot-product.incaa")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["run", path, "--seed", "1", "--cpu", "--json"])
    assert code == 0, err.getvalue()
    doc = json.loads(out.getvalue())
    assert list(doc)[-2:] == ["engine", "cpu"] and list(doc["cpu"]) == ["o0_us", "o2_us", "note"]
    assert doc["cpu"]["o0_us"] > 0 and doc["cpu"]["o2_us"] > 0
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["run", path, "--seed", "1", "--cpu"]) == 0
    assert [line.split()[:2] for line in out.getvalue().splitlines()[-2:]] == [["cpu", "-O0"], ["cpu", "-O2"]]


@pytest.mark.parametrize("level", cpu.LEVELS)
def test_the_cpu_timing_loop_resets_the_buffers_and_calls_the_kernel_once_a_pass(level):
    # X[0] += 1 on two buffers: one reset before every pass, one not (a size of 0 bytes), so
    # after n passes the first holds one increment and the second n (0 without the calls)
    ir = ("define i32 @kernel(ptr %counts, ptr %where, i64 %fuel, i64 %block, ptr %scratch, "
          "ptr %m0, ptr %m1) {\n"
          + "".join(f"  %v{j} = load i64, ptr %m{j}\n  %w{j} = add i64 %v{j}, 1\n"
                    f"  store i64 %w{j}, ptr %m{j}\n" for j in (0, 1))
          + "  ret i32 0\n}\n" + cpu.harness(2))
    engine, _ = llvmengine.compile_ir(ir, level)
    repeat = cpu._HARNESS(engine.address("repeat"))
    for call, after in ((True, [11, 17]), (False, [10, 10])):
        work, pristine = [array("q", [10]), array("q", [10])], [array("q", [10]), array("q", [10])]
        table = ctypes.c_int64 * 2
        repeat(7, call, None, None, 0, None, table(*(a.buffer_info()[0] for a in work)),
               table(*(a.buffer_info()[0] for a in pristine)), table(8, 0))
        assert [a[0] for a in work] == after


def test_an_llvmlite_older_than_0_45_is_refused_with_one_line(monkeypatch):
    import llvmlite

    monkeypatch.setattr(llvmengine, "_llvm", {})
    monkeypatch.setattr(llvmlite, "__version__", "0.44.0")
    with pytest.raises(llvmengine.LLVMUnavailable, match=r"needs llvmlite 0\.45 or newer, not 0\.44\.0"):
        llvmengine.binding()
