"""The default RERANKER (training-free late interaction, MaxSim): what its card says, Oracle's interface,
parity with an independent numpy computation, and the engine runtime's passage-state cache."""
from __future__ import annotations

import functools

import numpy as np
import pytest

from workshop.data import load_chunks
from workshop.models import (MAXSIM_CARD, RERANKER_METADATA_DATA12, RERANKER_SUMMARY, describe_reranker,
                             load_model, reranker_metadata)
from workshop.models.embedding_model import MAX_TOKENS
from workshop.models.late_interaction import StateCache

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
LONG = " ".join(f"Chunk {i} describes the password policy of tenant acme and its rotation rules." for i in range(40))
#: Inputs that stress tokenization and truncation: accents, an empty passage, punctuation, > 256 tokens.
ODD = ["", "Café crème brûlée — naïve façade résumé", "ORA-51962: vector memory pool (23.26.0) is empty!", LONG]


@functools.lru_cache(maxsize=1)
def _reference_idf(tokenizer) -> np.ndarray:
    """Smoothed IDF of every word piece over the research corpus's chunks, counted with the reference
    tokenizer (independent of the graph's tokenizer op); [CLS] and [SEP] weigh 0."""
    texts = [c["text"] for c in load_chunks()]
    df = np.zeros(len(tokenizer.vocab))
    for text in texts:
        df[np.unique([tokenizer.vocab["[CLS]"], *tokenizer.ids(text), tokenizer.vocab["[SEP]"]])] += 1
    idf = np.log((1 + len(texts)) / (1 + df)) + 1
    idf[[tokenizer.vocab["[CLS]"], tokenizer.vocab["[SEP]"]]] = 0
    return idf


def reference_maxsim(reference_minilm, query: str, passage: str) -> float:
    """MaxSim written independently in float64: the IDF-weighted mean over query tokens of the max cosine over
    passage tokens."""
    tokenizer, bert = reference_minilm
    q_ids = tokenizer.encode(query, MAX_TOKENS)
    q = bert.hidden(q_ids)
    d = bert.hidden(tokenizer.encode(passage, MAX_TOKENS))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    w = _reference_idf(tokenizer)[q_ids]
    if w.sum() == 0:                    # only [CLS] and [SEP]: the graph floors the weight sum and scores 0
        return 0.0
    return float(((q @ d.T).max(axis=1) * w).sum() / w.sum())


def pairs(query: str, docs: list[str]) -> dict[str, list[str]]:
    return {"FIRST_INPUT": [query] * len(docs), "SECOND_INPUT": list(docs)}


def test_card_says_what_it_is(reranker):
    card = describe_reranker()
    assert card == MAXSIM_CARD.as_dict() and card["kind"] == "late-interaction-maxsim"
    assert RERANKER_SUMMARY == ("training-free late-interaction (MaxSim) reranker over all-MiniLM-L6-v2 token "
                                "states, not a cross-encoder")
    assert RERANKER_SUMMARY in card["label"]
    assert "not a cross-encoder" in card["description"] and "MaxSim" in card["description"]
    assert reranker.card.as_dict() == card  # the card travels inside the ONNX file


def test_interface_is_oracles_regression_model(reranker):
    assert reranker.function == "regression"
    assert reranker.input_names == ["FIRST_INPUT", "SECOND_INPUT"]
    assert reranker.dimension is None and reranker.is_late_interaction


def test_relevant_passages_rank_above_irrelevant(reranker):
    docs = IRRELEVANT[:2] + RELEVANT[:1] + IRRELEVANT[2:] + RELEVANT[1:]
    scores = reranker.predict(pairs(QUERY, docs))
    assert set(np.array(docs)[np.argsort(-scores)][:2]) == set(RELEVANT)


@pytest.mark.parametrize("query", [QUERY, "ORA-51962", ""])
def test_one_call_per_pair_matches_numpy_reference(reranker, reference_minilm, query):
    docs = RELEVANT[:1] + IRRELEVANT[:1] + ODD
    scores = reranker.predict(pairs(query, docs), batched=False)   # Oracle's call shape: the whole graph per row
    expected = [reference_maxsim(reference_minilm, query, d) for d in docs]
    assert np.abs(scores - expected).max() < 1e-6


