"""Fixtures of the harness tests: one copy of this checkout's set-up database (FINANCE tables) per session, and
per test a read-write connection (the harness's own) and a read-only session on the same file."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from workshop import config


@pytest.fixture(scope="session")
def harness_db(tmp_path_factory) -> Path:
    from workshop.embedded import connect
    from workshop.harness import create_run_tables
    from workshop.setup import build
    target = tmp_path_factory.mktemp("harness") / "workshop.db"
    source = config.embedded_db_path()
    if source.exists():
        with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
            src.backup(dst)
    with pytest.MonkeyPatch.context() as mp:
        for name in ("ORACLE_DSN", "EMBED_MODEL", "RERANK_MODEL"):
            mp.delenv(name, raising=False)
        conn = connect(target)
        try:
            build(conn, progress=False, log=lambda _: None)
            create_run_tables(conn)
        finally:
            conn.close()
    return target


@pytest.fixture
def conns(harness_db, monkeypatch):
    from workshop.embedded import connect
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(harness_db))
    rw, ro = connect(harness_db), connect(harness_db, readonly=True)
    yield rw, ro
    for conn in (ro, rw):
        conn.rollback()
        conn.close()
