"""langchain-oracledb, unmodified, against the embedded engine (deterministic embeddings)."""
import hashlib
import math
import re

import numpy as np
import oracledb
import pytest
from langchain_core.embeddings import Embeddings
from langchain_oracledb import OracleChatMessageHistory, OracleVS
from langchain_oracledb.vectorstores.oraclevs import create_index
from langchain_oracledb.vectorstores.utils import DistanceStrategy, drop_table_purge

TEXTS = ["Oracle vector search with HNSW index", "Agent memory stores facts in Oracle",
         "Hybrid search mixes keyword and vector search", "Graph retrieval over papers",
         "JSON metadata filters in Oracle", "Reciprocal rank fusion"]
METAS = [{"kind": "a", "page": 1}, {"kind": "b", "page": 2}, {"kind": "a", "page": 3, "tags": ["x", "y"]},
         {"kind": "c", "page": 4}, {"kind": "b", "page": 5, "title": "Filters"},
         {"kind": "c", "page": 6, "title": "RRF paper"}]


class BagOfWords(Embeddings):
    """Deterministic hashed bag-of-words: stands in for a model so results are checkable."""
    dim = 32

    def _embed(self, text):
        v = [0.0] * self.dim
        for w in re.findall(r"\w+", text.lower()):
            v[int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
        n = math.sqrt(sum(x * x for x in v)) or 1.0
        return [x / n for x in v]

    def embed_documents(self, texts):
        return [self._embed(t) for t in texts]

    def embed_query(self, text):
        return self._embed(text)


def _reference(query, idx):
    emb = BagOfWords()
    q = np.array(emb.embed_query(query))
    dist = {i: 1 - float(np.dot(q, emb._embed(TEXTS[i]))) for i in idx}
    return sorted(idx, key=lambda i: dist[i]), dist


@pytest.fixture
def store(conn):
    vs = OracleVS(conn, BagOfWords(), "RESEARCH_CHUNKS", DistanceStrategy.COSINE)
    ids = vs.add_texts(TEXTS, METAS, ids=[f"doc-{i}" for i in range(len(TEXTS))])
    assert ids == [f"doc-{i}" for i in range(len(TEXTS))]
    return vs


def test_similarity_search_matches_numpy(store):
    got = store.similarity_search_with_score("hybrid vector search", k=4)
    order, dist = _reference("hybrid vector search", range(len(TEXTS)))
    assert [TEXTS.index(d.page_content) for d, _ in got] == order[:4]
    for doc, score in got:
        assert score == pytest.approx(dist[TEXTS.index(doc.page_content)], abs=1e-6)


@pytest.mark.parametrize("flt, expected", [
    ({"kind": {"$in": ["a", "b"]}}, {0, 1, 2, 4}),
    ({"kind": {"$nin": ["a", "b"]}}, {3, 5}),
    ({"kind": {"$eq": "c"}}, {3, 5}),
    ({"kind": {"$ne": "c"}}, {0, 1, 2, 4}),
    ({"page": {"$gt": 2}}, {2, 3, 4, 5}),
    ({"page": {"$gte": 2, "$lt": 4}}, {1, 2}),
    ({"page": {"$lte": 1}}, {0}),
    ({"$and": [{"page": {"$gt": 1}}, {"page": {"$lte": 5}}, {"kind": {"$nin": ["b"]}}]}, {2, 3}),
    ({"$or": [{"kind": "a"}, {"page": 6}]}, {0, 2, 5}),
    ({"title": {"$exists": True}}, {4, 5}),
    ({"title": {"$exists": False}}, {0, 1, 2, 3}),
    ({"tags": {"$eq": ["x", "y"]}}, {2}),
    ({"title": {"$startsWith": "RRF"}}, {5}),
])
def test_every_filter_operator(store, flt, expected):
    docs = store.similarity_search("oracle search", k=10, filter=flt)
    assert {TEXTS.index(d.page_content) for d in docs} == expected


def test_mmr_get_by_ids_delete_and_duplicates(store, conn):
    mmr = store.max_marginal_relevance_search("oracle search", k=3, fetch_k=6)
    assert len(mmr) == 3 and len({d.page_content for d in mmr}) == 3
    assert [d.page_content for d in store.get_by_ids(["doc-1"])] == [TEXTS[1]]
    assert store.add_texts(["again"], [{"kind": "z"}], ids=["doc-0"]) == []  # ORA-00001 as a batch error
    store.delete(["doc-1", "doc-2"])
    assert conn.cursor().execute('SELECT COUNT(*) FROM "RESEARCH_CHUNKS"').fetchone() == (4,)
    upsert = OracleVS(conn, BagOfWords(), "RESEARCH_CHUNKS", DistanceStrategy.COSINE, mutate_on_duplicate=True)
    assert upsert.add_texts(["Oracle vector search, revised"], [{"kind": "a"}], ids=["doc-0"]) == ["doc-0"]
    assert store.get_by_ids(["doc-0"])[0].page_content == "Oracle vector search, revised"


@pytest.mark.parametrize("params", [
    {"idx_name": "chunks_hnsw", "idx_type": "HNSW", "accuracy": 95, "parallel": 4},
    {"idx_name": "chunks_ivf", "idx_type": "IVF"},
])
def test_create_index_then_search_is_unchanged(store, conn, params):
    before = [d.page_content for d in store.similarity_search("fusion of ranks", k=3)]
    create_index(conn, store, params=dict(params))
    cur = conn.cursor()
    cur.execute("SELECT index_type FROM all_indexes WHERE index_name = :n", n=params["idx_name"])
    assert cur.fetchone() == ("VECTOR",)
    assert [d.page_content for d in store.similarity_search("fusion of ranks", k=3)] == before


def test_drop_table_purge(store, conn):
    drop_table_purge(conn, "RESEARCH_CHUNKS")
    with pytest.raises(oracledb.DatabaseError):
        conn.cursor().execute('SELECT 1 FROM "RESEARCH_CHUNKS"')


def test_chat_message_history(conn):
    history = OracleChatMessageHistory("s1", client=conn)
    other = OracleChatMessageHistory("s2", client=conn)
    history.add_user_message("hi")
    history.add_ai_message("hello")
    other.add_user_message("unrelated")
    history.add_user_message("what is HNSW?")
    assert [m.content for m in history.messages] == ["hi", "hello", "what is HNSW?"]
    assert [m.content for m in OracleChatMessageHistory("s1", client=conn, history_size=2).messages] == \
        ["hello", "what is HNSW?"]
    history.clear()
    assert history.messages == [] and [m.content for m in other.messages] == ["unrelated"]


def test_pool_is_accepted(db_path):
    from workshop.embedded import EmbeddedPool
    pool = EmbeddedPool(db_path)
    vs = OracleVS(pool, BagOfWords(), "POOLED", DistanceStrategy.DOT_PRODUCT)
    vs.add_texts(["alpha beta", "gamma"], ids=["a", "b"])
    assert vs.similarity_search("alpha", k=1)[0].page_content == "alpha beta"
    pool.close()
