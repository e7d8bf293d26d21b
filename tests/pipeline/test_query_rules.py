"""Stage 1's rules on examples of each kind (issue 22), and stage 2's routing against the data.

Entities are what the data says names something (quoted, known product or paper name, identifier-like, rare in
the knowledge base), never a word for being capitalised; the lexical expression always holds the question's
content words; routing narrows only when the narrowed scope still fills a pool, and the plan says what it did.
"""
from __future__ import annotations

import re

import pytest

from workshop.embedded import connect
from workshop.pipeline import routing, security
from workshop.pipeline.corpus_terms import term_statistics, title_name
from workshop.pipeline.query import (ALL_COLLECTIONS, find_entities, is_identifier, is_rare, lexical_expression,
                                     understand_query)
from workshop.retrieval.keywords import DEFAULT_STOPWORDS


def _terms(expression: str) -> list[str]:
    return [t.replace("}}", "}").lower() for t in re.findall(r"\{((?:[^}]|\}\})*)\}", expression)]


# --------------------------------------------------------------------------- entities
ENTITY_CASES = [
    # (question, must be entities, must not be entities)
    pytest.param("What does MK-3307 mean on the summariser dashboard?", ["MK-3307"], [], id="code-MK-3307"),
    pytest.param("Why does ORA-51962 appear after a restart?", ["ORA-51962"], ["After"], id="oracle-error-code"),
    pytest.param("What is vector_memory_size for?", ["vector_memory_size"], [], id="underscore-setting"),
    pytest.param("When does DBMS_VECTOR.LOAD_ONNX_MODEL fail?", ["DBMS_VECTOR.LOAD_ONNX_MODEL"], [],
                 id="dotted-identifier-whole"),
    pytest.param("When should I choose IVF over HNSW?", ["IVF", "HNSW"], [], id="acronyms-two-capitals"),
    pytest.param('What does the "odd name" runbook say?', ["odd name"], [], id="quoted-phrase"),
    pytest.param("how does memkeeper purge episodes?", ["memkeeper"], [], id="known-product-lower-case"),
    pytest.param("what does the rolling summaries paper recommend?", ["rolling summaries"], [],
                 id="paper-name-from-a-title"),
    pytest.param("How does time-to-live work for episode rows?", ["time-to-live"], [], id="rare-in-the-corpus"),
    pytest.param("Prior to the upgrade, which index was used?", [], ["Prior"], id="sentence-initial-Prior"),
    pytest.param("Photocopied forms: how are they searched?", [], ["Photocopied"], id="sentence-initial-unknown-word"),
    pytest.param("Distilling long chats: what gets kept?", [], ["Distilling"], id="sentence-initial-Distilling"),
    pytest.param("Compare keyword and vector search.", [], ["Compare", "Keyword"], id="capitalised-common-words"),
    pytest.param("What does the paper say about it?", [], ["say"], id="rare-in-corpus-but-a-general-word"),
    pytest.param("how does langchain store memories?", ["langchain"], [], id="rare-and-outside-the-vocabulary"),
    pytest.param("Does it run on pgvector?", [], ["pgvector"], id="a-word-the-corpus-never-uses"),
]


@pytest.mark.parametrize("question, wanted, unwanted", ENTITY_CASES)
def test_entities_are_what_the_data_says_names_something(question, wanted, unwanted):
    found = [e.lower() for e in find_entities(question)]
    for name in wanted:
        assert name.lower() in found, (question, found)
    for word in unwanted:
        assert word.lower() not in found, (question, found)


@pytest.mark.parametrize("term, expected", [
    pytest.param("MK-3307", True, id="digit"), pytest.param("vector_memory_size", True, id="underscore"),
    pytest.param("lattice.chunk.max_words", True, id="inner-dot"), pytest.param("OracleVS", True, id="inner-capital"),
    pytest.param("Prior", False, id="one-leading-capital"), pytest.param("search", False, id="plain-word"),
    pytest.param("e.g", True, id="dotted-abbreviation-counts-as-shape"),
])
def test_identifier_shape(term, expected):
    assert is_identifier(term) is expected


def test_rarity_comes_from_the_corpus_document_frequencies():
    stats = term_statistics()
    assert stats.document_frequency("time-to-live") == 1 and is_rare("time-to-live")
    assert stats.document_frequency("memory") > 0.03 * stats.chunks and not is_rare("memory")
    assert stats.document_frequency("photocopied") == 0 and not is_rare("photocopied")   # names nothing here
    assert stats.document_frequency("say") <= 0.03 * stats.chunks and not is_rare("say")  # a general English word


