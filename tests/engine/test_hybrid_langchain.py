"""langchain-oracledb 1.6.0's hybrid search, unmodified, end to end on the embedded engine:
OracleVectorizerPreference, create_hybrid_index, OracleHybridSearchRetriever in every search_mode
and drop_index_if_exists / drop_preference. Results are checked against an independent reference:
numpy cosine similarity of the model's own embeddings (the documented semantic score scale),
Oracle Text SCORE from a plain CONTAINS query, and the documented RSF formula."""
import json

import numpy as np
import oracledb
import pytest
from langchain_oracledb import OracleEmbeddings, OracleVS
from langchain_oracledb.retrievers.hybrid_search import (OracleHybridSearchRetriever, OracleVectorizerPreference,
                                                         create_hybrid_index, drop_preference)
from langchain_oracledb.vectorstores.oraclevs import drop_index_if_exists
from langchain_oracledb.vectorstores.utils import DistanceStrategy

from tests.conftest import ora_code
from workshop import models

MODEL = "ALL_MINILM_L6_V2"
TEXTS = ["Oracle vector search with HNSW index", "Agent memory stores facts in Oracle",
         "Hybrid search mixes keyword and vector search", "Graph retrieval over papers",
         "JSON metadata filters in Oracle", "Reciprocal rank fusion of keyword and vector rankings",
         "Row level security policies protect tenant data", "Chunking long documents before embedding"]
STOPWORDS = {"a", "and", "of", "the", "in", "with", "over", "for", "how", "do", "i"}


@pytest.fixture(scope="module")
def runtime():
    path = models.ensure_embedding_model()
    return path, models.load_model(MODEL, path.read_bytes(), models.embedding_metadata())


@pytest.fixture
def store(conn, runtime):
    path, _ = runtime
    with conn.cursor() as cur:
        cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :blob, JSON(:meta)); END;",
                    name=MODEL, blob=path.read_bytes(), meta=json.dumps(models.embedding_metadata()))
    embeddings = OracleEmbeddings(conn=conn, params={"provider": "database", "model": MODEL})
    vs = OracleVS(conn, embeddings, "KB_VS", DistanceStrategy.COSINE)
    vs.add_texts(TEXTS, [{"n": i, "kind": "even" if i % 2 == 0 else "odd"} for i in range(len(TEXTS))],
                 ids=[f"doc-{i}" for i in range(len(TEXTS))])
    return vs


@pytest.fixture
def hybrid(conn, store):
    pref = OracleVectorizerPreference.create_preference(store, "KB_PREF")
    create_hybrid_index(conn, "kb_hyb", vectorizer_preference=pref,
                        params={"filter_by": ["id"], "order_by": ["id"], "order_by_asc": False, "parallel": 2})
    return store, pref


def _semantic(runtime, query: str) -> dict[int, float]:
    """Reference semantic score per text: 100 * (1 - cosine distance / 2), numpy on the runtime's embeddings."""
    model = runtime[1]
    docs = model.embed(TEXTS)
    q = model.embed([query])[0]
    cos = docs @ q / (np.linalg.norm(docs, axis=1) * np.linalg.norm(q))
    return {i: float(100 * (1 - (1 - c) / 2)) for i, c in enumerate(cos)}


def _keyword(conn, query: str) -> dict[int, int]:
    """Reference keyword score per text: Oracle Text SCORE of the ACCUM query over the words."""
    words = [w for w in dict.fromkeys(query.lower().split()) if w not in STOPWORDS]
    contains = " ACCUM ".join("{" + w + "}" for w in words)
    with conn.cursor() as cur:
        cur.execute('SELECT text, SCORE(1) FROM "KB_VS" WHERE CONTAINS(text, :q, 1) > 0', q=contains)
        return {TEXTS.index(t): s for t, s in cur.fetchall()}


def _expected(conn, runtime, query, mode, k):
    sem = _semantic(runtime, query) if mode != "keyword" else {}
    kw = _keyword(conn, query) if mode != "semantic" else {}
    rows = {}
    for i in set(sem) | set(kw):
        vs, ts = sem.get(i, 0.0), kw.get(i, 0)
        score = vs if mode == "semantic" else ts if mode == "keyword" else (10 * vs + 1 * ts) / 11
        rows[i] = (score, vs, ts)
    order = sorted(rows, key=lambda i: (-round(rows[i][0], 2), i))[:k]
    return order, rows


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid"])
@pytest.mark.parametrize("query", ["vector search", "how do I protect tenant data", "keyword rankings fusion"])
def test_retriever_matches_the_reference(conn, runtime, hybrid, mode, query):
    store, _ = hybrid
    retriever = OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", search_mode=mode, k=4,
                                            return_scores=True)
    docs = retriever.invoke(query)
    order, rows = _expected(conn, runtime, query, mode, 4)
    assert [TEXTS.index(d.page_content) for d in docs] == order
    for doc in docs:
        i = TEXTS.index(doc.page_content)
        score, vs, ts = rows[i]
        assert doc.id == f"doc-{i}"
        assert doc.metadata["n"] == i
        assert doc.metadata["score"] == pytest.approx(score, abs=0.006)
        assert doc.metadata["vector_score"] == pytest.approx(vs if mode != "keyword" else 0, abs=0.006)
        assert doc.metadata["text_score"] == (ts if mode != "semantic" else 0)


