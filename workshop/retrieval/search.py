"""Run the retrieval statements and return pandas DataFrames a notebook can show and compare.

Every result has a ``rank`` column (1 = best) followed by the statement's columns in lower case;
``df.attrs`` keeps what ran: ``sql`` (the exact text, the same on both engines), ``binds``,
``strategy`` and ``keywords`` (the CONTAINS query, or None when the text had no searchable term).

When the question has no searchable keyword (only stopwords or punctuation), the keyword-only,
pre-filter and post-filter strategies return an empty frame without running anything: Oracle
returns no rows for a stopword-only CONTAINS query. RRF leaves out its keyword leg, which gives
exactly what a keyword leg with no hits would give.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import oracledb
import pandas as pd

from .keywords import Mode, keyword_terms
from .rrf import DEFAULT_K, hybrid_rrf_sql
from .sql import Statement
from .statements import keyword_search_sql, postfilter_sql, prefilter_sql, vector_search_sql


def _lobs_as_values(cursor: oracledb.Cursor, metadata: Any) -> Any:
    """Output type handler: CLOB/NCLOB as str and BLOB as bytes, so a DataFrame holds plain values."""
    if metadata.type_code in (oracledb.DB_TYPE_CLOB, oracledb.DB_TYPE_NCLOB):
        return cursor.var(oracledb.DB_TYPE_LONG, arraysize=cursor.arraysize)
    if metadata.type_code is oracledb.DB_TYPE_BLOB:
        return cursor.var(oracledb.DB_TYPE_LONG_RAW, arraysize=cursor.arraysize)
    return None


def run_statement(conn: oracledb.Connection, statement: Statement, strategy: str, **attrs: Any) -> pd.DataFrame:
    """Execute `statement` and return its rows as a DataFrame with a leading rank column."""
    with conn.cursor() as cursor:
        cursor.outputtypehandler = _lobs_as_values
        cursor.execute(statement.sql, statement.binds)
        names = [d[0].lower() for d in cursor.description]
        rows = cursor.fetchall()
    return _frame(rows, names, statement, strategy, attrs)


def _frame(rows: list, names: Sequence[str], statement: Statement, strategy: str, attrs: Mapping) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(names))
    frame.insert(0, "rank", pd.Series(range(1, len(frame) + 1), dtype="int64"))
    frame.attrs.update({"strategy": strategy, "sql": statement.sql, "binds": dict(statement.binds), **attrs})
    return frame


def _not_run(statement: Statement, strategy: str, **attrs: Any) -> pd.DataFrame:
    """The empty result of a keyword strategy whose question has no searchable term."""
    frame = _frame([], statement.columns, statement, strategy, {**attrs, "note": "no searchable keyword: not run"})
    frame.attrs["binds"]["keywords"] = None
    return frame


def _keywords(query: str, contains_query: str | None, mode: Mode) -> str | None:
    if contains_query is not None:
        return contains_query
    if not isinstance(query, str):
        raise TypeError("the keyword leg needs the question as text (query=str); "
                        "pass the vector as query_vector=")
    return keyword_terms(query, mode)


def keyword_search(conn: oracledb.Connection, table: str, text_column: str, query: str, k: int = 10,
                   filters: Mapping[str, Any] | None = None, *, id_column: str = "id",
                   columns: Sequence[str] = (), mode: Mode = "accum",
                   contains_query: str | None = None) -> pd.DataFrame:
    """Oracle Text search for a free-text question (escaped by keyword_terms).

    `contains_query` sends your own Oracle Text expression instead (bound, never formatted in)."""
    keywords = _keywords(query, contains_query, mode)
    statement = keyword_search_sql(table, text_column, keywords or "", k, filters,
                                   id_column=id_column, columns=columns)
    if keywords is None:
        return _not_run(statement, "keyword", keywords=None)
    return run_statement(conn, statement, "keyword", keywords=keywords)


def vector_search(conn: oracledb.Connection, table: str, embedding_column: str, query: Any, k: int = 10,
                  filters: Mapping[str, Any] | None = None, metric: str = "COSINE", *, model: str | None = None,
                  id_column: str = "id", columns: Sequence[str] = ()) -> pd.DataFrame:
    """The k nearest rows to `query`: a vector, or text embedded in the database by `model`."""
    statement = vector_search_sql(table, embedding_column, query, k, filters, metric,
                                  model=model, id_column=id_column, columns=columns)
    return run_statement(conn, statement, "vector")


def hybrid_prefilter(conn: oracledb.Connection, table: str, text_column: str, embedding_column: str, query: str,
                     k: int = 10, filters: Mapping[str, Any] | None = None, metric: str = "COSINE", *,
                     query_vector: Any = None, model: str | None = None, id_column: str = "id",
                     columns: Sequence[str] = (), mode: Mode = "accum",
                     contains_query: str | None = None) -> pd.DataFrame:
    """CONTAINS in the WHERE clause, vector distance in ORDER BY: keyword-matching rows, nearest first.

    The question's text gives the keywords; the vector is `query_vector`, or the text embedded
    in the database by `model`."""
    keywords = _keywords(query, contains_query, mode)
    vector_query = query if query_vector is None else query_vector
    statement = prefilter_sql(table, text_column, embedding_column, vector_query, keywords or "", k, filters,
                              metric, model=model, id_column=id_column, columns=columns)
    if keywords is None:
        return _not_run(statement, "pre-filter", keywords=None)
    return run_statement(conn, statement, "pre-filter", keywords=keywords)


def hybrid_postfilter(conn: oracledb.Connection, table: str, text_column: str, embedding_column: str, query: str,
                      k: int = 10, candidates: int = 50, filters: Mapping[str, Any] | None = None,
                      metric: str = "COSINE", *, query_vector: Any = None, model: str | None = None,
                      id_column: str = "id", columns: Sequence[str] = (), mode: Mode = "accum",
                      contains_query: str | None = None) -> pd.DataFrame:
    """Vector top-`candidates` first, then keep those that CONTAIN the keywords (may return < k rows)."""
    keywords = _keywords(query, contains_query, mode)
    vector_query = query if query_vector is None else query_vector
    statement = postfilter_sql(table, text_column, embedding_column, vector_query, keywords or "", k, candidates,
                               filters, metric, model=model, id_column=id_column, columns=columns)
    if keywords is None:
        return _not_run(statement, "post-filter", keywords=None)
    return run_statement(conn, statement, "post-filter", keywords=keywords)


def hybrid_rrf(conn: oracledb.Connection, table: str, text_column: str, embedding_column: str, query: str,
               k: int = 10, candidates: int = 50, rrf_k: int = DEFAULT_K, weights: Mapping[str, float] | None = None,
               filters: Mapping[str, Any] | None = None, metric: str = "COSINE", *, query_vector: Any = None,
               model: str | None = None, id_column: str = "id", columns: Sequence[str] = (),
               mode: Mode = "accum", contains_query: str | None = None) -> pd.DataFrame:
    """Reciprocal Rank Fusion of the vector and keyword rankings, in one SQL statement."""
    keywords = _keywords(query, contains_query, mode)
    vector_query = query if query_vector is None else query_vector
    statement = hybrid_rrf_sql(table, text_column, embedding_column, vector_query, keywords, k, candidates, rrf_k,
                               weights, filters, metric, model=model, id_column=id_column, columns=columns)
    legs = ("vector", "keyword") if keywords is not None else ("vector",)
    frame = run_statement(conn, statement, "rrf", keywords=keywords, legs=legs)
    for column in ("vector_rank", "keyword_rank"):  # a missing rank is <NA>, not NaN in a float column
        frame[column] = frame[column].astype("Int64")
    return frame
