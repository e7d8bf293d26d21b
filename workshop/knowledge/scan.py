"""Schema scan: one fact per commented table and per commented column, read from the data dictionary.

The logical schema FINANCE is the table prefix FINANCE_ in the connected user's schema (see
workshop.data.finance.tables), so `scan_schema(conn, "FINANCE")` reads USER_TAB_COMMENTS and
USER_COL_COMMENTS for FINANCE_% tables and names the facts `FINANCE.LOANS` and `FINANCE.LOANS.RATE_BP`.
"""
from __future__ import annotations

import oracledb

from .facts import Fact

TABLES_SQL = """SELECT table_name, comments FROM user_tab_comments
WHERE table_type = 'TABLE' AND table_name LIKE :prefix ESCAPE '\\' AND comments IS NOT NULL
ORDER BY table_name"""

COLUMNS_SQL = """SELECT c.table_name, c.column_name, c.comments, t.data_type
FROM user_col_comments c
JOIN user_tab_columns t ON t.table_name = c.table_name AND t.column_name = c.column_name
WHERE c.table_name LIKE :prefix ESCAPE '\\' AND c.comments IS NOT NULL
ORDER BY c.table_name, t.column_id"""


def like_prefix(owner: str) -> str:
    """FINANCE -> 'FINANCE\\_%' (the LIKE pattern of the tables of a logical schema; `_` escaped)."""
    return owner.upper().replace("_", "\\_") + "\\_%"


def scan_schema(conn: oracledb.Connection, owner: str = "FINANCE") -> list[Fact]:
    """Facts about the commented tables and columns of the logical schema `owner`."""
    owner = owner.upper()
    strip = len(owner) + 1
    facts: list[Fact] = []
    with conn.cursor() as cur:
        cur.execute(TABLES_SQL, prefix=like_prefix(owner))
        for table, comment in cur.fetchall():
            subject = f"{owner}.{table[strip:]}"
            facts.append(Fact("table", subject, f"Table {subject}: {comment}", {"table": table}))
        cur.execute(COLUMNS_SQL, prefix=like_prefix(owner))
        for table, column, comment, data_type in cur.fetchall():
            subject = f"{owner}.{table[strip:]}.{column}"
            facts.append(Fact("column", subject, f"Column {subject}: {comment}",
                              {"table": table, "column": column, "data_type": data_type}))
    return facts
