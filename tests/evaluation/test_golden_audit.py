"""The golden-set audit: content-word overlap, bare identifiers, and the properties that let a set decide, which
version 1 fails and version 2 passes."""
from __future__ import annotations

from workshop.data import load_chunks, load_golden_queries
from workshop.evaluation import golden_audit as ga


def test_content_words_drop_stopwords_and_stem():
    assert ga.shared_content_words("Which turns are evicted?", "The summary evicts old turns.") == {"turn", "evict"}
    assert ga.shared_content_words("How is memory forgotten?", "Retention deletes old records.") == set()
    assert {ga.stem(w) for w in ("indexes", "indexed", "indexing", "index")} == {"index"}
    assert ga.stem("queries") == ga.stem("query") and ga.stem("rules") == ga.stem("rule")
    assert ga.stem("class") == "class" and ga.stem("is") == "is"


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


def test_version_2_has_every_property_version_1_lacks():
    v1, v2 = load_golden_queries(), load_golden_queries(version=2)
    text = ga.chunk_texts()
    report = ga.decision_report({"v1": v1, "v2": v2}, text)
    one, two = report["v1"], report["v2"]
    # version 1, as measured (the motivation of version 2)
    assert one["bare codes among them"] >= one["identifier questions"] - 1
    assert one["paraphrases sharing a word with a grade-3 chunk"] == one["paraphrases"]
    assert one["unanswerable"] == 0 and one["pooled (grade-0 judgements)"] == 0
    # version 2, as built
    assert two["questions"] >= 120
    assert two["identifier questions"] - two["bare codes among them"] >= two["bare codes among them"]
    assert two["paraphrases"] >= 20 and ga.paraphrase_violations(v2, text) == {}
    assert two["comparisons"] >= 15 and two["scope questions (a scope or traps)"] >= 25
    assert two["unanswerable"] >= 10
    assert two["pooled (grade-0 judgements)"] == two["questions"]


def test_saturated_queries_are_perfect_under_every_strategy():
    import pandas as pd
    scores = pd.DataFrame([{"strategy": s, "query_id": q, "ndcg@10": v}
                           for s, q, v in (("a", "Q1", 1.0), ("b", "Q1", 1.0), ("a", "Q2", 1.0), ("b", "Q2", 0.5))])
    assert ga.saturated(scores) == ["Q1"]
