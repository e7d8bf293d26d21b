"""A scripted stand-in for a python-oracledb connection to Oracle (not the embedded engine), so the
Oracle-only branches of workshop/ and checkpoints/ run in every test session. Each statement is
answered by the first script entry whose needle occurs in its SQL: rows (a list of tuples), an
exception to raise, or a callable(sql, binds) returning either. Unscripted SQL fails the test, so a
branch cannot silently run a statement nobody thought about. Every statement is recorded."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import oracledb

Outcome = list | Exception | Callable[[str, Any], Any]


def ora_error(code: int, message: str) -> oracledb.DatabaseError:
    """An oracledb.DatabaseError whose args[0] has .code and .full_code like the driver's _Error."""
    class _Err:
        def __init__(self):
            self.code, self.full_code, self.message = code, f"ORA-{code:05d}", f"ORA-{code:05d}: {message}"

        def __str__(self):
            return self.message
    return oracledb.DatabaseError(_Err())


class FakeVar:
    def __init__(self, value=None):
        self.value = value

    def getvalue(self):
        return self.value


class FakeCursor:
    def __init__(self, conn: "FakeOracle"):
        self.conn, self.result, self.rowcount = conn, [], 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def setinputsizes(self, *args, **kwargs):
        self.conn.inputsizes.append(kwargs or args)

    def var(self, typ, *args, **kwargs):
        return FakeVar()

    def execute(self, sql: str, binds: Any = None, **kwargs):
        binds = binds if binds is not None else kwargs
        self.conn.executed.append((sql, binds))
        for needle, outcome in self.conn.script:
            if needle in sql:
                if callable(outcome) and not isinstance(outcome, Exception):
                    outcome = outcome(sql, binds)
                if isinstance(outcome, Exception):
                    raise outcome
                self.result = list(outcome)
                self.rowcount = len(self.result)
                return
        raise AssertionError(f"unscripted SQL: {sql}")

    def executemany(self, sql: str, rows):
        for row in rows:
            self.execute(sql, row)

    def callproc(self, name: str, args=()):
        self.execute(f"CALL {name}", list(args))

    def fetchone(self):
        return self.result[0] if self.result else None

    def fetchall(self):
        return list(self.result)

    def close(self):
        pass


class FakeOracle:
    """Looks like a thin connection to Oracle AI Database: not an EmbeddedConnection."""
    dsn = "fake-oracle:1521/FREEPDB1"
    version = "23.26.3.0.0"

    def __init__(self, script: list[tuple[str, Outcome]] | dict[str, Outcome]):
        self.script = list(script.items()) if isinstance(script, dict) else list(script)
        self.executed: list[tuple[str, Any]] = []
        self.inputsizes: list = []
        self.commits = self.rollbacks = 0

    def cursor(self):
        return FakeCursor(self)

    def commit(self):
        self.commits += 1

    def rollback(self):
        self.rollbacks += 1

    def close(self):
        pass

    def sql(self, needle: str) -> list[str]:
        """The executed statements that contain `needle`."""
        return [s for s, _ in self.executed if needle in s]
