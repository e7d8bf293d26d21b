"""Every solution notebook runs top to bottom twice in a row on one database without an error.

nbval (in the test command) runs each solution once against the workshop database; this test proves
the second run too, on a private copy of a set-up database so it cannot disturb nbval's run.
"""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from workshop import config
from workshop.notebooks.execute import execute
from workshop.setup import build

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def set_up_database(tmp_path_factory) -> Path:
    """A consistent copy (SQLite backup API) of the set-up workshop database, or a fresh build."""
    target = tmp_path_factory.mktemp("rerun") / "workshop.db"
    source = config.embedded_db_path()
    if source.exists():
        with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
            src.backup(dst)
    from workshop.embedded import connect
    conn = connect(target)
    build(conn, progress=False, log=lambda _: None)   # no-op when the copy was complete
    conn.close()
    return target


@pytest.mark.parametrize("notebook", SOLUTIONS, ids=[p.stem for p in SOLUTIONS])
def test_solution_runs_twice_without_error(notebook, set_up_database, monkeypatch):
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(set_up_database))
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    for attempt in ("first", "second"):
        _, errors = execute(notebook, cwd=notebook.parent, timeout=600)
        assert not errors, f"{notebook.name}, {attempt} run: cell {errors[0].index} raised " \
                           f"{errors[0].ename}: {errors[0].evalue}"


def test_there_are_solution_notebooks():
    assert len(SOLUTIONS) >= 4
    assert any(p.name.startswith("04_") for p in SOLUTIONS)      # part 04 (knowledge retrieval) is covered
    assert any(p.name.startswith("08_") for p in SOLUTIONS)      # part 08 (OAMP and its mirror) is covered
