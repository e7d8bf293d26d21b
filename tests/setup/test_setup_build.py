"""What one set-up from nothing builds: objects, comments, rows equal to workshop.data, embeddings equal to
the runtime model's, PAPER_SIMILARITY equal to a numpy top-5, and a graph that answers shared-author queries."""
from __future__ import annotations

from collections import defaultdict

import numpy as np
import oracledb
import pytest

from tests.setup.setup_helpers import rows
from workshop import models, schema
from workshop.data import (DATA_VERSION, authorship_edges, load_authors, load_chunks, load_documents,
                           load_golden_queries, load_papers)
from workshop.models.model_cache import sha256_file
from workshop.setup import expected_counts


def test_report_lists_every_step_and_the_counts(built):
    report = built.report
    assert report.engine == "embedded" and report.embedding_model == "ALL_MINILM_L6_V2"
    assert report.reranker == f"RERANKER: {models.RERANKER_SUMMARY}"
    assert "late-interaction (MaxSim)" in report.reranker and "not a cross-encoder" in report.reranker
    assert report.counts == {"WORKSHOP_META": report.counts["WORKSHOP_META"], **expected_counts()}
    text = report.text()
    for needle in ("loaded model ALL_MINILM_L6_V2", "loaded model RERANKER", "created property graph RESEARCH_GRAPH",
                   "embedded 162 rows of PAPERS", "PAPER_SIMILARITY", "not a cross-encoder", "took "):
        assert needle in text
    assert expected_counts() == {"PAPERS": 162, "AUTHORS": 66, "PAPER_AUTHORS": 402, "PAPER_SIMILARITY": 810,
                                 "DOCUMENTS": 39, "RESEARCH_CHUNKS": 229}


def test_objects_exist_with_the_contract_columns(built_conn):
    tables = {r[0] for r in rows(built_conn, "SELECT table_name FROM user_tables")}
    assert {t.name for t in schema.TABLES} <= tables
    columns = defaultdict(list)
    for table, col, dtype in rows(built_conn, "SELECT table_name, column_name, data_type FROM user_tab_columns "
                                              "ORDER BY table_name, column_id"):
        columns[table].append((col, dtype))
    assert columns["PAPERS"] == [("ARXIV_ID", "VARCHAR2"), ("TITLE", "VARCHAR2"), ("ABSTRACT", "VARCHAR2"),
                                 ("BODY", "CLOB"), ("AUTHORS", "JSON"), ("PRIMARY_SUBJECT", "VARCHAR2"),
                                 ("PUBLISHED", "DATE"), ("EMBEDDING", "VECTOR")]
    assert [c for c, _ in columns["PAPER_SIMILARITY"]] == ["SRC_ID", "DST_ID", "SIMILARITY", "RANK_NO"]
    assert [c for c, _ in columns["WORKSHOP_META"]] == ["KEY", "VALUE"]
    for table in ("PAPERS", "RESEARCH_CHUNKS"):
        with built_conn.cursor() as cur:
            cur.execute(f"SELECT embedding FROM {table} WHERE 1 = 0")
            info = cur.description[0]
        assert (info.vector_dimensions, info.vector_format) == (384, oracledb.VECTOR_FORMAT_FLOAT32)
    indexes = dict(((n, (t, k)) for n, t, k in rows(built_conn, "SELECT index_name, table_name, index_type FROM user_indexes")))
    assert indexes["PAPERS_HNSW"] == ("PAPERS", "VECTOR") and indexes["RESEARCH_CHUNKS_HNSW"] == ("RESEARCH_CHUNKS", "VECTOR")
    assert indexes["PAPERS_TEXT"] == ("PAPERS", "DOMAIN") and indexes["RESEARCH_CHUNKS_TEXT"] == ("RESEARCH_CHUNKS", "DOMAIN")
    assert rows(built_conn, "SELECT graph_name FROM user_property_graphs") == [("RESEARCH_GRAPH",)]
    assert rows(built_conn, "SELECT model_name, mining_function FROM user_mining_models ORDER BY 1") == \
        [("ALL_MINILM_L6_V2", "EMBEDDING"), ("RERANKER", "REGRESSION")]


def test_every_table_and_column_has_its_comment(built_conn):
    tab = dict(rows(built_conn, "SELECT table_name, comments FROM user_tab_comments"))
    col = {(t, c): text for t, c, text in rows(built_conn, "SELECT table_name, column_name, comments FROM user_col_comments")}
    for table in schema.TABLES:
        assert tab[table.name] == table.comment
        for column in table.columns:
            assert col[(table.name, column.name.upper())] == column.comment


