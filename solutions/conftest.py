"""pytest, for the solution notebooks under nbval (scripts/test.sh): they run one at a time across xdist workers.

They share the workshop database and its tables: part 03 drops and creates the memory stores that part 07's harness
creates when they are missing, and part 05 adds row-level security policies that part 03's writes meet. Run at once
on two workers they raced (part 03's check-then-create of a store met part 07's: ORA-00955), which two notebooks
never do in a learner's own database. `--dist loadfile` still keeps each notebook's cells on one worker, in order;
this lock only keeps a second notebook from starting while one runs. A worker that dies releases it with its
process. The test files under tests/ are not held back."""
from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest

_held: dict[str, int] = {}


def _lock_path(config: pytest.Config) -> Path:
    state = Path(os.environ.get("WORKSHOP_STATE_DIR") or config.rootpath / ".state")
    state.mkdir(parents=True, exist_ok=True)
    return state / "solution-notebooks.lock"


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.path.suffix == ".ipynb" and "fd" not in _held:
        fd = os.open(_lock_path(item.config), os.O_CREAT | os.O_RDWR)
        fcntl.flock(fd, fcntl.LOCK_EX)       # waits while another worker runs a notebook
        _held["fd"] = fd


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if item.path.suffix == ".ipynb" and "fd" in _held and (nextitem is None or nextitem.path != item.path):
        fd = _held.pop("fd")
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
