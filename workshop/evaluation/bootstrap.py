"""How far to trust a difference: paired bootstrap over queries, and win/tie/loss counts.

Both strategies are scored on the same queries, so we resample *queries* (with replacement) and
recompute the mean difference each time; the 2.5th and 97.5th percentiles bound a 95% interval.
A fixed seed makes the interval reproducible (a checkpoint can recompute it).
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

SEED = 2026
RESAMPLES = 10_000
TIE = 1e-9


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, resamples: int = RESAMPLES, seed: int = SEED,
                     confidence: float = 0.95) -> dict[str, float]:
    """Mean of b - a over queries and its bootstrap interval (queries paired by position)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or len(x) == 0:
        raise ValueError("a and b must be equally long, non-empty lists of per-query scores")
    diff = y - x
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(diff), size=(resamples, len(diff)))
    means = diff[idx].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return {"diff": float(diff.mean()), "ci_low": float(low), "ci_high": float(high)}


def win_tie_loss(a: Sequence[float], b: Sequence[float], tie: float = TIE) -> dict[str, int]:
    """How many queries b scores higher than a (win), equal (tie) or lower (loss)."""
    diff = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    return {"win": int((diff > tie).sum()), "tie": int((np.abs(diff) <= tie).sum()), "loss": int((diff < -tie).sum())}
