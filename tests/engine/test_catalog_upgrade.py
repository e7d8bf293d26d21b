"""A database file made before an engine extension existed gets that extension's ORA$ tables when it is
opened (the dictionary views were already current, so the catalog version alone would skip them)."""
from __future__ import annotations

import sqlite3

from workshop.embedded import connect


def test_an_older_file_gets_the_hybrid_index_catalog_tables(tmp_path):
    path = tmp_path / "old.db"
    connect(path).close()
    with sqlite3.connect(path) as raw:
        names = [r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                           "AND name LIKE 'ORA$HYBRID%'")]
        assert names
        for name in names:
            raw.execute(f'DROP TABLE "{name}"')
    conn = connect(path)
    try:
        with conn.cursor() as cur:
            cur.execute("CREATE TABLE t (id NUMBER)")          # DDL commits, which reads the hybrid catalog
            cur.execute("DROP TABLE t PURGE")
    finally:
        conn.close()
    with sqlite3.connect(path) as raw:
        assert sorted(r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                                "AND name LIKE 'ORA$HYBRID%'")) == sorted(names)
