"""Conversational memory: the turns of each thread, in CONVERSATION_MEMORY.

Writes use `INSERT ... RETURNING id INTO :new_id`: the database assigns the identity key and
hands it back in the same round trip, so the caller can refer to the turn (a summary marks the
turns it covers by id) without a second query or a race on MAX(id).
"""
from __future__ import annotations

from collections.abc import Iterable

import oracledb

from .records import require_k, require_metadata, require_short_text, require_text, text_of
from .schema import MAX_THREAD_ID_BYTES, ROLES

INSERT_TURN = """INSERT INTO conversation_memory (thread_id, role, content, metadata)
VALUES (:thread_id, :role, :content, :metadata)
RETURNING id INTO :new_id"""

#: The newest `limit` turns of a thread, returned oldest first (the order a prompt needs).
SELECT_TURNS = """SELECT id, thread_id, role, content, metadata, created_at, summary_id
FROM (
    SELECT id, thread_id, role, content, metadata, created_at, summary_id
    FROM conversation_memory
    WHERE thread_id = :thread_id{unsummarised}
    ORDER BY created_at DESC, id DESC
    FETCH FIRST :limit ROWS ONLY
)
ORDER BY created_at, id"""

COLUMNS = ("id", "thread_id", "role", "content", "metadata", "created_at", "summary_id")


def write_conversation(conn: oracledb.Connection, thread_id: str, role: str, content: str,
                       metadata: dict | None = None, *, commit: bool = True) -> int:
    """Store one turn and return its new id (committed unless commit=False)."""
    require_short_text(thread_id, "thread_id", MAX_THREAD_ID_BYTES)
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, not {role!r}")
    require_text(content, "content")
    meta = require_metadata(metadata) if metadata is not None else None
    with conn.cursor() as cur:
        new_id = cur.var(oracledb.DB_TYPE_NUMBER)
        cur.setinputsizes(content=oracledb.DB_TYPE_CLOB, metadata=oracledb.DB_TYPE_JSON)
        cur.execute(INSERT_TURN, thread_id=thread_id, role=role, content=content, metadata=meta, new_id=new_id)
        value = new_id.getvalue()[0]  # DML RETURNING gives one value per row: a list
    if commit:
        conn.commit()
    return int(value)


def read_conversation(conn: oracledb.Connection, thread_id: str, limit: int = 10, *,
                      include_summarised: bool = True) -> list[dict]:
    """The newest `limit` turns of one thread, oldest first, as dicts (keys: COLUMNS).

    With include_summarised=False, turns already covered by a summary are left out (the context
    builder reads those through their summary instead).
    """
    require_short_text(thread_id, "thread_id", MAX_THREAD_ID_BYTES)
    require_k(limit, "limit")
    sql = SELECT_TURNS.format(unsummarised="" if include_summarised else " AND summary_id IS NULL")
    with conn.cursor() as cur:
        cur.execute(sql, thread_id=thread_id, limit=limit)
        rows = cur.fetchall()
    return [_turn(row) for row in rows]


def _turn(row: tuple) -> dict:
    record = dict(zip(COLUMNS, row))
    record["content"] = text_of(record["content"])
    return record


def unsummarised_ids(conn: oracledb.Connection, thread_id: str, keep_last: int) -> list[int]:
    """Ids of the thread's turns that no summary covers yet, oldest first, leaving out the newest keep_last."""
    if isinstance(keep_last, bool) or not isinstance(keep_last, int) or keep_last < 0:
        raise ValueError(f"keep_last must be an int >= 0, got {keep_last!r}")
    with conn.cursor() as cur:
        cur.execute("""SELECT id FROM conversation_memory WHERE thread_id = :thread_id AND summary_id IS NULL
                       ORDER BY created_at, id""", thread_id=thread_id)
        ids = [int(row[0]) for row in cur.fetchall()]
    return ids[:len(ids) - keep_last] if keep_last else ids


def mark_summarised(conn: oracledb.Connection, thread_id: str, message_ids: Iterable[int], summary_id: str) -> int:
    """Set summary_id on the given turns of this thread (not committed); how many rows changed.

    The thread_id condition keeps a wrong id list from touching another thread's turns.
    """
    ids = [int(i) for i in message_ids]
    if not ids:
        return 0
    with conn.cursor() as cur:
        cur.executemany("UPDATE conversation_memory SET summary_id = :summary_id "
                        "WHERE thread_id = :thread_id AND id = :id AND summary_id IS NULL",
                        [{"summary_id": summary_id, "thread_id": thread_id, "id": i} for i in ids])
        return cur.rowcount


#: The turns a summary replaced, in the order they were said.
SELECT_SUMMARISED = """SELECT id, thread_id, role, content, metadata, created_at, summary_id
FROM conversation_memory
WHERE summary_id = :summary_id
ORDER BY created_at, id"""


def expand_summary(conn: oracledb.Connection, summary_id: str) -> list[dict]:
    """The turns the summary `summary_id` replaced, oldest first (keys: COLUMNS); [] for an unknown id.

    The reverse of summarising: a summary keeps the context short, and when its detail is needed again
    (an exact number, a name) the agent reads the original turns back by the id the summary left on them.
    """
    require_short_text(summary_id, "summary_id", MAX_THREAD_ID_BYTES)
    with conn.cursor() as cur:
        cur.execute(SELECT_SUMMARISED, summary_id=summary_id)
        rows = cur.fetchall()
    return [_turn(row) for row in rows]
