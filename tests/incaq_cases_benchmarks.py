"""INCA-Q programs in the style of classic small benchmarks, using the constructs of issue 11:
break and continue, do ... while, loop, boolean values, if values, inout scalars, self tail calls.

Each case function returns a Case whose expected outputs are computed by the Python beside the
program (never by the compiler); test_incaq_programs.py runs every case, with and without
--clobber, on two profiles.
"""
from __future__ import annotations

import math
from collections.abc import Callable

from incaq_programs_helpers import Case, registrar

CASES: dict[str, Callable[[], Case]] = {}
case = registrar(CASES)


@case
def primes_by_trial_division_with_break():
    count, last = 0, 0
    for n in range(2, 60):
        prime = all(n % d for d in range(2, math.isqrt(n) + 1))
        if prime:
            count, last = count + 1, n
    return Case("""
output count: i64
output last: i64
for n in 2 .. 60 do {
    prime = 1
    d = 2
    while d * d <= n do {
        if n % d == 0 then {
            prime = 0
            break
        }
        d = d + 1
    }
    if prime == 0 then { continue }
    count = count + 1
    last = n
}
""", {"count": count, "last": last})


@case
def sieve_with_continue():
    n = 50
    comp = [False] * n
    for i in range(2, n):
        if comp[i]:
            continue
        for j in range(i * i, n, i):
            comp[j] = True
    primes = sum(1 for i in range(2, n) if not comp[i])
    return Case("""
output primes: i64
var C: i64[50]
for i in 2 .. 50 do {
    if C[i] == 1 then { continue }
    j = i * i
    while j < 50 do {
        C[j] = 1
        j = j + i
    }
}
for i in 2 .. 50 do {
    primes = primes + (C[i] == 0)
}
""", {"primes": primes})



@case
def factorial_and_power_with_accumulators():
    return Case("""
output f: i64
output p: i64
func fact(n: i64, acc: i64) -> i64 {
    if n <= 1 then { return acc }
    return fact(n - 1, acc * n)
}
func power(b: i64, e: i64, acc: i64) -> i64 {
    if e == 0 then { return acc }
    if e % 2 == 1 then { return power(b * b, e / 2, acc * b) }
    return power(b * b, e / 2, acc)
}
f = fact(15, 1)
p = power(3, 13, 1)
""", {"f": math.factorial(15), "p": 3 ** 13})




@case
def digit_sums_and_counts_do_while():
    ns = [0, 7, 1234, 99999, 1000000007]
    return Case("""
input N: i64[5]
output S: i64[5]
output D: i64[5]
for i in 0 .. 5 do {
    n = N[i]
    s = 0
    d = 0
    do {
        s = s + n % 10
        n = n / 10
        d = d + 1
    } while n > 0
    S[i] = s
    D[i] = d
}
""", {"S": [sum(map(int, str(n))) for n in ns], "D": [len(str(n)) for n in ns]}, {"N": ns})


@case
def collatz_steps_with_loop_and_break():
    def steps(n):
        k = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            k += 1
        return k
    ns = [1, 6, 7, 27, 97]
    return Case("""
input N: i64[5]
output K: i64[5]
for i in 0 .. 5 do {
    n = N[i]
    k = 0
    loop {
        if n == 1 then { break }
        n = if n % 2 == 0 then n / 2 else 3 * n + 1
        k = k + 1
    }
    K[i] = k
}
""", {"K": [steps(n) for n in ns]}, {"N": ns})


@case
def sortedness_flag_as_a_boolean_value():
    a = [1, 2, 2, 5, 4, 8]
    ok = int(all(a[i] <= a[i + 1] for i in range(5)))
    ok3 = int(all(a[i] <= a[i + 1] for i in range(3)))
    return Case("""
input A: i64[6]
output ok: i64
output ok3: i64
ok = 1
ok3 = 1
for i in 0 .. 5 do {
    ok = ok and A[i] <= A[i + 1]
    if i < 3 then { ok3 = ok3 and not (A[i] > A[i + 1]) }
}
""", {"ok": ok, "ok3": ok3}, {"A": a})


@case
def leap_years_with_boolean_values():
    years = list(range(1890, 2030, 7))
    leaps = sum(1 for y in years if (y % 4 == 0 and y % 100 != 0) or y % 400 == 0)
    return Case("""
output leaps: i64
for k in 0 .. 20 do {
    y = 1890 + 7 * k
    leap = (y % 4 == 0 and y % 100 != 0) or y % 400 == 0
    leaps = leaps + leap
}
""", {"leaps": leaps})


