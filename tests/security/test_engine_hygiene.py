"""Engine hygiene the attacks found, and what already held but was untested.

* DDL after another session's DDL sees the committed catalog (it gave ORA-00942);
* `Cursor.parse` and `Connection.gettype` raise only oracledb exceptions (a raw EngineError / IndexError leaked);
* `SAVEPOINT a;b` is refused (the engine silently made savepoint A and dropped the rest);
* the agent-memory search refuses an empty query with the memory helpers' ValueError;
* several writer processes at once lose nothing; `kill -9` in the middle of committing leaves an intact file whose
  committed state is all-or-nothing per transaction.
"""
from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time

import oracledb
import pytest

from tests.conftest import ROOT, ora_code
from workshop.embedded import connect

# ------------------------------------------------------------------------------ DDL after another session's DDL
DDL_ON_NEW_TABLE = {
    "create-index": "CREATE INDEX fresh_ix ON fresh (v)",
    "create-view": "CREATE VIEW fresh_v AS SELECT * FROM fresh",
    "create-unique-index": "CREATE UNIQUE INDEX fresh_ux ON fresh (v)",
    "alter-add": "ALTER TABLE fresh ADD (w NUMBER)",
    "comment-on": "COMMENT ON TABLE fresh IS 'seen'",
    "create-text-index": "CREATE INDEX fresh_ctx ON fresh (v) INDEXTYPE IS CTXSYS.CONTEXT",
    "create-graph": "CREATE PROPERTY GRAPH fresh_g VERTEX TABLES (fresh KEY (id))",
    "drop-table": "DROP TABLE fresh",
}


@pytest.mark.parametrize("case", sorted(DDL_ON_NEW_TABLE))
def test_ddl_sees_another_sessions_committed_table(db_path, case):
    late = connect(db_path, busy_timeout=2)
    late.cursor().execute("SELECT 1 FROM dual")            # its catalog is loaded before the table exists
    other = connect(db_path, busy_timeout=2)
    other.cursor().execute("CREATE TABLE fresh (id NUMBER PRIMARY KEY, v VARCHAR2(20))")
    late.cursor().execute(DDL_ON_NEW_TABLE[case])
    if case != "drop-table":
        assert late.cursor().execute("SELECT COUNT(*) FROM fresh").fetchone() == (0,)
    other.close()
    late.close()


# ------------------------------------------------------------------------------ only oracledb exceptions
PARSE_INPUTS = {
    "empty": "", "blank": "   ", "nul": "\x00", "garbage": "SELEC 1", "select-from": "SELECT FROM",
    "unfinished-where": "SELECT 1 FROM dual WHERE", "unknown-table": "SELECT * FROM no_such_table",
    "open-values": "INSERT INTO t VALUES (", "dangling-op": "SELECT :1 +", "merge": "MERGE", "with": "WITH",
    "connect-by": "SELECT 1 FROM dual CONNECT BY 1 = 1", "unbalanced-quote": "SELECT 'x FROM dual",
    "unbalanced-ident": 'SELECT "x FROM dual', "two-statements": "SELECT 1 FROM dual; SELECT 2 FROM dual",
    "terminator": "SELECT 1 FROM dual;", "deep": "SELECT " + "(" * 400 + "1" + ")" * 400 + " FROM dual",
    "only-comment": "/* nothing */", "bad-bind": "SELECT :  FROM dual",
}


@pytest.mark.parametrize("case", sorted(PARSE_INPUTS))
def test_parse_raises_only_oracledb_errors(cur, case):
    try:
        cur.parse(PARSE_INPUTS[case])
    except oracledb.Error:
        pass


def test_parse_checks_without_running(cur):
    cur.execute("CREATE TABLE p (id NUMBER)")
    cur.parse("INSERT INTO p VALUES (1)")
    cur.parse("SELECT id FROM p")
    assert cur.execute("SELECT COUNT(*) FROM p").fetchone() == (0,)
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.parse("SELEC 1")
    assert ora_code(exc) == 900


@pytest.mark.parametrize("name", ["X", "", None, 5, b"X", "SYS.VECTOR", "MDSYS.SDO_GEOMETRY", "A.B.C", "a" * 5000,
                                  "'; DROP TABLE t; --", "\x00"])
def test_gettype_raises_only_oracledb_errors(conn, name):
    with pytest.raises(oracledb.Error):
        conn.gettype(name)


# ------------------------------------------------------------------------------ savepoints take one name
SAVEPOINT_PAYLOADS = ["SAVEPOINT a;b", "SAVEPOINT a b", "SAVEPOINT a; DELETE FROM sp", "SAVEPOINT a, b",
                      "SAVEPOINT", "ROLLBACK TO a;b", "ROLLBACK TO SAVEPOINT a b"]


@pytest.mark.parametrize("sql", SAVEPOINT_PAYLOADS)
def test_savepoint_takes_exactly_one_name(cur, sql):
    """SQL Language Reference, SAVEPOINT / ROLLBACK: `SAVEPOINT savepoint`, one identifier; python-oracledb sends
    one statement, so what follows the name is a syntax error on Oracle (ORA-00933), not a second statement."""
    cur.execute("CREATE TABLE sp (id NUMBER)")
    cur.execute("INSERT INTO sp VALUES (1)")
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute(sql)
    assert ora_code(exc) == 933
    assert cur.execute("SELECT COUNT(*) FROM sp").fetchone() == (1,)
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("ROLLBACK TO b")
    assert ora_code(exc) == 1086


