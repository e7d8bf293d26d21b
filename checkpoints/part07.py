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
    part07.check_budget(conn, budgeted_call)
    part07.check_verifier(conn, finding_saved)
    part07.check_run_record(conn, redact)
    part07.check_identity(conn, tenant_tool)
    part07.check_approval(conn, consume_approval)

The budget, run-record and identity checks also drive a Harness (on probe tools, or the cases table) with the
learner's function plugged in, and delete the runs they recorded.
"""
from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import oracledb

from workshop.harness.budget import Budget, BudgetExhausted
from workshop.harness.reports import LOANS_ABOVE_RATE
from workshop.harness.toolset import ToolsetMismatch
from workshop.memory.tokens import estimate_tokens

from .framework import RecordingConnection, checkpoint, expect, expect_bound, fail, savepoint
from .framework.sql import order_by_keys

NOTEBOOK = "07_agent_harness.ipynb"

ALLOWLIST_HINT = ("Fail closed: the harness starts only when discovery returns exactly the granted tools (section 1, "
                  "'Tools: a fail-closed allowlist').",
                  ("Discovery must return exactly the allowlist: compare set(available) with set(allowed), refuse "
                  "extra and missing tools alike, and return the allowlist."))
GUARD_HINT = (
    "Re-read the guard's rules in the prose above TODO 2 (one statement and no ';' token, a query at the root, no "
    "writes, locks or package calls, every table allowed or a WITH query in scope, no schema-qualified names).",
    "Parse with sqlglot.parse(sql, read='oracle'): exactly one statement and not has_semicolon(sql); a QUERY_NODES "
    "root; no WRITE_NODES and no select.args['locks'] in tree.walk(); no package_names(sql); then for every "
    "exp.Table: refuse table.db, accept object_name(table) in allowed or DUAL, else it must name a CTE in scope.",
    "For the scope, walk up from the table: child, node = table, table.parent. At an exp.With reached from its "
    "entry k, only entries before k count; at an exp.Query reached from anything but its WITH, all of node.ctes "
    "count; compare cte_name(cte) == object_name(table). No match up to the root: the table must be allowlisted.")
REPORT_HINT = ('A governed report validates its input before any SQL and runs one fixed statement with the value '
               'bound (section 3).',
               ("Validate rate_bp (an int, not a bool, 0..10000) before any SQL; then one fixed statement with "
               ":rate_bp bound, WHERE rate_bp > :rate_bp, ORDER BY rate_bp DESC, loan_id."))
BUDGET_HINT = ("A budget counts a call when it is made and admits an output only if it fits (section 4, 'Budgets').",
               ("Before the tool runs: budget.tool_calls >= budget.max_tool_calls raises BudgetExhausted('tool_calls', "
               "...), else count the call. After it: cost = estimate_tokens(str(output)); budget.tokens + cost > "
               "budget.max_tokens raises BudgetExhausted('tokens', ...), else add the cost and return the output."))
RUN_RECORD_HINT = ('Redaction walks the value and builds a new one: secret keys and secret-looking text go, '
                   'everything else is kept (section 6).',
                   ("Recurse: a dict keeps its keys (the value of a key matching SECRET_KEYS becomes REDACTED), a list "
                   "or tuple becomes a list of redacted items, a str has every SECRET_VALUES pattern substituted "
                   "(all matches), anything else comes back unchanged. Build new objects; never change the input."))
IDENTITY_HINT = ("The tool's tenant is bound by the trusted package on the session, on every call, never read from an "
                 "argument (section 7).",
                 ("Refuse an empty tenant with ValueError. Return a function open_cases(**arguments) that calls "
                 "security.set_tenant(conn, tenant) on every call, then returns OPEN_CASES.run(conn, **arguments); "
                 "it takes no tenant argument."))
APPROVAL_HINT = ("Check and consume a human's approval in one compare-and-set statement, then commit it (section 9, "
                 "'Approval').",
                 ("One UPDATE agent_approvals SET status = 'consumed' WHERE approval_id = :approval_id AND status = "
                 "'approved' AND run_id = :run_id AND tool = :tool AND args_digest = :digest AND actor = :actor AND "
                 "expires_at > SYS_EXTRACT_UTC(SYSTIMESTAMP), with digest=digest(tool, arguments); return "
                 "cur.rowcount == 1."))
VERIFIER_HINT = ("The verifier reads the authoritative row back, matched exactly on both keys (section 5, 'The "
                 "verifier').",
                 ("Read AGENT_FINDINGS back: COUNT(*) WHERE run_id = :run_id AND case_ref = :case_ref, both bound; "
                 "True only for exactly that run's row."))

ALLOWED_TABLES = ("FINANCE_LOANS", "FINANCE_CUSTOMERS")
REPORT_KEYS = ("loan_id", "customer_id", "product", "rate_bp", "status")

#: Why a statement of the scope probes must be refused (shown with the failure: the rule, not the fix).
_SCOPE = ("a WITH query's name stands for it only inside its own WITH (its query and that query's subqueries, and "
          "the WITH's later entries); everywhere else the name is the real table, which must be allowlisted")
_ORDER = ("a WITH entry sees only the entries before it: FINANCE_SAR_REPORTS inside the first entry is the real "
          "table, whatever a later entry is called")
#: The statements the learner's guard must refuse (the full fuzz list is in tests/harness/test_guard.py and
#: tests/security/test_harness_guard.py), with the rule each one breaks.
HOSTILE = [
    ("DDL", "DROP TABLE finance_loans", "only a query may run"),
    ("DML", "delete from finance_loans", "only a query may run"),
    ("INSERT ... SELECT", "INSERT INTO finance_loans SELECT * FROM finance_loans", "only a query may run"),
    ("stacked statements", "SELECT 1 FROM dual; DELETE FROM finance_loans", "exactly one statement"),
    ("a trailing ';'", "SELECT 1 FROM dual;", "no ';' token (cursor.execute takes no terminator)"),
    ("WITH ... DELETE", "WITH d AS (DELETE FROM finance_loans) SELECT 1 FROM dual", "no write anywhere in the tree"),
    ("FOR UPDATE", "SELECT * FROM finance_loans FOR UPDATE", "no row locks"),
    ("FOR UPDATE split over lines", "select loan_id\nfrom finance_loans\n  for\n update nowait", "no row locks"),
    ("DML behind a comment", "/* SELECT */ DELETE FROM finance_loans", "only a query may run"),
    ("a PL/SQL block", "BEGIN DELETE FROM finance_loans; END;", "only a query may run"),
    ("a DBMS_ call", "SELECT dbms_random.value FROM dual", "no package calls"),
    ("a qualified DBMS_ call", "SELECT sys.dbms_assert.noop('x') FROM dual", "no package calls"),
    ("a table not on the allowlist", "SELECT * FROM finance_sar_reports", "every table must be allowlisted"),
    ("a table not on the allowlist in a subquery",
     "SELECT * FROM finance_loans WHERE customer_id IN (SELECT customer_id FROM finance_sar_reports)",
     "every table must be allowlisted, in subqueries too"),
    ("a UNION with a table not on the allowlist",
     "SELECT customer_id FROM finance_loans UNION SELECT customer_id FROM finance_sar_reports",
     "every table must be allowlisted, in each branch of a UNION"),
    ("a schema-qualified table", "SELECT * FROM workshop.finance_loans",
     "schema-qualified names are refused, even of an allowed table"),
    ("a data-dictionary view", "SELECT table_name FROM user_tables", "every table must be allowlisted"),
    ("mixed case", "DeLeTe FrOm FiNaNcE_lOaNs", "only a query may run"),
    ("MERGE", "MERGE INTO finance_loans l USING finance_customers c ON (l.customer_id = c.customer_id) "
              "WHEN MATCHED THEN UPDATE SET l.rate_bp = 0", "only a query may run"),
    ("a statement that is not a query (SET TRANSACTION)", "SET TRANSACTION READ WRITE", "only a query may run"),
    ("a CTE named like a forbidden table, in an EXISTS subquery, shadowing the outer table",
     "SELECT * FROM finance_sar_reports WHERE EXISTS (WITH finance_sar_reports AS (SELECT 1 AS x FROM dual) "
     "SELECT x FROM finance_sar_reports)", _SCOPE),
    ("the same shadowing reading a dictionary view",
     "SELECT * FROM user_tables WHERE EXISTS (WITH user_tables AS (SELECT 1 AS x FROM dual) "
     "SELECT x FROM user_tables)", _SCOPE),
    ("a CTE shadowing in a scalar subquery",
     "SELECT (WITH finance_sar_reports AS (SELECT 1 AS x FROM dual) SELECT MAX(x) FROM finance_sar_reports) AS n, "
     "s.* FROM finance_sar_reports s", _SCOPE),
    ("a CTE shadowing in an IN subquery",
     "SELECT * FROM finance_loans WHERE customer_id IN (WITH finance_sar_reports AS (SELECT 1 AS customer_id "
     "FROM dual) SELECT customer_id FROM finance_sar_reports) OR customer_id IN (SELECT customer_id FROM "
     "finance_sar_reports)", _SCOPE),
    ("a CTE of a nested WITH used outside it",
     "WITH a AS (WITH finance_sar_reports AS (SELECT 1 AS x FROM dual) SELECT x FROM finance_sar_reports) "
     "SELECT * FROM a, finance_sar_reports", _SCOPE),
    ("an earlier WITH entry reading a table a later entry is named after",
     "WITH a AS (SELECT * FROM finance_sar_reports), finance_sar_reports AS (SELECT 1 AS x FROM dual) "
     "SELECT * FROM a", _ORDER),
    ("a lower-case quoted CTE name that does not match the unquoted table name",
     'WITH "finance_sar_reports" AS (SELECT 1 AS x FROM dual) SELECT * FROM finance_sar_reports',
     "names compare as Oracle compares them: the quoted \"finance_sar_reports\" is another name than "
     "FINANCE_SAR_REPORTS (object_name and cte_name)"),
]
#: Plain queries the guard must still accept (an over-strict guard breaks the agent's next cell).
ACCEPTED = [
    ("SELECT 1 FROM dual", "SELECT 1 FROM dual"),
    ("a join of two allowed tables", "SELECT c.full_name, l.rate_bp FROM finance_loans l JOIN finance_customers c "
                                     "ON c.customer_id = l.customer_id ORDER BY l.loan_id"),
    ("a WITH over its own CTE", "WITH big AS (SELECT loan_id FROM finance_loans WHERE rate_bp > 900) "
                                "SELECT COUNT(*) FROM big"),
    ("a WITH entry reading an earlier one", "WITH a AS (SELECT loan_id, rate_bp FROM finance_loans), "
                                            "b AS (SELECT loan_id FROM a WHERE rate_bp > 900) SELECT COUNT(*) FROM b"),
    ("a CTE used in a subquery of its query", "WITH big AS (SELECT customer_id FROM finance_loans WHERE rate_bp > 900) "
                                              "SELECT full_name FROM finance_customers WHERE customer_id IN "
                                              "(SELECT customer_id FROM big)"),
    ("a UNION of two allowed tables", "SELECT customer_id FROM finance_loans UNION "
                                      "SELECT customer_id FROM finance_customers"),
    ("a WITH over a UNION", "WITH big AS (SELECT customer_id FROM finance_loans WHERE rate_bp > 900) "
                            "SELECT customer_id FROM big UNION ALL SELECT customer_id FROM finance_customers"),
    ("write words and a ';' inside a string", "SELECT 'DELETE FROM finance_loans; dbms_x' AS text FROM dual"),
    ("a ';' as a string literal", "SELECT ';' AS semicolon FROM dual"),
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
                            ("a tool named in another case (SAVE_FINDING)", allowed[:2] + ["SAVE_FINDING"]),
                            ("no tools at all", [])):
        try:
            check_toolset(available, allowed)
        except NotImplementedError:
            raise
        except ToolsetMismatch:
            continue
        except Exception as error:  # noqa: BLE001 - refused, but not in a way the harness recognises
            fail(f"check_toolset refused {name} with {type(error).__name__}, not ToolsetMismatch: the next cell (and "
                 f"the "
                 "harness) catch ToolsetMismatch to refuse to start, so any other exception crashes them instead",
                 ("A refusal the harness understands has its own type (section 1, 'fail closed').",
                  "raise ToolsetMismatch(...) naming the extra and the missing tools."))
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
                 "queries", GUARD_HINT)
    for what, sql, rule in HOSTILE:
        try:
            guard_select(sql, ALLOWED_TABLES)
        except NotImplementedError:
            raise
        except Exception:  # noqa: BLE001 - refused, as it must be
            continue
        fail(f"guard_select let {what} through: {sql!r}. The rule: {rule}.", GUARD_HINT)
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
    are broken. Read with the engine's Oracle dialect tokenizer (binds such as :1 read as Oracle reads them); an
    equal result on one database can hide a missing tie-break."""
    try:
        keys = order_by_keys(sql)
    except ValueError:
        return False
    return bool(keys) and keys[-1] == "LOAN_ID"


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
    for edge in (0, 10000):
        try:
            loans_above_rate(RecordingConnection(conn), edge)
        except NotImplementedError:
            raise
        except (ValueError, TypeError) as error:
            fail(f"loans_above_rate({edge}) was refused ({error}): the rates run from 0 to 10000 inclusive, and a "
                 "governed tool must answer every valid input", "0 <= rate_bp <= 10000")
    expected = LOANS_ABOVE_RATE.run(conn, rate_bp=rate)
    texts = []
    for probe in (rate, rate - 100):
        recorder = RecordingConnection(conn)
        rows = loans_above_rate(recorder, probe)
        expect(isinstance(rows, list) and all(isinstance(r, dict) for r in rows),
               f"loans_above_rate returned {type(rows).__name__}, expected a list of dicts (the agent logs them)")
        odd = next((r for r in rows if not set(REPORT_KEYS) <= set(r)), None)
        expect(odd is None, f"a row has the keys {sorted(map(str, odd or {}))}, expected the lower-case keys "
               f"{list(REPORT_KEYS)} (the agent and the next cell read them by name)",
               ("Rows as dicts keyed by the column names in lower case (cur.description names them).",
                "names = [d[0].lower() for d in cur.description]"))
        extra = sorted({str(k) for r in rows for k in r} - set(REPORT_KEYS))
        expect(not extra, f"the report's rows carry {extra} besides {list(REPORT_KEYS)}: a governed report shows the "
               "model only the columns it was granted (SELECT * hands it every column of the table)",
               ("A governed report names its columns; it never selects everything (section 3).",
                "SELECT loan_id, customer_id, product, rate_bp, status ..."))
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
            (run, "CASE-%", False, "a claimed case 'CASE-%' (a LIKE wildcard, not a case reference)"),
            (run, "CASE-", False, "a claimed case 'CASE-' (only the start of a saved one)"),
        ]
        calls = []
        for run_id, case_ref, want, what in cases:
            first = len(recorder.statements)
            got = finding_saved(recorder, run_id, case_ref)
            expect(isinstance(got, (bool, int)) and bool(got) == want,
                   f"finding_saved returned {got!r} for {what}, expected {want}")
            calls.append((run_id, case_ref, recorder.statements[first:]))
        expect(recorder.queries(), "finding_saved did not query the database: the verifier must read state back, "
                                   "not trust the answer")
        expect_bound(recorder, {"run_id": run, "case_ref": "CASE-9"}, "finding_saved", hint=VERIFIER_HINT)
        for run_id, case_ref, statements in calls:
            bound = [v for statement in statements for v in statement.bind_values()]
            expect(run_id in bound and case_ref in bound,
                   f"finding_saved({run_id!r}, {case_ref!r}) did not bind both values: the database must find the "
                   "row (WHERE run_id = :run_id AND case_ref = :case_ref, both bound), not Python filter the run's "
                   "rows", VERIFIER_HINT)


