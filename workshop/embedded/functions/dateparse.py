"""Datetime input conversion: the parser behind TO_DATE, TO_TIMESTAMP and TO_TIMESTAMP_TZ.

Oracle's lenient default rules: any run of non-alphanumeric characters matches a punctuation
element, numeric fields may have fewer digits, MM/MON/MONTH and YY/YYYY (RR/RRRR) accept each
other's forms, and trailing time fields may be omitted. FX asks for exact matches. Missing
year/month default to the current ones, a missing day to 1 and a missing time to midnight.
Elements that only make sense for output (Q, WW, IW, W, IYYY, CC, ...) raise ORA-01820.
"""

from __future__ import annotations

import datetime as _dt
import re
from functools import lru_cache

from .datefmt import _NUMERIC, _TIME_ELEMENTS, _UNSUPPORTED, MONTHS, ROMAN_MONTHS, Token, tokenize
from .datetimes import DATE, TIMESTAMP_TZ, build_datetime, day_index, local_tz
from .errors import OracleFunctionError, unsupported


class _Reader:
    def __init__(self, text: str, fx: bool) -> None:
        self.text = text
        self.pos = 0
        self.fx = fx

    def done(self) -> bool:
        return self.pos >= len(self.text)

    def skip_spaces(self) -> None:
        while not self.fx and self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def digits(self, most: int, fixed: bool = False) -> int:
        self.skip_spaces()
        start = self.pos
        while self.pos < len(self.text) and self.pos - start < most and self.text[self.pos].isdigit():
            self.pos += 1
        if self.pos == start:
            raise OracleFunctionError(1858)
        if fixed and self.pos - start != most:
            raise OracleFunctionError(1862)
        return int(self.text[start : self.pos])

    def digit_run(self) -> int:
        end = self.pos
        while end < len(self.text) and self.text[end].isdigit():
            end += 1
        return end - self.pos

    def word(self) -> str:
        self.skip_spaces()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos].isalpha():
            self.pos += 1
        return self.text[start : self.pos]

    def take(self, options: tuple[str, ...]) -> str | None:
        self.skip_spaces()
        rest = self.text[self.pos :].upper()
        for option in options:
            if rest.startswith(option):
                self.pos += len(option)
                return option
        return None


def _match_month(word: str) -> int:
    key = word.upper()
    for index, name in enumerate(MONTHS):
        if key == name or key == name[:3]:
            return index + 1
    raise OracleFunctionError(1843)


def _year_from_two(two: int, rr: bool, today: _dt.date) -> int:
    century = today.year // 100 * 100
    if not rr:
        return century + two
    current = today.year % 100
    if two < 50:
        return century + two + (100 if current >= 50 else 0)
    return century + two - (100 if current < 50 else 0)


def _parse_tz_region(reader: _Reader) -> _dt.tzinfo:
    reader.skip_spaces()
    rest = reader.text[reader.pos :]
    match = re.match(r"([+-])(\d{1,2}):(\d{2})|UTC|GMT|Z", rest, re.IGNORECASE)
    if match:
        reader.pos += len(match.group(0))
        if not match.group(1):
            return _dt.timezone.utc
        delta = _dt.timedelta(hours=int(match.group(2)), minutes=int(match.group(3)))
        return _dt.timezone(-delta if match.group(1) == "-" else delta)
    name = re.match(r"[A-Za-z_]+(?:/[A-Za-z_+\-0-9]+)*", rest)
    if name:
        try:
            from zoneinfo import ZoneInfo

            zone = ZoneInfo(name.group(0))
        except Exception as exc:  # noqa: BLE001 - unknown region names and missing tzdata alike
            raise unsupported(f"time zone region {name.group(0)!r}") from exc
        reader.pos += len(name.group(0))
        return zone
    raise OracleFunctionError(1861)


