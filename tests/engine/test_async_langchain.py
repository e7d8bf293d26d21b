"""langchain-oracledb 1.6.0's async APIs, unmodified, on the embedded engine's async door: OracleVS.afrom_texts /
acreate / aadd_texts / asimilarity_search(_with_score) / amax_marginal_relevance_search / aget_by_ids / adelete,
acreate_index (HNSW) / adrop_index_if_exists, on a connection and on a pool, the text retriever's async path
(acreate_text_index, ainvoke) and the hybrid retriever's async path (acreate_preference, acreate_hybrid_index, ainvoke). Each async answer is
compared with the sync API's answer on the same table (the sync path is checked against independent references
in test_langchain.py and test_hybrid_langchain.py). As in langchain-oracledb's own async tests, OracleEmbeddings
holds a sync connection (it has no async one) and the store an async one, both on the same database."""
from __future__ import annotations

import asyncio
import json

import pytest
from langchain_oracledb import OracleEmbeddings, OracleVS
from langchain_oracledb.retrievers.hybrid_search import (OracleHybridSearchRetriever, OracleVectorizerPreference,
                                                         acreate_hybrid_index)
from langchain_oracledb.retrievers.text_search import OracleTextSearchRetriever, acreate_text_index
from langchain_oracledb.vectorstores.oraclevs import acreate_index, adrop_index_if_exists
from langchain_oracledb.vectorstores.utils import DistanceStrategy

from workshop import models
from workshop.embedded import connect, connect_async, create_pool_async

MODEL = "ALL_MINILM_L6_V2"
TEXTS = ["Oracle vector search with HNSW index", "Agent memory stores facts in Oracle",
         "Hybrid search mixes keyword and vector search", "Graph retrieval over papers",
         "JSON metadata filters in Oracle", "Row level security policies protect tenant data"]
METAS = [{"n": i, "kind": "even" if i % 2 == 0 else "odd"} for i in range(len(TEXTS))]
IDS = [f"doc-{i}" for i in range(len(TEXTS))]


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    """One database with the embedding model loaded, shared by this module's tests (each uses its own tables)."""
    path = tmp_path_factory.mktemp("async_lc") / "lc.db"
    with connect(path) as conn, conn.cursor() as cur:
        model = models.ensure_embedding_model()
        cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :blob, JSON(:meta)); END;",
                    name=MODEL, blob=model.read_bytes(), meta=json.dumps(models.embedding_metadata()))
        conn.commit()
    return path


@pytest.fixture
def sync_conn(database):
    conn = connect(database, busy_timeout=5)
    yield conn
    conn.close()


@pytest.fixture
def embeddings(sync_conn):
    return OracleEmbeddings(conn=sync_conn, params={"provider": "database", "model": MODEL})


def run(coroutine):
    return asyncio.run(coroutine)


def _docs(docs):
    return [(d.page_content, d.metadata) for d in docs]


def _scored(pairs):
    return [(d.page_content, d.metadata, round(s, 6)) for d, s in pairs]


@pytest.mark.parametrize("client", ["connection", "pool"])
def test_afrom_texts_and_asimilarity_search_answer_as_the_sync_api(database, sync_conn, embeddings, client):
    table = f"ALC_{client.upper()}"
    queries = [("keyword and vector search", 3, None), ("tenant security", 2, {"kind": "odd"}),
               ("oracle", 6, {"n": {"$gte": 2}})]

    async def case():
        pool = create_pool_async(database, max=2) if client == "pool" else None
        conn = None if pool else await connect_async(database, busy_timeout=5)
        try:
            vs = await OracleVS.afrom_texts(TEXTS, embeddings, METAS, client=pool or conn, table_name=table,
                                            distance_strategy=DistanceStrategy.COSINE, ids=IDS)
            found = [_docs(await vs.asimilarity_search(q, k=k, filter=f)) for q, k, f in queries]
            scored = _scored(await vs.asimilarity_search_with_score(queries[0][0], k=3))
            return found, scored
        finally:
            if pool:
                await pool.close()
            else:
                await conn.close()
    found, scored = run(case())
    sync_vs = OracleVS(sync_conn, embeddings, table, DistanceStrategy.COSINE)
    assert found == [_docs(sync_vs.similarity_search(q, k=k, filter=f)) for q, k, f in queries]
    assert scored == _scored(sync_vs.similarity_search_with_score(queries[0][0], k=3))
    assert found[0][0][0] == "Hybrid search mixes keyword and vector search"
    assert {m["kind"] for _, m in found[1]} == {"odd"} and {m["n"] for _, m in found[2]} == {2, 3, 4, 5}


def test_aadd_texts_aget_by_ids_and_adelete(database, sync_conn, embeddings):
    async def case():
        async with connect_async(database, busy_timeout=5) as conn:
            vs = await OracleVS.acreate(conn, embeddings, "ALC_EDIT", DistanceStrategy.COSINE)
            added = await vs.aadd_texts(TEXTS[:3], METAS[:3], ids=IDS[:3])
            await vs.aadd_texts(["Chunking long documents before embedding"], [{"n": 9}], ids=["doc-9"])
            got = _docs(await vs.aget_by_ids(["doc-9", "doc-1"]))
            await vs.adelete(["doc-0", "doc-9"])
            return added, got
    added, got = run(case())
    assert len(added) == 3
    assert sorted(got) == sorted([("Chunking long documents before embedding", {"n": 9}),
                                  (TEXTS[1], METAS[1])])
    with sync_conn.cursor() as cur:                       # what the async session committed, seen by another
        cur.execute('SELECT text FROM "ALC_EDIT"', fetch_lobs=False)   # (Oracle cannot ORDER BY a CLOB)
        assert sorted(r[0] for r in cur.fetchall()) == sorted(TEXTS[1:3])


