"""Reciprocal Rank Fusion (Cormack, Clarke and Büttcher, SIGIR 2009), in Python and in SQL.

Every ranked list votes for its items with ``weight / (k + rank)`` (rank 1 is the best); an item's
fused score is the sum of its votes, and an item missing from a list gets no vote from it. Only
ranks matter, so a keyword SCORE (1..100, higher is better) and a vector distance (lower is
better) fuse without any score normalisation. k (60 in the paper) damps the head of each list:
with k = 60, rank 1 is worth 1/61 and rank 10 still 1/70.

``rrf_fuse`` is the algorithm in a few lines; ``hybrid_rrf_sql`` is the same fusion as one SQL
statement (two ranked CTEs, a FULL OUTER JOIN, ``1 / (k + rank)`` with NVL for a missing rank).
Both break ties by id, so they return the same order.
"""
from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from .sql import (Statement, columns_list, filter_conditions, identifier, metric_keyword, positive_int,
                  qualified_name, query_vector_sql, where_clause)
from .statements import output_columns, select_extra

#: The RRF constant from the paper.
DEFAULT_K = 60


def rrf_fuse(rankings: Mapping[str, Sequence[Hashable]], k: int = DEFAULT_K,
             weights: Mapping[str, float] | None = None) -> list[tuple[Hashable, float]]:
    """Fuse ranked id lists: ``{"vector": [ids...], "keyword": [ids...]}`` -> [(id, score)], best first.

    score(id) = sum over lists of weight / (k + rank of id in that list); ties go to the smaller id,
    so ids must be mutually comparable (all str or all int). A list may not repeat an id.
    """
    if isinstance(k, bool) or not isinstance(k, (int, float)) or k < 0:
        raise ValueError(f"k must be a non-negative number, not {k!r}")
    weights = dict(weights or {})
    unknown = set(weights) - set(rankings)
    if unknown:
        raise ValueError(f"weights name lists that are not ranked: {', '.join(sorted(map(str, unknown)))}")
    scores: dict[Hashable, float] = {}
    for name, ranked in rankings.items():
        if isinstance(ranked, (str, bytes)):
            raise TypeError(f"ranking {name!r} must be a sequence of ids, not a string")
        weight = weights.get(name, 1.0)
        if weight < 0:
            raise ValueError(f"weight of {name!r} must not be negative")
        seen: set[Hashable] = set()
        for rank, item in enumerate(ranked, start=1):
            if item in seen:
                raise ValueError(f"ranking {name!r} lists {item!r} twice")
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    try:
        sorted(scores)  # ids must be mutually comparable, whether or not a tie occurs this time
        return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
    except TypeError:
        raise TypeError("ids of different types cannot be ordered for tie-breaking; "
                        "use all str or all int ids") from None


