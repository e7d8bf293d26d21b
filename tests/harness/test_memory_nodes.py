"""The graph's two memory nodes use part 03's memory and part 05's retriever: what the planner is shown comes from
there (every memory section, and passages under the caller's tenant), and write-back stores only what the harness
can stand behind (an unverified claim never becomes an entity or a successful workflow)."""
from __future__ import annotations

import pytest

from workshop.harness.graph import build_agent_graph
from workshop.harness.identity import bind_identity, create_case_table, open_cases_tool
from workshop.harness.memory import RETRIEVED_HEADING, HarnessMemory, harness_memory, knowledge_base_ready
from workshop.harness.reports import REPORTS
from workshop.harness.runner import Answer, Call, Harness, ScriptedPlanner
from workshop.memory import MemoryManager

ALLOWED = [r.name for r in REPORTS] + ["query_finance", "save_finding"]


class _Watching(ScriptedPlanner):
    """A scripted planner that keeps the context it was shown."""

    def next_action(self, question, observations, round=None, context=()):
        self.seen = list(context)
        return super().next_action(question, observations, round)


@pytest.fixture
def memory(conns):
    rw, ro = conns
    bind_identity(ro, "acme")
    mem = harness_memory(rw, ro, "acme", "jane", namespace="t-mem")
    mem.forget()
    mem.register_tools([r.schema() for r in REPORTS])
    yield mem
    mem.forget()


def test_context_assembly_shows_memory_and_retrieved_passages(conns, memory):
    rw, ro = conns
    memory.memory.write_knowledge("Rates in FINANCE_LOANS are in basis points: 450 means 4.50 %.",
                                  {"harness": "t-mem"}, id="t-mem-bp")
    planner = _Watching([Answer("nothing to do")])
    final = build_agent_graph(Harness(ro, rw, allowed=ALLOWED), planner, memory).invoke(
        {"question": "What does the memkeeper retention runbook say about old turns, and are rates in basis points?",
         "thread_id": "ctx"})
    assert any("basis points: 450" in line for line in final["memory_used"]["knowledge"])
    assert any("loans_above_rate" in line for line in final["memory_used"]["toolbox"])
    assert final["retrieved"] and all(r["document_id"] for r in final["retrieved"])
    assert planner.seen == final["context"] and RETRIEVED_HEADING + ":" in planner.seen
    acme = {r["document_id"] for r in final["retrieved"]}
    assert "KB-G01" not in acme                                  # globex's near-twin never reaches acme's context


def test_write_back_stores_the_run_and_the_thread_remembers_it(conns, memory):
    rw, ro = conns
    harness = Harness(ro, rw, allowed=ALLOWED)
    honest = ScriptedPlanner([[Call("loans_above_rate", {"rate_bp": 2440})],
                              [Call("save_finding", {"case_ref": "T-MEM-1", "note": "two loans above 24.4 %"})],
                              Answer("Saved T-MEM-1.", saved_case="T-MEM-1")])
    first = build_agent_graph(harness, honest, memory).invoke({"question": "flag the highest-rate loans",
                                                                "thread_id": "wb"})
    written = first["written"]
    assert len(written["conversation"]) == 2 and len(written["tool_log"]) == 2
    assert written["knowledge"] and written["entity"] and written["workflow"]
    turns = memory.memory.read_conversation("t-mem-wb")
    assert [t["role"] for t in turns] == ["user", "assistant"] and turns[1]["content"] == "Saved T-MEM-1."
    assert memory.memory.read_workflows("flag the highest-rate loans", k=1)[0]["metadata"]["success"] is True
    second = build_agent_graph(harness, ScriptedPlanner([Answer("ok")]), memory).invoke(
        {"question": "what did we flag about the highest-rate loans?", "thread_id": "wb"})
    conversation = second["memory_used"]["conversation"]
    assert "assistant: Saved T-MEM-1." in conversation                # the same thread sees its earlier turns
    assert any("loan_id=662" in line or "rate_bp=2445" in line for line in second["memory_used"]["knowledge"])


def test_an_unverified_claim_is_not_remembered_as_done(conns, memory):
    rw, ro = conns
    lying = ScriptedPlanner([[Call("high_risk_customers", {"min_rating": 95})],
                             Answer("Saved T-MEM-2.", saved_case="T-MEM-2")])
    final = build_agent_graph(Harness(ro, rw, allowed=ALLOWED), lying, memory).invoke(
        {"question": "flag the riskiest customers", "thread_id": "liar"})
    assert final["verified"] == "unverified"
    assert final["written"]["entity"] == []
    workflow = memory.memory.read_workflows("flag the riskiest customers", k=1, successful_only=False)[0]
    assert workflow["metadata"]["success"] is False
    assert memory.memory.read_conversation("t-mem-liar")[-1]["content"].startswith("NOT DONE (unverified)")


def test_a_denied_call_is_logged_in_tool_memory_and_forget_undoes_a_run(conns, memory):
    rw, ro = conns
    planner = ScriptedPlanner([[Call("write_query", {"sql": "DELETE FROM finance_loans"})], Answer("done")])
    build_agent_graph(Harness(ro, rw, allowed=ALLOWED), planner, memory).invoke({"question": "clean up",
                                                                                  "thread_id": "deny"})
    log = memory.memory.read_tool_log("t-mem-deny")
    assert [(e["tool_name"], e["status"]) for e in log] == [("write_query", "error")]
    assert memory.forget() > 0 and memory.memory.read_tool_log("t-mem-deny") == []


def test_memory_tools_validate_their_inputs_and_supersede_by_key(conns):
    rw, _ = conns
    mem = HarnessMemory(MemoryManager(rw), namespace="t-tools")
    tools = mem.tools()
    for bad in ({"key": "", "fact": "x"}, {"key": "k", "fact": ""}, {"key": 3, "fact": "x"}):
        with pytest.raises(ValueError):
            tools["remember"](**bad)
    with pytest.raises(ValueError):
        tools["recall"]("officer", k=9)
    first = tools["remember"]("Porto lead", "The Porto lead is Eva.")["id"]
    assert tools["remember"]("porto  LEAD", "The Porto lead is now Rui.")["id"] == first
    assert tools["recall"]("Who leads Porto?") == [{"text": "The Porto lead is now Rui.", "key": "porto  LEAD"}]
    mem.forget()


def test_the_knowledge_base_is_built_when_part_05_never_ran(conns):
    """A learner who skipped part 05: harness_memory builds its tables, package and policies, and RLS holds."""
    from workshop.reset import reset_part
    rw, ro = conns
    create_case_table(rw)                                    # a policy already uses the package (section 7 ran)
    reset_part(5, rw, log=None)
    assert not knowledge_base_ready(rw)
    mem = harness_memory(rw, ro, "acme", "jane", namespace="t-kb")
    assert knowledge_base_ready(rw)
    found = mem.assemble("What does the memkeeper retention runbook recommend?", "kb")["retrieved"]
    assert found and "KB-G01" not in {r["document_id"] for r in found}
    assert [r["case_ref"] for r in open_cases_tool(ro, "acme")(limit=5)] == ["AC-1", "AC-2"]
