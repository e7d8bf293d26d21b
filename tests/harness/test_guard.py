"""The read-only SQL tool: the statement guard against a fuzz list of hostile statements, the bound row cap, and
the read-only session underneath (a write that bypasses the guard still fails, because of the database)."""
from __future__ import annotations

import oracledb
import pytest

from workshop.harness.guard import GuardRefused, capped_query, guard_select, run_readonly_query

ALLOWED = ("FINANCE_LOANS", "FINANCE_CUSTOMERS")

#: Every statement the guard must refuse (seed-spec §7.2 H2), with what it tries.
HOSTILE = [
    ("ddl", "DROP TABLE finance_loans"),
    ("ddl-create", "CREATE TABLE x AS SELECT * FROM finance_loans"),
    ("ddl-truncate", "TRUNCATE TABLE finance_loans"),
    ("dml-delete", "DELETE FROM finance_loans"),
    ("dml-update", "UPDATE finance_loans SET rate_bp = 0"),
    ("dml-insert-select", "INSERT INTO finance_loans SELECT * FROM finance_loans"),
    ("dml-merge", "MERGE INTO finance_loans l USING dual ON (1 = 1) WHEN MATCHED THEN UPDATE SET l.rate_bp = 0"),
    ("stacked", "SELECT 1 FROM dual; DELETE FROM finance_loans"),
    ("stacked-comment", "SELECT 1 FROM dual /* harmless */; DELETE FROM finance_loans"),
    ("stacked-newline", "SELECT 1 FROM dual\n;\nDROP TABLE finance_loans"),
    ("trailing-semicolon", "SELECT 1 FROM dual;"),
    ("with-delete", "WITH d AS (DELETE FROM finance_loans) SELECT 1 FROM dual"),
    ("with-update", "WITH d AS (UPDATE finance_loans SET rate_bp = 0) SELECT * FROM finance_loans"),
    ("for-update", "SELECT * FROM finance_loans FOR UPDATE"),
    ("for-update-nowait", "SELECT loan_id FROM finance_loans WHERE rate_bp > 0 FOR UPDATE NOWAIT"),
    ("comment-hidden-dml", "/* SELECT */ DELETE FROM finance_loans"),
    ("comment-hidden-dml-2", "DELETE /* SELECT * FROM finance_loans */ FROM finance_loans"),
    ("plsql-block", "BEGIN DELETE FROM finance_loans; END;"),
    ("plsql-declare", "DECLARE n NUMBER; BEGIN NULL; END;"),
    ("plsql-execute-immediate", "BEGIN EXECUTE IMMEDIATE 'DROP TABLE finance_loans'; END;"),
    ("dbms-call", "SELECT dbms_random.value FROM dual"),
    ("dbms-upper", "SELECT DBMS_LOB.GETLENGTH(full_name) FROM finance_customers"),
    ("dbms-qualified", "SELECT sys.dbms_assert.noop('x') FROM dual"),
    ("utl-http", "SELECT utl_http.request('http://example.com') FROM dual"),
    ("call", "CALL dbms_stats.gather_schema_stats('WORKSHOP')"),
    ("not-allowlisted", "SELECT * FROM finance_transactions"),
    ("not-allowlisted-join", "SELECT * FROM finance_loans l JOIN finance_sar_reports s ON s.customer_id = l.customer_id"),
    ("not-allowlisted-subquery", "SELECT * FROM finance_loans WHERE customer_id IN (SELECT customer_id FROM agent_runs)"),
    ("dictionary", "SELECT * FROM user_tables"),
    ("schema-qualified", "SELECT * FROM workshop.finance_loans"),
    ("cte-shadowing-is-still-checked", "WITH finance_loans AS (SELECT * FROM finance_sar_reports) SELECT * FROM finance_loans"),
    ("mixed-case", "dElEtE fRoM FiNaNcE_LoAnS"),
    ("whitespace", "\n\t  SELECT\n*\nFROM\tfinance_loans\n\tFOR\n  UPDATE  "),
    ("grant", "GRANT SELECT ON finance_loans TO public"),
    ("alter-session", "ALTER SESSION SET CURRENT_SCHEMA = SYS"),
    ("lock-table", "LOCK TABLE finance_loans IN EXCLUSIVE MODE"),
    ("commit", "COMMIT"),
    ("empty", "   "),
    ("comment-only", "-- SELECT 1 FROM dual"),
]

