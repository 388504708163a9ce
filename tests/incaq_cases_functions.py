"""INCA-Q programs with their expected outputs: functions, modules, indexing and params.

Each case function returns a Case whose expected outputs are computed by the Python beside the
program (never by the compiler); test_incaq_programs.py runs every case.
"""
from __future__ import annotations

import math
from collections.abc import Callable

from incaq_programs_helpers import Case, registrar

CASES: dict[str, Callable[[], Case]] = {}
case = registrar(CASES)


# ---- functions and modules ---------------------------------------------------------------------------

@case
def scalars_by_value_arrays_by_reference():
    return Case("""
output k: i64
output X: i64[4]
func bump(v: i64) {
    v = v + 100
}
func fill(Y: i64[], n: i64, v: i64) {
    for i in 0 .. n do {
        Y[i] = v
        v = v * 2
    }
}
k = 5
bump(k)
fill(X, 3, k)
""", {"k": 5, "X": [5, 10, 20, 0]})


@case
def return_values_in_expressions_and_conditions():
    def cube(x):
        return x * x * x

    def is_even(x):
        return 1 if x % 2 == 0 else 0

    total = 0
    for i in range(6):
        if is_even(i) == 1 and cube(i) > 5:
            total += cube(i) - 2 * is_even(i + 1)
    return Case("""
output total: i64
func cube(x: i64) -> i64 { return x * x * x }
func is_even(x: i64) -> i64 {
    if x % 2 == 0 then { return 1 }
    return 0
}
for i in 0 .. 6 do {
    if is_even(i) == 1 and cube(i) > 5 then {
        total = total + cube(i) - 2 * is_even(i + 1)
    }
}
""", {"total": total})


@case
def nested_calls_and_mixed_types():
    def g(x):
        return x * 0.5

    def h(n):
        return n + 3

    def f(a, b):
        return a - b if a > b else b - a

    return Case("""
output y: f64
func g(x: f64) -> f64 { return x * 0.5 }
func h(n: i64) -> i64 { return n + 3 }
func f(a: f64, b: f64) -> f64 {
    if a > b then { return a - b }
    return b - a
}
y = f(g(h(4)), g(f(1.5, h(-10)))) + h(1)
""", {"y": f(g(h(4)), g(f(1.5, h(-10)))) + h(1)})


@case
def early_return_from_a_loop():
    a = [4.0, -1.0, 9.0, 2.0, 9.5, 0.0]

    def first_above(t):
        for i in range(6):
            if a[i] > t:
                return i
        return -1

    return Case("""
input A: f64[6]
output R: i64[4]
func first_above(X: f64[], n: i64, t: f64) -> i64 {
    for i in 0 .. n do {
        if X[i] > t then { return i }
    }
    return -1
}
R[0] = first_above(A, 6, 5.0)
R[1] = first_above(A, 6, 9.25)
R[2] = first_above(A, 6, 100)
R[3] = first_above(A, 6, -5)
""", {"R": [first_above(t) for t in (5.0, 9.25, 100, -5)]}, {"A": a})


@case
def local_array_in_a_function():
    v = [3, 8, 1, 9, 4]
    return Case("""
input V: i64[5]
output r: i64
func reversed_dot(X: i64[5]) -> i64 {
    var T: i64[5]
    for i in 0 .. 5 do { T[4 - i] = X[i] }
    s = 0
    for i in 0 .. 5 do { s = s + T[i] * X[i] }
    return s
}
r = reversed_dot(V) + reversed_dot(V)
""", {"r": 2 * sum(a * b for a, b in zip(reversed(v), v))}, {"V": v})


@case
def modules_with_use():
    a = [1.0, 2.5, -3.0, 4.0]
    b = [0.5, -1.0, 2.0, 8.0]
    dot = sum(x * y for x, y in zip(a, b))
    return Case("""
use vec
input A: f64[4]
input B: f64[4]
output d: f64
output n: f64
d = dot(A, B, 4)
n = norm1(A, 4)
""", {"d": dot, "n": sum(abs(x) for x in a)}, {"A": a, "B": b}, modules={
        "vec": "use scal\nfunc dot(X: f64[], Y: f64[], n: i64) -> f64 {\n    s = 0.0\n"
               "    for i in 0 .. n do { s = s + X[i] * Y[i] }\n    return s\n}\n"
               "func norm1(X: f64[], n: i64) -> f64 {\n    s = 0.0\n"
               "    for i in 0 .. n do { s = s + absf(X[i]) }\n    return s\n}\n",
        "scal": "func absf(x: f64) -> f64 {\n    if x < 0.0 then { return -x }\n    return x\n}\n"})


