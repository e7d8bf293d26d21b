"""Oracle Text (CONTEXT and SEARCH indexes, CONTAINS/SCORE) for the embedded engine, on plain sqlite3.

The SQL engine calls this package; it works on any ``sqlite3.Connection``:

* DDL: ``create_text_index`` (CREATE INDEX ... INDEXTYPE IS CTXSYS.CONTEXT / CREATE SEARCH INDEX),
  ``drop_text_index``, ``drop_indexes_for_table``, ``text_index_for``;
* sync: ``sync_index`` (CTX_DDL.SYNC_INDEX) and ``on_commit`` (called by the engine just before it
  commits, for ON COMMIT and automatically maintained indexes);
* query: ``search`` returns {rowid: score} for CONTAINS(col, query, label) > 0 and SCORE(label);
  ``parse_query`` exposes the parsed query (str(node) shows how it was read).

Errors: ``TextQueryError`` / ``TextIndexError`` carry Oracle's DRG (or ORA) code and text; the
engine wraps query errors as ORA-29902 + ORA-20000 + DRG-nnnnn like Oracle. ``TextUnsupportedError``
(code 3001) names valid Oracle Text the embedded engine does not implement.

Semantics and their documented sources are in the module docstrings: lexer (BASIC_LEXER, stoplist),
query (grammar, escaping), evaluate (scores, stopword transformations), expand (fuzzy, wildcard,
stem, soundex), params (sync modes), storage (shadow tables, triggers).
"""
from __future__ import annotations

import sqlite3
from functools import lru_cache

from .errors import (TextError, TextIndexError, TextQueryError, TextUnsupportedError, column_not_indexed)
from .evaluate import evaluate
from .query import QueryNode
from .query import parse_query as _parse_query
from .reader import IndexReader, clear_caches
from .storage import (TextIndexInfo, create_text_index, drop_indexes_for_table, drop_text_index, get_index,
                      has_pending, list_text_indexes, pending_count, sync_pending, text_index_for)

__all__ = [
    "TextError", "TextIndexError", "TextQueryError", "TextUnsupportedError", "TextIndexInfo", "QueryNode",
    "create_text_index", "drop_text_index", "drop_indexes_for_table", "text_index_for", "list_text_indexes",
    "sync_index", "on_commit", "search", "parse_query", "pending_count", "clear_caches", "column_not_indexed",
]


@lru_cache(maxsize=1024)
def parse_query(query: str) -> QueryNode:
    """Parse a CONTAINS query (cached: the tree is immutable). Raises TextQueryError."""
    return _parse_query(query)


def _index(conn: sqlite3.Connection, index_name: str, error: type[TextError]) -> TextIndexInfo:
    info = get_index(conn, index_name)
    if info is None:
        raise error(10502, f"DRG-10502: index {index_name} does not exist")
    return info


def sync_index(conn: sqlite3.Connection, index_name: str) -> int:
    """CTX_DDL.SYNC_INDEX: index pending inserts/updates/deletes; returns the number of rowids processed.

    Runs in a SAVEPOINT: committed at once outside a transaction, part of the caller's otherwise
    (Oracle's SYNC_INDEX commits; the engine should commit after calling it)."""
    return sync_pending(conn, _index(conn, index_name, TextIndexError))


def on_commit(conn: sqlite3.Connection) -> None:
    """Index pending rows of every ON COMMIT / EVERY / automatically maintained index, inside the
    transaction that is about to commit. Cheap when nothing is pending."""
    for info in list_text_indexes(conn):
        if info.syncs_at_commit and has_pending(conn, info):
            sync_pending(conn, info)


def search(conn: sqlite3.Connection, index_name: str, query: str) -> dict[int, int]:
    """CONTAINS(column, query) over the named index -> {rowid: score 1..100}; only hits are returned.

    Rowids of rows deleted since the last sync can appear (the engine joins back to the base table).
    For indexes synced at commit, rows committed by a writer that bypassed on_commit are indexed here
    first, when no transaction is open (emulating Oracle's background maintenance)."""
    node = parse_query(query)
    info = _index(conn, index_name, TextQueryError)
    if info.syncs_at_commit and not conn.in_transaction and has_pending(conn, info):
        sync_pending(conn, info)
    return evaluate(node, IndexReader(conn, info)).as_dict()
