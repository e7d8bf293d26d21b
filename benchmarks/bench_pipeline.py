"""Benchmark part 05's one-statement pipeline against pure vector top-k, on this machine's engine.

Runs on a private copy of the workshop database (the set-up must have run), with the knowledge-base
tables, the context package and the tenant policies built there, tenant acme. Per query, in turn (so
a burst of load from other processes hits all alike):

* `vector top-10`: the vector pool's statement alone (same scope predicates), FETCH FIRST 10;
* `pipeline, no rerank`: stages 2-4 in one statement (pools of 50, RRF, top 40);
* `rerank only`: PREDICTION of the reranker over the same 40 fused candidates (the reranker's own cost);
* `pipeline + rerank`: stages 2-5 in one statement.

The first call of each variant is the warm-up (model load, statement translation) and is reported on its
own. The queries are the running question plus the golden queries of tenant acme.

    .venv/bin/python benchmarks/bench_pipeline.py [--queries 12] [--repeats 2]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from workshop import config  # noqa: E402
from workshop.db import copy_embedded_database  # noqa: E402
from workshop.data import load_golden_queries  # noqa: E402
from workshop.pipeline import kb, security  # noqa: E402
from workshop.pipeline.manager import reranker_label  # noqa: E402
from workshop.pipeline.query import understand_query  # noqa: E402
from workshop.pipeline.running_question import QUESTION, TENANT, USER  # noqa: E402
from workshop.pipeline.search import (RERANK_IDS_SQL, fetch_dicts, pipeline_sql, plan_binds,  # noqa: E402
                                      vector_pool_sql)


def private_copy(target: Path) -> Path:
    try:
        return copy_embedded_database(target)
    except FileNotFoundError as missing:
        sys.exit(str(missing))


def percentiles(samples: list[float]) -> tuple[float, float]:
    ms = np.array(samples) * 1000
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--queries", type=int, default=12, help="questions (the running one plus golden ones)")
    parser.add_argument("--repeats", type=int, default=2, help="timed rounds over the questions")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="bench-pipeline-"))
    os.environ["WORKSHOP_EMBEDDED_DB"] = str(private_copy(folder / "workshop.db"))
    os.environ.pop("ORACLE_DSN", None)
    from workshop.db import connect
    from workshop.setup import banner
    conn = connect()
    model, reranker = config.embedding_model_name(), config.reranker_model_name()
    kb.build_knowledge_base(conn, model)
    security.install_context(conn)
    security.protect_all_tenant_tables(conn)
    security.set_tenant(conn, TENANT)
    label = reranker_label(conn)

    questions = [QUESTION] + [q["query"] for q in load_golden_queries() if q["tenant"] == TENANT][: args.queries - 1]
    plans = [understand_query(q) for q in questions]

    def run(sql: str, binds: dict) -> list[dict]:
        with conn.cursor() as cur:
            cur.execute(sql, binds)
            return fetch_dicts(cur)

    def vector(plan):
        collection_list, binds = plan_binds(plan, USER, 10)
        sql = vector_pool_sql(model, collection_list).replace(":pool_size", "10")
        return run(sql, {k: v for k, v in binds.items() if k not in ("lex_query", "rrf_k", "top_k", "pool_size")})

    def fused(plan):
        collection_list, binds = plan_binds(plan, USER, 40)
        return run(pipeline_sql(model, None, collection_list), binds)

    def full(plan):
        collection_list, binds = plan_binds(plan, USER, 40)
        return run(pipeline_sql(model, reranker, collection_list), binds)

    candidate_ids = {}

    def rerank_only(plan):
        ids = candidate_ids[plan["question"]]
        marks = ", ".join(f":id_{n}" for n in range(len(ids)))
        return run(RERANK_IDS_SQL.format(reranker=reranker, ids=marks),
                   {"query": plan["question"], **{f"id_{n}": i for n, i in enumerate(ids)}})

    variants = {"vector top-10": vector, "pipeline, no rerank": fused, "rerank only (40)": rerank_only,
                "pipeline + rerank": full}
    load_before = os.getloadavg()
    warm: dict[str, float] = {}
    for name, fn in variants.items():
        if name == "rerank only (40)":
            for plan in plans:
                candidate_ids[plan["question"]] = [r["id"] for r in fused(plan)]
        t0 = time.perf_counter()
        fn(plans[0])
        warm[name] = time.perf_counter() - t0
    times: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(args.repeats):
        for plan in plans:
            for name, fn in variants.items():
                t0 = time.perf_counter()
                fn(plan)
                times[name].append(time.perf_counter() - t0)
    load_after = os.getloadavg()

    print(f"engine:    {banner(conn)} (embedded: {config.oracle_dsn() is None})")
    print(f"embedding: {model} (in the database)")
    print(f"reranker:  {label}")
    print(f"machine:   {os.cpu_count()} CPUs; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after "
          "(shared with other processes)")
    print(f"questions: {len(plans)} (the running question + golden queries of {TENANT}), {args.repeats} rounds, "
          f"{len(plans) * args.repeats} timed calls per variant\n")
    vec_p50 = percentiles(times["vector top-10"])[0]
    rerank_p50 = percentiles(times["rerank only (40)"])[0]
    print(f"| variant | warm-up ms | p50 ms | p95 ms | p50 / vector | p50 / rerank only |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in variants:
        p50, p95 = percentiles(times[name])
        print(f"| {name} | {warm[name] * 1000:,.0f} | {p50:,.0f} | {p95:,.0f} | {p50 / vec_p50:.1f}x | "
              f"{p50 / rerank_p50:.2f}x |")
    full_p50, fused_p50 = percentiles(times["pipeline + rerank"])[0], percentiles(times["pipeline, no rerank"])[0]
    print(f"\nadded by the rerank in the statement: {full_p50 - fused_p50:,.0f} ms at p50 "
          f"(the reranker alone: {rerank_p50:,.0f} ms; statistics.median of the paired differences: "
          f"{statistics.median(a - b for a, b in zip(times['pipeline + rerank'], times['pipeline, no rerank'])) * 1000:,.0f} ms)")
    print("warm-up = the first call of each variant (the first PREDICTION loads the reranker); p95 includes each "
          "question's first rerank, before the engine's passage cache holds its candidates")
    print("seed anchors (Oracle, ALL_MINILM_L12_V2, bge-reranker-base): 2,121 ms with rerank vs 8 ms vector p50")
    conn.close()
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
