"""LangGraph state in the workshop database: langgraph-oracledb's OracleSaver on the embedded engine.

A run interrupted before its second step survives a "kernel restart" (the connection closed, a new saver and
a new compiled graph on a new connection) and resumes where it stopped: the first step does not run again.
"""
from __future__ import annotations

from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph_oracledb.checkpoint.oracle import OracleSaver

from workshop.embedded import connect


class State(TypedDict):
    steps: list[str]


def _graph(saver, ran: list[str]):
    def plan(state: State) -> dict:
        ran.append("plan")
        return {"steps": state["steps"] + ["plan"]}

    def act(state: State) -> dict:
        ran.append("act")
        return {"steps": state["steps"] + ["act"]}

    graph = StateGraph(State)
    graph.add_node("plan", plan)
    graph.add_node("act", act)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "act")
    graph.add_edge("act", END)
    return graph.compile(checkpointer=saver, interrupt_before=["act"])


def test_a_restart_mid_run_resumes_where_it_stopped(tmp_path):
    path = tmp_path / "graph.db"
    config = {"configurable": {"thread_id": "case-42"}}
    first = connect(path)
    saver = OracleSaver(first)
    saver.setup()
    ran: list[str] = []
    stopped = _graph(saver, ran).invoke({"steps": []}, config)
    assert stopped == {"steps": ["plan"]} and ran == ["plan"]
    first.close()                                          # the kernel restarts

    second = connect(path)
    ran_after: list[str] = []
    app = _graph(OracleSaver(second), ran_after)
    assert app.get_state(config).next == ("act",)           # the database knows where the run stopped
    finished = app.invoke(None, config)
    assert finished == {"steps": ["plan", "act"]} and ran_after == ["act"]
    other = app.get_state({"configurable": {"thread_id": "another"}})
    assert other.values == {}                                 # threads are kept apart
    second.close()


def test_setup_is_safe_to_repeat(tmp_path):
    conn = connect(tmp_path / "graph.db")
    OracleSaver(conn).setup()
    OracleSaver(conn).setup()
    conn.close()
