"""Stage 1: the plan, and a lexical expression that never breaks CONTAINS."""
import pytest

from workshop.data import load_golden_queries
from workshop.pipeline.query import understand_query
from workshop.pipeline.running_question import QUESTION


def test_the_running_question_is_a_comparison_of_two_named_sources():
    plan = understand_query(QUESTION)
    assert {"Rolling Summaries", "memkeeper"} <= set(plan["entities"])
    assert plan["intent"] == "comparison" and plan["diversify_by"] == "document_id"
    assert plan["collections"] == ["ingested-papers", "runbooks"]
    assert "{memkeeper}" in plan["lex_query"] and "{eviction}" in plan["lex_query"]
    assert plan["token_budget"] > 0


def test_a_plain_question_is_searched_by_its_content_words():
    plan = understand_query("where do models attend least within a long context?")
    assert plan["expansions"] == [] and set(plan["entities"]) <= {"least"}      # rare in the corpus, not a name
    for word in ("models", "attend", "least", "long", "context"):
        assert "{" + word + "}" in plan["lex_query"]
    assert plan["diversify_by"] is None and plan["collections"] == ["ingested-papers", "vendor-docs", "blog",
                                                                    "runbooks"]


def test_quoted_names_keep_their_braces_escaped():
    assert "{odd}}name}" in understand_query('What does the "odd}name" runbook say?')["lex_query"]


def test_a_question_without_a_searchable_word_is_refused():
    for bad in ("", "   ", "the and of?"):
        with pytest.raises(ValueError):
            understand_query(bad)


def test_an_llm_hook_gives_the_same_fields():
    fixed = {"entities": ["Scout"], "expansions": [], "intent": "lookup", "collections": ["blog"], "token_budget": 300,
             "diversify_by": None}
    plan = understand_query("anything", llm=lambda q: fixed)
    assert plan["lex_query"] == "{Scout} ACCUM {anything}" and plan["question"] == "anything"   # + content words
    with pytest.raises(ValueError, match="lacks"):
        understand_query("anything", llm=lambda q: {"entities": []})


def test_every_golden_question_gives_an_expression_contains_accepts(secured):
    with secured.cursor() as cur:
        for q in load_golden_queries():
            expression = understand_query(q["query"])["lex_query"]
            cur.execute("SELECT COUNT(*) FROM research_chunks WHERE CONTAINS(text, :q, 1) > 0", q=expression)
            cur.fetchone()
        for reserved in ("near-duplicate chunks within NOT ABOUT", "ACCUM AND OR MINUS?"):
            cur.execute("SELECT COUNT(*) FROM research_chunks WHERE CONTAINS(text, :q, 1) > 0",
                        q=understand_query(reserved)["lex_query"])
            cur.fetchone()
