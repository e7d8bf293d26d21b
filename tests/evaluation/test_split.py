"""Golden set version 2's development / held-out split: stored in the data file, stratified, pinned.

The split is data: `queries_v2.jsonl` carries a `split` per record. These tests pin it (counts per intent and a
hash of every id's half), show that it is what `assign_splits` draws with the stated seed (so nobody moved a
question by hand after looking at the results), and that the helpers refuse a record without a half.
"""
from __future__ import annotations

from collections import Counter

import pytest

from workshop.data import load_golden_queries
from workshop.evaluation import split

#: (intent, half) -> questions. Each intent halved; the held-out half takes the odd one.
PINNED_COUNTS = {
    ("exact-identifier", "dev"): 9, ("exact-identifier", "held-out"): 9,
    ("identifier-in-sentence", "dev"): 14, ("identifier-in-sentence", "held-out"): 14,
    ("paraphrase", "dev"): 14, ("paraphrase", "held-out"): 14,
    ("descriptive", "dev"): 10, ("descriptive", "held-out"): 10,
    ("comparison", "dev"): 12, ("comparison", "held-out"): 12,
    ("scope", "dev"): 10, ("scope", "held-out"): 11,
    ("unanswerable", "dev"): 6, ("unanswerable", "held-out"): 6,
}
PINNED_DIGEST = "5b8a94df17feefd17f7053e7c5185abbcc4287eada571e2b5a82f82998a992cd"


@pytest.fixture(scope="module")
def v2():
    return load_golden_queries(version=2)


def test_every_record_carries_a_half(v2):
    assert {q.get("split") for q in v2} == set(split.SPLITS)


def test_the_counts_per_intent_are_pinned(v2):
    assert Counter((q["intent"], q["split"]) for q in v2) == PINNED_COUNTS


def test_the_split_is_pinned_by_a_hash_of_every_id_and_half(v2):
    assert split.split_digest(v2) == PINNED_DIGEST


def test_the_file_holds_what_the_seeded_draw_gives(v2):
    assert split.assign_splits(v2) == {q["query_id"]: q["split"] for q in v2}


@pytest.mark.parametrize("change", [
    pytest.param(lambda qs: qs[0].update(split="held-out" if qs[0]["split"] == "dev" else "dev"), id="one-id-moved"),
    pytest.param(lambda qs: qs.__setitem__(slice(None), qs[:-1]), id="one-record-dropped"),
], )
def test_the_hash_sees_any_change(v2, change):
    copy = [dict(q) for q in v2]
    change(copy)
    assert split.split_digest(copy) != PINNED_DIGEST


def test_a_different_seed_draws_a_different_split(v2):
    assert split.assign_splits(v2, seed=split.SPLIT_SEED + 1) != split.assign_splits(v2)


@pytest.mark.parametrize("records, message", [
    pytest.param([{"query_id": "X", "intent": "paraphrase"}], "no split", id="record-without-split"),
    pytest.param([{"query_id": "X", "intent": "paraphrase", "split": "test"}], "no split", id="unknown-half"),
])
def test_of_split_refuses_records_without_a_half(records, message):
    with pytest.raises(ValueError, match=message):
        split.of_split(records, split.DEV)


def test_of_split_refuses_an_unknown_half(v2):
    with pytest.raises(ValueError, match="must be one of"):
        split.of_split(v2, "test")


def test_the_halves_partition_the_set(v2):
    dev, held = split.of_split(v2, split.DEV), split.of_split(v2, split.HELD_OUT)
    assert len(dev) + len(held) == len(v2)
    assert not {q["query_id"] for q in dev} & {q["query_id"] for q in held}
