"""The golden-set audit: content-word overlap, bare identifiers, and what it says about version 1."""
from __future__ import annotations

from workshop.data import load_chunks, load_golden_queries
from workshop.evaluation import golden_audit as ga


def test_content_words_drop_stopwords_and_fold_plurals():
    assert ga.shared_content_words("Which turns are evicted?", "The summary evicts old turns.") == {"turn"}
    assert ga.shared_content_words("How is memory forgotten?", "Retention deletes old records.") == set()


def test_bare_identifiers():
    assert ga.bare_identifier("ORA-51962") and ga.bare_identifier("DRG-10599 MK-4012")
    assert ga.bare_identifier("memkeeper.summary.trigger_tokens") and ga.bare_identifier("23.26.0 VECTOR_MEMORY_SIZE")
    assert not ga.bare_identifier("Restart the listener")
    assert not ga.bare_identifier("What does ORA-51962 mean?") and not ga.bare_identifier("")


def test_paraphrase_violations_name_the_shared_words():
    queries = [{"query_id": "P", "intent": "paraphrase", "query": "forgetting old chats", "relevance": {"c1": 3, "c2": 1}},
               {"query_id": "X", "intent": "mixed", "query": "old", "relevance": {"c1": 3}}]
    chunks = {"c1": "Old conversations are pruned.", "c2": "forgetting"}
    assert ga.paraphrase_violations(queries, chunks) == {"P": {"c1": {"old"}}}


def test_the_audit_of_version_1_shows_why_it_cannot_decide():
    """Measured facts about v1 (the motivation of version 2), not a quality bar."""
    text = {c["chunk_id"]: c["text"] for c in load_chunks()}
    report = ga.audit(load_golden_queries(), text)
    identifiers = report[report.intent == "exact-identifier"]
    assert identifiers.bare_identifier.sum() == len(identifiers) - 1     # 20 of 21 are bare codes
    assert report.answerable.all()                                          # no unanswerable question
    assert ga.paraphrase_violations(load_golden_queries(), text)           # paraphrases share words
