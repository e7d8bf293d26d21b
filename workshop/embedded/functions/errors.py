"""The one exception type of the function library, carrying an Oracle error number.

The engine turns it into ``oracledb.DatabaseError`` with ``.args[0].code == code``, so the
message text follows Oracle's ``ORA-nnnnn: text`` form.
"""

from __future__ import annotations

# Oracle's message text for the codes this library raises (ORA- numbers, without prefix).
MESSAGES: dict[int, str] = {
    1426: "numeric overflow",
    1428: "argument '{}' is out of range",
    1465: "invalid hex number",
    1476: "divisor is equal to zero",
    1481: "invalid number format model",
    1489: "result of string concatenation is too long",
    1722: "invalid number",
    1760: "illegal argument for function",
    1810: "format code appears twice",
    1820: "format code cannot appear in date input format",
    1821: "date format not recognized",
    1830: "date format picture ends before converting entire input string",
    1839: "date not valid for month specified",
    1840: "input value not long enough for date format",
    1841: "(full) year must be between -4713 and +9999, and not be 0",
    1843: "not a valid month",
    1846: "not a valid day of the week",
    1847: "day of month must be between 1 and last day of month",
    1848: "day of year must be between 1 and 365 (366 for leap year)",
    1849: "hour must be between 1 and 12",
    1850: "hour must be between 0 and 23",
    1851: "minutes must be between 0 and 59",
    1852: "seconds must be between 0 and 59",
    1853: "seconds in day must be between 0 and 86399",
    1855: "AM/A.M. or PM/P.M. required",
    1858: "a non-numeric character was found where a numeric was expected",
    1861: "literal does not match format string",
    1862: "the numeric value does not match the length of the format item",
    1867: "the interval is invalid",
    1873: "the leading precision of the interval is too small",
    1874: "time zone hour must be between -15 and 15",
    1875: "time zone minute must be between -59 and 59",
    3001: "unimplemented feature",
    12725: "unmatched parentheses in regular expression",
    12726: "unmatched bracket in regular expression",
    12727: "invalid back reference in regular expression",
    12728: "invalid range in regular expression",
    12729: "invalid character class in regular expression",
    12730: "invalid equivalence class in regular expression",
    12731: "invalid collation class in regular expression",
    12732: "invalid match parameter in regular expression",
    30001: "trim set should have only one character",
    30076: "invalid extract field for extract source",
    30081: "invalid data type for datetime/interval arithmetic",
}


class OracleFunctionError(Exception):
    """An Oracle runtime error raised by a SQL function (``.code`` is the ORA number)."""

    def __init__(self, code: int, detail: str | None = None) -> None:
        self.code = code
        base = MESSAGES.get(code, "error")
        if "{}" in base:  # Oracle puts the offending value inside the message
            text = base.format(detail if detail is not None else "")
        else:
            text = f"{base}: {detail}" if detail else base
        self.message = f"ORA-{code:05d}: {text}"
        super().__init__(self.message)


def unsupported(construct: str) -> OracleFunctionError:
    """ORA-03001 naming the construct the embedded engine does not implement."""
    return OracleFunctionError(3001, f"{construct} (embedded engine; run against Oracle AI Database)")
