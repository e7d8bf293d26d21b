"""Read a BERT-family model folder (config.json, model.safetensors, vocab.txt, tokenizer files).

The builders need three things from such a folder: the architecture numbers, the weights by
their Hugging Face names (without the `bert.` prefix a task head adds), and the tokenizer
settings. Anything outside the plain BERT recipe raises instead of building a wrong graph.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

from workshop.models.errors import ModelBuildError, UnsupportedModelError

#: Hugging Face uses a huge sentinel for "no limit" in tokenizer_config.json.
_NO_LIMIT = 10**12


@dataclass(frozen=True)
class BertConfig:
    hidden_size: int
    num_heads: int
    num_layers: int
    intermediate_size: int
    layer_norm_eps: float
    max_position_embeddings: int
    type_vocab_size: int
    vocab_size: int
    num_labels: int

    @property
    def head_size(self) -> int:
        return self.hidden_size // self.num_heads


@dataclass(frozen=True)
class TokenizerSettings:
    """What the in-graph `BertTokenizer` op needs, read the way Hugging Face applies it."""

    vocab: tuple[str, ...]
    do_lower_case: bool
    strip_accents: bool
    tokenize_chinese_chars: bool
    model_max_length: int | None
    cls_token: str = "[CLS]"
    sep_token: str = "[SEP]"
    pad_token: str = "[PAD]"
    unk_token: str = "[UNK]"
    mask_token: str = "[MASK]"

    def token_id(self, token: str) -> int:
        try:
            return self.vocab.index(token)
        except ValueError:
            raise ModelBuildError(f"special token {token!r} is missing from vocab.txt") from None


@dataclass(frozen=True)
class BertSource:
    folder: Path
    config: BertConfig
    weights: dict[str, np.ndarray]
    tokenizer: TokenizerSettings

    def weight(self, name: str) -> np.ndarray:
        try:
            return self.weights[name]
        except KeyError:
            raise ModelBuildError(f"weight {name!r} is missing from {self.folder / 'model.safetensors'}") from None


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def read_config(folder: Path) -> BertConfig:
    path = folder / "config.json"
    if not path.exists():
        raise ModelBuildError(f"{path} not found: a BERT model folder needs config.json")
    cfg = _read_json(path)
    checks = {
        "model_type": (cfg.get("model_type", "bert"), "bert"),
        "hidden_act": (cfg.get("hidden_act", "gelu"), "gelu"),
        "position_embedding_type": (cfg.get("position_embedding_type", "absolute"), "absolute"),
    }
    for field, (value, wanted) in checks.items():
        if value != wanted:
            raise UnsupportedModelError(f"config.json {field}={value!r}: only {wanted!r} BERT models are supported")
    hidden, heads = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
    if hidden % heads:
        raise ModelBuildError(f"hidden_size {hidden} is not divisible by num_attention_heads {heads}")
    labels = cfg.get("num_labels") or len(cfg.get("id2label") or {}) or 1
    return BertConfig(
        hidden_size=hidden,
        num_heads=heads,
        num_layers=int(cfg["num_hidden_layers"]),
        intermediate_size=int(cfg["intermediate_size"]),
        layer_norm_eps=float(cfg.get("layer_norm_eps", 1e-12)),
        max_position_embeddings=int(cfg.get("max_position_embeddings", 512)),
        type_vocab_size=int(cfg.get("type_vocab_size", 2)),
        vocab_size=int(cfg["vocab_size"]),
        num_labels=int(labels),
    )


def read_tokenizer(folder: Path) -> TokenizerSettings:
    """Tokenizer settings; tokenizer.json's normalizer wins over tokenizer_config.json (it is what
    the fast tokenizer, and so sentence-transformers, actually runs)."""
    vocab_path = folder / "vocab.txt"
    if not vocab_path.exists():
        raise ModelBuildError(f"{vocab_path} not found: the in-graph BertTokenizer needs a WordPiece vocab.txt")
    vocab = tuple(vocab_path.read_text(encoding="utf-8").splitlines())
    tok_cfg = _read_json(folder / "tokenizer_config.json")
    tok_json = _read_json(folder / "tokenizer.json")
    model = tok_json.get("model") or {}
    if model and model.get("type") not in (None, "WordPiece"):
        raise UnsupportedModelError(f"tokenizer.json model type {model.get('type')!r}: only WordPiece (BERT) tokenizers")
    norm = tok_json.get("normalizer") or {}
    if norm and norm.get("type") == "BertNormalizer":
        lower = bool(norm.get("lowercase", True))
        strip = norm.get("strip_accents")
        chinese = bool(norm.get("handle_chinese_chars", True))
    else:
        lower = bool(tok_cfg.get("do_lower_case", True))
        strip = tok_cfg.get("strip_accents")
        chinese = bool(tok_cfg.get("tokenize_chinese_chars", True))
    max_len = tok_cfg.get("model_max_length")
    specials = {k: tok_cfg[k] for k in ("cls_token", "sep_token", "pad_token", "unk_token", "mask_token")
                if isinstance(tok_cfg.get(k), str)}
    return TokenizerSettings(
        vocab=vocab,
        do_lower_case=lower,
        # Hugging Face: strip_accents=None means "strip whenever lower-casing".
        strip_accents=lower if strip is None else bool(strip),
        tokenize_chinese_chars=chinese,
        model_max_length=int(max_len) if isinstance(max_len, (int, float)) and max_len < _NO_LIMIT else None,
        **specials,
    )


def read_bert_folder(folder: Path | str) -> BertSource:
    folder = Path(folder)
    weights_path = folder / "model.safetensors"
    if not weights_path.exists():
        raise ModelBuildError(f"{weights_path} not found: the builders read safetensors weights only")
    raw = load_file(str(weights_path))
    weights = {(k[len("bert."):] if k.startswith("bert.") else k): v for k, v in raw.items()}
    bad = sorted(k for k, v in weights.items() if v.dtype != np.float32 and "position_ids" not in k)
    if bad:
        raise UnsupportedModelError(f"weights must be float32; {bad[0]} is {weights[bad[0]].dtype}")
    return BertSource(folder=folder, config=read_config(folder), weights=weights, tokenizer=read_tokenizer(folder))
