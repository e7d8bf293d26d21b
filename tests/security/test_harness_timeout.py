"""The time limit of query_finance (issue 19, claim: a call has a time limit besides its row cap).

The limit is python-oracledb's `Connection.call_timeout` (milliseconds a round trip may take; DPY-4024 "call
timeout of N ms exceeded" when it runs out, the connection stays usable), set for the one call and restored
after it. The embedded connection used to accept call_timeout and ignore it; it now interrupts the statement.
"""
from __future__ import annotations

import time

import oracledb
import pytest

from tests.security.harness_support import pair, small_db  # noqa: F401 - fixtures
from workshop.harness.guard import run_readonly_query
from workshop.harness.runlog import read_events
from workshop.harness.runner import Answer, Call, Harness, ScriptedPlanner

# 300^4 rows: about a minute without a limit. (300^3 took 0.19 s on a quiet 2-core machine, under the 200 ms limit:
# SQLite counts a bare cross join fast, and the test passed only when the machine was loaded.)
CROSS_JOIN = "SELECT COUNT(*) AS n FROM big a, big b, big c, big d"


@pytest.fixture(scope="module")
def big_table(small_db):
    from workshop.embedded import connect
    conn = connect(small_db)
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_tables WHERE table_name = 'BIG'")
        if cur.fetchone()[0] == 0:
            cur.execute("CREATE TABLE big (n NUMBER)")
            cur.executemany("INSERT INTO big (n) VALUES (:1)", [(i,) for i in range(300)])
    conn.commit()
    conn.close()
    return "BIG"


def test_a_cross_join_ends_at_the_call_timeout_and_the_session_stays_usable(pair, big_table):
    _, ro = pair
    ro.call_timeout = 0
    started = time.monotonic()
    with pytest.raises(oracledb.DatabaseError, match="DPY-4024"):
        run_readonly_query(ro, CROSS_JOIN, [big_table], timeout_ms=200)
    assert time.monotonic() - started < 3
    assert ro.call_timeout == 0                               # restored after the call
    assert run_readonly_query(ro, "SELECT COUNT(*) AS n FROM big", [big_table], timeout_ms=200) == [{"n": 300}]


def test_the_embedded_connection_honours_call_timeout_like_python_oracledb(pair, big_table):
    _, ro = pair
    ro.call_timeout = 150
    try:
        with pytest.raises(oracledb.DatabaseError) as excinfo:
            ro.cursor().execute(CROSS_JOIN)
        assert excinfo.value.args[0].full_code == "DPY-4024"
        assert ro.cursor().execute("SELECT COUNT(*) FROM big").fetchone() == (300,)
    finally:
        ro.call_timeout = 0


def test_the_harness_records_a_timed_out_call_as_a_failed_call(pair, big_table):
    rw, ro = pair
    tools = {"query_finance": lambda sql, max_rows=20: run_readonly_query(ro, sql, [big_table], max_rows,
                                                                         timeout_ms=200)}
    harness = Harness(ro, rw, allowed=["query_finance"], tools=tools)
    planner = ScriptedPlanner([[Call("query_finance", {"sql": CROSS_JOIN})],
                               [Call("query_finance", {"sql": "SELECT COUNT(*) AS n FROM big"})], Answer("done")])
    result = harness.run("count everything", planner)
    statuses = [e["status"] for e in read_events(rw, result.run_id) if e["kind"] == "TOOL"]
    assert statuses == ["timeout", "success"] and result.status == "completed"


@pytest.mark.parametrize("timeout_ms", [0, -1, 2.5, "100", True], ids=["zero", "negative", "float", "text", "bool"])
def test_the_time_limit_is_a_positive_int(pair, big_table, timeout_ms):
    _, ro = pair
    with pytest.raises(ValueError):
        run_readonly_query(ro, "SELECT COUNT(*) FROM big", [big_table], timeout_ms=timeout_ms)