# ---- indexing --------------------------------------------------------------------------------------

@case
def histogram_indirect():
    v = [0, 3, 3, 1, 4, 3, 0, 2, 4, 4, 4, 1]
    h = [v.count(k) for k in range(5)]
    return Case("""
input V: i64[12]
output H: i64[5]
for i in 0 .. 12 do { H[V[i]] = H[V[i]] + 1 }
""", {"H": h}, {"V": v})


@case
def gather_and_scatter():
    a = [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    p = [5, 0, 4, 1, 3, 2]
    scattered = [0.0] * 6
    for i in range(6):
        scattered[p[i]] = a[i]
    return Case("""
input A: f64[6]
input P: i64[6]
output G: f64[6]
output S: f64[6]
for i in 0 .. 6 do {
    G[i] = A[P[i]]
    S[P[i]] = A[i]
}
""", {"G": [a[p[i]] for i in range(6)], "S": scattered}, {"A": a, "P": p})


@case
def stencil_1d():
    a = [1.0, 4.0, 9.0, 16.0, 25.0, 36.0, 49.0, 64.0]
    return Case("""
input A: f64[8]
output L: f64[8]
for i in 1 .. 7 do { L[i] = A[i-1] - 2.0 * A[i] + A[i+1] }
L[0] = A[0]
L[7] = A[2*3+1]
""", {"L": [a[0]] + [a[i - 1] - 2.0 * a[i] + a[i + 1] for i in range(1, 7)] + [a[7]]}, {"A": a})


@case
def stencil_2d_and_matvec():
    r, c = 3, 4
    m = [[(i * 7 + j * 3) % 5 - 2 for j in range(c)] for i in range(r)]
    x = [1, -2, 3, 4]
    d = [[m[i][j + 1] - m[i][j] for j in range(c - 1)] for i in range(r)]
    y = [sum(m[i][j] * x[j] for j in range(c)) for i in range(r)]
    return Case("""
input M: i64[3][4]
input X: i64[4]
output D: i64[3][3]
output Y: i64[3]
for i in 0 .. 3 do {
    for j in 0 .. 3 do { D[i][j] = M[i][j+1] - M[i][j] }
    for j in 0 .. 4 do { Y[i] = Y[i] + M[i][j] * X[j] }
}
""", {"D": [v for row in d for v in row], "Y": y}, {"M": [v for row in m for v in row], "X": x})


@case
def transpose_non_square():
    r, c = 2, 5
    a = [float(i * c + j) for i in range(r) for j in range(c)]
    return Case("""
param R = 2
param C = 5
input A: f64[R][C]
output B: f64[C][R]
for i in 0 .. R do {
    for j in 0 .. C do { B[j][i] = A[i][j] }
}
""", {"B": [a[i * c + j] for j in range(c) for i in range(r)]}, {"A": a})


# ---- params ------------------------------------------------------------------------------------------

PARAMS = """
param PAYLOAD = 128
param n = PAYLOAD / 8
param R = if isqrt(n) * isqrt(n) == n then isqrt(n) else 2 * isqrt(n / 2)
param C = n / R
param LIM = max(min(n, 40), 3)
output r: i64
output c: i64
output lim: i64
r = R
c = C
lim = LIM
"""


def param_values(payload: int) -> dict:
    """The outputs of PARAMS for a payload of ``payload`` bytes, by INCA-Q.md's shape rule."""
    n = payload // 8
    s = math.isqrt(n)
    rows = s if s * s == n else 2 * math.isqrt(n // 2)
    return {"r": rows, "c": n // rows, "lim": max(min(n, 40), 3)}


@case
def params_default():
    return Case(PARAMS, param_values(128))


@case
def params_with_define():
    return Case(PARAMS, param_values(8192), defines={"PAYLOAD": 8192})


@case
def params_non_square():
    return Case(PARAMS, param_values(256), defines={"PAYLOAD": 256})

