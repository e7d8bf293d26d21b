"""A token estimate good enough for budgeting a prompt, without the model's tokenizer.

`estimate_tokens` counts one token per 4 characters (rounded up), the usual rule of thumb for
English text with BPE tokenizers (GPT-style models average about 4 characters per token).
It is an *estimate*: code, numbers and non-Latin scripts use more tokens per character, so keep
the context budget well below the model's window (the default budget, 1,500, is a small fraction
of any current model's). Budgets in this package are enforced in these estimated units.
"""
from __future__ import annotations

import math

CHARS_PER_TOKEN = 4
ELLIPSIS = "…"


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4); 0 for the empty string."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, not {type(text).__name__}")
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def truncate_to_tokens(text: str, tokens: int) -> str:
    """`text` cut so that estimate_tokens(result) <= tokens, ending in '…' when cut ('' for tokens <= 0)."""
    limit = max(tokens, 0) * CHARS_PER_TOKEN
    if len(text) <= limit:
        return text
    if limit == 0:
        return ""
    return text[:limit - len(ELLIPSIS)].rstrip() + ELLIPSIS
