"""Cross-encoder builder against a random BERT of the same architecture and the numpy reference."""
from __future__ import annotations

import json

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from safetensors.numpy import save_file

from models_reference import ReferenceBert, WordPieceTokenizer, longest_first
from workshop.models import (RERANKER_METADATA, UnsupportedModelError, build_cross_encoder, ensure_cross_encoder_model,
                             load_model)
from workshop.models import batching
from workshop.models.model_cache import sha256_bytes, sha256_file
from workshop.models.runtime import session_options

WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "fast", "agent", "memory", "vector", "oracle", "query",
         "user", "coffee", "likes", "what", "does", "who"]
VOCAB = (["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ",", "?", "!"] + WORDS + ["##s", "##ing", "##ed"])
MAX_POSITIONS = 40   # so truncation (to 40 tokens, room 37 for the two texts) is exercised cheaply
HIDDEN, HEADS, LAYERS, INNER = 32, 4, 2, 64


def write_random_cross_encoder(folder, num_labels: int = 1, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    folder.mkdir(parents=True, exist_ok=True)

    def w(*shape):
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    tensors = {
        "bert.embeddings.word_embeddings.weight": w(len(VOCAB), HIDDEN),
        "bert.embeddings.position_embeddings.weight": w(MAX_POSITIONS, HIDDEN),
        "bert.embeddings.token_type_embeddings.weight": w(2, HIDDEN),
        "bert.embeddings.LayerNorm.weight": 1 + w(HIDDEN), "bert.embeddings.LayerNorm.bias": w(HIDDEN),
        "bert.pooler.dense.weight": w(HIDDEN, HIDDEN), "bert.pooler.dense.bias": w(HIDDEN),
        "classifier.weight": w(num_labels, HIDDEN), "classifier.bias": w(num_labels),
    }
    for i in range(LAYERS):
        p = f"bert.encoder.layer.{i}"
        for name, (rows, cols) in {"attention.self.query": (HIDDEN, HIDDEN), "attention.self.key": (HIDDEN, HIDDEN),
                                   "attention.self.value": (HIDDEN, HIDDEN), "attention.output.dense": (HIDDEN, HIDDEN),
                                   "intermediate.dense": (INNER, HIDDEN), "output.dense": (HIDDEN, INNER)}.items():
            tensors[f"{p}.{name}.weight"], tensors[f"{p}.{name}.bias"] = w(rows, cols), w(rows)
        for ln in ("attention.output.LayerNorm", "output.LayerNorm"):
            tensors[f"{p}.{ln}.weight"], tensors[f"{p}.{ln}.bias"] = 1 + w(HIDDEN), w(HIDDEN)
    save_file(tensors, str(folder / "model.safetensors"))
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    (folder / "config.json").write_text(json.dumps({
        "architectures": ["BertForSequenceClassification"], "model_type": "bert", "hidden_size": HIDDEN,
        "num_attention_heads": HEADS, "num_hidden_layers": LAYERS, "intermediate_size": INNER, "hidden_act": "gelu",
        "max_position_embeddings": MAX_POSITIONS, "type_vocab_size": 2, "vocab_size": len(VOCAB),
        "layer_norm_eps": 1e-12, "id2label": {str(i): f"LABEL_{i}" for i in range(num_labels)}}))
    (folder / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 512}))


def text(n: int, offset: int = 0) -> str:
    """n single-token words (capitalised now and then, to exercise lower-casing)."""
    words = [WORDS[(i + offset) % len(WORDS)] for i in range(n)]
    return " ".join(w.capitalize() if i % 5 == 0 else w for i, w in enumerate(words))


# (first, second) token counts covering every truncation branch with room = 37.
PAIRS = [(5, 6), (0, 50), (5, 50), (50, 5), (18, 30), (19, 30), (25, 30), (30, 25), (25, 25), (50, 60), (60, 50)]
EXTRA_PAIRS = [("Who likes coffee?", "The user likes coffee, the agent remembers."), ("", ""),
               ("What does the dog do!", "unknownword cats ran-fast.")]


@pytest.fixture(scope="module")
def cross_encoder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ce") / "tiny-cross-encoder"
    write_random_cross_encoder(folder)
    model = build_cross_encoder(folder)
    return folder, model, load_model("CE", model.SerializeToString(), RERANKER_METADATA)


def all_pairs():
    return [(text(a), text(b, offset=3)) for a, b in PAIRS] + EXTRA_PAIRS


def test_pairs_cover_all_truncation_branches():
    kept = {longest_first(a, b, MAX_POSITIONS - 3) for a, b in PAIRS}
    assert {(5, 6), (0, 37), (5, 32), (32, 5), (18, 19), (19, 18)} <= kept


def test_graph_pair_encoding_matches_reference(cross_encoder):
    folder, model, _ = cross_encoder
    plan = batching.read_batch_plan(model)
    stage = ort.InferenceSession(batching.stage_model(model, plan).SerializeToString(), session_options())
    tokenizer = WordPieceTokenizer.from_folder(folder)
    for first, second in all_pairs():
        ids, mask, types = stage.run(list(plan.inputs), {"first_input": np.array([first], dtype=object),
                                                         "second_input": np.array([second], dtype=object)})
        expected_ids, expected_types = tokenizer.encode_pair(first, second, MAX_POSITIONS)
        assert ids[0].tolist() == expected_ids
        assert types[0].tolist() == expected_types
        assert mask[0].tolist() == [1] * len(expected_ids)


def test_logits_match_reference_forward_pass(cross_encoder):
    folder, _, model = cross_encoder
    tokenizer, bert = WordPieceTokenizer.from_folder(folder), ReferenceBert(folder)
    pairs = all_pairs()
    got = model.predict({"FIRST_INPUT": [a for a, _ in pairs], "SECOND_INPUT": [b for _, b in pairs]}, batched=False)
    expected = np.array([bert.pair_logit(*tokenizer.encode_pair(a, b, MAX_POSITIONS)) for a, b in pairs])
    assert np.abs(got - expected).max() < 1e-4
    assert np.std(expected) > 0.05  # the random model does discriminate between pairs


def test_batched_fast_path_equals_one_call_per_pair(cross_encoder):
    _, _, model = cross_encoder
    pairs = all_pairs() * 3
    inputs = {"FIRST_INPUT": [a for a, _ in pairs], "SECOND_INPUT": [b for _, b in pairs]}
    assert np.abs(model.predict(inputs, batched=True) - model.predict(inputs, batched=False)).max() < 1e-6


def test_card_and_interface(cross_encoder):
    _, model_proto, model = cross_encoder
    assert model.card.kind == "cross-encoder" and not model.card.is_stand_in
    assert "tiny-cross-encoder" in model.card.label
    assert [i.name for i in model_proto.graph.input] == ["first_input", "second_input"]
    assert [o.name for o in model_proto.graph.output] == ["output"]


def test_cached_build_is_deterministic(cross_encoder, tmp_path, monkeypatch):
    folder, model_proto, _ = cross_encoder
    monkeypatch.setenv("WORKSHOP_STATE_DIR", str(tmp_path))
    path = ensure_cross_encoder_model(folder)
    assert path.parent == tmp_path / "models"
    assert sha256_file(path) == sha256_bytes(model_proto.SerializeToString())
    assert ensure_cross_encoder_model(folder) == path


def test_multi_label_classifier_is_not_a_reranker(tmp_path):
    write_random_cross_encoder(tmp_path / "nli", num_labels=3)
    with pytest.raises(UnsupportedModelError, match="3 labels"):
        build_cross_encoder(tmp_path / "nli")


def test_model_checker_accepts_the_graph(cross_encoder):
    onnx.checker.check_model(cross_encoder[1])
