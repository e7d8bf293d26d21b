"""--reset rebuilds from nothing; drop_all removes every workshop object (the Oracle path); reset_part(n)
drops exactly part n's learner objects."""
from __future__ import annotations

import re

import pytest

from tests.setup.conftest import STALE_OBJECTS
from tests.setup.setup_helpers import fingerprint, rows
from workshop import reset, schema, setup
from workshop.embedded import connect

LEARNER_DDL = {
    "PAPER_VECTORS": "CREATE TABLE paper_vectors (id NUMBER PRIMARY KEY, v VECTOR(384, FLOAT32))",
    "PAPERS_VS": "CREATE TABLE papers_vs (id VARCHAR2(100) PRIMARY KEY, text CLOB)",
    "PAPERS_SUBJECT_IX": "CREATE INDEX papers_subject_ix ON papers (primary_subject)",
    "TOOL_LOG": "CREATE TABLE tool_log (id NUMBER PRIMARY KEY, tool VARCHAR2(100))",
    "MY_SCRATCH": "CREATE TABLE my_scratch (id NUMBER PRIMARY KEY)",
}


def create_learner_objects(conn, names=LEARNER_DDL) -> None:
    with conn.cursor() as cur:
        for name in names:
            cur.execute(LEARNER_DDL[name])


def names(conn) -> set[str]:
    found = reset.existing_objects(conn)
    return set().union(*found.values())


@pytest.fixture(autouse=True)
def registry_with_an_index_on_a_setup_table(monkeypatch):
    """Part 1 also creates an index on the set-up's PAPERS table (listed, since dropping its table won't)."""
    monkeypatch.setitem(schema.LEARNER_OBJECTS, 1,
                        schema.LEARNER_OBJECTS[1] + (schema.LearnerObject("INDEX", "PAPERS_SUBJECT_IX"),))


def test_reset_part_drops_only_that_parts_objects(db_copy):
    conn = connect(db_copy)
    try:
        create_learner_objects(conn)
        before = names(conn)
        dropped = reset.reset_part(1, conn, log=None)
        assert sorted(dropped) == ["INDEX PAPERS_SUBJECT_IX", "TABLE PAPERS_VS", "TABLE PAPER_VECTORS"]
        named = lambda found: {n for n in found if not n.startswith("SYS_")}     # noqa: E731 - not the PK indexes
        assert named(names(conn)) == named(before) - {"PAPERS_SUBJECT_IX", "PAPERS_VS", "PAPER_VECTORS"}
        assert {"TOOL_LOG", "MY_SCRATCH", "PAPERS", "PAPERS_HNSW", "RESEARCH_GRAPH"} <= names(conn)
        assert reset.reset_part(1, conn, log=None) == []          # again: nothing left to drop
        assert reset.reset_part(3, conn, log=None) == ["TABLE TOOL_LOG"]
    finally:
        conn.close()


def test_reset_part_rejects_an_unknown_part():
    with pytest.raises(ValueError, match="no part 99"):
        reset.reset_part(99, conn=object(), log=None)


def test_drop_all_removes_every_workshop_object_and_nothing_else(db_copy):
    conn = connect(db_copy)
    try:
        create_learner_objects(conn)
        dropped = reset.drop_all(conn, log=None)
        assert dropped[0] == "PROPERTY GRAPH RESEARCH_GRAPH"
        assert dropped[-2:] == ["MINING MODEL ALL_MINILM_L6_V2", "MINING MODEL RERANKER"]
        left = names(conn)
        assert left & (schema.setup_owned_names() | {o.name for o in schema.learner_objects()}) == set()
        assert "MY_SCRATCH" in left
        assert reset.drop_all(conn, log=None) == []               # idempotent
    finally:
        conn.close()


def test_reset_deleted_the_stale_database_and_built_it_anew(built, built_conn):
    assert built.log[0] == f"reset: deleted the embedded database {built.path} (restart running notebook kernels)"
    assert built.log[1] == "Preparing the workshop database (embedded engine) ..."
    assert built.log[2:] == [f"  {action}" for action in built.report.actions]
    assert "created property graph RESEARCH_GRAPH" in built.report.actions
    assert not set(STALE_OBJECTS) & names(built_conn)
    assert built.report.counts["PAPERS"] == 162


def test_cli_run_on_a_complete_database_changes_nothing(built_conn, db_copy, monkeypatch, capsys):
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(db_copy))
    assert setup.main(["--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "everything is present: nothing to do, nothing changed" in out
    assert "reranker:  RERANKER: training-free late-interaction (MaxSim) reranker over all-MiniLM-L6-v2 token states, not a cross-encoder" in out
    assert re.search(r"rows: +\d+ tables, [\d,]+ rows, unchanged", out)     # the table only when something changed
    assert "next:      open " in out and "/00_setup_and_orientation.ipynb" in out
    conn = connect(db_copy)
    try:
        assert fingerprint(conn) == fingerprint(built_conn)
    finally:
        conn.close()


def test_reset_on_oracle_drops_instead_of_deleting(db_copy, monkeypatch):
    """The Oracle branch of reset_everything, run against the embedded engine through the same connect()."""
    monkeypatch.setenv("ORACLE_DSN", "scripted")
    conn = connect(db_copy)
    monkeypatch.setattr(reset.db, "connect", lambda: conn)
    # 7 set-up tables, 2 models, the property graph and the 15 FINANCE tables of part 04
    assert reset.reset_everything() == "reset: dropped 25 workshop object(s) on Oracle"
    assert db_copy.exists()
    conn = connect(db_copy)
    try:
        assert rows(conn, "SELECT COUNT(*) FROM user_tables") == [(0,)]
    finally:
        conn.close()


def test_cli_stops_with_advice_instead_of_a_traceback(db_copy, monkeypatch, capsys):
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(db_copy))
    monkeypatch.setenv("EMBED_MODEL", "ALL_MINILM_L12_V2")
    assert setup.main(["--no-progress"]) == 2
    assert "Set-up stopped" in capsys.readouterr().err


def test_delete_embedded_database_removes_wal_companions(tmp_path):
    path = tmp_path / "w.db"
    for suffix in ("", "-wal", "-shm"):
        (tmp_path / f"w.db{suffix}").write_bytes(b"x")
    assert [p.name for p in reset.delete_embedded_database(path)] == ["w.db", "w.db-wal", "w.db-shm"]
    assert list(tmp_path.iterdir()) == []
