"""RAW/hash functions, aggregates, the error type and registration on a SQLite connection."""

from __future__ import annotations

import hashlib
import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workshop.embedded import oracle_functions as F
from workshop.embedded.oracle_functions import OracleFunctionError

# --- RAW and hashing -------------------------------------------------------------------------


def test_sys_guid_is_16_random_bytes():
    first, second = F.sys_guid(), F.sys_guid()
    assert isinstance(first, bytes) and len(first) == 16
    assert first != second


def test_hextoraw_rawtohex():
    assert F.hextoraw("7D") == b"\x7d"
    assert F.hextoraw("abc") == b"\x0a\xbc"  # odd length: a leading zero nibble
    assert F.rawtohex(b"\x7d\xab") == "7DAB"
    assert F.rawtohex("abc") == "616263"
    assert F.rawtohex(F.hextoraw("00FF10")) == "00FF10"
    assert F.hextoraw(None) is None and F.hextoraw("") is None and F.rawtohex(None) is None
    with pytest.raises(OracleFunctionError) as info:
        F.hextoraw("XYZ")
    assert info.value.code == 1465
    with pytest.raises(OracleFunctionError) as info:
        F.rawtohex(12)
    assert info.value.code == 3001


def test_standard_hash():
    assert F.standard_hash("abc") == hashlib.sha1(b"abc").digest()
    assert F.standard_hash("abc", "SHA256") == hashlib.sha256(b"abc").digest()
    assert F.rawtohex(F.standard_hash("abc", "MD5")) == "900150983CD24FB0D6963F7D28E17F72"
    assert F.standard_hash(b"\x00", "sha512") == hashlib.sha512(b"\x00").digest()
    assert F.standard_hash(None) is None
    with pytest.raises(OracleFunctionError) as info:
        F.standard_hash("abc", "CRC32")
    assert info.value.code == 1760
    with pytest.raises(OracleFunctionError) as info:
        F.standard_hash(42)
    assert info.value.code == 3001


def test_ora_hash_is_deterministic_and_bounded():
    assert F.ora_hash("abc") == F.ora_hash("abc")
    assert 0 <= F.ora_hash("abc") <= 4294967295
    assert F.ora_hash(1) == F.ora_hash(1.0)  # the same NUMBER
    words = [f"w{i}" for i in range(20)]
    assert [F.ora_hash(w, 99, 5) for w in words] != [F.ora_hash(w, 99, 6) for w in words]  # the seed matters
    assert F.ora_hash(None) is None
    with pytest.raises(OracleFunctionError) as info:
        F.ora_hash("abc", -1)
    assert info.value.code == 1428


@given(st.text(min_size=1), st.integers(min_value=0, max_value=1000), st.integers(min_value=0, max_value=2**32 - 1))
def test_ora_hash_stays_in_its_buckets(text, buckets, seed):
    assert 0 <= F.ora_hash(text, buckets, seed) <= buckets


# --- aggregates ------------------------------------------------------------------------------


def run(aggregate_class, rows):
    aggregate = aggregate_class()
    for row in rows:
        aggregate.step(*row)
    return aggregate.finalize()


def test_listagg_concatenates_in_arrival_order():
    assert run(F.Listagg, [("b", ", "), (None, ", "), ("a", ", "), (1.5, ", ")]) == "b, a, 1.5"
    assert run(F.Listagg, [("b",), ("a",)]) == "ba"  # the delimiter defaults to NULL
    assert run(F.Listagg, [(None, ","), ("", ",")]) is None
    assert run(F.Listagg, []) is None
    assert run(F.ListaggDistinct, [("b", ","), ("a", ","), ("b", ",")]) == "b,a"


def test_listagg_overflow():
    rows = [("x" * 1000, ",")] * 4  # 4003 bytes with the delimiters
    with pytest.raises(OracleFunctionError) as info:
        run(F.Listagg, rows)
    assert info.value.code == 1489
    assert str(info.value) == "ORA-01489: result of string concatenation is too long"
    assert len(run(F.Listagg, [("x" * 1000, ",")] * 3)) == 3002
    truncated = run(F.ListaggTruncate, [(v, d, "...", 1) for v, d in rows])
    assert truncated == ",".join(["x" * 1000] * 3) + ",...(1)"
    without_count = run(F.ListaggTruncate, [(v, d, "~", 0) for v, d in rows])
    assert without_count == ",".join(["x" * 1000] * 3) + ",~"
    multibyte = [("é" * 500, ",")] * 5  # 1000 bytes each
    with pytest.raises(OracleFunctionError):
        run(F.Listagg, multibyte)


