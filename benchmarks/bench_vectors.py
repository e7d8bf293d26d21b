"""Vector top-k latency and insert throughput of the embedded engine, beside raw numpy.

Run: python benchmarks/bench_vectors.py [--sizes 1000 10000 100000] [--queries 50]
Prints one table; every ratio is measured side by side in the same run on the same matrix.
"""
from __future__ import annotations

import argparse
import array
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workshop.embedded import connect  # noqa: E402

DIM = 384
TOPK_SQL = ("SELECT id FROM bench ORDER BY VECTOR_DISTANCE(emb, :q, COSINE) "
            "FETCH APPROX FIRST 10 ROWS ONLY")


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def numpy_topk(matrix: np.ndarray, norms: np.ndarray, q: np.ndarray, k: int = 10) -> np.ndarray:
    distances = 1.0 - (matrix @ q) / (norms * np.linalg.norm(q))
    part = np.argpartition(distances, k)[:k]
    return part[np.argsort(distances[part])]


def run(size: int, queries: int, workdir: Path) -> dict:
    rng = np.random.default_rng(size)
    data = rng.normal(size=(size, DIM)).astype(np.float32)
    conn = connect(workdir / f"bench_{size}.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE bench (id NUMBER PRIMARY KEY, emb VECTOR(384, FLOAT32))")
    rows = [(i, array.array("f", data[i])) for i in range(size)]
    started = time.perf_counter()
    for start in range(0, size, 1000):
        cur.executemany("INSERT INTO bench (id, emb) VALUES (:1, :2)", rows[start:start + 1000])
    conn.commit()
    insert_rate = size / (time.perf_counter() - started)
    cur.execute("CREATE VECTOR INDEX bench_hnsw ON bench (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH "
                "DISTANCE COSINE WITH TARGET ACCURACY 95")
    probes = rng.normal(size=(queries + 1, DIM)).astype(np.float32)
    cur.execute(TOPK_SQL, q=array.array("f", probes[0]))  # warm: loads the cached matrix once
    engine_ms, numpy_ms, agree = [], [], 0
    norms = np.linalg.norm(data, axis=1)
    for q in probes[1:]:
        t0 = time.perf_counter()
        cur.execute(TOPK_SQL, q=array.array("f", q))
        got = [r[0] for r in cur.fetchall()]
        t1 = time.perf_counter()
        expected = numpy_topk(data, norms, q)
        t2 = time.perf_counter()
        engine_ms.append((t1 - t0) * 1000)
        numpy_ms.append((t2 - t1) * 1000)
        agree += got == expected.tolist()
    conn.close()
    return {
        "rows": size, "insert_per_s": insert_rate,
        "engine_p50": statistics.median(engine_ms), "engine_p95": percentile(engine_ms, 95),
        "numpy_p50": statistics.median(numpy_ms), "numpy_p95": percentile(numpy_ms, 95),
        "exact": f"{agree}/{queries}",
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        results = [run(size, args.queries, Path(tmp)) for size in args.sizes]
    print(f"Embedded engine, {DIM}-d FLOAT32 vectors, top-10 COSINE, {args.queries} queries per size")
    print("| rows | insert vectors/s (executemany) | engine p50 ms | engine p95 ms | numpy p50 ms | numpy p95 ms "
          "| p50 ratio | same top-10 as numpy |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['rows']:,} | {r['insert_per_s']:,.0f} | {r['engine_p50']:.2f} | {r['engine_p95']:.2f} | "
              f"{r['numpy_p50']:.2f} | {r['numpy_p95']:.2f} | {r['engine_p50'] / r['numpy_p50']:.2f}x | {r['exact']} |")


if __name__ == "__main__":
    main()
