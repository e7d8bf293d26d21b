"""The map of agent memory, as data a notebook can show: each memory type, and who triggers each operation."""
from __future__ import annotations

MEMORY_TYPES = [
    {"memory": "conversation", "storage": "CONVERSATION_MEMORY table (identity id, thread_id, CLOB, JSON)",
     "written by": "the application, every turn", "read when": "every turn: the thread's newest turns, in order"},
    {"memory": "tool log", "storage": "TOOL_LOG table",
     "written by": "the application, after every tool call", "read when": "debugging, audits, 'what did you do?'"},
    {"memory": "knowledge base", "storage": "KNOWLEDGE_BASE_VS (OracleVS, in-database embeddings)",
     "written by": "ingestion, or the agent (save_knowledge)", "read when": "a question needs facts: vector search + metadata filter"},
    {"memory": "workflow", "storage": "WORKFLOW_VS",
     "written by": "the application, after a task that used tools", "read when": "a similar task comes up: reuse the steps"},
    {"memory": "toolbox", "storage": "TOOLBOX_VS",
     "written by": "the application, when tools are registered", "read when": "every turn: offer only the relevant tools"},
    {"memory": "entity", "storage": "ENTITY_VS (one row per entity, upserted)",
     "written by": "the agent (remember_entity)", "read when": "a person, project or thing is mentioned"},
    {"memory": "summary", "storage": "SUMMARY_VS + CONVERSATION_MEMORY.summary_id",
     "written by": "the application, when a thread grows long", "read when": "every turn, instead of the old turns"},
]

OPERATIONS = [
    {"operation": "write_conversation (user and assistant turns)", "triggered by": "programmatic", "when": "every turn"},
    {"operation": "build_context (reads all memory types)", "triggered by": "programmatic", "when": "before the model runs"},
    {"operation": "read_toolbox (tool retrieval)", "triggered by": "programmatic", "when": "before the model runs"},
    {"operation": "write_tool_log", "triggered by": "programmatic", "when": "after every tool call"},
    {"operation": "write_workflow", "triggered by": "programmatic", "when": "after a turn that used tools"},
    {"operation": "summarise_thread -> write_summary", "triggered by": "programmatic", "when": "the thread has too many unsummarised turns"},
    {"operation": "write_toolbox", "triggered by": "programmatic", "when": "at start-up, once per tool"},
    {"operation": "save_knowledge -> write_knowledge", "triggered by": "agent (tool call)", "when": "the user asks it to remember a fact"},
    {"operation": "remember_entity -> write_entity", "triggered by": "agent (tool call)", "when": "the user describes a person or thing"},
    {"operation": "search_knowledge -> read_knowledge", "triggered by": "agent (tool call)", "when": "it needs facts it does not have"},
    {"operation": "lookup_entity -> read_entity", "triggered by": "agent (tool call)", "when": "it is asked about a named thing"},
    {"operation": "recall_workflows -> read_workflows", "triggered by": "agent (tool call)", "when": "it is asked how to do something"},
    {"operation": "summarise_conversation -> summarise_thread", "triggered by": "agent (tool call)", "when": "the user asks, or the topic changes"},
    {"operation": "expand_summary", "triggered by": "agent (tool call)", "when": "it needs the exact turns a summary replaced"},
]


def memory_types_frame():
    import pandas as pd
    return pd.DataFrame(MEMORY_TYPES)


def operations_frame():
    import pandas as pd
    return pd.DataFrame(OPERATIONS)
