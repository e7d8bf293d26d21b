"""Oracle's rules for the names a CREATE statement gives (SQL Language Reference, "Database Object
Names and Qualifiers"), checked before the engine stores anything.

- at most 128 bytes (ORA-00972), never empty (ORA-01741);
- a nonquoted name must not be a reserved word (ORA-00903 for a table, ORA-00904 for a column);
  a quoted one may be (`"SELECT"` is a legal table name);
- `schema.name`: the engine has one schema, WORKSHOP, so any other owner does not exist (ORA-01918);
  more than two parts is not a name (ORA-00922).
"""
from __future__ import annotations

from sqlglot import exp

from .errors import EngineError

MAX_IDENTIFIER_BYTES = 128
SCHEMA = "WORKSHOP"

#: The reserved words of Oracle SQL (SQL Language Reference, "Oracle SQL Reserved Words"; V$RESERVED_WORDS
#: with RESERVED = 'Y'). Keywords that are not reserved (KEY, VALUE, TEXT, ...) remain legal names.
RESERVED_WORDS = frozenset("""
ACCESS ADD ALL ALTER AND ANY AS ASC AUDIT BETWEEN BY CHAR CHECK CLUSTER COLUMN COMMENT COMPRESS CONNECT
CREATE CURRENT DATE DECIMAL DEFAULT DELETE DESC DISTINCT DROP ELSE EXCLUSIVE EXISTS FILE FLOAT FOR FROM
GRANT GROUP HAVING IDENTIFIED IMMEDIATE IN INCREMENT INDEX INITIAL INSERT INTEGER INTERSECT INTO IS LEVEL
LIKE LOCK LONG MAXEXTENTS MINUS MLSLABEL MODE MODIFY NOAUDIT NOCOMPRESS NOT NOWAIT NULL NUMBER OF OFFLINE
ON ONLINE OPTION OR ORDER PCTFREE PRIOR PUBLIC RAW RENAME RESOURCE REVOKE ROW ROWID ROWNUM ROWS SELECT
SESSION SET SHARE SIZE SMALLINT START SUCCESSFUL SYNONYM SYSDATE TABLE THEN TO TRIGGER UID UNION UNIQUE
UPDATE USER VALIDATE VALUES VARCHAR VARCHAR2 VIEW WHENEVER WHERE WITH
""".split())


def check_name(identifier: exp.Identifier | None, what: str = "table") -> None:
    """Raise the Oracle error for a name Oracle would not accept."""
    if identifier is None:
        return
    name = identifier.this if isinstance(identifier.this, str) else identifier.name
    quoted = bool(identifier.args.get("quoted"))
    if name == "":
        raise EngineError(1741, "illegal zero-length identifier")
    if len(name.encode()) > MAX_IDENTIFIER_BYTES:
        raise EngineError(972, f"identifier is too long (\"{name[:30]}...\" is {len(name.encode())} bytes; "
                               f"the limit is {MAX_IDENTIFIER_BYTES})")
    if not quoted and name.upper() in RESERVED_WORDS:
        if what == "table":
            raise EngineError(903, f"invalid table name ({name.upper()} is a reserved word; quote it or rename it)")
        raise EngineError(904, f"\"{name.upper()}\": invalid identifier ({name.upper()} is a reserved word)")


def check_table(table: exp.Table) -> None:
    """A CREATE's `[schema.]name`: the parts, the owner and the name itself."""
    if table.args.get("catalog") is not None:
        raise EngineError(922, "missing or invalid option (a table name has at most two parts: schema.name)")
    owner = table.args.get("db")
    if owner is not None:
        check_name(owner, "schema")
        owner_name = owner.this if owner.args.get("quoted") else owner.name.upper()
        if owner_name != SCHEMA:
            raise EngineError(1918, f"user '{owner_name}' does not exist (the embedded engine has one schema, "
                                    f"{SCHEMA})")
    check_name(table.args.get("this"), "table")
