"""Oracle numeric functions with NUMBER semantics, computed in ``decimal`` where rounding matters.

Floats enter through ``repr`` (so 2.675 is the decimal 2.675, as Oracle's NUMBER would hold it).
ROUND is half away from zero, MOD takes the sign of the dividend and MOD(x, 0) = x, REMAINDER
rounds the quotient half to even. Results are ``int`` when integral, else ``float``.
BINARY_DOUBLE rounding (half to even) is not modelled: the engine stores both as Python numbers.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_DOWN, ROUND_FLOOR, ROUND_HALF_UP, Context, Decimal, localcontext

from .errors import OracleFunctionError
from .values import Number, as_int, as_number, number_out, to_decimal

_PRECISION = 50


def _arg(value: object) -> Decimal | None:
    number = as_number(value)
    return None if number is None else to_decimal(number)


def _out_of_range(value: object) -> OracleFunctionError:
    return OracleFunctionError(1428, str(value))


_CONTEXT = Context(prec=_PRECISION)
_EXPONENTS = {places: Decimal(1).scaleb(-places) for places in range(-40, 41)}


def _quantize(value: Decimal, places: int, rounding: str) -> Decimal:
    exponent = _EXPONENTS.get(places) or Decimal(1).scaleb(-places)
    digits = abs(value.adjusted()) + abs(places) + 3
    context = _CONTEXT if digits <= _PRECISION else Context(prec=digits)
    return value.quantize(exponent, rounding=rounding, context=context)


def round_number(n: object, places: object = 0) -> Number | None:
    """ROUND(n[, integer]): half away from zero; negative places round left of the point."""
    if isinstance(n, int) and isinstance(places, int) and places >= 0:
        return number_out(n)  # integers are already rounded
    value = _arg(n)
    digits = as_int(places)
    if value is None or digits is None:
        return None
    return number_out(_quantize(value, digits, ROUND_HALF_UP))


def trunc_number(n: object, places: object = 0) -> Number | None:
    """TRUNC(n[, integer]): cut toward zero at the given decimal place."""
    value = _arg(n)
    digits = as_int(places)
    if value is None or digits is None:
        return None
    return number_out(_quantize(value, digits, ROUND_DOWN))


def mod(n2: object, n1: object) -> Number | None:
    """MOD(n2, n1): remainder with the sign of n2; MOD(n2, 0) = n2."""
    dividend = _arg(n2)
    divisor = _arg(n1)
    if dividend is None or divisor is None:
        return None
    if divisor == 0:
        return number_out(dividend)
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        return number_out(dividend % divisor)


def remainder(n2: object, n1: object) -> Number | None:
    """REMAINDER(n2, n1): n2 - n1*N with N the nearest integer to n2/n1 (ties to even)."""
    dividend = _arg(n2)
    divisor = _arg(n1)
    if dividend is None or divisor is None:
        return None
    if divisor == 0:
        raise OracleFunctionError(1476)
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        result = dividend.remainder_near(divisor)
    return number_out(abs(result) if result == 0 else result)


def ceil(n: object) -> Number | None:
    """CEIL: smallest integer >= n."""
    value = _arg(n)
    return None if value is None else number_out(_quantize(value, 0, ROUND_CEILING))


def floor(n: object) -> Number | None:
    """FLOOR: largest integer <= n."""
    value = _arg(n)
    return None if value is None else number_out(_quantize(value, 0, ROUND_FLOOR))


def abs_(n: object) -> Number | None:
    """ABS."""
    value = as_number(n)
    return None if value is None else number_out(abs(value))


def sign(n: object) -> int | None:
    """SIGN: -1, 0 or 1."""
    value = as_number(n)
    if value is None:
        return None
    return (value > 0) - (value < 0)


def power(n2: object, n1: object) -> Number | None:
    """POWER(n2, n1); a negative base needs an integer exponent (ORA-01428)."""
    base = _arg(n2)
    exponent = _arg(n1)
    if base is None or exponent is None:
        return None
    if base < 0 and exponent != exponent.to_integral_value():
        raise _out_of_range(n1)
    if base == 0 and exponent < 0:
        raise OracleFunctionError(1428, "0")
    if exponent == exponent.to_integral_value() and abs(exponent) <= 1000:
        with localcontext() as ctx:
            ctx.prec = _PRECISION
            try:
                return number_out(base ** int(exponent))
            except OverflowError as exc:  # pragma: no cover - decimal raises below instead
                raise OracleFunctionError(1426) from exc
    try:
        return number_out(math.pow(float(base), float(exponent)))
    except OverflowError as exc:
        raise OracleFunctionError(1426) from exc


def sqrt(n: object) -> Number | None:
    """SQRT; negative input raises ORA-01428."""
    value = _arg(n)
    if value is None:
        return None
    if value < 0:
        raise _out_of_range(n)
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        return number_out(value.sqrt())


def exp(n: object) -> Number | None:
    """EXP: e raised to n."""
    value = as_number(n)
    if value is None:
        return None
    try:
        return number_out(math.exp(value))
    except OverflowError as exc:
        raise OracleFunctionError(1426) from exc


def ln(n: object) -> Number | None:
    """LN: natural logarithm of a positive number."""
    value = _arg(n)
    if value is None:
        return None
    if value <= 0:
        raise _out_of_range(n)
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        return number_out(float(value.ln()))


def log(n2: object, n1: object) -> Number | None:
    """LOG(base, n): logarithm of n to the given base (base > 0, base != 1, n > 0)."""
    base = _arg(n2)
    value = _arg(n1)
    if base is None or value is None:
        return None
    if base <= 0 or base == 1:
        raise _out_of_range(n2)
    if value <= 0:
        raise _out_of_range(n1)
    with localcontext() as ctx:
        ctx.prec = _PRECISION
        return number_out(float(value.ln() / base.ln()))


def bitand(expr1: object, expr2: object) -> int | None:
    """BITAND on the integer parts of two numbers."""
    left = as_int(expr1)
    right = as_int(expr2)
    if left is None or right is None:
        return None
    return left & right
