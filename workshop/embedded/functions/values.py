"""Implicit conversions between the engine's stored values, following Oracle's rules.

Stored values: NULL is ``None`` (and ``''`` is NULL too), strings are ``str``, NUMBER is
``int``/``float``, RAW is ``bytes``, datetimes are ISO text (see ``datetimes``).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from decimal import Decimal, InvalidOperation

from .errors import OracleFunctionError

Number = int | float

# Default of optional arguments, so that an explicit SQL NULL argument (None) stays distinct.
MISSING: object = type("Missing", (), {"__repr__": lambda self: "MISSING"})()

_INT64 = 2**63
# Oracle's numeric literal as TO_NUMBER accepts it without a format model.
_NUMBER_TEXT = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*\Z")
# Oracle renders a NUMBER in at most 40 characters before switching to scientific notation.
_MAX_PLAIN_WIDTH = 40


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


def number_to_text(value: Number) -> str:
    """TO_CHAR(n) without a format: shortest text, no leading zero (0.5 -> '.5', 1.0 -> '1')."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "Nan"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    dec = Decimal(repr(value))
    if dec == 0:
        return "0"
    plain = format(dec, "f")
    if "." in plain:
        plain = plain.rstrip("0").rstrip(".")
    if plain.startswith("0."):
        plain = plain[1:]
    elif plain.startswith("-0."):
        plain = "-" + plain[2:]
    if len(plain) <= _MAX_PLAIN_WIDTH:
        return plain
    return _scientific(dec)


def _scientific(dec: Decimal) -> str:
    sign, digits, exponent = dec.normalize().as_tuple()
    mantissa = "".join(map(str, digits))
    power = exponent + len(mantissa) - 1
    body = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    return f"{'-' if sign else ''}{body}E{'+' if power >= 0 else '-'}{abs(power):02d}"


def local_tz() -> _dt.tzinfo:
    """The session time zone: the machine's current UTC offset."""
    tz = _dt.datetime.now().astimezone().tzinfo
    assert tz is not None
    return tz


def to_date_text(dt: _dt.datetime | _dt.date) -> str:
    """DATE storage form 'YYYY-MM-DD HH:MM:SS' (time zone and fraction dropped)."""
    if not isinstance(dt, _dt.datetime):
        return f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d} 00:00:00"
    return f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d} {dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}"


def to_timestamp_text(dt: _dt.datetime, tz: bool = False) -> str:
    """TIMESTAMP form, or with ``tz`` the TIMESTAMP WITH TIME ZONE form (naive = session zone)."""
    text = to_date_text(dt) + f".{dt.microsecond:06d}"
    if not tz:
        return text
    aware = dt if dt.tzinfo else dt.replace(tzinfo=local_tz())
    offset = aware.utcoffset() or _dt.timedelta(0)
    minutes = int(offset.total_seconds()) // 60
    sign = "-" if minutes < 0 else "+"
    return text + f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def datetime_to_text(dt: _dt.datetime) -> str:
    """Storage form chosen by the datetime itself (aware: with time zone)."""
    return to_timestamp_text(dt, tz=dt.tzinfo is not None)


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
        return datetime_to_text(value)
    if isinstance(value, _dt.date):
        return to_date_text(value)
    raise OracleFunctionError(1722, f"cannot convert {type(value).__name__} to VARCHAR2")


def text_out(value: str | None) -> str | None:
    """Oracle has no empty string: an empty result is NULL."""
    return value if value else None
