"""Random loop kernels of the shapes the -O2 passes rewrite (a hypothesis strategy; not collected).

incaq_generators.py draws general programs (calls, while loops, early exits), which exercise the
front end and -O1, but few of them have the counted loops over arrays that -O2's passes look for.
These do: one to four loops over arrays of one size (and a square one read along its diagonal,
``D[i][i]``), each body one to three statements drawn from maps, reductions, conditional steps
and sums, selects, running minima and maxima with payloads, private temporaries, prefix scans,
clamps, appends, compare-exchanges, histograms, block sums (``Y[i / 2]``), reads at positions
computed from data (``X[Z[i] & 7]``), tests of the loop variable, a last statement that may step
the loop variable (skipping an iteration: the loop is then not counted), 2-D and 3-D nests with a
scalar accumulator, and recurrences along the rows or down the columns of a 2-D array, sharing
arrays and scalars, so that passes meet each other's output.

Every index but an append's stays in bounds and no division has a variable divisor; appends may
run past their array (twice the loops' length) in kernels with several of them, and such a
kernel must then fault at every level as at -O0.
"""
from __future__ import annotations

import math

from hypothesis import strategies as st

SIZES = (8, 16, 33)
SPECIALS_F64 = (math.nan, math.inf, -math.inf, -0.0, 0.0)


class _Kernel:
    """One kernel being drawn: the hypothesis draw function, the element type and the sizes."""

    def __init__(self, draw, dtype: str, n: int, rows: int, cols: int):
        self.draw, self.t, self.n, self.rows, self.cols = draw, dtype, n, rows, cols

    def pick(self, options):
        return self.draw(st.sampled_from(options))

    def const(self) -> str:
        k = self.draw(st.integers(-5, 9))
        return f"{k}.5" if self.t == "f64" and self.draw(st.booleans()) else \
            (f"{k}.0" if self.t == "f64" else str(k))

    def leaf(self, shifted: bool) -> str:
        options = ["X[i]", "Z[i]", "i", "s", "Y[i]", "D[i][i]", self.const()]
        if self.t == "i64":
            options.append("X[Z[i] & 7]")  # a position computed from data (gather)
        if shifted:
            options += ["X[i - 1]", "X[i + 1]"]
        return self.pick(options)

    def expr(self, depth: int, shifted: bool) -> str:
        if depth == 0 or self.draw(st.integers(0, 2)) == 0:
            return self.leaf(shifted)
        a, b = self.expr(depth - 1, shifted), self.expr(depth - 1, shifted)
        ops = ["+", "-", "*", "min", "max", "abs"] + (["&", "^", "/3"] if self.t == "i64" else [])
        op = self.pick(ops)
        if op in ("min", "max"):
            return f"{op}({a}, {b})"
        if op == "abs":
            return f"abs({a})"
        if op == "/3":
            return f"({a} / 3)"
        return f"({a} {op} {b})"

    def cond(self, shifted: bool) -> str:
        kind = self.pick(("value", "value", "index", "both"))
        n = self.n
        if kind == "index":
            return self.pick((f"i < {n // 2}", "i == 1 or i == " + str(n - 2), f"i >= {n // 3}",
                              f"not (i > {n - 3})"))
        rel = self.pick(("<", "<=", ">", ">=", "==", "!="))
        c = f"{self.expr(1, shifted)} {rel} {self.expr(1, shifted)}"
        if kind == "both":
            c = f"{c} {self.pick(('and', 'or'))} {self.pick(('X[i] > Z[i]', f'i < {n - 4}'))}"
        return c

    def stmt(self, shifted: bool) -> list[str]:
        """The lines of one statement of a loop over i (``shifted``: i runs 1 .. N - 1)."""
        e = self.expr(2, shifted)
        kind = self.pick(("map", "reduce", "step", "csum", "select", "argmax", "private", "scan",
                          "clamp", "append", "exchange", "histogram", "blocks"))
        if kind == "map":
            return [f"Y[i] = {e}"]
        if kind == "reduce":
            op = self.pick(("+", "*", "min", "max") + (("&", "|", "^") if self.t == "i64" else ()))
            return [f"s = {op}(s, {e})" if op in ("min", "max") else f"s = s {op} {e}"]
        if kind == "step":
            return [f"if {self.cond(shifted)} then {{ n = n + 1 }}"]
        if kind == "csum":
            return [f"if {self.cond(shifted)} then {{ s = s + {e} }}"]
        if kind == "select":
            other = self.expr(1, shifted)
            return [f"if {self.cond(shifted)} then {{ Y[i] = {e} }} else {{ Y[i] = {other} }}"]
        if kind == "argmax":
            rel = self.pick(("<", "<=", ">", ">="))
            value = self.pick(("X[i]", "Z[i]"))
            return [f"if {self.pick((value, value, e))} {rel} m then {{ m = {value}; k = i }}"]
        if kind == "private":
            return [f"t = {e}", f"Y[i] = t * {self.expr(1, shifted)}"]
        if kind == "scan" and shifted:
            return [f"P[i] = P[i - 1] {self.pick(('+', '*'))} {self.pick(('X[i]', 'Z[i]', e))}"]
        if kind == "clamp":
            return [f"if Y[i] {self.pick(('>', '<'))} {self.const()} then {{ Y[i] = {self.const()} }}"]
        if kind == "append":
            return [f"if {self.cond(shifted)} then {{ B[q] = {e}; q = q + 1 }}"]
        if kind == "exchange":
            pairs = (("Y[i]", "P[i]"), ("P[i]", "Y[i]")) + ((("Y[i]", "Y[i + 1]"), ("Y[i - 1]", "Y[i]"))
                                                          if shifted else ())
            a, b = self.pick(pairs)
            first, second = (a, b) if self.draw(st.booleans()) else (b, a)
            return [f"if {a} {self.pick(('<', '<=', '>', '>='))} {b} then "
                    f"{{ t = {first}; {first} = {second}; {second} = t }}"]
        if kind == "histogram":  # buckets of a value (its index may fault: % of a negative)
            at = self.pick(("X[i] & 3", "(X[i] >> 1) & 3", "min(max(X[i], 0), 3)", "X[i] % 4")
                           if self.t == "i64" else ("(X[i] > Z[i]) + (X[i] > 0.5)", "X[i] < 1.0"))
            w = self.pick(("1", "1", e) if self.t == "i64" else ("1.0", e))
            return [f"H[{at}] = H[{at}] {self.pick(('+', '-'))} {w}"]
        if kind == "blocks":  # the loop variable divided by a constant (delinearise)
            return [self.pick((f"Y[i / 2] = Y[i / 2] + {e}", f"P[i % 4] = max(P[i % 4], {e})",
                               "Y[i] = X[i / 4] * (i % 2)"))]
        return [f"Y[i] = {e}"]

    def loop(self) -> list[str]:
        if self.draw(st.integers(0, 6)) == 0:  # a recurrence along the rows or down the columns
            op = self.pick(("+", "*", "-"))
            if self.draw(st.booleans()):
                return [f"for i in 0 .. {self.rows} do {{", f"    for j in 1 .. {self.cols} do {{",
                        f"        G[i][j] = G[i][j - 1] {op} A[i][j]", "    }", "}"]
            return [f"for j in 0 .. {self.cols} do {{", f"    for i in 1 .. {self.rows} do {{",
                    f"        G[i][j] = G[i - 1][j] {op} {self.const()} + A[i][j]", "    }", "}"]
        if self.draw(st.integers(0, 6)) == 0:  # a product of matrices, an accumulator per element
            op = self.pick(("+", "max"))
            term = self.pick(("A[i][k] * A[k][j]", "A[i][k] - W[j]", "A[k][i] * W[k]"))
            step = f"acc = acc + {term}" if op == "+" else f"acc = max(acc, {term})"
            n = min(self.rows, self.cols)
            return [f"for i in 0 .. {n} do {{", f"    for j in 0 .. {n} do {{",
                    f"        acc = {self.pick(('A[i][j]', self.const()))}",
                    f"        for k in 0 .. {n} do {{ {step} }}", "        G[i][j] = acc", "    }", "}"]
        if self.draw(st.integers(0, 4)) == 0:  # a 2-D nest with a scalar accumulator per row
            op = self.pick(("+", "max"))
            step = "acc = acc + A[i][j] * W[j]" if op == "+" else "acc = max(acc, A[i][j] - W[j])"
            return [f"for i in 0 .. {self.rows} do {{", "    acc = A[i][0]",
                    f"    for j in 0 .. {self.cols} do {{ {step} }}", "    R[i] = acc", "}"]
        shifted = self.draw(st.booleans())
        lo, hi = (1, self.n - 1) if shifted else (0, self.n)
        body = [line for _ in range(self.draw(st.integers(1, 3))) for line in self.stmt(shifted)]
        if self.draw(st.integers(0, 5)) == 0:  # skips the next iteration: not a counted loop
            body.append(f"if {self.cond(shifted)} then {{ i = i + 1 }}")
        return [f"for i in {lo} .. {hi} do {{", *(f"    {line}" for line in body), "}"]


