"""Number format models for TO_CHAR(number, fmt) and TO_NUMBER(char, fmt), NLS-free.

NLS values are fixed to AMERICAN_AMERICA: decimal '.', group ',', currency 'L' and 'U' = '$',
'C' = 'USD'. Supported elements: 9 0 , G . D $ L C U S MI PR B FM V EEEE X RN TM TM9 TME.
An element outside this set raises ORA-01481 (invalid number format model).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal
from functools import lru_cache

from .errors import OracleFunctionError
from ..values import number_to_text
from .values import MISSING, Number, as_number, as_text, check_nls, number_out, to_decimal

_CURRENCY = {"$": "$", "L": "$", "U": "$", "C": "USD"}


@dataclass(frozen=True)
class NumberFormat:
    """A parsed number format model."""

    kind: str  # 'fixed', 'hex', 'roman', 'tm', 'tme'
    fm: bool = False
    blank_zero: bool = False
    sign: str = ""  # '', 'S<', 'S>', 'MI', 'PR'
    currency: str = ""
    currency_trailing: bool = False
    int_pattern: str = ""  # '9', '0' and ',' characters
    frac_pattern: str = ""  # '9' and '0' characters
    point: bool = False
    v_digits: int = 0
    eeee: bool = False
    lower: bool = False  # lower-case hex / roman
    width: int = 0  # characters of a non-FM result, used for the '#' overflow text


def _bad(fmt: str) -> OracleFunctionError:
    return OracleFunctionError(1481, repr(fmt))


@lru_cache(maxsize=512)
def parse_number_format(fmt: str) -> NumberFormat:
    """Parse a number format model (cached)."""
    rest = fmt
    upper = fmt.upper()
    fm = upper.startswith("FM")
    if fm:
        rest, upper = rest[2:], upper[2:]
    if upper in ("TM", "TM9"):
        return NumberFormat("tm", fm=fm)
    if upper == "TME":
        return NumberFormat("tme", fm=fm)
    if upper == "RN":
        return NumberFormat("roman", fm=fm, lower=rest == "rn", width=15)
    if re.fullmatch(r"0*X+", upper):
        return NumberFormat("hex", fm=fm, lower="x" in rest, int_pattern=upper, width=len(upper) + 1)

    fields: dict[str, object] = {"fm": fm}
    i = 0
    if upper.startswith("B"):
        fields["blank_zero"] = True
        i = 1
    sign = ""
    if upper.startswith("S", i):
        sign = "S<"
        i += 1
    currency = ""
    trailing_currency = False
    if i < len(upper) and upper[i] in _CURRENCY:
        currency = _CURRENCY[upper[i]]
        i += 1
    tail = upper[i:]
    for suffix, kind in (("MI", "MI"), ("PR", "PR"), ("S", "S>")):
        if tail.endswith(suffix) and not sign:
            sign, tail = kind, tail[: -len(suffix)]
            break
    if tail and tail[-1] in "LCU" and not currency:
        currency, trailing_currency, tail = _CURRENCY[tail[-1]], True, tail[:-1]
    eeee = tail.endswith("EEEE")
    if eeee:
        tail = tail[:-4]
    if "$" in tail and not currency:
        currency, tail = "$", tail.replace("$", "", 1)
    int_part, point, frac_part = tail, False, ""
    for mark in (".", "D"):
        if mark in tail:
            int_part, _, frac_part = tail.partition(mark)
            point = True
            break
    v_digits = 0
    if "V" in int_part:
        int_part, _, v_part = int_part.partition("V")
        if point or not re.fullmatch(r"[90]*", v_part):
            raise _bad(fmt)
        v_digits = len(v_part)
    int_part = int_part.replace("G", ",")
    if not re.fullmatch(r"[90][90,]*|", int_part) or not re.fullmatch(r"[90]*", frac_part):
        raise _bad(fmt)
    if not int_part and not frac_part and not v_digits:
        raise _bad(fmt)
    if eeee and (len(int_part.replace(",", "")) > 1):
        raise _bad(fmt)
    width = len(int_part) + v_digits + (1 if point else 0) + len(frac_part) + len(currency)
    width += {"": 1, "S<": 1, "S>": 1, "MI": 1, "PR": 2}[sign] + (5 if eeee else 0)
    return NumberFormat(
        "fixed",
        fm=fm,
        blank_zero=bool(fields.get("blank_zero")),
        sign=sign,
        currency=currency,
        currency_trailing=trailing_currency,
        int_pattern=int_part,
        frac_pattern=frac_part,
        point=point,
        v_digits=v_digits,
        eeee=eeee,
        width=width,
    )


def _round(value: Decimal, places: int) -> Decimal:
    context = Context(prec=max(60, abs(value.adjusted()) + abs(places) + 5))
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP, context=context)


def _roman(number: int) -> str:
    table = (
        (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
        (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
    )  # fmt: skip
    out = []
    for amount, letters in table:
        while number >= amount:
            out.append(letters)
            number -= amount
    return "".join(out)


def _finish(text: str, model: NumberFormat) -> str:
    return text.strip(" ") if model.fm else text


def _integer_digits(int_digits: str, pattern: str, blank_int: bool) -> str | None:
    """Lay the integer digits into the 9/0/, pattern; None when they do not fit."""
    slots = [c for c in pattern if c != ","]
    if len(int_digits) > len(slots):
        return None
    first_zero = pattern.replace(",", "").find("0")
    filled = []
    padding = len(slots) - len(int_digits)
    for index in range(len(slots)):
        if index >= padding:
            filled.append(int_digits[index - padding])
        elif not blank_int and first_zero != -1 and index >= first_zero:
            filled.append("0")
        else:
            filled.append(" ")
    out = []
    digit_index = 0
    for ch in pattern:
        if ch == ",":
            out.append("," if digit_index and filled[digit_index - 1] != " " else " ")
        else:
            out.append(filled[digit_index])
            digit_index += 1
    return "".join(out)


def _assemble(model: NumberFormat, negative: bool, int_text: str, tail: str) -> str:
    core = int_text.lstrip(" ")
    pad = " " * (len(int_text) - len(core))
    lead_cur = "" if model.currency_trailing else model.currency
    trail_cur = model.currency if model.currency_trailing else ""
    body = lead_cur + core + tail + trail_cur
    if model.sign == "":
        return pad + ("-" if negative else " ") + body
    if model.sign == "S<":
        return pad + ("-" if negative else "+") + body
    if model.sign == "S>":
        return pad + body + ("-" if negative else "+")
    if model.sign == "MI":
        return pad + body + ("-" if negative else " ")
    return pad + ("<" if negative else " ") + body + (">" if negative else " ")


def _fixed(value: Decimal, model: NumberFormat) -> str:
    overflow = "#" * model.width
    negative = value < 0
    magnitude = abs(value)
    if model.eeee:
        return _scientific(magnitude, negative, model)
    places = len(model.frac_pattern)
    if model.v_digits:
        magnitude = magnitude.scaleb(model.v_digits)
    rounded = _round(magnitude, places)
    negative = negative and rounded != 0
    if model.blank_zero and rounded == 0:
        return _finish(" " * model.width, model)
    whole = int(rounded)
    int_digits = str(whole) if whole else ""
    pattern = model.int_pattern + "9" * model.v_digits
    if not int_digits and not places and not model.point:
        int_digits = "0"
    blank_int = model.blank_zero and whole == 0
    int_text = _integer_digits(int_digits, pattern, blank_int)
    if int_text is None:
        return overflow
    tail = ""
    if model.point:
        frac = format(rounded, "f").partition(".")[2].ljust(places, "0")[:places]
        if model.fm:
            keep = len(frac)
            while keep and model.frac_pattern[keep - 1] == "9" and frac[keep - 1] == "0":
                keep -= 1
            frac = frac[:keep]
        tail = "." + frac
    return _finish(_assemble(model, negative, int_text, tail), model)


def _scientific(magnitude: Decimal, negative: bool, model: NumberFormat) -> str:
    places = len(model.frac_pattern)
    exponent = 0 if magnitude == 0 else magnitude.adjusted()
    mantissa = _round(magnitude.scaleb(-exponent), places) if magnitude else Decimal(0)
    if mantissa >= 10:
        exponent += 1
        mantissa = _round(magnitude.scaleb(-exponent), places)
    digits = format(mantissa, "f")
    if model.point and not places:
        digits += "."
    text = f"{digits}E{'+' if exponent >= 0 else '-'}{abs(exponent):02d}"
    sign = ("-" if negative else ("+" if model.sign.startswith("S") else " "))
    if model.sign in ("S>", "MI"):
        text = text + ("-" if negative else ("+" if model.sign == "S>" else " "))
    else:
        text = sign + text
    return _finish(text.rjust(model.width), model)


def format_number(value: Number, fmt: str) -> str:
    """Render a number with a format model (the TO_CHAR(number, fmt) core)."""
    model = parse_number_format(fmt)
    if model.kind == "tm":
        return number_to_text(value)
    if model.kind == "tme":
        dec = to_decimal(value)
        sign, digits, exponent = dec.normalize().as_tuple()
        mantissa = "".join(map(str, digits)) or "0"
        power = exponent + len(mantissa) - 1 if dec else 0
        body = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
        return f"{'-' if sign else ''}{body}E{'+' if power >= 0 else '-'}{abs(power):02d}"
    dec = to_decimal(value)
    if model.kind == "hex":
        whole = int(_round(dec, 0))
        digits = format(whole, "x" if model.lower else "X") if whole >= 0 else ""
        size = len(model.int_pattern)
        if whole < 0 or len(digits) > size:
            return "#" * model.width
        if model.int_pattern.startswith("0"):
            digits = digits.rjust(size, "0")
        return _finish(digits.rjust(model.width), model)
    if model.kind == "roman":
        whole = int(_round(dec, 0))
        if not 1 <= whole <= 3999:
            return "#" * model.width
        text = _roman(whole)
        return _finish((text.lower() if model.lower else text).rjust(model.width), model)
    return _fixed(dec, model)


def to_char_number(value: object, fmt: object = MISSING) -> str | None:
    """TO_CHAR(n[, fmt]); without fmt the shortest Oracle text ('.5', '-.5', '1')."""
    number = as_number(value)
    if number is None:
        return None
    if fmt is MISSING:
        return number_to_text(number)
    mask = as_text(fmt)
    if mask is None:
        return None
    return format_number(number, mask) or None


def _parse_fixed(text: str, model: NumberFormat) -> Decimal:
    s = text.strip()
    negative = False
    if model.sign == "PR":
        if s.startswith("<") and s.endswith(">"):
            negative, s = True, s[1:-1].strip()
    elif model.sign == "MI":
        if s.endswith("-"):
            negative, s = True, s[:-1].rstrip()
    elif model.sign == "S>":
        if not s or s[-1] not in "+-":
            raise OracleFunctionError(1722)
        negative, s = s[-1] == "-", s[:-1]
    elif model.sign == "S<":
        if not s or s[0] not in "+-":
            raise OracleFunctionError(1722)
        negative, s = s[0] == "-", s[1:]
    elif s[:1] in ("-", "+"):
        negative, s = s[0] == "-", s[1:].lstrip()
    if model.currency:
        if model.currency_trailing:
            if not s.endswith(model.currency):
                raise OracleFunctionError(1722)
            s = s[: -len(model.currency)]
        else:
            if not s.startswith(model.currency):
                raise OracleFunctionError(1722)
            s = s[len(model.currency) :]
    if model.sign == "" and not negative and s[:1] == "-":
        negative, s = True, s[1:]
    pattern = r"(\d[\d,]*)?(?:\.(\d*))?(?:[eE]([+-]?\d+))?" if model.eeee else r"(\d[\d,]*)?(?:\.(\d*))?"
    match = re.fullmatch(pattern, s)
    if not match or not (match.group(1) or match.group(2)):
        raise OracleFunctionError(1722)
    int_text = match.group(1) or ""
    frac_text = match.group(2) or ""
    if "," in int_text and not _group_offsets(int_text) <= _group_offsets(model.int_pattern):
        raise OracleFunctionError(1722)
    int_digits = int_text.replace(",", "").lstrip("0")
    slots = len(model.int_pattern.replace(",", "")) + model.v_digits
    if not model.eeee and (len(int_digits) > slots or len(frac_text) > len(model.frac_pattern)):
        raise OracleFunctionError(1722)
    value = Decimal((int_text.replace(",", "") or "0") + "." + (frac_text or "0"))
    if model.eeee and match.group(3):
        value = value.scaleb(int(match.group(3)))
    if model.v_digits:
        value = value.scaleb(-model.v_digits)
    return -value if negative else value


def _group_offsets(int_text: str) -> set[int]:
    """Digits to the right of each group separator, counted from the decimal point."""
    offsets = set()
    digits = 0
    for ch in reversed(int_text):
        if ch == ",":
            offsets.add(digits)
        else:
            digits += 1
    return offsets


def to_number(value: object, fmt: object = MISSING, nlsparam: object = None) -> Number | None:
    """TO_NUMBER(expr[, fmt]); text that does not fit raises ORA-01722 invalid number."""
    if value is None or value == "":
        return None
    if fmt is MISSING:
        return as_number(value)
    mask = as_text(fmt)
    if mask is None:
        return None
    check_nls(nlsparam)
    text = as_text(value)
    assert text is not None
    model = parse_number_format(mask)
    if model.kind in ("tm", "tme"):
        return as_number(text)
    if model.kind == "hex":
        cleaned = text.strip()
        if not re.fullmatch(r"[0-9A-Fa-f]+", cleaned) or len(cleaned) > len(model.int_pattern):
            raise OracleFunctionError(1722)
        return number_out(int(cleaned, 16))
    if model.kind == "roman":
        raise OracleFunctionError(1481, "RN is not valid in TO_NUMBER")
    return number_out(_parse_fixed(text, model))
