"""Collection routing, checked against the data: narrow only when the narrowed scope can still answer.

Stage 1 reads collection words in the question ("manual" -> vendor docs, "runbook" -> runbooks). A word is
weak evidence: the asking tenant may hold no vendor docs at all, and then every strategy returns nothing
(one held-out question got zero rows that way). So stage 2 counts the chunks the narrowed scope leaves
for this session (row-level security adds the tenant; the same lifecycle, user and section predicates as
the pools) and keeps the narrowing only when at least `MIN_CANDIDATES` remain: the reranker's 40
candidates. Otherwise it widens to every collection. The plan records what happened in `routing`:

    {"named": [...], "candidates": n, "decision": "narrowed" | "widened" | "all"}
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import oracledb

from .query import ALL_COLLECTIONS
from .search import POOL_SIZE, collection_binds, scope_predicates

#: Chunks the narrowed scope must still hold. The reranker reads the fused top 40; a narrower scope than that
#: starves it. Chosen on the development half (benchmarks/bench_stage1.py compares it with routing off).
MIN_CANDIDATES = POOL_SIZE


def count_in_scope_sql(collection_list: str) -> str:
    return ("SELECT COUNT(*)\n"
            "  FROM knowledge_base_chunk c JOIN knowledge_base_document d ON d.id = c.document_id\n"
            f" WHERE {scope_predicates(collection_list)}")


def route_collections(conn: oracledb.Connection, plan: Mapping[str, Any], *, user_id: str,
                      minimum: int = MIN_CANDIDATES) -> dict:
    """A copy of `plan` whose `collections` are the named ones when they hold >= `minimum` chunks in this
    session's scope, else all of them; `routing` says which (see the module docstring)."""
    named = list(plan["collections"])
    out = dict(plan)
    if set(named) >= set(ALL_COLLECTIONS):
        out["routing"] = {"named": [], "candidates": None, "decision": "all"}
        return out
    collection_list, binds = collection_binds(named)
    with conn.cursor() as cur:
        cur.execute(count_in_scope_sql(collection_list), {**binds, "user_id": user_id})
        count = int(cur.fetchone()[0])
    narrowed = count >= minimum
    out["collections"] = named if narrowed else list(ALL_COLLECTIONS)
    out["routing"] = {"named": named, "candidates": count, "decision": "narrowed" if narrowed else "widened"}
    return out
