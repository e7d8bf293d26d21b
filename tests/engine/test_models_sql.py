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
    with pytest.raises(oracledb.DatabaseError) as exc:
        loaded.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:n, :b, NULL); END;", n=EMBED, b=model_files[0].read_bytes())
    assert ora_code(exc) == 40204           # "model string already exists" (40289 is duplicate USING attributes)
    for bad in ("1BAD", "A" * 124):         # LOAD_ONNX_MODEL usage notes: 123 characters, starting with a letter
        with pytest.raises(oracledb.DatabaseError) as exc:
            loaded.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:n, :b, NULL); END;", n=bad, b=b"x")
        assert ora_code(exc) == 40281       # "invalid model name" (40290 is a model/function mismatch)
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


def test_prediction_reranks_with_the_late_interaction_reranker(loaded):
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
    assert models.describe_reranker()["kind"] == "late-interaction-maxsim"
    with pytest.raises(oracledb.DatabaseError) as exc:
        loaded.execute("SELECT VECTOR_EMBEDDING(RERANKER USING 'x' AS data) FROM dual")
    assert ora_code(exc) == 40215


def _rerank(cur, query):
    cur.execute("""SELECT id, PREDICTION(RERANKER USING :q AS FIRST_INPUT, title || '. ' || body AS SECOND_INPUT)
                   FROM cand ORDER BY id""", q=query)
    return cur.fetchall()


def test_one_prediction_statement_scores_every_candidate_and_reuses_passage_states(loaded, model_files, monkeypatch):
    rows = [(i, f"Title {i % 3}", f"passage {i} about vector memory, reranking and agents") for i in range(40)]
    loaded.execute("CREATE TABLE cand (id NUMBER, title VARCHAR2(40), body VARCHAR2(200))")
    loaded.executemany("INSERT INTO cand VALUES (:1, :2, :3)", rows)
    calls = []
    original = models.LoadedModel.predict

    def counting(self, inputs, **kwargs):
        hits = self.state_cache.stats()["hits"]
        result = original(self, inputs, **kwargs)
        calls.append((len(inputs["FIRST_INPUT"]), self.state_cache.stats()["hits"] - hits))
        return result
    monkeypatch.setattr(models.LoadedModel, "predict", counting)
    first = _rerank(loaded, "size of the vector memory pool")
    second = _rerank(loaded, "how agents rerank")
    assert [n for n, _ in calls] == [40, 40]                 # one model call per statement
    assert calls[0][1] == 0 and calls[1][1] == 40            # the second statement read every passage from cache
    runtime = models.load_model("R", model_files[1].read_bytes(), models.reranker_metadata())
    for query, got in (("size of the vector memory pool", first), ("how agents rerank", second)):
        want = runtime.predict({"FIRST_INPUT": [query] * 40, "SECOND_INPUT": [f"{t}. {b}" for _, t, b in rows]},
                               batched=False)
        assert np.abs(np.array([s for _, s in got]) - want).max() < 1e-6


def test_rerank_on_title_and_text_from_a_join(loaded, model_files):
    """The seed's stage-5 shape: PREDICTION over d.title || '. ' || c.text of joined rows, ordered by the score."""
    loaded.execute("CREATE TABLE docs_t (doc_id VARCHAR2(10), title VARCHAR2(100))")
    loaded.execute("CREATE TABLE chunks_t (chunk_id VARCHAR2(10), doc_id VARCHAR2(10), text VARCHAR2(400))")
    loaded.executemany("INSERT INTO docs_t VALUES (:1, :2)", [("D1", "Vector memory pool"), ("D2", "Graph queries")])
    loaded.executemany("INSERT INTO chunks_t VALUES (:1, :2, :3)", [
        ("C1", "D1", "Set the size and restart the instance."),
        ("C2", "D2", "Set the size and restart the instance."),
        ("C3", "D2", "GRAPH_TABLE matches paths between vertices.")])
    loaded.execute("""SELECT c.chunk_id,
                             PREDICTION(RERANKER USING :q AS FIRST_INPUT, d.title || '. ' || c.text AS SECOND_INPUT)
                               AS rerank_score
                      FROM chunks_t c JOIN docs_t d ON d.doc_id = c.doc_id
                      ORDER BY rerank_score DESC, c.chunk_id""", q="how big should the vector memory pool be")
    rows = loaded.fetchall()
    assert rows[0][0] == "C1"      # same text as C2: only the title tells them apart
    runtime = models.load_model("R", model_files[1].read_bytes(), models.reranker_metadata())
    want = runtime.predict({"FIRST_INPUT": ["how big should the vector memory pool be"],
                            "SECOND_INPUT": ["Vector memory pool. Set the size and restart the instance."]},
                           batched=False)[0]
    assert abs(rows[0][1] - want) < 1e-6


def test_dropping_the_model_drops_its_cached_states(loaded, model_files):
    from workshop.embedded import model_support
    loaded.execute("CREATE TABLE cand (id NUMBER, title VARCHAR2(40), body VARCHAR2(200))")
    loaded.execute("INSERT INTO cand VALUES (1, 'T', 'cached passage')")
    _rerank(loaded, "q")
    cached = [m for m in model_support._LOADED.values() if getattr(m, "name", None) == "RERANKER"]
    assert cached and any(len(m.state_cache) for m in cached)
    loaded.execute("BEGIN DBMS_VECTOR.DROP_ONNX_MODEL(model_name => 'RERANKER'); END;")
    assert all(len(m.state_cache) == 0 for m in cached)
    assert not [m for m in model_support._LOADED.values() if m in cached]


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


