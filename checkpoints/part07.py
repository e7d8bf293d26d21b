"""Checkpoints of part 07, the agent's harness (notebooks/07_agent_harness.ipynb).

Each check drives the learner's function with probes chosen so that the plausible wrong answers differ from
the right one: a toolset with an extra tool and one with a missing tool, a fuzz list of hostile statements
and a list of plain queries the guard must still accept, a rate threshold equal to an existing rate (so `>=`
differs from `>`) with ties on the rate (so a missing tie-break shows), and findings of another run with the
same case reference. Reports and the verifier run on a recording proxy of the connection, so values
formatted into the SQL and filtering in Python fail too. Every check leaves the database as it found it.

    from checkpoints import part07
    part07.check_tool_allowlist(conn, check_toolset)
    part07.check_sql_guard(conn, guard_select)
    part07.check_governed_report(conn, loans_above_rate)
    part07.check_verifier(conn, finding_saved)
"""
from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import oracledb

from workshop.harness.reports import LOANS_ABOVE_RATE

from .framework import RecordingConnection, checkpoint, expect, expect_bound, fail, savepoint

NOTEBOOK = "07_agent_harness.ipynb"

ALLOWLIST_HINT = ("Discovery must return exactly the allowlist: compare set(available) with set(allowed), refuse "
                  "extra and missing tools alike, and return the allowlist.")
GUARD_HINT = ("Parse with sqlglot.parse(sql, read='oracle'): exactly one statement and no ';', a QUERY_NODES root, "
              "no WRITE_NODES anywhere, no select.args['locks'], no package_names(sql), every exp.Table allowed.")
REPORT_HINT = ("Validate rate_bp (an int, not a bool, 0..10000) before any SQL; then one fixed statement with "
               ":rate_bp bound, WHERE rate_bp > :rate_bp, ORDER BY rate_bp DESC, loan_id.")
VERIFIER_HINT = ("Read AGENT_FINDINGS back: COUNT(*) WHERE run_id = :run_id AND case_ref = :case_ref, both bound; "
                 "True only for exactly that run's row.")

ALLOWED_TABLES = ("FINANCE_LOANS", "FINANCE_CUSTOMERS")

#: The statements the learner's guard must refuse (the full fuzz list is in tests/harness/test_guard.py).
HOSTILE = [
    ("DDL", "DROP TABLE finance_loans"),
    ("DML", "delete from finance_loans"),
    ("INSERT ... SELECT", "INSERT INTO finance_loans SELECT * FROM finance_loans"),
    ("stacked statements", "SELECT 1 FROM dual; DELETE FROM finance_loans"),
    ("a trailing ';'", "SELECT 1 FROM dual;"),
    ("WITH ... DELETE", "WITH d AS (DELETE FROM finance_loans) SELECT 1 FROM dual"),
    ("FOR UPDATE", "SELECT * FROM finance_loans FOR UPDATE"),
    ("FOR UPDATE split over lines", "select loan_id\nfrom finance_loans\n  for\n update nowait"),
    ("DML behind a comment", "/* SELECT */ DELETE FROM finance_loans"),
    ("a PL/SQL block", "BEGIN DELETE FROM finance_loans; END;"),
    ("a DBMS_ call", "SELECT dbms_random.value FROM dual"),
    ("a qualified DBMS_ call", "SELECT sys.dbms_assert.noop('x') FROM dual"),
    ("a table not on the allowlist", "SELECT * FROM finance_sar_reports"),
    ("a table not on the allowlist in a subquery",
     "SELECT * FROM finance_loans WHERE customer_id IN (SELECT customer_id FROM finance_sar_reports)"),
    ("a schema-qualified table", "SELECT * FROM workshop.finance_loans"),
    ("mixed case", "DeLeTe FrOm FiNaNcE_lOaNs"),
]
#: Plain queries the guard must still accept (an over-strict guard breaks the agent's next cell).
ACCEPTED = [
    ("SELECT 1 FROM dual", "SELECT 1 FROM dual"),
    ("a join of two allowed tables", "SELECT c.full_name, l.rate_bp FROM finance_loans l JOIN finance_customers c "
                                     "ON c.customer_id = l.customer_id ORDER BY l.loan_id"),
    ("a WITH over its own CTE", "WITH big AS (SELECT loan_id FROM finance_loans WHERE rate_bp > 900) "
                                "SELECT COUNT(*) FROM big"),
    ("write words inside a string", "SELECT 'DELETE FROM finance_loans; dbms_x' AS text FROM dual"),
    ("SYSDATE", "SELECT SYSDATE FROM dual"),
    ("lower case and a line comment", "select count(*) from finance_loans -- ; delete from finance_loans"),
]


