"""The rerun tests' database: one copy of the set-up workshop database per test module (each module runs on one
xdist worker with --dist loadfile), completed by the idempotent set-up."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.checkpoints.shared import build_workshop_db


@pytest.fixture(scope="module")
def set_up_database(tmp_path_factory) -> Path:
    return build_workshop_db(tmp_path_factory.mktemp("rerun") / "workshop.db", from_checkout=True)