def parse_datetime(text: str, fmt: str, kind: str, today: _dt.date | None = None) -> _dt.datetime:
    """Convert text to a datetime of the given Oracle type with a format model."""
    tokens = tokenize(fmt)
    _check_elements(tokens, kind)
    today = today or _dt.date.today()
    plan = _fast_plan(fmt)
    if plan is not None:
        match = plan[0].match(text)
        if match:
            return _assemble(_fast_fields(plan[1], match.groups()), kind, today)
    fx = any(t.kind == "fx" for t in tokens)
    reader = _Reader(text, fx)
    fields: dict[str, object] = {}

    def put(name: str, value: object) -> None:
        if name in fields:
            raise OracleFunctionError(1810)
        fields[name] = value

    for index, token in enumerate(tokens):
        if token.kind in ("fm", "fx"):
            continue
        if reader.done():
            _check_rest(tokens[index:])
            break
        if token.kind == "punct":
            _skip_punct(reader, token.name, tokens[index + 1 :])
            continue
        if token.kind == "text":
            reader.skip_spaces()
            if not reader.text[reader.pos :].upper().startswith(token.name.upper()):
                raise OracleFunctionError(1861)
            reader.pos += len(token.name)
            continue
        _parse_element(reader, token, tokens[index + 1 :], kind, today, put)
        if token.suffix:
            reader.take(("ST", "ND", "RD", "TH"))
    reader.skip_spaces()
    if not reader.done():
        raise OracleFunctionError(1830)
    return _assemble(fields, kind, today)


_FIELD_OF = {
    **dict.fromkeys(("YYYY", "RRRR", "SYYYY", "YYY", "YY", "RR", "Y", "Y,YYY"), "year"),
    **dict.fromkeys(("MM", "MON", "MONTH", "RM"), "month"),
    **dict.fromkeys(("HH", "HH12", "HH24"), "hour"),
    **dict.fromkeys(("AM", "PM", "A.M.", "P.M."), "meridian"),
    **dict.fromkeys(("AD", "BC", "A.D.", "B.C."), "era"),
    **dict.fromkeys(("DAY", "DY"), "weekday"),
}


def _check_elements(tokens: tuple[Token, ...], kind: str) -> None:
    """Each field once (ORA-01810); FF needs a TIMESTAMP, TZ fields a TIMESTAMP WITH TIME ZONE."""
    seen: set[str] = set()
    for token in tokens:
        if token.kind != "elem":
            continue
        field = _FIELD_OF.get(token.name, "FF" if token.name.startswith("FF") else token.name)
        if field in seen:
            raise OracleFunctionError(1810)
        seen.add(field)
        if token.name.startswith("FF") and kind == DATE:
            raise OracleFunctionError(1821, f"{token.name} in a DATE format")
        if token.name in ("TZH", "TZM", "TZR") and kind != TIMESTAMP_TZ:
            raise OracleFunctionError(1821, f"{token.name} needs TIMESTAMP WITH TIME ZONE")


_FAST = {"YYYY": ("year", 4), "RRRR": ("year", 4), "MM": ("month", 2), "DD": ("day", 2),
         "HH24": ("hour", 2), "MI": ("minute", 2), "SS": ("second", 2)}  # fmt: skip
_FAST_LIMITS = {"month": (1, 12, 1843), "day": (1, 31, 1847), "hour": (0, 23, 1850),
                "minute": (0, 59, 1851), "second": (0, 59, 1852)}  # fmt: skip


@lru_cache(maxsize=256)
def _fast_plan(fmt: str) -> tuple[re.Pattern[str], tuple[str, ...]] | None:
    """An exact regex for formats made only of fixed-width numbers and punctuation.

    Input that matches it exactly (every field at full width, the same punctuation) gives the
    same result as the general parser; anything else goes through the general parser.
    """
    pattern, fields = [], []
    for token in tokenize(fmt):
        if token.kind in ("punct", "text"):
            pattern.append(re.escape(token.name))
        elif token.kind == "elem" and token.name in _FAST and not token.suffix:
            field, width = _FAST[token.name]
            pattern.append(f"(\\d{{{width}}})")
            fields.append(field)
        elif token.kind == "elem" and token.name.startswith("FF"):
            pattern.append(f"(\\d{{1,{token.name[2:] or 9}}})")
            fields.append("micro")
        else:
            return None
    return re.compile("".join(pattern) + r"\Z"), tuple(fields)


def _fast_fields(fields: tuple[str, ...], values: tuple[str, ...]) -> dict[str, object]:
    out: dict[str, object] = {}
    for field, text in zip(fields, values):
        if field == "micro":
            out[field] = int(text.ljust(6, "0")[:6])
            continue
        number = int(text)
        if field in _FAST_LIMITS:
            low, high, code = _FAST_LIMITS[field]
            if not low <= number <= high:
                raise OracleFunctionError(code)
        out[field] = number
    return out