@pytest.mark.parametrize("title, name", [
    pytest.param("Rolling Summaries: Compressing Long Conversations", "Rolling Summaries", id="paper"),
    pytest.param("Runbook: Vector Pool Sizing", None, id="runbook-prefix"),
    pytest.param("Cross-Encoder Reranking on a Budget", None, id="no-colon"),
])
def test_names_from_titles(title, name):
    assert title_name(title) == name


# --------------------------------------------------------------------------- the lexical expression
EXPRESSION_CASES = [
    pytest.param("Prior to the upgrade, which index was used?", id="capitalised-first-word"),
    pytest.param("Photocopied forms: how are they searched?", id="unknown-first-word"),
    pytest.param("What does the Rolling Summaries paper say about evicting old turns?", id="entities-and-thesaurus"),
    pytest.param("How do I fix ORA-51962 after a restart?", id="identifier-in-a-sentence"),
    pytest.param("ORA-51950", id="bare-code"),
    pytest.param("the assistant failed to honour a pledge it gave somebody", id="paraphrase"),
]


@pytest.mark.parametrize("question", EXPRESSION_CASES)
def test_the_expression_keeps_every_content_word_and_no_stop_word(question):
    plan = understand_query(question)
    terms = _terms(plan["lex_query"])
    words = [w for w in re.findall(r"[^\W_]+(?:[-_.][^\W_]+)*", question) if w.lower() not in DEFAULT_STOPWORDS]
    for word in words:
        assert word.lower() in terms, (word, plan["lex_query"])
    assert not set(terms) & DEFAULT_STOPWORDS
    for term in plan["entities"] + plan["expansions"]:
        assert term.lower() in terms


def test_the_expression_names_each_term_once_and_the_joiner_is_a_choice():
    expression = lexical_expression(["memkeeper", "Memkeeper"], ["retention"], "memkeeper retention policy",
                                    joiner=" OR ")
    assert _terms(expression) == ["memkeeper", "retention", "policy"] and " OR " in expression


def test_an_entity_weight_is_written_as_oracle_text_weight():
    assert lexical_expression(["HNSW"], [], "HNSW index", entity_weight=2).startswith("{HNSW}*2")


# --------------------------------------------------------------------------- routing (stage 2, against the data)
ROUTING_CASES = [
    # (tenant, question, decision, collections after routing)
    pytest.param("acme", "What does the manual say about HNSW?", "narrowed", ["vendor-docs"],
                 id="acme-manual-enough-vendor-docs"),
    pytest.param("globex", "What does the manual say about HNSW?", "widened", list(ALL_COLLECTIONS),
                 id="globex-manual-too-few-vendor-docs"),
    pytest.param("initech", "What does the manual say about HNSW?", "widened", list(ALL_COLLECTIONS),
                 id="initech-manual-no-vendor-docs"),
    pytest.param("acme", "What does the Rolling Summaries paper say, compared to the retention runbook?", "narrowed",
                 ["ingested-papers", "runbooks"], id="acme-two-collections"),
    pytest.param("acme", "How does HNSW search work?", "all", list(ALL_COLLECTIONS), id="no-collection-named"),
]


@pytest.mark.parametrize("tenant, question, decision, collections", ROUTING_CASES)
def test_routing_narrows_only_when_the_scope_still_fills_a_pool(secured_db, tenant, question, decision,
                                                                 collections):
    conn = connect(secured_db)
    try:
        security.set_tenant(conn, tenant)
        plan = routing.route_collections(conn, understand_query(question), user_id="eval-user")
        assert plan["routing"]["decision"] == decision, plan["routing"]
        assert plan["collections"] == collections
        if decision != "all":
            count = plan["routing"]["candidates"]
            assert (count >= routing.MIN_CANDIDATES) == (decision == "narrowed")
    finally:
        conn.close()


def test_routing_counts_only_what_the_session_may_see(secured_db):
    """The count runs under row-level security: with no tenant set, nothing is visible and the plan widens."""
    conn = connect(secured_db)
    try:
        security.set_tenant(conn, None)
        plan = routing.route_collections(conn, understand_query("What does the manual say?"), user_id="eval-user")
        assert plan["routing"] == {"named": ["vendor-docs"], "candidates": 0, "decision": "widened"}
    finally:
        conn.close()
