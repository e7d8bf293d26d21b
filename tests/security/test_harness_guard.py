"""Attacks on the read-only SQL tool's statement guard (issue 19, claim: the guard resolves names by scope).

Each row is one attack a planner talked into it by a retrieved document could send; every one must be refused
with GuardRefused, and the plain queries below must still pass (an over-strict guard breaks the agent). The
guard is `workshop.harness.guard.guard_select`, the one `query_finance` runs.
"""
from __future__ import annotations

import pytest

from workshop.harness import guard
from workshop.harness.guard import GuardRefused, capped_query, guard_select

ALLOWED = ("FINANCE_LOANS", "FINANCE_CUSTOMERS")
SAR = "finance_sar_reports"

#: (id, statement): the scope of WITH names. The CTE is named after a forbidden table; outside its own WITH the
#: name is the real table again.
SCOPE_ATTACKS = [
    ("exists-shadow", f"SELECT * FROM {SAR} WHERE EXISTS (WITH {SAR} AS (SELECT 1 AS x FROM dual) SELECT x FROM {SAR})"),
    ("exists-shadow-user-tables", "SELECT * FROM user_tables WHERE EXISTS (WITH user_tables AS "
                                  "(SELECT 1 AS x FROM dual) SELECT x FROM user_tables)"),
    ("exists-shadow-approvals", "SELECT * FROM agent_approvals WHERE EXISTS (WITH agent_approvals AS "
                                "(SELECT 1 AS x FROM dual) SELECT x FROM agent_approvals)"),
    ("scalar-subquery-shadow", f"SELECT (WITH {SAR} AS (SELECT 1 AS x FROM dual) SELECT MAX(x) FROM {SAR}) AS n, "
                               f"s.* FROM {SAR} s"),
    ("in-subquery-shadow", f"SELECT * FROM finance_loans WHERE customer_id IN (WITH {SAR} AS (SELECT 1 AS "
                           f"customer_id FROM dual) SELECT customer_id FROM {SAR}) OR customer_id IN "
                           f"(SELECT customer_id FROM {SAR})"),
    ("from-subquery-shadow", f"SELECT * FROM (WITH {SAR} AS (SELECT 1 AS x FROM dual) SELECT x FROM {SAR}) q, {SAR}"),
    ("nested-with-used-outside", f"WITH a AS (WITH {SAR} AS (SELECT 1 AS x FROM dual) SELECT x FROM {SAR}) "
                                 f"SELECT * FROM a, {SAR}"),
    ("earlier-entry-reads-later-name", f"WITH a AS (SELECT * FROM {SAR}), {SAR} AS (SELECT 1 AS x FROM dual) "
                                       "SELECT * FROM a"),
    ("self-reference-without-column-list", f"WITH {SAR} AS (SELECT * FROM {SAR}) SELECT * FROM {SAR}"),
    ("recursive-with-reading-table", f"WITH n (k) AS (SELECT 1 FROM dual UNION ALL SELECT k + 1 FROM n, {SAR} "
                                     "WHERE k < 3) SELECT * FROM n"),
    ("recursive-name-used-by-sibling-subquery", f"SELECT * FROM {SAR} WHERE EXISTS (WITH {SAR} (x) AS "
                                                f"(SELECT 1 FROM dual UNION ALL SELECT x + 1 FROM {SAR} WHERE x < 2) "
                                                f"SELECT x FROM {SAR})"),
    ("shadow-in-union-branch", f"SELECT customer_id FROM finance_loans UNION SELECT customer_id FROM {SAR} "
                               f"WHERE EXISTS (WITH {SAR} AS (SELECT 1 AS x FROM dual) SELECT x FROM {SAR})"),
    ("cte-body-reads-forbidden", f"WITH finance_loans AS (SELECT * FROM {SAR}) SELECT * FROM finance_loans"),
    ("quoted-lower-cte-unquoted-use", f'WITH "{SAR}" AS (SELECT 1 AS x FROM dual) SELECT * FROM {SAR}'),
    ("unquoted-cte-quoted-lower-use", f'WITH x AS (SELECT 1 AS x FROM dual) SELECT * FROM "x"'),
]
#: (id, statement): every other way to name something that is not an allowlisted table.
NAME_ATTACKS = [
    ("forbidden-table", f"SELECT * FROM {SAR}"),
    ("quoted-name", 'SELECT * FROM "FINANCE_SAR_REPORTS"'),
    ("case-variant", "SELECT * FROM FiNaNcE_SaR_RePoRtS"),
    ("schema-qualified-allowed-table", "SELECT * FROM workshop.finance_loans"),
    ("schema-qualified-quoted", 'SELECT * FROM "WORKSHOP"."FINANCE_LOANS"'),
    ("sys-table", "SELECT * FROM sys.obj$"),
    ("db-link", "SELECT * FROM finance_loans@remote_db"),
    ("user-tables", "SELECT table_name FROM user_tables"),
    ("all-tables", "SELECT * FROM all_tables"),
    ("dba-users", "SELECT * FROM dba_users"),
    ("cdb-views", "SELECT * FROM cdb_pdbs"),
    ("v-dollar", "SELECT * FROM v$session"),
    ("gv-dollar", "SELECT * FROM gv$instance"),
    ("dictionary-synonym", "SELECT * FROM dictionary"),
    ("run-record", "SELECT * FROM agent_run_events"),
    ("approvals", "SELECT * FROM agent_approvals"),
    ("union-forbidden", f"SELECT customer_id FROM finance_loans UNION ALL SELECT customer_id FROM {SAR}"),
    ("intersect-forbidden", f"SELECT customer_id FROM finance_loans INTERSECT SELECT customer_id FROM {SAR}"),
    ("minus-forbidden", f"SELECT customer_id FROM finance_loans MINUS SELECT customer_id FROM {SAR}"),
    ("cross-apply", f"SELECT * FROM finance_loans l CROSS APPLY (SELECT * FROM {SAR} s WHERE s.customer_id = l.customer_id)"),
    ("outer-apply", f"SELECT * FROM finance_loans l OUTER APPLY (SELECT * FROM {SAR} s)"),
    ("lateral", f"SELECT * FROM finance_loans l, LATERAL (SELECT * FROM {SAR} s WHERE s.customer_id = l.customer_id) x"),
    ("json-table-over-forbidden", f"SELECT jt.* FROM {SAR} s, JSON_TABLE(s.narrative, '$' COLUMNS (a VARCHAR2(10) PATH '$.a')) jt"),
    ("json-table-subquery", f"SELECT jt.* FROM finance_loans l, JSON_TABLE((SELECT MAX(narrative) FROM {SAR}), '$' "
                            "COLUMNS (a VARCHAR2(10) PATH '$.a')) jt"),
    ("table-function", "SELECT * FROM TABLE(read_everything())"),
    ("xmltable", "SELECT x FROM XMLTABLE('/a' PASSING xmltype('<a/>') COLUMNS x VARCHAR2(10) PATH '.')"),
    ("user-function", "SELECT leak_sar(1) FROM dual"),
    ("package-function", "SELECT kb_security.set_tenant('globex') FROM dual"),
    ("comment-between-tokens", f"SELECT * FROM/**/{SAR}"),
    ("line-comment-between-tokens", f"SELECT *\n-- only loans\nFROM\n{SAR}"),
    ("scalar-subquery-forbidden", f"SELECT (SELECT COUNT(*) FROM {SAR}) AS n FROM dual"),
    ("parenthesised-table", f"SELECT * FROM ({SAR})"),
    ("natural-join", f"SELECT * FROM finance_loans NATURAL JOIN {SAR}"),
    ("cursor-expression", f"SELECT CURSOR(SELECT * FROM {SAR}) FROM dual"),
    ("with-function-plsql", "WITH FUNCTION f RETURN NUMBER IS BEGIN RETURN 1; END; SELECT f() FROM dual"),
    ("table-collection", "SELECT * FROM finance_loans l, TABLE(l.items) t"),
    ("any-subquery", f"SELECT * FROM finance_loans WHERE loan_id = ANY (SELECT customer_id FROM {SAR})"),
    ("order-by-subquery", f"SELECT * FROM finance_loans ORDER BY (SELECT MAX(customer_id) FROM {SAR})"),
    ("having-subquery", f"SELECT loan_id FROM finance_loans GROUP BY loan_id HAVING COUNT(*) > (SELECT COUNT(*) FROM {SAR})"),
    ("fetch-first-subquery", f"SELECT * FROM finance_loans FETCH FIRST (SELECT COUNT(*) FROM {SAR}) ROWS ONLY"),
    ("hint", "SELECT /*+ PARALLEL(64) */ COUNT(*) FROM finance_loans"),
    ("hint-naming-forbidden", f"SELECT /*+ FULL({SAR}) */ 1 FROM dual"),
]
#: (id, statement): statements that are not one read-only query.
STATEMENT_ATTACKS = [
    ("merge", "MERGE INTO finance_loans l USING dual ON (1 = 1) WHEN MATCHED THEN UPDATE SET l.rate_bp = 0"),
    ("insert", "INSERT INTO finance_loans SELECT * FROM finance_loans"),
    ("update", "UPDATE finance_loans SET rate_bp = 0"),
    ("delete", "DELETE FROM finance_loans"),
    ("ddl-drop", "DROP TABLE finance_loans"),
    ("ddl-create", "CREATE TABLE x AS SELECT * FROM finance_loans"),
    ("ddl-truncate", "TRUNCATE TABLE finance_loans"),
    ("plsql-block", "BEGIN DELETE FROM finance_loans; END;"),
    ("plsql-declare", "DECLARE n NUMBER; BEGIN NULL; END;"),
    ("call", "CALL dbms_stats.gather_schema_stats('WORKSHOP')"),
    ("set-transaction", "SET TRANSACTION READ WRITE"),
    ("lock-table", "LOCK TABLE finance_loans IN EXCLUSIVE MODE"),
    ("for-update", "SELECT * FROM finance_loans FOR UPDATE"),
    ("for-update-in-subquery", "SELECT * FROM (SELECT * FROM finance_loans FOR UPDATE)"),
    ("two-statements", "SELECT 1 FROM dual; SELECT 2 FROM dual"),
    ("statement-then-write", "SELECT 1 FROM dual; DELETE FROM finance_loans"),
    ("trailing-semicolon", "SELECT 1 FROM dual;"),
    ("semicolon-after-comment", "SELECT 1 FROM dual /* x */ ;"),
    ("dbms-call", "SELECT dbms_random.value FROM dual"),
    ("utl-call", "SELECT utl_http.request('http://example.com') FROM dual"),
    ("with-delete", "WITH d AS (DELETE FROM finance_loans) SELECT 1 FROM dual"),
    ("commit", "COMMIT"),
    ("empty", "   "),
    ("comment-only", "-- SELECT 1 FROM dual"),
    ("not-text", None),
    ("bytes", b"SELECT 1 FROM dual"),
]
#: (id, statement): plain queries the guard must keep answering.
ACCEPTED = [
    ("semicolon-in-string", "SELECT ';' AS semicolon FROM dual"),
    ("semicolon-and-write-words-in-string", "SELECT 'DELETE FROM finance_loans; COMMIT;' AS t FROM dual"),
    ("semicolon-in-comment", "SELECT 1 FROM dual -- done;"),
    ("union-of-allowed", "SELECT customer_id FROM finance_loans UNION SELECT customer_id FROM finance_customers"),
    ("with-over-union", "WITH big AS (SELECT customer_id FROM finance_loans WHERE rate_bp > 900) "
                        "SELECT customer_id FROM big UNION ALL SELECT customer_id FROM finance_customers"),
    ("cte-in-subquery", "WITH big AS (SELECT customer_id FROM finance_loans WHERE rate_bp > 900) SELECT full_name "
                        "FROM finance_customers WHERE customer_id IN (SELECT customer_id FROM big)"),
    ("later-entry-reads-earlier", "WITH a AS (SELECT loan_id, rate_bp FROM finance_loans), "
                                  "b AS (SELECT loan_id FROM a WHERE rate_bp > 900) SELECT COUNT(*) FROM b"),
    ("nested-with-inside", "SELECT * FROM (WITH a AS (SELECT loan_id FROM finance_loans) SELECT loan_id FROM a)"),
    ("recursive-with", "WITH n (k) AS (SELECT 1 FROM dual UNION ALL SELECT k + 1 FROM n WHERE k < 5) SELECT k FROM n"),
    ("quoted-allowed", 'SELECT COUNT(*) FROM "FINANCE_LOANS"'),
    ("quoted-cte-quoted-use", 'WITH "Big" AS (SELECT loan_id FROM finance_loans) SELECT * FROM "Big"'),
    ("comment-between-tokens", "SELECT COUNT(*) FROM/**/finance_loans"),
    ("builtins", "SELECT NVL(MAX(rate_bp), 0), NUMTODSINTERVAL(1, 'SECOND'), SYSDATE FROM finance_loans"),
    ("json-table-over-allowed", "SELECT jt.a FROM finance_loans l, JSON_TABLE(l.product, '$' COLUMNS "
                                "(a VARCHAR2(10) PATH '$.a')) jt"),
]


