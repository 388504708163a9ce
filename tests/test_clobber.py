"""--clobber: inputs may be overwritten, outputs never change, and the paper's clobber rows hold."""
from __future__ import annotations

from pathlib import Path

import pytest

from inca.compiler.assembler import assemble_text
from inca.compiler.frontend import Options, load_program, load_tuples
from inca.compiler.printer import print_program
from inca.interpreter.inputs import gather_inputs
from inca.interpreter.loader import execute, time_us_text
from inca.interpreter.profiles import load_profile
from inca.lang.tuples import encode, from_json, to_json

from paper import PAYLOADS, runtime_us

KERNELS = Path(__file__).resolve().parents[1] / "examples" / "kernels"


def run(path, payload: int, clobber: bool, profile: str = "scratchpad"):
    tp = load_tuples(str(path), Options({"PAYLOAD": payload}, 0, (), clobber))
    inputs = gather_inputs({b.name: b for b in tp.buffers}, [], 1)
    return tp, execute(tp, load_profile(profile), inputs)


@pytest.mark.parametrize("kernel", ["dot-product", "hadamard-product", "matrix-transpose",
                                    "matrix-multiplication"])
@pytest.mark.parametrize("payload", [128, 256, 2048])
def test_clobber_never_changes_outputs(kernel, payload):
    _, plain = run(KERNELS / f"{kernel}.incaq", payload, False)
    _, clobbered = run(KERNELS / f"{kernel}.incaq", payload, True)
    assert clobbered.outputs == plain.outputs
    assert clobbered.instructions <= plain.instructions


@pytest.mark.parametrize("kernel", ["dot-product", "hadamard-product"])
def test_clobber_rows_of_the_paper(kernel):
    for p in PAYLOADS:
        _, r = run(KERNELS / f"{kernel}.incaq", p, True)
        assert time_us_text(r.time_ns) == runtime_us(kernel, "clobber", p), (kernel, p)


def test_dot_product_computes_in_place_in_the_input():
    prog = load_program(str(KERNELS / "dot-product.incaq"), Options({"PAYLOAD": 128}, 0, (), True))
    body = [i.text() for i in prog.instrs]
    assert "MUL A[i], A[i], B[i]" in body and "ADD c, c, A[i]" in body
    assert not any(d.name.startswith("r1") for d in prog.decls)


def test_hadamard_output_is_stored_in_the_input_and_survives_json():
    prog = load_program(str(KERNELS / "hadamard-product.incaq"), Options({"PAYLOAD": 128}, 0, (), True))
    assert prog.decl("H").alias == "A"
    assert "MUL A[i][j], A[i][j], B[i][j]" in [i.text() for i in prog.instrs]
    assert assemble_text(print_program(prog), prog.name) == prog
    tp = encode(prog)
    assert from_json(to_json(tp), "h.json") == tp


def test_matrix_multiplication_is_not_clobbered():
    # A[i][k] is read once per j: computing into it would change the result, so nothing changes
    opts = Options({"PAYLOAD": 128}, 0, (), False)
    plain = load_program(str(KERNELS / "matrix-multiplication.incaq"), opts)
    clob = load_program(str(KERNELS / "matrix-multiplication.incaq"), Options({"PAYLOAD": 128}, 0, (), True))
    assert [i.text() for i in clob.instrs] == [i.text() for i in plain.instrs]


@pytest.mark.parametrize("body", [
    "c = c + A[i] * B[i]\n    d = d + A[i]",  # A read at two places
    "c = c + A[0] * B[i]",  # the same element read on every iteration
    "c = c + A[i] * B[i]\n    i = i + 0",  # the loop variable is changed inside the loop
])
def test_unsafe_reads_are_not_clobbered(tmp_path, body):
    src = tmp_path / "k.incaq"
    src.write_text("input A: f64[8]\ninput B: f64[8]\noutput c: f64\noutput d: f64\n"
                   f"i = 0\nwhile i < 8 do {{\n    {body}\n    i = i + 1\n}}\n")
    plain = load_program(str(src), Options())
    clob = load_program(str(src), Options({}, 0, (), True))
    assert [i.text() for i in clob.instrs] == [i.text() for i in plain.instrs]