@case
def short_circuit_value_protects_the_index():
    a = [3, 1, 4, 1, 5, 9, 2, 6]
    i = 0
    while i < 8 and a[i] != 9:
        i += 1
    return Case("""
input A: i64[8]
output i: i64
output past: i64
i = 0
going = 1
while going != 0 do {
    going = i < 8 and A[i] != 9
    if going == 1 then { i = i + 1 }
}
j = 8
past = j < 8 and A[j] > 0
""", {"i": i, "past": 0}, {"A": a})



@case
def min_and_max_as_two_results():
    a = [2.5, -1.0, 7.25, 3.0, -4.5, 0.0]
    return Case("""
input A: f64[6]
output lo: f64
output hi: f64
func minmax(X: f64[], n: i64, inout mn: f64, inout mx: f64) {
    mn = X[0]
    mx = X[0]
    for i in 1 .. n do {
        mn = min(mn, X[i])
        mx = max(mx, X[i])
    }
}
minmax(A, 6, lo, hi)
""", {"lo": min(a), "hi": max(a)}, {"A": a})


@case
def swap_through_inout():
    return Case("""
output a: i64
output b: i64
func swap(inout x: i64, inout y: i64) {
    t = x
    x = y
    y = t
}
a = 3
b = 11
swap(a, b)
""", {"a": 11, "b": 3})


@case
def clamp_and_relu_with_if_values():
    a = [-2.5, 0.5, 3.75, -0.25, 9.0, 1.0]
    relu = sum(max(v, 0.0) for v in a)
    clamped = [min(max(v, -1.0), 2.0) for v in a]
    return Case("""
input A: f64[6]
output relu: f64
output C: f64[6]
for i in 0 .. 6 do {
    relu = relu + (if A[i] > 0.0 then A[i] else 0.0)
    C[i] = if A[i] < -1.0 then -1.0 else if A[i] > 2.0 then 2.0 else A[i]
}
""", {"relu": relu, "C": clamped}, {"A": a})


@case
def fibonacci_do_while():
    a, b, k = 0, 1, 0
    while True:
        a, b = b, a + b
        k += 1
        if not b < 1000:
            break
    return Case("""
output a: i64
output b: i64
output k: i64
a = 0
b = 1
do {
    t = a + b
    a = b
    b = t
    k = k + 1
} while b < 1000
""", {"a": a, "b": b, "k": k})


@case
def bubble_sort_with_swapped_flag():
    a = [9, 4, 7, 1, 8, 2, 2, 6]
    passes, s = 0, list(a)
    while True:
        swapped = False
        for i in range(7):
            if s[i] > s[i + 1]:
                s[i], s[i + 1] = s[i + 1], s[i]
                swapped = True
        passes += 1
        if not swapped:
            break
    return Case("""
inout A: i64[8]
output passes: i64
do {
    swapped = 0
    for i in 0 .. 7 do {
        if A[i] <= A[i + 1] then { continue }
        t = A[i]
        A[i] = A[i + 1]
        A[i + 1] = t
        swapped = 1
    }
    passes = passes + 1
} while swapped == 1
""", {"A": s, "passes": passes}, {"A": a})


@case
def integer_square_root_by_newton_loop():
    ns = [0, 1, 15, 16, 17, 1000000, 999999999999]
    return Case("""
input N: i64[7]
output R: i64[7]
for i in 0 .. 7 do {
    n = N[i]
    x = n
    loop {
        if x <= 1 then { break }
        y = (x + n / x) / 2
        if y >= x then { break }
        x = y
    }
    R[i] = x
}
""", {"R": [math.isqrt(n) for n in ns]}, {"N": ns})


@case
def popcount_and_parity_with_continue():
    ns = [0, 1, 255, 1023, 0x5555, 123456789]
    pops = [bin(n).count("1") for n in ns]
    return Case("""
input N: i64[6]
output P: i64[6]
output odd: i64
for i in 0 .. 6 do {
    n = N[i]
    c = 0
    while n != 0 do {
        low = n & 1
        n = n >> 1
        if low == 0 then { continue }
        c = c + 1
    }
    P[i] = c
    odd = odd + (c % 2 == 1)
}
""", {"P": pops, "odd": sum(p % 2 for p in pops)}, {"N": ns})


