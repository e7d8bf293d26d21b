"""Retrieval helpers for the notebooks: keyword, vector, hybrid (pre-filter, post-filter, RRF) search.

The SQL stays visible: every builder returns a Statement whose ``.sql`` a notebook can print, and
every search result keeps the SQL it ran in ``df.attrs["sql"]``.

* ``keywords``: free text -> a safe Oracle Text query (``keyword_terms``);
* ``rrf``: Reciprocal Rank Fusion in Python (``rrf_fuse``) and as SQL (``hybrid_rrf_sql``);
* ``statements``: the SQL of keyword, vector, pre-filter and post-filter search;
* ``search``: run them and get DataFrames.
"""
from .keywords import DEFAULT_STOPWORDS, escape_braces, keyword_terms, split_terms
from .rrf import DEFAULT_K, hybrid_rrf_sql, rrf_fuse
from .search import hybrid_postfilter, hybrid_prefilter, hybrid_rrf, keyword_search, run_statement, vector_search
from .sql import METRICS, Statement
from .statements import keyword_search_sql, postfilter_sql, prefilter_sql, vector_search_sql

__all__ = [
    "DEFAULT_K", "DEFAULT_STOPWORDS", "METRICS", "Statement",
    "escape_braces", "keyword_terms", "split_terms",
    "rrf_fuse", "hybrid_rrf_sql",
    "keyword_search_sql", "vector_search_sql", "prefilter_sql", "postfilter_sql",
    "keyword_search", "vector_search", "hybrid_prefilter", "hybrid_postfilter", "hybrid_rrf", "run_statement",
]
