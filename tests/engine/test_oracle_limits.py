"""Oracle's server-side limits where the engine used to be lenient (issue 8, item 2)."""
from __future__ import annotations

import datetime as dt

import oracledb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ora_code


@pytest.mark.parametrize("sql, code", [
    ("SELECT 1 FROM dual;", 933),
    ("SELECT 1 FROM dual;;", 933),
    ("SELECT 1 FROM dual ; -- done", 933),
    ("INSERT INTO lim (id) VALUES (1);", 933),
    ("UPDATE lim SET id = 2;", 933),
    ("CREATE TABLE lim2 (id NUMBER);", 922),
    ("DROP TABLE lim;", 922),
    ("SELECT 1 FROM dual /", 936),
])
def test_a_statement_terminator_is_a_syntax_error(cur, sql, code):
    cur.execute("CREATE TABLE lim (id NUMBER)")
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute(sql)
    assert ora_code(exc) == code


def test_plsql_keeps_its_semicolons(cur):
    cur.execute("BEGIN NULL; END;")
    cur.execute("SELECT ';' FROM dual")  # a ';' inside a literal is text
    assert cur.fetchone() == (";",)


def test_a_text_literal_over_4000_bytes_is_ora_01704(cur):
    cur.execute("SELECT LENGTH('" + "x" * 4000 + "') FROM dual")
    assert cur.fetchone() == (4000,)
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("SELECT '" + "x" * 4001 + "' FROM dual")
    assert ora_code(exc) == 1704
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("SELECT '" + "é" * 2001 + "' FROM dual")  # 4,002 bytes in 2,001 characters
    assert ora_code(exc) == 1704
    cur.execute("SELECT LENGTH(:t) FROM dual", t="x" * 20000)  # binds are not literals
    assert cur.fetchone() == (20000,)


def test_timestamp_precision_defaults(cur):
    cur.execute("CREATE TABLE ts (id NUMBER, a TIMESTAMP(3) DEFAULT CURRENT_TIMESTAMP(3), "
                "b TIMESTAMP DEFAULT LOCALTIMESTAMP(0))")
    cur.execute("INSERT INTO ts (id) VALUES (1)")
    a, b = cur.execute("SELECT a, b FROM ts").fetchone()
    assert a.microsecond % 1000 == 0 and b.microsecond == 0


@pytest.mark.parametrize("call, digits", [("SYSTIMESTAMP(3)", 3), ("SYSTIMESTAMP(0)", 0),
                                           ("LOCALTIMESTAMP(2)", 2), ("CURRENT_TIMESTAMP(3)", 3)],
                         ids=["systimestamp3", "systimestamp0", "localtimestamp2", "current_timestamp3"])
def test_timestamp_functions_take_a_precision(cur, call, digits):
    """Oracle schemas write DEFAULT SYSTIMESTAMP(3) and INSERT ... SYSTIMESTAMP(3): accepted, p fractional digits."""
    cur.execute(f"CREATE TABLE ts2 (id NUMBER, a TIMESTAMP(6) DEFAULT {call})")
    cur.execute(f"INSERT INTO ts2 (id) VALUES (1)")
    cur.execute(f"INSERT INTO ts2 (id, a) VALUES (2, {call})")
    for (a,) in cur.execute("SELECT a FROM ts2").fetchall():
        assert a.microsecond % 10 ** (6 - digits) == 0
    (value,) = cur.execute(f"SELECT {call} FROM dual").fetchone()
    assert value.microsecond % 10 ** (6 - digits) == 0


def test_ansi_date_and_timestamp_literals(cur):
    cur.execute("SELECT DATE '2000-01-31', TIMESTAMP '2000-01-31 10:11:12', TIMESTAMP '2000-01-31 10:11:12.25', "
                "DATE '2000-01-31' + 1 FROM dual")
    assert cur.fetchone() == (dt.datetime(2000, 1, 31), dt.datetime(2000, 1, 31, 10, 11, 12),
                              dt.datetime(2000, 1, 31, 10, 11, 12, 250000), dt.datetime(2000, 2, 1))
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("SELECT DATE '2000-01-31 10:00:00' FROM dual")
    assert ora_code(exc) in (1830, 1861)


@pytest.mark.parametrize("value", [dt.datetime(2024, 2, 29, 23, 59, 59), dt.datetime(5, 1, 2, 3, 4, 5),
                                   dt.date(999, 12, 31), dt.datetime(9999, 12, 31)])
def test_python_datetimes_bind_into_date_and_timestamp_columns(cur, value):
    cur.execute("CREATE TABLE d (d DATE, t TIMESTAMP)")
    cur.execute("INSERT INTO d VALUES (:1, :2)", [value, value])
    want = value if isinstance(value, dt.datetime) else dt.datetime(value.year, value.month, value.day)
    assert cur.execute("SELECT d, t FROM d").fetchone() == (want, want)


@pytest.mark.parametrize("literal, text", [("1e20", "100000000000000000000"), ("0.5", ".5"), ("-0.5", "-.5"),
                                           ("123.0", "123"), ("1e-5", ".00001"), ("100", "100")])
def test_cast_and_to_char_give_oracles_text(cur, literal, text):
    cur.execute(f"SELECT CAST({literal} AS VARCHAR2(60)), TO_CHAR({literal}) FROM dual")
    assert cur.fetchone() == (text, text)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(st.integers(-10**30, 10**30), st.floats(allow_nan=False, allow_infinity=False)))
def test_cast_and_to_char_agree_on_every_number(conn, value):
    with conn.cursor() as cur:
        cur.execute("SELECT CAST(:n AS VARCHAR2(200)), TO_CHAR(:n) FROM dual", n=value)
        cast_text, char_text = cur.fetchone()
    assert cast_text == char_text


def test_unordered_results_are_not_silently_in_key_order(cur):
    """reverse_unordered_selects is always on: code that forgets ORDER BY fails here, as on Oracle."""
    cur.execute("CREATE TABLE u (id NUMBER PRIMARY KEY, n VARCHAR2(5))")
    cur.executemany("INSERT INTO u VALUES (:1, :2)", [(1, "a"), (2, "b"), (3, "c")])
    assert cur.execute("SELECT id FROM u").fetchall() == [(3,), (2,), (1,)]
    assert cur.execute("SELECT id FROM u ORDER BY id").fetchall() == [(1,), (2,), (3,)]
    cur.execute("SELECT t.v FROM JSON_TABLE(:j, '$[*]' COLUMNS (v NUMBER PATH '$')) t", j="[1, 2, 3]")
    assert cur.fetchall() == [(1,), (2,), (3,)]  # a table function keeps the order it produces