@case
def matrix_trace_with_nested_continue_and_break():
    m = [[(i * 7 + j * 3) % 10 for j in range(4)] for i in range(4)]
    trace = sum(m[i][i] for i in range(4))
    first_zero_row = [next((j for j in range(4) if m[i][j] == 0), -1) for i in range(4)]
    return Case("""
input M: i64[4][4]
output trace: i64
output Z: i64[4]
for i in 0 .. 4 do {
    Z[i] = -1
    for j in 0 .. 4 do {
        if M[i][j] == 0 then {
            Z[i] = j
            break
        }
    }
    for j in 0 .. 4 do {
        if j != i then { continue }
        trace = trace + M[i][j]
    }
}
""", {"trace": trace, "Z": first_zero_row}, {"M": [v for row in m for v in row]})


@case
def count_zeros_with_not():
    a = [0, 3, 0, 0, -2, 7, 0, 1]
    return Case("""
input A: i64[8]
output zeros: i64
output both: i64
for i in 0 .. 8 do {
    zeros = zeros + (not A[i])
    both = both + (A[i] != 0 and A[7 - i] != 0)
}
""", {"zeros": a.count(0), "both": sum(1 for i in range(8) if a[i] and a[7 - i])}, {"A": a})


@case
def first_index_from_a_function_returning_inside_a_loop():
    a = [4, 8, -3, 6, -1, 2]
    return Case("""
input A: i64[6]
output first: i64
output none: i64
func find_below(X: i64[], n: i64, t: i64) -> i64 {
    i = 0
    loop {
        if i == n then { return -1 }
        if X[i] < t then { return i }
        i = i + 1
    }
}
first = find_below(A, 6, 0)
none = find_below(A, 6, -10)
""", {"first": 2, "none": -1}, {"A": a})


@case
def tail_recursive_sum_of_digits_through_inout():
    def digits(n):
        return sum(map(int, str(n)))
    return Case("""
output s: i64
func digits(n: i64, inout acc: i64) {
    if n == 0 then { return }
    acc = acc + n % 10
    digits(n / 10, acc)
}
s = 0
digits(9876543210, s)
""", {"s": digits(9876543210)})


@case
def euclid_extended_with_several_results():
    def egcd(a, b):
        x0, x1, y0, y1 = 1, 0, 0, 1
        while b != 0:
            q = a // b
            a, b = b, a - q * b
            x0, x1 = x1, x0 - q * x1
            y0, y1 = y1, y0 - q * y1
        return a, x0, y0
    g, x, y = egcd(240, 46)
    return Case("""
output g: i64
output x: i64
output y: i64
func egcd(a: i64, b: i64, x0: i64, x1: i64, y0: i64, y1: i64, inout g: i64, inout x: i64,
          inout y: i64) {
    if b == 0 then {
        g = a
        x = x0
        y = y0
        return
    }
    q = a / b
    egcd(b, a - q * b, x1, x0 - q * x1, y1, y0 - q * y1, g, x, y)
}
egcd(240, 46, 1, 0, 0, 1, g, x, y)
""", {"g": g, "x": x, "y": y})


@case
def mod_pow_with_conditional_values():
    b, e, m = 7, 560, 561
    return Case("""
output r: i64
func modpow(b: i64, e: i64, m: i64, acc: i64) -> i64 {
    if e == 0 then { return acc }
    return modpow(b * b % m, e / 2, m, if e % 2 == 1 then acc * b % m else acc)
}
r = modpow(7, 560, 561, 1)
""", {"r": pow(b, e, m)})


@case
def clobbered_input_read_in_a_loop_with_continue():
    # A while loop whose continue skips the increment must not let --clobber compute in A
    a = [1, 2, 3, 4, 5, 6]
    s, i, extra = 0, 0, 0
    while i < 6:
        s += a[i] * 2
        if a[i] == 3 and extra == 0:
            extra = 1
            continue
        i += 1
    return Case("""
input A: i64[6]
output s: i64
i = 0
extra = 0
while i < 6 do {
    s = s + A[i] * 2
    if A[i] == 3 and extra == 0 then {
        extra = 1
        continue
    }
    i = i + 1
}
""", {"s": s}, {"A": a})

