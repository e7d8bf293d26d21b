"""The harness around a scripted planner: allowlist, governed reports, budgets, verifier and the run record."""
from __future__ import annotations

import json

import pytest

from workshop.harness import Budget, ToolsetMismatch, check_toolset, read_events
from workshop.harness.reports import HIGH_RISK_CUSTOMERS, LOANS_ABOVE_RATE, REPORTS, TRANSACTIONS_BY_MERCHANT
from workshop.harness.runlog import REDACTED, read_run, redact
from workshop.harness.runner import Answer, Call, Harness, ScriptedPlanner

ALLOWED = [r.name for r in REPORTS] + ["query_finance", "save_finding"]
SECRET = "sk-live-ABCDEFGHIJKLMNOPQRSTUV123456"


@pytest.fixture
def harness(conns):
    rw, ro = conns
    return Harness(ro, rw, allowed=ALLOWED)


# ---------------------------------------------------------------- H1 allowlist
def test_check_toolset_accepts_exactly_the_allowlist():
    assert check_toolset(["a", "b"], ["b", "a"]) == {"a", "b"}


@pytest.mark.parametrize("available, match", [(["a", "b", "write_query"], "unexpected \\['write_query'\\]"),
                                              (["a"], "missing \\['b'\\]")])
def test_check_toolset_refuses_extra_and_missing(available, match):
    with pytest.raises(ToolsetMismatch, match=match):
        check_toolset(available, ["a", "b"])


def test_a_harness_with_an_extra_tool_refuses_to_start(conns):
    rw, ro = conns
    with pytest.raises(ToolsetMismatch):
        Harness(ro, rw, allowed=ALLOWED[:-1])


def test_an_unlisted_call_is_denied_and_logged(harness, conns):
    rw, _ = conns
    planner = ScriptedPlanner([[Call("write_query", {"sql": "DELETE FROM finance_loans"})],
                               [Call("loans_above_rate", {"rate_bp": 900})], Answer("Loans above 9 %.")])
    result = harness.run("which loans are above 9 %?", planner)
    events = read_events(rw, result.run_id)
    assert [(e["kind"], e["name"], e["status"]) for e in events] == [
        ("CONVERSATION", "user", "received"), ("TOOL", "write_query", "denied"),
        ("TOOL", "loans_above_rate", "success"), ("CONVERSATION", "assistant", "READY")]
    assert result.tool_calls == 1 and result.status == "completed"


# ---------------------------------------------------------------- H3 governed reports
@pytest.mark.parametrize("tool, arguments", [
    (LOANS_ABOVE_RATE, {"rate_bp": "900"}), (LOANS_ABOVE_RATE, {"rate_bp": 900.0}),
    (LOANS_ABOVE_RATE, {"rate_bp": -1}), (LOANS_ABOVE_RATE, {"rate_bp": True}),
    (LOANS_ABOVE_RATE, {"rate_bp": "900 OR 1=1"}), (LOANS_ABOVE_RATE, {}),
    (LOANS_ABOVE_RATE, {"rate_bp": 900, "tenant_id": "other"}),
    (TRANSACTIONS_BY_MERCHANT, {"month": "2025-13", "min_amount_cents": 0}),
    (TRANSACTIONS_BY_MERCHANT, {"month": "2025-01'; DROP TABLE x --", "min_amount_cents": 0}),
    (HIGH_RISK_CUSTOMERS, {"min_rating": 101}),
])
def test_invalid_typed_inputs_are_refused_before_sql(conns, tool, arguments):
    from checkpoints.framework import RecordingConnection
    _, ro = conns
    recording = RecordingConnection(ro)
    with pytest.raises(ValueError):
        tool.run(recording, **arguments)
    assert recording.statements == []


@pytest.mark.parametrize("tool, arguments", [(LOANS_ABOVE_RATE, {"rate_bp": 900}),
                                             (HIGH_RISK_CUSTOMERS, {"min_rating": 70}),
                                             (TRANSACTIONS_BY_MERCHANT, {"month": "2026-03",
                                                                         "min_amount_cents": 100000})])
def test_reports_are_deterministic_with_constant_sql(conns, tool, arguments):
    from checkpoints.framework import RecordingConnection
    _, ro = conns
    recording = RecordingConnection(ro)
    first, second = tool.run(recording, **arguments), tool.run(recording, **arguments)
    assert first == second
    assert {s.sql for s in recording.statements} == {tool.sql}
    assert all(set(s.binds) == set(arguments) for s in recording.statements)


