"""The reference metrics against ranx on the whole golden sets, versions 1 and 2 (to 1e-9), hand fixtures, and the
bounds check. Version 2 carries grade-0 judgements (pooled judging), which must score like unlabelled chunks."""
from __future__ import annotations

import os

import random

import pytest

from workshop.data.loaders import load_golden_queries
from workshop.evaluation import metrics

# ranx compiles its metrics with numba on first use: about 20 s of CPU per measure on this project's 2-core CI (2
# minutes under load), for ~200 queries that plain Python scores in milliseconds. The reference values are the same.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")
ranx = pytest.importorskip("ranx")

GOLDEN = load_golden_queries() + load_golden_queries(version=2)
QUERIES = [q for q in GOLDEN if metrics.relevant_ids(q["relevance"])]
CHUNK_IDS = sorted({doc for q in GOLDEN for doc in q["relevance"]} | {f"NOISE-{i}" for i in range(30)})


def synthetic_runs(seed: int) -> dict[str, list[str]]:
    """A ranked list per query mixing its labelled chunks with others, shuffled reproducibly."""
    rng = random.Random(seed)
    runs = {}
    for q in QUERIES:
        pool = list(q["relevance"]) + rng.sample(CHUNK_IDS, 25)
        rng.shuffle(pool)
        runs[q["query_id"]] = list(dict.fromkeys(pool))[: rng.choice([3, 8, 20, 25])]
    return runs


def ranx_scores(runs: dict[str, list[str]], measure: str) -> dict[str, float]:
    qrels = ranx.Qrels({q["query_id"]: {d: g for d, g in q["relevance"].items() if g > 0} for q in QUERIES})
    run = ranx.Run({qid: {d: float(len(ids) - i) for i, d in enumerate(ids)} for qid, ids in runs.items()})
    ranx.evaluate(qrels, run, measure, return_mean=False, make_comparable=True)
    return run.scores[measure]


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize(("measure", "function", "k"), [
    ("recall@20", metrics.recall_at_k, 20), ("recall@5", metrics.recall_at_k, 5),
    ("precision@5", metrics.precision_at_k, 5), ("precision@10", metrics.precision_at_k, 10),
    ("mrr@10", metrics.mrr_at_k, 10), ("mrr@3", metrics.mrr_at_k, 3),
    ("ndcg@10", metrics.ndcg_at_k, 10), ("ndcg@3", metrics.ndcg_at_k, 3)])
def test_reference_metrics_match_ranx_on_the_golden_set(seed, measure, function, k):
    runs = synthetic_runs(seed)
    expected = ranx_scores(runs, measure)
    labels = {q["query_id"]: q["relevance"] for q in QUERIES}
    for qid, ranked in runs.items():
        assert function(ranked, labels[qid], k) == pytest.approx(expected[qid], abs=1e-9), qid


def test_both_versions_are_cross_checked():
    assert {q["query_id"][:3] for q in QUERIES} >= {"V2-"} and any(q["query_id"].startswith("Q") for q in QUERIES)
    assert len({q["query_id"] for q in QUERIES}) == len(QUERIES)


def test_grade_zero_scores_like_an_unlabelled_chunk():
    with_zero, without = {"a": 3, "b": 0, "c": 1}, {"a": 3, "c": 1}
    for function in (metrics.recall_at_k, metrics.precision_at_k, metrics.mrr_at_k, metrics.ndcg_at_k):
        for ranked in (["b", "a", "c"], ["b", "c"], ["a"], ["b"]):
            assert function(ranked, with_zero, 3) == function(ranked, without, 3), (function.__name__, ranked)


def test_hand_fixtures():
    rel = {"a": 3, "b": 2, "c": 1}
    assert metrics.ndcg_at_k(["a", "b", "c"], rel, 10) == pytest.approx(1.0)
    assert metrics.ndcg_at_k([], rel, 10) == 0.0
    assert metrics.ndcg_at_k(["c", "b", "a"], rel, 10) < metrics.ndcg_at_k(["a", "c", "b"], rel, 10) < 1.0
    assert metrics.recall_at_k(["a", "x"], rel, 2) == pytest.approx(1 / 3)
    assert metrics.precision_at_k(["a"], rel, 5) == pytest.approx(1 / 5)
    assert metrics.mrr_at_k(["x", "y", "b"], rel, 2) == 0.0
    assert metrics.mrr_at_k(["x", "y", "b"], rel, 3) == pytest.approx(1 / 3)


def test_the_reference_stays_in_bounds_on_every_golden_query():
    for q in QUERIES:
        ideal = sorted(q["relevance"], key=lambda d: -q["relevance"][d])
        assert metrics.ndcg_at_k(ideal, q["relevance"], 10) == pytest.approx(1.0)
        assert 0.0 <= metrics.ndcg_at_k(ideal[::-1], q["relevance"], 10) <= 1.0


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError):
        metrics.recall_at_k("DOC01-C01", {"DOC01-C01": 3}, 5)
    with pytest.raises(ValueError):
        metrics.ndcg_at_k(["a"], {"a": 1}, 0)
