"""Benchmark the in-database models on this machine: embedding throughput and reranking latency.

Texts are drawn with a fixed seed from the whole words of all-MiniLM-L6-v2's vocab.txt (about one
token per word): "short" = 8-30 words, "passage" = 80-120 words. Embedding: sentences/s for one
model call per text (the shape of Oracle's VECTOR_EMBEDDING) and for the runtime's batched fast
path; median of `--repeats` interleaved runs. Reranking: per query, 40 candidate passages (40-120 words),
p50/p95 over `--queries` queries, for the stand-in RERANKER (one PREDICTION call per pair, and
batched) beside plain cosine in numpy over vectors from the embedding model (candidates embedded per
query, or their vectors already stored as in a vector table).

    .venv/bin/python benchmarks/bench_models.py [--repeats 5] [--queries 20]
"""
from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402
import onnxruntime as ort  # noqa: E402

from workshop.models import (ensure_embedding_model, ensure_reranker_model, load_model,  # noqa: E402
                             reranker_metadata)
from workshop.models.embedding_model import minilm_folder  # noqa: E402
from workshop.models.runtime import THREADS_ENV  # noqa: E402

SEED = 20261130
CANDIDATES = 40


def word_list() -> list[str]:
    vocab = (minilm_folder() / "vocab.txt").read_text(encoding="utf-8").splitlines()
    return [w for w in vocab if w.isalpha() and w.isascii() and len(w) > 2]


def texts(rng: random.Random, words: list[str], n: int, lo: int, hi: int) -> list[str]:
    return [" ".join(rng.choices(words, k=rng.randint(lo, hi))) + "." for _ in range(n)]


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def interleaved(fns: dict, repeats: int) -> dict[str, list[float]]:
    """Run the variants in turn, `repeats` rounds, so a burst of load from other processes hits all alike."""
    for fn in fns.values():
        fn()  # warm-up (also builds the fast-path sessions)
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for k, fn in fns.items():
            times[k].append(timed(fn))
    return times


def percentiles(samples: list[float]) -> tuple[float, float]:
    ms = np.array(samples) * 1000
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queries", type=int, default=20)
    parser.add_argument("--short", type=int, default=256, help="number of short sentences")
    parser.add_argument("--passages", type=int, default=64, help="number of ~100-word passages")
    args = parser.parse_args()

    rng = random.Random(SEED)
    words = word_list()
    short = texts(rng, words, args.short, 8, 30)
    passages = texts(rng, words, args.passages, 80, 120)

    t0 = time.perf_counter()
    embedder = load_model("ALL_MINILM_L6_V2", ensure_embedding_model().read_bytes(), None)
    reranker = load_model("RERANKER", ensure_reranker_model().read_bytes(), reranker_metadata())
    setup = time.perf_counter() - t0

    print(f"# bench_models: onnxruntime {ort.__version__}, {os.cpu_count()} CPUs, "
          f"{THREADS_ENV}={os.environ.get(THREADS_ENV, '2')}, model files cached+loaded in {setup:.1f} s, "
          f"load average before {os.getloadavg()[0]:.1f}\n")
    print("| embedding (all-MiniLM-L6-v2) | texts | one call per text (sent/s) | batched fast path (sent/s) |")
    print("|---|---:|---:|---:|")
    for label, corpus in (("short, 8-30 words", short), ("passage, 80-120 words", passages)):
        times = interleaved({"single": lambda c=corpus: embedder.embed(c, batched=False),
                             "batched": lambda c=corpus: embedder.embed(c, batched=True)}, args.repeats)
        single, batched = (len(corpus) / statistics.median(times[k]) for k in ("single", "batched"))
        print(f"| {label} | {len(corpus)} | {single:.0f} | {batched:.0f} |")

    queries = texts(rng, words, args.queries, 6, 14)
    candidate_sets = [texts(rng, words, CANDIDATES, 40, 120) for _ in queries]
    stored = [embedder.embed(c) for c in candidate_sets]  # vectors as a table would hold them
    paths = {
        "RERANKER stand-in, one PREDICTION call per pair": lambda q, c, v: reranker.predict(
            {"FIRST_INPUT": [q] * len(c), "SECOND_INPUT": c}, batched=False),
        "RERANKER stand-in, batched fast path": lambda q, c, v: reranker.predict(
            {"FIRST_INPUT": [q] * len(c), "SECOND_INPUT": c}, batched=True),
        "numpy cosine, query + 40 candidates embedded (batched)": lambda q, c, v: (
            lambda m: m[1:] @ m[0])(embedder.embed([q] + c)),
        "numpy cosine, stored candidate vectors (query embedded)": lambda q, c, v: v @ embedder.embed([q])[0],
    }
    print(f"\n| reranking {CANDIDATES} candidates (40-120 words), {len(queries)} queries | p50 ms | p95 ms | pairs/s (p50) |")
    print("|---|---:|---:|---:|")
    samples: dict[str, list[float]] = {label: [] for label in paths}
    for fn in paths.values():
        fn(queries[0], candidate_sets[0], stored[0])  # warm-up
    for q, c, v in zip(queries, candidate_sets, stored):
        for label, fn in paths.items():
            samples[label].append(timed(functools.partial(fn, q, c, v)))
    for label in paths:
        p50, p95 = percentiles(samples[label])
        print(f"| {label} | {p50:.0f} | {p95:.0f} | {CANDIDATES / p50 * 1000:.0f} |")
    print(f"\nReranker: {reranker.card.label}. Load average after: {os.getloadavg()[0]:.1f} "
          "(other processes on these cores slow every row).")


if __name__ == "__main__":
    main()
