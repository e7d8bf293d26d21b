"""The SQL of keyword, vector, pre-filter and post-filter search, built as visible text.

Each builder returns a Statement (sql, binds, columns) that runs unchanged on Oracle AI Database
and on the embedded engine; ``print(statement)`` shows the SQL a notebook teaches. Ties are broken
by the id column, so a result order is fully determined.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .sql import (Statement, columns_list, filter_conditions, identifier, metric_keyword, positive_int,
                  qualified_name, query_vector_sql, where_clause)


def output_columns(id_column: str, computed: Sequence[str], extra: Sequence[str]) -> tuple[str, ...]:
    """Result column names (lower case); a requested column may not repeat a computed one."""
    names = [id_column.lower(), *computed, *(c.lower() for c in extra)]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"columns would repeat {', '.join(duplicates)} in the result")
    return tuple(names)


def select_extra(extra: Sequence[str], qualifier: str = "") -> str:
    return "".join(f",\n       {qualifier}{c}" for c in extra)


def keyword_search_sql(table: str, text_column: str, keywords: str, k: int = 10,
                       filters: Mapping[str, Any] | None = None, *, id_column: str = "id",
                       columns: Sequence[str] = ()) -> Statement:
    """Oracle Text search: CONTAINS finds the rows, SCORE(1) ranks them (1..100, higher is better)."""
    table, text, ident = qualified_name(table), identifier(text_column, "text column"), identifier(id_column, "id column")
    extra = columns_list(columns)
    conditions, binds = filter_conditions(filters)
    sql = (f"SELECT {ident},\n"
           f"       SCORE(1) AS score{select_extra(extra)}\n"
           f"FROM {table}"
           + where_clause([f"CONTAINS({text}, :keywords, 1) > 0", *conditions]) +
           f"\nORDER BY SCORE(1) DESC, {ident}\n"
           f"FETCH FIRST :top_k ROWS ONLY")
    binds = {"keywords": keywords, **binds, "top_k": positive_int(k, "k")}
    return Statement(sql, binds, output_columns(ident, ["score"], extra))


def vector_search_sql(table: str, embedding_column: str, query: Any, k: int = 10,
                      filters: Mapping[str, Any] | None = None, metric: str = "COSINE", *,
                      model: str | None = None, id_column: str = "id", columns: Sequence[str] = ()) -> Statement:
    """Similarity search: the k rows nearest to the query vector (smaller distance is better)."""
    table, emb, ident = qualified_name(table), identifier(embedding_column, "embedding column"), identifier(id_column, "id column")
    extra = columns_list(columns)
    vector_sql, vector_binds = query_vector_sql(query, model)
    conditions, binds = filter_conditions(filters)
    sql = (f"SELECT {ident},\n"
           f"       VECTOR_DISTANCE({emb}, {vector_sql}, {metric_keyword(metric)}) AS distance{select_extra(extra)}\n"
           f"FROM {table}"
           + where_clause(conditions) +
           f"\nORDER BY distance, {ident}\n"
           f"FETCH FIRST :top_k ROWS ONLY")
    binds = {**vector_binds, **binds, "top_k": positive_int(k, "k")}
    return Statement(sql, binds, output_columns(ident, ["distance"], extra))


def prefilter_sql(table: str, text_column: str, embedding_column: str, query: Any, keywords: str, k: int = 10,
                  filters: Mapping[str, Any] | None = None, metric: str = "COSINE", *, model: str | None = None,
                  id_column: str = "id", columns: Sequence[str] = ()) -> Statement:
    """Hybrid pre-filter: only rows that CONTAIN the keywords compete; vector distance orders them."""
    table, text = qualified_name(table), identifier(text_column, "text column")
    emb, ident = identifier(embedding_column, "embedding column"), identifier(id_column, "id column")
    extra = columns_list(columns)
    vector_sql, vector_binds = query_vector_sql(query, model)
    conditions, binds = filter_conditions(filters)
    sql = (f"SELECT {ident},\n"
           f"       VECTOR_DISTANCE({emb}, {vector_sql}, {metric_keyword(metric)}) AS distance,\n"
           f"       SCORE(1) AS keyword_score{select_extra(extra)}\n"
           f"FROM {table}"
           + where_clause([f"CONTAINS({text}, :keywords, 1) > 0", *conditions]) +
           f"\nORDER BY distance, {ident}\n"
           f"FETCH FIRST :top_k ROWS ONLY")
    binds = {**vector_binds, "keywords": keywords, **binds, "top_k": positive_int(k, "k")}
    return Statement(sql, binds, output_columns(ident, ["distance", "keyword_score"], extra))


def postfilter_sql(table: str, text_column: str, embedding_column: str, query: Any, keywords: str, k: int = 10,
                   candidates: int = 50, filters: Mapping[str, Any] | None = None, metric: str = "COSINE", *,
                   model: str | None = None, id_column: str = "id", columns: Sequence[str] = ()) -> Statement:
    """Hybrid post-filter: the vector search picks `candidates` rows first, then the keyword filter
    keeps those that CONTAIN the keywords. Fewer than k rows can come back: that is the lesson.

    Metadata filters apply inside the vector step, where the database applies them."""
    table, text = qualified_name(table), identifier(text_column, "text column")
    emb, ident = identifier(embedding_column, "embedding column"), identifier(id_column, "id column")
    extra = columns_list(columns)
    vector_sql, vector_binds = query_vector_sql(query, model)
    conditions, binds = filter_conditions(filters)
    sql = ("WITH candidates AS (\n"
           f"    SELECT {ident},\n"
           f"           VECTOR_DISTANCE({emb}, {vector_sql}, {metric_keyword(metric)}) AS distance\n"
           f"    FROM {table}"
           + where_clause(conditions, "    ") +
           f"\n    ORDER BY distance, {ident}\n"
           f"    FETCH FIRST :candidates ROWS ONLY\n"
           ")\n"
           f"SELECT c.{ident},\n"
           f"       c.distance,\n"
           f"       SCORE(1) AS keyword_score{select_extra(extra, 't.')}\n"
           f"FROM candidates c\n"
           f"JOIN {table} t ON t.{ident} = c.{ident}\n"
           f"WHERE CONTAINS(t.{text}, :keywords, 1) > 0\n"
           f"ORDER BY c.distance, c.{ident}\n"
           f"FETCH FIRST :top_k ROWS ONLY")
    binds = {**vector_binds, **binds, "candidates": positive_int(candidates, "candidates"),
             "keywords": keywords, "top_k": positive_int(k, "k")}
    return Statement(sql, binds, output_columns(ident, ["distance", "keyword_score"], extra))
