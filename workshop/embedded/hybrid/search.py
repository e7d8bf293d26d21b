"""DBMS_HYBRID_VECTOR.SEARCH: run the keyword and semantic searches of a hybrid vector index, fuse
and score them, and return Oracle's JSON array of results.

What follows Oracle's documentation ("Understand Hybrid Search", "SEARCH"):

* semantic search ranks chunks by VECTOR_DISTANCE to the query vector; in DOCUMENT mode the chunk
  scores of each document are combined with the aggregator (MAX by default); keyword search is a
  CONTAINS query on the text part, scored by Oracle Text's SCORE;
* the search_fusion score conditions (INTERSECT: text_score > 0 AND vector_score > 0, UNION: either,
  TEXT_ONLY: text_score > 0, VECTOR_ONLY: vector_score > 0, MINUS_TEXT: text_score = 0 among vector
  results, MINUS_VECTOR: vector_score = 0 among text results, RERANK: the text results ordered by the
  aggregated vector score of their chunks); a result missing from one search has score 0 there;
* RSF (default): score = (vector.score_weight * vector_score + text.score_weight * text_score)
  / (vector.score_weight + text.score_weight), the weights 10 and 1 by default. This reproduces the
  documented example outputs exactly (e.g. (10 * 61 + 1 * 35) / 11 = 58.64);
* pure semantic or pure keyword searches do not fuse: score is that search's score;
* results are ordered by score (best first) and cut at return.topN (default 20); scores have two
  decimals, as in Oracle's output.

Choices where the documentation gives no formula (documented in docs/embedded-engine.md):

* semantic score = 100 * (1 - cosine_distance / 2), i.e. 50 * (1 + cosine similarity), clipped to
  0..100 ("distances are converted into a CONTAINS-score equivalent ... 100 (best) to 0 (worse)");
* RRF: score = 100 * sum over the searches s containing r of 1 / (rank_s(r) + rank_penalty_s),
  divided by the same sum for a result ranked first in every search; WRRF multiplies each term by
  the search's score_weight;
* result_max (how many chunks / documents each search keeps before fusion) defaults to
  max(100, 10 * topN);
* a result absent from one search reports score 0 and rank 1000 for it (as Oracle's published
  outputs show); ranks are competition ranks (equal scores share a rank);
* ties in the final order are broken by rowid, then chunk id;
* in CHUNK mode a document found only by keyword search is represented by its first chunk.
"""
from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..catalog import INDEX_NAMESPACE, object_name, stored_name
from ..errors import EngineError
from . import index as hybrid_index
from .spec import SearchSpec, parse

MISSING_RANK = 1000
#: SEARCHPIPELINE record members (VARCHAR2(18), five NUMBERs, VARCHAR2(32767), two VARCHAR2(4000)).
PIPELINE_COLUMNS = ("doc_rowid", "score", "vector_score", "text_score", "vector_rank", "text_rank", "chunk_text",
                    "chunk_id", "paths")
PIPELINE_TYPES = ("VARCHAR2", "NUMBER", "NUMBER", "NUMBER", "NUMBER", "NUMBER", "VARCHAR2", "VARCHAR2", "VARCHAR2")


@dataclass
class Result:
    rid: int
    chunk_id: int | None = None
    chunk_text: str | None = None
    vector_score: float = 0.0
    text_score: float = 0.0
    vector_rank: int = MISSING_RANK
    text_rank: int = MISSING_RANK
    score: float = 0.0
    in_vector: bool = False
    in_text: bool = False