# --------------------------------------------------------------------------- TODO 1
@checkpoint("the fail-closed tool allowlist", hint=ALLOWLIST_HINT)
def check_tool_allowlist(conn: oracledb.Connection, check_toolset: Callable) -> str:
    allowed = ["loans_above_rate", "query_finance", "save_finding"]
    for name, available in (("the same tools in another order", list(reversed(allowed))),
                            ("a dict of the tools", {n: object() for n in allowed}),
                            ("a tool listed twice", allowed + ["query_finance"])):
        try:
            result = check_toolset(available, allowed)
        except NotImplementedError:
            raise
        except Exception as error:  # noqa: BLE001 - any refusal of a correct toolset is the learner's mistake
            fail(f"check_toolset refused {name} ({type(error).__name__}: {error}): only the set of names matters")
        expect(result is not None and set(result) == set(allowed),
               f"check_toolset returned {result!r} for {name}; the next cell starts the harness with the allowlist "
               "it returns", "Return the allowlist, e.g. frozenset(allowed).")
    for name, available in (("an extra tool (write_query)", allowed + ["write_query"]),
                            ("a missing tool (save_finding)", allowed[:2]),
                            ("one tool swapped for another", allowed[:2] + ["drop_table"]),
                            ("no tools at all", [])):
        try:
            check_toolset(available, allowed)
        except NotImplementedError:
            raise
        except Exception:  # noqa: BLE001 - the refusal is what we want
            continue
        fail(f"check_toolset accepted {name}: the agent would start with authority nobody granted or without a "
             "tool it needs")
    return "exact set accepted; extra, missing and swapped tools refused"


# --------------------------------------------------------------------------- TODO 2
@checkpoint("the read-only SQL guard", hint=GUARD_HINT)
def check_sql_guard(conn: oracledb.Connection, guard_select: Callable) -> str:
    for what, sql in ACCEPTED:
        try:
            guard_select(sql, ALLOWED_TABLES)
        except NotImplementedError:
            raise
        except Exception as error:  # noqa: BLE001 - an over-strict guard
            fail(f"guard_select refused {what} ({sql!r}): {error}; the read-only tool must still answer plain "
                 "queries")
    for what, sql in HOSTILE:
        try:
            guard_select(sql, ALLOWED_TABLES)
        except NotImplementedError:
            raise
        except Exception:  # noqa: BLE001 - refused, as it must be
            continue
        fail(f"guard_select let {what} through: {sql!r}")
    return f"{len(HOSTILE)} hostile statements refused, {len(ACCEPTED)} plain queries accepted"


# --------------------------------------------------------------------------- TODO 3
def _boundary_rate(conn: oracledb.Connection) -> int:
    """A rate several loans share: `>` and `>=` differ there, and the loans above it include ties."""
    with conn.cursor() as cur:
        cur.execute("SELECT rate_bp FROM finance_loans GROUP BY rate_bp HAVING COUNT(*) > 1 "
                    "ORDER BY COUNT(*) DESC, rate_bp DESC FETCH FIRST 1 ROWS ONLY")
        row = cur.fetchone()
    if row is None:
        fail("FINANCE_LOANS has no two loans at one rate: run python -m workshop.setup")
    return int(row[0])


def _ends_with_loan_id(sql: str) -> bool:
    """The statement's last ORDER BY key is LOAN_ID (by name, alias or select-list position): ties on the rate
    are broken. Read with sqlglot, as Oracle would parse it; an equal result on one database can hide this."""
    import sqlglot
    from sqlglot import exp
    try:
        tree = sqlglot.parse_one(sql, read="oracle")
    except sqlglot.errors.SqlglotError:
        return False
    order = tree.args.get("order") if isinstance(tree, exp.Select) else None
    if order is None or not order.expressions:
        return False
    last = order.expressions[-1].this
    if isinstance(last, exp.Literal) and not last.is_string:
        items = tree.expressions
        index = int(last.this) - 1
        return 0 <= index < len(items) and items[index].alias_or_name.upper() == "LOAN_ID"
    return isinstance(last, exp.Column) and last.name.upper() == "LOAN_ID"


