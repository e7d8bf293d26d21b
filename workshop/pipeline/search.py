"""Stages 3-5 in ONE statement: a vector pool and a lexical pool over the same stage-2 predicates,
Reciprocal Rank Fusion by FULL OUTER JOIN, and the reranker's PREDICTION over the fused top 40.

The model names go into the SQL text as identifiers (checked); the question, the lexical
expression, the user, the collections and the sizes are bind variables. The tenant predicate is
not in the text at all: row-level security appends it to every reference of both tables.

`polyglot_search` runs the same pipeline the way three separate systems would (two pool queries
and a rerank query, fused in Python): equal results, three round trips instead of one.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import oracledb

from workshop import schema

POOL_SIZE = 50
CANDIDATES = 40
RRF_K = 60

RESULT_COLUMNS = ("id", "content", "chunk_index", "metadata", "document_id", "title", "source_uri", "version",
                  "vec_rank", "lex_rank", "rrf_score", "rerank_score")


def collection_binds(collections: Sequence[str]) -> tuple[str, dict[str, str]]:
    """`:collection_1, :collection_2, ...` and their values (an IN list of binds, never of literals)."""
    if not collections:
        raise ValueError("the plan names no collection")
    names = [f"collection_{i}" for i in range(1, len(collections) + 1)]
    return ", ".join(f":{n}" for n in names), dict(zip(names, collections))


def scope_predicates(collection_list: str) -> str:
    """Stage 2: the working scope, the same text in both pools (the tenant comes from RLS)."""
    return (f"d.collection IN ({collection_list})\n"
            "     AND d.valid_until IS NULL AND d.deleted_at IS NULL\n"
            "     AND c.deleted_at IS NULL\n"
            "     AND (d.user_id IS NULL OR d.user_id = :user_id)\n"
            "     AND JSON_VALUE(c.metadata, '$.section_type') <> 'references'")


def vector_pool_sql(model: str, collection_list: str) -> str:
    model = schema.identifier(model)
    distance = f"VECTOR_DISTANCE(c.embedding, VECTOR_EMBEDDING({model} USING :query AS data), COSINE)"
    return (f"SELECT c.id, ROW_NUMBER() OVER (ORDER BY {distance}, c.id) AS vec_rank\n"
            "    FROM knowledge_base_chunk c JOIN knowledge_base_document d ON d.id = c.document_id\n"
            f"   WHERE {scope_predicates(collection_list)}\n"
            "   ORDER BY vec_rank\n"
            "   FETCH FIRST :pool_size ROWS ONLY")


def lexical_pool_sql(collection_list: str) -> str:
    return ("SELECT c.id, DENSE_RANK() OVER (ORDER BY SCORE(1) DESC) AS lex_rank\n"
            "    FROM knowledge_base_chunk c JOIN knowledge_base_document d ON d.id = c.document_id\n"
            "   WHERE CONTAINS(c.content, :lex_query, 1) > 0\n"
            f"     AND {scope_predicates(collection_list)}\n"
            "   ORDER BY SCORE(1) DESC, c.id\n"
            "   FETCH FIRST :pool_size ROWS ONLY")


def pipeline_sql(model: str, reranker: str | None, collection_list: str) -> str:
    """The whole of stages 3-5; `reranker=None` orders by the fused score instead (for the benchmark)."""
    rerank = (f"PREDICTION({schema.identifier(reranker)} USING :query AS first_input,\n"
              "                  d.title || '. ' || c.content AS second_input)" if reranker
              else "CAST(NULL AS NUMBER)")
    order = "rerank_score DESC, k.rrf_score DESC, c.id" if reranker else "k.rrf_score DESC, c.id"
    return f"""WITH
vec_pool AS (
  {vector_pool_sql(model, collection_list)}),
lex_pool AS (
  {lexical_pool_sql(collection_list)}),
fused AS (
  SELECT COALESCE(v.id, l.id) AS id, v.vec_rank, l.lex_rank,
         COALESCE(1 / (:rrf_k + v.vec_rank), 0) + COALESCE(1 / (:rrf_k + l.lex_rank), 0) AS rrf_score
    FROM vec_pool v FULL OUTER JOIN lex_pool l ON l.id = v.id),
candidates AS (
  SELECT id, vec_rank, lex_rank, rrf_score FROM fused
   ORDER BY rrf_score DESC, id
   FETCH FIRST :top_k ROWS ONLY)