def test_hybrid_rsf_is_the_documented_weighted_mean(hybrid):
    store, _ = hybrid
    docs = OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", k=8, return_scores=True).invoke(
        "vector search")
    for d in docs:
        m = d.metadata
        assert m["score"] == pytest.approx((10 * m["vector_score"] + m["text_score"]) / 11, abs=0.01)
    scores = [d.metadata["score"] for d in docs]
    assert scores == sorted(scores, reverse=True)


def test_without_return_scores_metadata_is_the_stored_metadata(hybrid):
    store, _ = hybrid
    docs = OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", search_mode="semantic",
                                       k=2).invoke("graph retrieval")
    assert docs[0].page_content == "Graph retrieval over papers"
    assert docs[0].metadata == {"n": 3, "kind": "odd"}


def test_retriever_params_reach_the_search(conn, runtime, hybrid):
    """params are merged into the JSON spec: INTERSECT keeps only documents both searches found, and
    the weights change the RSF mean."""
    store, _ = hybrid
    params = {"search_fusion": "INTERSECT", "vector": {"score_weight": 1}, "text": {"score_weight": 3}}
    docs = OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", k=8, params=params,
                                       return_scores=True).invoke("vector search")
    kw = _keyword(conn, "vector search")
    sem = _semantic(runtime, "vector search")
    assert {TEXTS.index(d.page_content) for d in docs} == set(kw)
    for d in docs:
        i = TEXTS.index(d.page_content)
        assert d.metadata["score"] == pytest.approx((sem[i] + 3 * kw[i]) / 4, abs=0.01)
    with pytest.raises(ValueError):
        OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", params={"return": {"topN": 1}})


def test_dictionary_and_the_temporary_preference(conn, store):
    create_hybrid_index(conn, "kb_hyb", vector_store=store, params={"filter_by": ["id"], "parallel": 4})
    with conn.cursor() as cur:
        cur.execute("SELECT index_name, index_type, ityp_owner, ityp_name FROM user_indexes "
                    "WHERE table_name = 'KB_VS' AND index_type = 'DOMAIN'")
        assert cur.fetchall() == [("kb_hyb", "DOMAIN", "CTXSYS", "CONTEXT_V2")]
        cur.execute("SELECT COUNT(*) FROM all_indexes WHERE index_name = 'kb_hyb'")
        assert cur.fetchone() == (1,)
    # create_hybrid_index with vector_store= drops its temporary preference once the index exists,
    # and a second call is a no-op (the index already exists).
    create_hybrid_index(conn, "kb_hyb", vector_store=store)
    docs = OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", k=1).invoke("row level security")
    assert docs[0].page_content == TEXTS[6]


def test_new_rows_are_searchable_after_commit(conn, hybrid):
    store, _ = hybrid
    store.add_texts(["Quokka habitats on Rottnest island"], [{"n": 99}], ids=["doc-q"])
    for mode in ("keyword", "semantic", "hybrid"):
        docs = OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", search_mode=mode,
                                           k=1).invoke("quokka island")
        assert docs[0].id == "doc-q"
    store.delete(["doc-q"])
    docs = OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", search_mode="keyword",
                                       k=4).invoke("quokka island")
    assert docs == []


def test_drop_index_and_preference(conn, hybrid):
    store, pref = hybrid
    drop_index_if_exists(conn, "kb_hyb")
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_indexes WHERE index_name = 'kb_hyb'")
        assert cur.fetchone() == (0,)
        cur.execute("SELECT COUNT(*) FROM user_tables WHERE table_name LIKE 'DR$kb_hyb%'")
        assert cur.fetchone() == (0,)
    with pytest.raises(oracledb.DatabaseError) as exc:
        OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb").invoke("vector search")
    assert "DRG-10502" in str(exc.value)
    pref.drop_preference()
    with pytest.raises(oracledb.DatabaseError) as exc:
        drop_preference(conn, "KB_PREF")
    assert ora_code(exc) == 20000 and "DRG-10700" in str(exc.value)


