"""The tools' read-only session (part 07: every read tool and part 05's retriever run on it) must still answer
reads. The read-only authorizer denied SQLite's own `UPDATE sqlite_master` check that SQLite makes while it
declares a table-valued function (json_each) on first use, so the retriever's first hybrid search on a fresh
read-only session failed with "vtable constructor failed: json_each" (notebook 07, section 8; end to end:
tests/harness/test_memory_nodes.py)."""
from __future__ import annotations

import sqlite3

import pytest

from workshop.embedded import readonly

#: (id, authorizer call, expected)
DECISIONS = [
    ("json-each-declaration", (sqlite3.SQLITE_UPDATE, "sqlite_master", "type", "main", None), sqlite3.SQLITE_OK),
    ("read", (sqlite3.SQLITE_READ, "knowledge_base_chunk", "content", "main", None), sqlite3.SQLITE_OK),
    ("temp-table", (sqlite3.SQLITE_CREATE_TEMP_TABLE, "t", None, "temp", None), sqlite3.SQLITE_OK),
    ("update-a-table", (sqlite3.SQLITE_UPDATE, "finance_loans", "rate_bp", "main", None), sqlite3.SQLITE_DENY),
    ("insert", (sqlite3.SQLITE_INSERT, "agent_findings", None, "main", None), sqlite3.SQLITE_DENY),
    ("create-table", (sqlite3.SQLITE_CREATE_TABLE, "x", None, "main", None), sqlite3.SQLITE_DENY),
    ("drop-table", (sqlite3.SQLITE_DROP_TABLE, "finance_loans", None, "main", None), sqlite3.SQLITE_DENY),
    ("create-vtable", (sqlite3.SQLITE_CREATE_VTABLE, "v", "fts5", "main", None), sqlite3.SQLITE_DENY),
    ("attach", (sqlite3.SQLITE_ATTACH, "/tmp/other.db", None, None, None), sqlite3.SQLITE_DENY),
]


@pytest.mark.parametrize("call, expected", [(c, e) for _, c, e in DECISIONS], ids=[i for i, *_ in DECISIONS])
def test_the_read_only_authorizer_denies_writes_and_lets_sqlite_declare_json_each(call, expected):
    assert readonly.authorizer(*call) == expected
