"""The bounded number parser (lang/numbers.py): quick on hostile text, worded errors, no silent inf."""
import time
from fractions import Fraction

import pytest

from inca.lang.numbers import NumberError, checked_float, parse_float, parse_fraction, parse_int


def test_parse_int_accepts_the_usual_forms():
    assert parse_int("42") == 42
    assert parse_int("-0x10") == -16
    assert parse_int(" 0b101 ") == 5
    assert parse_int("9223372036854775807") == 2**63 - 1


@pytest.mark.parametrize("text", ["1" * 5000, "0x" + "f" * 5000, "-" + "9" * 100])
def test_parse_int_refuses_huge_literals_quickly(text):
    start = time.perf_counter()
    with pytest.raises(NumberError, match="more than 64 digits"):
        parse_int(text)
    assert time.perf_counter() - start < 0.1


def test_leading_zeros_do_not_count_as_digits():
    assert parse_int("0" * 100 + "7") == 7


@pytest.mark.parametrize("text", ["", "abc", "1.5", "0x", "--1"])
def test_parse_int_refuses_non_integers(text):
    with pytest.raises(NumberError):
        parse_int(text)


def test_parse_float_refuses_overflow_instead_of_inf():
    assert parse_float("1.5e3") == 1500.0
    with pytest.raises(NumberError, match="too large for f64"):
        parse_float("1e999")
    with pytest.raises(NumberError, match="exponent"):
        parse_float("1e100000000")
    with pytest.raises(NumberError, match="not finite"):
        parse_float("inf")
    assert parse_float("-inf", allow_special=True) == float("-inf")
    assert parse_float("1e-400") == 0.0


def test_checked_float():
    assert checked_float(3) == 3.0
    with pytest.raises(NumberError, match="too large"):
        checked_float(10**400)


def test_parse_fraction_is_bounded():
    assert parse_fraction("102.4") == Fraction(512, 5)
    assert parse_fraction("1/3") == Fraction(1, 3)
    for text in ("1e100000000", "1e-500", "1e401"):
        start = time.perf_counter()
        with pytest.raises(NumberError):
            parse_fraction(text)
        assert time.perf_counter() - start < 0.1
    with pytest.raises(NumberError, match="zero"):
        parse_fraction("1/0")


def test_messages_quote_long_text_briefly():
    with pytest.raises(NumberError) as e:
        parse_int("x" * 1_000_000)
    assert len(str(e.value)) < 200
    with pytest.raises(NumberError) as e:
        parse_float("9" * 500 + "e999")
    assert len(str(e.value)) < 200