@pytest.mark.parametrize("sql", [s for _, s in SCOPE_ATTACKS], ids=[i for i, _ in SCOPE_ATTACKS])
def test_a_with_name_stands_for_its_query_only_inside_its_own_with(sql):
    with pytest.raises(GuardRefused):
        guard_select(sql, ALLOWED)


@pytest.mark.parametrize("sql", [s for _, s in NAME_ATTACKS], ids=[i for i, _ in NAME_ATTACKS])
def test_every_other_name_must_be_an_allowlisted_table(sql):
    with pytest.raises(GuardRefused):
        guard_select(sql, ALLOWED)


@pytest.mark.parametrize("sql", [s for _, s in STATEMENT_ATTACKS], ids=[i for i, _ in STATEMENT_ATTACKS])
def test_only_one_read_only_query_passes(sql):
    with pytest.raises(GuardRefused):
        guard_select(sql, ALLOWED)


@pytest.mark.parametrize("sql", [s for _, s in ACCEPTED], ids=[i for i, _ in ACCEPTED])
def test_plain_queries_still_pass(sql):
    guard_select(sql, ALLOWED)


@pytest.mark.parametrize("view", ["USER_TABLES", "ALL_OBJECTS", "V$SESSION", "DBA_USERS"])
def test_a_dictionary_view_is_refused_even_when_someone_listed_it(view):
    with pytest.raises(GuardRefused, match="data-dictionary"):
        guard_select(f"SELECT * FROM {view}", (*ALLOWED, view))


