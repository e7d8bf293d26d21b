"""Two processes on one file: no corruption, committed rows survive kill -9, writers wait then fail clearly."""
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import oracledb
import pytest

from tests.conftest import ROOT, ora_code


def _spawn(code: str, *args) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code), *map(str, args)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


WRITER = """
    import sys
    from workshop.embedded import connect
    conn = connect(sys.argv[1], busy_timeout=20)
    cur = conn.cursor()
    for i in range(int(sys.argv[2]), int(sys.argv[2]) + 200):
        cur.execute("INSERT INTO t VALUES (:1, :2)", [i, "p" + sys.argv[2]])
        if i % 10 == 0:
            conn.commit()
    conn.commit()
    print("done")
"""


def test_two_writers_interleave_without_corruption(conn, db_path):
    conn.cursor().execute("CREATE TABLE t (id NUMBER PRIMARY KEY, who VARCHAR2(10))")
    procs = [_spawn(WRITER, db_path, start) for start in (0, 1000)]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    cur = conn.cursor()
    cur.execute("SELECT who, COUNT(*) FROM t GROUP BY who ORDER BY who")
    assert cur.fetchall() == [("p0", 200), ("p1000", 200)]
    import sqlite3
    assert sqlite3.connect(db_path).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def test_committed_row_survives_kill_9_uncommitted_is_gone(conn, db_path):
    conn.cursor().execute("CREATE TABLE t (id NUMBER PRIMARY KEY, who VARCHAR2(10))")
    proc = _spawn("""
        import sys, time
        from workshop.embedded import connect
        conn = connect(sys.argv[1])
        cur = conn.cursor()
        cur.execute("INSERT INTO t VALUES (1, 'committed')")
        conn.commit()
        cur.execute("INSERT INTO t VALUES (2, 'pending')")
        print("ready", flush=True)
        time.sleep(60)
    """, db_path)
    assert proc.stdout.readline().strip() == "ready"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    cur = conn.cursor()
    cur.execute("SELECT id, who FROM t ORDER BY id")
    assert cur.fetchall() == [(1, "committed")]
    cur.execute("INSERT INTO t VALUES (3, 'after')")  # the killed writer's lock is gone
    conn.commit()


def test_blocked_writer_waits_then_fails_with_commit_advice(conn, db_path):
    from workshop.embedded import connect
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (id NUMBER PRIMARY KEY)")
    cur.execute("INSERT INTO t VALUES (1)")  # open transaction, not committed
    other = connect(db_path, busy_timeout=0.5)
    started = time.monotonic()
    with pytest.raises(oracledb.DatabaseError) as exc:
        other.cursor().execute("INSERT INTO t VALUES (2)")
    waited = time.monotonic() - started
    assert ora_code(exc) == 54
    assert "COMMIT" in str(exc.value) and waited >= 0.4
    # readers are never blocked, and see only committed data
    assert other.cursor().execute("SELECT COUNT(*) FROM t").fetchone() == (0,)
    conn.commit()
    other.cursor().execute("INSERT INTO t VALUES (2)")
    other.commit()
    assert cur.execute("SELECT COUNT(*) FROM t").fetchone() == (2,)
    other.close()


def test_reopen_after_close_keeps_data(db_path):
    from workshop.embedded import connect
    first = connect(db_path)
    first.cursor().execute("CREATE TABLE t (id NUMBER)")
    first.cursor().execute("INSERT INTO t VALUES (1)")
    first.commit()
    first.close()
    with pytest.raises(oracledb.InterfaceError):
        first.cursor()
    second = connect(db_path)
    assert second.cursor().execute("SELECT COUNT(*) FROM t").fetchone() == (1,)
    second.close()
