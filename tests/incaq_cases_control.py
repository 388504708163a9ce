"""INCA-Q programs with their expected outputs: loops and conditions.

Each case function returns a Case whose expected outputs are computed by the Python beside the
program (never by the compiler); test_incaq_programs.py runs every case.
"""
from __future__ import annotations

import math
from collections.abc import Callable

from incaq_programs_helpers import Case, registrar

CASES: dict[str, Callable[[], Case]] = {}
case = registrar(CASES)


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

