"""Turn a BERT-family cross-encoder folder into Oracle's reranking model, tokenizer included.

The folder is what `cross-encoder/ms-marco-MiniLM-L-6-v2` (or any BertForSequenceClassification
with one label and a WordPiece vocab) ships: config.json, model.safetensors, vocab.txt and the
tokenizer configs. The graph encodes `[CLS] first [SEP] second [SEP]` (token types 0/1), truncates
with Hugging Face's longest-first rule to the tokenizer's model_max_length (512 when unset, never
beyond max_position_embeddings), runs BERT and the classifier head, and returns the raw logit as
the regression `output` (apply a sigmoid for a 0..1 score; the ordering is the same).
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import onnx

from workshop import config
from workshop.models.bert_graph import add_classifier_head, add_encoder
from workshop.models.bert_source import BertSource, read_bert_folder
from workshop.models.errors import ModelBuildError
from workshop.models.graph_builder import GraphBuilder, make_model
from workshop.models.model_cache import ensure_cached
from workshop.models.model_card import ModelCard, batch_props
from workshop.models.reranker_graph import FIRST_INPUT, SECOND_INPUT, add_scalar_output, reranker_io
from workshop.models.tokenizer_graph import add_bert_tokenizer, add_pair_encoding

DEFAULT_MAX_TOKENS = 512
#: Files whose bytes define the built model (the cache key hashes them).
_SOURCE_FILES = ("config.json", "model.safetensors", "vocab.txt", "tokenizer_config.json", "tokenizer.json",
                 "special_tokens_map.json")
_BUILDER_VERSION = "1"


def pair_max_tokens(src: BertSource, max_tokens: int | None = None) -> int:
    limit = max_tokens or src.tokenizer.model_max_length or DEFAULT_MAX_TOKENS
    limit = min(limit, src.config.max_position_embeddings)
    if limit < 4:
        raise ModelBuildError(f"max_tokens {limit} leaves no room for a pair ([CLS] a [SEP] b [SEP])")
    return limit


def cross_encoder_card(src: BertSource) -> ModelCard:
    name = src.folder.name
    return ModelCard(
        kind="cross-encoder",
        label=f"RERANKER cross-encoder {name}",
        description=f"Cross-encoder {name} (BERT, {src.config.num_layers} layers) scoring each (first, second) "
                    "pair jointly; the output is the raw relevance logit.",
        is_stand_in=False,
        source=f"local folder {name}",
    )


def build_cross_encoder(folder: Path | str, max_tokens: int | None = None) -> onnx.ModelProto:
    src = read_bert_folder(folder)
    tok = src.tokenizer
    b = GraphBuilder()
    raw_first = add_bert_tokenizer(b, FIRST_INPUT, tok, "first")
    raw_second = add_bert_tokenizer(b, SECOND_INPUT, tok, "second")
    ids, mask, types = add_pair_encoding(b, raw_first, raw_second, pair_max_tokens(src, max_tokens),
                                         tok.token_id(tok.cls_token), tok.token_id(tok.sep_token), "pair")
    logits = add_classifier_head(b, src, add_encoder(b, src, ids, mask, types), "pair.logit")
    add_scalar_output(b, logits)
    card = cross_encoder_card(src)
    inputs, outputs = reranker_io()
    return make_model(b, "cross_encoder_reranker", inputs, outputs, card.props() | batch_props([ids, mask, types], logits),
                      card.description)


def source_digest(folder: Path | str, max_tokens: int | None = None) -> str:
    """sha256 over the folder's model files and the build options: the cache key."""
    folder = Path(folder)
    digest = hashlib.sha256(f"{_BUILDER_VERSION}:{max_tokens}".encode())
    for name in _SOURCE_FILES:
        path = folder / name
        if path.exists():
            digest.update(name.encode())
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def ensure_cross_encoder_model(folder: Path | str, max_tokens: int | None = None) -> Path:
    """Build (once; cached under models_dir() by content) the reranking model for a cross-encoder folder."""
    key = source_digest(folder, max_tokens)
    path = config.models_dir() / f"cross_encoder_{key[:16]}.onnx"
    return ensure_cached(path, None, lambda: build_cross_encoder(folder, max_tokens).SerializeToString())
