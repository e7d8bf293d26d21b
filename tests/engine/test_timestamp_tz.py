"""Claim: TIMESTAMP WITH TIME ZONE values compare, sort and aggregate by their instant in UTC, as on Oracle
(Globalization Support Guide, "TIMESTAMP WITH TIME ZONE Data Type": two values are identical if they represent the
same instant in UTC, whatever offsets they hold; SQL Language Reference, "Datetime Comparisons": a DATE or TIMESTAMP
compared with one is converted to it in the session time zone).

The engine stores such a value as text with its offset ('2026-01-01 10:00:00.000000+02:00'), which SQLite would
compare and sort as text: 10:00 +02:00 (08:00 UTC) after 09:00 +00:00. Attack table: every place a comparison or an
ordering reaches such a value."""
from __future__ import annotations

import datetime as dt

import pytest

from workshop.embedded import connect
from workshop.embedded.values import local_tz

PLUS2 = dt.timezone(dt.timedelta(hours=2))
MINUS5 = dt.timezone(dt.timedelta(hours=-5))
#: id -> instant: 1 is 08:00 UTC written at +02:00, 2 is 09:00 UTC, 3 is 10:00 UTC written at -05:00
ROWS = [(1, dt.datetime(2026, 1, 1, 10, 0, tzinfo=PLUS2)), (2, dt.datetime(2026, 1, 1, 9, 0, tzinfo=dt.timezone.utc)),
        (3, dt.datetime(2026, 1, 1, 5, 0, tzinfo=MINUS5))]
UTC = dt.timezone.utc


