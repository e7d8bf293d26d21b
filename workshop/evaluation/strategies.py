"""The strategies the ablation compares, all over part 05's knowledge-base tables and all with the
same tie policy: the vector pool breaks distance ties by chunk id, the lexical pool ranks SCORE ties
equal (DENSE_RANK) and lists them by id, fusion and rerank break score ties by id. Only the stage
that differs differs.

| name | statement |
|---|---|
| vector | part 05's vector pool (stage-2 scope), the top :pool_size |
| lexical (`LEGS`) | part 05's lexical pool (stage-2 scope, the plan's `lex_query`), SCORE order, ties by id |
| hybrid_rrf | part 05's pipeline with `reranker=None`: RRF of both pools, ordered by the fused score |
| hybrid_rerank | part 05's whole pipeline: the fused top 40 reordered by the reranker (= "pipeline") |
| pipeline_unfiltered | the same statement without the stage-2 filters (current version, not deleted, the user's own or shared, no bibliography); the tenant boundary (RLS) stays |

Each returns the ranked chunk ids, best first. The tenant is set on the session (RLS) by the caller.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import oracledb

from workshop import config, schema
from workshop.pipeline.search import (CANDIDATES, lexical_pool_sql, pipeline_sql, plan_binds, scope_predicates,
                                      vector_pool_sql)

EVAL_USER = "eval-user"
DEPTH = 20


def unfiltered_sql(sql: str, collection_list: str) -> str:
    """`sql` with the stage-2 predicates cut down to the collection list (both pools)."""
    scope = scope_predicates(collection_list)
    if sql.count(scope) != 2:
        raise RuntimeError("part 05's pipeline statement changed shape: the stage-2 predicates were not found twice")
    return sql.replace(scope, f"d.collection IN ({collection_list})")


def _ids(conn: oracledb.Connection, sql: str, binds: Mapping[str, Any], depth: int) -> list[str]:
    with conn.cursor() as cur:
        cur.execute(sql, dict(binds))
        return [row[0] for row in cur.fetchall()][:depth]


def vector(conn, plan, *, user_id: str = EVAL_USER, depth: int = DEPTH) -> list[str]:
    collection_list, binds = plan_binds(plan, user_id, depth)
    binds = {k: v for k, v in binds.items() if k not in ("lex_query", "rrf_k", "top_k")}
    binds["pool_size"] = depth
    return _ids(conn, vector_pool_sql(config.embedding_model_name(), collection_list), binds, depth)


def lexical(conn, plan, *, user_id: str = EVAL_USER, depth: int = DEPTH) -> list[str]:
    collection_list, binds = plan_binds(plan, user_id, depth)
    binds = {k: v for k, v in binds.items() if k not in ("query", "rrf_k", "top_k")}
    binds["pool_size"] = depth
    return _ids(conn, lexical_pool_sql(collection_list), binds, depth)


def hybrid_rrf(conn, plan, *, user_id: str = EVAL_USER, depth: int = DEPTH) -> list[str]:
    collection_list, binds = plan_binds(plan, user_id, CANDIDATES)
    return _ids(conn, pipeline_sql(config.embedding_model_name(), None, collection_list), binds, depth)


def hybrid_rerank(conn, plan, *, user_id: str = EVAL_USER, depth: int = DEPTH) -> list[str]:
    collection_list, binds = plan_binds(plan, user_id, CANDIDATES)
    sql = pipeline_sql(config.embedding_model_name(), config.reranker_model_name(), collection_list)
    return _ids(conn, sql, binds, depth)


def pipeline_unfiltered(conn, plan, *, user_id: str = EVAL_USER, depth: int = DEPTH) -> list[str]:
    collection_list, binds = plan_binds(plan, user_id, CANDIDATES)
    binds.pop("user_id")
    sql = unfiltered_sql(pipeline_sql(config.embedding_model_name(), config.reranker_model_name(), collection_list),
                         collection_list)
    return _ids(conn, sql, binds, depth)


#: The lexical leg on its own: part 06 compares the hybrid with its best leg. Not in STRATEGIES, so not in the
#: judged pool of golden set v2 (pooling.py): a chunk only it finds is unjudged and counts as 0 (its scores are
#: a lower bound; the ablation's `unjudged@10` column says how much of its top 10 that is).
LEGS: dict[str, Callable[..., list[str]]] = {"lexical": lexical}

STRATEGIES: dict[str, Callable[..., list[str]]] = {
    "vector": vector, "hybrid_rrf": hybrid_rrf, "hybrid_rerank": hybrid_rerank,
    "pipeline_unfiltered": pipeline_unfiltered,
}


# --------------------------------------------------------------------------- the title experiment (on a copy)
TITLED_TABLE = "EVAL_TITLED_CHUNKS"

TITLED_DDL = "CREATE TABLE eval_titled_chunks (chunk_id VARCHAR2(20) PRIMARY KEY, embedding VECTOR(384, FLOAT32))"


def titled_insert_sql(model: str) -> str:
    """Every research chunk embedded with its title in front: a copy; RESEARCH_CHUNKS keeps its vectors."""
    return (f"INSERT INTO eval_titled_chunks (chunk_id, embedding)\n"
            f"SELECT c.chunk_id, VECTOR_EMBEDDING({schema.identifier(model)} USING c.title || '. ' || c.text AS data)\n"
            f"  FROM research_chunks c")


def build_titled_copy(conn: oracledb.Connection, model: str | None = None) -> int:
    """Drop and rebuild EVAL_TITLED_CHUNKS; the number of rows."""
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS eval_titled_chunks")
        cur.execute(TITLED_DDL)
        cur.execute(titled_insert_sql(model or config.embedding_model_name()))
        count = cur.rowcount
    conn.commit()
    return int(count)


def vector_over_sql(vectors_table: str, model: str) -> str:
    """Top-k by cosine distance over the vectors of `vectors_table`, with part 02's scope (tenant, current)."""
    return (f"SELECT c.chunk_id\n"
            f"  FROM research_chunks c JOIN {schema.identifier(vectors_table)} e ON e.chunk_id = c.chunk_id\n"
            f" WHERE c.tenant = :tenant AND c.is_current = 1\n"
            f" ORDER BY VECTOR_DISTANCE(e.embedding, VECTOR_EMBEDDING({schema.identifier(model)} USING :query AS data),"
            f" COSINE), c.chunk_id\n"
            f" FETCH FIRST :k ROWS ONLY")


def vector_over(conn: oracledb.Connection, vectors_table: str, question: str, tenant: str, *,
                depth: int = DEPTH) -> list[str]:
    sql = vector_over_sql(vectors_table, config.embedding_model_name())
    return _ids(conn, sql, {"tenant": tenant, "query": question, "k": depth}, depth)


def knowledge_base_ready(conn: oracledb.Connection) -> bool:
    """Part 05's two tables exist and both carry the tenant policy (the strategies need both)."""
    from workshop.pipeline import kb, security
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_tables WHERE table_name IN (:1, :2)", list(kb.TABLES))
        built = cur.fetchone()[0] == len(kb.TABLES)
    return built and set(kb.TABLES) <= set(security.protected_tables(conn))


def prepare_knowledge_base(conn: oracledb.Connection, model: str | None = None) -> bool:
    """Build part 05's tables, context package and policies unless they are ready; True when built.

    Rebuilding drops the tables and with them their policies, so the package is (re)installed only
    when no policy refers to it."""
    if knowledge_base_ready(conn):
        return False
    from workshop.pipeline import kb, security
    kb.build_knowledge_base(conn, model or config.embedding_model_name())
    security.install_context(conn)
    security.protect_all_tenant_tables(conn)
    return True
