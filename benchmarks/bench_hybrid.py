"""Benchmark the embedded engine's hybrid vector index: CREATE HYBRID VECTOR INDEX build time and
DBMS_HYBRID_VECTOR.SEARCH latency per search mode, beside the plain VECTOR_EMBEDDING + ORDER BY
query over a stored embedding column on the same rows.

Synthetic documents (30-60 words) are drawn with a fixed seed from a Zipf-distributed list of
generated words; the embedding model is the workshop's (all-MiniLM-L6-v2 on onnxruntime). Build time
is dominated by the model (one embedding per chunk); search time by the query embedding and the
scan of the chunk matrix.

    .venv/bin/python benchmarks/bench_hybrid.py [--sizes 200 1000] [--runs 15]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import oracledb  # noqa: E402

from workshop import models  # noqa: E402
from workshop.embedded import connect  # noqa: E402

SEED = 20261201
MODEL = "ALL_MINILM_L6_V2"


def documents(n: int, rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(3, 9))) for _ in range(3000)})
    weights = [1.0 / (rank + 1) ** 1.05 for rank in range(len(vocab))]
    return [" ".join(rng.choices(vocab, weights=weights, k=rng.randint(30, 60))) + "." for _ in range(n)]


def timed(fn, runs: int) -> tuple[float, float]:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]


def run(size: int, runs: int, model_bytes: bytes) -> list[tuple]:
    rng = random.Random(SEED)
    docs = documents(size, rng)
    queries = [" ".join(rng.sample(d.rstrip(".").split(), 3)) for d in rng.sample(docs, 5)]
    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(Path(tmp) / "bench.db")
        cur = conn.cursor()
        cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:n, :b, JSON(:m)); END;", n=MODEL, b=model_bytes,
                    m=json.dumps(models.embedding_metadata()))
        cur.execute("CREATE TABLE docs (id NUMBER PRIMARY KEY, body CLOB, embedding VECTOR(384, FLOAT32))")
        cur.executemany("INSERT INTO docs (id, body) VALUES (:1, :2)", list(enumerate(docs)))
        conn.commit()
        start = time.perf_counter()
        cur.execute("UPDATE docs SET embedding = VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING body AS data)")
        conn.commit()
        embed_s = time.perf_counter() - start
        start = time.perf_counter()
        cur.execute("CREATE HYBRID VECTOR INDEX docs_hvi ON docs(body) PARAMETERS ('MODEL ALL_MINILM_L6_V2')")
        build_s = time.perf_counter() - start
        rows = [("build", size, f"{build_s:.1f} s (column UPDATE: {embed_s:.1f} s)")]

        def search(spec):
            def go():
                for q in queries:
                    cur.setinputsizes(s=oracledb.DB_TYPE_JSON)
                    cur.execute("SELECT DBMS_HYBRID_VECTOR.SEARCH(JSON(:s))", s={**spec(q), "return": {"topN": 4}})
                    cur.fetchone()[0].read()
            return go

        def plain_vector():
            for q in queries:
                cur.execute("SELECT id FROM docs ORDER BY VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING("
                            "ALL_MINILM_L6_V2 USING :q AS data), COSINE), id FETCH FIRST 4 ROWS ONLY", q=q)
                cur.fetchall()

        cases = [
            ("SEARCH semantic", search(lambda q: {"hybrid_index_name": "DOCS_HVI", "vector": {"search_text": q}})),
            ("SEARCH keyword", search(lambda q: {"hybrid_index_name": "DOCS_HVI", "text": {"search_text": q}})),
            ("SEARCH hybrid", search(lambda q: {"hybrid_index_name": "DOCS_HVI", "vector": {"search_text": q},
                                                "text": {"search_text": q}})),
            ("SQL vector top-4", plain_vector),
        ]
        for name, fn in cases:
            fn()
            median, p95 = timed(fn, runs)
            rows.append((name, size, f"{median / len(queries):.1f} ms median, {p95 / len(queries):.1f} ms p95 "
                                     f"per query"))
        conn.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 1000])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    model_bytes = models.ensure_embedding_model().read_bytes()
    print(f"embedded engine, model {MODEL} (onnxruntime), {os.cpu_count()} CPUs; load average "
          f"{os.getloadavg()[0]:.2f} at start (other processes share this machine)")
    print(f"{'case':<20} {'docs':>6}  result")
    for size in args.sizes:
        for name, n, text in run(size, args.runs, model_bytes):
            print(f"{name:<20} {n:>6}  {text}")
    print(f"load average {os.getloadavg()[0]:.2f} at end")


if __name__ == "__main__":
    main()
