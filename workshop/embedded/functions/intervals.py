"""INTERVAL values as text, and datetime/interval arithmetic.

Encodings (Oracle's own TO_CHAR forms with 6 fractional digits; fixed width, so positive values
of one kind sort as text):
- INTERVAL DAY TO SECOND: '+DDDDDDDDD HH:MM:SS.ffffff', e.g. '+000000001 02:03:04.000000'
- INTERVAL YEAR TO MONTH: '+YYYYYYYYY-MM', e.g. '+000000001-02'
``parse_interval`` also reads the short forms ('+1 02:03:04', '-1-2', '1 2:3:4.5').
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from .datetimes import datetime_value, local_tz, render
from .errors import OracleFunctionError
from .values import as_number, as_text, to_decimal

DS = "DAY TO SECOND"
YM = "YEAR TO MONTH"
_MICROS = {"DAY": 86_400_000_000, "HOUR": 3_600_000_000, "MINUTE": 60_000_000, "SECOND": 1_000_000}
_DS_TEXT = re.compile(r"\s*([+-])?(\d+) (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.(\d{0,9}))?\s*\Z")
_YM_TEXT = re.compile(r"\s*([+-])?(\d+)-(\d{1,2})\s*\Z")


@dataclass(frozen=True)
class Interval:
    """An interval: ``kind`` DS (``amount`` in microseconds) or YM (``amount`` in months)."""

    kind: str
    amount: int

    def text(self) -> str:
        """The storage text of this interval."""
        sign = "-" if self.amount < 0 else "+"
        size = abs(self.amount)
        if self.kind == YM:
            return f"{sign}{size // 12:09d}-{size % 12:02d}"
        seconds, micros = divmod(size, 1_000_000)
        days, seconds = divmod(seconds, 86_400)
        hours, seconds = divmod(seconds, 3600)
        minutes, seconds = divmod(seconds, 60)
        return f"{sign}{days:09d} {hours:02d}:{minutes:02d}:{seconds:02d}.{micros:06d}"


def is_interval_text(value: object) -> bool:
    """True for interval storage text (it starts with a sign, which datetimes never do)."""
    return (
        isinstance(value, str)
        and value[:1] in ("+", "-")
        and (_DS_TEXT.match(value) is not None or _YM_TEXT.match(value) is not None)
    )


def parse_interval(text: str) -> Interval:
    """Read interval text (canonical or short form); ORA-01867 otherwise."""
    match = _DS_TEXT.match(text)
    if match:
        sign, days, hours, minutes, seconds, frac = match.groups()
        _check_fields(int(hours), int(minutes), int(seconds))
        micros = int((frac or "").ljust(6, "0")[:6])
        total = ((int(days) * 24 + int(hours)) * 60 + int(minutes)) * 60 + int(seconds)
        amount = total * 1_000_000 + micros
        return Interval(DS, -amount if sign == "-" else amount)
    match = _YM_TEXT.match(text)
    if match:
        sign, years, months = match.groups()
        if int(months) > 11:
            raise OracleFunctionError(1843)
        amount = int(years) * 12 + int(months)
        return Interval(YM, -amount if sign == "-" else amount)
    raise OracleFunctionError(1867, repr(text))


def _check_fields(hours: int | None = None, minutes: int | None = None, seconds: float | None = None) -> None:
    if hours is not None and hours > 23:
        raise OracleFunctionError(1850)
    if minutes is not None and minutes > 59:
        raise OracleFunctionError(1851)
    if seconds is not None and seconds >= 60:
        raise OracleFunctionError(1852)


def _interval_arg(value: object) -> Interval | None:
    if value is None or value == "":
        return None
    if isinstance(value, Interval):
        return value
    if isinstance(value, _dt.timedelta):
        return Interval(DS, (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds)
    if isinstance(value, str):
        return parse_interval(value)
    raise OracleFunctionError(30081, f"{type(value).__name__} is not an interval")


def numtodsinterval(n: object, unit: object) -> str | None:
    """NUMTODSINTERVAL(n, 'DAY'|'HOUR'|'MINUTE'|'SECOND')."""
    number = as_number(n)
    name = as_text(unit)
    if number is None or name is None:
        return None
    key = name.strip().upper()
    if key not in _MICROS:
        raise OracleFunctionError(1760, f"NUMTODSINTERVAL unit {name!r}")
    micros = (to_decimal(number) * _MICROS[key]).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return Interval(DS, int(micros)).text()


def numtoyminterval(n: object, unit: object) -> str | None:
    """NUMTOYMINTERVAL(n, 'YEAR'|'MONTH'); fractions are rounded to whole months."""
    number = as_number(n)
    name = as_text(unit)
    if number is None or name is None:
        return None
    key = name.strip().upper()
    if key not in ("YEAR", "MONTH"):
        raise OracleFunctionError(1760, f"NUMTOYMINTERVAL unit {name!r}")
    months = to_decimal(number) * (12 if key == "YEAR" else 1)
    return Interval(YM, int(months.quantize(Decimal(1), rounding=ROUND_HALF_UP))).text()


_FIELDS = ("DAY", "HOUR", "MINUTE", "SECOND")
_QUALIFIER = re.compile(
    r"\s*(YEAR|MONTH|DAY|HOUR|MINUTE|SECOND)\s*(?:\(\s*(\d+)\s*(?:,\s*\d+\s*)?\))?"
    r"(?:\s+TO\s+(MONTH|HOUR|MINUTE|SECOND)\s*(?:\(\s*\d+\s*\))?)?\s*\Z",
    re.IGNORECASE,
)


def interval_literal(text: object, qualifier: object) -> str | None:
    """INTERVAL 'text' qualifier, e.g. ('1-2', 'YEAR TO MONTH'), ('1 02:03:04', 'DAY TO SECOND')."""
    body = as_text(text)
    spec = as_text(qualifier)
    if body is None or spec is None:
        return None
    match = _QUALIFIER.match(spec)
    if not match:
        raise OracleFunctionError(1867, f"qualifier {spec!r}")
    lead, precision, last = match.group(1).upper(), int(match.group(2) or 2), (match.group(3) or "").upper()
    last = last or lead
    value = body.strip()
    negative = value.startswith("-")
    if value[:1] in "+-":
        value = value[1:]
    if lead in ("YEAR", "MONTH"):
        if lead == "MONTH" and last != "MONTH":
            raise OracleFunctionError(1867, f"qualifier {spec!r}")
        parts = re.fullmatch(r"(\d+)-(\d+)", value) if last == "MONTH" and lead == "YEAR" else re.fullmatch(r"(\d+)", value)
        if not parts:
            raise OracleFunctionError(1867, repr(body))
        if len(parts.group(1)) > precision:
            raise OracleFunctionError(1873)
        if lead == "YEAR" and last == "MONTH":
            if int(parts.group(2)) > 11:
                raise OracleFunctionError(1843)
            months = int(parts.group(1)) * 12 + int(parts.group(2))
        else:
            months = int(parts.group(1)) * (12 if lead == "YEAR" else 1)
        return Interval(YM, -months if negative else months).text()
    if last not in _FIELDS or _FIELDS.index(last) < _FIELDS.index(lead):
        raise OracleFunctionError(1867, f"qualifier {spec!r}")
    fields = _FIELDS[_FIELDS.index(lead) : _FIELDS.index(last) + 1]
    pattern = ""
    for index, field in enumerate(fields):
        if index:
            pattern += " " if fields[index - 1] == "DAY" else ":"
        pattern += r"(\d+(?:\.\d*)?)" if field == "SECOND" else r"(\d+)"
    parts = re.fullmatch(pattern, value)
    if not parts:
        raise OracleFunctionError(1867, repr(body))
    numbers = [Decimal(p) for p in parts.groups()]
    if len(parts.group(1).partition(".")[0]) > precision:
        raise OracleFunctionError(1873)
    limits = {"HOUR": (24, 1850), "MINUTE": (60, 1851), "SECOND": (60, 1852)}
    for field, number in zip(fields[1:], numbers[1:]):
        bound, code = limits[field]
        if number >= bound:
            raise OracleFunctionError(code)
    micros = sum(number * _MICROS[field] for field, number in zip(fields, numbers))
    amount = int(Decimal(micros).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return Interval(DS, -amount if negative else amount).text()


def _to_interval(text: object, kind) -> str | None:
    """TO_DSINTERVAL / TO_YMINTERVAL: SQL-format text of the given kind (ISO 8601 durations are not supported)."""
    body = as_text(text)
    if body is None:
        return None
    value = parse_interval(body)
    if value.kind != kind:
        raise OracleFunctionError(1867, repr(body))
    return value.text()


def to_dsinterval(text: object) -> str | None:
    """TO_DSINTERVAL('D HH:MI:SS[.f]')."""
    return _to_interval(text, DS)


def to_yminterval(text: object) -> str | None:
    """TO_YMINTERVAL('Y-M')."""
    return _to_interval(text, YM)


def _add(dt: _dt.datetime, interval: Interval, sign: int) -> _dt.datetime:
    amount = interval.amount * sign
    try:
        if interval.kind == DS:
            return dt + _dt.timedelta(microseconds=amount)
        index = dt.year * 12 + dt.month - 1 + amount
        year, month = divmod(index, 12)
        if not 1 <= year <= 9999:
            raise OracleFunctionError(1841)
        if dt.day > calendar.monthrange(year, month + 1)[1]:
            raise OracleFunctionError(1839)
        return dt.replace(year=year, month=month + 1)
    except OverflowError as exc:
        raise OracleFunctionError(1841) from exc


def interval_add(ts: object, interval: object, sign: object = 1) -> str | None:
    """datetime + interval (sign 1) or - interval (sign -1), keeping the datetime's Oracle type.

    Year-month arithmetic does not clamp to the month end (ORA-01839, as in Oracle); a DATE
    result drops the fractional seconds.
    """
    parsed = datetime_value(ts)
    value = _interval_arg(interval)
    if parsed is None or value is None or sign is None:
        return None
    direction = -1 if as_number(sign) < 0 else 1  # type: ignore[operator]
    dt, kind = parsed
    return render(_add(dt, value, direction), kind)


def ts_add_interval(ts: object, interval: object) -> str | None:
    """datetime + interval."""
    return interval_add(ts, interval, 1)


def ts_diff(t1: object, t2: object) -> str | None:
    """TIMESTAMP - TIMESTAMP -> INTERVAL DAY TO SECOND (aware values compared as instants)."""
    first = datetime_value(t1)
    second = datetime_value(t2)
    if first is None or second is None:
        return None
    a, b = first[0], second[0]
    if a.tzinfo or b.tzinfo:
        zone = local_tz()
        a = a if a.tzinfo else a.replace(tzinfo=zone)
        b = b if b.tzinfo else b.replace(tzinfo=zone)
    delta = a - b
    return Interval(DS, (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds).text()


def interval_plus(a: object, b: object, sign: object = 1) -> str | None:
    """interval + interval (or - with sign -1); both must be of the same kind (ORA-30081)."""
    left = _interval_arg(a)
    right = _interval_arg(b)
    if left is None or right is None:
        return None
    if left.kind != right.kind:
        raise OracleFunctionError(30081)
    direction = -1 if (as_number(sign) or 1) < 0 else 1
    return Interval(left.kind, left.amount + direction * right.amount).text()


def interval_multiply(interval: object, n: object) -> str | None:
    """interval * n (use 1/n for division); rounded to the unit (microsecond or month)."""
    value = _interval_arg(interval)
    factor = as_number(n)
    if value is None or factor is None:
        return None
    scaled = (Decimal(value.amount) * to_decimal(factor)).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return Interval(value.kind, int(scaled)).text()


def interval_key(value: object) -> int | None:
    """An interval's amount (microseconds or months), the key it compares and sorts by: its storage text starts
    with a sign, so as text -1 day sorted after +1 day."""
    parsed = _interval_arg(value)
    return None if parsed is None else parsed.amount


def interval_compare(a: object, b: object) -> int | None:
    """-1, 0 or 1 comparing two intervals of the same kind (for ORDER BY / predicates)."""
    left = _interval_arg(a)
    right = _interval_arg(b)
    if left is None or right is None:
        return None
    if left.kind != right.kind:
        raise OracleFunctionError(30081)
    return (left.amount > right.amount) - (left.amount < right.amount)


__all__ = [
    "DS",
    "Interval",
    "YM",
    "interval_add",
    "interval_compare",
    "interval_literal",
    "interval_multiply",
    "interval_plus",
    "is_interval_text",
    "numtodsinterval",
    "numtoyminterval",
    "parse_interval",
    "to_dsinterval",
    "to_yminterval",
    "ts_add_interval",
    "ts_diff",
]
