"""Expansion operators over the index vocabulary: wildcards, fuzzy, stem ($) and soundex (!).

Oracle expands these against the words actually in the index, so results depend on the data:

* ``%`` / ``_`` wildcards: every index term matching the pattern; more than WILDCARD_MAXTERMS raise
  DRG-51030 (Oracle's default wildcard_maxterms);
* fuzzy: Oracle's similarity algorithm is not published. Here similarity is
  ``100 * (1 - d / max(len))`` with ``d`` the optimal-string-alignment edit distance (one
  transposition counts as one edit); terms scoring below ``score`` (default 60) are dropped and the
  best ``numresults`` (default 100) kept. Terms shorter than 3 characters are not expanded, as on Oracle;
* stem: a light English suffix stemmer (Porter steps 1a-1c and 5a): $index matches index, indexes,
  indexed, indexing. Irregular forms (ran/run) are not known;
* soundex: American Soundex codes.

Stopwords are never expansion results.
"""
from __future__ import annotations

import bisect
import re
from functools import cached_property

import numpy as np

from .errors import too_many_terms

WILDCARD_MAXTERMS = 20000


class Vocabulary:
    """The index's distinct tokens (sorted) with document frequencies, plus lazily built lookups."""

    def __init__(self, tokens: list[str], df: list[int]):
        self.tokens = tokens
        self.df = np.asarray(df, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.tokens)

    # -- wildcards
    def wildcard(self, pattern: str) -> list[str]:
        cut = min((i for i in (pattern.find("%"), pattern.find("_")) if i >= 0), default=len(pattern))
        prefix = pattern[:cut]
        lo = bisect.bisect_left(self.tokens, prefix)
        hi = bisect.bisect_left(self.tokens, prefix + "\U0010ffff") if prefix else len(self.tokens)
        if lo >= hi:
            return []
        regex = "".join("[^\n]*" if c == "%" else "[^\n]" if c == "_" else re.escape(c) for c in pattern)
        found = re.findall(f"^{regex}$", "\n".join(self.tokens[lo:hi]), re.M)
        if len(found) > WILDCARD_MAXTERMS:
            raise too_many_terms("wildcard", WILDCARD_MAXTERMS)
        return found

    # -- fuzzy
    @cached_property
    def _by_length(self) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        groups: dict[int, list[int]] = {}
        for i, t in enumerate(self.tokens):
            groups.setdefault(len(t), []).append(i)
        out = {}
        for length, idx in groups.items():
            codes = np.array([[ord(c) for c in self.tokens[i]] for i in idx], dtype=np.int32).reshape(len(idx), length)
            out[length] = (np.asarray(idx, dtype=np.int64), codes)
        return out

    def fuzzy(self, text: str, score: int, numresults: int, stopwords: frozenset[str]) -> list[tuple[str, float]]:
        """Index terms with similarity >= score, best first: [(term, similarity 0..100)]."""
        a = np.array([ord(c) for c in text], dtype=np.int32)
        la = len(a)
        found: list[tuple[float, int, str]] = []
        for length, (idx, codes) in self._by_length.items():
            allowed = int((1 - score / 100) * max(la, length) + 1e-9)
            if abs(length - la) > allowed:
                continue
            dist = _osa_distance(a, codes)
            keep = np.nonzero(dist <= allowed)[0]
            for k in keep:
                term = self.tokens[idx[k]]
                if term in stopwords:
                    continue
                sim = 100.0 * (1 - float(dist[k]) / max(la, length))
                found.append((-sim, -int(self.df[idx[k]]), term))
        found.sort()
        return [(term, -neg_sim) for neg_sim, _, term in found[:numresults]]

    # -- stem and soundex
    @cached_property
    def _stems(self) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for t in self.tokens:
            groups.setdefault(light_stem(t), []).append(t)
        return groups

    def stem(self, text: str) -> list[str]:
        return list(self._stems.get(light_stem(text), ()))

    @cached_property
    def _soundex(self) -> dict[str, list[str]]:
        groups: dict[str, list[str]] = {}
        for t in self.tokens:
            code = soundex(t)
            if code:
                groups.setdefault(code, []).append(t)
        return groups

    def soundex(self, text: str) -> list[str]:
        code = soundex(text)
        return list(self._soundex.get(code, ())) if code else []