@checkpoint("a governed report tool", hint=REPORT_HINT)
def check_governed_report(conn: oracledb.Connection, loans_above_rate: Callable) -> str:
    rate = _boundary_rate(conn)
    for bad in ("1400", 1400.0, True, -1, 10001, None, "1400 OR 1 = 1"):
        recorder = RecordingConnection(conn)
        try:
            loans_above_rate(recorder, bad)
        except NotImplementedError:
            raise
        except (ValueError, TypeError):
            expect(not recorder.statements, f"loans_above_rate({bad!r}) ran SQL before refusing the input",
                   "Validate first, then open the cursor.")
            continue
        fail(f"loans_above_rate({bad!r}) was accepted: a governed tool refuses ill-typed or out-of-range input "
             "before any SQL runs")
    expected = LOANS_ABOVE_RATE.run(conn, rate_bp=rate)
    texts = []
    for probe in (rate, rate - 100):
        recorder = RecordingConnection(conn)
        rows = loans_above_rate(recorder, probe)
        expect(isinstance(rows, list) and all(isinstance(r, dict) for r in rows),
               f"loans_above_rate returned {type(rows).__name__}, expected a list of dicts (the agent logs them)")
        expect(len(recorder.statements) == 1, f"loans_above_rate ran {len(recorder.statements)} statements, "
                                              "expected one fixed statement")
        expect_bound(recorder, {"rate_bp": probe}, "loans_above_rate", hint=REPORT_HINT)
        expect(recorder.rows_fetched == len(rows), f"the statement fetched {recorder.rows_fetched} rows and the "
               f"function returned {len(rows)}: filter in the SQL, not in Python")
        texts.append(recorder.statements[0].sql)
        if probe == rate:
            got = [r.get("loan_id") for r in rows]
            want = [r["loan_id"] for r in expected]
            if set(got) != set(want):
                extra = sorted(set(got) - set(want))[:3]
                fail(f"loans_above_rate({rate}) returned {len(got)} loans, expected {len(want)}"
                     + (f"; loans at exactly {rate} bp (e.g. {extra}) are not *above* it" if extra else ""))
            expect(got == want, f"loans_above_rate({rate}) has the right loans in another order: highest rate first, "
                                "ties broken by loan_id (ORDER BY rate_bp DESC, loan_id)")
    expect(texts[0] == texts[1], "the SQL text changed with the input: a governed tool runs one fixed statement")
    expect(_ends_with_loan_id(texts[0]), "the ORDER BY does not end with loan_id: loans at one rate come back in "
           "whatever order the database reads them (ties broken by loan_id: ORDER BY rate_bp DESC, loan_id)")
    return f"{len(expected)} loans above {rate} bp, ordered, one bound statement"


# --------------------------------------------------------------------------- TODO 4
@checkpoint("the verifier reads authoritative state back", hint=VERIFIER_HINT)
def check_verifier(conn: oracledb.Connection, finding_saved: Callable) -> str:
    run, other = "ckpt" + uuid.uuid4().hex[:20], "ckpt" + uuid.uuid4().hex[:20]
    was_open = conn.transaction_in_progress
    try:
        _verifier_probes(conn, finding_saved, run, other)
    finally:
        if not was_open:
            conn.rollback()           # nothing of the learner's was pending: end the probe's transaction too
    return "saved, missing and another run's findings told apart from AGENT_FINDINGS"


def _verifier_probes(conn: oracledb.Connection, finding_saved: Callable, run: str, other: str) -> None:
    with savepoint(conn):
        with conn.cursor() as cur:
            cur.execute("INSERT INTO agent_findings (run_id, case_ref, note) VALUES (:r, :c, 'probe')",
                        r=run, c="CASE-7")
            cur.execute("INSERT INTO agent_findings (run_id, case_ref, note) VALUES (:r, :c, 'probe')",
                        r=other, c="CASE-8")
        recorder = RecordingConnection(conn)
        cases: list[tuple[str, str, bool, str]] = [
            (run, "CASE-7", True, "this run's saved finding"),
            (run, "CASE-8", False, "a finding another run saved"),
            (other, "CASE-7", False, "a case saved by another run"),
            (run, "CASE-9", False, "a finding nobody saved (the planner only said so)"),
        ]
        for run_id, case_ref, want, what in cases:
            got = finding_saved(recorder, run_id, case_ref)
            expect(isinstance(got, (bool, int)) and bool(got) == want,
                   f"finding_saved returned {got!r} for {what}, expected {want}")
        expect(recorder.queries(), "finding_saved did not query the database: the verifier must read state back, "
                                   "not trust the answer")
        expect_bound(recorder, {"run_id": run, "case_ref": "CASE-9"}, "finding_saved", hint=VERIFIER_HINT)
