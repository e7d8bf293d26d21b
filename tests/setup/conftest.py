"""One full set-up per test session into a temporary embedded database, shared by the xdist workers (the
first worker builds under a file lock, the others wait and reuse it); tests that change the database work
on a copy. The build runs as `--reset` over a file that already holds stale objects, so it also proves the
reset. Only WORKSHOP_EMBEDDED_DB is redirected: the models cache stays the project's models_dir(), so no
test rebuilds the 90 MB ONNX files."""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path

import pytest

from workshop.embedded import connect
from workshop.reset import delete_embedded_database
from workshop.setup import SetupReport, run

MODEL_ENV = ("EMBED_MODEL", "RERANK_MODEL", "ORACLE_DSN")
#: Objects in the database file before the reset: a learner table and one no registry knows.
STALE_OBJECTS = {"PAPERS_VS": "CREATE TABLE papers_vs (id VARCHAR2(100) PRIMARY KEY, text CLOB)",
                 "MY_SCRATCH": "CREATE TABLE my_scratch (id NUMBER PRIMARY KEY)"}


@dataclasses.dataclass(frozen=True)
class Built:
    path: Path
    report: SetupReport
    log: list[str]


def quiet(_: str) -> None:
    pass


@contextmanager
def _exclusive(lock_file: Path):
    try:
        import fcntl
    except ImportError:            # no POSIX locks: every worker builds its own copy
        yield
        return
    with open(lock_file, "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _build(path: Path) -> tuple[SetupReport, list[str]]:
    delete_embedded_database(path)                # a worker whose build failed may have left a file behind
    conn = connect(path)
    with conn.cursor() as cur:
        for ddl in STALE_OBJECTS.values():
            cur.execute(ddl)
    conn.close()
    lines: list[str] = []
    with pytest.MonkeyPatch.context() as mp:
        for name in MODEL_ENV:
            mp.delenv(name, raising=False)
        mp.setenv("WORKSHOP_EMBEDDED_DB", str(path))
        report = run(reset=True, progress=False, log=lines.append)
    return report, lines


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Built:
    """The database after `python -m workshop.setup --reset` over stale objects, its report and its log."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent                    # common to all workers of this pytest run
    folder = shared / "workshop-setup-build"
    folder.mkdir(exist_ok=True)
    path, record = folder / "workshop.db", folder / "report.json"
    with _exclusive(folder / "build.lock"):
        if record.exists():
            saved = json.loads(record.read_text())
            return Built(path, SetupReport(**saved["report"]), saved["log"])
        report, lines = _build(path)
        record.write_text(json.dumps({"report": dataclasses.asdict(report), "log": lines}))
    return Built(path, report, lines)


@pytest.fixture(autouse=True)
def default_settings(monkeypatch):
    """Every set-up test runs with the default engine and models unless it sets otherwise."""
    for name in MODEL_ENV:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="session")
def built_path(built) -> Path:
    return built.path


@pytest.fixture
def db_copy(built_path, tmp_path) -> Path:
    """A private copy of the built database (the WAL is checkpointed when the last connection closes)."""
    target = tmp_path / "copy.db"
    shutil.copyfile(built_path, target)
    wal = built_path.with_name(built_path.name + "-wal")
    if wal.exists():
        shutil.copyfile(wal, target.with_name(target.name + "-wal"))
    return target


@pytest.fixture
def built_conn(built_path):
    """A connection to the shared built database: read only (other tests and workers use it too)."""
    conn = connect(built_path)
    yield conn
    conn.close()