def test_savepoints_still_work(cur):
    cur.execute("CREATE TABLE sp (id NUMBER)")
    cur.execute("INSERT INTO sp VALUES (1)")
    cur.execute("SAVEPOINT a")
    cur.execute("INSERT INTO sp VALUES (2)")
    cur.execute('SAVEPOINT "b c"')
    cur.execute("INSERT INTO sp VALUES (3)")
    cur.execute('ROLLBACK TO "b c"')
    assert cur.execute("SELECT COUNT(*) FROM sp").fetchone() == (2,)
    cur.execute("ROLLBACK WORK TO SAVEPOINT a")
    assert cur.execute("SELECT COUNT(*) FROM sp").fetchone() == (1,)


# ------------------------------------------------------------------------------ agent memory: empty query
@pytest.mark.parametrize("query, error", [("", ValueError), ("   ", ValueError), ("\n\t", ValueError),
                                          (None, TypeError), (42, TypeError)])
def test_agent_memory_search_refuses_an_empty_query_like_the_other_helpers(conn, query, error):
    from workshop.agent_memory import store
    from workshop.memory.records import require_text
    with pytest.raises(error) as raised:
        store.vector_search(conn, query, user_id="u", agent_id="a", model="ALL_MINILM_L6_V2")
    with pytest.raises(error) as expected:
        require_text(query, "query")
    assert str(raised.value) == str(expected.value)


# ------------------------------------------------------------------------------ processes
def _python(code: str, *args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TOKENIZERS_PARALLELISM="false")
    return subprocess.Popen([sys.executable, "-c", code, *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


WRITER = """
import sys
from workshop.embedded import connect
path, writer, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
conn = connect(path, busy_timeout=60)
cur = conn.cursor()
for i in range(n):
    cur.execute("INSERT INTO w (writer, seq, note) VALUES (:1, :2, :3)", [writer, i, "x" * 200])
    if i % 3 == 2:
        cur.execute("UPDATE w SET note = 'u' WHERE writer = :1 AND seq = :2", [writer, i - 1])
    conn.commit()
print("done", flush=True)
"""


def test_concurrent_writer_processes_lose_nothing(db_path):
    conn = connect(db_path, busy_timeout=5)
    conn.cursor().execute("CREATE TABLE w (writer NUMBER, seq NUMBER, note VARCHAR2(300), PRIMARY KEY (writer, seq))")
    conn.close()
    writers, per_writer = 3, 25
    procs = [_python(WRITER, str(db_path), str(w), str(per_writer)) for w in range(writers)]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0 and "done" in out, err[-2000:]
    conn = connect(db_path, busy_timeout=5)
    cur = conn.cursor()
    assert cur.execute("SELECT writer, COUNT(*), COUNT(DISTINCT seq) FROM w GROUP BY writer ORDER BY writer").fetchall() \
        == [(w, per_writer, per_writer) for w in range(writers)]
    assert cur.execute("SELECT COUNT(*) FROM w WHERE note = 'u'").fetchone() == (writers * (per_writer // 3),)
    conn.close()


BATCHER = """
import sys
from workshop.embedded import connect
path, first, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
conn = connect(path, busy_timeout=60)
cur = conn.cursor()
batch = first
while True:
    cur.executemany("INSERT INTO b (batch, n, payload) VALUES (:1, :2, :3)",
                    [(batch, i, "p" * 500) for i in range(size)])
    cur.execute("UPDATE b_total SET batches = batches + 1, rows_ = rows_ + :1", [size])
    conn.commit()
    print(batch, flush=True)
    batch += 1
"""


def test_kill_9_while_committing_leaves_all_or_nothing(db_path):
    """A writer process commits batches (rows + a running total in one transaction) and is killed with SIGKILL
    at arbitrary moments, twice. The file stays intact, every batch is there whole or not at all, the total
    agrees with the rows, and every batch the process reported committed is there."""
    conn = connect(db_path, busy_timeout=5)
    cur = conn.cursor()
    cur.execute("CREATE TABLE b (batch NUMBER, n NUMBER, payload VARCHAR2(600), PRIMARY KEY (batch, n))")
    cur.execute("CREATE TABLE b_total (batches NUMBER, rows_ NUMBER)")
    cur.execute("INSERT INTO b_total VALUES (0, 0)")
    conn.commit()
    conn.close()
    size, reported, first = 300, [], 0
    for delay in (0.35, 0.8):
        proc = _python(BATCHER, str(db_path), str(first), str(size))
        started = time.monotonic()
        line = proc.stdout.readline()               # wait until it committed once (imports done)
        assert line.strip(), proc.stderr.read()[-2000:]
        reported.append(int(line))
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate(timeout=30)
        reported += [int(x) for x in out.split()]
        assert proc.returncode == -signal.SIGKILL and time.monotonic() - started < 120
        first = max(reported) + 1000              # the next writer's batches never collide with a half-written one
    raw = sqlite3.connect(str(db_path))
    assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    raw.close()
    conn = connect(db_path, busy_timeout=5)
    cur = conn.cursor()
    per_batch = cur.execute("SELECT batch, COUNT(*) FROM b GROUP BY batch").fetchall()
    assert all(count == size for _, count in per_batch), per_batch
    assert set(reported) <= {batch for batch, _ in per_batch}
    assert cur.execute("SELECT batches, rows_ FROM b_total").fetchone() == (len(per_batch), len(per_batch) * size)
    cur.execute("INSERT INTO b (batch, n) VALUES (-1, 0)")           # and the file takes writes again
    conn.commit()
    conn.close()
