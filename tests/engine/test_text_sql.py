"""Oracle Text through SQL: CONTAINS/SCORE, index DDL and sync modes, errors, and
langchain-oracledb's OracleTextSearchRetriever in its three modes."""
import oracledb
import pytest

from tests.conftest import ora_code

DOCS = [(1, "Oracle vector search with an HNSW index"),
        (2, "Error ORA-51962 means the vector memory pool is empty: set vector_memory_size"),
        (3, "Hybrid search mixes keyword search and vector search"),
        (4, "Graph retrieval over papers and authors"),
        (5, "Agent memory keeps conversation history")]


@pytest.fixture
def docs(cur):
    cur.execute("CREATE TABLE docs (id NUMBER PRIMARY KEY, body CLOB)")
    cur.executemany("INSERT INTO docs VALUES (:1, :2)", DOCS)
    cur.connection.commit()
    cur.execute("CREATE INDEX docs_ctx ON docs (body) INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')")
    return cur


def _ids(cur, query):
    cur.execute("SELECT id FROM docs WHERE CONTAINS(body, :q, 1) > 0 ORDER BY SCORE(1) DESC, id", q=query)
    return [r[0] for r in cur.fetchall()]


def test_contains_and_score(docs):
    assert _ids(docs, "vector") == [2, 1, 3]          # "vector_memory_size" splits at "_": doc 2 says it twice
    docs.execute("SELECT id, SCORE(1) FROM docs WHERE CONTAINS(body, 'vector', 1) > 0 ORDER BY id")
    scores = dict(docs.fetchall())
    assert all(isinstance(s, int) and 0 < s <= 100 for s in scores.values())
    assert scores[2] > scores[1] == scores[3]
    assert _ids(docs, "vector AND hnsw") == [1]
    assert sorted(_ids(docs, "graph OR memory")) == [2, 4, 5]
    assert _ids(docs, "search NOT hybrid") == [1]
    assert _ids(docs, '"keyword search"') == [3]
    assert _ids(docs, "{ORA-51962}") == [2]


def test_reserved_words_need_escaping(docs):
    with pytest.raises(oracledb.DatabaseError) as exc:
        _ids(docs, "search AND")
    assert ora_code(exc) == 29902 and "DRG-50901" in str(exc.value)
    # escaped, AND is a (stop)word inside the phrase "search and", which matches any word after "search"
    assert _ids(docs, "{search AND}") == [1, 3] or _ids(docs, "{search AND}") == [3, 1]
    assert _ids(docs, "{hybrid search}") == [3]


def test_unindexed_column_is_drg_10599(docs):
    docs.execute("CREATE TABLE plain (id NUMBER, t VARCHAR2(50))")
    with pytest.raises(oracledb.DatabaseError) as exc:
        docs.execute("SELECT id FROM plain WHERE CONTAINS(t, 'x') > 0")
    assert "DRG-10599" in str(exc.value)


def test_on_commit_sync_sees_committed_rows_only(docs, conn):
    docs.execute("INSERT INTO docs VALUES (6, 'fresh vector row')")
    assert 6 not in _ids(docs, "fresh")
    conn.commit()
    assert _ids(docs, "fresh") == [6]
    docs.execute("DELETE FROM docs WHERE id = 6")
    assert _ids(docs, "fresh") == []


def test_manual_sync_needs_ctx_ddl(cur, conn):
    cur.execute("CREATE TABLE notes (id NUMBER PRIMARY KEY, t VARCHAR2(100))")
    cur.execute("INSERT INTO notes VALUES (1, 'alpha beta')")
    conn.commit()
    cur.execute("CREATE INDEX notes_ctx ON notes (t) INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (MANUAL)')")
    cur.execute("INSERT INTO notes VALUES (2, 'alpha gamma')")
    conn.commit()
    query = "SELECT id FROM notes WHERE CONTAINS(t, 'alpha') > 0 ORDER BY id"
    assert cur.execute(query).fetchall() == [(1,)]
    cur.execute("BEGIN CTX_DDL.SYNC_INDEX('notes_ctx'); END;")
    assert cur.execute(query).fetchall() == [(1,), (2,)]


def test_search_index_on_json_and_dictionary(cur, conn):
    cur.execute("CREATE TABLE j (id NUMBER PRIMARY KEY, doc JSON)")
    cur.setinputsizes(d=oracledb.DB_TYPE_JSON)
    cur.execute("INSERT INTO j VALUES (1, :d)", d={"title": "Reciprocal rank fusion", "tags": ["rrf"]})
    cur.setinputsizes(d=oracledb.DB_TYPE_JSON)  # a new statement: python-oracledb forgets the type
    cur.execute("INSERT INTO j VALUES (2, :d)", d={"title": "Cross-encoder reranking"})
    conn.commit()
    cur.execute("CREATE SEARCH INDEX j_search ON j (doc) FOR JSON")
    cur.execute("SELECT id FROM j WHERE CONTAINS(doc, 'fusion') > 0")
    assert cur.fetchall() == [(1,)]
    cur.execute("SELECT index_type, ityp_owner FROM user_indexes WHERE index_name = 'J_SEARCH'")
    assert cur.fetchone() == ("DOMAIN", "CTXSYS")


def test_text_retriever_three_modes(conn):
    from langchain_core.embeddings import FakeEmbeddings
    from langchain_oracledb import OracleTextSearchRetriever, OracleVS
    from langchain_oracledb.retrievers.text_search import create_text_index
    from langchain_oracledb.vectorstores.utils import DistanceStrategy
    vs = OracleVS(conn, FakeEmbeddings(size=8), "CHUNKS", DistanceStrategy.COSINE)
    vs.add_texts([body for _, body in DOCS], [{"id": i} for i, _ in DOCS])
    create_text_index(conn, "chunks_txt", vector_store=vs)
    plain = OracleTextSearchRetriever(vector_store=vs, k=2, return_scores=True).invoke("vector search")
    assert [d.metadata["id"] for d in plain][0] == 3 and len(plain) == 2
    assert all("score" in d.metadata for d in plain)
    fuzzy = OracleTextSearchRetriever(vector_store=vs, k=5, fuzzy=True).invoke("serch vectr")
    assert {d.metadata["id"] for d in fuzzy} >= {1, 3}
    operator = OracleTextSearchRetriever(vector_store=vs, k=5, operator_search=True).invoke(
        "near((vector, index), 3) | memory")
    # doc 1 has "index" 5 words after "vector" (outside NEAR 3); docs 2 and 5 say "memory"
    assert {d.metadata["id"] for d in operator} == {2, 5}
