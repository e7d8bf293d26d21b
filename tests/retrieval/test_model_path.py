"""The text + model path (VECTOR_EMBEDDING in the SQL) gives what the query-vector path gives.

Uses the workshop's in-database embedding model (built once and cached by workshop.models)."""
from __future__ import annotations

import json

import pytest

from tests.retrieval.conftest import DOCS
from workshop import models
from workshop.embedded import connect
from workshop.retrieval import hybrid_postfilter, hybrid_prefilter, hybrid_rrf, vector_search

MODEL = "ALL_MINILM_L6_V2"
QUESTION = "How do I fix ORA-51962 when the vector memory pool is empty?"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model_conn(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("model") / "model.db", busy_timeout=2)
    cur = conn.cursor()
    cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :blob, JSON(:meta)); END;", name=MODEL,
                blob=models.ensure_embedding_model().read_bytes(), meta=json.dumps(models.embedding_metadata()))
    cur.execute("CREATE TABLE docs384 (id NUMBER PRIMARY KEY, tenant VARCHAR2(20), body CLOB, "
                "embedding VECTOR(384, FLOAT32))")
    cur.executemany(f"INSERT INTO docs384 VALUES (:1, :2, :3, VECTOR_EMBEDDING({MODEL} USING :4 AS data))",
                    [(i, tenant, body, body) for i, tenant, _, body, _ in DOCS])
    conn.commit()
    cur.execute("CREATE INDEX docs384_ctx ON docs384 (body) INDEXTYPE IS CTXSYS.CONTEXT "
                "PARAMETERS ('SYNC (ON COMMIT)')")
    cur.execute(f"SELECT VECTOR_EMBEDDING({MODEL} USING :q AS data) FROM dual", q=QUESTION)
    query_vector = cur.fetchone()[0]
    yield conn, query_vector
    conn.close()


def test_text_query_equals_vector_query(model_conn):
    conn, query_vector = model_conn
    by_text = vector_search(conn, "docs384", "embedding", QUESTION, 5, model=MODEL)
    by_vector = vector_search(conn, "docs384", "embedding", query_vector, 5)
    assert "VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING :query_text AS data)" in by_text.attrs["sql"]
    assert list(by_text["id"]) == list(by_vector["id"])
    assert by_text["id"].iloc[0] == 2                      # the ORA-51962 runbook is the nearest
    assert list(by_text["distance"]) == pytest.approx(list(by_vector["distance"]), abs=1e-5)


@pytest.mark.parametrize("helper", [hybrid_prefilter, hybrid_postfilter, hybrid_rrf])
def test_hybrid_text_query_equals_vector_query(model_conn, helper):
    conn, query_vector = model_conn
    by_text = helper(conn, "docs384", "body", "embedding", QUESTION, 5, model=MODEL)
    by_vector = helper(conn, "docs384", "body", "embedding", QUESTION, 5, query_vector=query_vector)
    assert ":query_text" in by_text.attrs["sql"] and ":query_vector" in by_vector.attrs["sql"]
    assert not by_text.empty
    assert list(by_text["id"]) == list(by_vector["id"])
