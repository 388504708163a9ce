"""The table of algebraic identities the optimiser may use, one row per rule.

A rule rewrites ``x OP c`` (or ``c OP x``) to ``x`` or to a constant, for an ``x`` of the rule's
type. Every row is proven by z3 in ``tests/test_opt_rules.py``: i64 rules over 64-bit bit-vectors
with INCA-A's semantics, f64 rules in IEEE floating point (where a rule is false for -0.0, NaN or
infinities, it carries the flag that allows it), fast-math rules over the reals.

Flags: ``()`` always (bit-exact); ``("nsz",)`` only when the sign of zero may be ignored;
``("nnan", "ninf")`` only when values may be assumed finite. -Ofast grants all three.
"""
from __future__ import annotations

from ...lang.frozen import frozen


@frozen
class Rule:
    """``x OP c -> result`` (``side`` says which operand is the constant ``c``)."""

    name: str
    op: str
    const: int | float
    side: str  # "right": x OP c; "left": c OP x; "both": either
    result: str  # "x" or "c" (the constant itself, e.g. x * 0 -> 0)
    dtype: str
    flags: tuple[str, ...] = ()


RULES: tuple[Rule, ...] = (
    Rule("add-zero", "+", 0, "both", "x", "i64"),
    Rule("sub-zero", "-", 0, "right", "x", "i64"),
    Rule("mul-one", "*", 1, "both", "x", "i64"),
    Rule("mul-zero", "*", 0, "both", "c", "i64"),
    Rule("div-one", "/", 1, "right", "x", "i64"),
    Rule("or-zero", "|", 0, "both", "x", "i64"),
    Rule("xor-zero", "^", 0, "both", "x", "i64"),
    Rule("and-ones", "&", -1, "both", "x", "i64"),
    Rule("and-zero", "&", 0, "both", "c", "i64"),
    Rule("shl-zero", "<<", 0, "right", "x", "i64"),
    Rule("shr-zero", ">>", 0, "right", "x", "i64"),
    Rule("shl-64", "<<", 64, "right", "x", "i64"),  # shift counts are taken mod 64
    Rule("fmul-one", "*", 1.0, "both", "x", "f64"),
    Rule("fdiv-one", "/", 1.0, "right", "x", "f64"),
    Rule("fsub-zero", "-", 0.0, "right", "x", "f64"),
    Rule("fadd-negzero", "+", -0.0, "both", "x", "f64"),
    Rule("fadd-zero", "+", 0.0, "both", "x", "f64", ("nsz",)),
    Rule("fmul-zero", "*", 0.0, "both", "c", "f64", ("nsz", "nnan", "ninf")),
)


@frozen
class Identity:
    """``lhs = rhs`` for every value of the variables, in type ``dtype``: the rewrites of a shape a
    :class:`Rule` cannot say, on which passes that restructure code rely.

    Terms are tuples ``(op, arg, ...)``: ``+ - *``, the bitwise ``& | ^`` (i64), the relations
    ``< <= > >= == !=`` (whose value is the truth of the relation), ``and``, ``or`` and ``not``
    of truth values, ``max`` and ``min`` (INCA-A's MAX and MIN), ``ite`` (``(ite, c, a, b)``: a
    if c else b), ``bool`` (1 if its argument is true, else 0); a string is a variable (``c`` and
    ``d`` truth values, every other one of type ``dtype``), an int a constant.
    ``tests/test_opt_rules.py`` proves each row with z3 (i64 over 64-bit bit-vectors, f64 in IEEE
    arithmetic)."""

    name: str
    dtype: str
    lhs: tuple | str
    rhs: tuple | str
    used_by: str  # the pass that relies on it


#: ``X REL K`` is ``K SWAPPED[REL] X``.
SWAPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}

#: ``not (X REL Y)`` is ``X NEGATED[REL] Y`` for i64 (for f64 only without NaN).
NEGATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<", "==": "!=", "!=": "=="}

