"""In-database embedding through SQL versus the model's own batched throughput, side by side.

Run: python benchmarks/bench_embedding_sql.py [--rows 1000] [--repeats 3]
Texts are the authored research chunks (60-180 words), cycled to --rows. Each repeat times, in turn:
the runtime's batched embed() on the texts; executemany INSERT ... VALUES (..., VECTOR_EMBEDDING(
model USING :text AS data)); INSERT ... SELECT ... VECTOR_EMBEDDING(model USING text AS data) from a
staging table. The table prints medians and the SQL/model throughput ratio.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from workshop import models  # noqa: E402
from workshop.data import load_chunks  # noqa: E402
from workshop.embedded import connect  # noqa: E402

MODEL = "ALL_MINILM_L6_V2"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    chunks = [c["text"] for c in load_chunks()]
    texts = [f"{chunks[i % len(chunks)]} (copy {i // len(chunks)})" for i in range(args.rows)]
    with tempfile.TemporaryDirectory() as tmp:
        conn = connect(Path(tmp) / "bench.db")
        cur = conn.cursor()
        cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:n, :b, NULL); END;", n=MODEL,
                    b=models.ensure_embedding_model().read_bytes())
        runtime = conn._engine.models.load(MODEL)
        runtime.embed(texts[:8])  # warm the batched path once
        cur.execute("CREATE TABLE staging (id NUMBER PRIMARY KEY, text CLOB)")
        cur.executemany("INSERT INTO staging VALUES (:1, :2)", list(enumerate(texts)))
        conn.commit()
        timings: dict[str, list[float]] = {"model": [], "executemany": [], "insert_select": []}
        for repeat in range(args.repeats):
            t0 = time.perf_counter()
            runtime.embed(texts)
            timings["model"].append(time.perf_counter() - t0)

            cur.execute(f"CREATE TABLE vm{repeat} (id NUMBER PRIMARY KEY, emb VECTOR(384, FLOAT32))")
            t0 = time.perf_counter()
            cur.executemany(f"INSERT INTO vm{repeat} VALUES (:1, VECTOR_EMBEDDING({MODEL} USING :2 AS data))",
                            list(enumerate(texts)))
            conn.commit()
            timings["executemany"].append(time.perf_counter() - t0)

            cur.execute(f"CREATE TABLE vs{repeat} (id NUMBER PRIMARY KEY, emb VECTOR(384, FLOAT32))")
            t0 = time.perf_counter()
            cur.execute(f"INSERT INTO vs{repeat} SELECT id, VECTOR_EMBEDDING({MODEL} USING text AS data) "
                        f"FROM staging")
            conn.commit()
            timings["insert_select"].append(time.perf_counter() - t0)
        conn.close()
    model_rate = args.rows / statistics.median(timings["model"])
    print(f"Embedded engine, {MODEL} (all-MiniLM-L6-v2, onnxruntime), {args.rows} research-chunk passages, "
          f"median of {args.repeats}")
    print("| path | seconds | passages/s | share of the model's batch throughput |")
    print("|---|---:|---:|---:|")
    for name, label in (("model", "model.embed() batched (reference)"),
                        ("executemany", "executemany INSERT ... VECTOR_EMBEDDING(:text)"),
                        ("insert_select", "INSERT ... SELECT VECTOR_EMBEDDING(text) FROM staging")):
        seconds = statistics.median(timings[name])
        rate = args.rows / seconds
        print(f"| {label} | {seconds:.2f} | {rate:.0f} | {rate / model_rate:.0%} |")


if __name__ == "__main__":
    main()
