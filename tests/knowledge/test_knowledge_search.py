"""prepare_search (indexes, the one-statement rerank) and the hybrid search over AML_KNOWLEDGE_VS."""
from __future__ import annotations

import pytest
from langchain_oracledb.retrievers import OracleTextSearchRetriever
from langchain_oracledb.retrievers.text_search import _generate_accum_query

from workshop.knowledge import (hybrid_search_knowledge, open_knowledge_store, prepare_search, reranker_label,
                                seed_keyword_terms, to_hit)
from workshop.retrieval import keyword_terms
from workshop.retrieval.rrf import rrf_fuse

pytestmark = pytest.mark.slow
MODEL = "ALL_MINILM_L6_V2"


@pytest.fixture
def store(kconn, knowledge_db):
    return open_knowledge_store(kconn, MODEL)


def _indexes(conn) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute("SELECT index_name, index_type FROM user_indexes WHERE table_name = 'AML_KNOWLEDGE_VS' "
                    "ORDER BY index_name")
        return cur.fetchall()


def test_prepare_search_creates_the_two_indexes_once(kconn, store):
    before = _indexes(kconn)
    assert ("AML_KNOWLEDGE_HNSW", "VECTOR") in before and ("AML_KNOWLEDGE_TEXT_IDX", "DOMAIN") in before
    prepare_search(kconn, store)
    assert _indexes(kconn) == before


def _independent_scores(conn, query: str, texts: list[str]) -> list[float]:
    scores = []
    with conn.cursor() as cur:
        for text in texts:
            cur.execute("SELECT PREDICTION(RERANKER USING :q AS FIRST_INPUT, :d AS SECOND_INPUT) FROM dual", q=query, d=text)
            scores.append(cur.fetchone()[0])
    return scores


def test_rerank_orders_like_independent_prediction_queries_and_honours_top_k(kconn, store):
    rerank = prepare_search(kconn, store)
    query = "Where do we store transaction amounts?"
    candidates = [to_hit(d, distance=float(s)) for d, s in store.similarity_search_with_score(query, k=12)]
    ranked = rerank(query, candidates, top_k=5, content_key="body")
    assert len(ranked) == 5
    scores = [h["rerank_score"] for h in ranked]
    assert scores == sorted(scores, reverse=True)
    independent = _independent_scores(kconn, query, [c["body"] for c in candidates])
    expected = sorted(range(len(candidates)), key=lambda i: (-independent[i], i))[:5]
    assert [h["id"] for h in ranked] == [candidates[i]["id"] for i in expected]
    assert scores == pytest.approx([independent[i] for i in expected], abs=1e-6)
    assert rerank(query, [], top_k=5) == []
    assert len(rerank(query, candidates, top_k=50)) == len(candidates)


def test_rerank_scores_the_content_key(kconn, store):
    rerank = prepare_search(kconn, store)
    query = "loan interest rate"
    candidates = [to_hit(d) for d, _ in store.similarity_search_with_score(query, k=6)]
    by_subject = {h["id"]: h["rerank_score"] for h in rerank(query, candidates, top_k=6, content_key="subject")}
    independent = _independent_scores(kconn, query, [c["subject"] for c in candidates])
    assert [by_subject[c["id"]] for c in candidates] == pytest.approx(independent, abs=1e-6)


def test_reranked_tables_can_name_their_reranker_from_its_model_card(kconn):
    with kconn.cursor() as cur:
        cur.execute("SELECT comments FROM user_mining_models WHERE model_name = 'RERANKER'")
        card = cur.fetchone()[0]
    assert card and card in reranker_label(kconn)


def test_asking_for_rate_bp_by_name_puts_it_first_through_the_keyword_leg(store):
    hits = hybrid_search_knowledge(store, "which column holds RATE_BP")
    assert hits[0]["subject"] == "FINANCE.LOANS.RATE_BP" and hits[0]["txt_rank"] == 1
    assert len(hits) == 5 and all({"vec_rank", "txt_rank", "rrf_score", "body", "kind"} <= set(h) for h in hits)


def test_a_paraphrase_is_rescued_by_the_keyword_leg(store):
    vector_only = [d.metadata["subject"] for d in store.similarity_search("Which column has the loan interest rate?",
                                                                          k=5)]
    hits = hybrid_search_knowledge(store, "Which column has the loan interest rate?")
    assert vector_only.index("FINANCE.LOANS.RATE_BP") > 0
    assert hits[0]["subject"] == "FINANCE.LOANS.RATE_BP" and hits[0]["txt_rank"] == 1


@pytest.mark.parametrize("question", ["which column holds RATE_BP", "Where do we store transaction amounts?",
                                      "structuring below the threshold", "ORA-29855 and CTXAPP?"])
def test_the_fusion_agrees_with_the_series_rrf(store, question):
    vector = [d.id for d, _ in store.similarity_search_with_score(question, k=30)]
    text_query = keyword_terms(question)
    keyword = ([d.id for d in OracleTextSearchRetriever(vector_store=store, k=30, operator_search=True)
                .invoke(text_query)] if text_query else [])
    fused = rrf_fuse({"vector": vector, "keyword": keyword}, k=60)[:5]
    hits = hybrid_search_knowledge(store, question)
    assert [h["id"] for h in hits] == [i for i, _ in fused]
    assert [h["rrf_score"] for h in hits] == pytest.approx([s for _, s in fused])
    for hit in hits:
        assert hit["vec_rank"] == (vector.index(hit["id"]) + 1 if hit["id"] in vector else None)
        assert hit["txt_rank"] == (keyword.index(hit["id"]) + 1 if hit["id"] in keyword else None)


def test_both_keyword_designs_find_rate_bp_and_operator_search_matters(store):
    question = "which column holds RATE_BP"
    assert seed_keyword_terms("which column is RATE_BP?") == "column rate bp"          # the seed's own example
    seed = OracleTextSearchRetriever(vector_store=store, k=5).invoke(seed_keyword_terms(question))
    series = OracleTextSearchRetriever(vector_store=store, k=5, operator_search=True).invoke(keyword_terms(question))
    assert "FINANCE.LOANS.RATE_BP" in [d.metadata["subject"] for d in seed]
    assert series[0].metadata["subject"] == "FINANCE.LOANS.RATE_BP"
    assert '"ACCUM"' in _generate_accum_query(keyword_terms(question))     # what operator_search=False would send


def test_a_question_without_searchable_terms_skips_the_keyword_leg(store):
    hits = hybrid_search_knowledge(store, "the of and?")
    assert hits and all(h["txt_rank"] is None for h in hits)


@pytest.mark.parametrize("question", ["", "   "])
def test_an_empty_question_is_refused_with_a_clear_message(store, question):
    # Oracle embeds '' as NULL, so the vector leg would have no distance to rank by.
    with pytest.raises(ValueError, match="needs a question"):
        hybrid_search_knowledge(store, question)