# --------------------------------------------------------------------------- the budget
class _ProbeTool:
    """A tool that counts how often it really ran and returns a text of a known token cost."""

    def __init__(self, text: str):
        self.text, self.runs, self.arguments = text, 0, []

    def __call__(self, **arguments: Any) -> str:
        self.runs += 1
        self.arguments.append(arguments)
        return self.text


def _exhausts(budgeted_call: Callable, budget: Budget, tool: _ProbeTool, calls: int) -> tuple[int, Any]:
    """Call up to `calls` times; (how many calls returned, the BudgetExhausted that ended them or None)."""
    for done in range(calls):
        try:
            output = budgeted_call(budget, tool, {"probe": done})
        except NotImplementedError:
            raise
        except BudgetExhausted as exhausted:
            return done, exhausted
        except Exception as error:  # noqa: BLE001 - the harness ends a run only on BudgetExhausted
            fail(f"budgeted_call raised {type(error).__name__}: {error}; the harness ends a run with "
                 "budget_exhausted only on BudgetExhausted (a plain error would crash the run instead)")
        expect(output == tool.text, f"budgeted_call returned {output!r}, not the tool's output: the run record and "
                                    "the planner get what budgeted_call returns")
    return calls, None


@checkpoint("budgets that end a run", hint=BUDGET_HINT)
def check_budget(conn: oracledb.Connection, budgeted_call: Callable) -> str:
    # the tool-call cap: exactly the cap runs, the call beyond it never does
    tool = _ProbeTool("ok")
    done, exhausted = _exhausts(budgeted_call, Budget(max_tool_calls=3, max_tokens=10**6), tool, 8)
    expect(exhausted is not None, f"{done} calls ran under a cap of 3 tool calls: the cap never stopped the run")
    expect(tool.runs <= 3, f"the tool ran {tool.runs} times under a cap of 3: check the cap before the tool runs, "
                           "so the call that would exceed it never runs")
    expect(done == 3 and exhausted.which == "tool_calls",
           f"the run stopped after {done} calls ({exhausted.which!r}) under a cap of 3 tool calls")
    expect(tool.arguments == [{"probe": 0}, {"probe": 1}, {"probe": 2}],
           "the tool did not get the call's arguments (call it as tool(**arguments))")
    # the token budget, in estimate_tokens units: three outputs fit exactly, the fourth does not
    text = "x" * 41 + " " * 19            # 60 characters: estimate_tokens = 15, len = 60
    cost = estimate_tokens(text)
    budget = Budget(max_tool_calls=100, max_tokens=3 * cost)
    done, exhausted = _exhausts(budgeted_call, budget, _ProbeTool(text), 6)
    expect(exhausted is not None, f"{done} outputs of {cost} tokens were admitted into a budget of {3 * cost}: "
                                  "the token budget never ran out (add each output's cost to budget.tokens)")
    expect(done >= 3, f"only {done} outputs of {cost} tokens fit a budget of {3 * cost}: count in estimate_tokens "
                      "units, and an output that exactly fills the budget still fits (exceeding it is the limit)")
    expect(done == 3 and exhausted.which == "tokens",
           f"{done} outputs of {cost} tokens were admitted into a budget of {3 * cost} ({exhausted.which!r})")
    expect(budget.tokens <= budget.max_tokens, f"budget.tokens is {budget.tokens}, over max_tokens "
           f"{budget.max_tokens}: refuse the output before adding its cost (the budget is never exceeded)")
    expect(budget.tool_calls == 4, f"budget.tool_calls is {budget.tool_calls} after 4 calls (the 4th ran, its output "
                                   "was refused)")
    # room left, but not for a whole output: the refused output is not half-admitted
    slack = Budget(max_tool_calls=100, max_tokens=3 * cost + cost // 2)
    done, exhausted = _exhausts(budgeted_call, slack, _ProbeTool(text), 6)
    expect(done == 3 and exhausted is not None and slack.tokens == 3 * cost,
           f"with {cost // 2} tokens of room left, an output of {cost} was refused but budget.tokens went from "
           f"{3 * cost} to {slack.tokens}: the refused output was half-admitted (charge an output whole, or not at "
           "all)", BUDGET_HINT)
    _failing_tool_capped(budgeted_call)
    # the next cell: a planner scripted to loop, through the harness, ends budget_exhausted at exactly the cap
    calls = _looping_run(conn, budgeted_call)
    return f"3 calls under a cap of 3, 3 x {cost} tokens in a budget of {3 * cost}; a looping run stopped at {calls}"


class _FailingTool(_ProbeTool):
    """A tool that always raises: a planner retrying it must still hit the tool-call cap."""

    def __call__(self, **arguments: Any) -> str:
        super().__call__(**arguments)
        raise RuntimeError("probe tool failure")


def _failing_tool_capped(budgeted_call: Callable) -> None:
    """A call counts when it is made, not when it succeeds: a tool that always fails, retried, stops at the cap."""
    tool = _FailingTool("")
    budget = Budget(max_tool_calls=3, max_tokens=10**6)
    stopped = False
    for attempt in range(8):
        try:
            budgeted_call(budget, tool, {"probe": attempt})
        except NotImplementedError:
            raise
        except BudgetExhausted:
            stopped = True
            break
        except RuntimeError:
            continue                                  # the tool's own failure: the planner retries
    expect(stopped and tool.runs <= 3, f"a tool that always fails ran {tool.runs} times under a cap of 3 tool calls"
           f"{'' if stopped else ' and the cap never stopped it'}: a call is counted when it is made, not when it "
           "returns (a failing tool retried in a loop is exactly what the cap is for)",
           ("The cap counts attempts: charge the call before the tool runs (section 4).",
            "budget.tool_calls += 1 before output = tool(**arguments)."))


def _looping_run(conn: oracledb.Connection, budgeted_call: Callable) -> int:
    from workshop.harness.runlog import read_events, read_run
    from workshop.harness.runner import Call, Harness, ScriptedPlanner
    probe = _ProbeTool("[{'loans': 1}]")
    harness = Harness(conn, conn, allowed=["probe_report"], tools={"probe_report": probe},
                      budget=lambda: Budget(max_tool_calls=10, max_rounds=50), call_with_budget=budgeted_call)
    result = harness.run("loop", ScriptedPlanner([[Call("probe_report", {})]], name="checkpoint loop",
                                                 repeat_last=True), thread_id="checkpoint")
    try:
        events = read_events(conn, result.run_id)
        status = (read_run(conn, result.run_id) or {}).get("status")
    finally:
        _delete_run(conn, result.run_id)
    expect(status == "budget_exhausted" and probe.runs == 10 and result.tool_calls == 10,
           f"a looping planner under a cap of 10 ended {status!r} after {probe.runs} tool runs: expected "
           "budget_exhausted after exactly 10")
    expect(any(e["status"] == "budget_exhausted" and e["name"] == "tool_calls" for e in events),
           "the run record has no budget_exhausted event for the tool-call cap")
    return probe.runs


def _delete_run(conn: oracledb.Connection, run_id: str) -> None:
    """Remove one run the checkpoint recorded (the recorder commits as it goes, so a savepoint cannot)."""
    with conn.cursor() as cur:
        for table in ("agent_run_events", "agent_findings", "agent_runs"):
            cur.execute(f"DELETE FROM {table} WHERE run_id = :r", r=run_id)
    conn.commit()


# --------------------------------------------------------------------------- the run record
_KEY_1, _KEY_2 = "sk-live-" + "Q1w2E3r4T5y6U7i8O9p0", "sk-test-" + "Z9x8C7v6B5n4M3l2K1j0"
_PASSWORD, _BEARER, _API_KEY = "hunter2-" + "plain", "Bearer " + "eyJhbGciOiJIUzI1NiJ9abc", "plain" + "value12345"
_PIN = 4829136
_PLANTED = (_KEY_1, _KEY_2, _PASSWORD, _BEARER.split()[1], _API_KEY, str(_PIN))


def _leaks(value: Any) -> list[str]:
    text = repr(value)
    return [s for s in _PLANTED if s in text]


@checkpoint("a run record with secrets redacted", hint=RUN_RECORD_HINT)
def check_run_record(conn: oracledb.Connection, redact: Callable) -> str:
    import copy
    from workshop.harness.runlog import REDACTED
    plain = {"sql": "SELECT COUNT(*) AS loans FROM finance_loans WHERE rate_bp > 1400", "max_rows": 20,
             "note": "rates in basis points", "flags": [1, 2.5, None, True]}
    result = redact(copy.deepcopy(plain))
    expect(result == plain, f"redact changed a value with no secret in it: {result!r}; the run record must still "
                            "show what was asked (only secrets are redacted)")
    for value, want in ((None, None), (1400, 1400), ("no secret here", "no secret here")):
        got = redact(value)
        expect(got == want and type(got) is type(want), f"redact({value!r}) returned {got!r}; values without "
                                                         "secrets come back unchanged, with their type")
    probes = [
        ("two keys in one string", f"my key is {_KEY_1} and the backup is {_KEY_2}"),
        ("a value under a secret-looking key", {"api_key": _API_KEY, "rate_bp": 1400}),
        ("a secret-looking key in another case", {"DB_Password": _PASSWORD}),
        ("secrets nested in a list inside a dict", {"calls": [{"password": _PASSWORD}, {"header": _BEARER}]}),
        ("a tuple of secrets", ("ok", _KEY_1)),
        ("a secret key holding a structure", {"credentials": {"user": "ana", "pin": _PIN}}),
    ]
    for what, value in probes:
        before = copy.deepcopy(value)
        got = redact(value)
        expect(value == before, f"redact changed its input ({what}): the harness still holds that dict, and the "
                                "tool would get [REDACTED] instead of its argument. Build a new object.")
        leaked = _leaks(got)
        expect(not leaked, f"redact left a secret in {what}: {got!r}", RUN_RECORD_HINT)
        expect(REDACTED in repr(got), f"redact removed {what} instead of marking it {REDACTED}: {got!r}")
    try:
        keyed = redact({1: "one", "token": _API_KEY})
    except TypeError as error:
        fail(f"redact failed on a key that is not a string ({error}): tool outputs can be keyed by numbers",
             "Match the pattern against str(key).")
    expect(keyed == {1: "one", "token": REDACTED}, f"redact({{1: 'one', 'token': ...}}) returned {keyed!r}: a key "
           "that is not a string stays as it is, a secret key's value becomes " + REDACTED)
    shaped = redact({"api_key": _API_KEY, "rate_bp": 1400})
    expect(isinstance(shaped, dict) and shaped.get("rate_bp") == 1400 and shaped.get("api_key") == REDACTED,
           f"redact({{'api_key': ..., 'rate_bp': 1400}}) returned {shaped!r}: keep the dict's shape, redact the "
           "secret value only")
    _recorded_session(conn, redact)
    return f"{len(probes)} planted secrets redacted, plain values kept; a denied call kept as evidence"


def _recorded_session(conn: oracledb.Connection, redact: Callable) -> None:
    """A scripted session through the harness with the learner's redact: ordered events, a denied call kept as
    evidence, and no planted secret anywhere in the record."""
    from workshop.harness.runlog import read_events, read_run
    from workshop.harness.runner import Answer, Call, Harness, ScriptedPlanner
    echo = _ProbeTool(f"the token was {_KEY_2}")
    harness = Harness(conn, conn, allowed=["echo"], tools={"echo": echo}, redactor=redact)
    planner = ScriptedPlanner([[Call("write_query", {"sql": "DELETE FROM finance_loans", "password": _PASSWORD})],
                               [Call("echo", {"note": f"use {_KEY_1}"})],
                               Answer(f"Done; the key {_KEY_1} worked.")], name="checkpoint session")
    result = harness.run(f"my api_key={_API_KEY}, please check", planner, thread_id="checkpoint")
    try:
        events = read_events(conn, result.run_id)
        run = read_run(conn, result.run_id)
    finally:
        _delete_run(conn, result.run_id)
    got = [(e["kind"], e["name"], e["status"]) for e in events]
    want = [("CONVERSATION", "user", "received"), ("TOOL", "write_query", "denied"), ("TOOL", "echo", "success"),
            ("CONVERSATION", "assistant", "READY")]
    expect(got == want, f"the run record holds {got}, expected {want}")
    leaked = _leaks(events) + _leaks(run)
    if leaked:
        fail(f"the run record stored a planted secret ({leaked[0][:12]}…)", RUN_RECORD_HINT)
    denied = events[1]["inputs"] or ""
    expect("DELETE FROM finance_loans" in denied, f"the denied call's inputs were stored as {denied!r}: the "
                                                  "evidence must still show what was attempted")


# --------------------------------------------------------------------------- identity
def _cases(rows: Any) -> list:
    return [r.get("case_ref") if isinstance(r, dict) else r for r in rows] if isinstance(rows, list) else rows


@checkpoint("identity from the session, never from an argument", hint=IDENTITY_HINT)
def check_identity(conn: oracledb.Connection, tenant_tool: Callable) -> str:
    from workshop.pipeline import security
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_policies WHERE object_name = 'AGENT_CASES' "
                    "AND policy_name = 'TENANT_ISOLATION'")
        if cur.fetchone()[0] == 0:
            fail("AGENT_CASES has no tenant policy yet: run the cell above (create_case_table(conn)) first")
    previous = security.current_tenant(conn)
    try:
        return _identity_probes(conn, tenant_tool, security)
    finally:
        security.set_tenant(conn, previous)


