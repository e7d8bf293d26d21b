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
    gamma = b.const(f"{prefix}.weight", src.weight(f"{prefix}.weight"))
    beta = b.const(f"{prefix}.bias", src.weight(f"{prefix}.bias"))
    return b.op("LayerNormalization", [x, gamma, beta], out, axis=-1, epsilon=src.config.layer_norm_eps)


def _linear(b: GraphBuilder, src: BertSource, x: str, prefix: str, out: str) -> str:
    weight_t = b.const(f"{prefix}.weight.T", src.weight(f"{prefix}.weight").T)
    bias = b.const(f"{prefix}.bias", src.weight(f"{prefix}.bias"))
    return b.op("Add", [b.op("MatMul", [x, weight_t], f"{out}.matmul"), bias], out)


def add_encoder(b: GraphBuilder, src: BertSource, input_ids: str, attention_mask: str, token_type_ids: str) -> str:
    """BertModel without pooler: int64 [B, S] inputs -> last hidden state float [B, S, H]."""
    cfg = src.config
    b.int64s("enc.split_heads", [0, 0, cfg.num_heads, cfg.head_size])
    b.int64s("enc.merge_heads", [0, 0, cfg.hidden_size])
    b.const("enc.scale", 1.0 / np.sqrt(cfg.head_size), np.float32)
    b.const("enc.one", 1.0, np.float32)
    b.const("enc.masked", _MASKED, np.float32)
    b.const("enc.half", 0.5, np.float32)
    b.const("enc.sqrt2", np.sqrt(2.0), np.float32)
    b.const("enc.zero_i", 0, np.int64)
    b.const("enc.one_i", 1, np.int64)
    b.int64s("enc.mask_axes", [1, 2])

    word = b.op("Gather", [b.const("embeddings.word_embeddings.weight", src.weight("embeddings.word_embeddings.weight")),
                           input_ids], "emb.word", axis=0)
    seq_len = b.op("Gather", [b.op("Shape", [input_ids], "emb.ids_shape"), "enc.one_i"], "emb.seq_len", axis=0)
    positions = b.op("Range", ["enc.zero_i", seq_len, "enc.one_i"], "emb.position_ids")
    pos = b.op("Gather", [b.const("embeddings.position_embeddings.weight",
                                  src.weight("embeddings.position_embeddings.weight")), positions], "emb.position", axis=0)
    types = b.op("Gather", [b.const("embeddings.token_type_embeddings.weight",
                                    src.weight("embeddings.token_type_embeddings.weight")), token_type_ids],
                 "emb.token_type", axis=0)
    summed = b.op("Add", [b.op("Add", [word, pos], "emb.word_pos"), types], "emb.sum")
    x = _layer_norm(b, src, summed, "embeddings.LayerNorm", "emb.out")

    mask = b.op("Unsqueeze", [b.op("Cast", [attention_mask], "enc.mask_f", to=TensorProto.FLOAT), "enc.mask_axes"],
                "enc.mask_4d")
    additive = b.op("Mul", [b.op("Sub", ["enc.one", mask], "enc.mask_inv"), "enc.masked"], "enc.mask_add")

    for i in range(cfg.num_layers):
        p = f"encoder.layer.{i}"

        def heads(t: str, name: str) -> str:  # [B, S, H] -> [B, NH, S, D]
            return b.op("Transpose", [b.op("Reshape", [t, "enc.split_heads"], f"{name}.split")], f"{name}.heads",
                        perm=[0, 2, 1, 3])

        q = heads(_linear(b, src, x, f"{p}.attention.self.query", f"l{i}.q"), f"l{i}.q")
        k = heads(_linear(b, src, x, f"{p}.attention.self.key", f"l{i}.k"), f"l{i}.k")
        v = heads(_linear(b, src, x, f"{p}.attention.self.value", f"l{i}.v"), f"l{i}.v")
        k_t = b.op("Transpose", [k], f"l{i}.k_t", perm=[0, 1, 3, 2])
        scores = b.op("Mul", [b.op("MatMul", [q, k_t], f"l{i}.qk"), "enc.scale"], f"l{i}.qk_scaled")
        probs = b.op("Softmax", [b.op("Add", [scores, additive], f"l{i}.qk_masked")], f"l{i}.probs", axis=-1)
        ctx = b.op("Transpose", [b.op("MatMul", [probs, v], f"l{i}.ctx")], f"l{i}.ctx_t", perm=[0, 2, 1, 3])
        ctx = b.op("Reshape", [ctx, "enc.merge_heads"], f"l{i}.ctx_merged")
        attn = _linear(b, src, ctx, f"{p}.attention.output.dense", f"l{i}.attn_out")
        x1 = _layer_norm(b, src, b.op("Add", [attn, x], f"l{i}.res1"), f"{p}.attention.output.LayerNorm", f"l{i}.x1")
        inner = _linear(b, src, x1, f"{p}.intermediate.dense", f"l{i}.inner")
        erf = b.op("Erf", [b.op("Div", [inner, "enc.sqrt2"], f"l{i}.gelu_div")], f"l{i}.gelu_erf")
        gelu = b.op("Mul", [b.op("Mul", [inner, "enc.half"], f"l{i}.gelu_half"),
                            b.op("Add", ["enc.one", erf], f"l{i}.gelu_one")], f"l{i}.gelu")
        out = _linear(b, src, gelu, f"{p}.output.dense", f"l{i}.out")
        x = _layer_norm(b, src, b.op("Add", [out, x1], f"l{i}.res2"), f"{p}.output.LayerNorm", f"l{i}.hidden")
    return x


def add_mean_pool_l2(b: GraphBuilder, hidden: str, attention_mask: str, out: str) -> str:
    """sentence-transformers Pooling(mean) + Normalize: [B, S, H] -> unit vectors [B, H]."""
    b.int64s("pool.axis_seq", [1])
    b.int64s("pool.axis_last", [-1])
    mask = b.op("Unsqueeze", [b.op("Cast", [attention_mask], "pool.mask_f", to=TensorProto.FLOAT), "pool.axis_last"],
                "pool.mask_3d")
    total = b.op("ReduceSum", [b.op("Mul", [hidden, mask], "pool.masked"), "pool.axis_seq"], "pool.sum", keepdims=0)
    count = b.op("ReduceSum", [mask, "pool.axis_seq"], "pool.count", keepdims=0)
    mean = b.op("Div", [total, count], "pool.mean")
    return b.op("Div", [mean, b.op("ReduceL2", [mean], "pool.norm", axes=[-1], keepdims=1)], out)


def add_classifier_head(b: GraphBuilder, src: BertSource, hidden: str, out: str) -> str:
    """BertForSequenceClassification head: tanh pooler on [CLS], then the 1-label classifier -> [B, 1]."""
    if src.config.num_labels != 1:
        raise UnsupportedModelError(
            f"cross-encoder has {src.config.num_labels} labels; a reranker (regression) needs exactly one output logit")
    cls = b.op("Gather", [hidden, b.const("head.cls_index", 0, np.int64)], "head.cls", axis=1)
    pooled = b.op("Tanh", [_linear(b, src, cls, "pooler.dense", "head.pooler_dense")], "head.pooled")
    return _linear(b, src, pooled, "classifier", out)