def _osa_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Optimal string alignment distance of word `a` to every row of `b` (all rows one length)."""
    rows, length = b.shape
    cols = np.arange(length + 1)
    prev2 = None
    prev = np.broadcast_to(cols, (rows, length + 1)).copy()
    for i in range(1, len(a) + 1):
        cost = (b != a[i - 1]).astype(np.int32)
        best = np.minimum(prev[:, :-1] + cost, prev[:, 1:] + 1)           # substitute / delete
        if prev2 is not None and length >= 2:
            swap = (b[:, 1:] == a[i - 2]) & (b[:, :-1] == a[i - 1])           # transposition
            best[:, 1:] = np.where(swap, np.minimum(best[:, 1:], prev2[:, :-2] + 1), best[:, 1:])
        # insertion: cur[j] = min over k <= j of (base[k] + j - k), base[0] = i
        base = np.empty((rows, length + 1), dtype=np.int64)
        base[:, 0] = i
        base[:, 1:] = best
        cur = np.minimum.accumulate(base - cols, axis=1) + cols
        prev2, prev = prev, cur
    return prev[:, -1]


# --------------------------------------------------------------------------- light stemmer

_VOWELS = set("aeiou")


def _is_consonant(w: str, i: int) -> bool:
    c = w[i]
    if c in _VOWELS:
        return False
    if c == "y":
        return i == 0 or not _is_consonant(w, i - 1)
    return True


def _measure(stem: str) -> int:
    m, prev_vowel = 0, False
    for i in range(len(stem)):
        vowel = not _is_consonant(stem, i)
        if prev_vowel and not vowel:
            m += 1
        prev_vowel = vowel
    return m


def _has_vowel(stem: str) -> bool:
    return any(not _is_consonant(stem, i) for i in range(len(stem)))


def _cvc(w: str) -> bool:
    return (len(w) >= 3 and _is_consonant(w, len(w) - 3)
            and not _is_consonant(w, len(w) - 2) and _is_consonant(w, len(w) - 1) and w[-1] not in "wxy")


def light_stem(word: str) -> str:
    """Porter steps 1a, 1b, 1c and 5a: plural, -ed, -ing, final -y and -e."""
    w = word
    if len(w) <= 2 or not w.isalpha():
        return w
    if w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("ies"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith("ss") and len(w) > 3:
        w = w[:-1]
    if w.endswith("eed"):
        if _measure(w[:-3]) > 0:
            w = w[:-1]
    else:
        for suffix in ("ed", "ing"):
            if w.endswith(suffix) and _has_vowel(w[:-len(suffix)]):
                w = w[:-len(suffix)]
                if w.endswith(("at", "bl", "iz")):
                    w += "e"
                elif len(w) >= 2 and w[-1] == w[-2] and _is_consonant(w, len(w) - 1) and w[-1] not in "lsz":
                    w = w[:-1]
                elif _measure(w) == 1 and _cvc(w):
                    w += "e"
                break
    if w.endswith("y") and _has_vowel(w[:-1]):
        w = w[:-1] + "i"
    if w.endswith("e"):
        m = _measure(w[:-1])
        if m > 1 or (m == 1 and not _cvc(w[:-1])):
            w = w[:-1]
    return w


# --------------------------------------------------------------------------- soundex

_SOUNDEX = {**dict.fromkeys("bfpv", "1"), **dict.fromkeys("cgjkqsxz", "2"), **dict.fromkeys("dt", "3"),
            "l": "4", **dict.fromkeys("mn", "5"), "r": "6"}


def soundex(word: str) -> str:
    """American Soundex (letter + 3 digits); '' for words without a leading letter a-z."""
    w = [c for c in word.lower() if "a" <= c <= "z"]
    if not w or not word[:1].isalpha():
        return ""
    out, last = [w[0].upper()], _SOUNDEX.get(w[0], "")
    for c in w[1:]:
        code = _SOUNDEX.get(c, "")
        if code and code != last:
            out.append(code)
        if c not in "hw":
            last = code
        if len(out) == 4:
            break
    return "".join(out).ljust(4, "0")
