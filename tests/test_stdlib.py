"""The INCA-Q standard library (stdlib/*.incaq): results, instruction counts, module resolution.

Every stdlib function is called from a small kernel written to tmp_path, compiled at -O0 through
the frontend (``load_tuples``) and run on the NIC model (``execute``) on seeded random inputs. The
outputs are compared with an independent Python computation, and the executed instruction count
with the formula on the function's ``# Instructions:`` comment line in the module (read from the
installed package data at test time), at two sizes each.
"""
from __future__ import annotations

import functools
import operator
import random
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

import pytest

from inca.compiler.frontend import Options, load_tuples
from inca.interpreter.loader import RunResult, execute
from inca.interpreter.profiles import load_profile
from inca.lang.diagnostics import DiagnosticError

MODULES = ("linalg", "reduce", "memory")
PROFILE = load_profile("scratchpad")


# ---- helpers -----------------------------------------------------------------------------------

def stdlib_dir() -> Path:
    """The installed stdlib folder (package data of inca.stdlib)."""
    return Path(str(resources.files("inca.stdlib")))


@lru_cache(maxsize=None)
def documented_formulas() -> dict[str, str]:
    """Each stdlib function's instruction-count formula, from the comment block above it."""
    out: dict[str, str] = {}
    for module in MODULES:
        comment: list[str] = []
        for line in (stdlib_dir() / f"{module}.incaq").read_text(encoding="utf-8").splitlines():
            if line.startswith("#"):
                comment.append(line)
                continue
            m = re.match(r"func (\w+)\(", line)
            if m:
                found = [f.group(1) for c in comment
                         if (f := re.match(r"# Instructions: ([^,.]+)", c))]
                assert len(found) == 1, f"{module}.{m.group(1)}: no '# Instructions:' line"
                out[m.group(1)] = found[0].strip()
            comment = []
    return out


def formula_count(func: str, **values: int) -> int:
    """Evaluate a documented formula such as ``8 rows cols + 11 rows + 6`` or ``8n + 2u``."""
    total = 0
    for term in documented_formulas()[func].split("+"):
        m = re.fullmatch(r"\s*(\d*)\s*((?:[a-z]+\s*)*)", term)
        assert m and (m.group(1) or m.group(2)), f"{func}: cannot read the term {term!r}"
        value = int(m.group(1) or 1)
        for name in m.group(2).split():
            value *= values[name]
        total += value
    return total


