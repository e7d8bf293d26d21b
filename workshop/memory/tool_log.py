"""The tool log: every tool call the agent makes, with its arguments, output and outcome, in TOOL_LOG.

The application writes it (not the model): it is an audit trail and a debugging aid, so a call
is logged whether it succeeded or failed.
"""
from __future__ import annotations

import json
from typing import Any

import oracledb

from .records import require_k, require_metadata, require_short_text, text_of
from .schema import MAX_THREAD_ID_BYTES, MAX_TOOL_NAME_BYTES, TOOL_STATUSES

INSERT_CALL = """INSERT INTO tool_log (thread_id, tool_name, arguments, output, status)
VALUES (:thread_id, :tool_name, :arguments, :output, :status)
RETURNING id INTO :new_id"""

SELECT_CALLS = """SELECT id, thread_id, tool_name, arguments, output, status, created_at
FROM (
    SELECT id, thread_id, tool_name, arguments, output, status, created_at
    FROM tool_log
    WHERE thread_id = :thread_id
    ORDER BY created_at DESC, id DESC
    FETCH FIRST :limit ROWS ONLY
)
ORDER BY created_at, id"""

COLUMNS = ("id", "thread_id", "tool_name", "arguments", "output", "status", "created_at")


def output_text(output: Any) -> str | None:
    """A tool's output as text: str as is, anything else as JSON (repr for what JSON cannot hold)."""
    if output is None or isinstance(output, str):
        return output
    try:
        return json.dumps(output, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(output)


def write_tool_log(conn: oracledb.Connection, thread_id: str, tool_name: str, arguments: dict | None,
                   output: Any, status: str = "ok", *, commit: bool = True) -> int:
    """Log one tool call; its new id."""
    require_short_text(thread_id, "thread_id", MAX_THREAD_ID_BYTES)
    require_short_text(tool_name, "tool_name", MAX_TOOL_NAME_BYTES)
    if status not in TOOL_STATUSES:
        raise ValueError(f"status must be one of {TOOL_STATUSES}, not {status!r}")
    args = require_metadata(arguments)
    text = output_text(output)
    with conn.cursor() as cur:
        new_id = cur.var(oracledb.DB_TYPE_NUMBER)
        cur.setinputsizes(arguments=oracledb.DB_TYPE_JSON, output=oracledb.DB_TYPE_CLOB)
        cur.execute(INSERT_CALL, thread_id=thread_id, tool_name=tool_name, arguments=args,
                    output=text if text else None, status=status, new_id=new_id)
        value = new_id.getvalue()[0]
    if commit:
        conn.commit()
    return int(value)


def read_tool_log(conn: oracledb.Connection, thread_id: str, limit: int = 20) -> list[dict]:
    """The newest `limit` tool calls of a thread, oldest first, as dicts (keys: COLUMNS)."""
    require_short_text(thread_id, "thread_id", MAX_THREAD_ID_BYTES)
    require_k(limit, "limit")
    with conn.cursor() as cur:
        cur.execute(SELECT_CALLS, thread_id=thread_id, limit=limit)
        rows = cur.fetchall()
    records = [dict(zip(COLUMNS, row)) for row in rows]
    for record in records:
        record["output"] = text_of(record["output"])
    return records
