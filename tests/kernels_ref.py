"""Independent Python references for the eight kernels of ``examples/kernels``.

Each reference is written from the kernel's mathematical definition (the paper's kernel names,
the semantics stated in the issue), not from its INCA-Q code: it takes the payload in bytes and
the inputs as flat row-major lists (what :func:`inca.interpreter.inputs.gather_inputs` returns)
and gives every output (and inout) as the interpreter reports it: a flat list for an array, a
number for a scalar.

Shapes follow the rule of INCA-Q.md (``paper.shape_2d``): a payload of P bytes is n = P/8
elements, an R x C matrix with R = C = sqrt(n) for a perfect square, else R = 2c, C = c.

Sums are written two ways where the order of evaluation matters: ``sequential=True`` adds the
terms in the order of the definition's index (which is also the natural loop order), otherwise
``math.fsum`` gives the correctly rounded sum; tests choose exact or tolerant comparison
accordingly (see ``tests/test_kernels.py``).
"""
from __future__ import annotations

import math
from collections.abc import Callable

from paper import elements, shape_2d

Inputs = dict[str, list]
Outputs = dict[str, list | int | float]


def _sum(terms: list[float], sequential: bool) -> float:
    if not sequential:
        return math.fsum(terms)
    total = 0.0
    for t in terms:
        total += t
    return total


def dot_product(payload: int, inp: Inputs, sequential: bool = True) -> Outputs:
    """c = sum_i A[i] B[i]."""
    a, b = inp["A"], inp["B"]
    return {"c": _sum([x * y for x, y in zip(a, b, strict=True)], sequential)}


def hadamard_product(payload: int, inp: Inputs, sequential: bool = True) -> Outputs:
    """H[i][j] = A[i][j] B[i][j]."""
    return {"H": [x * y for x, y in zip(inp["A"], inp["B"], strict=True)]}


def matrix_transpose(payload: int, inp: Inputs, sequential: bool = True) -> Outputs:
    """B = A^T for an R x C matrix A (B is C x R)."""
    rows, cols = shape_2d(elements(payload))
    a = inp["A"]
    return {"B": [a[i * cols + j] for j in range(cols) for i in range(rows)]}


def matrix_multiplication(payload: int, inp: Inputs, sequential: bool = True) -> Outputs:
    """M = A B with A R x C and B C x R (M is R x R): M[i][j] = sum_k A[i][k] B[k][j]."""
    rows, cols = shape_2d(elements(payload))
    a, b = inp["A"], inp["B"]
    return {"M": [_sum([a[i * cols + k] * b[k * rows + j] for k in range(cols)], sequential)
                  for i in range(rows) for j in range(rows)]}


def filter_(payload: int, inp: Inputs, sequential: bool = True, threshold: int = 0) -> Outputs:
    """The elements of A above the threshold, in order, at the front of B (the rest 0); n of them."""
    kept = [x for x in inp["A"] if x > threshold]
    return {"B": kept + [0.0] * (len(inp["A"]) - len(kept)), "n": len(kept)}


def matrix_unpack(payload: int, inp: Inputs, sequential: bool = True) -> Outputs:
    """MPI vector-datatype unpack: packet element k goes to block k // bl at offset k % bl of M,
    whose blocks start st elements apart; with the kernel's defaults (bl = C, st = C + 2, the
    whole R x C packet) the packet's rows land in the first C columns of an R x (C + 2) matrix,
    whose other elements keep their values."""
    rows, cols = shape_2d(elements(payload))
    nbytes = inp.get("nbytes", [payload])[0]
    bl, st = inp.get("bl", [cols])[0], inp.get("st", [cols + 2])[0]
    m = list(inp["M"])
    for k in range(nbytes // 8):
        m[(k // bl) * st + k % bl] = inp["P"][k]
    return {"M": m}


def convolution(payload: int, inp: Inputs, sequential: bool = True) -> Outputs:
    """Y = X * F, 2-D convolution with a 3 x 3 filter and zero padding (Y has X's shape):
    Y[i][j] = sum_{a,b in 0..2} F[a][b] X[i+1-a][j+1-b], X being 0 outside the image."""
    rows, cols = shape_2d(elements(payload))
    x, f = inp["X"], inp["F"]

    def pixel(y: int, z: int) -> float:
        return x[y * cols + z] if 0 <= y < rows and 0 <= z < cols else 0.0

    return {"Y": [_sum([f[a * 3 + b] * pixel(i + 1 - a, j + 1 - b) for a in range(3) for b in range(3)],
                       sequential)
                  for i in range(rows) for j in range(cols)]}


def interval(t: float, n: int) -> int:
    """floor(t) clamped to the first sample of a valid segment, 0 .. n-2."""
    return min(max(math.floor(t), 0), n - 2)


def linear_interpolation(payload: int, inp: Inputs, sequential: bool = True) -> Outputs:
    """Z[k] = Y[i] + (T[k] - i) (Y[i+1] - Y[i]), samples Y at x = 0..N-1, i = interval(T[k])."""
    y = inp["Y"]
    out = []
    for t in inp["T"]:
        i = interval(t, len(y))
        out.append(y[i] + (t - i) * (y[i + 1] - y[i]))
    return {"Z": out}


REFERENCES: dict[str, Callable[..., Outputs]] = {
    "dot-product": dot_product,
    "hadamard-product": hadamard_product,
    "matrix-transpose": matrix_transpose,
    "matrix-multiplication": matrix_multiplication,
    "filter": filter_,
    "matrix-unpack": matrix_unpack,
    "convolution": convolution,
    "linear-interpolation": linear_interpolation,
}

#: Kernels whose outputs are sums of several products: their order of evaluation matters for
#: arbitrary inputs (every other output is one rounding of a fixed expression, or a copy).
REDUCTIONS = frozenset({"dot-product", "matrix-multiplication", "convolution"})