def compile_kernel(path: Path, text: str, defines: dict[str, int] | None = None,
                   include: tuple[str, ...] = ()):
    """Write a kernel and compile it to tuples at -O0."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return load_tuples(str(path), Options(defines=dict(defines or {}), include=include))


def run(tmp_path: Path, text: str, inputs: dict, defines: dict[str, int] | None = None,
        include: tuple[str, ...] = ()) -> RunResult:
    """Compile a kernel in tmp_path/k.incaq and run it on the scratchpad profile (the -O0
    result; -O1 and -O2 must give the same outputs and take no longer)."""
    tp = compile_kernel(tmp_path / "k.incaq", text, defines, include)
    result = execute(tp, PROFILE, {k: list(v) for k, v in inputs.items()}, max_steps=1_000_000)
    for opt in (1, 2):
        optimised = load_tuples(str(tmp_path / "k.incaq"),
                                Options(defines=dict(defines or {}), opt=opt, include=include))
        r = execute(optimised, PROFILE, {k: list(v) for k, v in inputs.items()}, max_steps=1_000_000)
        assert repr(r.outputs) == repr(result.outputs), opt  # repr: bit for bit, NaN and -0.0 too
        assert r.time_ns <= result.time_ns, opt
    return result


def f64s(rng: random.Random, n: int) -> list[float]:
    """Multiples of 1/64 in [-8, 8): sums and products of a few of them are exact."""
    return [rng.randrange(-512, 512) / 64 for _ in range(n)]


def i64s(rng: random.Random, n: int) -> list[int]:
    return [rng.randrange(-1000, 1000) for _ in range(n)]


def new_extremes(xs: list[float], better) -> int:
    """How many k >= 1 improve strictly on every earlier element."""
    best, u = xs[0], 0
    for x in xs[1:]:
        if better(x, best):
            best, u = x, u + 1
    return u


SIZES = [3, 10]
SHAPES = [(2, 3), (4, 5)]


def test_every_stdlib_function_documents_its_count():
    names = set(documented_formulas())
    assert names == {"dot", "axpy", "scale", "hadamard", "matvec", "matmul", "transpose",
                     "sum", "minval", "maxval", "argmin", "argmax",
                     "copy", "copy_i64", "fill", "fill_i64", "gather", "scatter", "pack2d",
                     "unpack2d"}


def test_docs_table_matches_the_modules():
    text = (Path(__file__).resolve().parents[1] / "docs" / "incaq.md").read_text(encoding="utf-8")
    table = re.search(r"<!-- stdlib-table -->\n(.*?)\n<!-- /stdlib-table -->", text, re.S)
    assert table, "docs/incaq.md has no <!-- stdlib-table --> block"
    rows = {m.group(2): (m.group(1), m.group(3), m.group(4)) for m in re.finditer(
        r"^\| `((\w+)\(.*?\)(?: -> \w+)?)` \| (\w+) \| .*? \| `([^`]+)` \|$", table.group(1), re.M)}
    want = {}
    for module in MODULES:
        source = (stdlib_dir() / f"{module}.incaq").read_text(encoding="utf-8")
        for m in re.finditer(r"^func ((\w+)\(.*?\)(?: -> \w+)?) \{", source, re.M):
            want[m.group(2)] = (m.group(1), module, documented_formulas()[m.group(2)])
    assert rows == want


def test_all_modules_load_together(tmp_path):
    # every function is checked even when not called, so this also type-checks the whole stdlib
    r = run(tmp_path, "use linalg\nuse reduce\nuse memory\noutput c: f64\nc = 1.5\n", {})
    assert r.outputs == {"c": 1.5}


# ---- linalg --------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", SIZES)
def test_dot(tmp_path, n):
    rng = random.Random(n)
    a, b = f64s(rng, n), f64s(rng, n)
    r = run(tmp_path, """use linalg
param N = 4
input A: f64[N]
input B: f64[N]
output c: f64
c = dot(A, B, N)
""", {"A": a, "B": b}, {"N": n})
    s = 0.0
    for x, y in zip(a, b):
        s += x * y
    assert r.outputs["c"] == s
    assert r.instructions == formula_count("dot", n=n) + 1


ELEMENTWISE = {  # call: the outputs Y and Z from a, X, Y
    "axpy(a, X, Y, N)": lambda a, x, y: ([yk + a * xk for xk, yk in zip(x, y)], None),
    "scale(a, Y, N)": lambda a, x, y: ([yk * a for yk in y], None),
    "hadamard(X, Y, Z, N)": lambda a, x, y: (y, [xk * yk for xk, yk in zip(x, y)]),
    "hadamard(X, Y, Y, N)": lambda a, x, y: ([xk * yk for xk, yk in zip(x, y)], None),  # in place
}


@pytest.mark.parametrize("call", ELEMENTWISE)
@pytest.mark.parametrize("n", SIZES)
def test_elementwise(tmp_path, call, n):
    rng = random.Random(n)
    a, x, y = rng.randrange(-64, 64) / 16, f64s(rng, n), f64s(rng, n)
    r = run(tmp_path, f"""use linalg
param N = 4
input a: f64
input X: f64[N]
inout Y: f64[N]
output Z: f64[N]
{call}
""", {"a": [a], "X": x, "Y": y}, {"N": n})
    want_y, want_z = ELEMENTWISE[call](a, x, y)
    assert r.outputs["Y"] == want_y
    assert r.outputs["Z"] == (want_z or [0.0] * n)
    assert r.instructions == formula_count(call.split("(")[0], n=n)


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_matvec(tmp_path, rows, cols):
    rng = random.Random(rows * 100 + cols)
    m, x = f64s(rng, rows * cols), f64s(rng, cols)
    r = run(tmp_path, """use linalg
