"""Reference retrieval metrics: the checkpoints of part 06 and the ablation use these; the tests
cross-check them against ranx on the whole golden set.

Conventions (stated once, used everywhere, the same as ranx's defaults):

- a chunk is *relevant* when its grade is >= 1 (grades 0..3; unlabelled chunks count as 0);
- Precision@k divides by k, also when fewer than k chunks came back (a short list is not rewarded);
- Recall@k divides by the number of relevant chunks the query has (not by k);
- MRR@k is 1 / rank of the first relevant chunk within the top k, 0 when there is none;
- NDCG@k uses **linear gain** (gain = grade) and the discount 1 / log2(rank + 1); the ideal DCG
  sorts *every labelled grade of the query*, not the retrieved list, so NDCG lies in [0, 1].
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

RELEVANT_GRADE = 1


def _check(ranked: Sequence[str], k: int) -> None:
    if isinstance(ranked, str):
        raise TypeError("ranked must be a list of chunk ids, not one string")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise ValueError(f"k must be a positive int, not {k!r}")


def relevant_ids(relevance: Mapping[str, int]) -> set[str]:
    return {doc for doc, grade in relevance.items() if grade >= RELEVANT_GRADE}


def recall_at_k(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    _check(ranked, k)
    relevant = relevant_ids(relevance)
    if not relevant:
        return 0.0
    return len(relevant.intersection(ranked[:k])) / len(relevant)


def precision_at_k(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    _check(ranked, k)
    relevant = relevant_ids(relevance)
    return sum(1 for doc in ranked[:k] if doc in relevant) / k


def mrr_at_k(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    _check(ranked, k)
    relevant = relevant_ids(relevance)
    for rank, doc in enumerate(ranked[:k], start=1):
        if doc in relevant:
            return 1.0 / rank
    return 0.0


def dcg(grades: Sequence[float]) -> float:
    return sum(grade / math.log2(rank + 1) for rank, grade in enumerate(grades, start=1))


def ndcg_at_k(ranked: Sequence[str], relevance: Mapping[str, int], k: int) -> float:
    _check(ranked, k)
    ideal = dcg(sorted((g for g in relevance.values() if g > 0), reverse=True)[:k])
    if ideal == 0:
        return 0.0
    value = dcg([relevance.get(doc, 0) for doc in ranked[:k]]) / ideal
    if not 0.0 <= value <= 1.0 + 1e-12:
        raise AssertionError(f"NDCG {value} outside [0, 1]: the ideal DCG was computed from the wrong list")
    return value


METRICS = {"recall": recall_at_k, "precision": precision_at_k, "mrr": mrr_at_k, "ndcg": ndcg_at_k}
