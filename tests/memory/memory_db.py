"""Fixtures for the agent-memory tests: one embedded database per test process that holds the
embedding model (loading the 90 MB model takes about a second, so it is loaded once), with the
memory tables dropped and created afresh before every test. Tests in one process run one after the
other, so each test has the memory schema to itself; xdist workers each have their own file.

Import the fixtures into a test module with
`from tests.memory.memory_db import memory, memory_conn, memory_db, memory_template, other_connection`.
"""
from __future__ import annotations

from pathlib import Path

import oracledb
import pytest

from workshop.embedded import connect

#: This process's database. The fixture below is imported into several test modules, and pytest makes
#: each import a fixture of its own, so the file is cached here to build it once per process.
_SHARED: Path | None = None


def _connect(path: Path):
    return connect(path, busy_timeout=2)


def _with_model(path: Path) -> Path:
    from workshop.memory import ensure_embedding_model_loaded
    conn = _connect(path)
    try:
        ensure_embedding_model_loaded(conn)
    finally:
        conn.close()
    return path


@pytest.fixture(scope="session")
def memory_template(tmp_path_factory) -> Path:
    """This process's database file, with the embedding model loaded."""
    global _SHARED
    if _SHARED is None or not _SHARED.exists():
        _SHARED = _with_model(tmp_path_factory.mktemp("memory") / "memory.db")
    return _SHARED


def _drop_every_table(conn) -> None:
    """Drop whatever the previous test created (the checkpoint tests create tables under wrong names)."""
    with conn.cursor() as cur:
        cur.execute("SELECT table_name FROM user_tables")
        for (name,) in cur.fetchall():
            cur.execute('DROP TABLE "' + name.replace('"', '""') + '" CASCADE CONSTRAINTS PURGE')


@pytest.fixture
def memory_db(memory_template) -> Path:
    """The database with a fresh, empty memory schema: every table dropped, the memory tables created again."""
    from workshop.memory import create_memory_tables, create_stores
    fetch_lobs = oracledb.defaults.fetch_lobs
    conn = _connect(memory_template)
    try:
        _drop_every_table(conn)
        create_memory_tables(conn)
        create_stores(conn)
        conn.commit()
    finally:
        conn.close()
        oracledb.defaults.fetch_lobs = fetch_lobs
    return memory_template


@pytest.fixture
def memory_conn(memory_db):
    """A connection to the test database. python-oracledb's global fetch_lobs is restored afterwards
    (OracleEmbeddings switches it off for the whole process)."""
    fetch_lobs = oracledb.defaults.fetch_lobs
    conn = _connect(memory_db)
    yield conn
    if conn.is_healthy():
        conn.rollback()
        conn.close()
    oracledb.defaults.fetch_lobs = fetch_lobs


@pytest.fixture
def other_connection(memory_db):
    """Opens further sessions on the test database (to check what is committed)."""
    opened = []

    def open_one():
        conn = _connect(memory_db)
        opened.append(conn)
        return conn
    yield open_one
    for conn in opened:
        if conn.is_healthy():
            conn.rollback()
            conn.close()


@pytest.fixture
def memory(memory_conn):
    from workshop.memory import MemoryManager
    return MemoryManager(memory_conn)