param R = 2
param C = 2
input M: f64[R][C]
input x: f64[C]
output y: f64[R]
matvec(M, x, y, R, C)
""", {"M": m, "x": x}, {"R": rows, "C": cols})
    want = []
    for i in range(rows):
        s = 0.0
        for j in range(cols):
            s += m[i * cols + j] * x[j]
        want.append(s)
    assert r.outputs["y"] == want
    assert r.instructions == formula_count("matvec", rows=rows, cols=cols)


@pytest.mark.parametrize("r_,k_,s_", [(2, 3, 4), (4, 2, 3)])
def test_matmul(tmp_path, r_, k_, s_):
    rng = random.Random(r_ * 100 + k_ * 10 + s_)
    a, b = f64s(rng, r_ * k_), f64s(rng, k_ * s_)
    r = run(tmp_path, """use linalg
param R = 2
param K = 2
param S = 2
input A: f64[R][K]
input B: f64[K][S]
output P: f64[R][S]
matmul(A, B, P, R, K, S)
""", {"A": a, "B": b}, {"R": r_, "K": k_, "S": s_})
    want = []
    for i in range(r_):
        for j in range(s_):
            s = 0.0
            for k in range(k_):
                s += a[i * k_ + k] * b[k * s_ + j]
            want.append(s)
    assert r.outputs["P"] == want
    assert r.instructions == formula_count("matmul", r=r_, m=k_, c=s_)


@pytest.mark.parametrize("rows,cols", SHAPES)
def test_transpose(tmp_path, rows, cols):
    rng = random.Random(rows * 100 + cols)
    a = f64s(rng, rows * cols)
    r = run(tmp_path, """use linalg
param R = 2
param C = 2
input A: f64[R][C]
output B: f64[C][R]
transpose(A, B, R, C)
""", {"A": a}, {"R": rows, "C": cols})
    assert r.outputs["B"] == [a[i * cols + j] for j in range(cols) for i in range(rows)]
    assert r.instructions == formula_count("transpose", rows=rows, cols=cols)


# ---- reduce --------------------------------------------------------------------------------------

REDUCE_KERNEL = """use reduce
param N = 4
input X: f64[N]
output v: {type}
v = {func}(X, N)
"""


REDUCTIONS = {"sum": lambda x: functools.reduce(operator.add, x, 0.0), "minval": min, "maxval": max}


@pytest.mark.parametrize("func", REDUCTIONS)
@pytest.mark.parametrize("n", [1, *SIZES])
def test_sum_minval_maxval(tmp_path, func, n):
    x = f64s(random.Random(n), n)
    r = run(tmp_path, REDUCE_KERNEL.format(type="f64", func=func), {"X": x}, {"N": n})
    assert r.outputs["v"] == REDUCTIONS[func](x)
    assert r.instructions == formula_count(func, n=n) + 1


ARG = {"argmin": (lambda a, b: a < b), "argmax": (lambda a, b: a > b)}


@pytest.mark.parametrize("func", sorted(ARG))
@pytest.mark.parametrize("n", [1, *SIZES])
def test_argmin_argmax(tmp_path, func, n):
    x = f64s(random.Random(n + 50), n)
    r = run(tmp_path, REDUCE_KERNEL.format(type="i64", func=func), {"X": x}, {"N": n})
    best = min(x) if func == "argmin" else max(x)
    assert r.outputs["v"] == x.index(best)
    u = new_extremes(x, ARG[func])
    assert r.instructions == formula_count(func, n=n, u=u) + 1


@pytest.mark.parametrize("func,x,want,u", [
    ("argmin", [3.0, 1.0, 1.0, 0.5, 0.5, 2.0], 3, 2),   # the first of equal minima
    ("argmax", [1.0, 4.0, 4.0, -1.0, 4.0], 1, 1),
    ("argmin", [5.0, 4.0, 3.0, 2.0, 1.0], 4, 4),        # strictly decreasing: 10n - 2
])
def test_argmin_argmax_ties_and_worst_case(tmp_path, func, x, want, u):
    n = len(x)
    r = run(tmp_path, REDUCE_KERNEL.format(type="i64", func=func), {"X": x}, {"N": n})
    assert r.outputs["v"] == want
    assert new_extremes(x, ARG[func]) == u
    assert r.instructions == formula_count(func, n=n, u=u) + 1


# ---- memory --------------------------------------------------------------------------------------

@pytest.mark.parametrize("func,dtype", [("copy", "f64"), ("copy_i64", "i64")])
@pytest.mark.parametrize("n", SIZES)
def test_copy(tmp_path, func, dtype, n):
    rng = random.Random(n)
    src = f64s(rng, n) if dtype == "f64" else i64s(rng, n)
    r = run(tmp_path, f"""use memory
