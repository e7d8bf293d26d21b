"""Read-only sessions: no door writes.

On Oracle the workshop's read-only session is a second user holding only READ on the tables the tools read and
EXECUTE on the trusted context package (docs/troubleshooting.md, Part 07; workshop/db.py). The engine refuses,
before any effect, with the error that user gets:

* DML, DDL, `SELECT ... FOR UPDATE` and a write inside WITH: ORA-01031 insufficient privileges (READ on a table
  allows neither writes nor row locks; creating objects in the owner's schema needs CREATE ANY ... privileges).
* A PL/SQL call of a package the user holds no EXECUTE grant on (DBMS_RLS, DBMS_VECTOR, DBMS_VECTOR_CHAIN,
  CTX_DDL): ORA-06550 with PLS-00201 "identifier must be declared" -- Database Error Messages, PLS-00201: "If the
  referenced item is indeed declared but you don't have privileges to refer to that item, for security reasons,
  you will be notified only that the item is not declared" (https://docs.oracle.com/error-help/db/pls-00201).
* DBMS_DATA_MINING (whose EXECUTE the Data Mining user guides never ask to grant: it is public) dropping or
  importing a model of the owner's schema: ORA-01031, as DROP / CREATE ANY MINING MODEL are missing (Data Mining
  User's Guide, "System Privileges for Data Mining").
* `seq.NEXTVAL` / `seq.CURRVAL`: ORA-02289 sequence does not exist (the user holds no grant on the sequence, and
  Oracle reports an object one may not use as missing).
* Anything else that would reach the database file: a SQLite authorizer on the read-only connection denies every
  write to the main database (temporary tables of the session stay allowed), and the engine never takes the
  write lock (`BEGIN IMMEDIATE`) for it, so another session's writer never waits on a read-only one (ORA-00054).

Transaction control stays allowed (SAVEPOINT needs no privilege: SQL Language Reference, SAVEPOINT,
"Prerequisites: None"), without the write lock.
"""
from __future__ import annotations

import re
import sqlite3

from .errors import EngineError, unsupported
from .lexing import code_mask, leading_words, strip_comments

#: What a read-only session may run: queries, transaction control, and PL/SQL blocks (whose inner statements
#: come back through Engine._execute and are checked one by one; procedure calls through refuse_procedure).
READONLY_KINDS = {"SELECT", "WITH", "(", "COMMIT", "ROLLBACK", "SAVEPOINT", "BEGIN", "DECLARE"}
_FOR_UPDATE = re.compile(r"\bFOR\s+UPDATE\b", re.I)
_WRITE_WORDS = re.compile(r"\b(INSERT|UPDATE|DELETE|MERGE)\b", re.I)

#: Built-in procedures that change only the session: DBMS_SESSION is public on Oracle (SET_CONTEXT itself is
#: checked by the context's trusted package, rls.py).
SESSION_PROCEDURES = frozenset({"DBMS_SESSION.SET_CONTEXT", "DBMS_SESSION.CLEAR_CONTEXT"})
#: Packages the read-only user has no EXECUTE grant on (workshop/oracle_grants.py grants them to the workshop
#: user only; CTX_DDL comes with the CTXAPP role).
NO_EXECUTE_GRANT = frozenset({"DBMS_RLS", "DBMS_VECTOR", "DBMS_VECTOR_CHAIN", "CTX_DDL"})


def _session_statement(words: list[str]) -> str | None:
    """How ORA-03001 names a statement that changes only the session or the transaction, or None. Oracle lets any
    session run these without a privilege (SQL Language Reference, ALTER SESSION, Prerequisites: "You do not need
    any privileges to perform the other operations of this statement" beyond SQL trace and resumable space; SET
    TRANSACTION and SET ROLE need none), so a read-only session must not get ORA-01031 for them. The engine
    implements none of them: it answers as it does on a read-write session (ddl.py, engine.py), before any effect."""
    if words[:2] == ["ALTER", "SESSION"]:
        return f"statement {' '.join(words[:4])}"
    if words[:1] == ["SET"]:
        return "SET statement"
    return None


def refuse_statement(sql: str, kind: str) -> None:
    """ORA-01031 for a statement that writes, changes the schema or locks rows."""
    masked = code_mask(strip_comments(sql))
    session_only = _session_statement(leading_words(sql, 4))
    if session_only:
        raise unsupported(session_only)
    if kind not in READONLY_KINDS:
        raise EngineError(1031, f"insufficient privileges ({kind} in a read-only session)")
    if kind in ("SELECT", "WITH", "(") and _FOR_UPDATE.search(masked):
        raise EngineError(1031, "insufficient privileges (SELECT ... FOR UPDATE in a read-only session)")
    if kind == "WITH" and _WRITE_WORDS.search(masked):
        raise EngineError(1031, "insufficient privileges (a write inside WITH in a read-only session)")


def refuse_procedure(name: str, builtin: bool) -> None:
    """A PL/SQL call on a read-only session: session-only built-ins and the schema's own (context) packages run;
    every other built-in is refused as the read-only Oracle user would see it, before its arguments are read."""
    if not builtin:
        return      # a user package: the engine's PL/SQL subset lets it only set or clear context values
    qualified = name[4:] if name.startswith("SYS.") else name
    if qualified in SESSION_PROCEDURES:
        return
    package = qualified.split(".")[0]
    if package in NO_EXECUTE_GRANT:
        raise EngineError(6550, f"line 1, column 7:\nPLS-00201: identifier '{package}' must be declared "
                                f"(a read-only session holds no EXECUTE grant on {package})")
    raise EngineError(1031, f"insufficient privileges ({qualified} changes the schema; a read-only session "
                            f"holds no such privilege -- the Oracle docs do not say which error a user without "
                            f"DROP/CREATE ANY MINING MODEL gets here, ORA-01031 is the privilege error)")


def refuse_sequence(name: str) -> None:
    raise EngineError(2289, f"sequence \"{name}\" does not exist (a read-only session holds no grant on it)")


_WRITE_ACTIONS = {
    sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE,
    sqlite3.SQLITE_CREATE_TABLE, sqlite3.SQLITE_CREATE_INDEX, sqlite3.SQLITE_CREATE_TRIGGER,
    sqlite3.SQLITE_CREATE_VIEW, sqlite3.SQLITE_DROP_TABLE, sqlite3.SQLITE_DROP_INDEX, sqlite3.SQLITE_DROP_TRIGGER,
    sqlite3.SQLITE_DROP_VIEW, sqlite3.SQLITE_ALTER_TABLE, sqlite3.SQLITE_REINDEX, sqlite3.SQLITE_ANALYZE,
    sqlite3.SQLITE_CREATE_VTABLE, sqlite3.SQLITE_DROP_VTABLE, sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH,
}


def authorizer(action: int, arg1, arg2, database, source) -> int:
    """SQLite authorizer of a read-only connection: every change to the database file is denied (the statement
    fails to prepare: nothing ran); the session's temporary tables and triggers stay writable."""
    if action == sqlite3.SQLITE_UPDATE and arg1 == "sqlite_master":
        return sqlite3.SQLITE_OK      # SQLite's own check while it declares a table-valued function (json_each) on
        #                               first use; a real schema change arrives as CREATE/DROP/ALTER, denied above
    if action in _WRITE_ACTIONS and database != "temp":
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def install(db: sqlite3.Connection) -> None:
    db.set_authorizer(authorizer)
