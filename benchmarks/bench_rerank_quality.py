"""Does reranking the RRF top 40 help? Measured on the golden set, on the embedded engine, and printed as tables.

For each chunk query of workshop/data/golden/queries.jsonl (55, graded 1-3) the candidates are the
project's own hybrid search (`workshop.retrieval.hybrid_rrf`: vector and Oracle Text legs of 50, RRF
k=60, top 40) filtered to the query's tenant and to current chunks (`is_current = 1`). Each reranker
reorders exactly those 40 in one SQL statement:

    SELECT chunk_id, PREDICTION(RERANKER USING :q AS FIRST_INPUT, <passage> AS SECOND_INPUT) AS rerank_score
    FROM research_chunks WHERE chunk_id IN (:c1, ..., :c40) ORDER BY rerank_score DESC, chunk_id

with <passage> = `text`, or `title || '. ' || text` (the seed's shape). Vector search alone (top 40, same
filters) is the reference. Metrics are this file's own (NDCG@10 with linear gain and the ideal from every
label of the query, Recall@5 over every label, MRR over the 40) and are cross-checked with ranx when it is
installed (`pip install ranx==0.3.21`); the run stops if they disagree by more than 1e-9.

Rerankers: the default RERANKER (training-free late interaction, MaxSim over all-MiniLM-L6-v2 token
states; not a cross-encoder), the former stand-in (bi-encoder cosine, loaded as a named baseline), and
with `--cross-encoder FOLDER` any BERT cross-encoder on disk (built with ensure_cross_encoder_model).
Latency is the statement's wall time, the passage-state cache kept across the run (`--cold` empties it
before each statement; bench_models.py measures both side by side). Runs on a temporary copy of the set-up
database.

    .venv/bin/python benchmarks/bench_rerank_quality.py [--cross-encoder FOLDER] [--bootstrap 10000]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from workshop import config, models, setup  # noqa: E402
from workshop.data import load_golden_queries  # noqa: E402
from workshop.embedded import connect, model_support  # noqa: E402
from workshop.retrieval import hybrid_rrf, vector_search  # noqa: E402

DEPTH = 40
POOL = 50
EMBED = "ALL_MINILM_L6_V2"
TEXT, TITLED = "text", "title || '. ' || text"


# ----------------------------------------------------------------------------- metrics (the project's own)
def ndcg_at(ranked: Sequence[str], grades: Mapping[str, int], k: int = 10) -> float:
    """Linear gain, log2(rank + 1) discount; the ideal ranks every labelled chunk of the query."""
    dcg = sum(grades.get(c, 0) / math.log2(i + 2) for i, c in enumerate(ranked[:k]))
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(sorted(grades.values(), reverse=True)[:k]))
    value = dcg / ideal if ideal else 0.0
    if not 0.0 <= value <= 1.0 + 1e-12:
        raise AssertionError(f"NDCG {value} outside [0, 1]: the ideal was computed from the wrong list")
    return value


def recall_at(ranked: Sequence[str], grades: Mapping[str, int], k: int = 5) -> float:
    relevant = {c for c, g in grades.items() if g > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def reciprocal_rank(ranked: Sequence[str], grades: Mapping[str, int]) -> float:
    return next((1.0 / (i + 1) for i, c in enumerate(ranked) if grades.get(c, 0) > 0), 0.0)


METRICS: dict[str, tuple[Callable, str]] = {"NDCG@10": (ndcg_at, "ndcg@10"), "R@5": (recall_at, "recall@5"),
                                            "MRR": (reciprocal_rank, "mrr")}


def ranx_check(qrels: dict, runs: dict[str, dict[str, list[str]]], ours: dict[str, dict[str, float]]) -> str:
    try:
        from ranx import Qrels, Run, evaluate
    except ImportError:
        return "ranx not installed: metrics not cross-checked (pip install ranx==0.3.21)"
    worst = 0.0
    ranx_qrels = Qrels({q: dict(g) for q, g in qrels.items()})
    for system, ranked in runs.items():
        run = Run({q: {c: float(len(ids) - i) for i, c in enumerate(ids)} for q, ids in ranked.items()})
        theirs = evaluate(ranx_qrels, run, [m for _, m in METRICS.values()], make_comparable=True)
        for name, (_, ranx_name) in METRICS.items():
            diff = abs(float(theirs[ranx_name]) - ours[system][name])
            if diff > 1e-9:
                raise AssertionError(f"{system} {name}: ours {ours[system][name]:.12f}, ranx {theirs[ranx_name]:.12f}")
            worst = max(worst, diff)
    from importlib.metadata import version
    return f"ranx {version('ranx')} agrees on every system and metric (max |difference| {worst:.1e})"


# ----------------------------------------------------------------------------- the runs
def rerank_sql(model: str, passage: str, n: int) -> str:
    binds = ", ".join(f":c{i}" for i in range(n))
    return (f"SELECT chunk_id, PREDICTION({model} USING :q AS FIRST_INPUT, {passage} AS SECOND_INPUT) AS rerank_score\n"
            f"FROM research_chunks WHERE chunk_id IN ({binds})\nORDER BY rerank_score DESC, chunk_id")


def clear_caches() -> None:
    for model in list(model_support._LOADED.values()):
        model.clear_cache()


def timed_rerank(conn, model: str, passage: str, query: str, candidates: list[str],
                 cold: bool) -> tuple[list[str], float]:
    if cold:
        clear_caches()
    binds = {"q": query, **{f"c{i}": c for i, c in enumerate(candidates)}}
    with conn.cursor() as cur:
        t0 = time.perf_counter()
        cur.execute(rerank_sql(model, passage, len(candidates)), binds)
        rows = cur.fetchall()
        elapsed = time.perf_counter() - t0
    return [r[0] for r in rows], elapsed


def load(conn, name: str, path: Path) -> None:
    import oracledb
    with conn.cursor() as cur:
        cur.setinputsizes(data=oracledb.DB_TYPE_BLOB)
        cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(model_name => :name, model_data => :data, "
                    "metadata => JSON(:meta)); END;",
                    {"name": name, "data": path.read_bytes(), "meta": json.dumps(models.reranker_metadata())})


def bootstrap_ci(diffs: np.ndarray, rounds: int, seed: int = 20261201) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    means = diffs[rng.integers(0, len(diffs), size=(rounds, len(diffs)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cross-encoder", type=Path, help="a BERT cross-encoder folder to compare as well")
    parser.add_argument("--bootstrap", type=int, default=10000, help="paired bootstrap rounds for the CI")
    parser.add_argument("--cold", action="store_true", help="empty the passage-state cache before every statement")
    parser.add_argument("--runs-out", type=Path, help="save the rankings and timings (JSON)")
    parser.add_argument("--runs-in", type=Path, help="print the tables from saved rankings instead of running")
    parser.add_argument("--limit", type=int, help="only the first N golden queries (a smoke run)")
    args = parser.parse_args()
    load_before = os.getloadavg()
    golden = load_golden_queries()[: args.limit]
    qrels = {q["query_id"]: dict(q["relevance"]) for q in golden}
    if args.runs_in:
        saved = json.loads(args.runs_in.read_text())
        runs, times, rerankers = saved["runs"], saved["times"], saved["rerankers"]
    else:
        runs, times, rerankers = compute_runs(args, golden)
        if args.runs_out:
            args.runs_out.write_text(json.dumps({"runs": runs, "times": times, "rerankers": rerankers}))
    report(args, golden, qrels, runs, times, rerankers, load_before)


def compute_runs(args, golden) -> tuple[dict, dict, dict]:

    tmp = Path(tempfile.mkdtemp(prefix="bench_rerank_"))
    try:
        db_file = tmp / "workshop.db"
        shutil.copy(config.embedded_db_path(), db_file)
        conn = connect(db_file)
        setup.build(conn, progress=False, log=lambda _: None)       # makes the copy current (RERANKER included)
        load(conn, "RERANKER_COSINE", models.ensure_cosine_reranker_model())
        rerankers = {
            "RERANKER (MaxSim), text": ("RERANKER", TEXT),
            "RERANKER (MaxSim), title || '. ' || text": ("RERANKER", TITLED),
            "cosine baseline (former stand-in), text": ("RERANKER_COSINE", TEXT),
        }
        if args.cross_encoder:
            load(conn, "RERANKER_CE", models.ensure_cross_encoder_model(args.cross_encoder))
            rerankers[f"cross-encoder {args.cross_encoder.name}, text"] = ("RERANKER_CE", TEXT)
            rerankers[f"cross-encoder {args.cross_encoder.name}, title || '. ' || text"] = ("RERANKER_CE", TITLED)

        runs: dict[str, dict[str, list[str]]] = {}
        times: dict[str, list[float]] = {}
        for n, q in enumerate(golden, start=1):
            if n % 10 == 0:
                print(f"  {n}/{len(golden)} queries", file=sys.stderr, flush=True)
            filters = {"tenant": q["tenant"], "is_current": 1}
            t0 = time.perf_counter()
            vec = vector_search(conn, "research_chunks", "embedding", q["query"], k=DEPTH, filters=filters,
                                model=EMBED, id_column="chunk_id")
            t1 = time.perf_counter()
            rrf = hybrid_rrf(conn, "research_chunks", "text", "embedding", q["query"], k=DEPTH, candidates=POOL,
                             filters=filters, model=EMBED, id_column="chunk_id")
            t2 = time.perf_counter()
            runs.setdefault("vector search alone (reference)", {})[q["query_id"]] = list(vec["chunk_id"])
            runs.setdefault("RRF top 40 (the input)", {})[q["query_id"]] = list(rrf["chunk_id"])
            times.setdefault("vector search alone (reference)", []).append(t1 - t0)
            times.setdefault("RRF top 40 (the input)", []).append(t2 - t1)
            for label, (model, passage) in rerankers.items():
                ranked, elapsed = timed_rerank(conn, model, passage, q["query"], list(rrf["chunk_id"]), args.cold)
                runs.setdefault(label, {})[q["query_id"]] = ranked
                times.setdefault(label, []).append(elapsed)
        conn.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return runs, times, rerankers


def report(args, golden, qrels, runs, times, rerankers, load_before) -> None:
    per_query = {s: {m: np.array([fn(runs[s][q["query_id"]], qrels[q["query_id"]]) for q in golden])
                     for m, (fn, _) in METRICS.items()} for s in runs}
    means = {s: {m: float(v.mean()) for m, v in per_query[s].items()} for s in runs}
    check = ranx_check(qrels, runs, means)

    print(f"# bench_rerank_quality: {len(golden)} golden chunk queries, embedded engine, {EMBED} embeddings, "
          f"candidates = RRF top {DEPTH} (legs of {POOL}, tenant + is_current filters); {os.cpu_count()} CPUs, "
          f"load average {load_before[0]:.1f} before / {os.getloadavg()[0]:.1f} after (other processes share "
          "these cores)\n")
    print(f"RERANKER = {models.RERANKER_SUMMARY}. The cosine baseline is the former stand-in (bi-encoder cosine "
          "of two all-MiniLM-L6-v2 embeddings).\n")
    print("| reranker over the RRF top 40 | NDCG@10 | R@5 | MRR | p50 ms | p95 ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for s in runs:
        ms = np.array(times[s]) * 1000
        print(f"| {s} | {means[s]['NDCG@10']:.3f} | {means[s]['R@5']:.3f} | {means[s]['MRR']:.3f} | "
              f"{np.percentile(ms, 50):.0f} | {np.percentile(ms, 95):.0f} |")
    cache = ("emptied before each (cold)" if args.cold else
             "kept across the run, so later queries reuse passages earlier ones scored (bench_models.py has cold "
             "and warm side by side)")
    print(f"\n{check}. Reranker latency: one PREDICTION statement over the 40 candidates, passage-state cache "
          f"{cache}.")

    intents = sorted({q["intent"] for q in golden})
    counts = {i: sum(q["intent"] == i for q in golden) for i in intents}
    print("\n| NDCG@10 by query kind | " + " | ".join(f"{i} ({counts[i]})" for i in intents) + " |")
    print("|---|" + "---:|" * len(intents))
    for s in runs:
        cells = [per_query[s]["NDCG@10"][[q["intent"] == i for q in golden]].mean() for i in intents]
        print(f"| {s} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")

    base = per_query["RRF top 40 (the input)"]["NDCG@10"]
    print(f"\n| NDCG@10 against RRF, per query | wins | ties | losses | mean difference | 95% CI (paired bootstrap, "
          f"{args.bootstrap}) |")
    print("|---|---:|---:|---:|---:|---|")
    for s in runs:
        if s == "RRF top 40 (the input)":
            continue
        diff = per_query[s]["NDCG@10"] - base
        lo, hi = bootstrap_ci(diff, args.bootstrap)
        print(f"| {s} | {int((diff > 1e-9).sum())} | {int((abs(diff) <= 1e-9).sum())} | {int((diff < -1e-9).sum())} "
              f"| {diff.mean():+.3f} | {lo:+.3f} to {hi:+.3f} |")

    vec = runs["vector search alone (reference)"]
    for s in rerankers:
        same = sum(runs[s][q][:10] == vec[q][:10] for q in vec)
        print(f"\n{s}: top 10 identical to vector search's on {same} of {len(vec)} queries", end="")
    titled, plain = (means[f"RERANKER (MaxSim), {p}"]["NDCG@10"] for p in ("title || '. ' || text", "text"))
    chosen = TITLED if titled > plain else TEXT
    print(f"\n\nChoice made on this golden set only: SECOND_INPUT = {chosen} "
          f"(NDCG@10 {max(titled, plain):.3f} against "
          f"{min(titled, plain):.3f}). No weight or variant was tuned on any other set. Median statement times: "
          + ", ".join(f"{s.split(',')[0]} {statistics.median(times[s]) * 1000:.0f} ms" for s in list(runs)[:3]))


if __name__ == "__main__":
    main()