param N = 4
input S: {dtype}[N]
output D: {dtype}[N]
{func}(D, S, N)
""", {"S": src}, {"N": n})
    assert r.outputs["D"] == src
    assert r.instructions == formula_count(func, n=n)


@pytest.mark.parametrize("func,dtype", [("fill", "f64"), ("fill_i64", "i64")])
@pytest.mark.parametrize("n", SIZES)
def test_fill(tmp_path, func, dtype, n):
    v = (f64s if dtype == "f64" else i64s)(random.Random(n), 1)
    r = run(tmp_path, f"""use memory
param N = 4
input v: {dtype}
output D: {dtype}[N]
{func}(D, v, N)
""", {"v": v}, {"N": n})
    assert r.outputs["D"] == v * n
    assert r.instructions == formula_count(func, n=n)


def test_fill_converts_an_i64_value(tmp_path):
    r = run(tmp_path, "use memory\noutput D: f64[3]\nfill(D, 7, 3)\n", {})
    assert r.outputs["D"] == [7.0, 7.0, 7.0]
    assert all(isinstance(v, float) for v in r.outputs["D"])


STRIDED = """use memory
param N = 4
param START = 0
param STRIDE = 1
param L = START + 1 + max(0, (N - 1) * STRIDE)
{decls}
{func}(D, S, N, START, STRIDE)
"""


@pytest.mark.parametrize("n,start,stride", [(3, 1, 2), (10, 0, 3), (5, 8, -2)])
def test_gather(tmp_path, n, start, stride):
    length = start + 1 + max(0, (n - 1) * stride)
    src = f64s(random.Random(n), length)
    r = run(tmp_path, STRIDED.format(func="gather", decls="input S: f64[L]\noutput D: f64[N]"),
            {"S": src}, {"N": n, "START": start, "STRIDE": stride})
    assert r.outputs["D"] == [src[start + k * stride] for k in range(n)]
    assert r.instructions == formula_count("gather", n=n)


@pytest.mark.parametrize("n,start,stride", [(3, 1, 2), (10, 0, 3), (5, 8, -2)])
def test_scatter(tmp_path, n, start, stride):
    rng = random.Random(n)
    length = start + 1 + max(0, (n - 1) * stride)
    dst, src = f64s(rng, length), f64s(rng, n)
    r = run(tmp_path, STRIDED.format(func="scatter", decls="inout D: f64[L]\ninput S: f64[N]"),
            {"D": dst, "S": src}, {"N": n, "START": start, "STRIDE": stride})
    want = list(dst)
    for k in range(n):
        want[start + k * stride] = src[k]
    assert r.outputs["D"] == want
    assert r.instructions == formula_count("scatter", n=n)


SUBMATRIX = """use memory
param R = 5
param C = 6
param ROW = 1
param COL = 2
param RS = 2
param CS = 3
{decls}
{call}
"""
BLOCKS = [(5, 6, 1, 2, 2, 3), (4, 7, 0, 3, 4, 4)]


@pytest.mark.parametrize("R,C,row,col,rs,cs", BLOCKS)
def test_pack2d(tmp_path, R, C, row, col, rs, cs):
    m = f64s(random.Random(R * C), R * C)
    r = run(tmp_path, SUBMATRIX.format(decls="input M: f64[R][C]\noutput P: f64[RS * CS]",
                                       call="pack2d(P, M, ROW, COL, RS, CS)"),
            {"M": m}, {"R": R, "C": C, "ROW": row, "COL": col, "RS": rs, "CS": cs})
    assert r.outputs["P"] == [m[(row + i) * C + col + j] for i in range(rs) for j in range(cs)]
    assert r.instructions == formula_count("pack2d", rows=rs, cols=cs)


@pytest.mark.parametrize("R,C,row,col,rs,cs", BLOCKS)
def test_unpack2d(tmp_path, R, C, row, col, rs, cs):
    rng = random.Random(R * C)
    m, p = f64s(rng, R * C), f64s(rng, rs * cs)
    r = run(tmp_path, SUBMATRIX.format(decls="inout M: f64[R][C]\ninput P: f64[RS * CS]",
                                       call="unpack2d(M, P, ROW, COL, RS, CS)"),
            {"M": m, "P": p}, {"R": R, "C": C, "ROW": row, "COL": col, "RS": rs, "CS": cs})
    want = list(m)
    for i in range(rs):
        for j in range(cs):
            want[(row + i) * C + col + j] = p[i * cs + j]
    assert r.outputs["M"] == want
    assert r.instructions == formula_count("unpack2d", rows=rs, cols=cs)


def test_pack_then_unpack_round_trips(tmp_path):
    m = f64s(random.Random(3), 20)
    r = run(tmp_path, """use memory
