"""Numeric functions, TO_NUMBER and TO_CHAR(number) against the Oracle docs' examples."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workshop.embedded import oracle_functions as F
from workshop.embedded.oracle_functions import OracleFunctionError

CASES = [
    (F.round_number, (15.193, 1), 15.2),
    (F.round_number, (15.193, -1), 20),
    (F.round_number, (15.193,), 15),
    (F.round_number, (1.5,), 2),
    (F.round_number, (2.5,), 3),  # half away from zero, not banker's rounding
    (F.round_number, (-2.5,), -3),
    (F.round_number, (2.675, 2), 2.68),  # NUMBER semantics: 2.675 is exact
    (F.round_number, (0,), 0),
    (F.round_number, (123456789, -3), 123457000),
    (F.trunc_number, (15.79, 1), 15.7),
    (F.trunc_number, (15.79, -1), 10),
    (F.trunc_number, (-15.79,), -15),
    (F.mod, (11, 4), 3),
    (F.mod, (-11, 4), -3),
    (F.mod, (11, -4), 3),
    (F.mod, (-11, -4), -3),
    (F.mod, (11, 0), 11),
    (F.mod, (11.6, 2.1), 1.1),
    (F.mod, (15, 4), 3),
    (F.remainder, (11, 4), -1),
    (F.remainder, (-11, 4), 1),
    (F.remainder, (1.5, 1), -0.5),
    (F.remainder, (3.5, 2), -0.5),
    (F.remainder, (2.5, 1), 0.5),  # the quotient 2.5 rounds to the even 2
    (F.remainder, (4, 2), 0),
    (F.ceil, (15.7,), 16),
    (F.ceil, (-15.7,), -15),
    (F.floor, (15.7,), 15),
    (F.floor, (-15.7,), -16),
    (F.abs_, (-15,), 15),
    (F.sign, (-15,), -1),
    (F.sign, (0,), 0),
    (F.sign, (2.5,), 1),
    (F.power, (3, 2), 9),
    (F.power, (2, -1), 0.5),
    (F.power, (-2, 3), -8),
    (F.power, (4, 0.5), 2),
    (F.log, (10, 100), 2),
    (F.log, (10, 1000), 3),
    (F.log, (2, 8), 3),
    (F.bitand, (6, 3), 2),
]


@pytest.mark.parametrize(("fn", "args", "expected"), CASES, ids=lambda v: getattr(v, "__name__", None))
def test_documented_results(fn, args, expected):
    result = fn(*args)
    assert result == expected
    assert type(result) is type(expected)  # integral results come back as int


@pytest.mark.parametrize(
    ("fn", "args", "expected"),
    [
        (F.sqrt, (26,), 5.09901951),
        (F.exp, (4,), 54.59815),
        (F.ln, (95,), 4.55387689),
        (F.log, (10, 20), 1.30103),
    ],
)
def test_documented_results_approximately(fn, args, expected):
    assert fn(*args) == pytest.approx(expected, rel=1e-8)


@pytest.mark.parametrize(
    "fn",
    [F.round_number, F.trunc_number, F.ceil, F.floor, F.abs_, F.sign, F.sqrt, F.exp, F.ln],
)
def test_null_propagates_unary(fn):
    assert fn(None) is None
    assert fn("") is None


@pytest.mark.parametrize("fn", [F.mod, F.remainder, F.power, F.log, F.round_number, F.trunc_number])
def test_null_propagates_binary(fn):
    assert fn(None, 2) is None
    assert fn(2, None) is None


@pytest.mark.parametrize(
    ("call", "code"),
    [
        (lambda: F.sqrt(-1), 1428),
        (lambda: F.ln(0), 1428),
        (lambda: F.log(1, 5), 1428),
        (lambda: F.log(10, -5), 1428),
        (lambda: F.power(-8, 1 / 3), 1428),
        (lambda: F.remainder(5, 0), 1476),
        (lambda: F.power(10, 400), 1426),
        (lambda: F.round_number("abc"), 1722),
        (lambda: F.to_number("abc"), 1722),
        (lambda: F.to_number("1,000"), 1722),
        (lambda: F.to_number("12.345", "99.99"), 1722),
        (lambda: F.to_number("123", "$999"), 1722),
        (lambda: F.to_number("1.2.3"), 1722),
        (lambda: F.to_char_number(1, "99X9"), 1481),
    ],
)
def test_errors_carry_oracle_codes(call, code):
    with pytest.raises(OracleFunctionError) as info:
        call()
    assert info.value.code == code


def test_implicit_conversion_of_numeric_text():
    assert F.mod("11", "4") == 3
    assert F.round_number(" 1.25 ", "1") == 1.3


# --- TO_NUMBER -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("100.00", "9G999D99"), 100),
        (("$1,234.50", "$9,999.99"), 1234.5),
        (("1,234", "9G999"), 1234),
        (("1234", "9G999"), 1234),
        (("-12.5", "99.99"), -12.5),
        (("12.5-", "99.9MI"), -12.5),
        (("<12>", "99PR"), -12),
        (("+12", "S99"), 12),
        (("FF", "XX"), 255),
        (("ff", "xx"), 255),
        (("12300", "999V99"), 123),
        (("1.5E3", "9.9EEEE"), 1500),
        ((" 12 ",), 12),
        (("-.5",), -0.5),
        (("1e3",), 1000),
        ((5,), 5),
        (("",), None),
        ((None, "99"), None),
        (("12", None), None),
    ],
)
def test_to_number(args, expected):
    result = F.to_number(*args)
    assert result == expected
    assert type(result) is type(expected)


# --- TO_CHAR(number) -------------------------------------------------------------------------

# The "Results of Number Conversions" table of the Format Models chapter.
DOC_TABLE = [
    (-1234567890, "9999999999S", "1234567890-"),
    (0, "99.99", "   .00"),
    (0.1, "99.99", "   .10"),
    (-0.2, "99.99", "  -.20"),
    (0, "90.99", "  0.00"),
    (0.1, "90.99", "  0.10"),
    (-0.2, "90.99", " -0.20"),
    (0, "9999", "    0"),
    (1, "9999", "    1"),
    (0, "B9999", "     "),
    (1, "B9999", "    1"),
    (0, "B90.99", "      "),
    (123.456, "999.999", " 123.456"),
    (-123.456, "999.999", "-123.456"),
    (123.456, "FM999.009", "123.456"),
    (123.456, "9.9EEEE", "  1.2E+02"),
    (1e123, "9.9EEEE", " 1.0E+123"),
    (123.456, "FM9.9EEEE", "1.2E+02"),
    (123.45, "FM999.009", "123.45"),
    (123.0, "FM999.009", "123.00"),
    (123.45, "FML999.99", "$123.45"),
    (1234567890, "9999999999S", "1234567890+"),
]

MORE = [
    (1234.5, "999,999.99", "   1,234.50"),
    (1234.5, "9G999D99", " 1,234.50"),
    (1234.5, "FM9990.00", "1234.50"),
    (0.5, "FM9990.00", "0.50"),
    (7, "0000", " 0007"),
    (-7, "0000", "-0007"),
    (12345, "999", "####"),
    (123, "FM999.99", "123."),
    (-5, "$9999", "   -$5"),
    (123.45, "0009.9", " 0123.5"),
    (0.75, "999.99", "    .75"),
    (0.75, "990.99", "   0.75"),
    (-12345, "999999PR", " <12345>"),
    (12345, "999999PR", "  12345 "),
    (-12345, "999999MI", " 12345-"),
    (12345, "FM999999MI", "12345"),
    (123.45, "S9999.99", " +123.45"),
    (123, "99999V99", "   12300"),
    (255, "XX", " FF"),
    (255, "0XXX", " 00FF"),
    (255, "FMxxxx", "ff"),
    (1999, "RN", "        MCMXCIX"),
    (1999, "FMrn", "mcmxcix"),
    (2.5, "9", " 3"),
    (0.5, "TM9", ".5"),
]


@pytest.mark.parametrize(("value", "fmt", "expected"), DOC_TABLE + MORE)
def test_to_char_number_formats(value, fmt, expected):
    assert F.to_char_number(value, fmt) == expected
    assert F.to_char(value, fmt) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0.5, ".5"),
        (-0.5, "-.5"),
        (1.0, "1"),
        (10, "10"),
        (0, "0"),
        (123.456, "123.456"),
        (1e-5, ".00001"),
        (1e20, "100000000000000000000"),
        (1.5e-45, "1.5E-45"),
        (2**70, "1180591620717411303424"),
    ],
)
def test_to_char_number_without_format(value, expected):
    assert F.to_char(value) == expected


def test_to_char_number_null_format_is_null():
    assert F.to_char(5, None) is None
    assert F.to_char(None, "999") is None


# --- properties ------------------------------------------------------------------------------


@given(st.decimals(min_value=-10**9, max_value=10**9, places=4, allow_nan=False), st.integers(min_value=-3, max_value=3))
def test_round_is_half_away_from_zero(value, places):
    expected = value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    assert Decimal(repr(F.round_number(float(value), places))) == expected


@given(st.one_of(st.integers(min_value=-(2**62), max_value=2**62), st.floats(allow_nan=False, allow_infinity=False)))
def test_to_char_to_number_round_trip(value):
    back = F.to_number(F.to_char(value))
    if isinstance(value, float):
        assert float(back) == value  # the text keeps the shortest repr, which reads back exactly
    else:
        assert back == value


@given(st.integers(min_value=-10**6, max_value=10**6), st.integers(min_value=-1000, max_value=1000))
def test_mod_has_sign_of_dividend(m, n):
    result = F.mod(m, n)
    if n == 0:
        assert result == m
    else:
        assert result == math.copysign(abs(m) % abs(n), m) or result == 0
