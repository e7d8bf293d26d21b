"""The two retrieval surfaces over AML_KNOWLEDGE_VS, both inside the database.

- `prepare_search` creates the HNSW and Oracle Text indexes (idempotently), switches on the mirroring
  of fact writes and returns `rerank(query, candidates, top_k, content_key)`, which scores every
  candidate with PREDICTION(<reranker> ...) in ONE statement over JSON_TABLE(:docs).
- `hybrid_search_knowledge`: a vector leg and an Oracle Text leg over the same table, fused with
  reciprocal rank fusion; each hit says which leg found it and at which rank.
"""
from __future__ import annotations

import re
from collections.abc import Callable

import oracledb
from langchain_core.documents import Document
from langchain_oracledb import OracleVS
from langchain_oracledb.retrievers import OracleTextSearchRetriever
from langchain_oracledb.vectorstores.oraclevs import create_index
from langchain_oracledb.retrievers.text_search import create_text_index

from workshop import config, schema
from workshop.retrieval.keywords import DEFAULT_STOPWORDS, keyword_terms

from .store import TEXT_INDEX, VECTOR_INDEX, mirror_writes

Reranker = Callable[..., list[dict]]

RERANK_SQL = """SELECT t.idx, PREDICTION({model} USING :query AS FIRST_INPUT, t.content AS SECOND_INPUT) AS rerank_score
FROM JSON_TABLE(:docs, '$[*]' COLUMNS (idx NUMBER PATH '$.index',
                                       content VARCHAR2(4000) PATH '$.content')) t
ORDER BY rerank_score DESC, t.idx
FETCH FIRST :top_k ROWS ONLY"""


def to_hit(doc: Document, **extra) -> dict:
    """A search result as a plain dict: id, kind, subject, body, metadata, plus `extra` (distance, ranks ...)."""
    meta = dict(doc.metadata or {})
    return {"id": doc.id or meta.get("fact_id"), "kind": meta.get("kind"), "subject": meta.get("subject"),
            "body": doc.page_content, "metadata": meta, **extra}


def reranker_label(conn: oracledb.Connection, model: str | None = None) -> str:
    """Which reranker runs, from its model card as the database reports it (USER_MINING_MODELS.COMMENTS;
    WORKSHOP_META.reranker_label when the dictionary has no card)."""
    model = schema.identifier(model or config.reranker_model_name())
    with conn.cursor() as cur:
        cur.execute("SELECT comments FROM user_mining_models WHERE model_name = :m", m=model)
        row = cur.fetchone()
        if row and row[0]:
            return row[0] if row[0].upper().startswith(model) else f"{model}: {row[0]}"
        cur.execute("SELECT value FROM workshop_meta WHERE key = 'reranker_label'")
        row = cur.fetchone()
    return f"{model}: {row[0]}" if row else f"{model}: (no model card)"


def make_reranker(conn: oracledb.Connection, model: str | None = None) -> Reranker:
    """rerank(query, candidates, top_k, content_key): the top_k candidates by the in-database reranker's
    score (one PREDICTION statement over all of them), each a copy with `rerank_score` added."""
    model = schema.identifier(model or config.reranker_model_name())
    sql = RERANK_SQL.format(model=model)

    def rerank(query: str, candidates: list[dict], top_k: int = 5, content_key: str = "body") -> list[dict]:
        if not candidates:
            return []
        docs = [{"index": i, "content": str(c[content_key])[:4000]} for i, c in enumerate(candidates)]
        with conn.cursor() as cur:
            cur.setinputsizes(docs=oracledb.DB_TYPE_JSON)
            cur.execute(sql, query=query, docs=docs, top_k=int(top_k))
            scored = cur.fetchall()
        return [{**candidates[int(i)], "rerank_score": float(score)} for i, score in scored]

    rerank.model = model
    return rerank


def prepare_search(conn: oracledb.Connection, store: OracleVS) -> Reranker:
    """HNSW + Oracle Text indexes on the store's table (a second call creates nothing), mirroring of fact
    writes switched on; returns the in-database `rerank` function."""
    create_index(conn, store, params={"idx_name": VECTOR_INDEX, "idx_type": "HNSW"})
    create_text_index(conn, TEXT_INDEX, vector_store=store)
    mirror_writes(store)
    return make_reranker(conn)


def seed_keyword_terms(query: str, stopwords: frozenset[str] = DEFAULT_STOPWORDS) -> str:
    """The seed workshop's design: lower-case, drop stopwords, split identifiers at `_` (the Text index
    tokenises there). 'which column is RATE_BP?' -> 'column rate bp'. For operator_search=False."""
    words = re.findall(r"[^\W_]+", query.lower())
    return " ".join(w for w in words if w not in stopwords)


def hybrid_search_knowledge(store: OracleVS, query: str, k: int = 5, rrf_k: int = 60, legs_k: int = 30) -> list[dict]:
    """Vector leg + Oracle Text leg over the same table, fused with RRF: score = sum of 1 / (rrf_k + rank)."""
    if not str(query).strip():           # Oracle embeds '' as NULL: no distance, nothing to rank
        raise ValueError("hybrid_search_knowledge needs a question, not an empty string")
    fused: dict[str, dict] = {}
    for rank, (doc, distance) in enumerate(store.similarity_search_with_score(query, k=legs_k), start=1):
        hit = fused.setdefault(doc.id, to_hit(doc, rrf_score=0.0, vec_rank=None, txt_rank=None))
        hit["vec_rank"], hit["distance"] = rank, float(distance)
        hit["rrf_score"] += 1 / (rrf_k + rank)
    text_query = keyword_terms(query)
    if text_query:
        retriever = OracleTextSearchRetriever(vector_store=store, k=legs_k, operator_search=True)
        for rank, doc in enumerate(retriever.invoke(text_query), start=1):
            hit = fused.setdefault(doc.id, to_hit(doc, rrf_score=0.0, vec_rank=None, txt_rank=None))
            hit["txt_rank"] = rank
            hit["rrf_score"] += 1 / (rrf_k + rank)
    ranked = sorted(fused.values(), key=lambda h: (-h["rrf_score"], h["id"]))
    return ranked[:k]
