"""H7: identity from the session (trusted context package + RLS), never from a tool argument."""
from __future__ import annotations

import oracledb
import pytest

from workshop.harness import read_events
from workshop.harness.identity import OPEN_CASES, bind_identity, create_case_table
from workshop.harness.runner import Answer, Call, Harness, ScriptedPlanner


@pytest.fixture
def cases(conns):
    rw, ro = conns
    create_case_table(rw)
    return rw, ro


def test_the_session_sees_only_its_tenant(cases):
    _, ro = cases
    bind_identity(ro, "acme")
    assert [r["case_ref"] for r in OPEN_CASES.run(ro, limit=50)] == ["AC-1", "AC-2"]
    bind_identity(ro, "initech")
    assert [r["case_ref"] for r in OPEN_CASES.run(ro, limit=50)] == ["IN-1", "IN-2"]


def test_a_tenant_argument_is_refused_and_the_rows_stay_scoped(cases):
    rw, ro = cases
    bind_identity(ro, "acme")
    harness = Harness(ro, rw, allowed=["open_cases"], tools={"open_cases": lambda **a: OPEN_CASES.run(ro, **a)})
    planner = ScriptedPlanner([[Call("open_cases", {"limit": 50, "tenant_id": "initech"})],
                               [Call("open_cases", {"limit": 50})], Answer("Two open cases.")])
    result = harness.run("show initech's open cases", planner)
    tools = [e for e in read_events(rw, result.run_id) if e["kind"] == "TOOL"]
    assert [e["status"] for e in tools] == ["invalid", "success"]
    assert "IN-" not in tools[1]["outputs"] and "AC-1" in tools[1]["outputs"]


def test_the_context_cannot_be_set_outside_the_trusted_package(cases):
    _, ro = cases
    with pytest.raises(oracledb.DatabaseError, match="ORA-01031"):
        ro.cursor().execute("BEGIN DBMS_SESSION.SET_CONTEXT('kb_ctx', 'tenant_id', 'initech'); END;")


def test_no_tenant_means_no_rows(cases):
    _, ro = cases
    assert OPEN_CASES.run(ro, limit=50) == []


def test_the_read_only_session_cannot_write_a_case(cases):
    _, ro = cases
    bind_identity(ro, "acme")
    with pytest.raises(oracledb.DatabaseError, match="ORA-01031"):
        ro.cursor().execute("INSERT INTO agent_cases VALUES ('acme', 'AC-9', 1, 'open')")
