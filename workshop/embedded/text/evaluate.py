"""Evaluate a parsed CONTAINS query against an index: hit sets with Oracle Text scores (0..100).

Scoring (Oracle Text Reference, appendix "The Oracle Text Scoring Algorithm"):

* a word, phrase or expansion scores ``min(100, floor(3 * f * (1 + log10(N / n))))`` where ``f`` is
  its frequency in the document, ``N`` the number of documents in the index and ``n`` the number
  containing it. This reproduces the documented table exactly (1 document: 34 occurrences for 100;
  1,000: 9; 1,000,000: 5). Every hit scores at least 1;
* AND = minimum, OR = maximum, NOT = left score, MINUS = left - right (hits at 0 or below dropped),
  weight ``*n`` multiplies (capped at 100), threshold ``>n`` keeps scores above n;
* ACCUM: a document matching more operands always scores higher: with k operands, m matched and
  mean operand score s, ``((m - 1) * 100 + s) / k`` (two terms: both -> 51..100, one -> 1..50). Weighted
  operands (``term*3``) count with their weight in m and k;
* NEAR: each clump (smallest window holding all terms, at most max_span words between the first and
  the last) counts ``1 - gap / (max_span + 1)``; the sum is scored like a frequency;
* ABOUT(text) is approximated as the ACCUM of the text's words (there is no theme knowledge base);
* EQUIV and expansions (wildcard, fuzzy, stem, soundex) count as one term: frequencies add up, and
  fuzzy(..., W) weights each expanded term's frequency by its similarity.

Stopwords follow Oracle's stopword transformations: a stopword (or a word with no indexable
characters) alone is ``no_token``; ``x AND no_token`` = x, ``x OR/ACCUM/NEAR no_token`` = x,
``no_token NOT x`` = no_token, ``x NOT no_token`` = x; a query that reduces to no_token returns no rows.
Inside a phrase a stopword matches any one word.
"""
from __future__ import annotations

import math

import numpy as np

from .errors import TextUnsupportedError, syntax_error
from .query import (About, Accum, And, EquivSlot, Fuzzy, Minus, Near, Not, Or, Phrase, QueryNode, Soundex,
                    Stem, Term, Threshold, Weight, Wildcard)
from .reader import IndexReader

_EMPTY = np.empty(0, dtype=np.int64)


class Hits:
    """Matching rowids (ascending, unique) with integer-valued scores 1..100."""
    __slots__ = ("rids", "scores")

    def __init__(self, rids: np.ndarray, scores: np.ndarray):
        self.rids = rids
        self.scores = scores

    @classmethod
    def empty(cls) -> "Hits":
        return cls(_EMPTY, np.empty(0, dtype=np.float64))

    def as_dict(self) -> dict[int, int]:
        return dict(zip(self.rids.tolist(), self.scores.astype(np.int64).tolist()))


NO_TOKEN = None  # Oracle's no_token: a stopword-only operand, removed by the operator above it


def evaluate(node: QueryNode, reader: IndexReader) -> Hits:
    try:
        result = _Evaluator(reader).eval(node)
    except RecursionError:
        raise syntax_error(1, "the query has too many nested operators") from None
    return Hits.empty() if result is NO_TOKEN else result


def idf_score(freq: np.ndarray, n: int, ndocs: int) -> np.ndarray:
    """Oracle's inverse-frequency score for per-document frequencies `freq` (floats allowed)."""
    if n == 0:
        return np.empty(0, dtype=np.float64)
    big_n = max(ndocs, n, 1)
    weight = 3.0 * (1.0 + math.log10(big_n / n))
    return np.clip(np.floor(np.asarray(freq, dtype=np.float64) * weight + 1e-9), 1, 100)