SELECT c.id, c.content, c.chunk_index, c.metadata,
       d.id AS document_id, d.title, d.source_uri, d.version,
       k.vec_rank, k.lex_rank, k.rrf_score,
       {rerank} AS rerank_score
  FROM candidates k
  JOIN knowledge_base_chunk c ON c.id = k.id
  JOIN knowledge_base_document d ON d.id = c.document_id
 ORDER BY {order}"""


def plan_binds(plan: Mapping[str, Any], user_id: str, top_k: int) -> tuple[str, dict[str, Any]]:
    collection_list, binds = collection_binds(plan["collections"])
    binds.update(query=plan["question"], lex_query=plan["lex_query"], user_id=user_id, pool_size=POOL_SIZE,
                 rrf_k=RRF_K, top_k=int(top_k))
    return collection_list, binds


def text_of(value: Any) -> Any:
    return value.read() if hasattr(value, "read") else value


def fetch_dicts(cur: oracledb.Cursor) -> list[dict]:
    names = [d[0].lower() for d in cur.description]
    return [{n: text_of(v) for n, v in zip(names, row)} for row in cur.fetchall()]


def search_knowledge_base(conn: oracledb.Connection, plan: Mapping[str, Any], *, user_id: str,
                          top_k: int = CANDIDATES, model: str | None = None, reranker: str | None = "default"
                          ) -> list[dict]:
    """Stages 2-5 in one statement: at most `top_k` chunks, best rerank score first."""
    from workshop import config
    model = model or config.embedding_model_name()
    reranker = config.reranker_model_name() if reranker == "default" else reranker
    collection_list, binds = plan_binds(plan, user_id, top_k)
    with conn.cursor() as cur:
        cur.execute(pipeline_sql(model, reranker, collection_list), binds)
        return fetch_dicts(cur)


# --------------------------------------------------------------------------- the polyglot contrast
def pool(conn: oracledb.Connection, kind: str, plan: Mapping[str, Any], *, user_id: str,
         model: str | None = None) -> list[tuple[str, int]]:
    """One pool on its own: [(id, rank)], best first (what a separate vector store or search engine returns)."""
    from workshop import config
    collection_list, binds = plan_binds(plan, user_id, CANDIDATES)
    if kind == "vector":
        sql = vector_pool_sql(model or config.embedding_model_name(), collection_list)
        binds = {k: v for k, v in binds.items() if k not in ("lex_query", "rrf_k", "top_k")}
    elif kind == "lexical":
        sql = lexical_pool_sql(collection_list)
        binds = {k: v for k, v in binds.items() if k not in ("query", "rrf_k", "top_k")}
    else:
        raise ValueError(f"kind must be 'vector' or 'lexical', not {kind!r}")
    with conn.cursor() as cur:
        cur.execute(sql, binds)
        return [(r[0], int(r[1])) for r in cur.fetchall()]


def fuse(vector: Sequence[tuple[str, int]], lexical: Sequence[tuple[str, int]], k: int = RRF_K,
         top_k: int = CANDIDATES) -> list[tuple[str, float, int | None, int | None]]:
    """RRF over given ranks (dense ranks stay dense): [(id, score, vec_rank, lex_rank)], best first, ties by id."""
    v, lx = dict(vector), dict(lexical)
    scores = {i: (1 / (k + v[i]) if i in v else 0.0) + (1 / (k + lx[i]) if i in lx else 0.0) for i in {*v, *lx}}
    ranked = sorted(scores, key=lambda i: (-scores[i], i))[:top_k]
    return [(i, scores[i], v.get(i), lx.get(i)) for i in ranked]


RERANK_IDS_SQL = """SELECT c.id, c.content, c.chunk_index, c.metadata,
       d.id AS document_id, d.title, d.source_uri, d.version,
       PREDICTION({reranker} USING :query AS first_input, d.title || '. ' || c.content AS second_input) AS rerank_score
  FROM knowledge_base_chunk c JOIN knowledge_base_document d ON d.id = c.document_id
 WHERE c.id IN ({ids})
 ORDER BY rerank_score DESC, c.id"""


def polyglot_search(conn: oracledb.Connection, plan: Mapping[str, Any], *, user_id: str,
                    top_k: int = CANDIDATES) -> tuple[list[dict], int]:
    """The same pipeline as three statements and Python RRF; returns (rows, round trips)."""
    from workshop import config
    vector = pool(conn, "vector", plan, user_id=user_id)
    lexical = pool(conn, "lexical", plan, user_id=user_id)
    fused = fuse(vector, lexical, top_k=top_k)
    if not fused:
        return [], 2
    marks = ", ".join(f":id_{n}" for n in range(len(fused)))
    with conn.cursor() as cur:
        cur.execute(RERANK_IDS_SQL.format(reranker=schema.identifier(config.reranker_model_name()), ids=marks),
                    {"query": plan["question"], **{f"id_{n}": f[0] for n, f in enumerate(fused)}})
        rows = fetch_dicts(cur)
    by_id = {f[0]: f for f in fused}
    for row in rows:
        _, row["rrf_score"], row["vec_rank"], row["lex_rank"] = by_id[row["id"]]
    rows.sort(key=lambda r: (-r["rerank_score"], -r["rrf_score"], r["id"]))
    return [{c: r[c] for c in RESULT_COLUMNS} for r in rows], 3