def test_statements_langchain_sends(conn, store, monkeypatch):
    """The SQL and PL/SQL langchain-oracledb 1.6.0 sends for the hybrid path (captured here so a
    change in a later release shows up as a failing test)."""
    from workshop.embedded.connection import EmbeddedCursor
    seen = []
    original = EmbeddedCursor.execute

    def recording(self, statement, parameters=None, **kwargs):
        seen.append(" ".join(statement.split()))
        return original(self, statement, parameters, **kwargs)
    monkeypatch.setattr(EmbeddedCursor, "execute", recording)
    create_hybrid_index(conn, "kb_hyb", vector_store=store, params={"parallel": 2})
    OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", k=1).invoke("fusion")
    assert any(s.startswith("begin dbms_vector_chain.CREATE_PREFERENCE( :1, dbms_vector_chain.vectorizer, "
                            "json(:2)); end;") for s in seen)
    assert 'CREATE HYBRID VECTOR INDEX "kb_hyb" ON "KB_VS"(text) PARAMETERS (\'vectorizer pref' in \
        next(s for s in seen if s.startswith("CREATE HYBRID"))
    assert "begin DBMS_VECTOR_CHAIN.DROP_PREFERENCE (:preference_name); end;" in seen
    assert "SELECT DBMS_HYBRID_VECTOR.SEARCH(json(:search_params))" in seen
    assert 'SELECT text, metadata FROM "KB_VS" WHERE rowid = :1' in seen


def test_search_result_is_a_clob_of_json(conn, hybrid):
    """A CLOB, as on Oracle: langchain's json.loads works only because OracleEmbeddings turns
    oracledb.defaults.fetch_lobs off for the whole process."""
    oracledb.defaults.fetch_lobs = True
    with conn.cursor() as cur:
        cur.setinputsizes(p=oracledb.DB_TYPE_JSON)
        cur.execute("SELECT DBMS_HYBRID_VECTOR.SEARCH(json(:p)) FROM dual",
                    p={"hybrid_index_name": '"kb_hyb"', "search_text": "vector search", "return": {"topN": 2}})
        value = cur.fetchone()[0]
        assert isinstance(value, oracledb.LOB)
        rows = json.loads(value.read())
        assert len(rows) == 2
        assert list(rows[0]) == ["rowid", "score", "vector_score", "text_score", "vector_rank", "text_rank",
                                 "chunk_text", "chunk_id"]
        cur.execute('SELECT text FROM "KB_VS" WHERE rowid = :1', [rows[0]["rowid"]])
        assert cur.fetchone()[0].read() == rows[0]["chunk_text"]


def test_an_unknown_index_is_named_in_the_error(hybrid):
    store, _ = hybrid
    with store.client.cursor() as cur:
        with pytest.raises(oracledb.DatabaseError) as exc:
            cur.execute("SELECT DBMS_HYBRID_VECTOR.SEARCH(json('{\"hybrid_index_name\": \"nope\", "
                        "\"search_text\": \"x\"}')) FROM dual")
        assert ora_code(exc) == 20000
        assert "DRG-10502" in str(exc.value) and "NOPE" in str(exc.value)


@pytest.mark.parametrize("parameters, visible_before_sync", [
    ({"sync": "(manual)"}, False), ({"sync": "(on commit)"}, True),
    ({"maintenance": "manual"}, False), ({"stoplist": "CTXSYS.EMPTY_STOPLIST"}, True)])
def test_index_parameters_langchain_passes_through(conn, store, parameters, visible_before_sync):
    """params['parameters'] become 'key value' pairs after the vectorizer; the text part's
    maintenance applies to both parts."""
    pref = OracleVectorizerPreference.create_preference(store, "KB_PREF")
    create_hybrid_index(conn, "kb_hyb", vectorizer_preference=pref, params={"parameters": parameters})
    store.add_texts(["Quokka habitats on Rottnest island"], [{"n": 99}], ids=["doc-q"])
    for mode in ("keyword", "semantic"):
        docs = OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", search_mode=mode,
                                           k=1).invoke("quokka island")
        assert ("doc-q" in [d.id for d in docs]) == visible_before_sync, mode
    with conn.cursor() as cur:
        cur.execute("BEGIN CTX_DDL.SYNC_INDEX('\"kb_hyb\"'); END;")
    for mode in ("keyword", "semantic"):
        docs = OracleHybridSearchRetriever(vector_store=store, idx_name="kb_hyb", search_mode=mode,
                                           k=1).invoke("quokka island")
        assert docs[0].id == "doc-q", mode
    with pytest.raises(ValueError):
        create_hybrid_index(conn, "kb_hyb2", vectorizer_preference=pref, params={"parameters": {"model": MODEL}})
