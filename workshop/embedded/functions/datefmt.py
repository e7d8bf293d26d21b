"""Datetime format models: TO_CHAR(datetime, fmt), TO_DATE, TO_TIMESTAMP, TO_TIMESTAMP_TZ.

NLS is fixed to AMERICAN/AMERICA (English names, weeks start on Sunday for D). Output follows
Oracle: MONTH and DAY are blank-padded to 9 characters unless FM is on; FM toggles; case of
MONTH/MON/DAY/DY/AM/RM/TH follows the element ('MONTH', 'Month', 'month'). DS, DL and TS expand
to 'MM/DD/YYYY', 'fmDay, Month dd, yyyy' and 'HH:MI:SS AM'.

Input conversion is Oracle's lenient default: any run of non-alphanumeric characters matches a
punctuation element, numeric fields may have fewer digits, MM/MON/MONTH and YY/YYYY (RR/RRRR)
accept each other's forms, and trailing time fields may be omitted. FX asks for exact matches.
Missing year/month default to the current ones, missing day to 1, missing time to midnight.

Not supported (ORA-03001): SP spelling, YEAR/SYEAR spelled years, E/EE era names, TZD, BC dates.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from functools import lru_cache

from .datetimes import DATE, TIMESTAMP, TIMESTAMP_TZ, build_datetime, day_index, local_tz, render
from .errors import OracleFunctionError, unsupported

MONTHS = (
    "JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE",
    "JULY", "AUGUST", "SEPTEMBER", "OCTOBER", "NOVEMBER", "DECEMBER",
)  # fmt: skip
DAYS = ("SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY", "SATURDAY")
ROMAN_MONTHS = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII")

DEFAULT_DATE_FORMAT = "YYYY-MM-DD HH24:MI:SS"
DEFAULT_TIMESTAMP_FORMAT = "YYYY-MM-DD HH24:MI:SS.FF"
DEFAULT_TIMESTAMP_TZ_FORMAT = "YYYY-MM-DD HH24:MI:SS.FF TZH:TZM"

_ELEMENTS = sorted(
    [
        "SYYYY", "IYYY", "YYYY", "Y,YYY", "RRRR", "SYEAR", "YEAR", "SCC", "CC", "IYY", "YYY", "IY",
        "YY", "RR", "I", "Y", "Q", "MONTH", "MON", "MM", "RM", "WW", "IW", "W", "DDD", "DD", "DAY",
        "DY", "DL", "DS", "D", "J", "HH24", "HH12", "HH", "MI", "SSSSS", "SS", "FF", "AM", "PM",
        "A.M.", "P.M.", "AD", "BC", "A.D.", "B.C.", "TZH", "TZM", "TZR", "TZD", "X", "TS", "EE", "E",
        "FM", "FX",
    ]
    + [f"FF{n}" for n in range(1, 10)],
    key=len,
    reverse=True,
)  # fmt: skip
_PUNCTUATION = set(" -/,.;:\t")
_SUFFIXES = ("SPTH", "THSP", "SP", "TH")
_NUMERIC = {
    "SYYYY", "IYYY", "YYYY", "Y,YYY", "RRRR", "SCC", "CC", "IYY", "YYY", "IY", "YY", "RR", "I", "Y",
    "Q", "MM", "WW", "IW", "W", "DDD", "DD", "D", "J", "HH24", "HH12", "HH", "MI", "SSSSS", "SS",
}  # fmt: skip
_TIME_ELEMENTS = {"HH", "HH12", "HH24", "MI", "SS", "SSSSS", "AM", "PM", "A.M.", "P.M.", "TZH", "TZM", "TZR", "X"}
_EXPANSIONS = {"DS": "MM/DD/YYYY", "DL": "fmDay, Month dd, yyyy", "TS": "HH:MI:SS AM"}
_UNSUPPORTED = {"SYEAR", "YEAR", "E", "EE", "TZD"}


@dataclass(frozen=True)
class Token:
    """One piece of a format model: an element (``name`` upper-case) or literal text."""

    kind: str  # 'elem', 'punct', 'text', 'fm', 'fx'
    name: str
    raw: str = ""
    suffix: str = ""


@lru_cache(maxsize=512)
def tokenize(fmt: str) -> tuple[Token, ...]:
    """Split a datetime format model into tokens (ORA-01821 for anything unrecognised)."""
    tokens: list[Token] = []
    i = 0
    upper = fmt.upper()
    while i < len(fmt):
        ch = fmt[i]
        if ch == '"':
            end = fmt.find('"', i + 1)
            if end < 0:
                raise OracleFunctionError(1821, repr(fmt))
            tokens.append(Token("text", fmt[i + 1 : end]))
            i = end + 1
            continue
        name = next((e for e in _ELEMENTS if upper.startswith(e, i)), None)
        if name is None:
            if ch in _PUNCTUATION:
                tokens.append(Token("punct", ch))
                i += 1
                continue
            raise OracleFunctionError(1821, repr(fmt))
        raw = fmt[i : i + len(name)]
        i += len(name)
        if name in ("FM", "FX"):
            tokens.append(Token(name.lower(), name))
            continue
        if name in _EXPANSIONS:
            tokens.extend(tokenize(_EXPANSIONS[name]))
            continue
        suffix = ""
        if name in _NUMERIC:
            suffix = next((s for s in _SUFFIXES if upper.startswith(s, i)), "")
            if suffix:
                if "SP" in suffix:
                    raise unsupported(f"date format element suffix {suffix}")
                suffix = fmt[i : i + len(suffix)]
                i += len(suffix)
        tokens.append(Token("elem", name, raw, suffix))
    return tuple(tokens)


def _case(word: str, raw: str) -> str:
    if raw[:1].islower():
        return word.lower()
    if len(raw) > 1 and raw[1].islower():
        return word.capitalize()
    return word


def _ordinal(number: int, raw_suffix: str) -> str:
    if 10 <= number % 100 <= 13:
        text = "TH"
    else:
        text = {1: "ST", 2: "ND", 3: "RD"}.get(number % 10, "TH")
    return text.lower() if raw_suffix[:1].islower() else text


def _need_kind(kind: str, allowed: tuple[str, ...], name: str) -> None:
    if kind not in allowed:
        raise OracleFunctionError(1821, f"{name} is not valid for a {kind}")


def _element_text(token: Token, dt: _dt.datetime, kind: str, fm: bool) -> str:
    name, raw = token.name, token.raw
    if name in _UNSUPPORTED:
        raise unsupported(f"date format element {name}")
    year = dt.year

    def num(value: int, width: int) -> str:
        text = str(value) if fm else f"{value:0{width}d}"
        return text + (_ordinal(value, token.suffix) if token.suffix else "")

    if name in ("YYYY", "RRRR"):
        return num(year, 4)
    if name == "SYYYY":
        return ("" if fm else " ") + num(year, 4)
    if name == "YYY":
        return num(year % 1000, 3)
    if name in ("YY", "RR"):
        return num(year % 100, 2)
    if name == "Y":
        return num(year % 10, 1)
    if name == "Y,YYY":
        return f"{year // 1000},{year % 1000:03d}"
    iso_year, iso_week, _ = dt.isocalendar()
    if name == "IYYY":
        return num(iso_year, 4)
    if name == "IYY":
        return num(iso_year % 1000, 3)
    if name == "IY":
        return num(iso_year % 100, 2)
    if name == "I":
        return num(iso_year % 10, 1)
    if name in ("CC", "SCC"):
        return num((year - 1) // 100 + 1, 2)
    if name == "Q":
        return num((dt.month - 1) // 3 + 1, 1)
    if name == "MM":
        return num(dt.month, 2)
    if name == "MON":
        return _case(MONTHS[dt.month - 1][:3], raw)
    if name == "MONTH":
        word = _case(MONTHS[dt.month - 1], raw)
        return word if fm else word.ljust(9)
    if name == "RM":
        word = _case(ROMAN_MONTHS[dt.month - 1], raw)
        return word if fm else word.ljust(4)
    if name == "WW":
        return num((dt.timetuple().tm_yday - 1) // 7 + 1, 2)
    if name == "IW":
        return num(iso_week, 2)
    if name == "W":
        return num((dt.day - 1) // 7 + 1, 1)
    if name == "DDD":
        return num(dt.timetuple().tm_yday, 3)
    if name == "DD":
        return num(dt.day, 2)
    if name == "D":
        return num((dt.weekday() + 1) % 7 + 1, 1)
    if name == "DAY":
        word = _case(DAYS[(dt.weekday() + 1) % 7], raw)
        return word if fm else word.ljust(9)
    if name == "DY":
        return _case(DAYS[(dt.weekday() + 1) % 7][:3], raw)
    if name == "J":
        return num(dt.toordinal() + 1_721_425, 7)
    if name in ("HH", "HH12"):
        return num(dt.hour % 12 or 12, 2)
    if name == "HH24":
        return num(dt.hour, 2)
    if name == "MI":
        return num(dt.minute, 2)
    if name == "SS":
        return num(dt.second, 2)
    if name == "SSSSS":
        return num(dt.hour * 3600 + dt.minute * 60 + dt.second, 5)
    if name.startswith("FF"):
        _need_kind(kind, (TIMESTAMP, TIMESTAMP_TZ), name)
        digits = int(name[2:] or 6)
        return f"{dt.microsecond:06d}".ljust(9, "0")[:digits]
    if name in ("AM", "PM", "A.M.", "P.M."):
        word = "AM" if dt.hour < 12 else "PM"
        if "." in name:
            word = f"{word[0]}.{word[1]}."
        return _case(word, raw)
    if name in ("AD", "BC", "A.D.", "B.C."):
        return _case("A.D." if "." in name else "AD", raw)
    if name in ("TZH", "TZM", "TZR"):
        _need_kind(kind, (TIMESTAMP_TZ,), name)
        offset = dt.utcoffset() or _dt.timedelta(0)
        minutes = int(offset.total_seconds() // 60)
        sign = "-" if minutes < 0 else "+"
        hours, mins = divmod(abs(minutes), 60)
        if name == "TZH":
            return f"{sign}{hours:02d}"
        if name == "TZM":
            return f"{mins:02d}"
        return f"{sign}{hours:02d}:{mins:02d}"
    if name == "X":
        return "."
    raise OracleFunctionError(1821, name)  # pragma: no cover - every element is handled above


def format_datetime(dt: _dt.datetime, kind: str, fmt: str) -> str:
    """Render a datetime of the given Oracle type with a format model."""
    out: list[str] = []
    fm = False
    for token in tokenize(fmt):
        if token.kind == "fm":
            fm = not fm
        elif token.kind in ("punct", "text"):
            out.append(token.name)
        elif token.kind == "elem":
            out.append(_element_text(token, dt, kind, fm))
    return "".join(out)


# --- parsing --------------------------------------------------------------------------------


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
        if self.pos == start or (fixed and self.pos - start != most):
            raise OracleFunctionError(1858)
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
    today = today or _dt.date.today()
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
        if kind == DATE:
            raise OracleFunctionError(1821, f"{name} in a DATE format")
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
        if kind != TIMESTAMP_TZ:
            raise OracleFunctionError(1821, f"{name} needs TIMESTAMP WITH TIME ZONE")
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


def render_parsed(dt: _dt.datetime, kind: str) -> str:
    """Storage text of a parsed datetime."""
    return render(dt, kind)