def utc(hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime(2026, 1, 1, hour, minute, tzinfo=UTC)


@pytest.fixture(scope="module")
def cur(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("tstz") / "tstz.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE ev (id NUMBER, at TIMESTAMP WITH TIME ZONE, naive TIMESTAMP)")
    for i, at in ROWS:
        naive = at.astimezone(local_tz()).replace(tzinfo=None)      # the same instant, in the session time zone
        cur.execute("INSERT INTO ev VALUES (:1, :2, :3)", [i, at, naive])
    conn.commit()
    yield cur
    conn.close()


TSTZ = "TO_TIMESTAMP_TZ('{}', 'YYYY-MM-DD HH24:MI:SS TZH:TZM')"
CASES = [
    ("order-by", "SELECT id FROM ev ORDER BY at", {}, [1, 2, 3]),
    ("order-by-desc", "SELECT id FROM ev ORDER BY at DESC", {}, [3, 2, 1]),
    ("order-by-alias", "SELECT id FROM (SELECT id, at AS t FROM ev ORDER BY t)", {}, [1, 2, 3]),
    ("order-by-alias-expression", "SELECT id FROM (SELECT id, at AS t FROM ev ORDER BY t DESC, id)", {}, [3, 2, 1]),
    ("lt-bind", "SELECT id FROM ev WHERE at < :t ORDER BY id", {"t": utc(8, 30)}, [1]),
    ("lt-bind-other-zone", "SELECT id FROM ev WHERE at < :t ORDER BY id",
     {"t": dt.datetime(2026, 1, 1, 4, 30, tzinfo=MINUS5)}, [1, 2]),           # 09:30 UTC
    ("eq-same-instant", f"SELECT id FROM ev WHERE at = {TSTZ.format('2026-01-01 08:00:00 +00:00')}", {}, [1]),
    ("eq-bind", "SELECT id FROM ev WHERE at = :t", {"t": dt.datetime(2026, 1, 1, 3, 0, tzinfo=MINUS5)}, [1]),
    ("neq", f"SELECT id FROM ev WHERE at <> {TSTZ.format('2026-01-01 15:00:00 +05:00')} ORDER BY id", {}, [1, 2]),
    ("ge", f"SELECT id FROM ev WHERE at >= {TSTZ.format('2026-01-01 11:00:00 +02:00')} ORDER BY id", {}, [2, 3]),
    ("column-pair", "SELECT a.id, b.id FROM ev a, ev b WHERE a.at < b.at ORDER BY 1, 2", {},
     [(1, 2), (1, 3), (2, 3)]),
    ("between", "SELECT id FROM ev WHERE at BETWEEN :a AND :b ORDER BY id",
     {"a": utc(8, 30).astimezone(MINUS5), "b": utc(9, 30).astimezone(MINUS5)}, [2]),
    ("in-list", f"SELECT id FROM ev WHERE at IN ({TSTZ.format('2026-01-01 10:00:00 +00:00')}, :t) ORDER BY id",
     {"t": dt.datetime(2026, 1, 1, 11, 0, tzinfo=dt.timezone(dt.timedelta(hours=3)))}, [1, 3]),
    ("against-timestamp", "SELECT a.id FROM ev a, ev b WHERE b.id = 2 AND a.at < b.naive ORDER BY 1", {}, [1]),
    ("timestamp-against", "SELECT a.id FROM ev a, ev b WHERE b.id = 2 AND a.naive > b.at ORDER BY 1", {}, [3]),
    ("against-systimestamp", "SELECT id FROM ev WHERE at < SYSTIMESTAMP ORDER BY id", {}, [1, 2, 3]),
    ("min", "SELECT MIN(at) FROM ev", {}, [ROWS[0][1]]),
    ("max", "SELECT MAX(at) FROM ev", {}, [ROWS[2][1]]),
    ("min-group", "SELECT MIN(at) FROM ev GROUP BY 1", {}, [ROWS[0][1]]),          # GROUP BY 1: a constant
    ("max-window", "SELECT DISTINCT MAX(at) OVER () FROM ev", {}, [ROWS[2][1]]),
    ("row-number", "SELECT id FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY at) rn FROM ev) WHERE rn = 1", {}, [1]),
    ("listagg-order", "SELECT LISTAGG(id, ',') WITHIN GROUP (ORDER BY at) FROM ev", {}, ["1,2,3"]),
    ("fetch-first", "SELECT id FROM ev ORDER BY at FETCH FIRST 1 ROWS ONLY", {}, [1]),
    ("null-bind", "SELECT id FROM ev WHERE at < :t", {"t": None}, []),
]


@pytest.mark.parametrize("sql, binds, expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_timestamps_with_time_zones_compare_by_instant(cur, sql, binds, expected):
    rows = cur.execute(sql, binds).fetchall()
    got = [r if len(r) > 1 else r[0] for r in rows]
    assert got == expected


def test_min_keeps_the_values_own_offset(cur):
    value = cur.execute("SELECT MIN(at) FROM ev").fetchone()[0]
    assert value.utcoffset() == dt.timedelta(hours=2)


def test_plain_timestamps_still_compare_as_they_did(cur):
    """Only comparisons that involve a zone change: TIMESTAMP with TIMESTAMP stays a plain comparison."""
    cur.execute("SELECT id FROM ev WHERE naive < :t ORDER BY naive", t=utc(9, 30).astimezone(local_tz()).replace(
        tzinfo=None))
    assert [r[0] for r in cur.fetchall()] == [1, 2]
    plan = cur.connection._engine.plan_for("SELECT id FROM ev WHERE naive < naive ORDER BY naive", ["SELECT"])
    assert "SYS_EXTRACT_UTC" not in plan.sql


# --------------------------------------------------------------------------- DATE against TIMESTAMP
@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """d is a DATE and ts a TIMESTAMP: row 1 holds the same instant in both, row 2 a TIMESTAMP half a second on."""
    conn = connect(tmp_path_factory.mktemp("mixed") / "mixed.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE m (id NUMBER, d DATE, ts TIMESTAMP, tz TIMESTAMP WITH TIME ZONE)")
    cur.execute("INSERT INTO m VALUES (1, DATE '2026-01-01', TIMESTAMP '2026-01-01 00:00:00', :z)",
                z=dt.datetime(2026, 1, 1, 12, 0, tzinfo=PLUS2))
    cur.execute("INSERT INTO m VALUES (2, TO_DATE('2026-01-01 10:00:00', 'YYYY-MM-DD HH24:MI:SS'), "
                "TIMESTAMP '2026-01-01 10:00:00.5', :z)", z=dt.datetime(2026, 1, 1, 11, 0, tzinfo=UTC))
    conn.commit()
    yield cur
    conn.close()


MIXED = [
    ("eq", "SELECT id FROM m WHERE d = ts", [1]),                  # as text, '... 00:00:00' <> '... 00:00:00.000000'
    ("lt", "SELECT id FROM m WHERE d < ts", [2]),
    ("gt-reversed", "SELECT id FROM m WHERE ts > d", [2]),
    ("ge-literal", "SELECT id FROM m WHERE d >= TIMESTAMP '2026-01-01 00:00:00' ORDER BY id", [1, 2]),
    ("in", "SELECT id FROM m WHERE d IN (ts)", [1]),
    ("between", "SELECT id FROM m WHERE d BETWEEN ts AND ts", [1]),
    ("date-literal", "SELECT id FROM m WHERE ts = DATE '2026-01-01'", [1]),
    ("greatest-date-first", "SELECT id FROM m WHERE GREATEST(d, ts) = d ORDER BY id", [1, 2]),   # a DATE: no .5
    ("least-timestamp-first", "SELECT TO_CHAR(LEAST(ts, d), 'HH24:MI:SS.FF3') FROM m WHERE id = 2",
     ["10:00:00.000"]),
    ("greatest-tz", "SELECT id FROM m WHERE GREATEST(tz, :t) = tz ORDER BY id", [2]),   # 10:00 UTC < 11:00 UTC
]


@pytest.mark.parametrize("sql, expected", [c[1:] for c in MIXED], ids=[c[0] for c in MIXED])
def test_a_date_meets_a_timestamp_as_a_timestamp(mixed, sql, expected):
    """SQLRF "Datetime Comparisons": a DATE compared with a TIMESTAMP is converted to TIMESTAMP; GREATEST and LEAST
    convert every argument to the first one's type."""
    binds = {"t": dt.datetime(2026, 1, 1, 10, 30, tzinfo=UTC)} if ":t" in sql else {}
    assert [r[0] for r in mixed.execute(sql, binds).fetchall()] == expected


def test_group_by_groups_one_instant_written_at_two_offsets(tmp_path):
    """Two offsets of one instant are one group on Oracle (the select list shows one of the group's values)."""
    conn = connect(tmp_path / "g.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE g (at TIMESTAMP WITH TIME ZONE)")
    cur.executemany("INSERT INTO g VALUES (:1)", [(utc(8),), (dt.datetime(2026, 1, 1, 10, 0, tzinfo=PLUS2),),
                                                    (utc(9),)])
    rows = cur.execute("SELECT at, COUNT(*) FROM g GROUP BY at ORDER BY at").fetchall()
    assert [(r[0].astimezone(UTC), r[1]) for r in rows] == [(utc(8), 2), (utc(9), 1)]
    assert cur.execute("SELECT COUNT(*) FROM (SELECT at FROM g GROUP BY at)").fetchone() == (2,)
    conn.close()
