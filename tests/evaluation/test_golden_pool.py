"""Pooled judging: the pool helpers, and the completeness of golden set version 2 on the embedded engine.

The completeness test runs every part 06 strategy (the four of `strategies.STRATEGIES` and the two vector runs of
the title experiment) on every version-2 question and fails naming each chunk a strategy returns in its top 10 (the
depth of the graded metrics) without a judgement. It takes about one and a half to two minutes on two loaded cores (one shared database, one
pass per strategy); `scripts/golden_pool.py` prints the same unjudged chunks with their text for grading.
"""
from __future__ import annotations

import pandas as pd
import pytest

from tests.pipeline.kb_db import kb_db, kb_template  # noqa: F401
from workshop.data import load_golden_queries
from workshop.embedded import connect
from workshop.evaluation import pooling

#: The deepest cutoff of a graded metric that must be exact (NDCG@10, MRR@10, trap@10).
METRIC_DEPTH = 10


def _runs(rows):
    return pd.DataFrame([{"strategy": s, "query_id": q, "ranked": r} for s, q, r in rows])


def test_pools_are_the_union_of_every_top_20_with_who_returned_what():
    runs = _runs([("a", "Q1", ["c1", "c2"]), ("b", "Q1", ["c2", "c3"]), ("a", "Q2", [f"x{i}" for i in range(25)])])
    pools = pooling.pools(runs)
    assert pools["Q1"] == {"c1": ["a"], "c2": ["a", "b"], "c3": ["b"]}
    assert len(pools["Q2"]) == pooling.POOL_DEPTH                  # below the top 20 is not pooled
    assert len(pooling.pools(runs, depth=10)["Q2"]) == 10


def test_unjudged_names_only_chunks_without_a_grade():
    runs = _runs([("a", "Q1", ["c1", "c2"]), ("b", "Q1", ["c3"]), ("a", "Q2", ["c1"])])
    queries = [{"query_id": "Q1", "relevance": {"c1": 3, "c2": 0}, "traps": []},
               {"query_id": "Q2", "relevance": {}, "traps": ["c1"]}]
    assert pooling.unjudged(queries, runs) == {"Q1": {"c3": ["b"]}}   # a trap is a judgement too


@pytest.mark.slow
def test_every_pooled_chunk_of_golden_set_v2_is_judged(kb_db):  # noqa: F811
    """Every chunk any part 06 strategy returns in its top 10 for a v2 question has a grade (0-3) or is a trap:
    the depth of NDCG@10, MRR@10, P@5 and trap@10. The top 20 was judged before issue 22 changed stage 1 and the
    reranker; what the changed strategies add between ranks 11 and 20 is not judged yet (Recall@20 is a lower
    bound for them; workshop/data/golden/README.md)."""
    from workshop.pipeline import security
    conn = connect(kb_db)
    try:
        security.protect_all_tenant_tables(conn)
        queries = load_golden_queries(version=2)
        runs = pooling.pool_runs(conn, queries)
        assert set(runs["strategy"]) == {"vector", "hybrid_rrf", "hybrid_rerank", "pipeline_unfiltered",
                                         *pooling.TITLE_RUNS}
        assert (runs.groupby("strategy").size() == len(queries)).all()
        missing = pooling.unjudged(queries, runs, depth=METRIC_DEPTH)
        assert not missing, ("unjudged pooled chunks (grade them with scripts/golden_pool.py): "
                             + "; ".join(f"{q}: {sorted(c)}" for q, c in missing.items()))
    finally:
        conn.close()


def test_the_pool_script_starts_and_describes_itself():
    import subprocess
    import sys
    from pathlib import Path
    script = Path(__file__).resolve().parents[2] / "scripts" / "golden_pool.py"
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "unjudged" in done.stdout and "--question" in done.stdout
