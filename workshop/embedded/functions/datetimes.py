"""DATE / TIMESTAMP values as the engine stores them (ISO text) and the Oracle date functions.

Storage forms: DATE 'YYYY-MM-DD HH:MM:SS', TIMESTAMP 'YYYY-MM-DD HH:MM:SS.ffffff', TIMESTAMP WITH
TIME ZONE 'YYYY-MM-DD HH:MM:SS.ffffff+HH:MM'. The text form tells the functions which Oracle type
a value has (a date-only 'YYYY-MM-DD' reads as a DATE at midnight). ``datetime`` objects are
accepted too (naive: TIMESTAMP, aware: TIMESTAMP WITH TIME ZONE). The session time zone is the
machine's local zone; NLS_TERRITORY is AMERICA (weeks start on Sunday).
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from contextvars import ContextVar
from decimal import ROUND_HALF_UP, Decimal

from .errors import OracleFunctionError
from ..values import date_text, datetime_text, local_tz, timestamp_text  # noqa: F401 - re-exported
from .values import MISSING, Number, as_int, as_number, as_text, number_out, to_decimal

DATE = "DATE"
TIMESTAMP = "TIMESTAMP"
TIMESTAMP_TZ = "TIMESTAMP WITH TIME ZONE"

_TEXT = re.compile(
    r"\s*(\d{4})-(\d{1,2})-(\d{1,2})"
    r"(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{0,9}))?)?)?"
    r"\s*(Z|[+-]\d{1,2}:?\d{2})?\s*\Z"
)
_DAY = _dt.timedelta(days=1)
DAY_NAMES = ("MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY")


def _offset(text: str) -> _dt.timezone:
    if text == "Z":
        return _dt.timezone.utc
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:-2]), int(digits[-2:])
    if hours > 15:
        raise OracleFunctionError(1874)
    if minutes > 59:
        raise OracleFunctionError(1875)
    return _dt.timezone(sign * _dt.timedelta(hours=hours, minutes=minutes))


def build_datetime(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, micro: int = 0,
    tz: _dt.tzinfo | None = None,
) -> _dt.datetime:
    """A datetime with Oracle's error codes for each out-of-range field."""
    if not 1 <= year <= 9999:
        raise OracleFunctionError(1841)
    if not 1 <= month <= 12:
        raise OracleFunctionError(1843)
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        raise OracleFunctionError(1847)
    if not 0 <= hour <= 23:
        raise OracleFunctionError(1850)
    if not 0 <= minute <= 59:
        raise OracleFunctionError(1851)
    if not 0 <= second <= 59:
        raise OracleFunctionError(1852)
    return _dt.datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)


def _parse_text(text: str) -> tuple[_dt.datetime, str]:
    match = _TEXT.match(text)
    if not match:
        raise OracleFunctionError(1861, repr(text))
    year, month, day, hour, minute, second, frac, tz = match.groups()
    micro = int((frac or "").ljust(6, "0")[:6]) if frac else 0
    value = build_datetime(
        int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0), micro,
        _offset(tz) if tz else None,
    )
    return value, (TIMESTAMP_TZ if tz else TIMESTAMP if frac is not None else DATE)


def parse_datetime_text(text: str) -> _dt.datetime:
    """Parse the engine's datetime text (any of the three forms, also date-only or 'T')."""
    return _parse_text(text)[0]


def text_kind(text: str) -> str:
    """The Oracle type a datetime text stands for (DATE, TIMESTAMP or TIMESTAMP WITH TIME ZONE)."""
    return _parse_text(text)[1]


def is_datetime_text(value: object) -> bool:
    """True for text in one of the storage forms (used to tell dates from numbers and strings)."""
    return isinstance(value, str) and _TEXT.match(value) is not None


def datetime_value(value: object) -> tuple[_dt.datetime, str] | None:
    """(datetime, Oracle type) of a stored datetime value, None for NULL."""
    if value is None or value == "":
        return None
    if isinstance(value, _dt.datetime):
        return value, (TIMESTAMP_TZ if value.tzinfo else TIMESTAMP)
    if isinstance(value, _dt.date):
        return _dt.datetime(value.year, value.month, value.day), DATE
    if isinstance(value, str):
        return _parse_text(value)
    raise OracleFunctionError(1861, f"{type(value).__name__} is not a datetime")


