"""The embedding model against an independent numpy reference over the same safetensors weights."""
from __future__ import annotations

import random

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from workshop.models import batching
from workshop.models.runtime import session_options

LONG_TEXT = " ".join(f"The agent stores memory number {i} about the user's project, deadline and coffee preference."
                     for i in range(40))
SENTENCES = [
    "How do I reset my password?",
    "Café crème brûlée — naïve façade résumé",
    "ÉLÉPHANT Ångström Øresund",
    "",
    "Hello, world!!! (What?) [yes]; {no} -- 'quoted' \"double\" $5.00 & 100% #tag @user",
    "don't won't can't it's",
    "e-mail: a.b@example.com, url https://x.y/z?q=1",
    "tabs\tand\nnewlines   and    spaces",
    "I ❤️ emojis 🚀🔥!!",
    "x" * 150 + " is a very long word",
    LONG_TEXT,
]


@pytest.fixture(scope="module")
def stage_session(embedding_path):
    """The graph's own tokenizer stage (cut from the file), to compare token ids."""
    model = onnx.load(str(embedding_path))
    plan = batching.read_batch_plan(model)
    return ort.InferenceSession(batching.stage_model(model, plan).SerializeToString(), session_options()), plan


def test_long_text_is_longer_than_the_limit(reference_minilm):
    tokenizer, _ = reference_minilm
    assert len(tokenizer.ids(LONG_TEXT)) > 256 * 2


@pytest.mark.parametrize("text", SENTENCES)
def test_graph_tokenizer_matches_reference_wordpiece(stage_session, reference_minilm, text):
    session, plan = stage_session
    tokenizer, _ = reference_minilm
    ids, mask, types = session.run(list(plan.inputs), {"input": np.array([text], dtype=object)})
    expected = tokenizer.encode(text, 256)
    assert ids[0].tolist() == expected
    assert mask[0].tolist() == [1] * len(expected) and types[0].tolist() == [0] * len(expected)


def test_vectors_match_reference_forward_pass(embedder, reference_minilm):
    tokenizer, bert = reference_minilm
    got = embedder.embed(SENTENCES, batched=False)
    expected = np.stack([bert.sentence_embedding(tokenizer.encode(t, 256)) for t in SENTENCES])
    assert got.shape == (len(SENTENCES), 384) and got.dtype == np.float32
    assert np.abs(got - expected).max() < 1e-5


def test_truncation_keeps_the_first_254_tokens(embedder):
    longer = LONG_TEXT + " Entirely different words appended after the limit change nothing."
    a, b = embedder.embed([LONG_TEXT, longer])
    assert np.abs(a - b).max() == 0.0


def test_batched_fast_path_equals_one_call_per_row(embedder):
    rng = random.Random(7)
    words = "memory agent vector database retrieval oracle query index embedding rerank coffee deadline".split()
    texts = SENTENCES + [" ".join(rng.choice(words) for _ in range(rng.randint(1, 120))) for _ in range(60)]
    rng.shuffle(texts)
    single = embedder.embed(texts, batched=False)
    batched = embedder.embed(texts, batched=True)
    assert np.abs(single - batched).max() < 1e-6


def test_paraphrase_is_closer_than_unrelated_text(embedder):
    q, para, other = embedder.embed(["How do I reset my password?", "What are the steps to change my login password?",
                                     "The cat sat on the warm windowsill."])
    assert q @ para > 0.6 > 0.2 > q @ other
    assert np.allclose(np.linalg.norm([q, para, other], axis=1), 1.0, atol=1e-6)


def test_empty_batch(embedder):
    assert embedder.embed([]).shape == (0, 384)
