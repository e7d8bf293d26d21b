"""In-database models through SQL: loading, the dictionary, VECTOR_EMBEDDING, PREDICTION,
batching per statement, DBMS_VECTOR_CHAIN helpers and OracleEmbeddings (database provider)."""
import json
import shutil

import numpy as np
import oracledb
import pytest

from tests.conftest import ora_code
from workshop import models

EMBED = "ALL_MINILM_L6_V2"


@pytest.fixture(scope="module")
def model_files():
    return models.ensure_embedding_model(), models.ensure_reranker_model()


@pytest.fixture
def loaded(cur, model_files):
    embed_path, rerank_path = model_files
    cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :blob, JSON(:meta)); END;",
                name=EMBED, blob=embed_path.read_bytes(), meta=json.dumps(models.embedding_metadata()))
    cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(model_name => 'RERANKER', model_data => :blob, "
                "metadata => JSON(:meta)); END;", blob=rerank_path.read_bytes(),
                meta=json.dumps(models.reranker_metadata()))
    return cur


def test_dictionary_and_reload_errors(loaded, model_files):
    loaded.execute("SELECT model_name, mining_function, algorithm FROM user_mining_models ORDER BY model_name")
    assert loaded.fetchall() == [(EMBED, "EMBEDDING", "ONNX"), ("RERANKER", "REGRESSION", "ONNX")]
    with pytest.raises(oracledb.DatabaseError):
        loaded.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:n, :b, NULL); END;", n=EMBED, b=model_files[0].read_bytes())
    loaded.execute("BEGIN DBMS_VECTOR.DROP_ONNX_MODEL(model_name => 'RERANKER', force => TRUE); END;")
    loaded.execute("SELECT COUNT(*) FROM user_mining_models")
    assert loaded.fetchone() == (1,)
    with pytest.raises(oracledb.DatabaseError) as exc:
        loaded.execute("SELECT PREDICTION(RERANKER USING 'q' AS FIRST_INPUT, 'd' AS SECOND_INPUT) FROM dual")
    assert ora_code(exc) == 40284


def test_directory_overload(cur, model_files, tmp_path):
    shutil.copy(model_files[0], tmp_path / "minilm.onnx")
    cur.execute(f"CREATE OR REPLACE DIRECTORY MODEL_DIR AS '{tmp_path}'")
    cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL('MODEL_DIR', 'minilm.onnx', 'DOC_MODEL', "
                "JSON('{\"function\":\"embedding\",\"embeddingOutput\":\"embedding\",\"input\":{\"input\":[\"DATA\"]}}')); END;")
    cur.execute("SELECT VECTOR_DIMENSION_COUNT(VECTOR_EMBEDDING(DOC_MODEL USING 'hello' AS data)) FROM dual")
    assert cur.fetchone() == (384,)
    with pytest.raises(oracledb.DatabaseError):
        cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL('MODEL_DIR', 'missing.onnx', 'X', NULL); END;")


def test_vector_embedding_equals_the_runtime(loaded, model_files):
    texts = ["Café crème brûlée", "hybrid search with reciprocal rank fusion", ""]
    runtime = models.load_model(EMBED, model_files[0].read_bytes(), None)
    expected = runtime.embed(texts[:2])
    for text, want in zip(texts, expected):
        loaded.execute("SELECT VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING :t AS data) FROM dual", t=text)
        np.testing.assert_allclose(np.array(loaded.fetchone()[0]), want, atol=1e-6)
    loaded.execute("SELECT VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING :t AS data) FROM dual", t=None)
    assert loaded.fetchone() == (None,)


def test_embedding_in_insert_update_where_order(loaded, conn):
    loaded.execute("CREATE TABLE docs (id NUMBER PRIMARY KEY, body VARCHAR2(400), emb VECTOR(384, FLOAT32))")
    bodies = ["Oracle Text keyword search with CONTAINS", "vector similarity search with HNSW",
              "agents remember past conversations", "reciprocal rank fusion combines rankings"]
    loaded.executemany("INSERT INTO docs (id, body, emb) VALUES (:id, :body, VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING :body AS data))",
                       [{"id": i, "body": b} for i, b in enumerate(bodies)])
    loaded.execute("CREATE TABLE docs2 AS SELECT * FROM docs") if False else None
    loaded.execute("UPDATE docs SET emb = VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING body AS data) WHERE id = 0")
    loaded.execute("""SELECT id FROM docs ORDER BY VECTOR_DISTANCE(emb,
                        VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING :q AS data), COSINE) FETCH FIRST 1 ROWS ONLY""",
                   q="how does an assistant keep memory of earlier chats?")
    assert loaded.fetchone() == (2,)
    loaded.execute("""SELECT COUNT(*) FROM docs WHERE VECTOR_DISTANCE(emb,
                        VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING body AS data), COSINE) < 1e-6""")
    assert loaded.fetchone() == (4,)


