"""Run strategies over the golden set, score them, and tabulate with uncertainty.

`run_strategies` times every call; the first call of each strategy (model load, caches) is kept
but flagged `warm_up` and left out of p50/p95, which are reported next to it. Scores come from the
metric functions you pass (the learner's own in the notebook, `metrics.METRICS` elsewhere).
Queries without a relevant chunk (the unanswerable ones) have no defined metric, so they are left
out of the means. `trap@10` is the share of queries with a trap chunk (another tenant's copy, a
superseded version) in the top 10: lower is better, and it is what the stage-2 filters are for.
`unjudged@10` is the share of the top 10 that carries no judgement (counted as grade 0): golden set v2 was
pooled over the strategies as they were before issue 22, so a strategy that now finds other chunks is
scored as a lower bound, and this column says by how much it could be.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from workshop.pipeline import routing, security
from workshop.pipeline.query import ALL_COLLECTIONS, understand_query

from . import bootstrap, metrics
from .strategies import DEPTH, EVAL_USER, LEGS, STRATEGIES

#: column name -> (metric key, k)
COLUMNS: dict[str, tuple[str, int]] = {"ndcg@10": ("ndcg", 10), "recall@20": ("recall", 20),
                                       "mrr@10": ("mrr", 10), "precision@5": ("precision", 5)}


TRAP_DEPTH = 10


def run_strategies(conn, queries: Sequence[Mapping[str, Any]], strategies: Iterable[str] = tuple(STRATEGIES), *,
                   depth: int = DEPTH, progress: Callable[[Iterable], Iterable] | None = None,
                   understand: Callable[[str], dict] = understand_query,
                   min_candidates: int | None = routing.MIN_CANDIDATES) -> pd.DataFrame:
    """One row per (strategy, query): the ranked ids, the latency in ms, whether it was the warm-up call, and
    the routing decision of stage 2 (`routing.route_collections` with `min_candidates`; None = no routing, every
    collection).

    Each question runs in its tenant (RLS) and as its user: `user_id` when the record has one (the
    user-scope questions of golden set version 2), otherwise `EVAL_USER`, who owns no private document.
    The plan of a question is made once and shared by every strategy (stage 1 and routing are not timed)."""
    rows = []
    before = security.current_tenant(conn)
    plans: dict[str, dict] = {}
    try:
        for name in strategies:
            run = STRATEGIES[name] if name in STRATEGIES else LEGS[name]
            for i, q in enumerate(progress(queries) if progress else queries):
                security.set_tenant(conn, q["tenant"])
                user = q.get("user_id") or EVAL_USER
                if q["query_id"] not in plans:
                    plan = understand(q["query"])
                    if min_candidates is None:
                        plan = {**plan, "collections": list(ALL_COLLECTIONS), "routing": {"decision": "off"}}
                    else:
                        plan = routing.route_collections(conn, plan, user_id=user, minimum=min_candidates)
                    plans[q["query_id"]] = plan
                plan = plans[q["query_id"]]
                start = time.perf_counter()
                ranked = run(conn, plan, user_id=user, depth=depth)
                elapsed = (time.perf_counter() - start) * 1000
                rows.append({"strategy": name, "query_id": q["query_id"], "intent": q["intent"],
                             "split": q.get("split"), "routing": plan["routing"]["decision"],
                             "ranked": ranked, "latency_ms": elapsed, "warm_up": i == 0})
    finally:
        security.set_tenant(conn, before)
    return pd.DataFrame(rows)


def score_runs(runs: pd.DataFrame, queries: Sequence[Mapping[str, Any]],
               metric_functions: Mapping[str, Callable] = metrics.METRICS,
               columns: Mapping[str, tuple[str, int]] = COLUMNS) -> pd.DataFrame:
    """Per-query scores: one row per (strategy, answerable query), one column per metric."""
    labels = {q["query_id"]: q["relevance"] for q in queries}
    halves = {q["query_id"]: q.get("split") for q in queries}
    traps = {q["query_id"]: set(q.get("traps") or ()) for q in queries}
    judged = {q["query_id"]: set(q["relevance"]) | traps[q["query_id"]] for q in queries}
    out = []
    for row in runs.itertuples(index=False):
        relevance = labels[row.query_id]
        if not metrics.relevant_ids(relevance):
            continue
        scores = {col: float(metric_functions[key](list(row.ranked), relevance, k))
                  for col, (key, k) in columns.items()}
        # a scope check the graded metrics cannot make: did a trap (another tenant's, superseded) reach the top 10?
        scores["trap@10"] = float(bool(traps[row.query_id].intersection(list(row.ranked)[:TRAP_DEPTH])))
        # how far to trust the graded metrics: the share of the top 10 nobody judged (scored as grade 0)
        scores["unjudged@10"] = sum(c not in judged[row.query_id] for c in list(row.ranked)[:TRAP_DEPTH]) / TRAP_DEPTH
        out.append({"strategy": row.strategy, "query_id": row.query_id, "intent": row.intent,
                    "split": halves[row.query_id], **scores})
    return pd.DataFrame(out)


def unanswerable_traps(runs: pd.DataFrame, queries: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The questions no chunk answers, counted apart: per strategy, how many there are and the share with a trap
    (another tenant's answer, a private or deleted or superseded one) in the top 10. Metrics are undefined there."""
    unanswerable = {q["query_id"]: set(q.get("traps") or ()) for q in queries
                    if not metrics.relevant_ids(q["relevance"])}
    rows = []
    for name, group in runs.groupby("strategy", sort=False):
        group = group[group["query_id"].isin(unanswerable)]
        hits = [bool(unanswerable[r.query_id].intersection(list(r.ranked)[:TRAP_DEPTH])) for r in group.itertuples()]
        rows.append({"strategy": name, "unanswerable": len(hits),
                     "trap@10": float(np.mean(hits)) if hits else float("nan")})
    return pd.DataFrame(rows).set_index("strategy")


