"""Tokenization inside the graph: the onnxruntime-extensions `BertTokenizer` op plus truncation.

Oracle requires tokenization inside an in-database model, and its runtime ships the
onnxruntime-extensions tokenizer ops. Two pitfalls are handled here (see the models findings):
`strip_accents` is written explicitly (Hugging Face strips accents whenever it lower-cases), and
truncation is done with standard ops because the op ignores its own max-length attributes.
"""
from __future__ import annotations

from onnx import TensorProto, helper

from workshop.models.bert_source import TokenizerSettings
from workshop.models.graph_builder import CONTRIB_DOMAIN, GraphBuilder

_DEFAULT_SPECIALS = {"cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]",
                     "mask_token": "[MASK]"}
_BIG = 2**62


def add_bert_tokenizer(b: GraphBuilder, text: str, tok: TokenizerSettings, prefix: str) -> str:
    """string [1] -> token ids [n] as `[CLS] tokens [SEP]` (one string per call: two would make a pair)."""
    attrs: dict = {"vocab_file": "\n".join(tok.vocab), "do_lower_case": int(tok.do_lower_case),
                   "strip_accents": int(tok.strip_accents)}
    if not tok.tokenize_chinese_chars:
        attrs["tokenize_chinese_chars"] = 0
    for key, default in _DEFAULT_SPECIALS.items():
        if getattr(tok, key) != default:
            attrs[key] = getattr(tok, key)
    outputs = [f"{prefix}.raw_ids", f"{prefix}.raw_types", f"{prefix}.raw_mask", f"{prefix}.offsets"]
    b.op("BertTokenizer", [text], outputs, domain=CONTRIB_DOMAIN, **attrs)
    return outputs[0]


def _filled(b: GraphBuilder, shape: str, value: int, out: str) -> str:
    return b.op("ConstantOfShape", [shape], out, value=helper.make_tensor(f"{out}.value", TensorProto.INT64, [1], [value]))


def _ones_like(b: GraphBuilder, t: str, value: int, out: str) -> str:
    """A tensor shaped like `t`, filled with `value`."""
    return _filled(b, b.op("Shape", [t], f"{out}.shape"), value, out)


def _shared(b: GraphBuilder, name: str, value: int) -> str:
    """An int64 [1] constant shared by every tokenizer stage of the graph (created on first use)."""
    return name if b.has(name) else b.int64s(name, [value])


def add_single_encoding(b: GraphBuilder, raw_ids: str, max_tokens: int, prefix: str) -> tuple[str, str, str]:
    """Truncate `[CLS] a [SEP]` to max_tokens keeping the final [SEP] (as sentence-transformers does),
    then add the batch axis: returns input_ids, attention_mask, token_type_ids as [1, S]."""
    p = prefix
    zero, one, last, end = (_shared(b, "tok.zero", 0), _shared(b, "tok.one", 1),
                            _shared(b, "tok.minus_one", -1), _shared(b, "tok.end", _BIG))
    keep = b.op("Min", [b.op("Shape", [raw_ids], f"{p}.n"), b.int64s(f"{p}.max_tokens", [max_tokens])], f"{p}.keep")
    head = b.op("Slice", [raw_ids, zero, b.op("Sub", [keep, one], f"{p}.keep_m1")], f"{p}.head")
    tail = b.op("Slice", [raw_ids, last, end], f"{p}.tail")
    ids = b.op("Concat", [head, tail], f"{p}.ids", axis=0)
    mask = _ones_like(b, ids, 1, f"{p}.mask")
    types = _ones_like(b, ids, 0, f"{p}.types")
    return tuple(b.op("Unsqueeze", [t, zero], f"{p}.{name}_2d")  # type: ignore[return-value]
                 for t, name in ((ids, "ids"), (mask, "mask"), (types, "types")))


def add_pair_encoding(b: GraphBuilder, raw_a: str, raw_b: str, max_tokens: int, cls_id: int, sep_id: int,
                      prefix: str) -> tuple[str, str, str]:
    """`[CLS] a [SEP] b [SEP]` with token types 0/1, truncated to max_tokens with Hugging Face's
    fast-tokenizer "longest_first" rule: if the shorter side fits in half the budget it is kept and
    the longer side gets the rest, otherwise the budget is halved (the longer side, or the second
    on a tie, gets the odd token). Returns input_ids, attention_mask, token_type_ids as [1, S]."""
    p = prefix
    zero, one, last = _shared(b, "tok.zero", 0), _shared(b, "tok.one", 1), _shared(b, "tok.minus_one", -1)
    body_a = b.op("Slice", [raw_a, one, last], f"{p}.a")
    body_b = b.op("Slice", [raw_b, one, last], f"{p}.b")
    n_a = b.op("Shape", [body_a], f"{p}.n_a")
    n_b = b.op("Shape", [body_b], f"{p}.n_b")
    room = max_tokens - 3
    budget = b.int64s(f"{p}.budget", [room])
    half_floor = b.int64s(f"{p}.half_floor", [room // 2])
    half_ceil = b.int64s(f"{p}.half_ceil", [room - room // 2])
    short = b.op("Min", [n_a, n_b], f"{p}.short")
    short_fits = b.op("LessOrEqual", [b.op("Add", [short, short], f"{p}.short_x2"), budget], f"{p}.short_fits")
    k_short = b.op("Where", [short_fits, short, half_floor], f"{p}.k_short")
    k_long = b.op("Where", [short_fits, b.op("Sub", [budget, short], f"{p}.rest"), half_ceil], f"{p}.k_long")
    a_longer = b.op("Greater", [n_a, n_b], f"{p}.a_longer")
    fits = b.op("LessOrEqual", [b.op("Add", [n_a, n_b], f"{p}.total"), budget], f"{p}.fits")
    keep_a = b.op("Where", [fits, n_a, b.op("Where", [a_longer, k_long, k_short], f"{p}.cut_a")], f"{p}.keep_a")
    keep_b = b.op("Where", [fits, n_b, b.op("Where", [a_longer, k_short, k_long], f"{p}.cut_b")], f"{p}.keep_b")
    kept_a = b.op("Slice", [body_a, zero, keep_a], f"{p}.a_kept")
    kept_b = b.op("Slice", [body_b, zero, keep_b], f"{p}.b_kept")
    cls, sep = b.int64s(f"{p}.cls", [cls_id]), b.int64s(f"{p}.sep", [sep_id])
    ids = b.op("Concat", [cls, kept_a, sep, kept_b, sep], f"{p}.ids", axis=0)
    first_len = b.op("Add", [keep_a, b.int64s(f"{p}.two", [2])], f"{p}.first_len")
    second_len = b.op("Add", [keep_b, one], f"{p}.second_len")
    types = b.op("Concat", [_filled(b, first_len, 0, f"{p}.types_a"), _filled(b, second_len, 1, f"{p}.types_b")],
                 f"{p}.types", axis=0)
    mask = _ones_like(b, ids, 1, f"{p}.mask")
    return tuple(b.op("Unsqueeze", [t, zero], f"{p}.{name}_2d")  # type: ignore[return-value]
                 for t, name in ((ids, "ids"), (mask, "mask"), (types, "types")))
