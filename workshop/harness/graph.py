"""The harness as a LangGraph graph whose state lives in the workshop database (langgraph-oracledb's OracleSaver).

Nodes: context assembly → planning → tool execution (looping back to planning) → verification → memory
write-back. Context assembly and write-back are part 03's memory and part 05's retriever (`HarnessMemory`):
what the planner sees comes from there, and what the run leaves behind goes back there. Every gate of
`Harness` still applies (allowlist, typed inputs, budgets, the read-only session, the run record); the graph
adds a visible structure and durable state: interrupt a run, restart the kernel, and `invoke(None, config)`
continues at the node where it stopped.

The planner is pluggable: anything with `next_action(question, observations, round)`. `ScriptedPlanner` is a
function of the round, so a resumed run asks it for the same step again; `ChatPlanner` (workshop.harness.chat)
is used only when WORKSHOP_LLM_BASE_URL and WORKSHOP_LLM_MODEL are set.
"""
from __future__ import annotations

import uuid
from typing import Any, TypedDict

from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from . import approvals

from .budget import Budget, BudgetExhausted
from .memory import HarnessMemory
from .runlog import RunRecorder
from .runner import INSUFFICIENT_CONTEXT, Answer, Call, Harness, abandon_run, proposed_calls


class AgentState(TypedDict, total=False):
    question: str
    thread_id: str
    run_id: str
    context: list[str]          # what the planner is shown: memory sections, then retrieved passages
    memory_used: dict           # memory section -> the lines that made it into the context
    retrieved: list[dict]       # part 05's passages (document id, title, text)
    written: dict               # memory type -> ids written back
    grounding: str
    pending: list[dict]
    observations: list[dict]
    answer: str
    saved_case: str | None
    status: str
    verified: str
    tool_calls: int
    tokens: int                 # the run's token budget spent so far: one budget across every round
    refused_calls: int          # proposals refused without running (bounded too)
    rounds: int


def _recorder(harness: Harness, state: AgentState) -> RunRecorder:
    """The run's recorder, continuing its event numbering (also after a restart)."""
    recorder = RunRecorder.__new__(RunRecorder)
    recorder.conn, recorder.run_id, recorder.redactor = harness.write_conn, state["run_id"], harness.redactor
    with harness.write_conn.cursor() as cur:
        cur.execute("SELECT NVL(MAX(seq), 0) FROM agent_run_events WHERE run_id = :r", r=state["run_id"])
        recorder.seq = int(cur.fetchone()[0])
    return recorder


def _run_budget(limits: Budget, state: AgentState) -> Budget:
    """The run's one budget, as far as it is spent: the state carries calls, tokens and rounds from round to
    round (and across a restart), so no round starts a fresh budget."""
    spent = Budget(limits.max_tool_calls, limits.max_tokens, limits.max_rounds, limits.max_refused_calls)
    spent.tool_calls, spent.tokens, spent.rounds = (state.get("tool_calls", 0), state.get("tokens", 0),
                                                    state.get("rounds", 0))
    spent.refused_calls = state.get("refused_calls", 0)
    return spent


def _needs_approval(harness: Harness, call: dict) -> bool:
    return isinstance(call.get("name"), str) and call["name"] in harness.requires_approval


def _ends_run_on_error(harness: Harness, node: Any) -> Any:
    """`node`, but an exception escaping it (a planner that raises, a KeyboardInterrupt) first ends the run in the
    record (`failed` or `interrupted`), so no run stays `running`; LangGraph's own interrupts pass untouched."""
    def guarded(state: AgentState) -> dict:
        try:
            return node(state)
        except GraphBubbleUp:
            raise
        except BaseException as error:
            if state.get("run_id"):
                abandon_run(_recorder(harness, state), error)
            raise
    guarded.__name__ = getattr(node, "__name__", "node")
    return guarded