input M: f64[4][5]
output Q: f64[4][5]
var buf: f64[6]
pack2d(buf, M, 1, 1, 3, 2)
unpack2d(Q, buf, 0, 3, 3, 2)
""", {"M": m})
    want = [0.0] * 20
    for i in range(3):
        for j in range(2):
            want[i * 5 + 3 + j] = m[(1 + i) * 5 + 1 + j]
    assert r.outputs["Q"] == want


# ---- hygiene: stdlib locals do not clash with the kernel's names ----------------------------------

def test_kernel_params_named_like_stdlib_locals(tmp_path):
    # k, s, i, j, m, p, idx are locals of stdlib functions; as kernel params they must not clash
    x = f64s(random.Random(1), 4)
    r = run(tmp_path, """use linalg
use reduce
param k = 4
param s = 1
param i = 2
param j = 2
param idx = 0
input X: f64[k]
input M: f64[i][j]
output v: f64
output w: i64
output y: f64[i]
v = dot(X, X, k)
w = argmax(X, k)
matvec(M, X, y, i, j)
""", {"X": x, "M": [1.0, 0.0, 0.0, 1.0]})
    assert r.outputs["v"] == sum(a * a for a in x)
    assert r.outputs["w"] == x.index(max(x))
    assert r.outputs["y"] == x[:2]


def test_two_calls_get_separate_locals(tmp_path):
    rng = random.Random(2)
    a, b = f64s(rng, 6), f64s(rng, 6)
    r = run(tmp_path, """use reduce
