"""Checkpoint of part 00, the warm-up TODO (notebooks/00_setup_and_orientation.ipynb).

    from checkpoints import part00
    part00.check_subjects_sql(conn, subjects_sql)     # papers per primary subject, most first

The expected counts come from the shipped data files (workshop.data), not from the database. To tell a query that
counts PAPERS from a hard-coded copy of the right rows, the check runs the query a second time with two probe
papers added inside a savepoint (one of a subject no paper has), and rolls them back: the learner's database is
left exactly as it was.
"""
from __future__ import annotations

from collections import Counter
from datetime import date

import oracledb

from workshop.data import load_papers

from .framework.needs import needs as _needs
from .framework import checkpoint, expect, expect_filled, expect_ordered_by, expect_rows_equal, fail, savepoint

def needs(todo: str, *values) -> None:
    """In a cell that uses a TODO's result: one line naming the TODO when it is not done yet (framework.needs)."""
    _needs(__name__, todo, *values)


NOTEBOOK = "00_setup_and_orientation.ipynb"

HINT = ("Read 'Warm-up TODO: papers per subject' above: one row per group needs GROUP BY, the count is an aggregate "
        "(COUNT(*)), and 'most first' is an ORDER BY on it.",
        "SELECT primary_subject, COUNT(*) AS papers FROM papers GROUP BY primary_subject ORDER BY papers DESC")

#: Probe papers, added inside a savepoint for one re-run of the query: a subject no paper has, and one more cs.AI.
PROBE_SUBJECT = "zz.PROBE"
PROBES = (("9912.99901", PROBE_SUBJECT), ("9912.99902", "cs.AI"))


@checkpoint("papers per subject", hint=HINT)
def check_subjects_sql(conn: oracledb.Connection, subjects_sql: str | None) -> str:
    """subjects_sql returns (primary_subject, number of papers) for every subject, most papers first, counted from
    PAPERS (not written into the query)."""
    expect_filled(subjects_sql, "subjects_sql")
    expect(isinstance(subjects_sql, str), f"subjects_sql is a {type(subjects_sql).__name__}, expected the SQL text",
           "Assign the query as a string: subjects_sql = \"SELECT ...\"")
    counts = Counter(p["primary_subject"] for p in load_papers())
    rows = _run(conn, subjects_sql)
    expect_rows_equal(rows, sorted(counts.items()), what="(subject, papers) rows",
                      hint=("One row per subject with its COUNT(*): GROUP BY primary_subject, and no WHERE clause.",
                            "SELECT primary_subject, COUNT(*) ... FROM papers GROUP BY primary_subject (no WHERE)."))
    expect_ordered_by(rows, 1, descending=True, what="rows",
                      hint=("'Most papers first' is ORDER BY on the count, descending.",
                            "ORDER BY papers DESC (or ORDER BY COUNT(*) DESC, or ORDER BY 2 DESC)."))
    with savepoint(conn):
        _insert_probes(conn)
        probed = _run(conn, subjects_sql)
    counts.update(subject for _, subject in PROBES)
    probed_counts = dict(map(tuple, probed))
    if PROBE_SUBJECT not in probed_counts and probed_counts.get("cs.AI") == counts["cs.AI"]:
        fail(f"with a probe paper of a new subject ({PROBE_SUBJECT}) added to PAPERS, the query leaves that subject "
             f"out: "
             "a row limit (FETCH FIRST) or a filter keeps only the subjects there are today",
             ("Every subject gets its row, however many there are: no row limit, no WHERE (section 6).",
              "SELECT primary_subject, COUNT(*) AS papers FROM papers GROUP BY primary_subject ORDER BY papers DESC"))
    if sorted(map(tuple, probed)) != sorted(counts.items()):
        fail(f"with {len(PROBES)} probe papers added to PAPERS (one of the new subject {PROBE_SUBJECT}), the query "
             "still returns the same counts: it does not count the rows of PAPERS",
             "Count the table instead of writing the numbers into the query: FROM papers GROUP BY primary_subject.")
    return f"{len(rows)} subjects, {sum(n for _, n in rows)} papers, most first"


def _run(conn: oracledb.Connection, sql: str) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql)
        expect(cur.description is not None, "subjects_sql is not a query", "Write a SELECT statement.")
        width = len(cur.description)
        rows = cur.fetchall()
    expect(width == 2, f"the query returns {width} columns, expected 2 (the subject and its number of papers)",
           "SELECT primary_subject, COUNT(*) ...")
    return rows


def _insert_probes(conn: oracledb.Connection) -> None:
    with conn.cursor() as cur:
        cur.executemany("""INSERT INTO papers (arxiv_id, title, abstract, primary_subject, published)
                           VALUES (:1, 'checkpoint probe', 'checkpoint probe', :2, :3)""",
                        [(arxiv_id, subject, date(1999, 12, 1)) for arxiv_id, subject in PROBES])
