"""The offline stand-in reranker: labelled as a stand-in, Oracle's interface, sensible orderings."""
from __future__ import annotations

import numpy as np

from workshop.models import RERANKER_METADATA_DATA12, STAND_IN, describe_reranker, load_model

QUERY = "How do I reset my password?"
RELEVANT = [
    "To change your password, open Settings, choose Security and click Reset password.",
    "The password reset link expires after 24 hours; request a new one from the login page.",
]
IRRELEVANT = [
    "Our office is closed on public holidays.",
    "Quarterly revenue grew by eight percent.",
    "The cafeteria serves soup on Tuesdays.",
    "Vector indexes speed up approximate nearest neighbour search.",
]


def test_card_says_it_is_a_stand_in(reranker):
    card = describe_reranker()
    assert STAND_IN == "stand-in (bi-encoder cosine, not a cross-encoder)"
    assert card["is_stand_in"] is True and card["kind"] == "bi-encoder-cosine"
    assert STAND_IN in card["label"] and STAND_IN in card["description"]
    assert reranker.card.as_dict() == card  # the card travels inside the ONNX file


def test_interface_is_oracles_regression_model(reranker):
    assert reranker.function == "regression"
    assert reranker.input_names == ["FIRST_INPUT", "SECOND_INPUT"]
    assert reranker.dimension is None


def test_relevant_passages_rank_above_irrelevant(reranker):
    docs = IRRELEVANT[:2] + RELEVANT[:1] + IRRELEVANT[2:] + RELEVANT[1:]
    scores = reranker.predict({"FIRST_INPUT": [QUERY] * len(docs), "SECOND_INPUT": docs})
    ranked = [docs[i] for i in np.argsort(-scores)]
    assert set(ranked[:2]) == set(RELEVANT)


def test_scores_are_cosines_of_the_embedding_model(reranker, embedder):
    docs = RELEVANT + IRRELEVANT + ["", "x " * 600]
    scores = reranker.predict({"FIRST_INPUT": [QUERY] * len(docs), "SECOND_INPUT": docs}, batched=False)
    vectors = embedder.embed([QUERY] + docs)
    assert np.abs(scores - vectors[1:] @ vectors[0]).max() < 1e-5


def test_batched_fast_path_equals_one_call_per_pair(reranker):
    rng = np.random.default_rng(3)
    words = np.array("password reset login settings office revenue soup vector index memory agent".split())
    docs = [" ".join(rng.choice(words, size=rng.integers(3, 60))) for _ in range(24)]
    queries = [QUERY if i % 3 else "agent memory" for i in range(24)]
    inputs = {"FIRST_INPUT": queries, "SECOND_INPUT": docs}
    assert np.abs(reranker.predict(inputs, batched=True) - reranker.predict(inputs, batched=False)).max() < 1e-6


def test_data1_data2_spelling_is_accepted(reranker_path, reranker):
    other = load_model("RERANKER2", reranker_path.read_bytes(), RERANKER_METADATA_DATA12)
    assert other.input_names == ["DATA1", "DATA2"]
    a = other.predict({"DATA1": [QUERY], "DATA2": RELEVANT[:1]})
    b = reranker.predict({"FIRST_INPUT": [QUERY], "SECOND_INPUT": RELEVANT[:1]})
    assert a.tolist() == b.tolist()
