"""Oracle Text errors as plain exceptions: the SQL engine maps them to ORA-29902 / ORA-20000 / DRG-nnnnn.

On Oracle a failing CONTAINS query surfaces as::

    ORA-29902: error in executing ODCIIndexStart() routine
    ORA-20000: Oracle Text error:
    DRG-50901: text query parser syntax error on line 1, column 5

This module knows nothing about python-oracledb; it carries the DRG code and text so the engine can
build that stack. `message` is exactly Oracle's text; `detail` adds a hint for learners (may be None).
"""
from __future__ import annotations


class TextError(Exception):
    """Base class: `code` is the DRG (or ORA) number, `message` the Oracle text including its prefix."""

    def __init__(self, code: int, message: str, detail: str | None = None):
        super().__init__(message if detail is None else f"{message} ({detail})")
        self.code = code
        self.message = message
        self.detail = detail


class TextQueryError(TextError):
    """A CONTAINS query Oracle Text rejects (syntax, limits, unindexed column)."""


class TextUnsupportedError(TextQueryError):
    """Valid Oracle Text that the embedded engine does not implement; `code` is 3001 (ORA-03001)."""

    def __init__(self, construct: str):
        super().__init__(3001, f"ORA-03001: unimplemented feature: Oracle Text {construct} "
                               "(embedded engine; run against Oracle AI Database)")
        self.construct = construct


class TextIndexError(TextError):
    """CREATE INDEX / SYNC problems: bad PARAMETERS, missing table or column, duplicate index."""


def syntax_error(column: int, detail: str | None = None) -> TextQueryError:
    """DRG-50901 with a 1-based column; column len(query)+1 means 'at the end of the query'."""
    return TextQueryError(50901, f"DRG-50901: text query parser syntax error on line 1, column {column}", detail)


def column_not_indexed() -> TextQueryError:
    """What Oracle raises for CONTAINS on a column without a CONTEXT/SEARCH index."""
    return TextQueryError(10599, "DRG-10599: column is not indexed")


def index_does_not_exist(name: str) -> TextQueryError:
    return TextQueryError(10502, f"DRG-10502: index {name} does not exist")


def too_many_terms(kind: str, limit: int) -> TextQueryError:
    """DRG-51030: an expansion (wildcard, fuzzy, stem) matched more index terms than allowed."""
    return TextQueryError(51030, "DRG-51030: wildcard query expansion resulted in too many terms",
                          f"{kind} expansion matched more than {limit} terms")
