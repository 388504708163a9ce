"""Programs and helpers shared by the INCA-Q parser tests (a helper module, not collected).

Used by test_incaq_parser.py, test_incaq_layout.py and test_incaq_syntax_errors.py.
"""
from __future__ import annotations

import textwrap

from inca.compiler.incaq.ast import Module, Name, Num
from inca.compiler.incaq.parser import parse
from inca.lang.diagnostics import Source

SLIDE_23 = """\
input A: f64[50]
input B: f64[50]
output c: f64

i = 0
while i < 50 do {
    c = c + (A[i] * B[i])
    i = i + 1
}
"""

DOT_PRODUCT = """\
# Dot product of two vectors of 8-byte floats.
param PAYLOAD = 128            # bytes per input vector; incac -D PAYLOAD=8192 or --payload 8192
param N = PAYLOAD / 8

input  A: f64[N]
input  B: f64[N]
output c: f64

for i in 0 .. N do {
    c = c + A[i] * B[i]
}
"""

EVERYTHING = """\
# every construct of INCA-Q
use linalg
param P = 64
param N = P / 8
param R = isqrt(N)
param C = if R * R == N then R else 2 * R
param M = max(min(N, 4), 1) % 3 - -1

input  A: f64[N]
output Y: f64[R][C]
inout  X: i64[2 * R]
var    t: f64[N]
var    k: i64 = -7
var    s: f64 = 2.5e-3

func sq(x: f64) -> f64 { return x * x }
func axpy(a: f64, X: f64[], Y: f64[], n: i64) {
    for k in 0 .. n do { Y[k] = Y[k] + a * X[k] }
}
func nothing(M: i64[][]) { return }

k = 0x10; s = sq(1.5)
while k < N and not (s >= 1e3 or k == 3) do {
    if k % 2 != 0 then {
        t[k] = f64(k) * -s
    } else if k > 4 then {
        t[k] = abs(s)
    } else {
        Y[k / C][k % C] = min(t[k], 0.5)
    }
    k = k + 1
}
axpy(2.0, A, t, N)
X[0] = i64(t[0]) << 2 | 1 & 3 ^ 4 >> 1
"""


def p(text: str, name: str = "k.incaq") -> Module:
    """Parse ``text`` (dedented)."""
    return parse(Source(name, textwrap.dedent(text)))


def i(v: int) -> Num:
    """The i64 literal ``v``."""
    return Num(v, False)


def n(name: str) -> Name:
    """A reference to ``name``."""
    return Name(name)
