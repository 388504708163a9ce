"""INCA-Q programs run on the NIC model against the same computation written in Python here.

Each case is an INCA-Q program, its inputs and its expected outputs, computed by the Python beside
it (never by the compiler). Every case runs under the scratchpad and base profiles, with and
without --clobber (which must never change an output), twice (counts must be deterministic).
A few more cases go through ``inca run`` to use --input, --seed, -D, --payload and -I.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from inca.compiler.frontend import Options, load_program, load_tuples
from inca.compiler.printer import print_program
from inca.interpreter import cli
from inca.interpreter.inputs import seeded_values
from inca.interpreter.loader import execute
from inca.interpreter.profiles import load_profile

I64_MIN, I64_MAX = -(2**63), 2**63 - 1


def wrap(v: int) -> int:
    """Two's-complement wrap into i64, as INCA-A's ALU does."""
    return (v + 2**63) % 2**64 - 2**63


def cdiv(a: int, b: int) -> int:
    """C division: truncate toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def cmod(a: int, b: int) -> int:
    """C remainder: the sign of the dividend."""
    return a - cdiv(a, b) * b


@dataclass
class Case:
    text: str
    expected: dict
    inputs: dict = field(default_factory=dict)
    defines: dict = field(default_factory=dict)
    modules: dict = field(default_factory=dict)  # name -> text, written to an -I folder


CASES = {}


def case(f):
    CASES[f.__name__] = f
    return f


# ---- loops and conditions --------------------------------------------------------------------------

@case
def search_loop_with_and():
    a = [0.5, 1.5, -2.0, 3.25, 7.0, 2.0, 9.5, 1.0]
    t = 3.0
    i = 0
    while i < len(a) and a[i] <= t:
        i += 1
    return Case("""
input A: f64[8]
input t: f64
output found: i64
i = 0
while i < 8 and A[i] <= t do {
    i = i + 1
}
found = i
""", {"found": i}, {"A": a, "t": [t]})


@case
def short_circuit_protects_the_bound():
    # A has no zero: without short-circuit, A[8] would be read and fault
    a = [3, 1, 4, 1, 5, 9, 2, 6]
    return Case("""
input A: i64[8]
output n: i64
while n < 8 and A[n] != 0 do { n = n + 1 }
""", {"n": 8}, {"A": a})


@case
def while_with_or_and_not():
    x, steps = 3, 0
    while not (x > 1000 or steps >= 6):
        x, steps = x * 3 - 1, steps + 1
    return Case("""
output x: i64
output steps: i64
x = 3
while not (x > 1000 or steps >= 6) do {
    x = x * 3 - 1
    steps = steps + 1
}
""", {"x": x, "steps": steps})


@case
def else_if_chain_buckets():
    v = [-7, 0, 3, 12, 150, -1, 99, 100, 5, 0]
    counts = [0] * 5
    for x in v:
        if x < 0:
            counts[0] += 1
        elif x == 0:
            counts[1] += 1
        elif x < 10:
            counts[2] += 1
        elif x < 100:
            counts[3] += 1
        else:
            counts[4] += 1
    return Case("""
input V: i64[10]
output C: i64[5]
for i in 0 .. 10 do {
    if V[i] < 0 then {
        C[0] = C[0] + 1
    } else if V[i] == 0 then {
        C[1] = C[1] + 1
    } else if V[i] < 10 then {
        C[2] = C[2] + 1
    } else if V[i] < 100 then { C[3] = C[3] + 1 }
    else {
        C[4] = C[4] + 1
    }
}
""", {"C": counts}, {"V": v})


@case
def nested_ifs_sign_product():
    pairs = [(3, -4), (-2, -5), (0, 7), (6, 6), (-1, 0), (-8, 2)]
    out = []
    for a, b in pairs:
        if a > 0:
            out.append(1 if b > 0 else (-1 if b < 0 else 0))
        elif a < 0:
            out.append(-1 if b > 0 else (1 if b < 0 else 0))
        else:
            out.append(0)
    return Case("""
input P: i64[6][2]
output S: i64[6]
for i in 0 .. 6 do {
    a = P[i][0]
    b = P[i][1]
    if a > 0 then {
        if b > 0 then { S[i] = 1 } else { if b < 0 then { S[i] = -1 } else { S[i] = 0 } }
    } else {
        if a < 0 then {
            if b > 0 then { S[i] = -1 } else if b < 0 then { S[i] = 1 } else { S[i] = 0 }
        } else { S[i] = 0 }
    }
}
""", {"S": out}, {"P": [x for p in pairs for x in p]})


