"""The pipeline as a LangGraph graph of three nodes for six stages, and a two-hop agentic loop.

Three nodes, not six: stages 2-5 are one SQL statement, and splitting them into nodes would add
round trips to recreate a boundary the engine deliberately erased. The agentic loop composes the
pipeline: every hop runs the same six stages through the same manager (so the same scope, RLS and
reranker), under an explicit budget of rounds.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypedDict

from langgraph.graph import END, START, StateGraph

from .budget import budget_context


class RetrievalState(TypedDict, total=False):
    query: str
    plan: dict              # entities, expansions, intent, collections, token_budget, diversify_by, lex_query
    candidates: list        # stages 2-5: at most 40 reranked rows
    working_set: list       # stage 6: within plan["token_budget"]
    budget_report: dict


def build_retrieval_graph(manager, user_id: str, *, candidates: int = 40,
                          budget: Callable[..., tuple[list[dict], dict]] = budget_context):
    def understand(state: RetrievalState) -> dict:                 # stage 1
        return {"plan": manager.understand_query(state["query"], user_id=user_id)}

    def retrieve_and_rerank(state: RetrievalState) -> dict:        # stages 2-5: one SQL statement
        return {"candidates": manager.search_knowledge_base(state["plan"], user_id=user_id, top_k=candidates)}

    def budget_node(state: RetrievalState) -> dict:                # stage 6: a pure function
        working_set, report = budget(state["candidates"], max_tokens=state["plan"]["token_budget"],
                                     diversify_by=state["plan"]["diversify_by"])
        return {"working_set": working_set, "budget_report": report}

    g = StateGraph(RetrievalState)
    g.add_node("understand", understand)
    g.add_node("retrieve", retrieve_and_rerank)
    g.add_node("budget", budget_node)
    g.add_edge(START, "understand")
    g.add_edge("understand", "retrieve")
    g.add_edge("retrieve", "budget")
    g.add_edge("budget", END)
    return g.compile()


_SETTING = re.compile(r"\b[a-z]+(?:[._][a-z_]+){2,}\b|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")


def derived_term(text: str) -> str | None:
    """A term to follow up on, read from a passage: its first setting or job name (memkeeper.x.y, MEMKEEPER_JOB)."""
    match = _SETTING.search(text)
    return match.group(0) if match else None


def agentic_retrieval(graph, question: str, *, max_rounds: int = 2) -> dict:
    """Deterministic two-hop retrieval: hop 1 is the question; when it is a comparison, hop 2 asks about a named
    entity that has no source in the working set yet, or else about the first setting a kept passage names. Never more than `max_rounds` runs of the pipeline; a simple lookup takes one."""
    if max_rounds < 1:
        raise ValueError("max_rounds must be at least 1")
    rounds = [graph.invoke({"query": question})]
    plan = rounds[0]["plan"]
    while len(rounds) < max_rounds and plan["intent"] == "comparison":
        seen_text = " ".join(r["title"] + " " + r["content"] for s in rounds for r in s["working_set"]).lower()
        missing = [e for e in plan["entities"] if e.lower() not in seen_text]
        follow = next((t for r in rounds[-1]["working_set"] if (t := derived_term(r["content"]))), None)
        if missing:
            next_query = f"What does {missing[0]} say about {' '.join(plan['expansions'][:2]) or question}?"
        elif follow and follow.lower() not in question.lower():
            next_query = f"What is {follow} and what does it control?"
        else:
            break
        rounds.append(graph.invoke({"query": next_query}))
    merged: dict[str, dict] = {}
    for state in rounds:
        for row in state["working_set"]:
            merged.setdefault(row["id"], row)
    return {"rounds": [{"query": s["query"], "intent": s["plan"]["intent"],
                        "kept": [r["id"] for r in s["working_set"]]} for s in rounds],
            "working_set": list(merged.values())}