def test_statistics():
    rows = [(1,), (2,), (2,), (None,), (10,)]
    assert run(F.Median, rows) == 2
    assert run(F.Median, [(1,), (2,)]) == 1.5
    assert run(F.Median, [(None,)]) is None
    assert run(F.Variance, rows) == pytest.approx(17.583333333333332)
    assert run(F.Stddev, rows) == pytest.approx(17.583333333333332**0.5)
    assert run(F.VarPop, rows) == pytest.approx(13.1875)
    assert run(F.StddevPop, rows) == pytest.approx(13.1875**0.5)
    assert run(F.Variance, [(5,)]) == 0  # Oracle: 0 for one row
    assert run(F.Stddev, [(5,)]) == 0
    assert run(F.VarSamp, [(5,)]) is None
    assert run(F.StddevSamp, [(5,)]) is None
    assert run(F.Variance, []) is None
    assert run(F.StatsMode, rows) == 2
    assert run(F.StatsMode, [("b",), ("a",), ("a",), ("b",)]) == "b"  # ties: first to arrive
    assert run(F.StatsMode, [(None,)]) is None


# --- registration ----------------------------------------------------------------------------


@pytest.fixture()
def conn():
    connection = sqlite3.connect(":memory:")
    F.register_all(connection)
    yield connection
    connection.close()


def test_registered_functions_run_in_sql(conn):
    row = conn.execute(
        "SELECT ORA_SUBSTR('ABCDEFG', -5, 4), ORA_INSTR('CORPORATE FLOOR', 'OR', 3, 2),"
        " ORA_TO_CHAR(0.5), ORA_ROUND(2.5), ORA_NVL(NULL, 'x'), ORA_DECODE(NULL, NULL, 'n', 'x'),"
        " ORA_TO_CHAR(ORA_TO_DATE('2024-01-05'), 'DD-MON-YYYY'), ORA_RAWTOHEX(ORA_HEXTORAW('0a'))"
    ).fetchone()
    assert row == ("CDEF", 14, ".5", 3, "x", "n", "05-JAN-2024", "0A")


def test_registered_aggregates_run_in_sql(conn):
    conn.execute("CREATE TABLE t (g INTEGER, v TEXT, n REAL)")
    conn.executemany(
        "INSERT INTO t VALUES (?, ?, ?)",
        [(1, "b", 1), (1, "a", 2), (1, None, None), (2, "c", 5)],
    )
    rows = conn.execute(
        "SELECT g, ORA_LISTAGG(v, ','), ORA_MEDIAN(n), ORA_STDDEV(n), ORA_LISTAGG_DISTINCT(v)"
        " FROM (SELECT * FROM t ORDER BY g, v) GROUP BY g ORDER BY g"
    ).fetchall()
    assert rows == [(1, "a,b", 1.5, pytest.approx(0.7071067811865476), "ab"), (2, "c", 5, 0, "c")]
    truncated = conn.execute("SELECT ORA_LISTAGG_TRUNCATE(v, ',', '...', 1) FROM t").fetchone()
    assert truncated == ("b,a,c",)


def test_aggregates_also_work_as_window_functions(conn):
    rows = conn.execute(
        "SELECT v, ORA_LISTAGG(v, ',') OVER (PARTITION BY g),"
        " ORA_LISTAGG(v, ',') OVER (ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW),"
        " ORA_MEDIAN(n) OVER (ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW),"
        " ORA_STATS_MODE(g) OVER (ORDER BY v ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)"
        " FROM (SELECT 1 g, 'a' v, 1 n UNION ALL SELECT 1, 'b', 2 UNION ALL SELECT 2, 'c', 4) ORDER BY v"
    ).fetchall()
    assert rows == [("a", "a,b", "a", 1, 1), ("b", "a,b", "a,b", 1.5, 1), ("c", "c", "b,c", 3, 1)]


