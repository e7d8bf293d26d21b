"""Build the FINANCE tables in the database: what `python -m workshop.setup` runs (idempotent).

Creates each missing table with its COMMENT ON TABLE/COLUMN statements and inserts the generated rows
its primary key does not already hold, one table per progress-bar step, one commit per table.
"""
from __future__ import annotations

import sys
from collections.abc import Callable

import oracledb

from .generator import COUNTS, generate, table_name, verify
from .tables import FINANCE_TABLES


def _existing_tables(conn: oracledb.Connection) -> set[str]:
    with conn.cursor() as cur:
        cur.execute("SELECT table_name FROM user_tables WHERE table_name LIKE 'FINANCE\\_%' ESCAPE '\\'")
        return {r[0] for r in cur.fetchall()}


def _count(conn: oracledb.Connection, table: str) -> int:
    with conn.cursor() as cur:
        cur.execute(f"SELECT COUNT(*) FROM {table.lower()}")
        return cur.fetchone()[0]


def _key_columns(table) -> list[str]:
    constraint = next(c for c in table.constraints if "PRIMARY KEY" in c)
    return [c.strip() for c in constraint.split("(", 1)[1].rstrip(")").split(",")]


def _sync_comments(conn: oracledb.Connection, present: set[str], did: Callable[[str], None]) -> None:
    """Re-apply table and column comments that differ from the definitions (they are the lesson's facts)."""
    with conn.cursor() as cur:
        cur.execute("SELECT table_name, comments FROM user_tab_comments WHERE table_name LIKE 'FINANCE\\_%' ESCAPE '\\'")
        tables = dict(cur.fetchall())
        cur.execute("SELECT table_name, column_name, comments FROM user_col_comments "
                    "WHERE table_name LIKE 'FINANCE\\_%' ESCAPE '\\'")
        columns = {(t, c): text for t, c, text in cur.fetchall()}
        changed = 0
        for table in FINANCE_TABLES:
            if table.name not in present:
                continue
            wanted = [table.comment] + [c.comment for c in table.columns]
            have = [tables.get(table.name)] + [columns.get((table.name, c.name.upper())) for c in table.columns]
            for statement, want, got in zip(table.comment_sql(), wanted, have):
                if want != got:
                    cur.execute(statement)
                    changed += 1
    if changed:
        did(f"updated {changed} FINANCE comment(s) to the current definitions")


def ensure_finance(conn: oracledb.Connection, *, progress: bool = True,
                   did: Callable[[str], None] = print) -> None:
    """Create the missing FINANCE tables and rows; calls `did(action)` for each change made."""
    present = _existing_tables(conn)
    _sync_comments(conn, present, did)
    todo = [t for t in FINANCE_TABLES
            if t.name not in present or _count(conn, t.name) != COUNTS[t.name[len("FINANCE_"):]]]
    if not todo:
        return
    rows = generate()
    verify(rows)
    from tqdm.auto import tqdm
    with tqdm(total=len(todo), desc="building FINANCE", unit="table", disable=not progress, file=sys.stderr) as bar:
        for table in todo:
            with conn.cursor() as cur:
                if table.name not in present:
                    cur.execute(table.create_sql())
                    for statement in table.comment_sql():
                        cur.execute(statement)
                    did(f"created table {table.name} (with comments)")
                logical = table.name[len("FINANCE_"):]
                key = _key_columns(table)
                positions = [table.column_names.index(k.upper()) for k in key]
                cur.execute(f"SELECT {', '.join(key)} FROM {table.name.lower()}")
                have = {tuple(r) for r in cur.fetchall()}
                missing = [r for r in rows[logical] if tuple(r[p] for p in positions) not in have]
                if missing:
                    marks = ", ".join(f":{i + 1}" for i in range(len(table.columns)))
                    cur.executemany(f"INSERT INTO {table.name.lower()} ({', '.join(c.name for c in table.columns)}) "
                                    f"VALUES ({marks})", missing)
                    conn.commit()
                    did(f"inserted {len(missing)} rows into {table.name}")
            bar.update(1)


def finance_counts(conn: oracledb.Connection) -> dict[str, int]:
    present = _existing_tables(conn)
    return {t.name: _count(conn, t.name) for t in FINANCE_TABLES if t.name in present}


def expected_finance_counts() -> dict[str, int]:
    return {table_name(t): n for t, n in COUNTS.items()}