IDENTITIES: tuple[Identity, ...] = (
    *(Identity(f"cmp-swap{op}-{t}", t, (op, "x", "k"), (SWAPPED[op], "k", "x"), "compact")
      for t in ("i64", "f64") for op in SWAPPED),
    # a leaf first and a computed operand second are turned round, so the lowering computes the
    # operand in the destination (combine); f64 only with a number, as a NaN's bits follow the
    # first operand (z3's floating point has one NaN: the pass keeps to numbers)
    *(Identity(f"commute{op}-i64", "i64", (op, "k", "x"), (op, "x", "k"), "combine")
      for op in ("+", "*", "&", "|", "^")),
    *(Identity(f"commute{op}-f64", "f64", (op, "k", "x"), (op, "x", "k"), "combine") for op in ("+", "*")),
    # the count of a compaction is kept as an offset d and added once: (n + d) + 1 = n + (d + 1)
    Identity("add-assoc", "i64", ("+", ("+", "x", "a"), "b"), ("+", "x", ("+", "a", "b")), "compact"),
    # c - a - b is c - (a + b): a difference reduction sums its terms first (reduce's trees)
    Identity("sub-sum", "i64", ("-", ("-", "x", "a"), "b"), ("-", "x", ("+", "a", "b")), "reduce"),
    # if c then x = x + 1 (or - 1) is x = x + c (ifconvert)
    Identity("if-inc", "i64", ("ite", "c", ("+", "x", 1), "x"), ("+", "x", ("bool", "c")), "ifconvert"),
    Identity("if-dec", "i64", ("ite", "c", ("-", "x", 1), "x"), ("-", "x", ("bool", "c")), "ifconvert"),
    # if x < 0 then x = 0 - x is x = abs(x), which INCA-A computes as max(x, x * -1) (ifconvert)
    *(Identity(f"if-abs{op}", "i64", ("ite", (op, "x", 0), ("-", 0, "x"), "x"),
               ("max", "x", ("*", "x", -1)), "ifconvert") for op in ("<", "<=")),
    # if c then x = x + e is x = x + c * e (reduce's conditional sums, e unable to fault)
    Identity("if-add", "i64", ("ite", "c", ("+", "x", "e"), "x"), ("+", "x", ("*", ("bool", "c"), "e")),
             "reduce"),
    # if x < y then T = x else T = y is T = min(x, y), its arms the other way round max; > and
    # >= the other way round (ifconvert's selects)
    *(Identity(f"select{op}", "i64", ("ite", (op, "x", "y"), "x", "y"),
               ("min" if op in ("<", "<=") else "max", "x", "y"), "ifconvert")
      for op in ("<", "<=", ">", ">=")),
    *(Identity(f"select{op}-swapped", "i64", ("ite", (op, "x", "y"), "y", "x"),
               ("max" if op in ("<", "<=") else "min", "x", "y"), "ifconvert")
      for op in ("<", "<=", ">", ">=")),
    # if x > 0 then T = x else T = 0 - x is T = abs(x), as if-abs computes it (ifconvert's selects)
    *(Identity(f"select-abs{op}", "i64", ("ite", (op, "x", 0), "x", ("-", 0, "x")),
               ("max", "x", ("*", "x", -1)), "ifconvert") for op in (">", ">=")),
    # if c then T = 1 else T = 0 is T = c; 0 and 1 give T = 1 - c; any other arms a and b (that
    # cannot fault) T = b + c * (a - b), in wrapping arithmetic (ifconvert's selects)
    Identity("select-bool", "i64", ("ite", "c", 1, 0), ("bool", "c"), "ifconvert"),
    Identity("select-not", "i64", ("ite", "c", 0, 1), ("-", 1, ("bool", "c")), "ifconvert"),
    *(Identity(f"select-not{op}", "i64", ("ite", (op, "x", "y"), 0, 1), ("bool", (NEGATED[op], "x", "y")),
               "ifconvert") for op in NEGATED),
    Identity("select-arith", "i64", ("ite", "c", "a", "b"),
             ("+", "b", ("*", ("bool", "c"), ("-", "a", "b"))), "ifconvert"),
    # an arm taken only where n != 0 may divide by n + (n == 0) instead: that is n there (so the
    # arm computes what it did), and never 0, so both arms can be evaluated (`if Y[i] != 0 then
    # Z[i] = X[i] / Y[i] else Z[i] = 0`). (Stated on the divisor: z3 takes minutes on the
    # division itself over 64-bit vectors.)
    Identity("safe-divisor", "i64", ("ite", ("!=", "n", 0), ("+", "n", ("bool", ("==", "n", 0))), "n"),
             "n", "ifconvert"),
    Identity("safe-divisor-nonzero", "i64", ("bool", ("==", ("+", "n", ("bool", ("==", "n", 0))), 0)),
             0, "ifconvert"),
    # a condition's truth as a value without a branch (conditions.truth_bits): `and` is &, `or` is |,
    # `not` is ^ 1 or, for i64 operands, the negated relation
    Identity("and-bits", "i64", ("bool", ("and", "c", "d")), ("&", ("bool", "c"), ("bool", "d")),
             "ifconvert"),
    Identity("or-bits", "i64", ("bool", ("or", "c", "d")), ("|", ("bool", "c"), ("bool", "d")),
             "ifconvert"),
    Identity("not-bits", "i64", ("bool", ("not", "c")), ("^", ("bool", "c"), 1), "ifconvert"),
    *(Identity(f"not{op}", "i64", ("bool", ("not", (op, "x", "y"))), ("bool", (NEGATED[op], "x", "y")),
               "ifconvert") for op in NEGATED),
    # if x < k then T = k else T = min(x, h) is T = max(min(x, h), k) when k <= h (the
    # condition is part of the identity: where k > h both sides are the right one); > and >=
    # with max(x, k) inside give min(max(x, k), h) (ifconvert's nested clamps)
    *(Identity(f"clamp-select{op}", "i64",
               ("ite", ("<=", "k", "h"), ("ite", (op, "x", "k"), "k", ("min", "x", "h")),
                ("max", ("min", "x", "h"), "k")),
               ("max", ("min", "x", "h"), "k"), "ifconvert") for op in ("<", "<=")),
    *(Identity(f"clamp-select{op}", "i64",
               ("ite", ("<=", "k", "h"), ("ite", (op, "x", "h"), "h", ("max", "x", "k")),
                ("min", ("max", "x", "k"), "h")),
               ("min", ("max", "x", "k"), "h"), "ifconvert") for op in (">", ">=")),
    # if x < k then x = k is x = max(x, k); > and >= give min (ifconvert's clamps)
    *(Identity(f"clamp{op}", "i64", ("ite", (op, "x", "k"), "k", "x"),
               ("max" if op in ("<", "<=") else "min", "x", "k"), "ifconvert")
      for op in ("<", "<=", ">", ">=")),
)


def identity(name: str) -> Identity:
    """The row of IDENTITIES a pass relies on (a KeyError names a rule missing from the table)."""
    for r in IDENTITIES:
        if r.name == name:
            return r
    raise KeyError(name)


#: Flags -Ofast (``-ffast-math``) grants.
FAST_MATH = frozenset(("nsz", "nnan", "ninf"))


def same_const(a: int | float, b: int | float, dtype: str) -> bool:
    """Whether a literal is the rule's constant (for f64, the same sign of zero too)."""
    if dtype == "i64":
        return isinstance(a, int) and a == b
    return float(a) == float(b) and str(float(a)).startswith("-") == str(float(b)).startswith("-")


def find(op: str, const: int | float, const_on_right: bool, dtype: str,
         allowed: frozenset[str]) -> Rule | None:
    """The rule that rewrites ``x OP const`` (or ``const OP x``) in type dtype, if one applies."""
    for r in RULES:
        if r.op != op or r.dtype != dtype or not set(r.flags) <= allowed:
            continue
        if r.side != "both" and (r.side == "right") != const_on_right:
            continue
        if same_const(const, r.const, dtype):
            return r
    return None
