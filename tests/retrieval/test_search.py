"""The notebook search helpers: results against numpy / direct SQL references, filters, bind-only SQL."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.retrieval.conftest import DOCS, QUERY_VECTOR
from workshop.retrieval import (hybrid_postfilter, hybrid_prefilter, hybrid_rrf, keyword_search, prefilter_sql,
                                vector_search, vector_search_sql)


def numpy_distances(query, metric="COSINE"):
    q = np.asarray(query, dtype=np.float64)
    out = {}
    for i, _, _, _, v in DOCS:
        v = np.asarray(v, dtype=np.float64)
        if metric == "COSINE":
            out[i] = 1 - v @ q / (np.linalg.norm(v) * np.linalg.norm(q))
        elif metric == "EUCLIDEAN":
            out[i] = float(np.linalg.norm(v - q))
        elif metric == "DOT":
            out[i] = -float(v @ q)
    return out


def contains_ids(conn, query, tenant=None):
    sql = "SELECT id FROM docs WHERE CONTAINS(body, :q, 1) > 0" + (" AND tenant = :t" if tenant else "")
    with conn.cursor() as cur:
        cur.execute(sql, {"q": query, **({"t": tenant} if tenant else {})})
        return {r[0] for r in cur.fetchall()}


def tenant_of(i):
    return next(t for j, t, _, _, _ in DOCS if j == i)


# --------------------------------------------------------------------------- keyword


def test_keyword_search_ranks_by_score(docs_conn):
    df = keyword_search(docs_conn, "docs", "body", "What does ORA-51962 mean?", k=5, columns=["title", "body"])
    assert list(df.columns) == ["rank", "id", "score", "title", "body"]
    assert list(df["id"]) == [2, 5]                    # doc 2 says ORA-51962 twice
    assert list(df["rank"]) == [1, 2]
    assert df["score"].iloc[0] > df["score"].iloc[1] > 0
    assert isinstance(df["body"].iloc[0], str) and "ORA-51962" in df["body"].iloc[0]   # CLOB fetched as text
    assert df.attrs["strategy"] == "keyword"
    assert df.attrs["keywords"] == "{ORA-51962} ACCUM {mean}"
    assert df.attrs["binds"] == {"keywords": "{ORA-51962} ACCUM {mean}", "top_k": 5}
    assert "WHERE CONTAINS(body, :keywords, 1) > 0" in df.attrs["sql"]


def test_keyword_search_filters_modes_and_raw_queries(docs_conn):
    assert list(keyword_search(docs_conn, "docs", "body", "ORA-51962", 5, {"tenant": "globex"})["id"]) == [5]
    both = keyword_search(docs_conn, "docs", "body", "keyword vector", 10, mode="and")
    assert set(both["id"]) == contains_ids(docs_conn, "keyword AND vector") == {4}
    either = keyword_search(docs_conn, "docs", "body", "graph hnsw", 10, mode="or")
    assert set(either["id"]) == {1, 6}
    raw = keyword_search(docs_conn, "docs", "body", "", 10, contains_query="vector NOT pool")
    assert set(raw["id"]) == contains_ids(docs_conn, "vector NOT pool") == {1, 4, 5}
    assert len(keyword_search(docs_conn, "docs", "body", "search", k=2)) == 2


def test_keyword_search_without_terms_runs_nothing():
    df = keyword_search(None, "docs", "body", "What is it, and why?", 5, columns=["title"])   # conn unused
    assert df.empty and list(df.columns) == ["rank", "id", "score", "title"]
    assert df.attrs["keywords"] is None and df.attrs["binds"]["keywords"] is None
    assert "not run" in df.attrs["note"] and "CONTAINS" in df.attrs["sql"]


# --------------------------------------------------------------------------- vector


@pytest.mark.parametrize("metric", ["COSINE", "EUCLIDEAN", "DOT"])
def test_vector_search_matches_numpy(docs_conn, metric):
    query = (0.8, 0.2, 0.1, 0.0)
    ref = numpy_distances(query, metric)
    expected = sorted(ref, key=lambda i: (ref[i], i))[:4]
    df = vector_search(docs_conn, "docs", "embedding", np.array(query), k=4, metric=metric.lower())
    assert list(df.columns) == ["rank", "id", "distance"]
    assert list(df["id"]) == expected
    assert list(df["distance"]) == pytest.approx([ref[i] for i in expected], abs=1e-6)
    assert f", {metric})" in df.attrs["sql"]


def test_vector_search_filters_and_inputs(docs_conn):
    df = vector_search(docs_conn, "docs", "embedding", list(QUERY_VECTOR), 10, {"tenant": ["globex", "initech"]},
                       columns=["tenant"])
    assert list(df["id"]) == [5, 6, 3]
    assert set(df["tenant"]) == {"globex", "initech"}
    assert "WHERE tenant IN (:f_tenant_1, :f_tenant_2)" in df.attrs["sql"]
    as_f32 = vector_search(docs_conn, "docs", "embedding", np.array(QUERY_VECTOR, dtype=np.float32), 3)
    assert list(as_f32["id"]) == [1, 2, 4]
    assert vector_search(docs_conn, "docs", "embedding", QUERY_VECTOR, 3, {"tenant": None}).empty


def test_vector_search_text_needs_a_model():
    with pytest.raises(ValueError, match="model="):
        vector_search_sql("docs", "embedding", "a question", 3)
    with pytest.raises(ValueError, match="model= is only used"):
        vector_search_sql("docs", "embedding", [1.0, 0.0], 3, model="ALL_MINILM_L6_V2")
    statement = vector_search_sql("docs", "embedding", "a question", 3, model="ALL_MINILM_L6_V2")
    assert "VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING :query_text AS data), COSINE)" \
        in statement.sql
    assert statement.binds == {"query_text": "a question", "top_k": 3}
    hybrid = prefilter_sql("docs", "body", "embedding", "a question", "{question}", 3, model="ALL_MINILM_L6_V2")
    assert ":query_text" in hybrid.sql and hybrid.binds["query_text"] == "a question"


# --------------------------------------------------------------------------- hybrid


def test_prefilter_keeps_keyword_rows_ordered_by_distance(docs_conn):
    df = hybrid_prefilter(docs_conn, "docs", "body", "embedding", "keyword search", k=10,
                          query_vector=QUERY_VECTOR, columns=["title"])
    hits = contains_ids(docs_conn, "{keyword} ACCUM {search}")
    ref = numpy_distances(QUERY_VECTOR)
    assert list(df["id"]) == sorted(hits, key=lambda i: (ref[i], i))
    assert list(df["distance"]) == pytest.approx([ref[i] for i in df["id"]], abs=1e-6)
    assert (df["keyword_score"] > 0).all()
    assert list(df.columns) == ["rank", "id", "distance", "keyword_score", "title"]
    filtered = hybrid_prefilter(docs_conn, "docs", "body", "embedding", "keyword search", k=10,
                                filters={"tenant": "acme"}, query_vector=QUERY_VECTOR)
    assert list(filtered["id"]) == [i for i in df["id"] if tenant_of(i) == "acme"]


def test_postfilter_filters_the_vector_candidates(docs_conn):
    ref = numpy_distances(QUERY_VECTOR)
    order = sorted(ref, key=lambda i: (ref[i], i))
    hits = contains_ids(docs_conn, "{keyword} ACCUM {search}")
    for candidates in (3, 5, 7):
        df = hybrid_postfilter(docs_conn, "docs", "body", "embedding", "keyword search", k=10,
                               candidates=candidates, query_vector=QUERY_VECTOR)
        assert list(df["id"]) == [i for i in order[:candidates] if i in hits]
    few = hybrid_postfilter(docs_conn, "docs", "body", "embedding", "keyword", k=3, candidates=3,
                            query_vector=QUERY_VECTOR)
    assert list(few["id"]) == [4]          # fewer than k: of the 3 nearest rows only 4 says "keyword"
    pre = hybrid_prefilter(docs_conn, "docs", "body", "embedding", "keyword", k=3, query_vector=QUERY_VECTOR)
    assert list(pre["id"]) == [4, 6, 3]    # the pre-filter fills k from all keyword rows


def test_hybrid_without_keywords(docs_conn):
    for helper in (hybrid_prefilter, hybrid_postfilter):
        df = helper(None, "docs", "body", "embedding", "the of and", query_vector=QUERY_VECTOR)
        assert df.empty and df.attrs["keywords"] is None
    rrf = hybrid_rrf(docs_conn, "docs", "body", "embedding", "the of and", k=2, query_vector=QUERY_VECTOR)
    assert list(rrf["id"]) == [1, 2]


def test_keyword_leg_needs_text():
    with pytest.raises(TypeError, match="query_vector="):
        hybrid_prefilter(None, "docs", "body", "embedding", [1.0, 0.0, 0.0, 0.0])


# --------------------------------------------------------------------------- safety: names checked, values bound

HOSTILE = "x'); DROP TABLE docs; --"


def test_user_text_never_enters_the_sql(docs_conn):
    results = [
        keyword_search(docs_conn, "docs", "body", HOSTILE + " vector", 5, {"tenant": HOSTILE}),
        vector_search(docs_conn, "docs", "embedding", QUERY_VECTOR, 5, {"tenant": HOSTILE}),
        hybrid_prefilter(docs_conn, "docs", "body", "embedding", HOSTILE + " vector", 5, {"tenant": HOSTILE},
                         query_vector=QUERY_VECTOR),
        hybrid_postfilter(docs_conn, "docs", "body", "embedding", HOSTILE + " vector", 5, 5, {"tenant": HOSTILE},
                          query_vector=QUERY_VECTOR),
        hybrid_rrf(docs_conn, "docs", "body", "embedding", HOSTILE + " vector", 5, 5, filters={"tenant": HOSTILE},
                   query_vector=QUERY_VECTOR),
    ]
    for df in results:
        assert "DROP" not in df.attrs["sql"] and "'" not in df.attrs["sql"]
        assert df.empty                                  # no tenant is called that
        assert HOSTILE in df.attrs["binds"].values()
    assert len(vector_search(docs_conn, "docs", "embedding", QUERY_VECTOR, 10)) == len(DOCS)   # table intact


@pytest.mark.parametrize("kwargs, message", [
    ({"table": "docs; DROP TABLE docs"}, "table"),
    ({"table": "a.b.c"}, "table"),
    ({"text_column": "body) > 0 OR (1"}, "text column"),
    ({"embedding_column": "embedding, embedding"}, "embedding column"),
    ({"id_column": "1id"}, "id column"),
    ({"columns": ["title", "body FROM docs --"]}, "column"),
    ({"filters": {"tenant = 'x' OR 1=1 --": "acme"}}, "filter column"),
    ({"metric": "COSINE) --"}, "metric"),
    ({"model": "m USING x"}, "model"),
    ({"k": 0}, "k"),
    ({"k": True}, "k"),
    ({"candidates": -1}, "candidates"),
])
def test_bad_names_and_numbers_are_rejected(kwargs, message):
    args = {"table": "docs", "text_column": "body", "embedding_column": "embedding", "query": "vector",
            "k": 3, "candidates": 5, "query_vector": QUERY_VECTOR}
    args.update(kwargs)
    if "model" in kwargs:
        args["query_vector"] = None
    conn = args.pop("conn", None)
    with pytest.raises(ValueError, match=message):
        hybrid_postfilter(conn, **args)


@pytest.mark.parametrize("filters, error", [
    ({"tenant": {"$eq": "acme"}}, TypeError),
    ({"tenant": []}, ValueError),
    ({"tenant": {"acme"}}, TypeError),
    ({"Tenant": "a", "tenant": "b"}, ValueError),
])
def test_unsupported_filters_raise(filters, error):
    with pytest.raises(error):
        vector_search_sql("docs", "embedding", QUERY_VECTOR, 3, filters)


def test_column_clashes_and_vector_types():
    with pytest.raises(ValueError, match="repeat"):
        vector_search_sql("docs", "embedding", QUERY_VECTOR, 3, columns=["distance"])
    with pytest.raises(TypeError, match="sequence"):
        vector_search_sql("docs", "embedding", QUERY_VECTOR, 3, columns="title")
    with pytest.raises(TypeError, match="int8"):
        vector_search_sql("docs", "embedding", np.array([1, 2], dtype=np.int64), 3)
    with pytest.raises(TypeError):
        vector_search_sql("docs", "embedding", [], 3)
    assert vector_search_sql("docs", "embedding", np.array([1, 2], dtype=np.int8), 3).binds["query_vector"].typecode == "b"


def test_result_frames_are_plain_pandas(docs_conn):
    df = hybrid_rrf(docs_conn, "docs", "body", "embedding", "keyword search", 10, 3, query_vector=QUERY_VECTOR,
                    columns=["title"])
    assert isinstance(df, pd.DataFrame)
    assert str(df["vector_rank"].dtype) == "Int64" and str(df["keyword_rank"].dtype) == "Int64"
    assert df["rrf_score"].is_monotonic_decreasing
