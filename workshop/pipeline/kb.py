"""Stage 2's tables: KNOWLEDGE_BASE_DOCUMENT and KNOWLEDGE_BASE_CHUNK, built from the research corpus.

The seed's pipeline reads tables with scope and lifecycle columns the corpus tables do not have
(`tenant_id`, `user_id` with NULL meaning shared, `valid_until`, `deleted_at`, JSON `metadata`).
`build_knowledge_base` makes them with INSERT ... SELECT from DOCUMENTS / RESEARCH_CHUNKS (the
embeddings are copied, not recomputed), then adds the authored rows of `workshop/data/kb/`: a few
bibliography chunks (so the `references` filter has something to remove), private documents of
two users, a deleted draft, a deleted chunk and another tenant's near-twin of the retention runbook.

It drops and rebuilds both tables, so it is safe to run again; dropping a table also drops its
row-level security policies, so run the policy cell after it.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import oracledb

from workshop import schema
from workshop.data.loaders import load_kb_chunks, load_kb_documents

DOCUMENT_TABLE = "KNOWLEDGE_BASE_DOCUMENT"
CHUNK_TABLE = "KNOWLEDGE_BASE_CHUNK"
TABLES = (DOCUMENT_TABLE, CHUNK_TABLE)
TEXT_INDEX = "KB_CHUNK_TEXT"
VECTOR_INDEX = "KB_CHUNK_HNSW"
COLLECTION_INDEX = "IDX_KB_DOC_COLLECTION"
#: ISO 8601 with an offset, as the authored files write times.
TIMESTAMP_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SSTZH:TZM'

DOCUMENT_DDL = """CREATE TABLE knowledge_base_document (
  id           VARCHAR2(20) CONSTRAINT kb_document_pk PRIMARY KEY,
  tenant_id    VARCHAR2(20) NOT NULL,
  user_id      VARCHAR2(30),
  collection   VARCHAR2(30) NOT NULL,
  title        VARCHAR2(500) NOT NULL,
  source_uri   VARCHAR2(300) NOT NULL,
  version      VARCHAR2(10) NOT NULL,
  valid_until  TIMESTAMP WITH TIME ZONE,
  deleted_at   TIMESTAMP WITH TIME ZONE
)"""

CHUNK_DDL = f"""CREATE TABLE knowledge_base_chunk (
  id           VARCHAR2(30) CONSTRAINT kb_chunk_pk PRIMARY KEY,
  document_id  VARCHAR2(20) NOT NULL CONSTRAINT kb_chunk_document_fk REFERENCES knowledge_base_document (id),
  tenant_id    VARCHAR2(20) NOT NULL,
  content      CLOB NOT NULL,
  chunk_index  NUMBER(4) NOT NULL,
  metadata     JSON,
  embedding    {schema.VECTOR_TYPE},
  deleted_at   TIMESTAMP WITH TIME ZONE
)"""

#: Every corpus document version becomes a shared (user_id NULL), live document of its tenant.
COPY_DOCUMENTS_SQL = """INSERT INTO knowledge_base_document
  (id, tenant_id, user_id, collection, title, source_uri, version, valid_until, deleted_at)
SELECT d.doc_id, d.tenant, NULL, d.collection, d.title,
       'kb://' || d.tenant || '/' || d.collection || '/' || LOWER(d.doc_id),
       d.version, NULL, NULL
FROM documents d"""

#: Every corpus chunk, with its section as JSON metadata and its embedding copied.
COPY_CHUNKS_SQL = """INSERT INTO knowledge_base_chunk
  (id, document_id, tenant_id, content, chunk_index, metadata, embedding, deleted_at)
SELECT c.chunk_id, c.doc_id, c.tenant, c.text, c.seq,
       JSON_OBJECT('section_type' VALUE c.section_type, 'section' VALUE c.section),
       c.embedding, NULL
FROM research_chunks c"""

INSERT_DOCUMENT_SQL = f"""INSERT INTO knowledge_base_document
  (id, tenant_id, user_id, collection, title, source_uri, version, valid_until, deleted_at)
VALUES (:id, :tenant_id, :user_id, :collection, :title,
        'kb://' || :tenant_id || '/' || :collection || '/' || LOWER(:id), :version,
        TO_TIMESTAMP_TZ(:valid_until, '{TIMESTAMP_FORMAT}'), TO_TIMESTAMP_TZ(:deleted_at, '{TIMESTAMP_FORMAT}'))"""

UPDATE_DOCUMENT_SQL = f"""UPDATE knowledge_base_document
SET user_id = :user_id,
    valid_until = TO_TIMESTAMP_TZ(:valid_until, '{TIMESTAMP_FORMAT}'),
    deleted_at = TO_TIMESTAMP_TZ(:deleted_at, '{TIMESTAMP_FORMAT}')
