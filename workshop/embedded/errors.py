"""Oracle errors raised as real python-oracledb exceptions, so callers can test `.args[0].code`."""
from __future__ import annotations

import re
import sqlite3

import oracledb
from oracledb import errors as _oracle_errors

ENGINE_SUFFIX = "(embedded engine; run against Oracle AI Database)"

#: Code for failures inside the engine itself. Not ORA-00600: python-oracledb maps that one to
#: DPY-4011 "connection closed", which would send a learner looking for a network problem.
INTERNAL_ERROR = 20999

#: ORA codes python-oracledb classifies as IntegrityError.
_INTEGRITY_CODES = {1, 1400, 1407, 2290, 2291, 2292}


def ora_error(code: int, message: str, *, offset: int = 0) -> oracledb.DatabaseError:
    """Build the exception python-oracledb would raise for `ORA-<code>: <message>`.

    The one constructor of every ORA-/DRG- error the engine raises (as_oracle_error and
    unsupported() call it); driver-side DPY- errors come from driver.dpy_error."""
    text = f"ORA-{code:05d}: {message}"
    err = _oracle_errors._Error(message=text, code=code, offset=offset)
    cls = oracledb.IntegrityError if code in _INTEGRITY_CODES else oracledb.DatabaseError
    return cls(err)


def unsupported(construct: str) -> oracledb.DatabaseError:
    """ORA-03001 naming the construct the embedded engine does not implement."""
    return ora_error(3001, f"unimplemented feature: {construct} {ENGINE_SUFFIX}")


class EngineError(Exception):
    """Raised inside SQLite callbacks; carries the Oracle error to re-raise after SQLite unwinds."""

    def __init__(self, code: int, message: str):
        super().__init__(f"ORA-{code:05d}: {message}")
        self.code = code
        self.message = message

    def to_oracle(self) -> oracledb.DatabaseError:
        return ora_error(self.code, self.message)


_SQLITE_PATTERNS: list[tuple[re.Pattern, int, str]] = [
    (re.compile(r"ORA-28115: (.*)"), 28115, "{0}"),
    (re.compile(r"ORA-28112: (.*)"), 28112, "{0}"),
    (re.compile(r"no such table: (?:main\.)?(\S+)"), 942, "table or view \"{0}\" does not exist"),
    (re.compile(r"no such column: (\S+)"), 904, "\"{0}\": invalid identifier"),
    (re.compile(r"(?:UNIQUE|PRIMARY KEY) constraint failed: (.+)"), 1, "unique constraint ({0}) violated"),
    (re.compile(r"NOT NULL constraint failed: ([^.\s]+)\.(\S+)"), 1400,
     'cannot insert NULL into ("WORKSHOP"."{0}"."{1}")'),
    (re.compile(r"CHECK constraint failed: (.+)"), 2290, "check constraint (WORKSHOP.{0}) violated"),
    (re.compile(r"FOREIGN KEY constraint failed"), 2291, "integrity constraint violated - parent key not found"),
    (re.compile(r"(?:table|index|view) \"?(\S+?)\"? already exists"), 955, "name \"{0}\" is already used by an existing object"),
    (re.compile(r"database is locked|database table is locked"), 54,
     "resource busy: another session holds an uncommitted transaction on the embedded database; "
     "run COMMIT (connection.commit()) or ROLLBACK in the other notebook or process, then retry"),
    (re.compile(r"near \"([^\"]*)\": syntax error"), 933, "SQL command not properly ended near \"{0}\""),
    (re.compile(r"ambiguous column name: (\S+)"), 918, "column ambiguously defined: \"{0}\""),
    (re.compile(r"do not have the same number of result columns"), 1789,
     "query block has incorrect number of result columns"),
    # SQLite's "circular reference" is a WITH element naming itself without RECURSIVE: Oracle reads that as a
    # recursive WITH (error-help ORA-32039, "A WITH clause query referred to itself (recursive) ...")
    (re.compile(r"circular reference: (\S+)"), 32039, "recursive WITH clause must have column alias list ({0})"),
    (re.compile(r"no such savepoint: (\S+)"), 1086, "savepoint '{0}' never established in this session or is invalid"),
    (re.compile(r"^not authorized$"), 1031, "insufficient privileges (a write in a read-only session)"),
    (re.compile(r"ORDER BY term out of range"), 1785, "ORDER BY item must be the number of a SELECT-list expression"),
]


def from_sqlite(exc: sqlite3.Error, constraint_name=None) -> oracledb.DatabaseError:
    """Translate a SQLite error into the Oracle error a learner would see on Oracle.

    `constraint_name(table, columns)` names the key a UNIQUE violation hit, as Oracle reports it."""
    text = str(exc)
    unique = re.search(r"(?:UNIQUE|PRIMARY KEY) constraint failed: (.+)", text)
    if unique and constraint_name is not None:
        pairs = [p.strip().split(".", 1) for p in unique.group(1).split(",")]
        if all(len(p) == 2 for p in pairs):
            name = constraint_name(pairs[0][0], [c for _, c in pairs])
            if name:
                return ora_error(1, f"unique constraint (WORKSHOP.{name}) violated")
    for pattern, code, template in _SQLITE_PATTERNS:
        m = pattern.search(text)
        if m:
            return ora_error(code, template.format(*m.groups()))
    return ora_error(INTERNAL_ERROR, f"internal error in the embedded engine: {text}")


def as_oracle_error(exc: BaseException, constraint_name=None) -> oracledb.Error:
    """Any exception raised inside the engine, as the oracledb exception a learner sees.

    Oracle errors pass through; engine, SQL-function, graph and text errors keep their ORA/DRG code;
    SQLite errors are translated; a sqlglot error is a syntax error; anything else is an internal
    error of the embedded engine (never a raw Python exception)."""
    if isinstance(exc, oracledb.Error):
        return exc
    if isinstance(exc, EngineError):
        return exc.to_oracle()
    if isinstance(exc, sqlite3.Error):
        return from_sqlite(exc, constraint_name)
    try:
        import sqlglot.errors
        if isinstance(exc, sqlglot.errors.SqlglotError):
            detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            return ora_error(933, f"SQL command not properly ended or unsupported syntax ({detail})")
    except ImportError:  # pragma: no cover - sqlglot is a pinned dependency
        pass
    code = getattr(exc, "code", None)
    message = getattr(exc, "message", None) or str(exc)
    if isinstance(code, int) and not isinstance(code, bool) and code > 0 and isinstance(message, str):
        if message.startswith("ORA-"):
            message = message.split(": ", 1)[1] if ": " in message else message
        if message.startswith("DRG-"):
            return ora_error(29902, f"error in executing ODCIIndexStart() routine\n"
                                    f"ORA-20000: Oracle Text error:\n{message}")
        return ora_error(code, message)
    if isinstance(exc, RecursionError):
        return ora_error(INTERNAL_ERROR, "internal error in the embedded engine: statement nested too deeply")
    return ora_error(INTERNAL_ERROR, f"internal error in the embedded engine: {type(exc).__name__}: {exc}")
