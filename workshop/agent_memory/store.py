"""AGENT_MEMORIES: typed memory records under an explicit user/agent scope (the mirror of OAMP's store).

The embedding is computed in the database (VECTOR_EMBEDDING in the INSERT), as OAMP's OracleDBEmbedder does,
so the rows and the queries use the same model. The CONTEXT index syncs ON COMMIT, like OAMP's
SearchIndexSyncMode.ON_COMMIT: a committed memory is searchable at once. Metadata is bound as JSON
(python-oracledb needs DB_TYPE_JSON for a dict).
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import oracledb

from workshop import schema
from workshop.memory.records import require_text

TABLE = "AGENT_MEMORIES"
TEXT_INDEX = "AGENT_MEMORIES_TEXT_IDX"
RRF_K = 60
POOL_SIZE = 20

CREATE_TABLE_SQL = """CREATE TABLE agent_memories (
    memory_id   NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id     VARCHAR2(100) NOT NULL,
    agent_id    VARCHAR2(100) NOT NULL,
    record_type VARCHAR2(20) NOT NULL,
    content     VARCHAR2(4000) NOT NULL,
    metadata    JSON,
    embedding   VECTOR(384, FLOAT32),
    created_at  TIMESTAMP DEFAULT SYSTIMESTAMP
)"""

CREATE_TEXT_INDEX_SQL = ("CREATE INDEX agent_memories_text_idx ON agent_memories (content)\n"
                         "  INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')")


def insert_sql(model: str) -> str:
    return ("INSERT INTO agent_memories (user_id, agent_id, record_type, content, metadata, embedding)\n"
            f"VALUES (:user_id, :agent_id, :record_type, :content, :metadata,\n"
            f"        VECTOR_EMBEDDING({schema.identifier(model)} USING :content AS data))")


def create(conn: oracledb.Connection) -> None:
    """Drop and create the table and its text index, so the notebook can run again."""
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_tables WHERE table_name = 'AGENT_MEMORIES'")
        if cur.fetchone()[0]:
            cur.execute("DROP TABLE agent_memories PURGE")
        cur.execute(CREATE_TABLE_SQL)
        cur.execute(CREATE_TEXT_INDEX_SQL)


def add_memories(conn: oracledb.Connection, records: Iterable[Mapping[str, Any]], model: str) -> int:
    """Insert the records (content, record_type, user_id, agent_id, metadata) and commit; returns the count."""
    rows = [{"user_id": r["user_id"], "agent_id": r["agent_id"], "record_type": r["record_type"],
             "content": r["content"], "metadata": dict(r.get("metadata") or {})} for r in records]
    if not rows:
        return 0
    with conn.cursor() as cur:
        cur.setinputsizes(metadata=oracledb.DB_TYPE_JSON)
        cur.executemany(insert_sql(model), rows)
    conn.commit()
    return len(rows)


def delete_scope(conn: oracledb.Connection, user_id: str, agent_id: str) -> int:
    with conn.cursor() as cur:
        cur.execute("DELETE FROM agent_memories WHERE user_id = :user_id AND agent_id = :agent_id",
                    user_id=user_id, agent_id=agent_id)
        count = cur.rowcount
    conn.commit()
    return count


def metadata_of(value: Any) -> dict:
    if hasattr(value, "read"):
        value = value.read()
    if isinstance(value, (str, bytes)):
        return json.loads(value)
    return dict(value or {})


def fetch_memories(conn: oracledb.Connection, user_id: str, agent_id: str) -> list[dict]:
    """The scope's records, oldest first."""
    with conn.cursor() as cur:
        cur.execute("SELECT memory_id, record_type, content, metadata FROM agent_memories\n"
                    " WHERE user_id = :user_id AND agent_id = :agent_id ORDER BY memory_id",
                    user_id=user_id, agent_id=agent_id)
        return [{"memory_id": r[0], "record_type": r[1], "content": r[2], "metadata": metadata_of(r[3])}
                for r in cur.fetchall()]


def vector_search_sql(model: str) -> str:
    return ("SELECT memory_id, content,\n"
            f"       VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({schema.identifier(model)} USING :query AS data),"
            " COSINE) AS distance\n"
            "  FROM agent_memories\n"
            " WHERE user_id = :user_id AND agent_id = :agent_id\n"
            " ORDER BY distance, memory_id\n"
            " FETCH FIRST :k ROWS ONLY")


def vector_search(conn: oracledb.Connection, query: str, *, user_id: str, agent_id: str, model: str,
                  k: int = 5) -> list[dict]:
    """Vector-only memory search in one scope: what SearchStrategy.VECTOR does. Nearest first.

    An empty query is refused up front with the same ValueError as the memory helpers (Oracle binds '' as NULL,
    and VECTOR_EMBEDDING of NULL would rank nothing by meaning)."""
    require_text(query, "query")
    with conn.cursor() as cur:
        cur.execute(vector_search_sql(model), query=query, user_id=user_id, agent_id=agent_id, k=int(k))
        return [{"memory_id": r[0], "content": r[1], "distance": float(r[2])} for r in cur.fetchall()]


def hybrid_search_sql(model: str) -> str:
    """The checker's reference: a vector pool and a lexical pool in one scope, fused by RRF (one statement)."""
    model = schema.identifier(model)
    return f"""WITH
vec AS (
  SELECT memory_id,
         ROW_NUMBER() OVER (ORDER BY VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({model} USING :query AS data),
                                                     COSINE), memory_id) AS vec_rank
    FROM agent_memories
   WHERE user_id = :user_id AND agent_id = :agent_id
   ORDER BY vec_rank
   FETCH FIRST :pool_size ROWS ONLY),
lex AS (
  SELECT memory_id, DENSE_RANK() OVER (ORDER BY SCORE(1) DESC) AS lex_rank
    FROM agent_memories
   WHERE CONTAINS(content, :lex_query, 1) > 0
     AND user_id = :user_id AND agent_id = :agent_id
   ORDER BY SCORE(1) DESC, memory_id
   FETCH FIRST :pool_size ROWS ONLY)
SELECT m.memory_id, m.content, v.vec_rank, l.lex_rank,
       COALESCE(1 / (:rrf_k + v.vec_rank), 0) + COALESCE(1 / (:rrf_k + l.lex_rank), 0) AS rrf_score
  FROM vec v FULL OUTER JOIN lex l ON l.memory_id = v.memory_id
  JOIN agent_memories m ON m.memory_id = COALESCE(v.memory_id, l.memory_id)
 ORDER BY rrf_score DESC, m.memory_id
 FETCH FIRST :k ROWS ONLY"""