def test_query_token_weights_are_the_corpus_idf(reranker_path, reference_minilm):
    """The graph's weight table equals the IDF the reference counts with its own tokenizer; [CLS]/[SEP] weigh 0,
    a word piece in nearly every chunk weighs less than one in a few."""
    import onnx
    from onnx import numpy_helper
    tokenizer, _ = reference_minilm
    model = onnx.load(str(reranker_path))
    table = next(numpy_helper.to_array(t) for t in model.graph.initializer if t.name == "maxsim.query_weights")
    assert np.abs(table - _reference_idf(tokenizer)).max() < 1e-5
    vocab = tokenizer.vocab
    assert table[vocab["[CLS]"]] == 0 and table[vocab["[SEP]"]] == 0
    assert table[vocab["the"]] < table[vocab["memory"]] < table[vocab["pledge"]]


def test_a_query_of_special_tokens_only_scores_zero_not_nan(reranker):
    assert reranker.predict(pairs("", ["anything at all"]), batched=False)[0] == 0.0


def test_scores_are_bounded_cosine_means(reranker):
    scores = reranker.predict(pairs(QUERY, RELEVANT + IRRELEVANT + ODD))
    assert np.all(scores <= 1 + 1e-6) and np.all(scores >= -1 - 1e-6)
    identical = reranker.predict(pairs(QUERY, [QUERY]))[0]
    assert identical == pytest.approx(1.0, abs=1e-6)   # every query token finds itself


def test_it_is_not_the_cosine_of_embeddings(reranker, embedder):
    """The reason it replaced the cosine stand-in: on this set it orders differently from vector search."""
    docs = RELEVANT + IRRELEVANT + ODD
    scores = reranker.predict(pairs(QUERY, docs))
    vectors = embedder.embed([QUERY] + docs)
    assert np.abs(scores - vectors[1:] @ vectors[0]).max() > 0.05


def _varied_batch(n: int = 30):
    rng = np.random.default_rng(3)
    words = np.array("password reset login settings office revenue soup vector index memory agent".split())
    docs = [" ".join(rng.choice(words, size=rng.integers(3, 60))) for _ in range(n)] + ODD
    queries = [QUERY if i % 3 else "agent memory" for i in range(len(docs))]
    return {"FIRST_INPUT": queries, "SECOND_INPUT": docs}


def test_every_fast_path_equals_one_call_per_pair(reranker_path):
    model = load_model("RERANKER", reranker_path.read_bytes(), reranker_metadata())
    inputs = _varied_batch()
    per_row = model.predict(inputs, batched=False)
    assert np.abs(model.predict(inputs, late=False, batched=True) - per_row).max() < 1e-6
    assert np.abs(model.predict(inputs, cache=False) - per_row).max() < 1e-6
    assert len(model.state_cache) == 0
    cold = model.predict(inputs)                         # fills the cache
    warm = model.predict(inputs)                         # every passage from the cache
    assert model.state_cache.stats()["hits"] >= len(set(inputs["SECOND_INPUT"]))
    assert np.abs(cold - per_row).max() < 1e-6 and np.abs(warm - per_row).max() < 1e-6


def test_cache_is_keyed_by_exact_text(reranker_path):
    model = load_model("RERANKER", reranker_path.read_bytes(), reranker_metadata())
    docs = ["Reset password.", "Reset password. ", "reset password."]
    model.predict(pairs(QUERY, docs[:1]))
    before = model.state_cache.stats()
    scores = model.predict(pairs(QUERY, docs))
    after = model.state_cache.stats()
    assert after["hits"] - before["hits"] == 1 and after["misses"] - before["misses"] == 2
    assert np.abs(scores - model.predict(pairs(QUERY, docs), batched=False)).max() < 1e-6


def test_cache_forgets_when_cleared(reranker_path):
    model = load_model("RERANKER", reranker_path.read_bytes(), reranker_metadata())
    model.predict(pairs(QUERY, RELEVANT))
    assert len(model.state_cache) == 2
    model.clear_cache()
    assert len(model.state_cache) == 0 and model.state_cache.bytes == 0


def test_cache_memory_is_bounded_least_recently_used_first():
    cache = StateCache(max_bytes=3 * 4000 + 30)
    for name in "abcd":
        cache.put(name, np.zeros((10, 100), dtype=np.float32))      # 4000 bytes each
        if name == "c":
            assert cache.get("a") is not None                        # a is now more recent than b
    assert len(cache) == 3 and cache.get("b") is None and cache.get("a") is not None
    assert cache.bytes <= cache.max_bytes
    cache.put("huge", np.zeros((10_000, 10), dtype=np.float32))      # bigger than the bound: not kept
    assert cache.get("huge") is None and len(cache) == 3
    with pytest.raises(ValueError):
        cache.get("a")[0, 0] = 1.0                                   # cached states are read-only


