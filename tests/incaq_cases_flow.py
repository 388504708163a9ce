"""INCA-Q programs in the style of classic small benchmarks, using the constructs of issue 11:
break and continue, do-while and loop, truth values, if values, inout scalars, tail recursion.

Each case function returns a Case whose expected outputs are computed by the Python beside the
program (never by the compiler); test_incaq_programs.py runs every case.
"""
from __future__ import annotations

import math
from collections.abc import Callable

from incaq_programs_helpers import Case, cmod, registrar, wrap

CASES: dict[str, Callable[[], Case]] = {}
case = registrar(CASES)


@case
def primes_with_break():
    n = 60
    primes = [p for p in range(2, n) if all(p % d for d in range(2, int(p ** 0.5) + 1))]
    return Case("""
output count: i64
output last: i64
for p in 2 .. 60 do {
    prime = 1
    d = 2
    while d * d <= p do {
        if p % d == 0 then { prime = 0; break }
        d = d + 1
    }
    if prime == 1 then { count = count + 1; last = p }
}
""", {"count": len(primes), "last": primes[-1]})


@case
def gcd_by_tail_recursion():
    pairs = [(1071, 462), (17, 5), (0, 9), (48, 180), (2**40, 6)]
    return Case("""
input A: i64[5]
input B: i64[5]
output G: i64[5]
func gcd(a: i64, b: i64) -> i64 {
    if b == 0 then { return a }
    return gcd(b, a % b)
}
for i in 0 .. 5 do { G[i] = gcd(A[i], B[i]) }
""", {"G": [math.gcd(a, b) for a, b in pairs]},
        {"A": [a for a, _ in pairs], "B": [b for _, b in pairs]})


@case
def binary_search_with_break():
    a = [1, 3, 4, 7, 9, 11, 15, 20, 22, 30]
    keys = [7, 1, 30, 8, 0, 31]
    return Case("""
input A: i64[10]
input K: i64[6]
output P: i64[6]
for k in 0 .. 6 do {
    lo = 0
    hi = 9
    P[k] = -1
    while lo <= hi do {
        mid = (lo + hi) / 2
        if A[mid] == K[k] then { P[k] = mid; break }
        if A[mid] < K[k] then { lo = mid + 1 } else { hi = mid - 1 }
    }
}
""", {"P": [a.index(x) if x in a else -1 for x in keys]}, {"A": a, "K": keys})


@case
def digit_sum_do_while():
    xs = [0, 7, 1234, 99999, 1000000007]
    return Case("""
input X: i64[5]
output S: i64[5]
output D: i64[5]
for i in 0 .. 5 do {
    v = X[i]
    do {
        S[i] = S[i] + v % 10
        D[i] = D[i] + 1
        v = v / 10
    } while v > 0
}
""", {"S": [sum(map(int, str(x))) for x in xs], "D": [len(str(x)) for x in xs]}, {"X": xs})


@case
def reverse_digits_do_while_on_two_lines():
    x = 123456789
    return Case("""
output r: i64
v = 123456789
do {
    r = r * 10 + v % 10
    v = v / 10
}
while v != 0
""", {"r": int(str(x)[::-1])})


@case
def collatz_loop_break():
    def steps(n):
        k = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            k += 1
        return k
    return Case("""
output steps: i64
n = 27
loop {
    if n == 1 then { break }
    n = if n % 2 == 0 then n / 2 else 3 * n + 1
    steps = steps + 1
}
""", {"steps": steps(27)})


@case
def sum_skipping_multiples_with_continue():
    total = sum(i for i in range(100) if i % 3 and i % 5)
    return Case("""
output total: i64
for i in 0 .. 100 do {
    if i % 3 == 0 or i % 5 == 0 then { continue }
    total = total + i
}
""", {"total": total})


@case
def continue_in_while_and_do():
    # continue in a while goes to the test; in a do-while to the test at the bottom
    w = sum(i for i in range(1, 21) if i % 2)
    return Case("""
output w: i64
output d: i64
i = 0
while i < 20 do {
    i = i + 1
    if i % 2 == 0 then { continue }
    w = w + i
}
j = 0
do {
    j = j + 1
    if j % 2 == 0 then { continue }
    d = d + j
} while j < 20
""", {"w": w, "d": w})