def _identity_probes(conn: oracledb.Connection, tenant_tool: Callable, security: Any) -> str:
    for nobody in ("", None):
        try:
            tenant_tool(conn, nobody)
        except NotImplementedError:
            raise
        except (ValueError, TypeError):
            continue
        fail(f"tenant_tool(conn, {nobody!r}) made a tool: the harness opens the tools' session only for a verified "
             "tenant")
    security.set_tenant(conn, None)                 # whatever the session held before, the tool must bind its own
    recorder = RecordingConnection(conn)
    acme = tenant_tool(recorder, "acme")
    expect(callable(acme), f"tenant_tool returned {acme!r}, not a tool the harness can call")
    try:
        rows = acme(limit=10)
    except oracledb.DatabaseError as error:
        fail(f"the tool failed: {str(error).splitlines()[0]}; only the trusted package (security.set_tenant) may "
             "set the context")
    expect(isinstance(rows, list) and all(isinstance(r, dict) for r in rows),
           f"the tool returned {type(rows).__name__} rows, expected a list of dicts (the run record logs them)")
    expect(_cases(rows) == ["AC-1", "AC-2"], f"the acme tool returned {_cases(rows)}, expected acme's open cases "
           "['AC-1', 'AC-2']" + ("; the session carried no tenant: bind it through the trusted package on every "
                                  "call" if not rows else ""))
    for forged in ({"tenant_id": "initech"}, {"tenant": "initech"}):
        try:
            rows = acme(limit=10, **forged)
        except NotImplementedError:
            raise
        except (ValueError, TypeError):
            continue                                # refused as invalid input: what the harness logs
        expect(_cases(rows) == ["AC-1", "AC-2"], f"called with {forged}, the acme tool returned {_cases(rows)}: "
               "identity was taken from a tool argument (it must come from the session the harness bound)")
    one = _cases(acme(limit=1))
    expect(one == ["AC-1"], f"called with limit=1, the acme tool returned {one}: pass the call's arguments on "
           "(OPEN_CASES.run(conn, **arguments))")
    initech = tenant_tool(recorder, "initech")
    expect(_cases(initech(limit=10)) == ["IN-1", "IN-2"], "the initech tool did not return initech's open cases")
    again = _cases(acme(limit=10))
    expect(again == ["AC-1", "AC-2"], f"after another tool used the session, the acme tool returned {again}: the "
           "tenant was bound once, when the tool was made; bind it on every call")
    for statement in recorder.statements:
        lowered = statement.sql.lower()
        expect("'acme'" not in lowered and "'initech'" not in lowered,
               "the tenant was formatted into the SQL text: it travels in the session context (and binds)")
    return "acme's cases for acme, also when asked for initech's; initech's tool does not leak into acme's"


