"""Agent memory on Oracle AI Database (part 03 of the workshop).

* schema: the CONVERSATION_MEMORY and TOOL_LOG tables (idempotent DDL), reset_memory;
* stores: the five OracleVS stores with in-database embeddings (STORE_TABLES, create_stores);
* conversation, tool_log, knowledge, workflows, toolbox, entities, summaries: one module per memory type;
* context / tokens: a bounded context from every memory type, with a documented token estimate;
* manager: MemoryManager, the one object an application uses;
* agent / tools / llm: a memory agent with a deterministic rule-based stand-in for the LLM, and an
  optional OpenAI-compatible LLM hook behind environment variables.
"""
from __future__ import annotations

import oracledb

from .agent import AgentTurn, MemoryAgent, Plan, Planner, RulePlanner, ToolCall, ToolResult
from .context import DEFAULT_BUDGET, SECTIONS, Context, Section, assemble_context
from .conversation import expand_summary, mark_summarised, read_conversation, unsummarised_ids, write_conversation
from .entities import entity_id, entity_text, read_entity, write_entity
from .knowledge import read_knowledge, write_knowledge
from .llm import OpenAICompatiblePlanner, planner_from_env
from .manager import MemoryManager
from .model import database_embeddings, ensure_embedding_model_loaded, model_loaded
from .overview import MEMORY_TYPES, OPERATIONS, memory_types_frame, operations_frame
from .records import text_of
from .schema import (CONVERSATION_DDL, CONVERSATION_TABLE, ROLES, TOOL_LOG_DDL, TOOL_LOG_TABLE,
                     create_memory_tables, drop_tables)
from .stores import STORE_TABLES, create_store_indexes, create_stores, drop_stores, search
from .summaries import extractive_summary, read_summary, write_summary
from .tokens import estimate_tokens, truncate_to_tokens
from .tool_log import read_tool_log, write_tool_log
from .toolbox import read_toolbox, write_toolbox
from .tools import Tool, calculate, memory_tools
from .workflows import read_workflows, workflow_metadata, workflow_text, write_workflow

#: Every table part 03 creates (what reset_memory drops).
MEMORY_TABLES = (CONVERSATION_TABLE, TOOL_LOG_TABLE, *STORE_TABLES.values())


def reset_memory(conn: oracledb.Connection) -> list[str]:
    """Part 03's reset: drop every memory table (conversation, tool log and the five stores) that exists.

    Rolls back any open transaction first, so a half-finished cell cannot block the drops, then runs
    `workshop.reset.reset_part(3)` (the tables part 03 owns are registered in workshop.schema).
    Returns what was dropped.
    """
    from workshop.reset import reset_part
    conn.rollback()
    return reset_part(3, conn, log=None)


__all__ = [
    "AgentTurn", "CONVERSATION_DDL", "CONVERSATION_TABLE", "Context", "DEFAULT_BUDGET", "MEMORY_TABLES",
    "MEMORY_TYPES", "MemoryAgent", "MemoryManager", "OPERATIONS", "OpenAICompatiblePlanner", "Plan", "Planner",
    "ROLES", "RulePlanner", "SECTIONS", "STORE_TABLES", "Section", "TOOL_LOG_DDL", "TOOL_LOG_TABLE", "Tool",
    "ToolCall", "ToolResult", "assemble_context", "calculate", "create_memory_tables", "create_store_indexes", "create_stores",
    "database_embeddings", "drop_stores", "drop_tables", "ensure_embedding_model_loaded", "entity_id",
    "entity_text", "estimate_tokens", "expand_summary", "extractive_summary", "mark_summarised", "memory_tools",
    "memory_types_frame", "model_loaded", "operations_frame", "planner_from_env", "read_conversation",
    "read_entity", "read_knowledge", "read_summary", "read_tool_log", "read_toolbox", "read_workflows",
    "reset_memory", "search", "text_of", "truncate_to_tokens", "unsummarised_ids", "workflow_metadata",
    "workflow_text", "write_conversation", "write_entity", "write_knowledge", "write_summary",
    "write_tool_log", "write_toolbox", "write_workflow",
]