@case
def collatz_steps():
    out = []
    for n in (1, 6, 7, 27, 97):
        steps = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            steps += 1
        out.append(steps)
    return Case("""
input N: i64[5]
output S: i64[5]
for k in 0 .. 5 do {
    n = N[k]
    s = 0
    while n != 1 do {
        if n % 2 == 0 then { n = n / 2 } else { n = 3 * n + 1 }
        s = s + 1
    }
    S[k] = s
}
""", {"S": out}, {"N": [1, 6, 7, 27, 97]})


@case
def gcd_by_remainders():
    pairs = [(1071, 462), (17, 5), (100, 75), (13, 13), (0, 9)]
    out = [math.gcd(a, b) for a, b in pairs]
    return Case("""
input P: i64[5][2]
output G: i64[5]
for k in 0 .. 5 do {
    a = P[k][0]
    b = P[k][1]
    while b != 0 do {
        t = a % b
        a = b
        b = t
    }
    G[k] = a
}
""", {"G": out}, {"P": [x for p in pairs for x in p]})


@case
def binary_search():
    a = [-9, -4, 0, 2, 3, 8, 15, 21, 30, 44, 57, 60]
    keys = [15, -9, 60, 1, 100]
    out = [a.index(k) if k in a else -1 for k in keys]
    return Case("""
input A: i64[12]
input K: i64[5]
output R: i64[5]
for q in 0 .. 5 do {
    lo = 0
    hi = 11
    R[q] = -1
    while lo <= hi and R[q] == -1 do {
        mid = (lo + hi) / 2
        if A[mid] == K[q] then { R[q] = mid }
        else if A[mid] < K[q] then { lo = mid + 1 }
        else { hi = mid - 1 }
    }
}
""", {"R": out}, {"A": a, "K": keys})


# ---- arithmetic ------------------------------------------------------------------------------------

@case
def horner_i64():
    c = [3, -2, 0, 5, 1]  # 3x^4 - 2x^3 + 5x + 1
    xs = [-3, 0, 2, 10]
    return Case("""
input C: i64[5]
input X: i64[4]
output Y: i64[4]
for j in 0 .. 4 do {
    y = 0
    for k in 0 .. 5 do { y = y * X[j] + C[k] }
    Y[j] = y
}
""", {"Y": [sum(ck * x ** (4 - k) for k, ck in enumerate(c)) for x in xs]}, {"C": c, "X": xs})


@case
def mean_and_variance_f64():
    a = [2.5, -1.0, 4.0, 0.25, 3.0, -2.5, 8.0, 1.5]
    s = 0.0
    for x in a:
        s = s + x
    mean = s / 8
    v = 0.0
    for x in a:
        v = v + (x - mean) * (x - mean)
    return Case("""
input A: f64[8]
output mean: f64
output variance: f64
s = 0.0
for i in 0 .. 8 do { s = s + A[i] }
mean = s / 8
for i in 0 .. 8 do { variance = variance + (A[i] - mean) * (A[i] - mean) }
variance = variance / 8.0
""", {"mean": mean, "variance": v / 8.0}, {"A": a})


@case
def i64_wraps_past_2_to_the_63():
    f = 1
    for k in range(1, 26):
        f = wrap(f * k)
    return Case("""
output sq: i64
output fact: i64
output top: i64
output bottom: i64
x = 3037000500
sq = x * x
fact = 1
for k in 1 .. 26 do { fact = fact * k }
top = 9223372036854775807
top = top + 1
bottom = -9223372036854775807 - 2
""", {"sq": wrap(3037000500 * 3037000500), "fact": f, "top": I64_MIN, "bottom": I64_MAX})


@case
def c_division_of_negatives():
    pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (1, 5), (-1, 5), (-9, 3), (I64_MIN, -1)]
    return Case("""
input P: i64[8][2]
output Q: i64[8]
output R: i64[8]
for i in 0 .. 8 do {
    Q[i] = P[i][0] / P[i][1]
    R[i] = P[i][0] % P[i][1]
}
""", {"Q": [wrap(cdiv(a, b)) for a, b in pairs], "R": [cmod(a, b) for a, b in pairs]},
        {"P": [x for p in pairs for x in p]})