@case
def boolean_flags_sorted_and_unique():
    a = [1, 2, 2, 5, 8, 13, 13, 40]
    return Case("""
input A: i64[8]
output sorted: i64
output unique: i64
output both: i64
output either: i64
output neither: i64
sorted = 1
unique = 1
for i in 1 .. 8 do {
    sorted = sorted and A[i - 1] <= A[i]
    unique = unique and not (A[i - 1] == A[i])
}
both = sorted and unique
either = sorted or unique
neither = not either
""", {"sorted": 1, "unique": 0, "both": 0, "either": 1, "neither": 0}, {"A": a})


@case
def comparison_values_count_inversions():
    a = [5, 3, 8, 1, 9, 2, 7, 4]
    inv = sum(1 for i in range(8) for j in range(i + 1, 8) if a[i] > a[j])
    return Case("""
input A: i64[8]
output inv: i64
for i in 0 .. 8 do {
    for j in i + 1 .. 8 do { inv = inv + (A[i] > A[j]) }
}
""", {"inv": inv}, {"A": a})


@case
def short_circuit_value_protects_division():
    xs, ys = [6, 0, 9, -4], [3, 5, 0, 2]
    ok = [1 if y != 0 and x % y == 0 else 0 for x, y in zip(xs, ys)]
    anyz = [1 if y == 0 or x / y > 2 else 0 for x, y in zip(xs, ys)]
    return Case("""
input X: i64[4]
input Y: i64[4]
output OK: i64[4]
output Z: i64[4]
for i in 0 .. 4 do {
    OK[i] = Y[i] != 0 and X[i] % Y[i] == 0
    Z[i] = Y[i] == 0 or X[i] / Y[i] > 2
}
""", {"OK": ok, "Z": anyz}, {"X": xs, "Y": ys})


@case
def max_min_with_if_values():
    a = [3.5, -1.0, 8.25, 2.0, 8.0, -7.5]
    return Case("""
input A: f64[6]
output hi: f64
output lo: f64
output arg: i64
hi = A[0]
lo = A[0]
for i in 1 .. 6 do {
    arg = if A[i] > hi then i else arg
    hi = if A[i] > hi then A[i] else hi
    lo = if A[i] < lo then A[i] else lo
}
""", {"hi": max(a), "lo": min(a), "arg": a.index(max(a))}, {"A": a})


@case
def sign_and_clamp_with_nested_if_values():
    xs = [-50, -3, 0, 4, 99]
    sign = [(x > 0) - (x < 0) for x in xs]
    clamp = [max(-10, min(10, x)) for x in xs]
    return Case("""
input X: i64[5]
output S: i64[5]
output C: i64[5]
for i in 0 .. 5 do {
    S[i] = if X[i] > 0 then 1 else if X[i] < 0 then -1 else 0
    C[i] = if X[i] > 10 then 10 else (if X[i] < -10 then -10 else X[i])
}
""", {"S": sign, "C": clamp}, {"X": xs})


@case
def push_through_inout_counter():
    a = [4, -2, 7, 0, -9, 3, 5, -1]
    pos = [x for x in a if x > 0]
    return Case("""
input A: i64[8]
output P: i64[8]
output n: i64
func push(out: i64[], inout n: i64, v: i64) {
    out[n] = v
    n = n + 1
}
for i in 0 .. 8 do {
    if A[i] > 0 then { push(P, n, A[i]) }
}
""", {"P": pos + [0] * (8 - len(pos)), "n": len(pos)}, {"A": a})


@case
def divmod_returns_two_results_through_inout():
    pairs = [(17, 5), (-17, 5), (100, 7)]
    return Case("""
input A: i64[3]
input B: i64[3]
output Q: i64[3]
output R: i64[3]
func divmod(a: i64, b: i64, inout q: i64, inout r: i64) {
    q = a / b
    r = a - q * b
}
for i in 0 .. 3 do {
    q = 0
    r = 0
    divmod(A[i], B[i], q, r)
    Q[i] = q
    R[i] = r
}
""", {"Q": [int(a / b) for a, b in pairs], "R": [cmod(a, b) for a, b in pairs]},
        {"A": [a for a, _ in pairs], "B": [b for _, b in pairs]})


@case
def swap_through_inout_in_bubble_sort():
    a = [9, 4, 7, 1, 8, 2, 6, 3]
    return Case("""
input A: i64[8]
output S: i64[8]
output swaps: i64
func swap(inout x: i64, inout y: i64, inout count: i64) {
    t = x
    x = y
    y = t
    count = count + 1
}
for i in 0 .. 8 do { S[i] = A[i] }
do {
    changed = 0
    for i in 1 .. 8 do {
        a = S[i - 1]
        b = S[i]
        if a > b then {
            swap(a, b, swaps)
            S[i - 1] = a
            S[i] = b
            changed = 1
        }
    }
} while changed == 1
""", {"S": sorted(a), "swaps": sum(1 for i in range(8) for j in range(i + 1, 8) if a[i] > a[j])},
        {"A": a})


