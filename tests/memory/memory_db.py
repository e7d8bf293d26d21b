"""Fixtures for the agent-memory tests: an embedded database with the embedding model and the memory
schema, built once per worker process and copied for each test (loading the 90 MB model takes a
second; copying the file takes a few milliseconds). Import the fixtures into a test module with
`from tests.memory.memory_db import memory_conn, memory, memory_template, other_connection`.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import oracledb
import pytest

from workshop.embedded import connect


def _connect(path: Path):
    return connect(path, busy_timeout=2)


@pytest.fixture(scope="session")
def memory_template(tmp_path_factory) -> Path:
    """A database file with the embedding model loaded and every memory table created (empty)."""
    from workshop.memory import create_memory_tables, create_stores, ensure_embedding_model_loaded
    path = tmp_path_factory.mktemp("memory-template") / "template.db"
    fetch_lobs = oracledb.defaults.fetch_lobs
    conn = _connect(path)
    try:
        ensure_embedding_model_loaded(conn)
        create_memory_tables(conn)
        create_stores(conn)
        conn.commit()
    finally:
        conn.close()
        oracledb.defaults.fetch_lobs = fetch_lobs
    return path


@pytest.fixture
def memory_db(memory_template, tmp_path) -> Path:
    """This test's own copy of the template database (removed afterwards: it is 90 MB)."""
    path = tmp_path / "memory.db"
    shutil.copyfile(memory_template, path)
    yield path
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)


@pytest.fixture
def memory_conn(memory_db):
    """A connection to this test's database. python-oracledb's global fetch_lobs is restored afterwards
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
    """Opens further sessions on this test's database (to check what is committed)."""
    opened = []

    def open_one():
        conn = _connect(memory_db)
        opened.append(conn)
        return conn
    yield open_one
    for conn in opened:
        if conn.is_healthy():
            conn.close()


@pytest.fixture
def memory(memory_conn):
    from workshop.memory import MemoryManager
    return MemoryManager(memory_conn)
