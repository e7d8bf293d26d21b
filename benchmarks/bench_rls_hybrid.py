"""Benchmark DBMS_HYBRID_VECTOR.SEARCH on a table under a row-level security policy: latency without a policy,
with the tenant policy (the engine filters the candidates by the session's SELECT policies before ranking),
and how many results belong to another tenant (must be 0).

Synthetic documents (30-60 words, a fixed seed) spread over three tenants; the embedding model is the
workshop's (all-MiniLM-L6-v2 on onnxruntime). The policy costs one `SELECT ROWID FROM table` through the
translator per search.

    .venv/bin/python benchmarks/bench_rls_hybrid.py [--sizes 300 1500] [--runs 10]
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workshop import models  # noqa: E402
from benchmarks.bench_hybrid import documents, timed  # noqa: E402 - the same corpus generator and timer
from workshop.embedded import connect  # noqa: E402

SEED = 20261202
MODEL = "ALL_MINILM_L6_V2"
TENANTS = ("acme", "globex", "initech")
SPEC = """CREATE OR REPLACE PACKAGE bench_pkg AS
  PROCEDURE set_tenant(p_tenant IN VARCHAR2);
  FUNCTION tenant_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
END bench_pkg;"""
BODY = """CREATE OR REPLACE PACKAGE BODY bench_pkg AS
  PROCEDURE set_tenant(p_tenant IN VARCHAR2) IS
  BEGIN
    DBMS_SESSION.SET_CONTEXT('bench_ctx', 'tenant_id', p_tenant);
  END set_tenant;
  FUNCTION tenant_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN 'tenant_id = SYS_CONTEXT(''bench_ctx'', ''tenant_id'')';
  END tenant_predicate;
END bench_pkg;"""


def build(path: Path, docs: list[str]) -> float:
    conn = connect(path, busy_timeout=30)
    cur = conn.cursor()
    blob = models.ensure_embedding_model().read_bytes()
    cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:n, :b, JSON(:m)); END;", n=MODEL, b=blob,
                m=json.dumps(models.embedding_metadata()))
    cur.execute("CREATE TABLE docs (id NUMBER PRIMARY KEY, tenant_id VARCHAR2(20), body CLOB)")
    cur.executemany("INSERT INTO docs VALUES (:1, :2, :3)",
                    [(i, TENANTS[i % 3], text) for i, text in enumerate(docs)])
    conn.commit()
    cur.execute("BEGIN DBMS_VECTOR_CHAIN.CREATE_PREFERENCE(pref_name => 'BENCH_PREF', pref_type => "
                "DBMS_VECTOR_CHAIN.VECTORIZER, params => JSON(:p)); END;",
                p=json.dumps({"model": MODEL, "by": "words", "max": 40, "overlap": 0, "split": "none"}))
    start = time.perf_counter()
    cur.execute("CREATE HYBRID VECTOR INDEX docs_hvi ON docs(body) PARAMETERS('VECTORIZER bench_pref')")
    seconds = time.perf_counter() - start
    cur.execute("CREATE OR REPLACE CONTEXT bench_ctx USING bench_pkg")
    cur.execute(SPEC)
    cur.execute(BODY)
    conn.close()
    return seconds


def search_fn(cur, spec: str):
    def run():
        cur.execute("SELECT DBMS_HYBRID_VECTOR.SEARCH(JSON(:s)) FROM dual", s=spec)
        value = cur.fetchone()[0]
        return json.loads(value.read() if hasattr(value, "read") else value)
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[300])
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    rng = random.Random(SEED)
    print(f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; model {MODEL}; runs {args.runs}")
    print("| documents | index build s | mode | no policy p50 / p95 ms | tenant policy p50 / p95 ms "
          "| foreign results (policy) |")
    print("|---|---|---|---|---|---|")
    for size in args.sizes:
        docs = documents(size, rng)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "bench.db"
            build_s = build(path, docs)
            conn = connect(path, busy_timeout=30)
            cur = conn.cursor()
            probe = " ".join(docs[0].split()[:6])
            for mode, spec in (("hybrid", {"search_text": probe}),
                               ("keyword", {"text": {"contains": "{" + docs[0].split()[0] + "}"}}),
                               ("semantic", {"vector": {"search_text": probe}})):
                spec = json.dumps({"hybrid_index_name": "docs_hvi", "return": {"topN": 20}, **spec})
                plain = timed(search_fn(cur, spec), args.runs)
                cur.execute("""BEGIN DBMS_RLS.ADD_POLICY(object_schema => USER, object_name => 'DOCS',
                    policy_name => 'BENCH_TENANT', function_schema => USER,
                    policy_function => 'BENCH_PKG.TENANT_PREDICATE', statement_types => 'SELECT'); END;""")
                cur.callproc("bench_pkg.set_tenant", ["acme"])
                run = search_fn(cur, spec)
                protected = timed(run, args.runs)
                cur.execute("SELECT ROWID FROM docs")
                acme = {str(r[0]) for r in cur.fetchall()}
                foreign = sum(1 for r in run() if r["rowid"] not in acme)
                cur.execute("BEGIN DBMS_RLS.DROP_POLICY(USER, 'DOCS', 'BENCH_TENANT'); END;")
                print(f"| {size} | {build_s:.1f} | {mode} | {plain[0]:.1f} / {plain[1]:.1f} "
                      f"| {protected[0]:.1f} / {protected[1]:.1f} | {foreign} |")
            conn.close()


if __name__ == "__main__":
    main()