def test_loans_above_rate_matches_the_table(conns):
    rw, ro = conns
    rows = LOANS_ABOVE_RATE.run(ro, rate_bp=900)
    expected = rw.cursor().execute("SELECT COUNT(*) FROM finance_loans WHERE rate_bp > 900").fetchone()[0]
    assert len(rows) == expected > 0
    assert all(r["rate_bp"] > 900 for r in rows)


# ---------------------------------------------------------------- H4 budgets
def test_a_looping_planner_stops_at_the_cap(conns, harness):
    rw, _ = conns
    loop = ScriptedPlanner([[Call("loans_above_rate", {"rate_bp": 900})]], repeat_last=True)
    harness.make_budget = lambda: Budget(max_tool_calls=10, max_rounds=100, max_tokens=10**6)
    result = harness.run("loop forever", loop)
    assert result.status == "budget_exhausted" and result.tool_calls == 10
    assert read_run(rw, result.run_id)["status"] == "budget_exhausted"
    statuses = [e["status"] for e in read_events(rw, result.run_id) if e["kind"] == "TOOL"]
    assert statuses == ["success"] * 10 + ["budget_exhausted"]      # the refused 11th call is kept as evidence


def test_the_rounds_budget_ends_a_run(harness):
    loop = ScriptedPlanner([[Call("not_a_tool")]], repeat_last=True)     # denied calls cost no tool budget
    harness.make_budget = lambda: Budget(max_rounds=4)
    result = harness.run("loop", loop)
    assert result.status == "budget_exhausted" and result.tool_calls == 0


def test_the_token_budget_is_never_exceeded():
    budget = Budget(max_tokens=10)
    budget.admit_text("x" * 40)
    assert budget.tokens == 10
    with pytest.raises(Exception, match="token budget"):
        budget.admit_text("y")
    assert budget.tokens == 10


# ---------------------------------------------------------------- H5 verifier
def test_the_honest_run_is_verified_and_the_lying_run_is_not(harness, conns):
    rw, _ = conns
    honest = ScriptedPlanner([[Call("high_risk_customers", {"min_rating": 90})],
                              [Call("save_finding", {"case_ref": "CASE-1", "note": "EDD needed"})],
                              Answer("Saved CASE-1.", saved_case="CASE-1")])
    liar = ScriptedPlanner([[Call("high_risk_customers", {"min_rating": 90})],
                            Answer("Saved CASE-2.", saved_case="CASE-2")])
    good, bad = harness.run("flag", honest), harness.run("flag", liar)
    assert good.verified == "verified" and good.answer == "Saved CASE-1."
    assert bad.verified == "unverified" and "NOT DONE" in bad.answer
    assert read_run(rw, bad.run_id)["verified"] == "unverified"


# ---------------------------------------------------------------- H6 run record
def test_planted_secrets_are_redacted_in_the_log(harness, conns):
    rw, _ = conns
    planner = ScriptedPlanner([[Call("query_finance", {"sql": f"SELECT '{SECRET}' AS k FROM dual"})],
                               Answer(f"the key is {SECRET}")])
    result = harness.run(f"my api_key={SECRET} and password: hunter2; which loans?", planner)
    logged = json.dumps(read_events(rw, result.run_id)) + json.dumps(read_run(rw, result.run_id))
    assert SECRET not in logged and "hunter2" not in logged and REDACTED in logged


def test_redact_covers_keys_and_values():
    assert redact({"password": "x", "nested": [{"api_key": "y"}, "Bearer abcdefghijk"]}) == {
        "password": REDACTED, "nested": [{"api_key": REDACTED}, REDACTED]}


def test_empty_evidence_gives_insufficient_context(harness):
    planner = ScriptedPlanner([[Call("loans_above_rate", {"rate_bp": 10000})], Answer("Plenty of loans.")])
    result = harness.run("loans above 100 %?", planner)
    assert result.grounding == "INSUFFICIENT_CONTEXT" and result.answer.startswith("INSUFFICIENT_CONTEXT")


def test_a_database_refusal_is_logged_as_denied(conns):
    rw, ro = conns
    tools = {"raw": lambda: ro.cursor().execute("DELETE FROM finance_loans")}
    harness = Harness(ro, rw, allowed=["raw"], tools=tools)
    result = harness.run("delete", ScriptedPlanner([[Call("raw")], Answer("done")]))
    tool_events = [e for e in read_events(rw, result.run_id) if e["kind"] == "TOOL"]
    assert tool_events[0]["status"] == "denied" and "ORA-01031" in tool_events[0]["outputs"]
