"""Pooled judging: the chunks every part 06 strategy returns for a golden question, and which of them
still lack a judgement.

A golden set measures a strategy fairly only if every chunk the strategy puts in its top 20 has been
judged: an unjudged chunk counts as not relevant, so a strategy that finds what the others missed
would be penalised for it. The pool of a question is the union of the top `POOL_DEPTH` of

- the four strategies of `strategies.STRATEGIES` over part 05's knowledge-base tables (vector,
  hybrid RRF, hybrid + rerank = part 05's pipeline, the pipeline without its stage-2 filters), run
  as the question's user (`user_id`, default `strategies.EVAL_USER`) in the question's tenant, and
- the two runs of the title experiment (the same vector statement over RESEARCH_CHUNKS' vectors and
  over the titled copy), when the copy exists.

Golden set version 2 records a grade for every pooled chunk (0 = judged, not relevant). A maintainer
who adds a question or a strategy prints the unjudged pool with `scripts/golden_pool.py`, reads each
chunk, and writes the grades into the file by hand.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import oracledb
import pandas as pd

from . import ablation, strategies

POOL_DEPTH = 20
TITLE_RUNS = ("vector: chunk text", "vector: title + chunk")


def titled_copy_exists(conn: oracledb.Connection) -> bool:
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_tables WHERE table_name = :1", [strategies.TITLED_TABLE])
        return cur.fetchone()[0] == 1


def pool_runs(conn: oracledb.Connection, queries: Sequence[Mapping[str, Any]], *, title: bool = True,
              strategy_names: Iterable[str] = tuple(strategies.STRATEGIES)) -> pd.DataFrame:
    """One row per (strategy, query) with the ranked ids (top POOL_DEPTH); the title runs when `title`
    (building the titled copy first if it is missing)."""
    runs = [ablation.run_strategies(conn, queries, strategy_names, depth=POOL_DEPTH)]
    if title:
        if not titled_copy_exists(conn):
            strategies.build_titled_copy(conn)
        runs.append(ablation.run_title_experiment(conn, queries, depth=POOL_DEPTH))
    return pd.concat(runs, ignore_index=True)


def pools(runs: pd.DataFrame, depth: int = POOL_DEPTH) -> dict[str, dict[str, list[str]]]:
    """query_id -> {chunk id: the strategies that returned it in their top `depth`}, in first-seen order."""
    out: dict[str, dict[str, list[str]]] = {}
    for row in runs.itertuples(index=False):
        pool = out.setdefault(row.query_id, {})
        for chunk_id in list(row.ranked)[:depth]:
            pool.setdefault(chunk_id, []).append(row.strategy)
    return out


def unjudged(queries: Sequence[Mapping[str, Any]], runs: pd.DataFrame,
             depth: int = POOL_DEPTH) -> dict[str, dict[str, list[str]]]:
    """query_id -> {pooled chunk id with neither a grade in `relevance` nor a place in `traps`: strategies},
    only where any. A trap is a judgement too: "looks right, must not come back"."""
    judged = {q["query_id"]: set(q["relevance"]) | set(q.get("traps") or ()) for q in queries}
    out = {}
    for query_id, pool in pools(runs, depth).items():
        missing = {c: s for c, s in pool.items() if c not in judged[query_id]}
        if missing:
            out[query_id] = missing
    return out


CHUNK_TEXT_SQL = """SELECT c.id, d.tenant_id, d.user_id, d.title, d.version, d.valid_until, d.deleted_at,
       c.deleted_at, JSON_VALUE(c.metadata, '$.section_type'), JSON_VALUE(c.metadata, '$.section'), c.content
  FROM knowledge_base_chunk c JOIN knowledge_base_document d ON d.id = c.document_id
 ORDER BY c.id"""


def chunk_cards(conn: oracledb.Connection) -> dict[str, dict[str, Any]]:
    """chunk id -> what a judge reads: tenant, user, title, version, lifecycle, section and text.

    Read as the table owner with the tenant unset would see nothing under the policies, so the
    caller sets the tenant; `scripts/golden_pool.py` reads each query's tenant in turn."""
    with conn.cursor() as cur:
        cur.execute(CHUNK_TEXT_SQL)
        names = ("tenant", "user_id", "title", "version", "valid_until", "doc_deleted_at", "deleted_at",
                 "section_type", "section", "text")
        return {row[0]: {n: (v.read() if hasattr(v, "read") else v) for n, v in zip(names, row[1:])}
                for row in cur.fetchall()}
