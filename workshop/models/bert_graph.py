"""The BERT encoder and its heads as ONNX nodes, written from safetensors weights (no torch).

All tensors are batch-first ([B, S] ids, [B, S, H] hidden states), so the same nodes run one
row (Oracle's call shape) or a padded batch (the runtime's fast path).
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto

from workshop.models.bert_source import BertSource
from workshop.models.errors import UnsupportedModelError
from workshop.models.graph_builder import GraphBuilder

#: Hugging Face's additive attention mask uses the float32 minimum for masked keys.
_MASKED = float(np.finfo(np.float32).min)


def _layer_norm(b: GraphBuilder, src: BertSource, x: str, prefix: str, out: str) -> str:
    gamma = b.shared(f"{prefix}.weight", src.weight(f"{prefix}.weight"))
    beta = b.shared(f"{prefix}.bias", src.weight(f"{prefix}.bias"))
    return b.op("LayerNormalization", [x, gamma, beta], out, axis=-1, epsilon=src.config.layer_norm_eps)


def _linear(b: GraphBuilder, src: BertSource, x: str, prefix: str, out: str) -> str:
    weight_t = b.shared(f"{prefix}.weight.T", src.weight(f"{prefix}.weight").T)
    bias = b.shared(f"{prefix}.bias", src.weight(f"{prefix}.bias"))
    return b.op("Add", [b.op("MatMul", [x, weight_t], f"{out}.matmul"), bias], out)


def add_encoder(b: GraphBuilder, src: BertSource, input_ids: str, attention_mask: str, token_type_ids: str,
                tag: str = "") -> str:
    """BertModel without pooler: int64 [B, S] inputs -> last hidden state float [B, S, H].

    `tag` prefixes the node outputs, so a graph can hold two encoder towers over the same weights."""
    cfg = src.config
    split_heads = b.shared("enc.split_heads", [0, 0, cfg.num_heads, cfg.head_size], np.int64)
    merge_heads = b.shared("enc.merge_heads", [0, 0, cfg.hidden_size], np.int64)
    scale = b.shared("enc.scale", 1.0 / np.sqrt(cfg.head_size), np.float32)
    one = b.shared("enc.one", 1.0, np.float32)
    masked = b.shared("enc.masked", _MASKED, np.float32)
    half = b.shared("enc.half", 0.5, np.float32)
    sqrt2 = b.shared("enc.sqrt2", np.sqrt(2.0), np.float32)
    zero_i = b.shared("enc.zero_i", 0, np.int64)
    one_i = b.shared("enc.one_i", 1, np.int64)
    mask_axes = b.shared("enc.mask_axes", [1, 2], np.int64)

    def table(name: str) -> str:
        return b.shared(name, src.weight(name))

    t = tag
    word = b.op("Gather", [table("embeddings.word_embeddings.weight"), input_ids], f"{t}emb.word", axis=0)
    seq_len = b.op("Gather", [b.op("Shape", [input_ids], f"{t}emb.ids_shape"), one_i], f"{t}emb.seq_len", axis=0)
    positions = b.op("Range", [zero_i, seq_len, one_i], f"{t}emb.position_ids")
    pos = b.op("Gather", [table("embeddings.position_embeddings.weight"), positions], f"{t}emb.position", axis=0)
    types = b.op("Gather", [table("embeddings.token_type_embeddings.weight"), token_type_ids], f"{t}emb.token_type",
                 axis=0)
    summed = b.op("Add", [b.op("Add", [word, pos], f"{t}emb.word_pos"), types], f"{t}emb.sum")
    x = _layer_norm(b, src, summed, "embeddings.LayerNorm", f"{t}emb.out")

    mask = b.op("Unsqueeze", [b.op("Cast", [attention_mask], f"{t}enc.mask_f", to=TensorProto.FLOAT), mask_axes],
                f"{t}enc.mask_4d")
    additive = b.op("Mul", [b.op("Sub", [one, mask], f"{t}enc.mask_inv"), masked], f"{t}enc.mask_add")

    for i in range(cfg.num_layers):
        p, n = f"encoder.layer.{i}", f"{t}l{i}"

        def heads(x_: str, name: str) -> str:  # [B, S, H] -> [B, NH, S, D]
            return b.op("Transpose", [b.op("Reshape", [x_, split_heads], f"{name}.split")], f"{name}.heads",
                        perm=[0, 2, 1, 3])

        q = heads(_linear(b, src, x, f"{p}.attention.self.query", f"{n}.q"), f"{n}.q")
        k = heads(_linear(b, src, x, f"{p}.attention.self.key", f"{n}.k"), f"{n}.k")
        v = heads(_linear(b, src, x, f"{p}.attention.self.value", f"{n}.v"), f"{n}.v")
        k_t = b.op("Transpose", [k], f"{n}.k_t", perm=[0, 1, 3, 2])
        scores = b.op("Mul", [b.op("MatMul", [q, k_t], f"{n}.qk"), scale], f"{n}.qk_scaled")
        probs = b.op("Softmax", [b.op("Add", [scores, additive], f"{n}.qk_masked")], f"{n}.probs", axis=-1)
        ctx = b.op("Transpose", [b.op("MatMul", [probs, v], f"{n}.ctx")], f"{n}.ctx_t", perm=[0, 2, 1, 3])
        ctx = b.op("Reshape", [ctx, merge_heads], f"{n}.ctx_merged")
        attn = _linear(b, src, ctx, f"{p}.attention.output.dense", f"{n}.attn_out")
        x1 = _layer_norm(b, src, b.op("Add", [attn, x], f"{n}.res1"), f"{p}.attention.output.LayerNorm", f"{n}.x1")
        inner = _linear(b, src, x1, f"{p}.intermediate.dense", f"{n}.inner")
        erf = b.op("Erf", [b.op("Div", [inner, sqrt2], f"{n}.gelu_div")], f"{n}.gelu_erf")
        gelu = b.op("Mul", [b.op("Mul", [inner, half], f"{n}.gelu_half"),
                            b.op("Add", [one, erf], f"{n}.gelu_one")], f"{n}.gelu")
        out = _linear(b, src, gelu, f"{p}.output.dense", f"{n}.out")
        x = _layer_norm(b, src, b.op("Add", [out, x1], f"{n}.res2"), f"{p}.output.LayerNorm", f"{n}.hidden")
    return x


def add_mean_pool_l2(b: GraphBuilder, hidden: str, attention_mask: str, out: str, tag: str = "") -> str:
    """sentence-transformers Pooling(mean) + Normalize: [B, S, H] -> unit vectors [B, H]."""
    axis_seq = b.shared("pool.axis_seq", [1], np.int64)
    axis_last = b.shared("pool.axis_last", [-1], np.int64)
    t = tag
    mask = b.op("Unsqueeze", [b.op("Cast", [attention_mask], f"{t}pool.mask_f", to=TensorProto.FLOAT), axis_last],
                f"{t}pool.mask_3d")
    total = b.op("ReduceSum", [b.op("Mul", [hidden, mask], f"{t}pool.masked"), axis_seq], f"{t}pool.sum", keepdims=0)
    count = b.op("ReduceSum", [mask, axis_seq], f"{t}pool.count", keepdims=0)
    mean = b.op("Div", [total, count], f"{t}pool.mean")
    return b.op("Div", [mean, b.op("ReduceL2", [mean], f"{t}pool.norm", axes=[-1], keepdims=1)], out)


def add_classifier_head(b: GraphBuilder, src: BertSource, hidden: str, out: str) -> str:
    """BertForSequenceClassification head: tanh pooler on [CLS], then the 1-label classifier -> [B, 1]."""
    if src.config.num_labels != 1:
        raise UnsupportedModelError(
            f"cross-encoder has {src.config.num_labels} labels; a reranker (regression) needs exactly one output logit")
    cls = b.op("Gather", [hidden, b.shared("head.cls_index", 0, np.int64)], "head.cls", axis=1)
    pooled = b.op("Tanh", [_linear(b, src, cls, "pooler.dense", "head.pooler_dense")], "head.pooled")
    return _linear(b, src, pooled, "classifier", out)
