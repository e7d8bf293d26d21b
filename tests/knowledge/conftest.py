"""Fixtures of the knowledge tests: one set-up database per session (a consistent copy of this checkout's
workshop database when it exists, completed by the idempotent set-up; otherwise a fresh build), with part 04's
knowledge store filled once; tests that write use tables of their own."""
from __future__ import annotations

import uuid
from pathlib import Path

import oracledb
import pytest

from tests.checkpoints.shared import build_workshop_db

MODEL = "ALL_MINILM_L6_V2"


@pytest.fixture(scope="session")
def finance_db(tmp_path_factory) -> Path:
    from workshop.reset import reset_part
    return build_workshop_db(tmp_path_factory.mktemp("knowledge") / "workshop.db", from_checkout=True,
                             then=lambda conn: reset_part(4, conn, log=None))


def _clean() -> None:
    from workshop.knowledge import facts
    facts._MIRRORS.clear()


@pytest.fixture
def kconn(finance_db, monkeypatch):
    """A connection to the session database; mirrors and python-oracledb's fetch_lobs restored afterwards."""
    from workshop.embedded import connect
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(finance_db))
    fetch_lobs = oracledb.defaults.fetch_lobs
    conn = connect(finance_db)
    yield conn
    _clean()
    if conn.is_healthy():
        conn.rollback()
        conn.close()
    oracledb.defaults.fetch_lobs = fetch_lobs


@pytest.fixture(scope="session")
def knowledge_db(finance_db) -> Path:
    """The session database with KNOWLEDGE_FACTS written and AML_KNOWLEDGE_VS synced and prepared."""
    from workshop.embedded import connect
    from workshop.knowledge import (create_facts_table, open_knowledge_store, policy_facts, prepare_search,
                                    read_facts, scan_schema, sync_knowledge, write_facts)
    fetch_lobs = oracledb.defaults.fetch_lobs
    conn = connect(finance_db)
    try:
        create_facts_table(conn)
        write_facts(conn, scan_schema(conn) + policy_facts())
        store = open_knowledge_store(conn, MODEL)
        sync_knowledge(conn, store, read_facts(conn))
        prepare_search(conn, store)
    finally:
        _clean()
        conn.close()
        oracledb.defaults.fetch_lobs = fetch_lobs
    return finance_db


@pytest.fixture
def probe_table(kconn):
    """A fresh OracleVS table name for a test that writes; dropped afterwards."""
    from langchain_oracledb.vectorstores.utils import drop_table_purge
    name = f"AML_TEST_{uuid.uuid4().hex[:8].upper()}_VS"
    yield name
    kconn.rollback()
    drop_table_purge(kconn, name)