def hybrid_rrf_sql(table: str, text_column: str, embedding_column: str, query: Any, keywords: str | None,
                   k: int = 10, candidates: int = 50, rrf_k: int = DEFAULT_K,
                   weights: Mapping[str, float] | None = None, filters: Mapping[str, Any] | None = None,
                   metric: str = "COSINE", *, model: str | None = None, id_column: str = "id",
                   columns: Sequence[str] = ()) -> Statement:
    """One SQL statement: rank `candidates` rows by vector distance and by keyword SCORE, fuse by RRF.

    `keywords` is a CONTAINS query (see keyword_terms); None leaves out the keyword leg, which gives
    what the full statement gives when the keyword leg finds nothing (every keyword_rank NULL).
    `weights` may name "vector" and "keyword" (default 1 each).
    """
    table, text = qualified_name(table), identifier(text_column, "text column")
    emb, ident = identifier(embedding_column, "embedding column"), identifier(id_column, "id column")
    extra = columns_list(columns)
    metric = metric_keyword(metric)
    vector_sql, vector_binds = query_vector_sql(query, model)
    conditions, filter_binds = filter_conditions(filters)
    weights = dict(weights or {})
    unknown = set(weights) - {"vector", "keyword"}
    if unknown:
        raise ValueError(f"weights may name 'vector' and 'keyword', not {', '.join(sorted(map(str, unknown)))}")
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, int) or rrf_k < 0:
        raise ValueError(f"rrf_k must be a non-negative integer, not {rrf_k!r}")
    distance = f"VECTOR_DISTANCE({emb}, {vector_sql}, {metric})"
    vector_where = where_clause(conditions, "    ")
    keyword_where = "".join(f"\n      AND {c}" for c in conditions)

    def vote(leg: str, rank: str) -> str:
        numerator = f":{leg}_weight" if weights else "1"
        return f"NVL({numerator} / (:rrf_k + {rank}), 0)"

    ctes = ["vector_ranks AS (\n"
            f"    SELECT {ident},\n"
            f"           ROW_NUMBER() OVER (ORDER BY {distance}, {ident}) AS vector_rank\n"
            f"    FROM {table}{vector_where}\n"
            f"    ORDER BY {distance}, {ident}\n"
            f"    FETCH FIRST :candidates ROWS ONLY\n"
            ")"]
    if keywords is not None:
        ctes.append("keyword_ranks AS (\n"
                    f"    SELECT {ident},\n"
                    f"           ROW_NUMBER() OVER (ORDER BY SCORE(1) DESC, {ident}) AS keyword_rank\n"
                    f"    FROM {table}\n"
                    f"    WHERE CONTAINS({text}, :keywords, 1) > 0{keyword_where}\n"
                    f"    ORDER BY SCORE(1) DESC, {ident}\n"
                    f"    FETCH FIRST :candidates ROWS ONLY\n"
                    ")")
        fused = ("fused AS (\n"
                 f"    SELECT COALESCE(v.{ident}, kw.{ident}) AS {ident},\n"
                 f"           {vote('vector', 'v.vector_rank')}\n"
                 f"         + {vote('keyword', 'kw.keyword_rank')} AS rrf_score,\n"
                 f"           v.vector_rank,\n"
                 f"           kw.keyword_rank\n"
                 f"    FROM vector_ranks v\n"
                 f"    FULL OUTER JOIN keyword_ranks kw ON kw.{ident} = v.{ident}\n"
                 ")")
    else:
        fused = ("fused AS (\n"
                 f"    SELECT v.{ident},\n"
                 f"           {vote('vector', 'v.vector_rank')} AS rrf_score,\n"
                 f"           v.vector_rank,\n"
                 f"           CAST(NULL AS NUMBER) AS keyword_rank\n"
                 f"    FROM vector_ranks v\n"
                 ")")
    ctes.append(fused)
    if extra:
        tail = (f"SELECT f.{ident}, f.rrf_score, f.vector_rank, f.keyword_rank{select_extra(extra, 't.')}\n"
                f"FROM fused f\n"
                f"JOIN {table} t ON t.{ident} = f.{ident}\n"
                f"ORDER BY f.rrf_score DESC, f.{ident}\n")
    else:
        tail = (f"SELECT {ident}, rrf_score, vector_rank, keyword_rank\n"
                f"FROM fused\n"
                f"ORDER BY rrf_score DESC, {ident}\n")
    sql = "WITH " + ",\n".join(ctes) + "\n" + tail + "FETCH FIRST :top_k ROWS ONLY"
    binds: dict[str, Any] = {**vector_binds}
    if keywords is not None:
        binds["keywords"] = keywords
    binds.update(filter_binds)
    binds["candidates"] = positive_int(candidates, "candidates")
    binds["rrf_k"] = rrf_k
    if weights:
        binds["vector_weight"] = float(weights.get("vector", 1.0))
        if keywords is not None:
            binds["keyword_weight"] = float(weights.get("keyword", 1.0))
        if min(binds.get("vector_weight", 1.0), binds.get("keyword_weight", 1.0)) < 0:
            raise ValueError("weights must not be negative")
    binds["top_k"] = positive_int(k, "k")
    return Statement(sql, binds, output_columns(ident, ["rrf_score", "vector_rank", "keyword_rank"], extra))