def test_statement_batches_model_calls(loaded, monkeypatch):
    loaded.execute("CREATE TABLE src (id NUMBER PRIMARY KEY, body VARCHAR2(200))")
    loaded.executemany("INSERT INTO src VALUES (:1, :2)", [(i, f"passage number {i} about retrieval") for i in range(60)])
    loaded.execute("CREATE TABLE dst (id NUMBER PRIMARY KEY, emb VECTOR(384, FLOAT32))")
    calls = []
    original = models.LoadedModel.embed_rows

    def counting(self, inputs, **kwargs):
        calls.append(len(next(iter(inputs.values()))))
        return original(self, inputs, **kwargs)
    monkeypatch.setattr(models.LoadedModel, "embed_rows", counting)
    loaded.execute("INSERT INTO dst SELECT id, VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING body AS data) FROM src")
    assert loaded.rowcount == 60 and calls == [60]
    calls.clear()
    loaded.executemany("UPDATE dst SET emb = VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING :t AS data) WHERE id = :i",
                       [{"t": f"new text {i}", "i": i} for i in range(20)])
    assert calls == [20]


def test_prediction_reranks_and_is_labelled_stand_in(loaded):
    query = "how do I fix an empty vector memory pool"
    docs = ["Set vector_memory_size and restart to fix ORA-51962 (the vector pool is empty).",
            "Reciprocal rank fusion adds 1/(k + rank) across rankings.",
            "Property graphs connect papers through shared authors."]
    loaded.execute("CREATE TABLE cand (id NUMBER, body VARCHAR2(200))")
    loaded.executemany("INSERT INTO cand VALUES (:1, :2)", list(enumerate(docs)))
    loaded.execute("""SELECT id, PREDICTION(RERANKER USING :q AS FIRST_INPUT, body AS SECOND_INPUT) score
                      FROM cand ORDER BY score DESC""", q=query)
    rows = loaded.fetchall()
    assert rows[0][0] == 0 and all(isinstance(s, float) for _, s in rows)
    loaded.execute("SELECT PREDICTION(RERANKER USING :q AS DATA1, 'x' AS DATA2) FROM dual", q=query)
    assert isinstance(loaded.fetchone()[0], float)
    assert models.describe_reranker()["is_stand_in"] is True
    with pytest.raises(oracledb.DatabaseError) as exc:
        loaded.execute("SELECT VECTOR_EMBEDDING(RERANKER USING 'x' AS data) FROM dual")
    assert ora_code(exc) == 40215


def test_chain_helpers_and_oracle_embeddings(loaded, conn):
    loaded.execute("""SELECT JSON_VALUE(c.column_value, '$.chunk_data') FROM
                      DBMS_VECTOR_CHAIN.UTL_TO_CHUNKS(:doc, JSON('{"by":"words","max":4,"overlap":1}')) c""",
                   doc="one two three four five six seven")
    assert [r[0] for r in loaded.fetchall()] == ["one two three four", "four five six seven"]
    from langchain_oracledb import OracleEmbeddings, OracleVS
    from langchain_oracledb.vectorstores.utils import DistanceStrategy
    embedder = OracleEmbeddings(conn=conn, params={"provider": "database", "model": EMBED})
    vector = embedder.embed_query("hello world")
    loaded.execute("SELECT VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING 'hello world' AS data) FROM dual")
    np.testing.assert_allclose(vector, np.array(loaded.fetchone()[0]), atol=1e-6)
    oracledb.defaults.fetch_lobs = True   # OracleEmbeddings switches it off globally; restore for other tests
    store = OracleVS(conn, embedder, "DB_EMB", DistanceStrategy.COSINE)
    store.add_texts(["the vector pool is empty", "graphs of authors"], ids=["a", "b"])
    assert store.similarity_search("vector memory pool", k=1)[0].page_content == "the vector pool is empty"
    oracledb.defaults.fetch_lobs = True
