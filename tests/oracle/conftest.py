"""Fixtures of the Oracle-path tests: a live Oracle connection for the tests marked `oracle` (skipped,
with the reason, when ORACLE_DSN is not set), and the shared embedded set-up build for the rest."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.checkpoints.shared import build_workshop_db, copy_db, shared_file

LIVE_REASON = ("needs a live Oracle AI Database: set ORACLE_DSN, ORACLE_USER and ORACLE_PASSWORD and run "
               "python -m workshop.setup (the Oracle job of .github/workflows/ci.yml does)")


@pytest.fixture
def live_oracle():
    """A connection to the Oracle AI Database of ORACLE_DSN, after the set-up."""
    if not os.environ.get("ORACLE_DSN"):
        pytest.skip(LIVE_REASON)
    from workshop import db
    conn = db.connect()
    yield conn
    conn.close()


@pytest.fixture(scope="session")
def built_db(tmp_path_factory) -> Path:
    """The embedded database after `python -m workshop.setup` (the same build the checkpoint tests share;
    the worker id is read from the environment so that this also works with -p no:xdist)."""
    worker_id = os.environ.get("PYTEST_XDIST_WORKER", "master")
    return shared_file(tmp_path_factory, worker_id, "setup-build", build_workshop_db)


@pytest.fixture
def embedded_copy(built_db, tmp_path, monkeypatch):
    """A connection to a private copy of the built embedded database, with the default engine and models."""
    from workshop.embedded import connect
    for name in ("ORACLE_DSN", "EMBED_MODEL", "RERANK_MODEL"):
        monkeypatch.delenv(name, raising=False)
    conn = connect(copy_db(built_db, tmp_path / "copy.db"))
    yield conn
    conn.close()
