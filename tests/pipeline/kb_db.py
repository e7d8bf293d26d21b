"""A set-up database with part 05's knowledge-base tables and context package (no policies yet), made once per
test session and copied per test. Import the fixtures with `from tests.pipeline.kb_db import kb_db, kb_template`."""
from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.checkpoints.shared import build_workshop_db, copy_db, shared_file
from workshop.embedded import connect


def _build_kb(source: Path) -> Callable:
    def make(target: Path) -> None:
        copy_db(source, target)
        from workshop.pipeline import kb, security
        conn = connect(target)
        try:
            kb.build_knowledge_base(conn, "ALL_MINILM_L6_V2")
            security.install_context(conn)
        finally:
            conn.close()
    return make


@pytest.fixture(scope="session")
def kb_template(tmp_path_factory) -> Path:
    worker_id = os.environ.get("PYTEST_XDIST_WORKER", "master")     # also without the xdist plugin
    built = shared_file(tmp_path_factory, worker_id, "setup-build", build_workshop_db)
    return shared_file(tmp_path_factory, worker_id, "kb-build", _build_kb(built))


@pytest.fixture
def kb_db(kb_template, tmp_path, monkeypatch) -> Path:
    """A private copy of the template, selected as this test's workshop database."""
    path = copy_db(kb_template, tmp_path / "workshop.db")
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    for name in ("EMBED_MODEL", "RERANK_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(path))
    return path





@pytest.fixture(scope="module")
def secured_db(kb_template, tmp_path_factory) -> Path:
    """A module's own copy of the template with the tenant policies on both tables (read-only tests share it)."""
    path = copy_db(kb_template, tmp_path_factory.mktemp("secured") / "workshop.db")
    from workshop.pipeline import security
    conn = connect(path)
    try:
        security.protect_all_tenant_tables(conn)
    finally:
        conn.close()
    return path


@pytest.fixture
def secured(secured_db, monkeypatch):
    """A connection to the secured database (tenant not set), selected as the workshop database."""
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    for name in ("EMBED_MODEL", "RERANK_MODEL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(secured_db))
    conn = connect(secured_db)
    yield conn
    conn.rollback()
    conn.close()