def test_the_hybrid_retrievers_async_path_answers_as_its_sync_path(database, sync_conn, embeddings):
    modes = [("hybrid", "keyword vector search"), ("semantic", "tenant data protection"),
             ("keyword", "graph papers")]

    async def case():
        async with connect_async(database, busy_timeout=5) as conn:
            vs = await OracleVS.afrom_texts(TEXTS, embeddings, METAS, client=conn, table_name="ALC_HYB",
                                            distance_strategy=DistanceStrategy.COSINE, ids=IDS)
            pref = await OracleVectorizerPreference.acreate_preference(vs, "ALC_PREF")
            await acreate_hybrid_index(conn, "alc_hyb_idx", vectorizer_preference=pref)
            answers = []
            for mode, query in modes:
                retriever = OracleHybridSearchRetriever(vector_store=vs, idx_name="alc_hyb_idx", search_mode=mode,
                                                        k=2, return_scores=True)
                answers.append(_docs(await retriever.ainvoke(query)))
            await pref.adrop_preference()
            return answers
    answers = run(case())
    sync_vs = OracleVS(sync_conn, embeddings, "ALC_HYB", DistanceStrategy.COSINE)
    expected = [_docs(OracleHybridSearchRetriever(vector_store=sync_vs, idx_name="alc_hyb_idx", search_mode=mode,
                                                  k=2, return_scores=True).invoke(query)) for mode, query in modes]
    assert answers == expected
    assert answers[0][0][0] == "Hybrid search mixes keyword and vector search"
    assert answers[2][0][0] == "Graph retrieval over papers" and answers[2][0][1]["text_score"] > 0


def test_hnsw_index_mmr_and_the_text_retriever_async_answer_as_sync(database, sync_conn, embeddings):
    async def case():
        async with connect_async(database, busy_timeout=5) as conn:
            vs = await OracleVS.afrom_texts(TEXTS, embeddings, METAS, client=conn, table_name="ALC_TXT",
                                            distance_strategy=DistanceStrategy.COSINE, ids=IDS)
            await acreate_index(conn, vs, params={"idx_name": "alc_hnsw", "idx_type": "HNSW"})
            mmr = _docs(await vs.amax_marginal_relevance_search("vector search", k=2, fetch_k=4))
            await acreate_text_index(conn, "alc_txt_idx", vector_store=vs)
            text = _docs(await OracleTextSearchRetriever(vector_store=vs, k=3).ainvoke("oracle"))
            await adrop_index_if_exists(conn, "alc_hnsw")
            async with conn.cursor() as cur:
                await cur.execute("SELECT COUNT(*) FROM user_indexes WHERE index_name = 'ALC_HNSW'")
                left = (await cur.fetchone())[0]
            return mmr, text, left
    mmr, text, left = run(case())
    sync_vs = OracleVS(sync_conn, embeddings, "ALC_TXT", DistanceStrategy.COSINE)
    assert mmr == _docs(sync_vs.max_marginal_relevance_search("vector search", k=2, fetch_k=4))
    assert text == _docs(OracleTextSearchRetriever(vector_store=sync_vs, k=3).invoke("oracle"))
    assert {t for t, _ in text} == {t for t in TEXTS if "Oracle" in t} and left == 0


def test_a_failed_cleanup_on_the_sync_session_leaves_no_lock_for_the_async_one(database, sync_conn, embeddings):
    """langchain-oracledb's own async hybrid tests clean up on a sync session first (drop_preference of a
    preference that is not there, then drop_table_purge) and then build on an async session. On Oracle the
    failed DBMS_VECTOR_CHAIN.DROP_PREFERENCE leaves that session holding nothing; here it once kept SQLite's write
    lock, and the async session's CREATE TABLE waited out the busy timeout: ORA-00054 (the 12 failures)."""
    from langchain_oracledb.retrievers.hybrid_search import drop_preference
    from langchain_oracledb.vectorstores.utils import drop_index, drop_table_purge

    for cleanup in (lambda: drop_index(sync_conn, "ALC_GONE_IDX"), lambda: drop_preference(sync_conn, "ALC_GONE"),
                    lambda: drop_table_purge(sync_conn, "ALC_AFTER")):
        try:
            cleanup()
        except Exception:  # noqa: BLE001 - as the upstream fixture does: it only tidies up
            pass
    assert not sync_conn.transaction_in_progress

    async def case():
        async with connect_async(database, busy_timeout=1) as conn:
            vs = await OracleVS.afrom_texts(TEXTS[:2], embeddings, METAS[:2], client=conn, table_name="ALC_AFTER",
                                            distance_strategy=DistanceStrategy.COSINE, ids=IDS[:2])
            return _docs(await vs.asimilarity_search(TEXTS[1], k=1))
    assert run(case()) == [(TEXTS[1], METAS[1])]