WHERE id = :id"""

INSERT_CHUNK_SQL = f"""INSERT INTO knowledge_base_chunk
  (id, document_id, tenant_id, content, chunk_index, metadata, deleted_at)
VALUES (:id, :document_id, :tenant_id, :content, :chunk_index,
        JSON_OBJECT('section_type' VALUE :section_type, 'section' VALUE :section),
        TO_TIMESTAMP_TZ(:deleted_at, '{TIMESTAMP_FORMAT}'))"""


def embed_missing_sql(model: str) -> str:
    """The authored chunks are embedded in the database, by the same model as the corpus."""
    return (f"UPDATE knowledge_base_chunk SET embedding = VECTOR_EMBEDDING({schema.identifier(model)} "
            "USING content AS data) WHERE embedding IS NULL")


INDEX_DDL = (
    "CREATE INDEX idx_kb_doc_collection ON knowledge_base_document (collection)",
    "CREATE INDEX kb_chunk_text ON knowledge_base_chunk (content)\n"
    "  INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')",
    "CREATE VECTOR INDEX kb_chunk_hnsw ON knowledge_base_chunk (embedding)\n"
    "  ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE WITH TARGET ACCURACY 95",
)


def authored_documents() -> list[dict]:
    """workshop/data/kb/documents.jsonl: new documents, and overrides of corpus documents (`from_corpus`)."""
    return load_kb_documents()


def authored_chunks() -> list[dict]:
    """workshop/data/kb/chunks.jsonl: bibliography chunks, a deleted chunk, and the chunks of new documents."""
    return load_kb_chunks()


@dataclass(frozen=True)
class BuildStep:
    what: str
    sql: str


def build_steps(model: str) -> list[BuildStep]:
    """The statements of the build, in order, for a notebook to show."""
    return [BuildStep("create the document table", DOCUMENT_DDL),
            BuildStep("create the chunk table", CHUNK_DDL),
            BuildStep("copy the corpus documents", COPY_DOCUMENTS_SQL),
            BuildStep("add the authored documents", INSERT_DOCUMENT_SQL),
            BuildStep("scope, supersede and delete corpus documents", UPDATE_DOCUMENT_SQL),
            BuildStep("copy the corpus chunks (embeddings included)", COPY_CHUNKS_SQL),
            BuildStep("add the authored chunks", INSERT_CHUNK_SQL),
            BuildStep("embed the authored chunks in the database", embed_missing_sql(model)),
            *(BuildStep("create an index", ddl) for ddl in INDEX_DDL)]


def drop_knowledge_base(conn: oracledb.Connection) -> None:
    """Drop both tables (children first) if they exist; their indexes and policies go with them."""
    with conn.cursor() as cur:
        for table in reversed(TABLES):
            cur.execute(schema.drop_sql("TABLE", table))


def build_knowledge_base(conn: oracledb.Connection, model: str, log: Callable[[str], None] | None = None) -> dict:
    """Drop and rebuild the knowledge-base tables from the corpus plus the authored rows; return row counts."""
    documents, chunks = authored_documents(), authored_chunks()
    new_docs = [_document_binds(d) for d in documents if not d["from_corpus"]]
    overrides = [{k: d[k] for k in ("id", "user_id", "valid_until", "deleted_at")}
                 for d in documents if d["from_corpus"]]
    chunk_rows = [{k: c[k] for k in ("id", "document_id", "tenant_id", "content", "chunk_index", "section_type",
                                     "section", "deleted_at")} for c in chunks]
    drop_knowledge_base(conn)
    with conn.cursor() as cur:
        for step in build_steps(model):
            if log:
                log(step.what)
            if step.sql is INSERT_DOCUMENT_SQL:
                cur.executemany(step.sql, new_docs)
            elif step.sql is UPDATE_DOCUMENT_SQL:
                cur.executemany(step.sql, overrides)
            elif step.sql is INSERT_CHUNK_SQL:
                cur.setinputsizes(content=oracledb.DB_TYPE_CLOB)
                cur.executemany(step.sql, chunk_rows)
            else:
                cur.execute(step.sql)
            if step.sql.startswith(("INSERT", "UPDATE")):
                conn.commit()
    return counts(conn)


def _document_binds(d: dict) -> dict:
    return {k: d[k] for k in ("id", "tenant_id", "user_id", "collection", "title", "version", "valid_until",
                              "deleted_at")}


def counts(conn: oracledb.Connection) -> dict[str, int]:
    with conn.cursor() as cur:
        out = {}
        for table in TABLES:
            cur.execute(f"SELECT COUNT(*) FROM {table.lower()}")
            out[table] = cur.fetchone()[0]
    return out

