"""The strategies the ablation compares, all over part 05's knowledge-base tables and all with the
same tie policy: the vector pool breaks distance ties by chunk id, the lexical pool ranks SCORE ties
equal (DENSE_RANK) and lists them by id, fusion and rerank break score ties by id. Only the stage
that differs differs.

| name | statement |
|---|---|
| vector | part 05's vector pool (stage-2 scope), the top :pool_size |
| hybrid_rrf | part 05's pipeline with `reranker=None`: RRF of both pools, ordered by the fused score |
| hybrid_rerank | part 05's whole pipeline: the fused top 40 reordered by the reranker (= "pipeline") |
| pipeline_unfiltered | the same statement without the stage-2 filters (current version, not deleted, the user's own or shared, no bibliography); the tenant boundary (RLS) stays |

Each returns the ranked chunk ids, best first. The tenant is set on the session (RLS) by the caller.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import oracledb

from workshop import config
from workshop.pipeline.search import (CANDIDATES, pipeline_sql, plan_binds, scope_predicates,
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


STRATEGIES: dict[str, Callable[..., list[str]]] = {
    "vector": vector, "hybrid_rrf": hybrid_rrf, "hybrid_rerank": hybrid_rerank,
    "pipeline_unfiltered": pipeline_unfiltered,
}
