"""INCA-Q programs with their expected outputs: i64 and f64 arithmetic.

Each case function returns a Case whose expected outputs are computed by the Python beside the
program (never by the compiler); test_incaq_programs.py runs every case.
"""
from __future__ import annotations

import math
from collections.abc import Callable

from incaq_programs_helpers import I64_MAX, I64_MIN, Case, cdiv, cmod, registrar, wrap

CASES: dict[str, Callable[[], Case]] = {}
case = registrar(CASES)


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

