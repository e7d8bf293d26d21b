"""The harness as a LangGraph graph with its state in the database: same gates, visible nodes, and a run
interrupted before its tool step resumes after a restart without redoing the steps before it."""
from __future__ import annotations

from langgraph_oracledb.checkpoint.oracle import OracleSaver

from workshop.embedded import connect
from workshop.harness import Budget, read_events
from workshop.harness.graph import build_agent_graph
from workshop.harness.memory import HarnessMemory
from workshop.harness.reports import REPORTS
from workshop.harness.runlog import read_run
from workshop.harness.runner import Answer, Call, Harness, ScriptedPlanner
from workshop.memory import MemoryManager

ALLOWED = [r.name for r in REPORTS] + ["query_finance", "save_finding"]
SCRIPT = [[Call("write_query", {"sql": "DROP TABLE finance_loans"}), Call("loans_above_rate", {"rate_bp": 1400})],
          [Call("save_finding", {"case_ref": "G-1", "note": "high-rate loans"})],
          Answer("Saved G-1.", saved_case="G-1")]


def _memory(rw, namespace="t-graph"):
    return HarnessMemory(MemoryManager(rw), namespace=namespace)


def test_the_graph_has_the_harness_nodes(conns):
    rw, ro = conns
    app = build_agent_graph(Harness(ro, rw, allowed=ALLOWED), ScriptedPlanner(SCRIPT), _memory(rw))
    assert {"assemble_context", "plan", "tools", "verify", "memory_write_back"} <= set(app.get_graph().nodes)


def test_a_run_through_the_graph_is_gated_recorded_and_verified(conns):
    rw, ro = conns
    app = build_agent_graph(Harness(ro, rw, allowed=ALLOWED), ScriptedPlanner(SCRIPT), _memory(rw))
    final = app.invoke({"question": "flag high-rate loans", "thread_id": "g"})
    assert final["verified"] == "verified" and final["status"] == "completed" and final["answer"] == "Saved G-1."
    statuses = [(e["name"], e["status"]) for e in read_events(rw, final["run_id"]) if e["kind"] == "TOOL"]
    assert statuses == [("write_query", "denied"), ("loans_above_rate", "success"), ("save_finding", "success")]
    assert final["written"]["entity"] and final["written"]["conversation"]


def test_a_restart_before_the_tools_resumes_where_it_stopped(harness_db, monkeypatch):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    config = {"configurable": {"thread_id": "restart-1"}}
    rw, ro = connect(harness_db), connect(harness_db, readonly=True)
    saver = OracleSaver(rw)
    saver.setup()
    app = build_agent_graph(Harness(ro, rw, allowed=ALLOWED), ScriptedPlanner(SCRIPT), _memory(rw), checkpointer=saver,
                            interrupt_before=["tools"])
    app.invoke({"question": "flag high-rate loans", "thread_id": "restart-1"}, config)
    run_id = app.get_state(config).values["run_id"]
    assert app.get_state(config).next == ("tools",)
    ro.close()
    rw.close()                                                          # the kernel restarts

    rw, ro = connect(harness_db), connect(harness_db, readonly=True)
    app = build_agent_graph(Harness(ro, rw, allowed=ALLOWED), ScriptedPlanner(SCRIPT), _memory(rw),
                            checkpointer=OracleSaver(rw))
    final = app.invoke(None, config)
    assert final["run_id"] == run_id and final["verified"] == "verified"
    events = read_events(rw, run_id)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert sum(e["name"] == "user" for e in events) == 1                # context assembly did not run again
    assert read_run(rw, run_id)["status"] == "completed"
    ro.close()
    rw.close()


def test_a_looping_planner_ends_budget_exhausted_in_the_graph(conns):
    rw, ro = conns
    loop = ScriptedPlanner([[Call("loans_above_rate", {"rate_bp": 1400})]] * 30)
    app = build_agent_graph(Harness(ro, rw, allowed=ALLOWED), loop, _memory(rw), budget=Budget(max_tool_calls=10, max_rounds=50, max_tokens=10**7))
    final = app.invoke({"question": "loop", "thread_id": "loop"}, {"recursion_limit": 100})
    assert final["status"] == "budget_exhausted" and final["tool_calls"] == 10


def test_the_rounds_budget_ends_the_graph_too(conns):
    rw, ro = conns
    loop = ScriptedPlanner([[Call("loans_above_rate", {"rate_bp": 1400})]] * 30)
    app = build_agent_graph(Harness(ro, rw, allowed=ALLOWED), loop, _memory(rw), budget=Budget(max_rounds=3))
    final = app.invoke({"question": "loop", "thread_id": "loop"}, {"recursion_limit": 100})
    assert final["status"] == "budget_exhausted" and final["rounds"] == 3 and final["tool_calls"] == 3