def _check_rest(rest: tuple[Token, ...]) -> None:
    for token in rest:
        if token.kind == "elem" and token.name not in _TIME_ELEMENTS and not token.name.startswith("FF"):
            raise OracleFunctionError(1840)


def _skip_punct(reader: _Reader, char: str, rest: tuple[Token, ...]) -> None:
    if reader.fx:
        if reader.text[reader.pos] != char:
            raise OracleFunctionError(1861)
        reader.pos += 1
        return
    following = next((t for t in rest if t.kind == "elem"), None)
    keep_sign = following is not None and following.name in ("TZH", "SYYYY", "TZR")
    while reader.pos < len(reader.text):
        ch = reader.text[reader.pos]
        if ch.isalnum() or (keep_sign and ch in "+-"):
            break
        reader.pos += 1


def _parse_element(reader, token, rest, kind, today, put) -> None:  # type: ignore[no-untyped-def]
    name = token.name
    if name in _UNSUPPORTED:
        raise unsupported(f"date format element {name}")
    next_numeric = next((t for t in rest if t.kind != "fm"), None)
    next_is_digits = next_numeric is not None and next_numeric.kind == "elem" and next_numeric.name in _NUMERIC
    fixed = reader.fx
    if name in ("YYYY", "RRRR"):
        put("year", reader.digits(4, fixed))
    elif name == "SYYYY":
        reader.skip_spaces()
        if reader.take(("-",)):
            raise OracleFunctionError(1841)
        reader.take(("+",))
        put("year", reader.digits(4, fixed))
    elif name in ("YY", "RR", "YYY", "Y"):
        reader.skip_spaces()
        if name in ("YY", "RR") and reader.digit_run() == 4 and not next_is_digits and not fixed:
            put("year", reader.digits(4))
        else:
            width = {"YY": 2, "RR": 2, "YYY": 3, "Y": 1}[name]
            value = reader.digits(width, fixed)
            if width == 2:
                put("year", _year_from_two(value, name == "RR", today))
            else:
                put("year", today.year // 10**width * 10**width + value)
    elif name == "Y,YYY":
        reader.skip_spaces()
        match = re.match(r"(\d{1,2}),?(\d{3})", reader.text[reader.pos :])
        if not match:
            raise OracleFunctionError(1858)
        reader.pos += len(match.group(0))
        put("year", int(match.group(1)) * 1000 + int(match.group(2)))
    elif name in ("MM", "MON", "MONTH", "RM"):
        reader.skip_spaces()
        if reader.digit_run() and name != "RM":
            month = reader.digits(2, fixed and name == "MM")
            if not 1 <= month <= 12:
                raise OracleFunctionError(1843)
        elif name == "RM":
            word = reader.take(tuple(sorted(ROMAN_MONTHS, key=len, reverse=True)))
            if word is None:
                raise OracleFunctionError(1843)
            month = ROMAN_MONTHS.index(word) + 1
        else:
            month = _match_month(reader.word())
        put("month", month)
    elif name == "DD":
        day = reader.digits(2, fixed)
        if not 1 <= day <= 31:
            raise OracleFunctionError(1847)
        put("day", day)
    elif name == "DDD":
        value = reader.digits(3, fixed)
        if not 1 <= value <= 366:
            raise OracleFunctionError(1848)
        put("yday", value)
    elif name in ("DAY", "DY"):
        day_index(reader.word())
    elif name == "D":
        if not 1 <= reader.digits(1) <= 7:
            raise OracleFunctionError(1846)
    elif name == "J":
        put("julian", reader.digits(7, fixed))
    elif name in ("HH", "HH12"):
        hour = reader.digits(2, fixed)
        if not 1 <= hour <= 12:
            raise OracleFunctionError(1849)
        put("hour12", hour)
    elif name == "HH24":
        hour = reader.digits(2, fixed)
        if hour > 23:
            raise OracleFunctionError(1850)
        put("hour", hour)
    elif name == "MI":
        minute = reader.digits(2, fixed)
        if minute > 59:
            raise OracleFunctionError(1851)
        put("minute", minute)
    elif name == "SS":
        second = reader.digits(2, fixed)
        if second > 59:
            raise OracleFunctionError(1852)
        put("second", second)
    elif name == "SSSSS":
        value = reader.digits(5, fixed)
        if value > 86399:
            raise OracleFunctionError(1853)
        put("sssss", value)
    elif name.startswith("FF"):
        start = reader.pos
        reader.digits(int(name[2:] or 9))
        put("micro", int(reader.text[start : reader.pos].strip().ljust(6, "0")[:6]))
    elif name in ("AM", "PM", "A.M.", "P.M."):
        word = reader.take(("A.M.", "P.M.", "AM", "PM"))
        if word is None:
            raise OracleFunctionError(1855)
        put("pm", word.startswith("P"))
    elif name in ("AD", "BC", "A.D.", "B.C."):
        word = reader.take(("A.D.", "B.C.", "AD", "BC"))
        if word is None:
            raise OracleFunctionError(1861)
        if word.startswith("B"):
            raise OracleFunctionError(1841, "BC dates are not supported by the embedded engine")
    elif name in ("TZH", "TZM", "TZR"):
        if name == "TZR":
            put("zone", _parse_tz_region(reader))
        elif name == "TZH":
            reader.skip_spaces()
            sign = reader.take(("+", "-")) or "+"
            hours = reader.digits(2)
            if hours > 15:
                raise OracleFunctionError(1874)
            put("tzh", -hours if sign == "-" else hours)
            put("tz_negative", sign == "-")
        else:
            minutes = reader.digits(2)
            if minutes > 59:
                raise OracleFunctionError(1875)
            put("tzm", minutes)
    elif name == "X":
        if reader.take((".",)) is None:
            raise OracleFunctionError(1861)
    else:  # Q, WW, IW, W, IYYY, IYY, IY, I, CC, SCC
        raise OracleFunctionError(1820, name)


def _assemble(fields: dict[str, object], kind: str, today: _dt.date) -> _dt.datetime:
    year = int(fields.get("year", today.year))  # type: ignore[arg-type]
    month = int(fields.get("month", today.month))  # type: ignore[arg-type]
    day = int(fields.get("day", 1))  # type: ignore[arg-type]
    if "julian" in fields:
        ordinal = int(fields["julian"]) - 1_721_425  # type: ignore[arg-type]
        if ordinal < 1:
            raise OracleFunctionError(1841)
        date = _dt.date.fromordinal(ordinal)
        year, month, day = date.year, date.month, date.day
    if "yday" in fields:
        if not 1 <= year <= 9999:
            raise OracleFunctionError(1841)
        first = _dt.date(year, 1, 1)
        date = first + _dt.timedelta(days=int(fields["yday"]) - 1)  # type: ignore[arg-type]
        if date.year != year:
            raise OracleFunctionError(1848)
        year, month, day = date.year, date.month, date.day
    hour = int(fields.get("hour", 0))  # type: ignore[arg-type]
    if "hour12" in fields:
        hour = int(fields["hour12"]) % 12 + (12 if fields.get("pm") else 0)  # type: ignore[arg-type]
    minute = int(fields.get("minute", 0))  # type: ignore[arg-type]
    second = int(fields.get("second", 0))  # type: ignore[arg-type]
    if "sssss" in fields:
        total = int(fields["sssss"])  # type: ignore[arg-type]
        hour, minute, second = total // 3600, total % 3600 // 60, total % 60
    micro = int(fields.get("micro", 0))  # type: ignore[arg-type]
    tz: _dt.tzinfo | None = None
    if kind == TIMESTAMP_TZ:
        if "zone" in fields:
            tz = fields["zone"]  # type: ignore[assignment]
        elif "tzh" in fields or "tzm" in fields:
            hours = int(fields.get("tzh", 0))  # type: ignore[arg-type]
            minutes = int(fields.get("tzm", 0))  # type: ignore[arg-type]
            negative = bool(fields.get("tz_negative"))
            delta = _dt.timedelta(hours=abs(hours), minutes=minutes)
            tz = _dt.timezone(-delta if negative else delta)
        else:
            tz = local_tz()
    result = build_datetime(year, month, day, hour, minute, second, micro)
    if tz is not None:
        result = result.replace(tzinfo=tz)
        if not isinstance(tz, _dt.timezone):  # a region: freeze its offset at that instant
            offset = result.utcoffset() or _dt.timedelta(0)
            result = result.replace(tzinfo=_dt.timezone(offset))
    return result