input A: f64[6]
input B: f64[6]
output c: f64
c = sum(A, 6) - sum(B, 6)
""", {"A": a, "B": b})
    assert r.outputs["c"] == sum(a) - sum(b)


# ---- use resolution ----------------------------------------------------------------------------

SUM_KERNEL = """use reduce
input X: f64[3]
output v: f64
v = sum(X, 3)
"""


def fake_reduce(value: float) -> str:
    """A reduce module whose sum returns a constant, to see which reduce.incaq was loaded."""
    return f"func sum(X: f64[], n: i64) -> f64 {{\n    return {value}\n}}\n"


def test_stdlib_is_installed_package_data():
    for module in MODULES:
        assert (stdlib_dir() / f"{module}.incaq").is_file()


def test_use_resolution_order(tmp_path):
    x = [1.0, 2.0, 4.0]
    src, inc = tmp_path / "src", tmp_path / "inc"
    inc.mkdir()
    # only the stdlib has reduce
    r = run(src, SUM_KERNEL, {"X": x})
    assert r.outputs["v"] == 7.0
    # an -I folder shadows the stdlib
    (inc / "reduce.incaq").write_text(fake_reduce(1.0), encoding="utf-8")
    assert run(src, SUM_KERNEL, {"X": x}, include=(str(inc),)).outputs["v"] == 1.0
    # the kernel's own folder shadows both
    (src / "reduce.incaq").write_text(fake_reduce(2.0), encoding="utf-8")
    assert run(src, SUM_KERNEL, {"X": x}, include=(str(inc),)).outputs["v"] == 2.0
    assert run(src, SUM_KERNEL, {"X": x}).outputs["v"] == 2.0


def test_include_folders_in_order(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    for folder, value in ((one, 1.0), (two, 3.0)):
        folder.mkdir()
        (folder / "reduce.incaq").write_text(fake_reduce(value), encoding="utf-8")
    k = tmp_path / "k"
    assert run(k, SUM_KERNEL, {}, include=(str(one), str(two))).outputs["v"] == 1.0
    assert run(k, SUM_KERNEL, {}, include=(str(two), str(one))).outputs["v"] == 3.0


def test_a_module_uses_modules_from_its_own_folder(tmp_path):
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "outer.incaq").write_text(
        "use inner\nfunc twice(x: f64) -> f64 {\n    return add(x, x)\n}\n", encoding="utf-8")
    (lib / "inner.incaq").write_text(
        "func add(a: f64, b: f64) -> f64 {\n    return a + b\n}\n", encoding="utf-8")
    r = run(tmp_path / "k", "use outer\noutput v: f64\nv = twice(1.25)\n", {}, include=(str(lib),))
    assert r.outputs["v"] == 2.5


def test_include_option_of_incac(tmp_path, capsys):
    from inca.compiler import driver

    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "reduce.incaq").write_text(fake_reduce(1.0), encoding="utf-8")
    kernel = tmp_path / "k.incaq"
    kernel.write_text(SUM_KERNEL, encoding="utf-8")
    assert driver.main([str(kernel), "-I", str(inc), "-S", "-o", "-"]) == 0
    assert "1.0" in capsys.readouterr().out


def diagnostics_of(path: Path, text: str, include: tuple[str, ...] = ()) -> list[str]:
    """The rendered diagnostics of a kernel that must not compile."""
    with pytest.raises(DiagnosticError) as exc:
        compile_kernel(path, text, include=include)
    return [d.render() for d in exc.value.diagnostics]


def test_missing_module(tmp_path):
    path = tmp_path / "k.incaq"
    assert diagnostics_of(path, "use nosuch\noutput v: f64\n") == [
        f"{path}:1:5: error: module 'nosuch' not found\n"
        "    use nosuch\n"
        "        ^~~~~~\n"
        f"hint: looked for nosuch.incaq in {tmp_path}, the -I folders and the stdlib"]


def test_module_may_only_define_functions(tmp_path):
    (tmp_path / "bad.incaq").write_text(
        "func one() -> f64 {\n    return 1.0\n}\nx = 1\nparam P = 2\ninput Q: f64\n",
        encoding="utf-8")
    bad = tmp_path / "bad.incaq"
    message = "error: module 'bad' may only define functions and use modules"
    assert diagnostics_of(tmp_path / "k.incaq", "use bad\noutput v: f64\nv = one()\n") == [
        f"{bad}:4:1: {message}\n    x = 1\n    ^~~~~",
        f"{bad}:5:7: {message}\n    param P = 2\n          ^",
        f"{bad}:6:7: {message}\n    input Q: f64\n          ^"]