def test_cache_size_comes_from_the_environment(reranker_path, monkeypatch):
    monkeypatch.setenv("WORKSHOP_RERANK_CACHE_MB", "0.001")           # about 1 kB: no passage fits
    model = load_model("RERANKER", reranker_path.read_bytes(), reranker_metadata())
    scores = model.predict(pairs(QUERY, RELEVANT))
    assert len(model.state_cache) == 0
    assert np.abs(scores - model.predict(pairs(QUERY, RELEVANT), batched=False)).max() < 1e-6


def test_title_prepended_is_just_another_passage_text(reranker, reference_minilm):
    """What the notebooks rerank: title || '. ' || text (built in SQL, scored like any passage)."""
    title, text = "Vector memory pool", "Set vector_memory_size and restart."
    score = reranker.predict(pairs("vector pool size", [f"{title}. {text}"]))[0]
    assert score == pytest.approx(reference_maxsim(reference_minilm, "vector pool size", f"{title}. {text}"), abs=1e-6)


def test_data1_data2_spelling_is_accepted(reranker_path, reranker):
    other = load_model("RERANKER2", reranker_path.read_bytes(), RERANKER_METADATA_DATA12)
    assert other.input_names == ["DATA1", "DATA2"]
    a = other.predict({"DATA1": [QUERY], "DATA2": RELEVANT[:1]})
    b = reranker.predict({"FIRST_INPUT": [QUERY], "SECOND_INPUT": RELEVANT[:1]})
    assert a.tolist() == b.tolist()


def test_late_path_is_refused_for_other_models(cosine_reranker):
    assert not cosine_reranker.is_late_interaction
    with pytest.raises(Exception, match="not a late-interaction model"):
        cosine_reranker.predict(pairs(QUERY, RELEVANT), late=True)


# -- the cosine baseline (no longer the default) -------------------------------------------------------
def test_cosine_baseline_scores_are_cosines_of_the_embedding_model(cosine_reranker, embedder):
    docs = RELEVANT + IRRELEVANT + ["", "x " * 600]
    scores = cosine_reranker.predict(pairs(QUERY, docs), batched=False)
    vectors = embedder.embed([QUERY] + docs)
    assert np.abs(scores - vectors[1:] @ vectors[0]).max() < 1e-5
    assert "bi-encoder cosine" in cosine_reranker.card.label and cosine_reranker.card.kind == "bi-encoder-cosine"


def test_cosine_baseline_batched_equals_one_call_per_pair(cosine_reranker):
    inputs = _varied_batch(12)
    assert np.abs(cosine_reranker.predict(inputs, batched=True)
                  - cosine_reranker.predict(inputs, batched=False)).max() < 1e-6


# -- the same LOAD_ONNX_MODEL metadata checks as every model -------------------------------------------
@pytest.mark.parametrize("metadata, code", [
    ({"regressionOutput": "output", "input": {"first_input": ["Q"], "second_input": ["D"]}}, 54402),
    ({"function": "reranking", "regressionOutput": "output"}, 54403),
    ({"function": "regression", "regressionOutput": "score"}, 54413),
    ({"function": "regression", "regressionOutput": "output", "input": {"query": ["Q"]}}, 54408),
    ({"function": "regression", "regressionOutput": "output", "input": {"first_input": [7]}}, 54409),
    ({"function": "regression", "regressionOutput": "output", "input": {"first_input": ["A", "B"]}}, 54420),
    ({"function": "embedding", "embeddingOutput": "output"}, 54423),
    ({"function": "regression", "regressionOutput": "output", "unknownField": 1}, 40840),
    ('{"function": "regression",', 40675),
])
def test_reranker_metadata_is_checked_like_oracle(reranker_path, metadata, code):
    from workshop.models import MetadataError
    with pytest.raises(MetadataError) as exc:
        load_model("RERANKER", reranker_path.read_bytes(), metadata)
    assert exc.value.code == code


def test_default_attribute_names_are_the_graph_inputs(reranker_path):
    model = load_model("RERANKER", reranker_path.read_bytes(), {"function": "regression", "regressionOutput": "output"})
    assert model.input_names == ["first_input", "second_input"]
