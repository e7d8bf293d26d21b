"""CTX_DDL.SYNC_INDEX is Oracle Text's procedure; an index built on a text index (the hybrid vector index)
hears about each sync through EngineHooks.on_sync_index instead of wrapping the procedure."""
from __future__ import annotations

import pytest

from workshop.embedded.engine import Engine
from workshop.embedded.text_support import OracleText


class SyncRecorder:
    """A toy plug-in that records what CTX_DDL.SYNC_INDEX tells it."""

    name = "sync-recorder"

    def __init__(self):
        self.heard: list[tuple[str, bool]] = []

    def install(self, engine: Engine) -> None:
        engine.hooks.on_sync_index.append(lambda conn, name: self.heard.append((name, conn.in_transaction)))


@pytest.fixture
def text_engine(tmp_path):
    recorder = SyncRecorder()
    engine = Engine(tmp_path / "t.db", plugins=(OracleText(), recorder))
    engine.execute("CREATE TABLE notes (id NUMBER PRIMARY KEY, t VARCHAR2(100))")
    engine.execute("CREATE INDEX notes_ctx ON notes (t) INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (MANUAL)')")
    engine.execute("INSERT INTO notes VALUES (1, 'alpha beta')")
    engine.commit()
    yield engine, recorder
    engine.close()


def test_each_sync_tells_the_hooks_the_index_inside_its_transaction(text_engine):
    engine, recorder = text_engine
    query = "SELECT id FROM notes WHERE CONTAINS(t, 'alpha') > 0 ORDER BY id"
    assert engine.execute(query).rows == []
    engine.execute("BEGIN CTX_DDL.SYNC_INDEX('notes_ctx'); END;")
    assert engine.execute(query).rows == [(1,)]
    engine.execute("BEGIN CTX_DDL.SYNC_INDEX(idx_name => 'WORKSHOP.NOTES_CTX'); END;")
    assert recorder.heard == [("NOTES_CTX", True), ("NOTES_CTX", True)]
    assert not engine.in_txn          # SYNC_INDEX commits, after its hooks ran


def test_a_failed_sync_tells_no_hook(text_engine):
    import oracledb

    engine, recorder = text_engine
    with pytest.raises(oracledb.DatabaseError):
        engine.execute("BEGIN CTX_DDL.SYNC_INDEX('no_such_index'); END;")
    assert recorder.heard == []


def test_the_hybrid_plugin_hooks_the_sync_instead_of_wrapping_it(tmp_path):
    from workshop.embedded import connect

    conn = connect(tmp_path / "all.db")
    try:
        hooks = conn._engine.hooks
        assert hooks.procedures["CTX_DDL.SYNC_INDEX"].__module__ == "workshop.embedded.text_support"
        assert [hook.__module__ for hook in hooks.on_sync_index] == ["workshop.embedded.hybrid"]
    finally:
        conn.close()
