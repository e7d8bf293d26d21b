"""Fixtures of the checkpoint tests."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.checkpoints.shared import build_workshop_db, shared_file


def pytest_configure(config):
    """`-p no:xdist` (one process on a loaded machine) has no worker_id fixture: provide the master's."""
    if not config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_MasterWorker(), "checkpoints-master-worker")


class _MasterWorker:
    @pytest.fixture(scope="session")
    def worker_id(self) -> str:
        return "master"


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
