"""Stage 1 and routing choices, made on the DEVELOPMENT half of golden set version 2 only.

Each variant changes one choice of part 05's stage 1 or stage 2 (how the lexical expression joins its terms,
the entity weight, the rarity threshold, collection routing, the pool size); the table shows NDCG@10 of the
lexical pool, hybrid RRF and the rerank pipeline on the development half, with the paired bootstrap 95% CI of
each variant's pipeline against the shipped settings. The held-out half is never read here: the shipped
settings in workshop/pipeline/query.py and routing.py were chosen from this table, and part 06 reports them
on the held-out half.

Runs on a private copy of the workshop database (the set-up must have run).

    .venv/bin/python benchmarks/bench_stage1.py [--variants name,name] [--queries N]
"""
from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd  # noqa: E402

from workshop import config  # noqa: E402
from workshop.data import load_golden_queries  # noqa: E402
from workshop.db import copy_embedded_database  # noqa: E402
from workshop.evaluation.split import DEV, of_split  # noqa: E402
from workshop.pipeline import query, routing, search  # noqa: E402


def old_rules(question: str) -> dict:
    """The rules before issue 22: the expression held only the entities and expansions (OR), and a
    capitalised word counted as an entity; kept here as the baseline row."""
    import re
    plan = query.understand_query(question)
    caps = [w for w in re.findall(r"\b[A-Z][\w-]*", question) if w.lower() not in ("what", "how", "why", "which",
                                                                                   "when", "where", "who", "does",
                                                                                   "do", "is", "are", "can", "i")]
    terms = list(dict.fromkeys([*plan["entities"], *caps, *plan["expansions"]]))
    if terms:
        plan["lex_query"] = " OR ".join(query.escape_braces(t) for t in terms)
    return plan


def rules(joiner: str = query.JOINER, weight: int = query.ENTITY_WEIGHT, rare: float = query.RARE_SHARE):
    def understand(question: str) -> dict:
        old = query.RARE_SHARE
        query.RARE_SHARE = rare
        try:
            plan = query.understand_query(question)
            plan["lex_query"] = query.lexical_expression(plan["entities"], plan["expansions"], question,
                                                         joiner=joiner, entity_weight=weight)
            return plan
        finally:
            query.RARE_SHARE = old
    return understand


#: name -> (understand, routing minimum (None = off), pool size)
VARIANTS = {
    "shipped": (rules(), routing.MIN_CANDIDATES, search.POOL_SIZE),
    "before issue 22": (old_rules, 0, search.POOL_SIZE),
    "OR instead of ACCUM": (rules(joiner=" OR "), routing.MIN_CANDIDATES, search.POOL_SIZE),
    "entities *2": (rules(weight=2), routing.MIN_CANDIDATES, search.POOL_SIZE),
    "entities *3 rare<=1%": (rules(weight=3, rare=0.01), routing.MIN_CANDIDATES, search.POOL_SIZE),
    "routing off": (rules(), None, search.POOL_SIZE),
    "routing always narrows": (rules(), 0, search.POOL_SIZE),
    "routing narrows at >= 50 (one pool)": (rules(), 50, search.POOL_SIZE),
    "routing narrows at >= 100 (both pools)": (rules(), 100, search.POOL_SIZE),
    "pools of 30": (rules(), routing.MIN_CANDIDATES, 30),
    "pools of 80": (rules(), routing.MIN_CANDIDATES, 80),
}
STRATEGY_NAMES = ("vector", "lexical", "hybrid_rrf", "hybrid_rerank")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default="", help="comma-separated variant names (default: all)")
    parser.add_argument("--queries", type=int, default=0, help="only the first N development questions")
    args = parser.parse_args()
    pd.set_option("display.width", 200)
    chosen = [v.strip() for v in args.variants.split(",") if v.strip()] or list(VARIANTS)
    with tempfile.TemporaryDirectory() as tmp:
        if config.oracle_dsn() is None:
            os.environ["WORKSHOP_EMBEDDED_DB"] = str(copy_embedded_database(Path(tmp) / "workshop.db"))
        from workshop.db import connect
        from workshop.evaluation import ablation, bootstrap, strategies
        from workshop.pipeline.manager import reranker_label
        from workshop.setup import banner
        conn = connect()
        strategies.prepare_knowledge_base(conn)
        dev = of_split(load_golden_queries(version=2), DEV)
        if args.queries:
            dev = dev[: args.queries]
        load_before = os.getloadavg()
        table, per_query = [], {}
        for name in chosen:
            understand, minimum, pool_size = VARIANTS[name]
            search.POOL_SIZE = pool_size          # plan_binds reads it at call time
            try:
                runs = ablation.run_strategies(conn, dev, STRATEGY_NAMES, understand=functools.partial(understand),
                                               min_candidates=minimum)
            finally:
                search.POOL_SIZE = VARIANTS["shipped"][2]
            scores = ablation.score_runs(runs, dev)
            means = scores.groupby("strategy")["ndcg@10"].mean()
            per_query[name] = scores[scores.strategy == "hybrid_rerank"].set_index("query_id")["ndcg@10"]
            widened = runs.drop_duplicates("query_id")["routing"].value_counts().to_dict()
            table.append({"variant": name, **{f"{s} ndcg@10": means.get(s) for s in STRATEGY_NAMES},
                          "routing": ", ".join(f"{k} {v}" for k, v in sorted(widened.items()))})
        frame = pd.DataFrame(table).set_index("variant")
        if "shipped" in per_query:
            base = per_query["shipped"]
            for name, series in per_query.items():
                ci = bootstrap.paired_bootstrap(base.to_numpy(), series.reindex(base.index).to_numpy())
                frame.loc[name, "rerank vs shipped [95% CI]"] = (f"{ci['diff']:+.3f} [{ci['ci_low']:+.3f}, "
                                                                 f"{ci['ci_high']:+.3f}]")
        load_after = os.getloadavg()
        print(f"engine:    {banner(conn)} (embedded: {config.oracle_dsn() is None})")
        print(f"embedding: {config.embedding_model_name()}")
        print(f"reranker:  {reranker_label(conn)}")
        print(f"golden:    version 2, development half: {len(dev)} questions "
              f"({sum(any(g >= 1 for g in q['relevance'].values()) for q in dev)} answerable)")
        print(f"machine:   {os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after\n")
        print(frame.round(3).to_string())
        conn.close()


if __name__ == "__main__":
    main()