# --------------------------------------------------------------------------- approvals
@checkpoint("approval for a consequential write", hint=APPROVAL_HINT)
def check_approval(conn: oracledb.Connection, consume_approval: Callable) -> str:
    from workshop.harness import approvals
    approvals.create_approvals_table(conn)
    tag = "ckpt-" + uuid.uuid4().hex[:12]
    args, other_args = {"case_ref": "AC-1"}, {"case_ref": "AC-2"}
    rows = {  # name: (status, actor, expires in seconds)
        "approved": ("approved", "ana", 900), "pending": ("pending", None, 900),
        "expired": ("approved", "ana", -60), "rejected": ("rejected", "ana", 900)}
    ids = {name: f"{tag}-{name}" for name in rows}
    try:
        with conn.cursor() as cur:
            for name, (status, actor, ttl) in rows.items():
                cur.execute("INSERT INTO agent_approvals (approval_id, run_id, tool, args_digest, status, actor, "
                            "expires_at) VALUES (:a, :r, 'close_case', :d, :s, :actor, "
                            "SYS_EXTRACT_UTC(SYSTIMESTAMP) + NUMTODSINTERVAL(:ttl, 'SECOND'))",
                            a=ids[name], r=tag, d=approvals.digest("close_case", args), s=status, actor=actor, ttl=ttl)
        conn.commit()
        return _approval_probes(conn, consume_approval, ids, tag, args, other_args)
    finally:
        conn.rollback()
        with conn.cursor() as cur:
            cur.execute("DELETE FROM agent_approvals WHERE run_id = :r", r=tag)
        conn.commit()


