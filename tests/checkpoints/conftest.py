"""Fixtures of the checkpoint tests."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.checkpoints.shared import build_workshop_db, shared_file


@pytest.fixture(scope="session")
def worker_id(request) -> str:
    """xdist's worker id ("gw0", ...), or "master" without xdist (also under `-p no:xdist`, where xdist's own
    fixture is missing): the same rule as xdist's fixture."""
    workerinput = getattr(request.config, "workerinput", None)
    return workerinput["workerid"] if workerinput else "master"


@pytest.fixture(autouse=True)
def _fresh_checkpoint_state(tmp_path_factory, monkeypatch):
    """Each test starts from the first hint, and checkpoint outcomes go to a private progress file."""
    from checkpoints.framework import escalation
    escalation.reset()
    monkeypatch.setenv("WORKSHOP_PROGRESS_FILE", str(tmp_path_factory.mktemp("progress") / "progress.json"))
    yield
    escalation.reset()


@pytest.fixture(scope="session")
def built_db(tmp_path_factory, worker_id) -> Path:
    """The database after `python -m workshop.setup` (shared by every checkpoint test module of the session)."""
    return shared_file(tmp_path_factory, worker_id, "setup-build", build_workshop_db)