def test_rows_equal_the_authored_data(built_conn):
    papers = {p["arxiv_id"]: p for p in load_papers()}
    got = rows(built_conn, "SELECT arxiv_id, title, abstract, body, authors, primary_subject, "
                           "TO_CHAR(published, 'YYYY-MM-DD') FROM papers")
    assert len(got) == len(papers)
    for arxiv_id, title, abstract, body, authors, subject, published in got:
        p = papers[arxiv_id]
        assert (title, abstract, body.read(), authors, subject, published) == \
            (p["title"], p["abstract"], p["text"], p["authors"], p["primary_subject"], p["published"])
    assert sorted(rows(built_conn, "SELECT author_id, name FROM authors")) == \
        sorted((a["author_id"], a["name"]) for a in load_authors())
    assert sorted(rows(built_conn, "SELECT author_id, arxiv_id FROM paper_authors")) == sorted(authorship_edges())
    docs = {d["doc_id"]: d for d in load_documents()}
    for doc_id, title, authors, year, collection, tenant, version, supersedes, superseded_by, count in rows(
            built_conn, "SELECT doc_id, title, authors, year, collection, tenant, version, supersedes, superseded_by, "
                        "chunk_count FROM documents"):
        d = docs.pop(doc_id)
        assert (title, authors, year, collection, tenant, version, supersedes, superseded_by, count) == \
            (d["title"], d["authors"], d["year"], d["collection"], d["tenant"], d["version"], d["supersedes"],
             d["superseded_by"], d["chunk_count"])
    assert not docs
    chunks = {c["chunk_id"]: c for c in load_chunks()}
    for chunk_id, doc_id, seq, tenant, collection, section, section_type, version, is_current, title, text in rows(
            built_conn, "SELECT chunk_id, doc_id, seq, tenant, collection, section, section_type, version, is_current, "
                        "title, text FROM research_chunks"):
        c = chunks.pop(chunk_id)
        assert (doc_id, seq, tenant, collection, section, section_type, version, bool(is_current), title, text.read()) == \
            (c["doc_id"], c["seq"], c["tenant"], c["collection"], c["section"], c["section_type"], c["version"],
             c["is_current"], c["title"], c["text"])
    assert not chunks


def test_meta_records_data_version_model_and_engine(built_conn):
    meta = dict(rows(built_conn, "SELECT key, value FROM workshop_meta"))
    assert meta["data_version"] == DATA_VERSION
    assert meta["embedding_model"] == "ALL_MINILM_L6_V2"
    assert meta["embedding_model_sha256"] == sha256_file(models.ensure_embedding_model())
    assert meta["embedding_dimensions"] == "384"
    assert meta["reranker_model"] == "RERANKER"
    assert meta["reranker_label"] == models.describe_reranker()["label"] and meta["reranker_is_stand_in"] == "true"
    assert meta["reranker_model_sha256"] == sha256_file(models.ensure_reranker_model())
    assert meta["engine"] == "embedded"
    assert meta["paper_embedding_source"] == "title || '. ' || abstract"
    assert meta["chunk_embedding_source"] == "text"
    assert meta["created_at"] == meta["updated_at"]


@pytest.fixture(scope="module")
def runtime_model():
    return models.load_model("ALL_MINILM_L6_V2", models.ensure_embedding_model().read_bytes(), None)


def test_embeddings_equal_the_runtime_models_vectors(built_conn, runtime_model):
    papers = {p["arxiv_id"]: p for p in load_papers()}
    sample = sorted(papers)[::20]
    got = dict(rows(built_conn, "SELECT arxiv_id, embedding FROM papers WHERE arxiv_id IN (" +
                    ", ".join(f"'{a}'" for a in sample) + ")"))
    want = runtime_model.embed([papers[a]["title"] + ". " + papers[a]["abstract"] for a in sample])
    np.testing.assert_allclose(np.array([got[a] for a in sample]), want, atol=1e-5)
    chunks = {c["chunk_id"]: c for c in load_chunks()}
    sample = sorted(chunks)[::30]
    got = dict(rows(built_conn, "SELECT chunk_id, embedding FROM research_chunks WHERE chunk_id IN (" +
                    ", ".join(f"'{c}'" for c in sample) + ")"))
    want = runtime_model.embed([chunks[c]["text"] for c in sample])
    np.testing.assert_allclose(np.array([got[c] for c in sample]), want, atol=1e-5)


