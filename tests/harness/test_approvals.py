"""H8: a consequential write runs only by consuming a human's approval of exactly that call, once.

Without an approval the call is refused (`approval_required`) and nothing is written; the approval is bound to
the run, the tool, the exact arguments, the actor and an expiry, and a compare-and-set consumes it (so it cannot
be reused); in the graph a LangGraph interrupt pauses the run for the decision, and the pause survives a restart.
"""
from __future__ import annotations

import pytest
from langgraph.types import Command
from langgraph_oracledb.checkpoint.oracle import OracleSaver

from workshop.embedded import connect
from workshop.harness import approvals
from workshop.harness.approvals import close_case_tool, consume_approval, decide, request_approval
from workshop.harness.graph import build_agent_graph
from workshop.harness.identity import create_case_table
from workshop.harness.memory import HarnessMemory
from workshop.harness.runlog import read_events
from workshop.harness.runner import Answer, Call, Harness, ScriptedPlanner
from workshop.memory import MemoryManager
from workshop.pipeline import security


def _status(conn, case_ref, tenant="acme"):
    security.set_tenant(conn, tenant)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT status FROM agent_cases WHERE case_ref = :c", c=case_ref)
            row = cur.fetchone()
        return row[0] if row else None
    finally:
        security.set_tenant(conn, None)


def _harness(rw, ro, actor="ana"):
    create_case_table(rw)                                   # resets the cases: AC-1 and AC-2 open
    return Harness(ro, rw, allowed=["close_case"], tools={"close_case": close_case_tool(rw, "acme")},
                   requires_approval=["close_case"], actor=actor)


def test_without_an_approval_the_write_is_refused_and_nothing_changes(conns):
    rw, ro = conns
    harness = _harness(rw, ro)
    run = harness.run("close AC-1", ScriptedPlanner([[Call("close_case", {"case_ref": "AC-1"})], Answer("Closed.")]))
    events = [(e["name"], e["status"]) for e in read_events(rw, run.run_id) if e["kind"] == "TOOL"]
    assert events == [("close_case", "approval_required")]
    assert _status(rw, "AC-1") == "open" and run.grounding == "INSUFFICIENT_CONTEXT"


def test_an_approval_is_bound_to_the_call_the_actor_and_is_used_once(conns):
    rw, ro = conns
    _harness(rw, ro)
    args = {"case_ref": "AC-1"}
    approval = request_approval(rw, "run-a", "close_case", args)
    assert request_approval(rw, "run-a", "close_case", args) == approval          # asking again: the same one
    assert not consume_approval(rw, approval, "run-a", "close_case", args, "ana")  # still pending
    decide(rw, approval, "ana", True)
    with pytest.raises(approvals.ApprovalRefused):
        decide(rw, approval, "mallory", True)                                     # decided already
    assert not consume_approval(rw, approval, "run-a", "close_case", {"case_ref": "AC-2"}, "ana")   # other args
    assert not consume_approval(rw, approval, "run-b", "close_case", args, "ana")                  # other run
    assert not consume_approval(rw, approval, "run-a", "close_case", args, "mallory")              # other actor
    assert consume_approval(rw, approval, "run-a", "close_case", args, "ana")
    assert not consume_approval(rw, approval, "run-a", "close_case", args, "ana")                  # single use
    with pytest.raises(approvals.ApprovalRefused):
        decide(rw, "ap-unknown", "ana", True)


def test_an_expired_or_rejected_approval_lets_nothing_run(conns):
    rw, ro = conns
    _harness(rw, ro)
    args = {"case_ref": "AC-2"}
    expired = request_approval(rw, "run-e", "close_case", args, ttl_seconds=-1)
    with pytest.raises(approvals.ApprovalRefused):
        decide(rw, expired, "ana", True)
    rejected = request_approval(rw, "run-r", "close_case", args)
    assert decide(rw, rejected, "ana", False) == "rejected"
    assert not consume_approval(rw, rejected, "run-r", "close_case", args, "ana")
    assert approvals.approval_status(rw, rejected) == "rejected"


def test_the_graph_pauses_for_a_human_and_resumes_after_a_restart(harness_db, monkeypatch):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    rw, ro = connect(harness_db), connect(harness_db, readonly=True)
    harness = _harness(rw, ro)
    script = [[Call("close_case", {"case_ref": "AC-2"})], Answer("Closed AC-2.")]
    saver = OracleSaver(rw)
    saver.setup()
    config = {"configurable": {"thread_id": "approval-1"}}
    saver.delete_thread("approval-1")
    app = build_agent_graph(harness, ScriptedPlanner(script), HarnessMemory(MemoryManager(rw), namespace="t-ap"),
                            checkpointer=saver)
    paused = app.invoke({"question": "close AC-2", "thread_id": "approval-1"}, config)
    request = paused["__interrupt__"][0].value
    assert request["tool"] == "close_case" and request["arguments"] == {"case_ref": "AC-2"}
    assert _status(rw, "AC-2") == "open" and approvals.approval_status(rw, request["approval_id"]) == "pending"
    ro.close()
    rw.close()                                                   # the kernel restarts while a human decides

    rw, ro = connect(harness_db), connect(harness_db, readonly=True)
    harness = Harness(ro, rw, allowed=["close_case"], tools={"close_case": close_case_tool(rw, "acme")},
                      requires_approval=["close_case"], actor="ana")
    mem = HarnessMemory(MemoryManager(rw), namespace="t-ap")
    app = build_agent_graph(harness, ScriptedPlanner(script), mem, checkpointer=OracleSaver(rw))
    final = app.invoke(Command(resume={"actor": "ana", "approve": True}), config)
    statuses = [(e["kind"], e["name"], e["status"]) for e in read_events(rw, final["run_id"])]
    assert ("APPROVAL", "close_case", "approved") in statuses and ("APPROVAL", "close_case", "consumed") in statuses
    assert ("TOOL", "close_case", "success") in statuses and _status(rw, "AC-2") == "closed"
    assert approvals.approval_status(rw, request["approval_id"]) == "consumed"
    mem.forget()
    ro.close()
    rw.close()


def test_a_rejection_or_another_actor_writes_nothing(conns):
    rw, ro = conns
    for thread, decision in (("approval-2", {"actor": "ana", "approve": False}),
                             ("approval-3", {"actor": "mallory", "approve": True})):
        harness = _harness(rw, ro)
        saver = OracleSaver(rw)
        saver.setup()
        saver.delete_thread(thread)
        config = {"configurable": {"thread_id": thread}}
        app = build_agent_graph(harness, ScriptedPlanner([[Call("close_case", {"case_ref": "AC-1"})],
                                                          Answer("Closed AC-1.")]),
                                HarnessMemory(MemoryManager(rw), namespace="t-ap2"), checkpointer=saver)
        app.invoke({"question": "close AC-1", "thread_id": thread}, config)
        final = app.invoke(Command(resume=decision), config)
        tool = [e["status"] for e in read_events(rw, final["run_id"]) if e["kind"] == "TOOL"]
        assert tool == ["approval_required"] and _status(rw, "AC-1") == "open", (thread, tool)
    HarnessMemory(MemoryManager(rw), namespace="t-ap2").forget()


def test_approval_needs_an_allowed_tool(conns):
    rw, ro = conns
    with pytest.raises(ValueError, match="must be allowed"):
        Harness(ro, rw, allowed=["close_case"], tools={"close_case": lambda **a: a}, requires_approval=["drop_all"])
