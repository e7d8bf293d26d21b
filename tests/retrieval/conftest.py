"""Small indexed tables for the retrieval tests, one database file per test module (parallel-safe).

Module scope keeps hypothesis tests fast (hypothesis rejects function-scoped fixtures) while each
xdist worker still gets its own files under pytest's tmp_path_factory.
"""
from __future__ import annotations

import array

import pytest

from workshop.embedded import connect

#: Four-dimensional vectors chosen so the cosine order from the query (1, 0, 0, 0) is plain:
#: id 1 nearest, then 2, 4, 5, 6, 3, 7 (id 7 points away).
DOCS = [
    # id, tenant, title, body, vector
    (1, "acme", "HNSW index", "Vector search with an HNSW index answers nearest neighbour queries.", (1.0, 0.0, 0.0, 0.0)),
    (2, "acme", "Vector pool runbook", "ORA-51962 means the vector memory pool is empty: set vector_memory_size "
                                       "and restart. ORA-51962 returns until the pool exists.", (0.9, 0.1, 0.0, 0.0)),
    (3, "globex", "Oracle Text", "Keyword search with Oracle Text: CONTAINS and SCORE rank documents by terms.",
     (0.0, 1.0, 0.0, 0.0)),
    (4, "acme", "Hybrid search", "Hybrid search fuses keyword search and vector search with reciprocal rank fusion.",
     (0.7, 0.3, 0.0, 0.0)),
    (5, "globex", "Vector pool runbook", "Older runbook: ORA-51962 on globex, raise vector_memory_size.",
     (0.6, 0.0, 0.4, 0.0)),
    (6, "initech", "Graph retrieval", "Graph retrieval follows authors between papers; keyword search helps.",
     (0.5, 0.0, 0.0, 0.5)),
    (7, "acme", "Agent memory", "Agent memory keeps conversation history and keyword facts.", (-1.0, 0.0, 0.0, 0.0)),
]

QUERY_VECTOR = (1.0, 0.0, 0.0, 0.0)


def create_docs(conn, table: str = "docs") -> None:
    cur = conn.cursor()
    cur.execute(f"CREATE TABLE {table} (id NUMBER PRIMARY KEY, tenant VARCHAR2(20), title VARCHAR2(100), "
                f"body CLOB, embedding VECTOR(4, FLOAT32))")
    cur.executemany(f"INSERT INTO {table} VALUES (:1, :2, :3, :4, :5)",
                    [(i, t, ti, b, array.array("f", v)) for i, t, ti, b, v in DOCS])
    conn.commit()
    cur.execute(f"CREATE INDEX {table}_ctx ON {table} (body) INDEXTYPE IS CTXSYS.CONTEXT "
                f"PARAMETERS ('SYNC (ON COMMIT)')")


@pytest.fixture(scope="module")
def docs_conn(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("retrieval") / "docs.db", busy_timeout=2)
    create_docs(conn)
    yield conn
    conn.close()
