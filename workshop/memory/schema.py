"""The relational half of agent memory: the CONVERSATION_MEMORY and TOOL_LOG tables.

Conversation turns and tool calls are *records*, not search targets: they are read back by
thread and in order, so they live in ordinary tables with an identity key and an insert
timestamp. The five vector stores (stores.py) hold the memory that is searched by meaning.

Every statement is idempotent (`CREATE ... IF NOT EXISTS`, `DROP ... IF EXISTS`, both in
Oracle AI Database 23ai/26ai and in the embedded engine), so a notebook can run them again.
"""
from __future__ import annotations

import oracledb

CONVERSATION_TABLE = "CONVERSATION_MEMORY"
TOOL_LOG_TABLE = "TOOL_LOG"

#: Roles a conversation turn may have (the CHECK constraint and write_conversation agree on them).
ROLES = ("user", "assistant", "system", "tool")
#: Outcomes a tool call may have.
TOOL_STATUSES = ("ok", "error")
#: Longest thread id / tool name the tables accept (bytes, VARCHAR2's default unit).
MAX_THREAD_ID_BYTES = 100
MAX_TOOL_NAME_BYTES = 100

CONVERSATION_DDL = """CREATE TABLE IF NOT EXISTS conversation_memory (
    id          NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    thread_id   VARCHAR2(100) NOT NULL,
    role        VARCHAR2(20)  NOT NULL,
    content     CLOB          NOT NULL,
    metadata    JSON,
    created_at  TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL,
    summary_id  VARCHAR2(100),
    CONSTRAINT conversation_memory_role_ck CHECK (role IN ('user', 'assistant', 'system', 'tool'))
)"""

CONVERSATION_INDEX_DDL = ("CREATE INDEX IF NOT EXISTS conversation_memory_thread_ix "
                          "ON conversation_memory (thread_id, created_at)")

TOOL_LOG_DDL = """CREATE TABLE IF NOT EXISTS tool_log (
    id          NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    thread_id   VARCHAR2(100) NOT NULL,
    tool_name   VARCHAR2(100) NOT NULL,
    arguments   JSON,
    output      CLOB,
    status      VARCHAR2(10)  DEFAULT 'ok' NOT NULL,
    created_at  TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL,
    CONSTRAINT tool_log_status_ck CHECK (status IN ('ok', 'error'))
)"""

TOOL_LOG_INDEX_DDL = "CREATE INDEX IF NOT EXISTS tool_log_thread_ix ON tool_log (thread_id, created_at)"

#: In creation order; each statement may run any number of times.
MEMORY_TABLE_DDL = (CONVERSATION_DDL, CONVERSATION_INDEX_DDL, TOOL_LOG_DDL, TOOL_LOG_INDEX_DDL)


def create_memory_tables(conn: oracledb.Connection) -> None:
    """Create CONVERSATION_MEMORY and TOOL_LOG (and their thread indexes) unless they exist."""
    with conn.cursor() as cur:
        for ddl in MEMORY_TABLE_DDL:
            cur.execute(ddl)


def drop_tables(conn: oracledb.Connection, names: tuple[str, ...] | list[str]) -> None:
    """DROP TABLE IF EXISTS ... PURGE for each name (quoted as given: upper-case names expected)."""
    with conn.cursor() as cur:
        for name in names:
            cur.execute(f'DROP TABLE IF EXISTS "{name}" PURGE')