ACCEPTED = [
    "SELECT 1 FROM dual",
    "select count(*) from finance_loans",
    "WITH big AS (SELECT loan_id, rate_bp FROM finance_loans WHERE rate_bp > 500) SELECT COUNT(*) FROM big",
    "SELECT c.full_name FROM finance_customers c JOIN finance_loans l ON l.customer_id = c.customer_id "
    "ORDER BY c.customer_id",
    "SELECT 'DELETE FROM finance_loans; dbms_x' AS text FROM dual",       # words inside a string are data
    "SELECT 1 FROM dual -- ; DELETE FROM finance_loans",                  # a comment is not a statement
    "SELECT SYSDATE FROM dual",
]


@pytest.mark.parametrize("sql", [s for _, s in HOSTILE], ids=[i for i, _ in HOSTILE])
def test_the_guard_refuses_every_hostile_statement(sql):
    with pytest.raises(GuardRefused):
        guard_select(sql, ALLOWED)


@pytest.mark.parametrize("sql", ACCEPTED)
def test_the_guard_accepts_plain_queries(sql):
    guard_select(sql, ALLOWED)


@pytest.mark.parametrize("sql", [s for _, s in HOSTILE], ids=[i for i, _ in HOSTILE])
def test_a_refused_statement_leaves_the_tables_unchanged(conns, sql):
    rw, ro = conns
    count = rw.cursor().execute("SELECT COUNT(*), SUM(rate_bp) FROM finance_loans").fetchone()
    with pytest.raises(GuardRefused):
        run_readonly_query(ro, sql, ALLOWED, max_rows=5)
    assert rw.cursor().execute("SELECT COUNT(*), SUM(rate_bp) FROM finance_loans").fetchone() == count


def test_dual_returns_one_row(conns):
    _, ro = conns
    assert run_readonly_query(ro, "SELECT 1 AS one FROM dual", ALLOWED) == [{"one": 1}]


@pytest.mark.parametrize("max_rows", [1, 3, 50])
def test_the_row_cap_is_bound_and_holds(conns, max_rows):
    _, ro = conns
    rows = run_readonly_query(ro, "SELECT loan_id FROM finance_loans ORDER BY loan_id", ALLOWED, max_rows=max_rows)
    assert len(rows) == max_rows
    assert ":max_rows" in capped_query("SELECT 1 FROM dual", ALLOWED)


@pytest.mark.parametrize("max_rows", [0, 51, -1, "5", 2.5, True, None])
def test_an_out_of_range_row_cap_is_refused(conns, max_rows):
    _, ro = conns
    with pytest.raises(GuardRefused, match="max_rows"):
        run_readonly_query(ro, "SELECT 1 FROM dual", ALLOWED, max_rows=max_rows)


def test_a_write_past_the_guard_fails_because_of_the_database(conns):
    """The second layer: the same DELETE sent straight to the read-only session is refused by the engine."""
    rw, ro = conns
    before = rw.cursor().execute("SELECT COUNT(*) FROM finance_loans").fetchone()
    with pytest.raises(oracledb.DatabaseError, match="ORA-01031"):
        ro.cursor().execute("DELETE FROM finance_loans")
    assert rw.cursor().execute("SELECT COUNT(*) FROM finance_loans").fetchone() == before


def test_a_semicolon_token_is_named_as_such_and_one_in_a_comment_is_text():
    with pytest.raises(GuardRefused, match="contains a ';' outside strings and comments"):
        guard_select("SELECT 1 FROM dual /* done */ ;", ["DUAL"])
    guard_select("SELECT 1 FROM dual -- done;", ["DUAL"])       # a comment is a comment
    with pytest.raises(GuardRefused, match="exactly one statement allowed, found 2"):
        guard_select("SELECT 1 FROM dual; SELECT 2 FROM dual", ["DUAL"])
