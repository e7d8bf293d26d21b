"""Datetime format models: the tokenizer and TO_CHAR(datetime, fmt) output.

NLS is fixed to AMERICAN/AMERICA (English names, weeks start on Sunday for D). Output follows
Oracle: MONTH and DAY are blank-padded to 9 characters unless FM is on; FM toggles; case of
MONTH/MON/DAY/DY/AM/RM/TH follows the element ('MONTH', 'Month', 'month'). DS, DL and TS expand
to 'MM/DD/YYYY', 'fmDay, Month dd, yyyy' and 'HH:MI:SS AM'.

Parsing (TO_DATE and friends) lives in ``dateparse``.

Not supported (ORA-03001): SP spelling, YEAR/SYEAR spelled years, E/EE era names, TZD, BC dates.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from functools import lru_cache

from .datetimes import TIMESTAMP, TIMESTAMP_TZ
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
    if name in ("IYYY", "IYY", "IY", "I"):
        width = len(name)
        return num(dt.isocalendar()[0] % 10**width, width)
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
        return num(dt.isocalendar()[1], 2)
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