def test_paper_similarity_is_the_true_top5_by_cosine(built_conn):
    ids, vectors = zip(*rows(built_conn, "SELECT arxiv_id, embedding FROM papers ORDER BY arxiv_id"))
    matrix = np.array(vectors, dtype=np.float64)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    sims = matrix @ matrix.T
    np.fill_diagonal(sims, -np.inf)
    stored = defaultdict(list)
    for src, dst, similarity, rank_no in rows(built_conn, "SELECT src_id, dst_id, similarity, rank_no "
                                                          "FROM paper_similarity ORDER BY src_id, rank_no"):
        stored[src].append((rank_no, dst, similarity))
    assert len(stored) == len(ids)
    for i, src in enumerate(ids):
        order = sorted(range(len(ids)), key=lambda j: (-sims[i, j], ids[j]))[:5]
        assert [r for r, _, _ in stored[src]] == [1, 2, 3, 4, 5]
        assert [d for _, d, _ in stored[src]] == [ids[j] for j in order], src
        np.testing.assert_allclose([s for _, _, s in stored[src]], [sims[i, j] for j in order], atol=1e-6)


SHARED_AUTHOR_SQL = """SELECT dst, COUNT(DISTINCT aid) AS shared
FROM GRAPH_TABLE(research_graph
       MATCH (p1 IS paper) <-[w1 IS wrote]- (a IS author) -[w2 IS wrote]-> (p2 IS paper)
       WHERE p1.arxiv_id = :seed AND p2.arxiv_id <> p1.arxiv_id
       COLUMNS (p2.arxiv_id AS dst, a.author_id AS aid))
GROUP BY dst
ORDER BY dst"""


def shared_authors_reference(seed: str) -> dict[str, int]:
    authors_of = defaultdict(set)
    for author, paper in authorship_edges():
        authors_of[paper].add(author)
    return {p: len(authors_of[seed] & a) for p, a in sorted(authors_of.items())
            if p != seed and authors_of[seed] & a}


def test_graph_answers_shared_author_queries(built_conn):
    seeds = sorted(p["arxiv_id"] for p in load_papers())[::16]
    multi_hop = [q for q in load_golden_queries("papers") if q["intent"] == "multi-hop"]
    seeds += [q["seed"] for q in multi_hop]
    for seed in seeds:
        assert dict(rows(built_conn, SHARED_AUTHOR_SQL, {"seed": seed})) == shared_authors_reference(seed), seed
    for q in multi_hop:       # the golden judgements are exactly the shared-author papers (3 for two or more)
        got = dict(rows(built_conn, SHARED_AUTHOR_SQL, {"seed": q["seed"]}))
        assert {p: (3 if n >= 2 else q["relevance"][p]) for p, n in got.items()} == q["relevance"]


def test_similar_to_edges_carry_their_properties(built_conn):
    got = rows(built_conn, """SELECT dst, similarity, rank_no FROM GRAPH_TABLE(research_graph
                 MATCH (a IS paper) -[e IS similar_to]-> (b IS paper) WHERE a.arxiv_id = :seed
                 COLUMNS (b.arxiv_id AS dst, e.similarity AS similarity, e.rank_no AS rank_no)) ORDER BY rank_no""",
               {"seed": "2410.07433"})
    assert got == rows(built_conn, "SELECT dst_id, similarity, rank_no FROM paper_similarity WHERE src_id = :s "
                                   "ORDER BY rank_no", {"s": "2410.07433"})
    assert len(got) == 5


def test_search_indexes_answer(built_conn):
    hits = rows(built_conn, "SELECT chunk_id FROM research_chunks WHERE CONTAINS(text, :q, 1) > 0 AND tenant = 'globex'",
                {"q": "{ORA-51962}"})
    assert hits and all(any("ORA-51962" in c["text"] for c in load_chunks() if c["chunk_id"] == h) for (h,) in hits)
    paper = sorted(load_papers(), key=lambda p: p["arxiv_id"])[0]
    assert rows(built_conn, """SELECT arxiv_id FROM papers ORDER BY VECTOR_DISTANCE(embedding,
                  VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING :t AS data), COSINE) FETCH FIRST 1 ROWS ONLY""",
                {"t": paper["title"] + ". " + paper["abstract"]}) == [(paper["arxiv_id"],)]
