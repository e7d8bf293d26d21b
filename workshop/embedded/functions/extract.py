"""EXTRACT(field FROM datetime | interval), with Oracle's per-type field rules.

DATE allows YEAR/MONTH/DAY only; TIMESTAMP adds HOUR/MINUTE/SECOND (SECOND keeps the fraction);
TIMESTAMP WITH TIME ZONE adds TIMEZONE_HOUR/MINUTE and returns the other fields in UTC, as Oracle
does. Intervals give their signed fields. Anything else raises ORA-30076.
"""

from __future__ import annotations

import datetime as _dt
from decimal import Decimal

from .datetimes import DATE, TIMESTAMP_TZ, datetime_value
from .errors import OracleFunctionError
from .intervals import DS, is_interval_text, parse_interval
from .values import Number, as_text, number_out

_DATE_FIELDS = ("YEAR", "MONTH", "DAY")
_TIME_FIELDS = ("HOUR", "MINUTE", "SECOND")
_ZONE_FIELDS = ("TIMEZONE_HOUR", "TIMEZONE_MINUTE", "TIMEZONE_REGION", "TIMEZONE_ABBR")


def _from_interval(field: str, text: str) -> Number:
    value = parse_interval(text)
    sign = -1 if value.amount < 0 else 1
    size = abs(value.amount)
    if value.kind == DS:
        seconds, micros = divmod(size, 1_000_000)
        parts = {
            "DAY": seconds // 86400,
            "HOUR": seconds % 86400 // 3600,
            "MINUTE": seconds % 3600 // 60,
        }
        if field == "SECOND":
            return number_out(sign * (Decimal(seconds % 60) + Decimal(micros) / 1_000_000))
        if field in parts:
            return sign * parts[field]
    else:
        parts = {"YEAR": size // 12, "MONTH": size % 12}
        if field in parts:
            return sign * parts[field]
    raise OracleFunctionError(30076, f"{field} from INTERVAL {value.kind}")


def extract_ex(field: object, value: object) -> Number | str | None:
    """EXTRACT(field FROM value) as a function."""
    name = (as_text(field) or "").strip().upper()
    if value is None or value == "":
        return None
    if is_interval_text(value):
        return _from_interval(name, value)  # type: ignore[arg-type]
    parsed = datetime_value(value)
    assert parsed is not None
    dt, kind = parsed
    allowed = _DATE_FIELDS if kind == DATE else _DATE_FIELDS + _TIME_FIELDS
    if kind == TIMESTAMP_TZ:
        allowed += _ZONE_FIELDS
    if name not in allowed:
        raise OracleFunctionError(30076, f"{name} from {kind}")
    if name in _ZONE_FIELDS:
        offset = dt.utcoffset() or _dt.timedelta(0)
        minutes = int(offset.total_seconds()) // 60 if offset >= _dt.timedelta(0) else -(
            int(-offset.total_seconds()) // 60
        )
        if name == "TIMEZONE_HOUR":
            return int(minutes / 60)
        if name == "TIMEZONE_MINUTE":
            return minutes - int(minutes / 60) * 60
        return "UNKNOWN" if name == "TIMEZONE_REGION" else "UNK"
    if kind == TIMESTAMP_TZ:
        dt = dt.astimezone(_dt.timezone.utc)
    if name == "SECOND":
        return number_out(Decimal(dt.second) + Decimal(dt.microsecond) / 1_000_000)
    return getattr(dt, name.lower())
