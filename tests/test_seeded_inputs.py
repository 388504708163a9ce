"""interpreter/inputs.py: seeded inputs are exactly what the documented randint calls give."""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from inca.interpreter.inputs import _taker, _uniform, seeded_values
from inca.lang.program import Decl


def by_randint(name: str, dtype: str, size: int, seed: int) -> list:
    rng = random.Random(f"{seed}:{name}")
    if dtype == "i64":
        return [rng.randint(-100, 100) for _ in range(size)]
    return [rng.randint(-512, 511) / 64 for _ in range(size)]


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["A", "B", "x", "weights"]), dtype=st.sampled_from(["i64", "f64"]),
       size=st.integers(0, 3000), seed=st.integers(-10, 10**6))
def test_seeded_values_are_the_randint_draws(name, dtype, size, seed):
    decl = Decl(name, "input", dtype, (size,) if size != 1 else ())
    got = seeded_values(decl, seed)
    assert got == by_randint(name, dtype, size, seed)
    assert all(type(v) is (int if dtype == "i64" else float) for v in got)


def test_draws_that_one_block_does_not_cover_come_from_the_next():
    class Counting(random.Random):
        calls = 0

        def getrandbits(self, k):
            Counting.calls += 1
            return super().getrandbits(k)

    values = [r / 64 for r in range(-512, 512)]  # half of the 11-bit draws are kept
    blocks = []
    for seed in range(8):
        Counting.calls = 0
        got = _uniform(Counting(f"{seed}:A"), 5000, _taker(values))
        blocks.append(Counting.calls)
        assert got == by_randint("A", "f64", 5000, seed)
    assert min(blocks) == 1 and max(blocks) > 1


@settings(max_examples=80, deadline=None)
@given(n=st.one_of(st.integers(1, 300), st.integers(300, 70_000), st.sampled_from([256, 1024, 4096, 32768, 65280])),
       count=st.integers(0, 700), seed=st.integers(0, 10**6))
def test_any_number_of_values_is_drawn_as_choice_draws(n, count, seed):
    # the byte and half-word tables serve the seeded inputs' 201 and 1,024 values and any number
    # whose draws the high byte keeps or refuses (up to 16 bits a draw: 65,280 values); every
    # other number of values takes the words one by one
    values = list(range(n))
    rng = random.Random(seed)
    assert _uniform(random.Random(seed), count, _taker(values)) == [rng.choice(values) for _ in range(count)]


def test_the_tables_made_once_serve_every_input_of_their_type():
    # seeded_values keeps one taker per type: a second input of a type draws its own values
    a = seeded_values(Decl("A", "input", "f64", (300,)), 5)
    b = seeded_values(Decl("B", "input", "f64", (300,)), 5)
    assert a == by_randint("A", "f64", 300, 5) and b == by_randint("B", "f64", 300, 5) and a != b
    assert seeded_values(Decl("A", "input", "f64", (300,)), 5) == a
