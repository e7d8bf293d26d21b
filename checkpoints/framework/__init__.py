"""The checkpoint framework the per-part modules (checkpoints/partNN.py) are written with.

    from checkpoints.framework import checkpoint, expect_table, expect_column

    NOTEBOOK = "01_vector_search.ipynb"

    @checkpoint("create the RESEARCH_CHUNKS table")       # shown as "TODO <n>: ..." (n from the notebook)
    def check_research_chunks(conn):
        expect_table(conn, "research_chunks")
        expect_column(conn, "research_chunks", "embedding", "VECTOR", dims=384, fmt="FLOAT32")

A passing check shows a green line; a failing one shows the reason and a hint and raises
CheckpointFailed (CheckpointError when the check could not run). See docs/authoring-notebooks.md.
"""
from .dictionary import (INDEX_KINDS, ColumnType, VectorIndex, column_types, committed_row_count, dictionary_name,
                         index_columns, primary_key, vector_index,
                         expect_column, expect_committed, expect_index, expect_row_count, expect_table, find_indexes,
                         index_exists, index_kind, row_count, table_exists, vector_format_name)
from .expect import (expect, expect_at_most_k, expect_count, expect_filled, expect_keys, expect_ordered_by,
                     expect_rows_equal, fail)
from . import escalation, registry
from .outcome import CheckpointError, CheckpointFailed, Outcome
from .method import expect_bound, expect_database_limits, expect_queried, expect_store_searched
from .needs import TodoNeeded, explain_unfinished_todos, is_stub, needs
from .probes import restore_rows, savepoint
from .recording import RecordingConnection, RecordingCursor, RecordingStore, Statement, StoreCall, recording_stores
from .registry import TodoEntry, todo_ref
from .sql import (Fetch, bind_names, calls_function, fetch_clause, formatted_values, literals, same_statement,
                  sql_tokens, statement_kind)
from .render import as_html, as_text, in_notebook, show
from .runner import CheckContext, as_failure, check, checkpoint, database_hint

__all__ = [
    "INDEX_KINDS", "CheckContext", "CheckpointError", "CheckpointFailed", "ColumnType", "Outcome", "as_failure",
    "as_html", "as_text", "check", "checkpoint", "column_types", "committed_row_count", "database_hint",
    "dictionary_name", "expect", "expect_at_most_k", "expect_column", "expect_committed", "expect_count",
    "expect_filled", "expect_index", "expect_keys", "expect_ordered_by", "expect_row_count", "expect_rows_equal",
    "expect_table", "fail", "find_indexes", "in_notebook", "index_exists", "index_kind", "row_count", "show",
    "table_exists", "vector_format_name", "escalation", "registry", "TodoEntry", "todo_ref",
    "TodoNeeded", "is_stub", "needs", "VectorIndex", "index_columns", "primary_key", "vector_index", "expect_bound", "expect_database_limits", "expect_queried", "expect_store_searched", "restore_rows", "savepoint",
    "RecordingConnection", "RecordingCursor", "RecordingStore", "Statement", "StoreCall", "Fetch", "bind_names",
    "fetch_clause", "formatted_values", "literals", "same_statement", "statement_kind", "recording_stores",
    "calls_function", "sql_tokens", "explain_unfinished_todos",
]
