"""Fixtures of the harness attack files (test_harness_*.py): a small embedded database with the run tables, the
approvals table and the tenant-protected AGENT_CASES, and no FINANCE data (fast to build, one per module).
Imported by name into each file instead of a shared conftest (other helpers add engine files to this folder)."""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def small_db(tmp_path_factory) -> Path:
    from workshop.embedded import connect
    from workshop.harness import approvals, create_run_tables
    from workshop.harness.identity import create_case_table
    path = tmp_path_factory.mktemp("harness-security") / "harness.db"
    conn = connect(path)
    create_run_tables(conn)
    approvals.create_approvals_table(conn)
    create_case_table(conn)
    conn.close()
    return path


@pytest.fixture
def pair(small_db):
    """(read-write, read-only) connections on the small database."""
    from workshop.embedded import connect
    rw, ro = connect(small_db), connect(small_db, readonly=True)
    yield rw, ro
    for conn in (ro, rw):
        if conn.is_healthy():
            conn.rollback()
            conn.close()


def run_status(conn, run_id: str) -> str | None:
    with conn.cursor() as cur:
        cur.execute("SELECT status FROM agent_runs WHERE run_id = :r", r=run_id)
        row = cur.fetchone()
    return row[0] if row else None


def running_runs(conn) -> list[str]:
    with conn.cursor() as cur:
        cur.execute("SELECT run_id FROM agent_runs WHERE status = 'running' ORDER BY run_id")
        return [r[0] for r in cur.fetchall()]


class NoMemory:
    """Remembers nothing, retrieves nothing: the graph's memory nodes with nothing in them (the graph only calls
    `assemble` and `write_back`; part 03's memory is not what these files attack)."""

    def assemble(self, question: str, thread_id: str) -> dict:
        return {"context": [], "memory": {}, "retrieved": []}

    def write_back(self, state: dict) -> dict:
        return {}
