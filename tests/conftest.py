"""Shared fixtures: every test gets its own embedded database file, so tests run in parallel."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture
def db_path(tmp_path) -> Path:
    return tmp_path / "engine.db"


@pytest.fixture
def conn(db_path):
    from workshop.embedded import connect
    connection = connect(db_path, busy_timeout=2)
    yield connection
    if connection.is_healthy():
        connection.close()


@pytest.fixture
def cur(conn):
    with conn.cursor() as cursor:
        yield cursor


def ora_code(excinfo) -> int:
    """The ORA- number of a raised oracledb error."""
    return excinfo.value.args[0].code


@pytest.fixture(scope="session", autouse=True)
def _working_copy_outside_the_checkout(tmp_path_factory):
    """`python -m workshop.setup` ends by making the learner's working copy (my-notebooks/); a test that runs the
    set-up's command line writes it into a temporary folder, never into the checkout."""
    os.environ["WORKSHOP_MY_NOTEBOOKS"] = str(tmp_path_factory.mktemp("my-notebooks"))
    yield


@pytest.fixture(autouse=True)
def _default_fetch_lobs():
    """langchain-oracledb's OracleEmbeddings turns `oracledb.defaults.fetch_lobs` off for the whole
    process (even from a fixture that ran long before); every test starts from python-oracledb's
    default (True), so no test depends on which ran before it."""
    import oracledb
    oracledb.defaults.fetch_lobs = True
    yield
    oracledb.defaults.fetch_lobs = True


def _deterministic_hypothesis() -> None:
    """Property tests explore the same examples on every run, so CI cannot turn red by chance;
    set HYPOTHESIS_RANDOM=1 to explore fresh examples locally."""
    from hypothesis import settings
    settings.register_profile("workshop", derandomize=True, database=None)
    settings.register_profile("explore", database=None)
    settings.load_profile("explore" if os.environ.get("HYPOTHESIS_RANDOM") else "workshop")


_deterministic_hypothesis()