@st.composite
def kernels(draw):
    """(text, inputs, finite inputs): a kernel, inputs that may hold NaN, infinities and -0.0,
    and inputs that do not (for -Ofast)."""
    dtype = draw(st.sampled_from(("i64", "f64")))
    n, rows, cols = (draw(st.sampled_from(options)) for options in (SIZES, (3, 4), (4, 8)))
    k = _Kernel(draw, dtype, n, rows, cols)
    t = dtype
    head = [f"input X: {t}[{n}]", f"input Z: {t}[{n}]", f"input A: {t}[{rows}][{cols}]",
            f"input W: {t}[{cols}]", f"input D: {t}[{n}][{n}]", f"output Y: {t}[{n}]", f"output P: {t}[{n}]",
            f"output B: {t}[{2 * n}]", f"output H: {t}[4]", f"output R: {t}[{rows}]", f"inout G: {t}[{rows}][{cols}]", f"output s: {t}", f"output m: {t}",
            "output k: i64", "output n: i64", "output q: i64", "var t: " + t, "var acc: " + t]
    body = ["m = X[0]", "P[0] = X[0]"]
    for _ in range(draw(st.integers(1, 4))):
        body += k.loop()
    text = "\n".join(head + body) + "\n"

    def values(count: int, special: bool) -> list:
        if t == "i64":
            edge = (-(1 << 63), (1 << 63) - 1, 0, -1)
            return [draw(st.sampled_from(edge)) if special and draw(st.integers(0, 9)) == 0
                    else draw(st.integers(-9, 9)) for _ in range(count)]
        return [draw(st.sampled_from(SPECIALS_F64)) if special and draw(st.integers(0, 9)) == 0
                else draw(st.integers(-16, 16)) * 0.25 for _ in range(count)]

    sizes = {"X": n, "Z": n, "A": rows * cols, "W": cols, "D": n * n, "G": rows * cols}
    special = {name: values(size, True) for name, size in sizes.items()}  # (A row by row)
    finite = {name: values(size, False) for name, size in sizes.items()}
    return text, special, finite
