"""Independent reference for the model tests: BERT tokenization and forward pass in plain numpy.

Written from the Hugging Face BERT recipe (BasicTokenizer + WordPiece as in transformers'
tokenization_bert.py, the fast tokenizer's longest-first pair truncation, BertModel and
BertForSequenceClassification), not from workshop.models, and computed in float64.
"""
from __future__ import annotations

import json
import math
import unicodedata
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file

_erf = np.frompyfunc(math.erf, 1, 1)


# -- tokenizer ---------------------------------------------------------------------------------------
def _is_whitespace(c: str) -> bool:
    return c in " \t\n\r" or unicodedata.category(c) == "Zs"


def _is_control(c: str) -> bool:
    return c not in "\t\n\r" and unicodedata.category(c).startswith("C")


def _is_punctuation(c: str) -> bool:
    cp = ord(c)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(c).startswith("P")


def _is_cjk(cp: int) -> bool:
    return any(lo <= cp <= hi for lo, hi in ((0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
                                             (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


class WordPieceTokenizer:
    def __init__(self, vocab: list[str], lower: bool = True, strip_accents: bool = True, max_chars: int = 100):
        self.vocab = {tok: i for i, tok in enumerate(vocab)}
        self.lower, self.strip_accents, self.max_chars = lower, strip_accents, max_chars

    @classmethod
    def from_folder(cls, folder: Path) -> "WordPieceTokenizer":
        return cls((folder / "vocab.txt").read_text(encoding="utf-8").splitlines())

    def basic(self, text: str) -> list[str]:
        text = "".join(" " if _is_whitespace(c) else c for c in text
                       if not (ord(c) in (0, 0xFFFD) or _is_control(c)))
        text = "".join(f" {c} " if _is_cjk(ord(c)) else c for c in text)
        text = unicodedata.normalize("NFC", text)
        pieces: list[str] = []
        for token in text.split():
            if self.lower:
                token = token.lower()
            if self.strip_accents:
                token = "".join(c for c in unicodedata.normalize("NFD", token) if unicodedata.category(c) != "Mn")
            word = ""
            for c in token:
                if _is_punctuation(c):
                    pieces.extend([word, c] if word else [c])
                    word = ""
                else:
                    word += c
            if word:
                pieces.append(word)
        return pieces

    def wordpiece(self, word: str) -> list[str]:
        if len(word) > self.max_chars:
            return ["[UNK]"]
        out, start = [], 0
        while start < len(word):
            end, piece = len(word), None
            while start < end:
                candidate = ("##" if start else "") + word[start:end]
                if candidate in self.vocab:
                    piece = candidate
                    break
                end -= 1
            if piece is None:
                return ["[UNK]"]
            out.append(piece)
            start = end
        return out

    def ids(self, text: str) -> list[int]:
        return [self.vocab[p] for word in self.basic(text) for p in self.wordpiece(word)]

    def encode(self, text: str, max_len: int) -> list[int]:
        body = self.ids(text)[: max_len - 2]
        return [self.vocab["[CLS]"], *body, self.vocab["[SEP]"]]

    def encode_pair(self, a: str, b: str, max_len: int) -> tuple[list[int], list[int]]:
        ia, ib = self.ids(a), self.ids(b)
        ka, kb = longest_first(len(ia), len(ib), max_len - 3)
        cls, sep = self.vocab["[CLS]"], self.vocab["[SEP]"]
        ids = [cls, *ia[:ka], sep, *ib[:kb], sep]
        return ids, [0] * (ka + 2) + [1] * (kb + 1)


def longest_first(n1: int, n2: int, room: int) -> tuple[int, int]:
    """Lengths kept by the Hugging Face fast tokenizer's LongestFirst truncation (tokenizers' Rust code)."""
    if n1 + n2 <= room:
        return n1, n2
    swap = n1 > n2
    if swap:
        n1, n2 = n2, n1
    n2 = n1 if n1 > room else max(n1, room - n1)
    if n1 + n2 > room:
        n1 = room // 2
        n2 = n1 + room % 2
    return (n2, n1) if swap else (n1, n2)


# -- model -------------------------------------------------------------------------------------------
class ReferenceBert:
    def __init__(self, folder: Path):
        cfg = json.loads((folder / "config.json").read_text())
        raw = load_file(str(folder / "model.safetensors"))
        self.w = {(k[5:] if k.startswith("bert.") else k): v.astype(np.float64) for k, v in raw.items()}
        self.heads = cfg["num_attention_heads"]
        self.layers = cfg["num_hidden_layers"]
        self.eps = cfg.get("layer_norm_eps", 1e-12)

    def _ln(self, x: np.ndarray, p: str) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self.eps) * self.w[f"{p}.weight"] + self.w[f"{p}.bias"]

    def _lin(self, x: np.ndarray, p: str) -> np.ndarray:
        return x @ self.w[f"{p}.weight"].T + self.w[f"{p}.bias"]

    def hidden(self, ids: list[int], types: list[int] | None = None) -> np.ndarray:
        """Last hidden state [S, H] of one unpadded sequence."""
        ids_a = np.array(ids)
        types_a = np.zeros_like(ids_a) if types is None else np.array(types)
        x = (self.w["embeddings.word_embeddings.weight"][ids_a] + self.w["embeddings.position_embeddings.weight"][:len(ids)]
             + self.w["embeddings.token_type_embeddings.weight"][types_a])
        x = self._ln(x, "embeddings.LayerNorm")
        s, h = x.shape
        d = h // self.heads
        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            q, k, v = (self._lin(x, f"{p}.attention.self.{n}").reshape(s, self.heads, d).transpose(1, 0, 2)
                       for n in ("query", "key", "value"))
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(d)
            probs = np.exp(scores - scores.max(-1, keepdims=True))
            probs /= probs.sum(-1, keepdims=True)
            ctx = (probs @ v).transpose(1, 0, 2).reshape(s, h)
            x1 = self._ln(self._lin(ctx, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
            inner = self._lin(x1, f"{p}.intermediate.dense")
            gelu = 0.5 * inner * (1.0 + _erf(inner / math.sqrt(2.0)).astype(np.float64))
            x = self._ln(self._lin(gelu, f"{p}.output.dense") + x1, f"{p}.output.LayerNorm")
        return x

    def sentence_embedding(self, ids: list[int]) -> np.ndarray:
        """sentence-transformers mean pooling + L2 normalisation."""
        mean = self.hidden(ids).mean(0)
        return mean / np.linalg.norm(mean)

    def pair_logit(self, ids: list[int], types: list[int]) -> float:
        cls = self.hidden(ids, types)[0]
        pooled = np.tanh(self._lin(cls, "pooler.dense"))
        return float(self._lin(pooled, "classifier")[0])