def test_the_statement_sent_carries_no_comment_of_the_planner():
    """The capped statement is regenerated from the tree without comments: nothing a comment says (such as
    `sqlglot.meta` markers) reaches the database."""
    sent = capped_query("SELECT loan_id /* sqlglot.meta rls_inner */ FROM finance_loans -- sqlglot.meta x", ALLOWED)
    assert "sqlglot.meta" not in sent and "/*" not in sent and "--" not in sent


def test_the_scope_attacks_pass_a_guard_that_collects_every_cte_name(monkeypatch):
    """The table above fails without the fix: with the old rule (any CTE name anywhere in the statement counts
    as allowed) the shadowing attacks get through."""
    monkeypatch.setattr(guard, "names_a_cte", lambda table: guard.object_name(table) in {
        guard.cte_name(c) for c in table.root().find_all(guard.exp.CTE)})
    let_through = [i for i, sql in SCOPE_ATTACKS if _passes(sql)]
    assert {"exists-shadow", "exists-shadow-approvals", "scalar-subquery-shadow", "in-subquery-shadow",
            "nested-with-used-outside", "earlier-entry-reads-later-name"} <= set(let_through)


def _passes(sql: str) -> bool:
    try:
        guard_select(sql, ALLOWED)
    except GuardRefused:
        return False
    return True
