"""Golden set version 2, split once into a development half and a held-out half.

Every choice of the pipeline (stage-1 rules, pool sizes, fusion, routing, the reranker variant) is made on the
development half; the held-out half is only ever reported. The split is stratified by intent (each intent is
halved, the held-out half takes the odd one) and drawn with a fixed seed, then written into
`queries_v2.jsonl` as each record's `split` field, so it is data, not code: re-running `assign_splits` must give
what the file says (tests/evaluation/test_split.py pins the counts and a hash of the ids).
"""
from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

SPLIT_SEED = 22
DEV, HELD_OUT = "dev", "held-out"
SPLITS = (DEV, HELD_OUT)


def assign_splits(queries: Iterable[Mapping], seed: int = SPLIT_SEED) -> dict[str, str]:
    """query_id -> "dev" or "held-out": per intent, a seeded permutation of the ids in id order, the first
    floor(n / 2) to dev."""
    by_intent: dict[str, list[str]] = {}
    for q in queries:
        by_intent.setdefault(q["intent"], []).append(q["query_id"])
    rng = np.random.default_rng(seed)
    out: dict[str, str] = {}
    for intent in sorted(by_intent):
        ids = sorted(by_intent[intent])
        order = rng.permutation(len(ids))
        for rank, i in enumerate(order):
            out[ids[i]] = DEV if rank < len(ids) // 2 else HELD_OUT
    return out


def of_split(queries: Sequence[Mapping], split: str) -> list:
    """The records of one half, in file order (a record without `split` is an error, never silently dev)."""
    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, not {split!r}")
    missing = [q["query_id"] for q in queries if q.get("split") not in SPLITS]
    if missing:
        raise ValueError(f"{len(missing)} record(s) have no split (first: {missing[0]}); "
                         "golden set version 2 carries one per record")
    return [q for q in queries if q["split"] == split]


def split_digest(queries: Sequence[Mapping]) -> str:
    """sha256 of "id:split" lines in id order: one value that changes if any question changes half."""
    lines = sorted(f"{q['query_id']}:{q['split']}" for q in queries)
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()