def render(dt: _dt.datetime, kind: str) -> str:
    """Storage form of ``dt`` as the given Oracle type."""
    if kind == DATE:
        return date_text(dt)
    return timestamp_text(dt, with_tz=kind == TIMESTAMP_TZ, naive_zone=local_tz())


def _need(value: object) -> tuple[_dt.datetime, str] | None:
    return datetime_value(value)


def _checked(fn, *args):  # type: ignore[no-untyped-def]
    try:
        return fn(*args)
    except (OverflowError, ValueError) as exc:
        raise OracleFunctionError(1841) from exc


# --- current time -------------------------------------------------------------------------


def _precision(value: object) -> int:
    digits = 6 if value is None else as_int(value)
    if digits is None or not 0 <= digits <= 9:
        raise OracleFunctionError(1428, str(digits))
    return min(digits, 6)


def _cut(dt: _dt.datetime, digits: int) -> _dt.datetime:
    step = 10 ** (6 - digits)
    return dt.replace(microsecond=dt.microsecond - dt.microsecond % step)


#: The moment the current statement reads the clock, once per statement and thread: SYSDATE, SYSTIMESTAMP and the
#: other clock functions give every row and every call in one statement the same value, as Oracle does
#: (`SYSTIMESTAMP - (SYSTIMESTAMP - INTERVAL '10' DAY)` is exactly 10 days). The engine clears it per statement.
_STATEMENT_CLOCK: ContextVar[_dt.datetime | None] = ContextVar("statement_clock", default=None)


def new_statement_clock() -> None:
    """A new statement reads the clock afresh."""
    _STATEMENT_CLOCK.set(None)


def _now() -> _dt.datetime:
    """The statement's moment in the local zone, with its offset (read on first use)."""
    moment = _STATEMENT_CLOCK.get()
    if moment is None:
        moment = _dt.datetime.now().astimezone()
        _STATEMENT_CLOCK.set(moment)
    return moment


def sysdate() -> str:
    """SYSDATE: the local date and time as a DATE."""
    return date_text(_now().replace(tzinfo=None))


def current_date() -> str:
    """CURRENT_DATE: the session-time-zone date and time (the local zone) as a DATE."""
    return date_text(_now().replace(tzinfo=None))


def systimestamp(precision: object = None) -> str:
    """SYSTIMESTAMP[(p)]: local time with its UTC offset, p fractional digits (6 by default)."""
    return timestamp_text(_cut(_now(), _precision(precision)), with_tz=True)


def sys_extract_utc(value: object) -> str | None:
    """SYS_EXTRACT_UTC(datetime_with_timezone): the UTC time of the value as a TIMESTAMP (SQL Language Reference,
    SYS_EXTRACT_UTC; a value without a zone is taken in the session time zone). Comparing two such values never
    involves a session time zone, which comparing a TIMESTAMP with SYSTIMESTAMP does."""
    parsed = datetime_value(value)
    if parsed is None:
        return None
    moment = parsed[0] if parsed[0].tzinfo else parsed[0].replace(tzinfo=local_tz())
    return timestamp_text(moment.astimezone(_dt.timezone.utc).replace(tzinfo=None))


def current_timestamp(precision: object = None) -> str:
    """CURRENT_TIMESTAMP[(p)]: TIMESTAMP WITH TIME ZONE in the session zone."""
    return timestamp_text(_cut(_now(), _precision(precision)), with_tz=True)


def localtimestamp(precision: object = None) -> str:
    """LOCALTIMESTAMP[(p)]: TIMESTAMP without time zone in the session zone."""
    return timestamp_text(_cut(_now().replace(tzinfo=None), _precision(precision)))


# --- arithmetic ---------------------------------------------------------------------------


def _naive(dt: _dt.datetime) -> _dt.datetime:
    return dt.replace(tzinfo=None)


def _instant(dt: _dt.datetime) -> _dt.datetime:
    """Aware datetime for comparisons (naive values are in the session zone)."""
    return dt if dt.tzinfo else dt.replace(tzinfo=local_tz())