def _approval_probes(conn, consume_approval, ids, tag, args, other_args) -> str:
    from workshop.harness import approvals
    refused = [
        ("other arguments than the ones approved", ids["approved"], tag, "close_case", other_args, "ana"),
        ("another actor than the one who approved", ids["approved"], tag, "close_case", args, "mallory"),
        ("another run", ids["approved"], tag + "-other", "close_case", args, "ana"),
        ("another tool", ids["approved"], tag, "reopen_case", args, "ana"),
        ("an approval still pending", ids["pending"], tag, "close_case", args, "ana"),
        ("an approval that expired", ids["expired"], tag, "close_case", args, "ana"),
        ("a rejected approval", ids["rejected"], tag, "close_case", args, "ana"),
        ("an unknown approval id", tag + "-nobody", tag, "close_case", args, "ana"),
    ]
    for what, *call in refused:
        got = consume_approval(conn, *call)
        expect(not got, f"consume_approval returned {got!r} for {what}: that call would run without a human's "
                        "approval of exactly it")
    recorder = RecordingConnection(conn)
    got = consume_approval(recorder, ids["approved"], tag, "close_case", dict(args), "ana")
    expect(got is True or got == 1, f"consume_approval returned {got!r} for the approved call itself: the harness "
                                    "would never run it (compare digest(tool, arguments), the digest it stored)")
    again = consume_approval(conn, ids["approved"], tag, "close_case", dict(args), "ana")
    expect(not again, "the same approval was consumed twice: set status = 'consumed' in the same statement "
                      "(an approval is single use)")
    expect(approvals.approval_status(conn, ids["approved"]) == "consumed",
           "after the approved call, its approval is not 'consumed'")
    conn.rollback()                                   # what a crash right after the call would do
    expect(approvals.approval_status(conn, ids["approved"]) == "consumed",
           "the consumption was not committed: a rollback (or a crash) after the call hands the approval back for "
           "a second use; commit the UPDATE in consume_approval", APPROVAL_HINT)
    kinds = [s.sql.lstrip().split(None, 1)[0].upper() for s in recorder.statements]
    expect(kinds == ["UPDATE"], f"consume_approval ran {kinds}: check and consume in ONE UPDATE (a SELECT first "
                                "lets two runs consume one approval between the check and the write)")
    expect_bound(recorder, {"approval_id": ids["approved"]}, "consume_approval", hint=APPROVAL_HINT)
    return f"{len(refused)} calls without a matching approval refused; the approved one ran once"
