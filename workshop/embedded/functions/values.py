"""Oracle's implicit conversions inside SQL (text to NUMBER, any value to VARCHAR2, integer arguments),
following Oracle's rules.

Stored values: NULL is ``None`` (and ``''`` is NULL too), strings are ``str``, NUMBER is
``int``/``float``, RAW is ``bytes``, datetimes are ISO text (see ``datetimes``). Numbers and dates as
text, and Python <-> SQLite, live in ``workshop/embedded/values.py``, the one home of value conversion.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from decimal import Decimal, InvalidOperation

from ..values import date_text, datetime_text, number_to_text
from .errors import OracleFunctionError

Number = int | float

# Default of optional arguments, so that an explicit SQL NULL argument (None) stays distinct.
MISSING: object = type("Missing", (), {"__repr__": lambda self: "MISSING"})()

_INT64 = 2**63
# Oracle's numeric literal as TO_NUMBER accepts it without a format model.
_NUMBER_TEXT = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*\Z")


_NLS_OK = re.compile(
    r"\s*(NLS_DATE_LANGUAGE\s*=\s*'?(AMERICAN|ENGLISH)'?|NLS_NUMERIC_CHARACTERS\s*=\s*'?\.,'?)\s*\Z",
    re.IGNORECASE,
)


def check_nls(nlsparam: object) -> None:
    """Accept only the NLS settings the engine has (American, '.' and ','); ORA-03001 otherwise."""
    if nlsparam is None or nlsparam is MISSING or nlsparam == "":
        return
    if not isinstance(nlsparam, str) or not _NLS_OK.match(nlsparam):
        from .errors import unsupported

        raise unsupported(f"NLS parameter {nlsparam!r}")


def is_null(value: object) -> bool:
    """True for SQL NULL: ``None`` or the empty string (Oracle has no empty string)."""
    return value is None or value == ""


def number_out(value: Decimal | float | int) -> Number:
    """Normalise a numeric result for SQLite: an ``int`` when integral and in range, else ``float``."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value if -_INT64 <= value < _INT64 else float(value)
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise OracleFunctionError(1426)
        if value.is_integer() and abs(value) < _INT64:
            return int(value)
        return value
    if not value.is_finite():
        raise OracleFunctionError(1426)
    if value == value.to_integral_value() and abs(value) < _INT64:
        return int(value)
    result = float(value)
    if math.isinf(result):
        raise OracleFunctionError(1426)
    return result


def to_decimal(value: Number) -> Decimal:
    """Exact decimal of a stored number; floats go through ``repr`` so 2.675 stays 2.675."""
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise OracleFunctionError(1722)
        return Decimal(repr(value))
    return Decimal(value)


def parse_number_text(text: str) -> Number:
    """Parse text the way Oracle's implicit conversion to NUMBER does (ORA-01722 otherwise)."""
    if not _NUMBER_TEXT.match(text):
        raise OracleFunctionError(1722)
    try:
        return number_out(Decimal(text.strip()))
    except InvalidOperation as exc:  # pragma: no cover - the regex already guards this
        raise OracleFunctionError(1722) from exc


def as_number(value: object) -> Number | None:
    """Implicit conversion to NUMBER: numbers pass, numeric text is parsed, NULL stays NULL."""
    if value is None or value == "":
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        return parse_number_text(value)
    raise OracleFunctionError(1722, f"cannot convert {type(value).__name__} to NUMBER")


def as_int(value: object) -> int | None:
    """Implicit conversion to an integer argument: Oracle truncates fractional values."""
    number = as_number(value)
    if number is None:
        return None
    if isinstance(number, float):
        if math.isnan(number) or math.isinf(number):
            raise OracleFunctionError(1722)
        return int(number)
    return number


def as_text(value: object) -> str | None:
    """Implicit conversion to VARCHAR2 ('' and NULL give NULL; RAW gives upper-case hex)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return number_to_text(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex().upper() or None
    if isinstance(value, _dt.datetime):
        return datetime_text(value)
    if isinstance(value, _dt.date):
        return date_text(value)
    raise OracleFunctionError(1722, f"cannot convert {type(value).__name__} to VARCHAR2")


def text_out(value: str | None) -> str | None:
    """Oracle has no empty string: an empty result is NULL."""
    return value if value else None