# --------------------------------------------------------------------------- USING names (issue 20, H4)
@pytest.fixture(scope="module")
def names_db(tmp_path_factory, model_files):
    """One database with both models loaded, shared by the USING-name cases (they only read)."""
    from workshop.embedded import connect
    conn = connect(tmp_path_factory.mktemp("using-names") / "names.db")
    with conn.cursor() as c:
        c.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :blob, JSON(:meta)); END;", name=EMBED,
                  blob=model_files[0].read_bytes(), meta=json.dumps(models.embedding_metadata()))
        for name, meta in (("RERANKER", models.reranker_metadata()), ("RR12", models.RERANKER_METADATA_DATA12)):
            c.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :blob, JSON(:meta)); END;", name=name,
                      blob=model_files[1].read_bytes(), meta=json.dumps(meta))
    yield conn
    conn.close()


@pytest.fixture
def named(names_db):
    with names_db.cursor() as c:
        yield c


@pytest.mark.parametrize("using, outcome", [
    (":q AS FIRST_INPUT, 'x' AS SECOND_INPUT", "score"),
    ("'x' AS SECOND_INPUT, :q AS FIRST_INPUT", "same-score"),             # matched by name, not by position
    (":q AS first_input, 'x' AS second_input", "score"),                  # unquoted names fold to upper case
    (":q AS FIRST_INPUT, 'x' AS SECOND_INPUT, 'y' AS EXTRA", "score"),    # extra predictors silently ignored
    (":q AS DATA1, 'x' AS DATA2", 40105),                                  # the names the model was NOT loaded with
    (":q AS DATA, 'x' AS SECOND_INPUT", 40105),
    (":q AS FIRST_INPUT", 40105),                                          # an attribute missing
    (":q AS DATA1, 'x' AS SECOND_INPUT", 40105),
], ids=["names", "swapped-order", "lower-case", "extra", "data1-data2", "data-second", "one-missing",
        "half-alias"])
def test_prediction_accepts_only_the_models_attribute_names(named, using, outcome):
    query = "vector memory pool"
    if isinstance(outcome, int):
        with pytest.raises(oracledb.DatabaseError) as exc:
            named.execute(f"SELECT PREDICTION(RERANKER USING {using}) FROM dual", q=query)
        assert ora_code(exc) == outcome
        assert "FIRST_INPUT" in str(exc.value) and "verify_oracle" in str(exc.value)
        return
    named.execute(f"SELECT PREDICTION(RERANKER USING {using}) FROM dual", q=query)
    score = named.fetchone()[0]
    named.execute("SELECT PREDICTION(RERANKER USING :q AS FIRST_INPUT, 'x' AS SECOND_INPUT) FROM dual", q=query)
    assert isinstance(score, float) and score == pytest.approx(named.fetchone()[0], abs=1e-9)


def test_a_refused_name_is_refused_even_when_every_input_is_null(named):
    with pytest.raises(oracledb.DatabaseError) as exc:
        named.execute("SELECT PREDICTION(RERANKER USING NULL AS DATA1, NULL AS DATA2) FROM dual")
    assert ora_code(exc) == 40105


@pytest.mark.parametrize("using, outcome", [
    ("'x' AS data", "vector"), ("'x' AS DATA", "vector"), ("'x' AS data, 'y' AS extra", "vector"),
    ("'x' AS text", 40105), ("'x' AS input", 40105),
    ("'x'", 40105),                       # no AS: an expression names no attribute (it used to default to DATA)
], ids=["data", "upper", "extra", "text", "input", "no-alias"])
def test_vector_embedding_accepts_only_the_models_attribute_name(named, using, outcome):
    if isinstance(outcome, int):
        with pytest.raises(oracledb.DatabaseError) as exc:
            named.execute(f"SELECT VECTOR_EMBEDDING({EMBED} USING {using}) FROM dual")
        assert ora_code(exc) == outcome and "DATA" in str(exc.value)
        return
    named.execute(f"SELECT VECTOR_EMBEDDING({EMBED} USING {using}) FROM dual")
    assert len(named.fetchone()[0]) == 384


def test_a_model_loaded_with_data1_data2_takes_exactly_those(named):
    cur = named
    cur.execute("SELECT PREDICTION(RR12 USING 'q' AS DATA1, 'd' AS DATA2) FROM dual")
    assert isinstance(cur.fetchone()[0], float)
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("SELECT PREDICTION(RR12 USING 'q' AS FIRST_INPUT, 'd' AS SECOND_INPUT) FROM dual")
    assert ora_code(exc) == 40105


def test_an_unaliased_column_feeds_the_attribute_of_its_own_name(named):
    named.execute("CREATE TABLE vo_cols (data VARCHAR2(40), body VARCHAR2(40))")
    named.execute("INSERT INTO vo_cols VALUES ('vector memory', 'vector memory')")
    named.execute(f"SELECT VECTOR_EMBEDDING({EMBED} USING data) FROM vo_cols")
    assert len(named.fetchone()[0]) == 384
    with pytest.raises(oracledb.DatabaseError) as exc:
        named.execute(f"SELECT VECTOR_EMBEDDING({EMBED} USING body) FROM vo_cols")
    assert ora_code(exc) == 40105 and "BODY" in str(exc.value)
    named.execute("DROP TABLE vo_cols")