@case
def power_by_tail_recursion_with_accumulator():
    return Case("""
output p: i64
output f: f64
func ipow(b: i64, e: i64, acc: i64) -> i64 {
    if e == 0 then { return acc }
    if e % 2 == 1 then { return ipow(b * b, e / 2, acc * b) }
    return ipow(b * b, e / 2, acc)
}
func fpow(b: f64, e: i64) -> f64 {
    if e == 0 then { return 1.0 }
    return b * fpow2(b, e - 1)
}
func fpow2(b: f64, e: i64) -> f64 {
    r = 1.0
    for k in 0 .. e do { r = r * b }
    return r
}
p = ipow(3, 13, 1)
f = fpow(1.5, 4)
""", {"p": 3 ** 13, "f": 1.5 ** 4})


@case
def void_tail_recursion_fills_an_array():
    return Case("""
output A: i64[8]
func fill(X: i64[], i: i64, v: i64) {
    if i >= 8 then { return }
    X[i] = v
    fill(X, i + 1, v * 2)
}
fill(A, 0, 1)
""", {"A": [2 ** i for i in range(8)]})


@case
def tail_recursion_swapping_three_arguments():
    def fib(n, a, b):
        while n:
            n, a, b = n - 1, b, a + b
        return a
    return Case("""
output F: i64[10]
func fib(n: i64, a: i64, b: i64) -> i64 {
    if n == 0 then { return a }
    return fib(n - 1, b, a + b)
}
for i in 0 .. 10 do { F[i] = fib(i, 0, 1) }
""", {"F": [fib(i, 0, 1) for i in range(10)]})


@case
def nested_loops_break_inner_only():
    # the first j with i * j > 20, per i (break leaves only the inner loop)
    first = []
    for i in range(1, 7):
        j = 0
        while True:
            if i * j > 20:
                break
            j += 1
        first.append(j)
    return Case("""
output J: i64[6]
for i in 1 .. 7 do {
    j = 0
    loop {
        if i * j > 20 then { break }
        j = j + 1
    }
    J[i - 1] = j
}
""", {"J": first})


@case
def loop_left_by_return_in_function():
    def isqrt(n):
        r = 0
        while (r + 1) * (r + 1) <= n:
            r += 1
        return r
    xs = [0, 1, 15, 16, 17, 1000]
    return Case("""
input X: i64[6]
output R: i64[6]
func isqrt_(n: i64) -> i64 {
    r = 0
    loop {
        if (r + 1) * (r + 1) > n then { return r }
        r = r + 1
    }
    return r
}
for i in 0 .. 6 do { R[i] = isqrt_(X[i]) }
""", {"R": [isqrt(x) for x in xs]}, {"X": xs})


@case
def sieve_with_continue_and_flags():
    n = 50
    comp = [0] * n
    for i in range(2, n):
        if comp[i]:
            continue
        for j in range(i * i, n, i):
            comp[j] = 1
    count = sum(1 for i in range(2, n) if not comp[i])
    return Case("""
var C: i64[50]
output count: i64
for i in 2 .. 50 do {
    if C[i] == 1 then { continue }
    count = count + 1
    j = i * i
    while j < 50 do { C[j] = 1; j = j + i }
}
""", {"count": count})


@case
def wrapping_hash_with_do_while():
    data = [0x41, 0x62, 0x7a, 0x30, 0x39]
    h = 5381
    for c in data:
        h = wrap(h * 33 + c)
    return Case("""
input D: i64[5]
output h: i64
h = 5381
i = 0
do {
    h = h * 33 + D[i]
    i = i + 1
} while i < 5
""", {"h": h}, {"D": data})


@case
def call_in_short_circuit_and_if_value_runs_only_when_chosen():
    # bump() counts its calls: the right of `and` and the unchosen arm must not run
    return Case("""
output calls: i64
output a: i64
output b: i64
output c: i64
func bump(inout n: i64, v: i64) -> i64 {
    n = n + 1
    return v
}
x = 0
a = x > 0 and bump(calls, 1) > 0
b = x == 0 or bump(calls, 1) > 0
c = if x == 0 then bump(calls, 7) + 1 else bump(calls, 9)
""", {"calls": 1, "a": 0, "b": 1, "c": 8})