def semantic_scores(matrix: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Cosine distances -> semantic scores 0..100 (float64)."""
    m = matrix.astype(np.float64)
    qv = np.asarray(query, dtype=np.float64)
    norms = np.linalg.norm(m, axis=1) * (np.linalg.norm(qv) or 1.0)
    norms[norms == 0] = 1.0
    distance = 1.0 - (m @ qv) / norms
    return np.clip(100.0 * (1.0 - distance / 2.0), 0.0, 100.0)


def competition_ranks(scores: list[float]) -> list[int]:
    """Scores in best-first order -> 1-based ranks, equal scores sharing the best rank."""
    ranks, previous, rank = [], None, 0
    for position, score in enumerate(scores, start=1):
        if score != previous:
            rank, previous = position, score
        ranks.append(rank)
    return ranks


def aggregate(scores: list[float], aggregator: str) -> float:
    if aggregator == "MAX":
        return max(scores)
    if aggregator == "MIN":
        return min(scores)
    if aggregator == "AVG":
        return sum(scores) / len(scores)
    if aggregator == "MEDIAN":
        return float(np.median(scores))
    if aggregator == "SUM":
        return float(sum(scores))
    if aggregator == "COUNT":
        return float(len(scores))
    raise ValueError(aggregator)


def contains_from_text(text: str, stopwords: frozenset[str]) -> str | None:
    """search_text -> a CONTAINS query: its words, each escaped in braces, joined with ACCUM."""
    from ..text.lexer import tokenize
    words = [w for w in dict.fromkeys(tokenize(text)) if w not in stopwords]
    return " ACCUM ".join("{" + w + "}" for w in words) if words else None


def _number(value: float):
    rounded = round(float(value), 2)
    return int(rounded) if rounded.is_integer() else rounded


class Searcher:
    def __init__(self, db: sqlite3.Connection, *, embed: Callable, text_search: Callable, text_info: Callable,
                 visible: Callable[[str], set[int] | None] = lambda table: None):
        self.db = db
        #: the rowids of a table the session's row-level security policies let it read (None: no policy)
        self.visible = visible
        self.embed = embed
        self.text_search = text_search
        self.text_info = text_info

    # ------------------------------------------------------------------ entry point
    def run(self, raw) -> str:
        spec = parse(raw)
        info = self._index(spec.index_name)
        results = self.search(spec, info)
        return json.dumps([self._row(r, spec) for r in results], ensure_ascii=False)

    def pipeline_rows(self, raw) -> list[tuple]:
        """DBMS_HYBRID_VECTOR.SEARCHPIPELINE: the same results as rows (doc_rowid ... paths); fields
        left out of return.values are NULL."""
        spec = parse(raw)
        results = self.search(spec, self._index(spec.index_name))
        names = ("rowid",) + PIPELINE_COLUMNS[1:-1]
        return [tuple(self._row(r, spec).get(n) for n in names) + (None,) for r in results]

    def _index(self, name: str) -> hybrid_index.HybridIndex:
        parts = [p for p in name.split(".")]
        resolved = hybrid_index.ident(parts[-1]) if parts[-1] else ""
        info = hybrid_index.get(self.db, stored_name(self.db, resolved, INDEX_NAMESPACE))
        if info is None:
            raise EngineError(20000, f"Oracle Text error:\nDRG-10502: index {resolved} does not exist "
                                     f"or is not a hybrid vector index")
        return info

    # ------------------------------------------------------------------ the two searches
    def search(self, spec: SearchSpec, info: hybrid_index.HybridIndex) -> list[Result]:
        pool = max(100, 10 * spec.top_n)
        chunk_mode = spec.mode == "CHUNK"
        # Oracle runs the search as SQL over the table (DBMS_HYBRID_VECTOR.GET_SQL), so the session's VPD
        # policies filter both searches before anything is ranked: rows the session may not read are never
        # candidates, in the keyword and in the semantic search alike.
        allowed = self.visible(object_name(self.db, info.table_name))
        text_hits = self._text_hits(spec, info, allowed) if spec.text is not None else None
        if spec.vector is not None:
            rids, cids, matrix, texts = hybrid_index.chunks(self.db, info)
            if allowed is not None:
                keep = np.array([int(r) in allowed for r in rids.tolist()], dtype=bool)
                rids, cids, matrix = rids[keep], cids[keep], matrix[keep] if len(matrix) else matrix
                texts = [t for t, k in zip(texts, keep.tolist()) if k]
            chunk_scores = self._chunk_scores(spec, info, matrix)
        else:   # keyword only: the chunks are needed only for chunk_text / chunk_id of the hits
            kept = sorted(text_hits.items(), key=lambda kv: (-kv[1], kv[0]))[:spec.text.result_max or pool]
            rids, cids, matrix, texts = hybrid_index.chunks(self.db, info, sorted(r for r, _ in kept),
                                                            with_vectors=False)
            chunk_scores = None
        first_chunk: dict[int, int] = {}
        for i, rid in enumerate(rids.tolist()):
            first_chunk.setdefault(rid, i)

        results: dict[tuple, Result] = {}
        if chunk_scores is not None:
            order = sorted(range(len(rids)), key=lambda i: (-chunk_scores[i], int(rids[i]), int(cids[i])))
            order = order[:spec.vector.result_max or pool]
            if chunk_mode:
                ranked = [(int(rids[i]), int(cids[i]), float(chunk_scores[i]), i) for i in order]
                for (rid, cid, score, i), rank in zip(ranked, competition_ranks([r[2] for r in ranked])):
                    results[(rid, cid)] = Result(rid, cid, texts[i], score, vector_rank=rank, in_vector=True)
            else:
                per_doc: dict[int, list[int]] = {}
                for i in order:
                    per_doc.setdefault(int(rids[i]), []).append(i)
                docs = [(rid, aggregate([float(chunk_scores[i]) for i in idx], spec.vector.aggregator), idx[0])
                        for rid, idx in per_doc.items()]
                docs.sort(key=lambda d: (-d[1], d[0]))
                for (rid, score, best), rank in zip(docs, competition_ranks([d[1] for d in docs])):
                    results[(rid,)] = Result(rid, int(cids[best]), texts[best], score, vector_rank=rank,
                                             in_vector=True)
        if text_hits is not None:
            hits = sorted(text_hits.items(), key=lambda kv: (-kv[1], kv[0]))[:spec.text.result_max or pool]
            for (rid, score), rank in zip(hits, competition_ranks([h[1] for h in hits])):
                matched = [r for key, r in results.items() if key[0] == rid] if chunk_mode else (
                    [results[(rid,)]] if (rid,) in results else [])
                if not matched:
                    i = first_chunk.get(rid)
                    cid, ctext = (int(cids[i]), texts[i]) if i is not None else (None, None)
                    new = Result(rid, cid, ctext)
                    results[(rid, cid) if chunk_mode else (rid,)] = new
                    matched = [new]
                for r in matched:
                    r.text_score, r.text_rank, r.in_text = float(score), rank, True

        chosen = list(results.values())
        both = spec.vector is not None and spec.text is not None
        if both:
            chosen = self._fuse(spec, info, chosen, rids, matrix, chunk_scores)
        for r in chosen:
            r.score = self._score(spec, r) if both else (r.vector_score if spec.vector is not None else r.text_score)
        chosen.sort(key=lambda r: (-round(r.score, 10), r.rid, r.chunk_id or 0))
        return chosen[:spec.top_n]

    def _chunk_scores(self, spec: SearchSpec, info, matrix: np.ndarray) -> np.ndarray:
        if spec.vector.search_vector is not None:
            query = np.asarray(spec.vector.search_vector, dtype=np.float64)
        else:
            query = np.asarray(self.embed(info.model, [spec.vector.search_text])[0], dtype=np.float64)
        if matrix.shape[0] and matrix.shape[1] != query.shape[0]:
            raise EngineError(51808, f"VECTOR_DISTANCE requires all vectors to have the same dimension count. "
                                     f"Encountered ({matrix.shape[1]}, {query.shape[0]})")
        return semantic_scores(matrix, query) if matrix.shape[0] else np.zeros(0)

    def _text_hits(self, spec: SearchSpec, info, allowed: set[int] | None = None) -> dict[int, float]:
        query = spec.text.contains
        if query is None:
            query = contains_from_text(spec.text.search_text, self.text_info(info.index_name).stopwords)
            if query is None:
                return {}
        hits = self.text_search(self.db, info.index_name, query)
        if not hits:
            return {}
        marks = ",".join("?" * len(hits))
        live = {r[0] for r in self.db.execute(
            f"SELECT rowid FROM {hybrid_index.q(info.table_name)} WHERE rowid IN ({marks})", list(hits))}
        return {rid: float(score) for rid, score in hits.items() if rid in live and (allowed is None or rid in allowed)}

    # ------------------------------------------------------------------ fusion and scores
    def _fuse(self, spec, info, results: list[Result], rids, matrix, chunk_scores) -> list[Result]:
        f = spec.fusion
        if f == "INTERSECT":
            return [r for r in results if r.in_text and r.in_vector]
        if f == "UNION":
            return [r for r in results if r.in_text or r.in_vector]
        if f == "TEXT_ONLY":
            return [r for r in results if r.in_text]
        if f == "VECTOR_ONLY":
            return [r for r in results if r.in_vector]
        if f == "MINUS_TEXT":
            return [r for r in results if r.in_vector and not r.in_text]
        if f == "MINUS_VECTOR":
            return [r for r in results if r.in_text and not r.in_vector]
        # RERANK: the text results, each scored by the aggregated vector score of all its chunks.
        kept = [r for r in results if r.in_text]
        all_rids = rids.tolist()
        for r in kept:
            idx = [i for i, rid in enumerate(all_rids) if rid == r.rid]
            r.vector_score = aggregate([float(chunk_scores[i]) for i in idx], spec.vector.aggregator) if idx else 0.0
        ordered = sorted(kept, key=lambda r: (-r.vector_score, r.rid))
        for r, rank in zip(ordered, competition_ranks([r.vector_score for r in ordered])):
            r.vector_rank = rank
        return kept

    def _score(self, spec: SearchSpec, r: Result) -> float:
        if spec.fusion == "RERANK":
            return r.vector_score
        wv, wt = spec.vector.score_weight, spec.text.score_weight
        if spec.scorer == "RSF":
            return (wv * r.vector_score + wt * r.text_score) / (wv + wt)
        pv, pt = spec.vector.rank_penalty, spec.text.rank_penalty
        cv, ct = (wv, wt) if spec.scorer == "WRRF" else (1.0, 1.0)
        got = (cv / (r.vector_rank + pv) if r.in_vector else 0.0) + (ct / (r.text_rank + pt) if r.in_text else 0.0)
        best = cv / (1 + pv) + ct / (1 + pt)
        return 100.0 * got / best if best else 0.0

    def _row(self, r: Result, spec: SearchSpec) -> dict:
        fields = {
            "rowid": str(r.rid),
            "score": _number(r.score),
            "vector_score": _number(r.vector_score),
            "text_score": _number(r.text_score),
            "vector_rank": r.vector_rank,
            "text_rank": r.text_rank,
            "chunk_text": r.chunk_text,
            "chunk_id": None if r.chunk_id is None else str(r.chunk_id),
        }
        return {k: fields[k] for k in spec.values}