def latency_table(runs: pd.DataFrame) -> pd.DataFrame:
    """p50/p95 without the warm-up call, and the warm-up call on its own."""
    def one(group: pd.DataFrame) -> pd.Series:
        warm = group.loc[~group["warm_up"], "latency_ms"].to_numpy()
        return pd.Series({"p50 ms": float(np.percentile(warm, 50)) if len(warm) else float("nan"),
                          "p95 ms": float(np.percentile(warm, 95)) if len(warm) else float("nan"),
                          "first call ms": float(group.loc[group["warm_up"], "latency_ms"].sum())})
    return pd.DataFrame({name: one(g) for name, g in runs.groupby("strategy", sort=False)}).T


def summary_table(scores: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """strategy x {metrics, p50, p95, first call, queries}: the tidy ablation table."""
    order = list(dict.fromkeys(runs["strategy"]))
    means = scores.groupby("strategy").mean(numeric_only=True).reindex(order)
    table = means.join(latency_table(runs))
    table["queries"] = scores.groupby("strategy").size().reindex(order)
    table.index.name = "strategy"
    return table


def per_intent(scores: pd.DataFrame, metric: str = "ndcg@10") -> pd.DataFrame:
    """intent x strategy mean of one metric, with the number of queries per intent."""
    table = scores.pivot_table(index="intent", columns="strategy", values=metric, aggfunc="mean",
                               sort=False)[list(dict.fromkeys(scores["strategy"]))]
    table["queries"] = scores.groupby("intent").query_id.nunique()
    return table


def differences(scores: pd.DataFrame, baseline: str, metrics_: Sequence[str] = ("ndcg@10", "recall@20", "mrr@10"), *,
                seed: int = bootstrap.SEED) -> pd.DataFrame:
    """Every other strategy minus `baseline`, per metric: mean difference, paired 95% CI, win/tie/loss."""
    wide = {m: scores.pivot(index="query_id", columns="strategy", values=m) for m in metrics_}
    rows = []
    for other in dict.fromkeys(scores["strategy"]):
        if other == baseline:
            continue
        for m in metrics_:
            a, b = wide[m][baseline].to_numpy(), wide[m][other].to_numpy()
            rows.append({"comparison": f"{other} - {baseline}", "metric": m,
                         **bootstrap.paired_bootstrap(a, b, seed=seed), **bootstrap.win_tie_loss(a, b)})
    return pd.DataFrame(rows)


def run_title_experiment(conn, queries: Sequence[Mapping[str, Any]], *, depth: int = DEPTH) -> pd.DataFrame:
    """The same vector statement over RESEARCH_CHUNKS' own vectors and over the titled copy."""
    from .strategies import TITLED_TABLE, vector_over
    rows = []
    for name, table in (("vector: chunk text", "RESEARCH_CHUNKS"), ("vector: title + chunk", TITLED_TABLE)):
        for i, q in enumerate(queries):
            start = time.perf_counter()
            ranked = vector_over(conn, table, q["query"], q["tenant"], depth=depth)
            rows.append({"strategy": name, "query_id": q["query_id"], "intent": q["intent"], "ranked": ranked,
                         "latency_ms": (time.perf_counter() - start) * 1000, "warm_up": i == 0})
    return pd.DataFrame(rows)


#: The stages of part 05, each as (name, with the stage, without it): what the stage adds, per half and intent.
STAGES: tuple[tuple[str, str, str], ...] = (
    ("fusion vs vector leg", "hybrid_rrf", "vector"),
    ("fusion vs lexical leg", "hybrid_rrf", "lexical"),
    ("rerank (pipeline - RRF)", "hybrid_rerank", "hybrid_rrf"),
    ("pipeline - vector", "hybrid_rerank", "vector"),
    ("stage-2 filters", "hybrid_rerank", "pipeline_unfiltered"),
)


def by_split(scores: pd.DataFrame, metric: str = "ndcg@10") -> pd.DataFrame:
    """(split, intent) x strategy: the mean of `metric`, every intent and "all", with the number of questions."""
    parts = []
    for half, group in scores.groupby("split", sort=True):
        table = per_intent(group, metric)
        overall = group.groupby("strategy")[metric].mean().reindex(table.columns.drop("queries"))
        table.loc["all"] = [*overall.to_numpy(), group.query_id.nunique()]
        table.index = pd.MultiIndex.from_product([[half], table.index], names=["split", "intent"])
        parts.append(table)
    out = pd.concat(parts)
    out["queries"] = out["queries"].astype(int)
    return out


def stage_differences(scores: pd.DataFrame, stages: Sequence[tuple[str, str, str]] = STAGES,
                      metric: str = "ndcg@10", *, seed: int = bootstrap.SEED) -> pd.DataFrame:
    """(split, intent) x stage: "diff [low, high]", the paired bootstrap 95% CI of with - without, on the
    questions of that half and intent ("all" = the whole half). Stages whose strategies did not run are left out."""
    ran = set(scores["strategy"])
    stages = [s for s in stages if {s[1], s[2]} <= ran]
    rows = []
    for half, group in scores.groupby("split", sort=True):
        wide = group.pivot(index="query_id", columns="strategy", values=metric)
        intents = group.drop_duplicates("query_id").set_index("query_id")["intent"]
        for intent in ["all", *dict.fromkeys(intents)]:
            ids = intents.index if intent == "all" else intents.index[intents == intent]
            row = {"split": half, "intent": intent, "queries": len(ids)}
            for name, with_, without in stages:
                ci = bootstrap.paired_bootstrap(wide.loc[ids, without].to_numpy(), wide.loc[ids, with_].to_numpy(),
                                                seed=seed)
                row[name] = f"{ci['diff']:+.3f} [{ci['ci_low']:+.3f}, {ci['ci_high']:+.3f}]"
            rows.append(row)
    return pd.DataFrame(rows).set_index(["split", "intent"])
