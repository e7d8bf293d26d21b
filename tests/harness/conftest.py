"""Fixtures of the harness tests: one copy of this checkout's set-up database (FINANCE tables) per session, and
per test a read-write connection (the harness's own) and a read-only session on the same file."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.checkpoints.shared import build_workshop_db


@pytest.fixture(scope="session")
def harness_db(tmp_path_factory) -> Path:
    from workshop.harness import create_run_tables
    return build_workshop_db(tmp_path_factory.mktemp("harness") / "workshop.db", from_checkout=True,
                             then=create_run_tables)


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
