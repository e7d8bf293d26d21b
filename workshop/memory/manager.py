"""MemoryManager: one object that reads and writes every kind of agent memory for an application.

    memory = MemoryManager(conn)                       # creates the tables and the five stores if missing
    turn_id = memory.write_conversation("t1", "user", "Hello")
    memory.write_knowledge("HNSW is a graph index.", {"source": "notes"})
    context = memory.build_context("how does HNSW work?", thread_id="t1")
    print(context.text, context.usage())

Every write commits (the vector stores commit through LangChain, the tables here), so another
session, a checkpoint or the next notebook sees it at once.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import oracledb
from langchain_oracledb import OracleVS

from . import conversation, entities, knowledge, summaries, tool_log, toolbox, workflows
from .context import DEFAULT_BUDGET, Context, assemble_context
from .schema import create_memory_tables
from .stores import STORE_TABLES, create_stores
from .summaries import Summariser, extractive_summary


class MemoryManager:
    """Reads and writes conversation, tool log, knowledge, workflow, toolbox, entity and summary memory."""

    def __init__(self, conn: oracledb.Connection, stores: Mapping[str, OracleVS] | None = None, *,
                 create_tables: bool = True):
        self.conn = conn
        if create_tables:
            create_memory_tables(conn)
        self.stores: dict[str, OracleVS] = dict(stores) if stores is not None else create_stores(conn)
        missing = [key for key in STORE_TABLES if key not in self.stores]
        if missing:
            raise KeyError(f"stores is missing {missing}; expected the keys {list(STORE_TABLES)}")

    # ------------------------------------------------------------------ conversation and tool log (tables)
    def write_conversation(self, thread_id: str, role: str, content: str, metadata: dict | None = None) -> int:
        return conversation.write_conversation(self.conn, thread_id, role, content, metadata)

    def read_conversation(self, thread_id: str, limit: int = 10, *, include_summarised: bool = True) -> list[dict]:
        return conversation.read_conversation(self.conn, thread_id, limit, include_summarised=include_summarised)

    def write_tool_log(self, thread_id: str, tool_name: str, arguments: dict | None, output: Any,
                       status: str = "ok") -> int:
        return tool_log.write_tool_log(self.conn, thread_id, tool_name, arguments, output, status)

    def read_tool_log(self, thread_id: str, limit: int = 20) -> list[dict]:
        return tool_log.read_tool_log(self.conn, thread_id, limit)

    # ------------------------------------------------------------------ vector stores
    def write_knowledge(self, text: str, metadata: dict | None = None, *, id: str | None = None) -> str:
        return knowledge.write_knowledge(self.stores, text, metadata, id=id)

    def read_knowledge(self, query: str, k: int = 3, filter: dict | None = None) -> list[dict]:
        return knowledge.read_knowledge(self.stores, query, k, filter)

    def write_workflow(self, query: str, steps: Sequence[str], final_answer: str, success: bool = True) -> str:
        return workflows.write_workflow(self.stores, query, steps, final_answer, success)

    def read_workflows(self, query: str, k: int = 3, *, successful_only: bool = True) -> list[dict]:
        return workflows.read_workflows(self.stores, query, k, successful_only=successful_only)

    def write_toolbox(self, name: str, description: str, parameters: dict | None = None) -> str:
        return toolbox.write_toolbox(self.stores, name, description, parameters)

    def read_toolbox(self, query: str, k: int = 3) -> list[dict]:
        return toolbox.read_toolbox(self.stores, query, k)

    def write_entity(self, name: str, entity_type: str, description: str, metadata: dict | None = None) -> str:
        return entities.write_entity(self.stores, name, entity_type, description, metadata)

    def read_entity(self, query: str, k: int = 3, entity_type: str | None = None) -> list[dict]:
        return entities.read_entity(self.stores, query, k, entity_type)

    def write_summary(self, thread_id: str, summary: str, message_ids: Sequence[int]) -> str:
        return summaries.write_summary(self.conn, self.stores, thread_id, summary, message_ids)

    def read_summary(self, query: str, k: int = 3, thread_id: str | None = None) -> list[dict]:
        return summaries.read_summary(self.stores, query, k, thread_id)

    def expand_summary(self, summary_id: str) -> list[dict]:
        """The turns the summary replaced, oldest first (conversation.expand_summary)."""
        return conversation.expand_summary(self.conn, summary_id)

    def summarise_thread(self, thread_id: str, keep_last: int = 4,
                         summariser: Summariser = extractive_summary) -> str | None:
        """Summarise the thread's unsummarised turns except the newest keep_last; the summary id, or
        None when there is nothing to summarise."""
        ids = conversation.unsummarised_ids(self.conn, thread_id, keep_last)
        if not ids:
            return None
        wanted = set(ids)
        turns = [t for t in self.read_conversation(thread_id, len(ids) + keep_last, include_summarised=False)
                 if t["id"] in wanted]
        return self.write_summary(thread_id, summariser(turns), ids)

    # ------------------------------------------------------------------ context
    def context_candidates(self, query: str, thread_id: str, *, k: int = 3, turns: int = 20,
                           max_distance: float | None = None) -> dict[str, list[str]]:
        """Ranked candidate lines per context section (what build_context chooses from).

        Conversation: the thread's newest `turns` unsummarised turns, oldest first. The other
        sections: the k nearest records of each store (summaries of this thread only), dropping
        those farther than max_distance (cosine) when it is given.
        """
        def near(records: list[dict]) -> list[dict]:
            return [r for r in records if max_distance is None or r["distance"] <= max_distance]

        return {
            "conversation": [f"{t['role']}: {t['content']}"
                             for t in self.read_conversation(thread_id, turns, include_summarised=False)],
            "summary": [f"{r['text']} [{r['metadata'].get('summary_id') or r['id']}]"
                        for r in near(self.read_summary(query, k, thread_id=thread_id))],
            "knowledge": [_bullet(r, "source") for r in near(self.read_knowledge(query, k))],
            "entity": [_bullet(r) for r in near(self.read_entity(query, k))],
            "workflow": [_bullet(r) for r in near(self.read_workflows(query, k))],
            "toolbox": [_bullet(r) for r in near(self.read_toolbox(query, k))],
        }

    def build_context(self, query: str, thread_id: str, budget: int = DEFAULT_BUDGET, *, k: int = 3,
                      turns: int = 20, max_distance: float | None = None) -> Context:
        """The context for answering `query` in `thread_id`, within `budget` estimated tokens
        (tokens.estimate_tokens; see context.assemble_context for how the budget is shared)."""
        candidates = self.context_candidates(query, thread_id, k=k, turns=turns, max_distance=max_distance)
        return assemble_context(candidates, budget, headings={"conversation": f"Conversation so far ({thread_id})"})


def _bullet(record: dict, cite: str | None = None) -> str:
    text = " ".join(record["text"].split())
    source = record["metadata"].get(cite) if cite else None
    return f"- {text} [{cite}: {source}]" if source else f"- {text}"