def date_add_days(d: object, n: object) -> str | None:
    """DATE + n (days, fractional allowed) -> DATE, to the nearest second; TIMESTAMP + n -> DATE too."""
    parsed = _need(d)
    days = as_number(n)
    if parsed is None or days is None:
        return None
    base = _naive(parsed[0]).replace(microsecond=0)
    seconds = int((to_decimal(days) * 86400).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return date_text(_checked(lambda: base + _dt.timedelta(seconds=seconds)))


def date_diff_days(d1: object, d2: object) -> Number | None:
    """DATE - DATE: the difference in days (fractional)."""
    first = _need(d1)
    second = _need(d2)
    if first is None or second is None:
        return None
    a, b = first[0], second[0]
    if a.tzinfo or b.tzinfo:
        a, b = _instant(a), _instant(b)
    delta = a - b
    micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    return number_out(Decimal(micros) / Decimal(86_400_000_000))


def add_months(d: object, n: object) -> str | None:
    """ADD_MONTHS: a last day of month (or a day past the target month's end) maps to the last day."""
    parsed = _need(d)
    months = as_int(n)
    if parsed is None or months is None:
        return None
    dt = parsed[0]
    index = dt.year * 12 + dt.month - 1 + months
    year, month = divmod(index, 12)
    month += 1
    if not 1 <= year <= 9999:
        raise OracleFunctionError(1841)
    last = calendar.monthrange(year, month)[1]
    is_last = dt.day == calendar.monthrange(dt.year, dt.month)[1]
    day = last if is_last or dt.day > last else dt.day
    return date_text(dt.replace(year=year, month=month, day=day))


def last_day(d: object) -> str | None:
    """LAST_DAY: the last day of the month, time kept."""
    parsed = _need(d)
    if parsed is None:
        return None
    dt = parsed[0]
    return date_text(dt.replace(day=calendar.monthrange(dt.year, dt.month)[1]))


def day_index(name: str) -> int:
    """Monday=0 index of an English day name or its 3-letter abbreviation (ORA-01846 otherwise)."""
    key = name.strip().upper()
    for index, full in enumerate(DAY_NAMES):
        if key == full or key == full[:3]:
            return index
    raise OracleFunctionError(1846)


def next_day(d: object, char: object) -> str | None:
    """NEXT_DAY(date, 'TUESDAY'): the first later date on that weekday, time kept."""
    parsed = _need(d)
    name = as_text(char)
    if parsed is None or name is None:
        return None
    target = day_index(name)
    dt = parsed[0]
    ahead = (target - dt.weekday()) % 7 or 7
    return date_text(_checked(lambda: dt + _dt.timedelta(days=ahead)))


def months_between(d1: object, d2: object) -> Number | None:
    """MONTHS_BETWEEN: integer for equal days or two month ends, else fraction of a 31-day month."""
    first = _need(d1)
    second = _need(d2)
    if first is None or second is None:
        return None
    a, b = _naive(first[0]), _naive(second[0])
    months = (a.year - b.year) * 12 + (a.month - b.month)
    a_last = a.day == calendar.monthrange(a.year, a.month)[1]
    b_last = b.day == calendar.monthrange(b.year, b.month)[1]
    if a.day == b.day or (a_last and b_last):
        return months
    seconds_a = a.hour * 3600 + a.minute * 60 + a.second + Decimal(a.microsecond) / 1_000_000
    seconds_b = b.hour * 3600 + b.minute * 60 + b.second + Decimal(b.microsecond) / 1_000_000
    days = Decimal(a.day - b.day) + (seconds_a - seconds_b) / 86400
    return number_out(Decimal(months) + days / 31)


# --- TRUNC / ROUND on dates ------------------------------------------------------------------

_UNITS = {
    "CC": "CC", "SCC": "CC",
    "SYYYY": "YEAR", "YYYY": "YEAR", "YEAR": "YEAR", "SYEAR": "YEAR", "YYY": "YEAR", "YY": "YEAR", "Y": "YEAR",
    "IYYY": "IYEAR", "IYY": "IYEAR", "IY": "IYEAR", "I": "IYEAR",
    "Q": "Q",
    "MONTH": "MONTH", "MON": "MONTH", "MM": "MONTH", "RM": "MONTH",
    "WW": "WW", "IW": "IW", "W": "W",
    "DDD": "DAY", "DD": "DAY", "J": "DAY",
    "DAY": "WEEK", "DY": "WEEK", "D": "WEEK",
    "HH": "HOUR", "HH12": "HOUR", "HH24": "HOUR",
    "MI": "MINUTE",
}  # fmt: skip


def _unit(fmt: object) -> str:
    text = "DD" if fmt is MISSING else as_text(fmt)
    key = (text or "").strip().upper()
    if key not in _UNITS:
        raise OracleFunctionError(1821, repr(text))
    return _UNITS[key]


def _truncate(dt: _dt.datetime, unit: str) -> _dt.datetime:
    day = dt.replace(hour=0, minute=0, second=0, microsecond=0)
    if unit == "CC":
        return _dt.datetime(max((dt.year - 1) // 100 * 100 + 1, 1), 1, 1)
    if unit == "YEAR":
        return day.replace(month=1, day=1)
    if unit == "IYEAR":
        return _dt.datetime.fromisocalendar(dt.isocalendar()[0], 1, 1)
    if unit == "Q":
        return day.replace(month=(dt.month - 1) // 3 * 3 + 1, day=1)
    if unit == "MONTH":
        return day.replace(day=1)
    if unit == "WW":
        return day - _dt.timedelta(days=(dt.timetuple().tm_yday - 1) % 7)
    if unit == "IW":
        return day - _dt.timedelta(days=dt.weekday())
    if unit == "W":
        return day - _dt.timedelta(days=(dt.day - 1) % 7)
    if unit == "WEEK":
        return day - _dt.timedelta(days=(dt.weekday() + 1) % 7)
    if unit == "DAY":
        return day
    if unit == "HOUR":
        return dt.replace(minute=0, second=0, microsecond=0)
    return dt.replace(second=0, microsecond=0)


def _next_start(start: _dt.datetime, unit: str) -> _dt.datetime:
    if unit == "CC":
        return start.replace(year=start.year + 100)
    if unit == "YEAR":
        return start.replace(year=start.year + 1)
    if unit == "IYEAR":
        return _dt.datetime.fromisocalendar(start.isocalendar()[0] + 1, 1, 1)
    if unit in ("Q", "MONTH"):
        step = 3 if unit == "Q" else 1
        index = start.year * 12 + start.month - 1 + step
        return start.replace(year=index // 12, month=index % 12 + 1)
    if unit == "W":
        following = start + _dt.timedelta(days=7)
        return following if following.month == start.month else following.replace(day=1)
    if unit in ("WW", "IW", "WEEK"):
        following = start + _dt.timedelta(days=7)
        if unit == "WW" and following.year != start.year:
            return following.replace(month=1, day=1)
        return following
    if unit == "DAY":
        return start + _DAY
    if unit == "HOUR":
        return start + _dt.timedelta(hours=1)
    return start + _dt.timedelta(minutes=1)


def trunc_date(d: object, fmt: object = MISSING) -> str | None:
    """TRUNC(date[, fmt]) -> DATE; default 'DD'; week starts are Sunday (D/DY/DAY), Monday (IW)."""
    parsed = _need(d)
    if parsed is None or (fmt is not MISSING and as_text(fmt) is None):
        return None
    return date_text(_truncate(_naive(parsed[0]), _unit(fmt)))


def round_date(d: object, fmt: object = MISSING) -> str | None:
    """ROUND(date[, fmt]) -> DATE: years round up on July 1, quarters on the 16th of the 2nd month,
    months on the 16th, days at noon, hours at :30, minutes at :30 s, weeks to the nearest start."""
    parsed = _need(d)
    if parsed is None or (fmt is not MISSING and as_text(fmt) is None):
        return None
    dt = _naive(parsed[0])
    unit = _unit(fmt)
    start = _truncate(dt, unit)
    if unit == "YEAR":
        up = dt.month >= 7
    elif unit == "CC":
        up = (dt.year - 1) % 100 >= 50
    elif unit == "Q":
        position = (dt.month - 1) % 3
        up = position == 2 or (position == 1 and dt.day >= 16)
    elif unit == "MONTH":
        up = dt.day >= 16
    else:
        following = _next_start(start, unit)
        up = dt - start >= (following - start) / 2
    result = _checked(_next_start, start, unit) if up else start
    return date_text(result)
