"""budget_context: a greedy pass, never truncation (pure function, no database)."""
import pytest

from workshop.memory.tokens import estimate_tokens
from workshop.pipeline.budget import budget_context, jaccard, shingles


def row(rid, doc, score, words, seed=None):
    text = " ".join(f"{seed or rid}w{n}" for n in range(words))
    return {"id": rid, "document_id": doc, "version": "1.0", "content": text, "rerank_score": score}


def test_the_budget_holds_and_no_chunk_is_cut():
    rows = [row(f"R{n}", f"D{n}", 0.9 - n * 0.01, 50) for n in range(10)]
    kept, report = budget_context(rows, max_tokens=300)
    assert sum(estimate_tokens(r["content"]) for r in kept) <= 300 == report["max_tokens"]
    assert all(r["content"] == next(x for x in rows if x["id"] == r["id"])["content"] for r in kept)
    assert report["tokens"] == sum(r["tokens"] for r in kept)


def test_a_shorter_chunk_further_down_still_fits():
    rows = [row("A", "D1", 0.9, 40), row("B", "D2", 0.89, 400), row("C", "D3", 0.88, 20)]
    kept, report = budget_context(rows, max_tokens=estimate_tokens(rows[0]["content"] + rows[2]["content"]) + 1)
    assert [r["id"] for r in kept] == ["A", "C"]
    assert dict(report["dropped"])["B"].startswith("over budget")


def test_a_comparison_keeps_the_second_source_even_when_the_top_is_one_document():
    rows = [row(f"A{n}", "DOC-A", 0.9 - n * 0.01, 40) for n in range(5)] + [row("B1", "DOC-B", 0.84, 40)]
    budget = sum(estimate_tokens(r["content"]) for r in rows[:3])
    plain, _ = budget_context(rows, max_tokens=budget)
    diverse, _ = budget_context(rows, max_tokens=budget, diversify_by="document_id")
    assert "B1" not in {r["id"] for r in plain}
    assert "B1" in {r["id"] for r in diverse}
    assert [r["id"] for r in diverse] == sorted((r["id"] for r in diverse), key=[x["id"] for x in rows].index)


def test_near_duplicates_are_dropped_and_reported():
    rows = [row("G1", "D1", 0.95, 60, "same"), row("G2", "D2", 0.94, 60, "same"), row("G3", "D3", 0.9, 30)]
    kept, report = budget_context(rows, max_tokens=10_000)
    assert [r["id"] for r in kept] == ["G1", "G3"]
    assert dict(report["dropped"])["G2"] == "near-duplicate of G1"
    assert jaccard(shingles("a b c d"), shingles("a b c d")) == 1.0


def test_nothing_after_a_score_cliff_is_kept():
    rows = [row("C1", "D1", 0.91, 20), row("C2", "D2", 0.89, 20), row("C3", "D3", 0.2, 20), row("C4", "D4", 0.19, 20)]
    kept, report = budget_context(rows, max_tokens=10_000)
    assert [r["id"] for r in kept] == ["C1", "C2"]
    assert all("cliff" in reason for _, reason in report["dropped"])


def test_every_kept_item_carries_its_provenance_and_bad_budgets_are_refused():
    kept, _ = budget_context([row("A", "D1", 0.5, 10)], max_tokens=100)
    assert kept[0]["document_id"] == "D1" and kept[0]["version"] == "1.0"
    with pytest.raises(ValueError):
        budget_context([], max_tokens=0)
    assert budget_context([], max_tokens=10) == ([], {"kept": [], "dropped": [], "tokens": 0, "max_tokens": 10})
