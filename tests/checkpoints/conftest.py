"""Fixtures of the checkpoint tests."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.checkpoints.shared import build_workshop_db, shared_file


@pytest.fixture(scope="session")
def built_db(tmp_path_factory, worker_id) -> Path:
    """The database after `python -m workshop.setup` (shared by every checkpoint test module of the session)."""
    return shared_file(tmp_path_factory, worker_id, "setup-build", build_workshop_db)
