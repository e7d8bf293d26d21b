"""Hints that escalate: the first failure of a check names the concept and where to read about it; each
repeated failure of the *same* check (same checkpoint, no pass in between) shows the next, more specific
hint. The count lives in the kernel's memory, so restarting the kernel starts again from the first hint.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

_failures: Counter[str] = Counter()


def choose(key: str, levels: Sequence[str]) -> str:
    """Count one more failure of `key` and return the hint for it ('' when there is none)."""
    _failures[key] += 1
    levels = [level for level in levels if level]
    if not levels:
        return ""
    return levels[min(_failures[key], len(levels)) - 1]


def failures(key: str) -> int:
    return _failures[key]


def reset(key: str | None = None) -> None:
    """Forget the failures of `key` (after a pass), or of every check."""
    if key is None:
        _failures.clear()
    else:
        _failures.pop(key, None)