def build_agent_graph(harness: Harness, planner: Any, memory: HarnessMemory, *, checkpointer: Any = None,
                      budget: Budget | None = None, interrupt_before: list[str] | None = None):
    """The compiled graph. `memory` is part 03's memory (and part 05's retriever) the two memory nodes use.
    The budget is `budget`, else the harness's own (`harness.make_budget()`), so the graph and `Harness.run`
    stop a run at the same limits."""
    limits = budget or harness.make_budget()

    def assemble_context(state: AgentState) -> dict:
        run_id = state.get("run_id") or uuid.uuid4().hex
        RunRecorder(harness.write_conn, run_id, state.get("thread_id", "default"), planner.name,
                    redactor=harness.redactor)
        recorder = _recorder(harness, {"run_id": run_id})
        try:
            recorder.event("CONVERSATION", "user", "received", {"text": state["question"]})
            found = memory.assemble(state["question"], state.get("thread_id", "default"))
            recorder.event("CONTEXT", "assemble_context", "success",
                           outputs={"memory": {k: len(v) for k, v in found["memory"].items()},
                                    "retrieved": [r["document_id"] for r in found["retrieved"]]})
        except BaseException as error:
            abandon_run(recorder, error)
            raise
        return {"run_id": run_id, "context": found["context"], "memory_used": found["memory"],
                "retrieved": found["retrieved"], "observations": [], "pending": [], "tool_calls": 0,
                "tokens": 0, "refused_calls": 0, "rounds": 0, "status": "running"}

    def plan(state: AgentState) -> dict:
        if state["rounds"] >= limits.max_rounds:
            _recorder(harness, state).event("RUNTIME", "rounds", "budget_exhausted")
            return {"status": "budget_exhausted", "pending": []}
        action = planner.next_action(state["question"], state["observations"], state["rounds"],
                                     context=state.get("context", []))
        if isinstance(action, Answer):
            return {"answer": action.text, "saved_case": action.saved_case, "pending": [],
                    "rounds": state["rounds"] + 1}
        return {"pending": [{"name": getattr(c, "name", None), "arguments": getattr(c, "arguments", None)}
                            for c in proposed_calls(action)],
                "rounds": state["rounds"] + 1}

    def approval(state: AgentState) -> dict:
        """A human decides on each high-risk call before the tools node runs it (a LangGraph interrupt: the run
        pauses, its state saved, until `invoke(Command(resume={"actor": ..., "approve": ...}), config)`).
        Without a checkpointer nothing can pause, so no decision is recorded and the tools node refuses."""
        if checkpointer is None:
            return {}
        for call in state["pending"]:
            if not _needs_approval(harness, call):
                continue
            approval_id = approvals.request_approval(harness.write_conn, state["run_id"], call["name"],
                                                     call["arguments"])     # the same id when re-run on resume
            decision = interrupt({"approval_id": approval_id, "tool": call["name"], "arguments": call["arguments"]})
            decision = decision if isinstance(decision, dict) else {}
            try:
                outcome = approvals.decide(harness.write_conn, approval_id, decision.get("actor"),
                                           decision.get("approve") is True)
            except approvals.ApprovalRefused as refused:
                outcome = f"refused: {refused}"[:24]
            _recorder(harness, state).event("APPROVAL", call["name"], outcome, call["arguments"],
                                            {"approval_id": approval_id, "actor": decision.get("actor")})
        return {}

    def tools(state: AgentState) -> dict:
        recorder = _recorder(harness, state)
        run_budget = _run_budget(limits, state)
        observations = list(state["observations"])
        try:
            for call in state["pending"]:
                observation = harness._call(state["run_id"], Call(call["name"], call["arguments"]), run_budget, recorder)
                observations.append({**observation, "output": observation["output"]})
        except BudgetExhausted as exhausted:
            recorder.event("RUNTIME", exhausted.which, "budget_exhausted")
            return {"observations": observations, "pending": [], "tool_calls": run_budget.tool_calls,
                    "tokens": run_budget.tokens, "refused_calls": run_budget.refused_calls,
                    "status": "budget_exhausted"}
        return {"observations": observations, "pending": [], "tool_calls": run_budget.tool_calls,
                "tokens": run_budget.tokens, "refused_calls": run_budget.refused_calls}

    def verify(state: AgentState) -> dict:
        recorder = _recorder(harness, state)
        evidence = [o for o in state["observations"] if o["status"] == "success" and o["output"]]
        status = "completed" if state.get("status") == "running" else state["status"]
        text = state.get("answer") or "The run stopped: its budget ran out."
        if state.get("answer") and not evidence:
            text = f"{INSUFFICIENT_CONTEXT}: no tool returned evidence for this question."
        verified = "n/a"
        if state.get("answer") and state.get("saved_case"):
            ok = harness.verifier(harness.write_conn, state["run_id"], state["saved_case"])
            verified = "verified" if ok else "unverified"
            recorder.event("VERIFY", "finding_saved", verified, {"case_ref": state["saved_case"]})
            if not ok:
                text = f"NOT DONE (unverified): the claim that {state['saved_case']} was saved has no row behind it."
        grounding = "READY" if evidence else INSUFFICIENT_CONTEXT
        recorder.event("CONVERSATION", "assistant", grounding, outputs={"text": text})
        recorder.finish(status, verified, text)
        return {"answer": text, "status": status, "verified": verified, "grounding": grounding}

    def memory_write_back(state: AgentState) -> dict:
        written = memory.write_back(state)
        _recorder(harness, state).event("MEMORY", "memory_write_back", "success",
                                        outputs={k: len(v) for k, v in written.items()})
        return {"written": written}

    def after_plan(state: AgentState) -> str:
        if not (state.get("pending") and state.get("status") == "running"):
            return "verify"
        return "approval" if any(_needs_approval(harness, c) for c in state["pending"]) else "tools"

    def after_tools(state: AgentState) -> str:
        return "plan" if state.get("status") == "running" else "verify"

    graph = StateGraph(AgentState)
    for name, node in (("assemble_context", assemble_context), ("plan", plan), ("approval", approval), ("tools", tools),
                       ("verify", verify), ("memory_write_back", memory_write_back)):
        graph.add_node(name, _ends_run_on_error(harness, node))
    graph.add_edge(START, "assemble_context")
    graph.add_edge("assemble_context", "plan")
    graph.add_conditional_edges("plan", after_plan, {"approval": "approval", "tools": "tools", "verify": "verify"})
    graph.add_edge("approval", "tools")
    graph.add_conditional_edges("tools", after_tools, {"plan": "plan", "verify": "verify"})
    graph.add_edge("verify", "memory_write_back")
    graph.add_edge("memory_write_back", END)
    return graph.compile(checkpointer=checkpointer, interrupt_before=interrupt_before)
