"""A read-only session: the engine refuses writes with ORA-01031, as Oracle does for a user holding only SELECT grants."""
from __future__ import annotations

import oracledb
import pytest

from workshop import db
from workshop.embedded import connect


@pytest.fixture
def files(tmp_path):
    path = tmp_path / "ro.db"
    rw = connect(path)
    cur = rw.cursor()
    cur.execute("CREATE TABLE t (id NUMBER PRIMARY KEY, v VARCHAR2(20))")
    cur.execute("INSERT INTO t VALUES (1, 'a')")
    rw.commit()
    ro = connect(path, readonly=True)
    yield rw, ro
    ro.close()
    rw.close()


WRITES = [
    "INSERT INTO t VALUES (2, 'b')",
    "UPDATE t SET v = 'x'",
    "DELETE FROM t",
    "MERGE INTO t USING dual ON (1 = 1) WHEN MATCHED THEN UPDATE SET v = 'm'",
    "DROP TABLE t",
    "CREATE TABLE u (id NUMBER)",
    "TRUNCATE TABLE t",
    "ALTER TABLE t ADD (w NUMBER)",
    "SELECT * FROM t FOR UPDATE",
    "select id from t\n  for   update nowait",
    "BEGIN EXECUTE IMMEDIATE 'DELETE FROM t'; END;",
    "/* just a query */ DELETE FROM t",
]


@pytest.mark.parametrize("sql", WRITES)
def test_every_write_fails_with_ora_01031(files, sql):
    rw, ro = files
    with pytest.raises(oracledb.DatabaseError) as info:
        ro.cursor().execute(sql)
    assert info.value.args[0].code == 1031
    assert "ORA-01031" in str(info.value)
    with rw.cursor() as cur:
        cur.execute("SELECT id, v FROM t ORDER BY id")
        assert cur.fetchall() == [(1, "a")]


def test_executemany_is_refused(files):
    _, ro = files
    with pytest.raises(oracledb.DatabaseError, match="ORA-01031"):
        ro.cursor().executemany("INSERT INTO t VALUES (:1, :2)", [(3, "c")])


def test_queries_and_transaction_control_run(files):
    rw, ro = files
    cur = ro.cursor()
    cur.execute("WITH x AS (SELECT id FROM t) SELECT COUNT(*) FROM x")
    assert cur.fetchone() == (1,)
    cur.execute("SELECT 'update' AS word FROM dual")           # the word inside a string is not a write
    assert cur.fetchone() == ("update",)
    ro.commit()
    ro.rollback()
    assert ro.readonly and not rw.readonly


def test_workshop_connect_passes_readonly(tmp_path, monkeypatch):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(tmp_path / "w.db"))
    conn = db.connect(readonly=True)
    try:
        with pytest.raises(oracledb.DatabaseError, match="ORA-01031"):
            conn.cursor().execute("CREATE TABLE z (id NUMBER)")
    finally:
        conn.close()


def test_oracle_readonly_needs_its_own_user(monkeypatch):
    monkeypatch.setenv("ORACLE_DSN", "localhost:1521/FREEPDB1")
    monkeypatch.setenv("ORACLE_USER", "workshop")
    monkeypatch.setenv("ORACLE_PASSWORD", "x")
    monkeypatch.delenv("ORACLE_READONLY_USER", raising=False)
    with pytest.raises(RuntimeError, match="ORACLE_READONLY_USER"):
        db.connect(readonly=True)
