"""Fixtures of the part 08 package tests: a private copy of the set-up embedded database with AGENT_MEMORIES."""
from __future__ import annotations

import pytest

from tests.checkpoints.shared import build_workshop_db, copy_db, shared_file


@pytest.fixture(scope="session")
def built_db(tmp_path_factory):
    import os
    return shared_file(tmp_path_factory, os.environ.get("PYTEST_XDIST_WORKER", "master"), "setup-build",
                       build_workshop_db)


@pytest.fixture
def conn(built_db, tmp_path, monkeypatch):
    from workshop.embedded import connect
    for name in ("ORACLE_DSN", "EMBED_MODEL", "RERANK_MODEL"):
        monkeypatch.delenv(name, raising=False)
    path = copy_db(built_db, tmp_path / "copy.db")
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(path))
    connection = connect(path)
    yield connection
    connection.close()


@pytest.fixture
def memories(conn):
    """AGENT_MEMORIES created and holding the five-case set (committed, so the text index has synced)."""
    from workshop.agent_memory import evaluation, store
    store.create(conn)
    store.add_memories(conn, evaluation.memory_records(), "ALL_MINILM_L6_V2")
    return conn
