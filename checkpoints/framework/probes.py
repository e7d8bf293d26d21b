"""Leaving the learner's database exactly as the checkpoint found it.

* `savepoint(conn)`: probe rows inserted inside the block (by the checkpoint, or by learner code that
  does not commit) are rolled back at the end, pass or fail; the learner's own earlier uncommitted
  work is kept (ROLLBACK TO SAVEPOINT, not ROLLBACK). DDL commits in Oracle, so no DDL inside.
* `restore_rows(conn, table, key)`: for learner code that commits (a write function), the rows the block
  added are deleted (and committed) at the end; the rows that were there stay untouched.
"""
from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import oracledb

from .dictionary import _quoted


@contextmanager
def savepoint(conn: oracledb.Connection) -> Iterator[str]:
    """Run the block after a SAVEPOINT and roll back to it afterwards (see module docstring)."""
    name = "CKPT_" + uuid.uuid4().hex[:12].upper()
    with conn.cursor() as cur:
        cur.execute(f"SAVEPOINT {name}")
    try:
        yield name
    finally:
        with conn.cursor() as cur:
            cur.execute(f"ROLLBACK TO SAVEPOINT {name}")


@contextmanager
def restore_rows(conn: oracledb.Connection, table: str, key: str) -> Iterator[None]:
    """Delete, at the end, the rows of `table` whose `key` was not there at the start (and commit that)."""
    sql_table, sql_key = _quoted(table), _quoted(key)
    with conn.cursor() as cur:
        cur.execute(f"SELECT {sql_key} FROM {sql_table}")
        before = {row[0] for row in cur.fetchall()}
    try:
        yield
    finally:
        with conn.cursor() as cur:
            cur.execute(f"SELECT {sql_key} FROM {sql_table}")
            added = [row[0] for row in cur.fetchall() if row[0] not in before]
            if added:
                cur.executemany(f"DELETE FROM {sql_table} WHERE {sql_key} = :1", [(k,) for k in added])
        conn.commit()
