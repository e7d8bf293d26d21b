"""The part 06 ablation as a table for the README: every strategy on golden set version 2 (pooled-judged over
these strategies; `--golden 1` for the older set), with paired bootstrap 95% intervals of each difference from
pure vector and win/tie/loss counts.

Runs on a private copy of the workshop database (the set-up must have run); builds part 05's
knowledge-base tables, context package and tenant policies there when they are missing. Strategies
and tie policy: workshop/evaluation/strategies.py. Metrics: workshop/evaluation/metrics.py (linear-gain
NDCG@10 with the ideal over every label; cross-checked against ranx in tests/evaluation). Queries
without a relevant chunk are left out of the means. The first call of each strategy is the warm-up
(model load, statement translation), reported on its own and left out of p50/p95.

    .venv/bin/python benchmarks/bench_retrieval.py [--golden 2] [--queries N] [--no-title]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pandas as pd  # noqa: E402

from workshop import config  # noqa: E402
from workshop.db import copy_embedded_database  # noqa: E402
from workshop.data import load_golden_queries  # noqa: E402


def private_copy(target: Path) -> Path:
    try:
        return copy_embedded_database(target)
    except FileNotFoundError as missing:
        sys.exit(str(missing))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--golden", type=int, choices=(1, 2), default=2, help="golden set version (default 2)")
    parser.add_argument("--queries", type=int, default=0, help="only the first N golden queries (0 = all)")
    parser.add_argument("--no-title", action="store_true", help="skip the title-in-the-embedding experiment")
    args = parser.parse_args()
    pd.set_option("display.width", 200)
    pd.set_option("display.max_columns", 20)
    with tempfile.TemporaryDirectory() as tmp:
        if config.oracle_dsn() is None:
            os.environ["WORKSHOP_EMBEDDED_DB"] = str(private_copy(Path(tmp) / "workshop.db"))
        from workshop.db import connect
        from workshop.evaluation import ablation, strategies
        from workshop.pipeline.manager import reranker_label
        from workshop.setup import banner
        conn = connect()
        strategies.prepare_knowledge_base(conn)
        golden = load_golden_queries(version=args.golden)
        if args.queries:
            golden = golden[: args.queries]
        load_before = os.getloadavg()
        names = ("vector", "lexical", *list(strategies.STRATEGIES)[1:])
        runs = ablation.run_strategies(conn, golden, names)
        scores = ablation.score_runs(runs, golden)
        title = None
        if not args.no_title:
            strategies.build_titled_copy(conn)
            title_runs = ablation.run_title_experiment(conn, golden)
            title = (ablation.summary_table(ablation.score_runs(title_runs, golden), title_runs),
                     ablation.differences(ablation.score_runs(title_runs, golden), "vector: chunk text"))
        load_after = os.getloadavg()
        answerable = scores["query_id"].nunique()
        relevant = sum(g >= 1 for q in golden for g in q["relevance"].values())
        print(f"engine:    {banner(conn)} (embedded: {config.oracle_dsn() is None})")
        print(f"embedding: {config.embedding_model_name()}")
        print(f"reranker:  {reranker_label(conn)}")
        print(f"golden:    version {args.golden}, {len(golden)} queries ({answerable} with a relevant chunk scored, "
              f"{len(golden) - answerable} unanswerable left out of the means), "
              f"{sum(len(q['relevance']) for q in golden)} judgements ({relevant} of grade >= 1); corpus: "
              "part 05's knowledge-base tables (39 documents / 229 chunks plus 9 authored rows)")
        print(f"machine:   {os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, {load_after[0]:.2f} "
              "after (shared machine: latency is indicative)\n")
        print(ablation.summary_table(scores, runs).round(3).to_string(), "\n")
        print("NDCG@10 per half (development / held-out, golden v2's `split`) and intent")
        if args.golden == 2:
            print(ablation.by_split(scores).round(3).to_string(), "\n")
            print("what each stage adds, NDCG@10, paired bootstrap 95% CI per half and intent")
            print(ablation.stage_differences(scores).to_string(), "\n")
        else:
            print(ablation.per_intent(scores).round(3).to_string(), "\n")
        print("difference from vector (paired bootstrap, 10,000 resamples, seed 2026)")
        print(ablation.differences(scores, "vector").round(3).to_string(index=False))
        print("\nunanswerable questions: share with a trap in the top 10 (the answers must not come from elsewhere)")
        print(ablation.unanswerable_traps(runs, golden).round(3).to_string())
        if title:
            print("\ntitle in the embedding (same vector statement, RESEARCH_CHUNKS vs a titled copy)")
            print(title[0].round(3).to_string())
            print(title[1].round(3).to_string(index=False))
        conn.close()


if __name__ == "__main__":
    main()