def test_wrong_argument_count_is_rejected_when_preparing(conn):
    with pytest.raises(sqlite3.OperationalError, match="wrong number of arguments"):
        conn.execute("SELECT ORA_SUBSTR('abc')")
    with pytest.raises(sqlite3.OperationalError, match="wrong number of arguments"):
        conn.execute("SELECT ORA_INSTR('abc', 'b', 1, 1, 1)")
    assert conn.execute("SELECT ORA_GREATEST(1, 5, 3)").fetchone() == (5,)


def test_errors_surface_from_sql(conn):
    with pytest.raises(sqlite3.OperationalError, match="user-defined function raised exception"):
        conn.execute("SELECT ORA_TO_NUMBER('abc')").fetchone()


def test_nondeterministic_functions_are_marked(conn):
    conn.execute("CREATE TABLE d (x TEXT)")
    conn.execute("CREATE INDEX d_upper ON d (ORA_UPPER(x))")  # deterministic: allowed
    with pytest.raises(sqlite3.OperationalError, match="non-deterministic"):
        conn.execute("CREATE INDEX d_guid ON d (ORA_SYS_GUID())")
    with pytest.raises(sqlite3.OperationalError, match="non-deterministic"):
        conn.execute("CREATE INDEX d_now ON d (ORA_SYSDATE())")
    assert F.NONDETERMINISTIC == {
        "SYSDATE", "SYSTIMESTAMP", "CURRENT_DATE", "CURRENT_TIMESTAMP", "LOCALTIMESTAMP", "SYS_GUID"
    }


def test_registry_shape():
    for name, (fn, nargs) in F.SCALAR_FUNCTIONS.items():
        assert name.isupper() and callable(fn) and isinstance(nargs, int)
    for name, (cls, nargs) in F.AGGREGATES.items():
        assert hasattr(cls, "step") and hasattr(cls, "finalize") and isinstance(nargs, int)
    assert F.arities(F.substr, -1) == [2, 3]
    assert F.arities(F.decode, -1) == [-1]
    assert F.arities(F.length, 1) == [1]


def test_custom_prefix():
    connection = sqlite3.connect(":memory:")
    F.register_all(connection, prefix="X_")
    assert connection.execute("SELECT X_LENGTH('abc')").fetchone() == (3,)
    connection.close()


def test_error_type():
    error = OracleFunctionError(1722)
    assert error.code == 1722
    assert str(error) == "ORA-01722: invalid number"
    assert isinstance(error, Exception)
    assert str(OracleFunctionError(1428, "-1")) == "ORA-01428: argument '-1' is out of range"
    assert str(OracleFunctionError(1821, "'XX'")) == "ORA-01821: date format not recognized: 'XX'"


# --- robustness: bad input only ever raises OracleFunctionError --------------------------------

_DATE_FORMATS = ["YYYY-MM-DD", "DD-MON-RR HH:MI AM", "FXDD/MM/YYYY", "J", "DDD YYYY", "Day DD Month YYYY", "Y,YYY"]


@given(st.text(alphabet="0123456789-/: .APMJanFebDcOTZ+,x", max_size=25), st.sampled_from(_DATE_FORMATS))
def test_to_date_fails_only_with_oracle_errors(text, fmt):
    try:
        F.to_date(text, fmt)
    except OracleFunctionError:
        pass


@given(st.text(alphabet="ab.*+?()[]{}|^$\\:=-0123456789dwsAZ x", max_size=15), st.text(alphabet="ab\n 1", max_size=10))
def test_regexp_fails_only_with_oracle_errors(pattern, text):
    try:
        F.regexp_replace(text, pattern, r"\1x")
    except OracleFunctionError:
        pass


@given(st.text(alphabet="0123456789.,$-+<>eE XF", max_size=12), st.text(alphabet="90.,GDSMIPR$LXVEBF", max_size=10))
def test_number_formats_fail_only_with_oracle_errors(text, fmt):
    for call in (lambda: F.to_number(text, fmt), lambda: F.to_char(12.5, fmt)):
        try:
            call()
        except OracleFunctionError:
            pass
