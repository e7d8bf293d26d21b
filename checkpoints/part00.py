"""Checkpoint of part 00, the warm-up TODO (notebooks/00_setup_and_orientation.ipynb).

    from checkpoints import part00
    part00.check_subjects_sql(conn, subjects_sql)     # papers per primary subject, most first

The expected counts come from the shipped data files (workshop.data), not from the database.
"""
from __future__ import annotations

from collections import Counter

import oracledb

from workshop.data import load_papers

from .framework import checkpoint, expect, expect_filled, expect_ordered_by, expect_rows_equal

NOTEBOOK = "00_setup_and_orientation.ipynb"

HINT = "GROUP BY primary_subject with COUNT(*) in the select list, then ORDER BY that count DESC."


@checkpoint("papers per subject", hint=HINT)
def check_subjects_sql(conn: oracledb.Connection, subjects_sql: str | None) -> str:
    """subjects_sql returns (primary_subject, number of papers) for every subject, most papers first."""
    expect_filled(subjects_sql, "subjects_sql")
    expect(isinstance(subjects_sql, str), f"subjects_sql is a {type(subjects_sql).__name__}, expected the SQL text",
           "Assign the query as a string: subjects_sql = \"SELECT ...\"")
    with conn.cursor() as cur:
        cur.execute(subjects_sql)
        expect(cur.description is not None, "subjects_sql is not a query", "Write a SELECT statement.")
        width = len(cur.description)
        rows = cur.fetchall()
    expect(width == 2, f"the query returns {width} columns, expected 2 (the subject and its number of papers)",
           "SELECT primary_subject, COUNT(*) ...")
    expected = sorted(Counter(p["primary_subject"] for p in load_papers()).items())
    expect_rows_equal(rows, expected, what="(subject, papers) rows",
                      hint="One row per subject with COUNT(*): GROUP BY primary_subject, and no WHERE clause.")
    expect_ordered_by(rows, 1, descending=True, what="rows", hint="Most papers first: ORDER BY the count DESC.")
    return f"{len(rows)} subjects, {sum(n for _, n in rows)} papers, most first"
