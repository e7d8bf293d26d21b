"""Oracle character functions (SUBSTR, INSTR, LPAD, TRANSLATE, ...), NLS-free.

Every function takes stored values, applies Oracle's implicit conversion to text/number,
propagates NULL and returns NULL instead of an empty string.
"""

from __future__ import annotations

from .errors import OracleFunctionError
from .values import MISSING, as_int, as_text, text_out


def substr(char: object, position: object, length: object = MISSING) -> str | None:
    """SUBSTR(char, position[, length]): 0 counts as 1, negative counts from the end, length < 1 is NULL."""
    text = as_text(char)
    pos = as_int(position)
    if text is None or pos is None:
        return None
    size = len(text)
    if pos == 0:
        pos = 1
    start = pos - 1 if pos > 0 else size + pos
    if start < 0 or start >= size:
        return None
    if length is MISSING:
        return text_out(text[start:])
    count = as_int(length)
    if count is None or count < 1:
        return None
    return text_out(text[start : start + count])


def instr(string: object, substring: object, position: object = 1, occurrence: object = 1) -> int | None:
    """INSTR: 1-based index of the nth occurrence; a negative position searches backwards from the end."""
    text = as_text(string)
    needle = as_text(substring)
    pos = as_int(position)
    nth = as_int(occurrence)
    if text is None or needle is None or pos is None or nth is None:
        return None
    if nth < 1:
        raise OracleFunctionError(1428, str(nth))
    if pos == 0:
        return 0
    if pos > 0:
        index = pos - 2
        for _ in range(nth):
            index = text.find(needle, index + 1)
            if index < 0:
                return 0
        return index + 1
    # Backwards: the match must start at or before the position counted from the end.
    limit = len(text) + pos  # 0-based start of the first candidate
    if limit < 0:
        return 0
    index = limit + 1
    for _ in range(nth):
        index = text.rfind(needle, 0, index - 1 + len(needle))
        if index < 0:
            return 0
    return index + 1


def length(char: object) -> int | None:
    """LENGTH in characters; NULL for NULL (and therefore for '')."""
    text = as_text(char)
    return None if text is None else len(text)


def upper(char: object) -> str | None:
    """UPPER."""
    text = as_text(char)
    return None if text is None else text.upper()


def lower(char: object) -> str | None:
    """LOWER."""
    text = as_text(char)
    return None if text is None else text.lower()


def initcap(char: object) -> str | None:
    """INITCAP: words are runs of alphanumerics; first letter upper, the rest lower."""
    text = as_text(char)
    if text is None:
        return None
    out = []
    previous_alnum = False
    for ch in text:
        out.append(ch.lower() if previous_alnum else ch.upper())
        previous_alnum = ch.isalnum()
    return "".join(out)


def _trim_set(value: object) -> str | None:
    return as_text(value)


def ltrim(char: object, chars: object = " ") -> str | None:
    """LTRIM(char[, set]): remove leading characters that appear in set."""
    text = as_text(char)
    charset = _trim_set(chars)
    if text is None or charset is None:
        return None
    return text_out(text.lstrip(charset))


def rtrim(char: object, chars: object = " ") -> str | None:
    """RTRIM(char[, set]): remove trailing characters that appear in set."""
    text = as_text(char)
    charset = _trim_set(chars)
    if text is None or charset is None:
        return None
    return text_out(text.rstrip(charset))


def trim(char: object) -> str | None:
    """TRIM(char): remove leading and trailing blanks."""
    text = as_text(char)
    return None if text is None else text_out(text.strip(" "))


def trim_ex(mode: object, trim_character: object, char: object) -> str | None:
    """TRIM(LEADING|TRAILING|BOTH c FROM s); c must be one character (ORA-30001)."""
    kind = (as_text(mode) or "BOTH").upper()
    if kind not in ("LEADING", "TRAILING", "BOTH"):
        raise OracleFunctionError(1760, f"TRIM mode {kind!r}")
    text = as_text(char)
    single = as_text(trim_character)
    if single is not None and len(single) != 1:
        raise OracleFunctionError(30001)
    if text is None or single is None:
        return None
    if kind == "LEADING":
        return text_out(text.lstrip(single))
    if kind == "TRAILING":
        return text_out(text.rstrip(single))
    return text_out(text.strip(single))


def replace(char: object, search: object, replacement: object = None) -> str | None:
    """REPLACE(char, search[, replacement]); a NULL/omitted replacement removes every match."""
    text = as_text(char)
    if text is None:
        return None
    pattern = as_text(search)
    if pattern is None:
        return text
    return text_out(text.replace(pattern, as_text(replacement) or ""))


def _pad(char: object, width: object, fill: object, left: bool) -> str | None:
    text = as_text(char)
    size = as_int(width)
    pad = as_text(fill)
    if text is None or size is None or pad is None or size < 1:
        return None
    if len(text) >= size:
        return text_out(text[:size])
    missing = size - len(text)
    padding = (pad * (missing // len(pad) + 1))[:missing]
    return padding + text if left else text + padding


def lpad(char: object, width: object, fill: object = " ") -> str | None:
    """LPAD(expr1, n[, expr2]): pad on the left to n characters, or cut expr1 to n."""
    return _pad(char, width, fill, left=True)


def rpad(char: object, width: object, fill: object = " ") -> str | None:
    """RPAD(expr1, n[, expr2]): pad on the right to n characters, or cut expr1 to n."""
    return _pad(char, width, fill, left=False)


def concat(char1: object, char2: object) -> str | None:
    """CONCAT: NULL behaves as the empty string; an empty result is NULL."""
    return text_out((as_text(char1) or "") + (as_text(char2) or ""))


def chr_(n: object) -> str | None:
    """CHR(n) for an AL32UTF8 database: n is the UTF-8 encoding of the character."""
    code = as_int(n)
    if code is None:
        return None
    if code < 0:
        raise OracleFunctionError(1428, str(code))
    if code < 128:
        return chr(code)
    raw = code.to_bytes((code.bit_length() + 7) // 8, "big")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OracleFunctionError(1428, f"{code} (not a UTF-8 character)") from exc


def ascii_(char: object) -> int | None:
    """ASCII(char): the AL32UTF8 encoding of the first character, as a number."""
    text = as_text(char)
    if text is None:
        return None
    return int.from_bytes(text[0].encode("utf-8"), "big")


def translate(expr: object, from_string: object, to_string: object) -> str | None:
    """TRANSLATE: map characters of from_string to to_string; extra from-characters are removed."""
    text = as_text(expr)
    source = as_text(from_string)
    target = as_text(to_string)
    if text is None or source is None or target is None:
        return None
    table: dict[int, int | None] = {}
    for index, ch in enumerate(source):
        if ord(ch) not in table:
            table[ord(ch)] = ord(target[index]) if index < len(target) else None
    return text_out(text.translate(table))


def reverse(char: object) -> str | None:
    """REVERSE (undocumented in Oracle but widely used): the characters in reverse order."""
    text = as_text(char)
    return None if text is None else text[::-1]