def _sorted_unique(a: np.ndarray) -> np.ndarray:
    """np.unique for an already ascending array."""
    if len(a) == 0:
        return a
    keep = np.empty(len(a), dtype=bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def _intersect_sorted(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Intersection of two ascending arrays without re-sorting them (binary search of the smaller)."""
    if len(a) > len(b):
        a, b = b, a
    if len(a) == 0:
        return a
    idx = np.searchsorted(b, a)
    idx[idx == len(b)] = 0
    return a[b[idx] == a]


def _align(rids: np.ndarray, hits: Hits) -> np.ndarray:
    """Scores of `hits` at positions of `rids` (a superset of hits.rids), 0 where absent."""
    out = np.zeros(len(rids), dtype=np.float64)
    if len(hits.rids):
        out[np.searchsorted(rids, hits.rids)] = hits.scores
    return out


class _Evaluator:
    def __init__(self, reader: IndexReader):
        self.r = reader

    def eval(self, node: QueryNode) -> Hits | None:
        method = getattr(self, "_" + type(node).__name__.lower())
        return method(node)

    # -- boolean operators (left-deep chains are folded iteratively: 'a AND b AND ...' has no depth limit)
    def _chain(self, node: QueryNode) -> tuple[QueryNode, list[QueryNode]]:
        rights, kind = [], type(node)
        while type(node) is kind:
            rights.append(node.right)
            node = node.left
        return node, rights[::-1]

    def _and(self, node: And) -> Hits | None:
        first, rest = self._chain(node)
        a = self.eval(first)
        for right in rest:
            b = self.eval(right)
            if a is NO_TOKEN or b is NO_TOKEN:
                a = b if a is NO_TOKEN else a
                continue
            rids, ia, ib = np.intersect1d(a.rids, b.rids, assume_unique=True, return_indices=True)
            a = Hits(rids, np.minimum(a.scores[ia], b.scores[ib]))
        return a

    def _or(self, node: Or) -> Hits | None:
        first, rest = self._chain(node)
        a = self.eval(first)
        for right in rest:
            b = self.eval(right)
            if a is NO_TOKEN or b is NO_TOKEN:
                a = b if a is NO_TOKEN else a
                continue
            rids = np.union1d(a.rids, b.rids)
            a = Hits(rids, np.maximum(_align(rids, a), _align(rids, b)))
        return a

    def _subtract_chain(self, node, combine) -> Hits | None:
        """`a NOT b NOT c` / `a MINUS b ...`: fold left to right; a right side with no token is skipped."""
        first, rest = self._chain(node)
        a = self.eval(first)
        for right in rest:
            if a is NO_TOKEN:
                return NO_TOKEN
            b = self.eval(right)
            if b is not NO_TOKEN:
                a = combine(a, b)
        return a

    def _not(self, node: Not) -> Hits | None:
        def without(a: Hits, b: Hits) -> Hits:
            keep = ~np.isin(a.rids, b.rids, assume_unique=True)
            return Hits(a.rids[keep], a.scores[keep])
        return self._subtract_chain(node, without)

    def _minus(self, node: Minus) -> Hits | None:
        def lowered_by(a: Hits, b: Hits) -> Hits:
            lowered = a.scores.copy()
            _, ia, ib = np.intersect1d(a.rids, b.rids, assume_unique=True, return_indices=True)
            lowered[ia] -= b.scores[ib]
            keep = lowered > 0
            return Hits(a.rids[keep], lowered[keep])
        return self._subtract_chain(node, lowered_by)

    def _weight(self, node: Weight) -> Hits | None:
        a = self.eval(node.child)
        if a is NO_TOKEN:
            return NO_TOKEN
        return Hits(a.rids, np.clip(np.floor(a.scores * node.factor + 1e-9), 1, 100))

    def _threshold(self, node: Threshold) -> Hits | None:
        a = self.eval(node.child)
        if a is NO_TOKEN:
            return NO_TOKEN
        keep = a.scores > node.limit
        return Hits(a.rids[keep], a.scores[keep])

    def _accum(self, node: Accum) -> Hits | None:
        parts = []
        for item in node.items:
            if isinstance(item, Weight):
                hits, w = self.eval(item.child), item.factor
            else:
                hits, w = self.eval(item), 1.0
            if hits is not NO_TOKEN:
                parts.append((hits, w))
        if not parts:
            return NO_TOKEN
        if len(parts) == 1:
            hits, w = parts[0]
            return hits if w == 1.0 else Hits(hits.rids, np.clip(np.floor(hits.scores * w + 1e-9), 1, 100))
        rids = parts[0][0].rids
        for hits, _ in parts[1:]:
            rids = np.union1d(rids, hits.rids)
        total_w = sum(w for _, w in parts)
        matched_w = np.zeros(len(rids))
        matched_n = np.zeros(len(rids))
        score_sum = np.zeros(len(rids))
        for hits, w in parts:
            s = _align(rids, hits)
            hit = s > 0
            matched_w += w * hit
            matched_n += hit
            score_sum += s
        mean = score_sum / np.maximum(matched_n, 1)
        score = (100 * np.maximum(matched_w - 1, 0) + mean * np.minimum(matched_w, 1)) / total_w
        return Hits(rids, np.clip(np.floor(score + 1e-9), 1, 100))

    def _about(self, node: About) -> Hits | None:
        return self._accum(Accum(tuple(Phrase((Term(w),)) for w in node.words)))

    # -- words and phrases
    def _is_stop(self, slot) -> bool:
        if isinstance(slot, EquivSlot):
            return all(self._is_stop(o) for o in slot.options)
        return isinstance(slot, Term) and slot.text in self.r.stopwords

    def _expand(self, slot) -> list[tuple[str, float]]:
        """Index terms a slot stands for, with a frequency weight (1 except weighted fuzzy)."""
        stop = self.r.stopwords
        if isinstance(slot, Term):
            return [(slot.text, 1.0)]
        vocab = self.r.vocabulary
        if isinstance(slot, Wildcard):
            return [(t, 1.0) for t in vocab.wildcard(slot.pattern) if t not in stop]
        if isinstance(slot, Fuzzy):
            if len(slot.text) < 3:
                return [] if slot.text in stop else [(slot.text, 1.0)]
            found = vocab.fuzzy(slot.text, slot.score, slot.numresults, stop)
            return [(t, sim / 100.0 if slot.weighted else 1.0) for t, sim in found]
        if isinstance(slot, Stem):
            return [(t, 1.0) for t in vocab.stem(slot.text) if t not in stop]
        if isinstance(slot, Soundex):
            return [(t, 1.0) for t in vocab.soundex(slot.text) if t not in stop]
        if isinstance(slot, EquivSlot):
            merged: dict[str, float] = {}
            for option in slot.options:
                if self._is_stop(option):
                    continue
                for t, w in self._expand(option):
                    merged[t] = max(merged.get(t, 0.0), w)
            return list(merged.items())
        raise TextUnsupportedError(f"query term {slot!r}")

    def _slot_postings(self, slot) -> tuple[np.ndarray, np.ndarray]:
        terms = self._expand(slot)
        if len(terms) == 1 and terms[0][1] == 1.0:
            rids, freqs = self.r.postings(terms[0][0])
            return rids, freqs.astype(np.float64)
        all_rids, all_freqs = [], []
        for t, w in terms:
            rids, freqs = self.r.postings(t)
            all_rids.append(rids)
            all_freqs.append(freqs * w)
        if not all_rids:
            return _EMPTY, np.empty(0)
        rids = np.concatenate(all_rids)
        uniq, inverse = np.unique(rids, return_inverse=True)
        return uniq, np.bincount(inverse, weights=np.concatenate(all_freqs), minlength=len(uniq))

    def _slot_positions(self, slot) -> tuple[np.ndarray, np.ndarray]:
        terms = self._expand(slot)
        lists = [self.r.positions(t) for t, _ in terms]
        if len(lists) == 1:
            return lists[0]
        if not lists:
            return _EMPTY, _EMPTY
        rids = np.concatenate([r for r, _ in lists])
        pos = np.concatenate([p for _, p in lists])
        order = np.lexsort((pos, rids))
        return rids[order], pos[order]

    def _phrase(self, node: Phrase) -> Hits | None:
        slots = node.slots
        if not slots or all(self._is_stop(s) for s in slots):
            return NO_TOKEN
        if len(slots) == 1:
            rids, freqs = self._slot_postings(slots[0])
            keep = freqs > 0
            rids, freqs = rids[keep], freqs[keep]
            return Hits(rids, idf_score(freqs, len(rids), self.r.ndocs))
        rids, starts = self._phrase_starts(slots)
        if len(rids) == 0:
            return Hits.empty()
        uniq, counts = np.unique(rids, return_counts=True)
        return Hits(uniq, idf_score(counts, len(uniq), self.r.ndocs))

    def _phrase_starts(self, slots: tuple) -> tuple[np.ndarray, np.ndarray]:
        """(rowid, start position) of every occurrence of the phrase, sorted."""
        lists = [(offset, self._slot_positions(slot)) for offset, slot in enumerate(slots) if not self._is_stop(slot)]
        docs = None
        for _, (rids, _) in lists:
            present = _sorted_unique(rids)
            docs = present if docs is None else _intersect_sorted(docs, present)
        if docs is None or len(docs) == 0:
            return _EMPTY, _EMPTY
        keys = None
        for offset, (rids, pos) in lists:
            # key = (index of the document among candidates, phrase start): sorted, no rowid overflow
            doc = np.searchsorted(docs, rids)
            doc[doc == len(docs)] = 0
            start = pos - offset
            ok = (docs[doc] == rids) & (start >= 0)      # leading stopwords need words before
            k = (doc[ok] << 32) | start[ok]
            keys = k if keys is None else _intersect_sorted(keys, k)
            if len(keys) == 0:
                return _EMPTY, _EMPTY
        rids, starts = docs[keys >> 32], keys & 0xFFFFFFFF
        trailing = 0
        for slot in reversed(slots):
            if not self._is_stop(slot):
                break
            trailing += 1
        if trailing:                                      # trailing stopwords need words after
            present = np.unique(rids)
            doc_len = self.r.doc_lengths(present)[np.searchsorted(present, rids)]
            ok = starts + len(slots) <= doc_len
            rids, starts = rids[ok], starts[ok]
        return rids, starts

    # -- proximity
    def _occurrences(self, node: QueryNode) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """NEAR operand -> (rowid, start, end) of each occurrence, or NO_TOKEN."""
        if not isinstance(node, Phrase):
            raise TextUnsupportedError(f"NEAR operand {node} (only words, phrases and expansions)")
        slots = node.slots
        if not slots or all(self._is_stop(s) for s in slots):
            return NO_TOKEN
        if len(slots) == 1:
            rids, pos = self._slot_positions(slots[0])
            return rids, pos, pos
        rids, starts = self._phrase_starts(slots)
        return rids, starts, starts + len(slots) - 1

    def _near(self, node: Near) -> Hits | None:
        items, labels = [], []
        for item in node.items:
            occ = self._occurrences(item)
            if occ is not NO_TOKEN:
                items.append(occ)
                labels.append(str(item))
        if not items:
            return NO_TOKEN
        if len(items) == 1:
            return self.eval(next(i for i in node.items if self._occurrences(i) is not NO_TOKEN))
        candidates = np.unique(items[0][0])
        for rids, _, _ in items[1:]:
            candidates = np.intersect1d(candidates, rids)
        out_rids, out_freq = [], []
        bounds = [(np.searchsorted(r, candidates, "left"), np.searchsorted(r, candidates, "right"))
                  for r, _, _ in items]
        for c, rid in enumerate(candidates.tolist()):
            per_item = []
            for (rids, st, en), (lo, hi) in zip(items, bounds):
                per_item.append(list(zip(st[lo[c]:hi[c]].tolist(), en[lo[c]:hi[c]].tolist())))
            clumps = (_ordered_clumps(per_item) if node.ordered else _unordered_clumps(per_item, labels))
            weight = sum(1 - max(gap, 0) / (node.span + 1) for gap in clumps if gap <= node.span)
            if weight > 0:
                out_rids.append(rid)
                out_freq.append(weight)
        if not out_rids:
            return Hits.empty()
        rids = np.asarray(out_rids, dtype=np.int64)
        return Hits(rids, idf_score(np.asarray(out_freq), len(rids), self.r.ndocs))


def _unordered_clumps(per_item: list[list[tuple[int, int]]], labels: list[str]) -> list[int]:
    """Gaps (words between first and last term) of the minimal windows holding every term.

    A term listed twice must occur twice (at different positions)."""
    need: dict[str, int] = {}
    for label in labels:
        need[label] = need.get(label, 0) + 1
    events = sorted({(s, e, labels[i]) for i, occ in enumerate(per_item) for s, e in occ})
    have = dict.fromkeys(need, 0)
    satisfied, left, gaps = 0, 0, []
    for right, (_, _, key) in enumerate(events):
        have[key] += 1
        if have[key] == need[key]:
            satisfied += 1
        if satisfied < len(need):
            continue
        while have[events[left][2]] > need[events[left][2]]:
            have[events[left][2]] -= 1
            left += 1
        if have[key] > need[key]:
            continue   # the window without `right` was already counted
        first_end = min(e for s, e, _ in events[left:right + 1] if s == events[left][0])
        gaps.append(events[right][0] - first_end - 1)
    return gaps


def _ordered_clumps(per_item: list[list[tuple[int, int]]]) -> list[int]:
    """Gaps of windows where the terms occur in query order (greedy earliest chain per start)."""
    best: dict[int, int] = {}
    for start, end in per_item[0]:
        cursor, last_start = end, start
        for occ in per_item[1:]:
            nxt = next(((s, e) for s, e in occ if s > cursor), None)
            if nxt is None:
                break
            cursor, last_start = nxt[1], nxt[0]
        else:
            if len(per_item) > 1:
                best[last_start] = min(best.get(last_start, 1 << 30), last_start - end - 1)
    return list(best.values())
