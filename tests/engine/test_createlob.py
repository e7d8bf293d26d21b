"""Connection.createlob: temporary LOBs (python-oracledb's API; langgraph-oracledb binds BLOBs through them)."""
from __future__ import annotations

import oracledb
import pytest

from workshop.embedded import connect


def test_a_temporary_blob_is_written_read_and_bound(tmp_path):
    conn = connect(tmp_path / "lob.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE b (id NUMBER, data BLOB)")
    lob = conn.createlob(oracledb.DB_TYPE_BLOB)
    lob.write(b"hello")
    lob.write(b"J", 1)
    assert lob.read() == b"Jello" and lob.size() == 5
    cur.executemany("INSERT INTO b VALUES (:id, :data)", [{"id": 1, "data": lob}])
    cur.execute("SELECT data FROM b")
    assert cur.fetchone()[0].read() == b"Jello"
    conn.close()


def test_a_temporary_clob_takes_text_only(tmp_path):
    conn = connect(tmp_path / "lob.db")
    lob = conn.createlob(oracledb.DB_TYPE_CLOB, "abc")
    assert lob.read() == "abc"
    with pytest.raises(TypeError):
        lob.write(b"bytes")
    with pytest.raises(oracledb.NotSupportedError):
        conn.createlob(oracledb.DB_TYPE_NUMBER)
    conn.close()
