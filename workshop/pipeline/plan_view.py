"""The execution plan of the one-statement pipeline: Oracle's, from EXPLAIN PLAN and DBMS_XPLAN.

The embedded engine has no optimiser plan to show; it says so instead of faking one.
"""
from __future__ import annotations

import oracledb

EMBEDDED_MESSAGE = ("The plan view needs Oracle AI Database (EXPLAIN PLAN and DBMS_XPLAN); the embedded engine "
                    "runs the same statement but has no Oracle execution plan to show.")


def explain(conn: oracledb.Connection, sql: str) -> str:
    """EXPLAIN PLAN FOR the statement, then DBMS_XPLAN.DISPLAY's text; on the embedded engine, one line saying why not.

    No values are bound: EXPLAIN PLAN only parses the statement and ignores bind values anyway."""
    from workshop.setup import is_embedded
    if is_embedded(conn):
        return EMBEDDED_MESSAGE
    with conn.cursor() as cur:
        cur.execute("EXPLAIN PLAN FOR " + sql)
        cur.execute("SELECT plan_table_output FROM TABLE(DBMS_XPLAN.DISPLAY(NULL, NULL, 'BASIC +PREDICATE'))")
        return "\n".join(r[0] for r in cur.fetchall())
