"""Reciprocal Rank Fusion: rrf_fuse against hand-computed numbers, and the SQL statement against rrf_fuse."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.retrieval.conftest import DOCS, QUERY_VECTOR
from workshop.retrieval import (hybrid_rrf, hybrid_rrf_sql, keyword_search, keyword_terms, rrf_fuse,
                                vector_search)

# --------------------------------------------------------------------------- rrf_fuse by hand

RANKINGS = {"vector": ["a", "b", "c"], "keyword": ["c", "a", "d"]}


def test_rrf_fuse_matches_the_formula_by_hand():
    # k = 60: a = 1/61 + 1/62, c = 1/63 + 1/61, b = 1/62, d = 1/63
    expected = [("a", 0.03252247488101534), ("c", 0.032266458495966696),
                ("b", 0.016129032258064516), ("d", 0.015873015873015872)]
    fused = rrf_fuse(RANKINGS)
    assert [i for i, _ in fused] == [i for i, _ in expected]
    assert [s for _, s in fused] == pytest.approx([s for _, s in expected], rel=1e-15)


def test_rrf_fuse_weights_by_hand():
    # vector votes count twice: a = 2/61 + 1/62, c = 2/63 + 1/61, b = 2/62, d = 1/63
    fused = rrf_fuse(RANKINGS, weights={"vector": 2.0})
    assert fused == [("a", pytest.approx(0.04891591750396616)), ("c", pytest.approx(0.04813947436898257)),
                     ("b", pytest.approx(0.03225806451612903)), ("d", pytest.approx(0.015873015873015872))]


def test_rrf_fuse_k_changes_the_order():
    # k = 0: rank 1 is worth 1, rank 2 worth 1/2: "x" first in one list only beats "y" second in both
    fused = rrf_fuse({"a": ["x", "y"], "b": ["z", "y"]}, k=0)
    assert dict(fused) == {"x": 1.0, "y": 1.0, "z": 1.0}
    assert [i for i, _ in fused] == ["x", "y", "z"]            # equal scores: smaller id first
    large = rrf_fuse({"a": ["x", "y"], "b": ["z", "y"]}, k=60)
    assert large[0][0] == "y"                                  # with k = 60 agreement wins


def test_rrf_fuse_ties_break_by_id_and_single_list_keeps_order():
    assert [i for i, _ in rrf_fuse({"p": [2, 1], "q": [1, 2]})] == [1, 2]
    assert [i for i, _ in rrf_fuse({"only": [5, 3, 9]})] == [5, 3, 9]
    assert rrf_fuse({}) == [] and rrf_fuse({"empty": []}) == []


@pytest.mark.parametrize("call, error", [
    (lambda: rrf_fuse({"a": [1, 1]}), ValueError),
    (lambda: rrf_fuse({"a": [1]}, weights={"b": 2}), ValueError),
    (lambda: rrf_fuse({"a": [1]}, k=-1), ValueError),
    (lambda: rrf_fuse({"a": [1]}, weights={"a": -1}), ValueError),
    (lambda: rrf_fuse({"a": [1, "x"]}), TypeError),
    (lambda: rrf_fuse({"a": "abc"}), TypeError),
])
def test_rrf_fuse_rejects_bad_input(call, error):
    with pytest.raises(error):
        call()


# --------------------------------------------------------------------------- the SQL form

def numpy_cosine_ranking(query, ids=None, n=None):
    """Reference vector leg: cosine distance computed with numpy, ties by id."""
    rows = [(i, v) for i, _, _, _, v in DOCS if ids is None or i in ids]
    q = np.asarray(query, dtype=np.float64)
    dist = [(1 - np.dot(v, q) / (np.linalg.norm(v) * np.linalg.norm(q)), i) for i, v in rows]
    return [i for _, i in sorted(dist)][:n]


def test_sql_text_is_the_lesson():
    sql = hybrid_rrf_sql("chunks", "text", "embedding", [1.0, 0.0], "{vector}").sql
    for piece in ("WITH vector_ranks AS (", "keyword_ranks AS (", "fused AS (",
                  "ROW_NUMBER() OVER (ORDER BY VECTOR_DISTANCE(embedding, :query_vector, COSINE), id)",
                  "ROW_NUMBER() OVER (ORDER BY SCORE(1) DESC, id)", "WHERE CONTAINS(text, :keywords, 1) > 0",
                  "FETCH FIRST :candidates ROWS ONLY", "FULL OUTER JOIN keyword_ranks kw ON kw.id = v.id",
                  "NVL(1 / (:rrf_k + v.vector_rank), 0)", "NVL(1 / (:rrf_k + kw.keyword_rank), 0)",
                  "ORDER BY rrf_score DESC, id", "FETCH FIRST :top_k ROWS ONLY"):
        assert piece in sql, piece


def test_sql_rrf_equals_rrf_fuse_on_known_vectors(docs_conn):
    keywords = keyword_terms("keyword search vector")
    vector_leg = numpy_cosine_ranking(QUERY_VECTOR, n=5)
    assert vector_leg == [1, 2, 4, 5, 6]
    keyword_leg = list(keyword_search(docs_conn, "docs", "body", "keyword search vector", 5)["id"])
    expected = rrf_fuse({"vector": vector_leg, "keyword": keyword_leg})
    got = hybrid_rrf(docs_conn, "docs", "body", "embedding", "keyword search vector", k=10, candidates=5,
                     query_vector=QUERY_VECTOR, columns=["title"])
    assert got.attrs["keywords"] == keywords
    assert list(got["id"]) == [i for i, _ in expected]
    assert list(got["rrf_score"]) == pytest.approx([s for _, s in expected], rel=1e-12)
    ranks = {i: (vector_leg.index(i) + 1 if i in vector_leg else None,
                 keyword_leg.index(i) + 1 if i in keyword_leg else None) for i, _ in expected}
    assert list(zip(ints(got["vector_rank"]), ints(got["keyword_rank"]))) == [ranks[i] for i in got["id"]]
    assert list(got["title"]) == [next(t for j, _, t, _, _ in DOCS if j == i) for i in got["id"]]


def ints(series):
    return [None if pd.isna(v) else int(v) for v in series]


def test_sql_rrf_with_filters_and_weights(docs_conn):
    acme = {i for i, tenant, _, _, _ in DOCS if tenant == "acme"}
    vector_leg = numpy_cosine_ranking(QUERY_VECTOR, ids=acme, n=3)
    keyword_leg = list(keyword_search(docs_conn, "docs", "body", "keyword search", 3, {"tenant": "acme"})["id"])
    assert set(keyword_leg) <= acme and keyword_leg
    weights = {"vector": 0.5, "keyword": 2.0}
    expected = rrf_fuse({"vector": vector_leg, "keyword": keyword_leg}, k=10, weights=weights)
    got = hybrid_rrf(docs_conn, "docs", "body", "embedding", "keyword search", k=4, candidates=3, rrf_k=10,
                     weights=weights, filters={"tenant": "acme"}, query_vector=QUERY_VECTOR)
    assert list(got["id"]) == [i for i, _ in expected][:4]
    assert list(got["rrf_score"]) == pytest.approx([s for _, s in expected][:4], rel=1e-12)


def test_sql_rrf_without_keywords_is_the_vector_leg(docs_conn):
    got = hybrid_rrf(docs_conn, "docs", "body", "embedding", "what is it?", k=3, candidates=5,
                     query_vector=QUERY_VECTOR)
    assert got.attrs["keywords"] is None and got.attrs["legs"] == ("vector",)
    assert "keyword_ranks" not in got.attrs["sql"]
    assert list(got["id"]) == [1, 2, 4]
    assert list(got["rrf_score"]) == pytest.approx([1 / 61, 1 / 62, 1 / 63])
    assert got["keyword_rank"].isna().all()


WORDS = ["keyword", "search", "vector", "ORA-51962", "graph", "memory", "pool", "the", "fusion", "index",
         "vector_memory_size", "absent"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.lists(st.integers(-3, 3), min_size=4, max_size=4).filter(any),
       words=st.lists(st.sampled_from(WORDS), max_size=4),
       candidates=st.integers(1, 8), top_k=st.integers(1, 9), rrf_k=st.integers(0, 100),
       weights=st.one_of(st.none(), st.fixed_dictionaries({"vector": st.sampled_from([0.25, 1.0, 3.0]),
                                                            "keyword": st.sampled_from([0.5, 1.0, 2.0])})),
       tenant=st.sampled_from([None, "acme", ["acme", "globex"]]))
def test_fuzz_sql_rrf_equals_rrf_fuse_over_the_same_legs(docs_conn, query, words, candidates, top_k, rrf_k,
                                                         weights, tenant):
    text = " ".join(words)
    filters = {"tenant": tenant} if tenant else None
    vector_leg = list(vector_search(docs_conn, "docs", "embedding", [float(x) for x in query], candidates,
                                    filters)["id"])
    legs = {"vector": vector_leg}
    if keyword_terms(text) is not None:
        legs["keyword"] = list(keyword_search(docs_conn, "docs", "body", text, candidates, filters)["id"])
    expected = rrf_fuse(legs, k=rrf_k, weights={n: w for n, w in (weights or {}).items() if n in legs})[:top_k]
    got = hybrid_rrf(docs_conn, "docs", "body", "embedding", text, k=top_k, candidates=candidates, rrf_k=rrf_k,
                     weights=weights, filters=filters, query_vector=[float(x) for x in query])
    assert list(got["id"]) == [i for i, _ in expected]
    assert list(got["rrf_score"]) == pytest.approx([s for _, s in expected], rel=1e-12)
