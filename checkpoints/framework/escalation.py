"""Hints that escalate: the first failure of a check names the concept and where to read about it; each
repeated failure of the *same kind* (same checkpoint, same place in it that failed, no pass in between) shows
the next, more specific hint. The count lives in the kernel's memory, so restarting the kernel starts again
from the first hint.

A failure's levels are its own hint(s) followed by the checkpoint's more specific levels (`levels_for`): a
failure with a hint of its own still escalates to the checkpoint's fix when it happens again, and a failure
without one shows the checkpoint's levels from the concept on.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

_failures: Counter[str] = Counter()
_SEPARATOR = "|"


def kind_key(key: str, kind: str) -> str:
    """The escalation key of one kind of failure of the check `key`."""
    return f"{key}{_SEPARATOR}{kind}" if kind else key


def levels_for(own: Sequence[str], checkpoint: Sequence[str], *, nothing_yet: bool = False) -> list[str]:
    """The escalating hints of one failure: its own, then the checkpoint's levels after the first (the concept the
    failure's own hint already stands in for). A stub (nothing_yet) escalates to the checkpoint's concept only:
    running an unwritten TODO's checkpoint twice must not hand out the code."""
    own = [level for level in own if level]
    checkpoint = [level for level in checkpoint if level]
    if not own:
        return checkpoint[:1] if nothing_yet else checkpoint
    more = checkpoint[:1] if nothing_yet else checkpoint[1:] or checkpoint[:1]
    return own + [level for level in more if level not in own]


def choose(key: str, levels: Sequence[str]) -> str:
    """Count one more failure of `key` and return the hint for it ('' when there is none)."""
    _failures[key] += 1
    levels = [level for level in levels if level]
    if not levels:
        return ""
    return levels[min(_failures[key], len(levels)) - 1]


def failures(key: str) -> int:
    """Failures of the check `key` since its last pass, of every kind."""
    return sum(n for k, n in _failures.items() if k == key or k.startswith(key + _SEPARATOR))


def reset(key: str | None = None) -> None:
    """Forget the failures of `key` (after a pass), of every kind, or of every check."""
    if key is None:
        _failures.clear()
        return
    for counted in [k for k in _failures if k == key or k.startswith(key + _SEPARATOR)]:
        del _failures[counted]
