"""The ablation runner, the tables and the paired bootstrap: shapes, warm-up handling, determinism,
and the strategies on a real knowledge base (tenant-correct, repeatable). No test says which wins."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.pipeline.kb_db import kb_template, secured, secured_db  # noqa: F401
from workshop.data import load_chunks, load_golden_queries
from workshop.evaluation import ablation, bootstrap, strategies
from workshop.pipeline.search import pipeline_sql, scope_predicates

QUERIES = [{"query_id": "A", "intent": "x", "relevance": {"d1": 3, "d2": 1}},
           {"query_id": "B", "intent": "y", "relevance": {"d3": 2}},
           {"query_id": "U", "intent": "y", "relevance": {"d9": 0}}]


def _runs() -> pd.DataFrame:
    rows = []
    for name, lists, times in (("one", [["d1", "d2"], ["x", "d3"], ["d9"]], [900.0, 10.0, 30.0]),
                               ("two", [["d2", "d1"], ["d3"], []], [50.0, 20.0, 40.0])):
        for i, (q, ranked, ms) in enumerate(zip(QUERIES, lists, times)):
            rows.append({"strategy": name, "query_id": q["query_id"], "intent": q["intent"], "ranked": ranked,
                         "latency_ms": ms, "warm_up": i == 0})
    return pd.DataFrame(rows)


def test_unanswerable_queries_are_left_out_and_the_warm_up_reported_apart():
    runs = _runs()
    scores = ablation.score_runs(runs, QUERIES)
    assert set(scores["query_id"]) == {"A", "B"}
    table = ablation.summary_table(scores, runs)
    assert list(table.index) == ["one", "two"]
    assert table.loc["one", "first call ms"] == 900.0
    assert table.loc["one", "p50 ms"] == pytest.approx(20.0)          # median of 10 and 30, without the 900
    assert table.loc["one", "p50 ms"] <= table.loc["one", "p95 ms"]
    metric_columns = list(ablation.COLUMNS)
    assert ((table[metric_columns] >= 0) & (table[metric_columns] <= 1)).all().all()
    assert table.loc["one", "mrr@10"] == pytest.approx((1 + 1 / 2) / 2)


def test_per_intent_counts_queries():
    scores = ablation.score_runs(_runs(), QUERIES)
    intents = ablation.per_intent(scores)
    assert intents.loc["x", "queries"] == 1 and intents.loc["y", "queries"] == 1


def test_paired_bootstrap_is_reproducible_and_brackets_the_mean():
    rng = np.random.default_rng(0)
    a = rng.random(40)
    b = a + 0.1 + rng.normal(0, 0.05, 40)
    first = bootstrap.paired_bootstrap(a, b)
    assert first == bootstrap.paired_bootstrap(a, b)
    assert first["ci_low"] < first["diff"] < first["ci_high"]
    assert first["diff"] == pytest.approx(float(np.mean(b - a)))
    assert bootstrap.paired_bootstrap(a, b, seed=1) != first
    same = bootstrap.paired_bootstrap(a, a)
    assert same == {"diff": 0.0, "ci_low": 0.0, "ci_high": 0.0}
    assert bootstrap.win_tie_loss([0.1, 0.5, 0.3], [0.2, 0.5, 0.1]) == {"win": 1, "tie": 1, "loss": 1}
    with pytest.raises(ValueError):
        bootstrap.paired_bootstrap([1.0], [1.0, 2.0])


def test_differences_pair_queries_by_id():
    scores = ablation.score_runs(_runs(), QUERIES)
    diffs = ablation.differences(scores, "one")
    assert list(diffs["comparison"].unique()) == ["two - one"]
    assert set(diffs["metric"]) == {"ndcg@10", "recall@20", "mrr@10"}
    assert (diffs[["win", "tie", "loss"]].sum(axis=1) == 2).all()


def test_the_unfiltered_statement_drops_only_the_stage_2_predicates():
    sql = pipeline_sql("M", "R", ":collection_1")
    unfiltered = strategies.unfiltered_sql(sql, ":collection_1")
    assert scope_predicates(":collection_1") not in unfiltered and ":user_id" not in unfiltered
    assert unfiltered.count("d.collection IN (:collection_1)") == 2
    with pytest.raises(RuntimeError):
        strategies.unfiltered_sql("SELECT 1 FROM dual", ":collection_1")


def test_the_strategies_on_a_knowledge_base_are_tenant_correct_and_repeatable(secured):  # noqa: F811
    tenant_of = {c["chunk_id"]: c["tenant"] for c in load_chunks()}
    golden = load_golden_queries()[:3]
    names = ("vector", "hybrid_rrf", "pipeline_unfiltered")
    runs = ablation.run_strategies(secured, golden, names)
    again = ablation.run_strategies(secured, golden, names)
    assert runs["ranked"].tolist() == again["ranked"].tolist()
    for row in runs.itertuples():
        assert 0 < len(row.ranked) <= strategies.DEPTH and len(set(row.ranked)) == len(row.ranked)
        tenant = next(q["tenant"] for q in golden if q["query_id"] == row.query_id)
        assert {tenant_of.get(i, tenant) for i in row.ranked} == {tenant}, (row.strategy, row.query_id)
    assert runs.groupby("strategy")["warm_up"].sum().tolist() == [1, 1, 1]


def test_the_knowledge_base_is_prepared_once(secured):  # noqa: F811
    assert strategies.knowledge_base_ready(secured)
    assert strategies.prepare_knowledge_base(secured) is False


def test_unanswerable_questions_are_counted_apart_with_their_traps():
    queries = QUERIES + [{"query_id": "N", "intent": "unanswerable", "relevance": {"d1": 0}, "traps": ["t1"]}]
    runs = pd.concat([_runs(), pd.DataFrame([
        {"strategy": "one", "query_id": "N", "intent": "unanswerable", "ranked": ["t1"], "latency_ms": 5.0,
         "warm_up": False},
        {"strategy": "two", "query_id": "N", "intent": "unanswerable", "ranked": ["d1"], "latency_ms": 5.0,
         "warm_up": False}])], ignore_index=True)
    table = ablation.unanswerable_traps(runs, queries)
    assert table.loc["one", "unanswerable"] == 2 and table.loc["one", "trap@10"] == 0.5    # U (no trap) and N
    assert table.loc["two", "trap@10"] == 0.0
    assert "N" not in set(ablation.score_runs(runs, queries)["query_id"])


# --------------------------------------------------------------------------- issue 22: halves, stages, unjudged
def _split_scores() -> pd.DataFrame:
    """Two halves, two intents, three strategies; 'c' beats 'b' by 0.2 everywhere, 'b' equals 'a' in 'dev'."""
    rows = []
    for half, offset in (("dev", 0.0), ("held-out", 0.1)):
        for n in range(8):
            intent = "p" if n % 2 else "q"
            qid = f"{half}-{n}"
            base = 0.1 * n / 8
            for name, value in (("a", base), ("b", base + offset), ("c", base + offset + 0.2)):
                rows.append({"strategy": name, "query_id": qid, "intent": intent, "split": half, "ndcg@10": value})
    return pd.DataFrame(rows)


def test_by_split_gives_each_half_per_intent_and_all():
    table = ablation.by_split(_split_scores())
    assert set(table.index.get_level_values("split")) == {"dev", "held-out"}
    assert table.loc[("dev", "all"), "queries"] == 8 and table.loc[("dev", "p"), "queries"] == 4
    assert table.loc[("held-out", "all"), "c"] - table.loc[("held-out", "all"), "a"] == pytest.approx(0.3)


@pytest.mark.parametrize("stage, half, expected", [
    pytest.param(("c over b", "c", "b"), "dev", "+0.200 [+0.200, +0.200]", id="constant-gain"),
    pytest.param(("b over a", "b", "a"), "dev", "+0.000 [+0.000, +0.000]", id="no-gain-in-dev"),
    pytest.param(("b over a", "b", "a"), "held-out", "+0.100 [+0.100, +0.100]", id="gain-only-held-out"),
    pytest.param(("a over c", "a", "c"), "held-out", "-0.300 [-0.300, -0.300]", id="a-loss"),
])
def test_stage_differences_are_paired_per_half(stage, half, expected):
    table = ablation.stage_differences(_split_scores(), [stage])
    assert table.loc[(half, "all"), stage[0]] == expected
    assert table.loc[(half, "p"), "queries"] == 4


def test_a_stage_whose_strategies_did_not_run_is_left_out():
    table = ablation.stage_differences(_split_scores(), [("x", "c", "missing"), ("c over b", "c", "b")])
    assert "x" not in table.columns and "c over b" in table.columns


def test_unjudged_share_counts_chunks_with_neither_a_grade_nor_a_trap():
    queries = [{"query_id": "A", "intent": "x", "relevance": {"d1": 3, "d2": 0}, "traps": ["t"]}]
    runs = pd.DataFrame([{"strategy": "s", "query_id": "A", "intent": "x", "ranked": ["d1", "n1", "d2", "t", "n2"],
                          "latency_ms": 1.0, "warm_up": True}])
    assert ablation.score_runs(runs, queries)["unjudged@10"].iloc[0] == pytest.approx(2 / 10)


def test_each_question_is_planned_once_and_its_routing_recorded(secured):  # noqa: F811
    golden = load_golden_queries(version=2)[:4]
    seen = []

    def understand(question):
        seen.append(question)
        from workshop.pipeline.query import understand_query
        return understand_query(question)
    runs = ablation.run_strategies(secured, golden, ("vector", "lexical"), understand=understand)
    assert sorted(seen) == sorted(q["query"] for q in golden)
    assert set(runs["routing"]) <= {"all", "narrowed", "widened"}
    off = ablation.run_strategies(secured, golden, ("vector",), min_candidates=None)
    assert set(off["routing"]) == {"off"}
