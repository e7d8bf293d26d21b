"""Stage 6, context budgeting: a greedy pass that fits the reranked list into a token budget fixed
before retrieval, instead of truncating it.

The rules, in order (each dropped candidate is reported with its reason):

1. **score cliff**: walking down the reranked list, stop at the first candidate whose score is
   more than `cliff` below the one before it; nothing after a cliff is kept, even with budget
   left ("more tokens of bad context is just more expensive bad context");
2. **diversity** (when `diversify_by` names a key, e.g. "document_id" for a comparison): the best
   candidate of every source is considered first, then the rest in rank order;
3. **near-duplicates**: a candidate whose word 3-shingles overlap a kept one's with Jaccard
   >= `duplicate_threshold` is dropped, however well it scores;
4. **budget**: a candidate that does not fit whole is skipped (never cut in half), and the pass
   goes on: a shorter one further down may still fit.

The working set comes back in rerank order, each item with its document id and version.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from workshop.memory.tokens import estimate_tokens

DEFAULT_CLIFF = 0.25
DEFAULT_DUPLICATE_THRESHOLD = 0.8
SCORE_KEY = "rerank_score"


def shingles(text: str, n: int = 3) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.lower())
    return {tuple(words[i:i + n]) for i in range(max(len(words) - n + 1, 1))}


def jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def budget_context(rows: Sequence[Mapping[str, Any]], max_tokens: int, diversify_by: str | None = None, *,
                   cliff: float = DEFAULT_CLIFF, duplicate_threshold: float = DEFAULT_DUPLICATE_THRESHOLD,
                   score_key: str = SCORE_KEY) -> tuple[list[dict], dict]:
    """(working set, report): the kept rows in rank order, and {"kept", "dropped": [(id, reason)], "tokens"}."""
    if max_tokens <= 0:
        raise ValueError("max_tokens must be positive")
    ranked = [dict(r) for r in rows]
    dropped: list[tuple[Any, str]] = []
    eligible = ranked
    for i in range(1, len(ranked)):
        if ranked[i - 1][score_key] - ranked[i][score_key] > cliff:
            eligible = ranked[:i]
            dropped += [(r["id"], f"after a score cliff ({ranked[i - 1][score_key]:.3f} -> "
                                  f"{ranked[i][score_key]:.3f})") for r in ranked[i:]]
            break
    order = list(range(len(eligible)))
    if diversify_by:
        firsts, seen = [], set()
        for i, row in enumerate(eligible):
            if row[diversify_by] not in seen:
                seen.add(row[diversify_by])
                firsts.append(i)
        order = firsts + [i for i in order if i not in set(firsts)]
    kept: dict[int, tuple[int, set]] = {}
    used = 0
    for i in order:
        row = eligible[i]
        tokens = estimate_tokens(row["content"])
        grams = shingles(row["content"])
        twin = next((eligible[j]["id"] for j, (_, g) in kept.items()
                     if jaccard(grams, g) >= duplicate_threshold), None)
        if twin is not None:
            dropped.append((row["id"], f"near-duplicate of {twin}"))
            continue
        if used + tokens > max_tokens:
            dropped.append((row["id"], f"over budget ({tokens} tokens, {max_tokens - used} left)"))
            continue
        kept[i] = (tokens, grams)
        used += tokens
    working_set = [{**eligible[i], "tokens": kept[i][0]} for i in sorted(kept)]
    order_of = {r["id"]: n for n, r in enumerate(ranked)}
    dropped.sort(key=lambda pair: order_of[pair[0]])
    return working_set, {"kept": [r["id"] for r in working_set], "dropped": dropped, "tokens": used,
                         "max_tokens": max_tokens}
