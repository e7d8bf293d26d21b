"""Claim: intervals compare, sort and fetch as Oracle's INTERVAL types (SQL Language Reference, "Datetime/Interval
Arithmetic": TIMESTAMP - TIMESTAMP is an INTERVAL DAY TO SECOND, DATE - DATE a NUMBER; "Interval Data Types").

The engine keeps an interval as text that starts with its sign ('+000000001 00:00:00.000000'), so as text
-1 day sorted after +1 day, and TIMESTAMP - TIMESTAMP was a NUMBER of days, which never compared with an interval.
python-oracledb fetches INTERVAL DAY TO SECOND as a timedelta and YEAR TO MONTH as an oracledb.IntervalYM."""
from __future__ import annotations

import datetime as dt

import oracledb
import pytest

from workshop.embedded import connect


@pytest.fixture(scope="module")
def cur(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("iv") / "iv.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE spans (id NUMBER, a TIMESTAMP, b TIMESTAMP, d1 DATE, d2 DATE)")
    cur.execute("INSERT INTO spans VALUES (1, TIMESTAMP '2026-01-02 00:00:00', TIMESTAMP '2026-01-01 12:00:00', "
                "DATE '2026-01-02', DATE '2026-01-01')")
    cur.execute("INSERT INTO spans VALUES (2, TIMESTAMP '2026-01-01 00:00:00', TIMESTAMP '2026-01-03 00:00:00', "
                "DATE '2026-01-01', DATE '2026-01-03')")
    conn.commit()
    yield cur
    conn.close()


CASES = [
    ("negative-below-positive", "SELECT 1 FROM dual WHERE INTERVAL '-1' DAY < INTERVAL '1' DAY", [(1,)]),
    ("hour-above-minutes", "SELECT 1 FROM dual WHERE INTERVAL '1' HOUR > INTERVAL '30' MINUTE", [(1,)]),
    ("years-above-months", "SELECT 1 FROM dual WHERE INTERVAL '2' YEAR > INTERVAL '13' MONTH", [(1,)]),
    ("numtods-negative", "SELECT 1 FROM dual WHERE NUMTODSINTERVAL(-5, 'DAY') < NUMTODSINTERVAL(1, 'SECOND')",
     [(1,)]),
    ("between", "SELECT 1 FROM dual WHERE INTERVAL '-2' HOUR BETWEEN INTERVAL '-3' HOUR AND INTERVAL '1' HOUR",
     [(1,)]),
    ("timestamp-difference", "SELECT id FROM spans WHERE a - b > INTERVAL '0' SECOND ORDER BY id", [(1,)]),
    ("timestamp-difference-order", "SELECT id FROM spans ORDER BY a - b", [(2,), (1,)]),
    ("timestamp-difference-value", "SELECT a - b FROM spans ORDER BY id",
     [(dt.timedelta(hours=12),), (-dt.timedelta(days=2),)]),
    ("date-difference-is-a-number", "SELECT d1 - d2 FROM spans ORDER BY id", [(1,), (-2,)]),
    ("interval-sum", "SELECT INTERVAL '1' DAY + INTERVAL '2' HOUR FROM dual", [(dt.timedelta(days=1, hours=2),)]),
    ("year-month-fetch", "SELECT INTERVAL '-1' MONTH FROM dual", [(oracledb.IntervalYM(0, -1),)]),
    ("interval-times-number", "SELECT INTERVAL '1' DAY * 3, 2 * INTERVAL '90' MINUTE, INTERVAL '1' DAY / 4 FROM dual",
     [(dt.timedelta(days=3), dt.timedelta(hours=3), dt.timedelta(hours=6))]),
    ("scaled-compare", "SELECT 1 FROM dual WHERE INTERVAL '1' DAY * 2 > INTERVAL '47' HOUR", [(1,)]),
    ("year-month-times", "SELECT INTERVAL '7' MONTH * 2 FROM dual", [(oracledb.IntervalYM(1, 2),)]),
]


@pytest.mark.parametrize("sql, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_intervals_compare_sort_and_fetch_as_oracle_types(cur, sql, expected):
    assert cur.execute(sql).fetchall() == expected


def test_an_interval_difference_is_described_as_an_interval(cur):
    cur.execute("SELECT a - b, d1 - d2, INTERVAL '1' YEAR FROM spans WHERE id = 1")
    assert [d[1] for d in cur.description] == [oracledb.DB_TYPE_INTERVAL_DS, oracledb.DB_TYPE_NUMBER,
                                               oracledb.DB_TYPE_INTERVAL_YM]


@pytest.mark.parametrize("sql, code", [
    ("SELECT 1 FROM dual WHERE INTERVAL '1' DAY > INTERVAL '1' YEAR", 932),          # two interval types
    ("SELECT INTERVAL '1' DAY + INTERVAL '1' YEAR FROM dual", 30081),
    ("SELECT INTERVAL '1' DAY * INTERVAL '1' DAY FROM dual", 30081),
])
def test_day_to_second_and_year_to_month_do_not_mix(cur, sql, code):
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute(sql)
    assert info.value.args[0].code == code


def test_the_clock_is_read_once_per_statement(cur):
    """SYSTIMESTAMP gives one value to every row and call in a statement (it was read per call: the difference
    below came out a few microseconds short of 10 days), and a new value to the next statement."""
    assert cur.execute("SELECT SYSTIMESTAMP - (SYSTIMESTAMP - INTERVAL '10' DAY) FROM dual").fetchall() == \
        [(dt.timedelta(days=10),)]
    assert cur.execute("SELECT COUNT(DISTINCT TO_CHAR(SYSTIMESTAMP, 'HH24:MI:SS.FF6')), COUNT(DISTINCT SYSDATE) "
                       "FROM (SELECT LEVEL FROM dual CONNECT BY LEVEL <= 5000)").fetchall() == [(1, 1)]
    first = cur.execute("SELECT SYSTIMESTAMP FROM dual").fetchone()[0]
    later = cur.execute("SELECT SYSTIMESTAMP FROM dual WHERE EXISTS (SELECT 1 FROM dual "
                        "CONNECT BY LEVEL <= 2000)").fetchone()[0]
    assert later > first


def test_each_statement_of_a_block_reads_the_clock_afresh(tmp_path):
    """Oracle reads the clock per SQL statement, also inside a PL/SQL block."""
    conn = connect(tmp_path / "clock.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE ticks (n NUMBER, at TIMESTAMP(6))")
    cur.execute("""BEGIN
                     EXECUTE IMMEDIATE 'INSERT INTO ticks VALUES (1, SYSTIMESTAMP)';
                     EXECUTE IMMEDIATE 'INSERT INTO ticks SELECT 2, SYSTIMESTAMP FROM dual CONNECT BY LEVEL <= 3000';
                   END;""")
    assert cur.execute("SELECT COUNT(DISTINCT at) FROM ticks").fetchone() == (2,)
    conn.close()