@case
def conversions_truncate_toward_zero():
    vals = [2.7, -2.7, 0.5, -0.5, 1e15 + 0.75, -3.0]
    return Case("""
input A: f64[6]
output T: i64[6]
output h: f64
output g: f64
output m: f64
for i in 0 .. 6 do { T[i] = i64(A[i]) }
h = f64(7) / 2
g = f64(7 / 2)
k = 7
m = k / 2 + 0.25
""", {"T": [math.trunc(v) for v in vals], "h": 3.5, "g": 3.0, "m": 3.25}, {"A": vals})


@case
def min_max_abs():
    v = [5, -12, 7, 0, -3, 22, -22, 1]
    lo, hi, s = v[0], v[0], 0
    for x in v:
        lo, hi, s = min(lo, x), max(hi, x), s + abs(x)
    a = [-1.5, 2.25, -0.0, 3.0]
    return Case("""
input V: i64[8]
input A: f64[4]
output lo: i64
output hi: i64
output s: i64
output fa: f64
lo = V[0]
hi = V[0]
for i in 0 .. 8 do {
    lo = min(lo, V[i])
    hi = max(V[i], hi)
    s = s + abs(V[i])
}
for i in 0 .. 4 do { fa = fa + abs(A[i]) * max(1, i) }
""", {"lo": lo, "hi": hi, "s": s, "fa": sum(abs(x) * max(1, i) for i, x in enumerate(a))},
        {"V": v, "A": a})


@case
def bitwise_and_shifts():
    v = [0b1011, 255, -1 & 0xFFFF, 1 << 40, 12345]
    pop = []
    for x in v:
        c = 0
        while x != 0:
            c += x & 1
            x >>= 1
        pop.append(c)
    chk = 0
    for x in v:
        chk = chk ^ ((x << 3) | (x >> 2))
    return Case("""
input V: i64[5]
output P: i64[5]
output chk: i64
output neg: i64
for i in 0 .. 5 do {
    x = V[i]
    c = 0
    while x != 0 do {
        c = c + (x & 1)
        x = x >> 1
    }
    P[i] = c
    chk = chk ^ ((V[i] << 3) | (V[i] >> 2))
}
neg = -20 >> 2
""", {"P": pop, "chk": chk, "neg": -5}, {"V": v})


@case
def fibonacci_mod_and_prefix_sums():
    fib = [0, 1]
    while len(fib) < 10:
        fib.append((fib[-1] + fib[-2]) % 7)
    x = [3, 1, 4, 1, 5, 9, 2, 6]
    pre = [sum(x[:k + 1]) for k in range(8)]
    return Case("""
output F: i64[10]
inout X: i64[8]
F[1] = 1
for i in 2 .. 10 do { F[i] = (F[i-1] + F[i-2]) % 7 }
for i in 1 .. 8 do { X[i] = X[i] + X[i-1] }
""", {"F": fib, "X": pre}, {"X": x})


@case
def newton_sqrt_f64_and_isqrt_i64():
    x = 2.0
    for _ in range(6):
        x = 0.5 * (x + 10.0 / x)
    n, r = 1000003, 1000003
    while r * r > n:
        r = (r + n // r) // 2
    return Case("""
output s: f64
output r: i64
s = 2.0
for k in 0 .. 6 do { s = 0.5 * (s + 10.0 / s) }
n = 1000003
r = n
while r * r > n do { r = (r + n / r) / 2 }
""", {"s": x, "r": r})


@case
def kadane_and_inversions():
    v = [2, -5, 3, -1, 4, -7, 6, 1, -2]
    best = cur = v[0]
    for x in v[1:]:
        cur = max(x, cur + x)
        best = max(best, cur)
    inv = sum(1 for i in range(9) for j in range(i + 1, 9) if v[i] > v[j])
    return Case("""
input V: i64[9]
output best: i64
output inv: i64
best = V[0]
cur = V[0]
for i in 1 .. 9 do {
    cur = max(V[i], cur + V[i])
    best = max(best, cur)
}
for i in 0 .. 9 do {
    for j in i + 1 .. 9 do {
        if V[i] > V[j] then { inv = inv + 1 }
    }
}
""", {"best": best, "inv": inv}, {"V": v})


@case
def sieve_of_primes():
    n = 40
    comp = [0] * n
    for p in range(2, n):
        if comp[p] == 0:
            for m in range(p * p, n, p):
                comp[m] = 1
    primes = [p for p in range(2, n) if not comp[p]]
    return Case("""
var C: i64[40]
output count: i64
output last: i64
for p in 2 .. 40 do {
    if C[p] == 0 then {
        count = count + 1
        last = p
        m = p * p
        while m < 40 do {
            C[m] = 1
            m = m + p
        }
    }
}
""", {"count": len(primes), "last": primes[-1]})


@case
def bubble_sort_inout():
    v = [5.5, -1.0, 3.25, 3.25, 0.0, -7.5, 2.0]
    return Case("""
inout X: f64[7]
for i in 0 .. 6 do {
    for j in 0 .. 6 - i do {
        if X[j] > X[j+1] then {
            t = X[j]
            X[j] = X[j+1]
            X[j+1] = t
        }
    }
}
""", {"X": sorted(v)}, {"X": v})


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


# ---- running ------------------------------------------------------------------------------------------

def write(tmp_path: Path, c: Case) -> tuple[Path, Path]:
    mods = tmp_path / "mods"
    mods.mkdir()
    for name, text in c.modules.items():
        (mods / f"{name}.incaq").write_text(text, encoding="utf-8")
    src = tmp_path / "k.incaq"
    src.write_text(c.text, encoding="utf-8")
    return src, mods


def test_there_are_enough_programs():
    assert len(CASES) >= 30


@pytest.mark.parametrize("name", CASES)
def test_program(name, tmp_path):
    c = CASES[name]()
    src, mods = write(tmp_path, c)
    counts = {}
    for clobber in (False, True):
        opts = Options(c.defines, 0, (str(mods),), clobber)
        tp = load_tuples(str(src), opts)
        for profile in ("scratchpad", "base"):
            for _ in range(2):
                r = execute(tp, load_profile(profile), {k: list(v) for k, v in c.inputs.items()})
                assert r.outputs == c.expected, (clobber, profile)
                counts.setdefault((clobber, profile), set()).add(r.instructions)
        assert print_program(load_program(str(src), opts)) == print_program(load_program(str(src), opts))
    assert all(len(v) == 1 for v in counts.values()), counts
    assert counts[(True, "scratchpad")] <= counts[(False, "scratchpad")]


# ---- through inca run ---------------------------------------------------------------------------------

def inca_run(capsys, *argv) -> dict:
    code = cli.main(["run", *map(str, argv), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def test_payload_option_and_define(tmp_path, capsys):
    src = tmp_path / "p.incaq"
    src.write_text(PARAMS, encoding="utf-8")
    assert inca_run(capsys, src)["outputs"] == param_values(128)
    assert inca_run(capsys, src, "--payload", 2048)["outputs"] == param_values(2048)
    assert inca_run(capsys, src, "-D", "PAYLOAD=512")["outputs"] == param_values(512)
    assert inca_run(capsys, src, "-D", "LIM=7")["outputs"]["lim"] == 7


def test_inputs_on_the_command_line(tmp_path, capsys):
    c = CASES["c_division_of_negatives"]()
    src, _ = write(tmp_path, c)
    values = ",".join(map(str, c.inputs["P"]))
    doc = inca_run(capsys, src, "--input", f"P={values}")
    assert doc["outputs"] == c.expected


def test_seeded_inputs(tmp_path, capsys):
    src = tmp_path / "s.incaq"
    src.write_text("input A: f64[16]\ninput V: i64[16]\noutput s: f64\noutput m: i64\n"
                   "for i in 0 .. 16 do {\n    s = s + A[i] * V[i]\n    m = max(m, V[i] % 7)\n}\n",
                   encoding="utf-8")
    tp = load_tuples(str(src))
    decls = {b.name: b for b in tp.buffers}
    a, v = seeded_values(decls["A"], 3), seeded_values(decls["V"], 3)
    s, m = 0.0, 0
    for x, y in zip(a, v):
        s, m = s + x * y, max(m, cmod(y, 7))
    doc = inca_run(capsys, src, "--seed", 3)
    assert doc["outputs"] == {"s": s, "m": m}
    again = inca_run(capsys, src, "--seed", 3)
    assert (again["outputs"], again["instructions"]) == (doc["outputs"], doc["instructions"])


def test_modules_from_include_folders(tmp_path, capsys):
    c = CASES["modules_with_use"]()
    src, mods = write(tmp_path, c)
    inputs = [f"{k}={','.join(map(str, v))}" for k, v in c.inputs.items()]
    doc = inca_run(capsys, src, "-I", mods, "--input", inputs[0], "--input", inputs[1])
    assert doc["outputs"] == c.expected
    code = cli.main(["run", str(src)])
    assert code == 1 and "module 'vec' not found" in capsys.readouterr().err
