"""Binds meet expressions as Oracle's implicit conversions say (issue 18, item 1).

A bind has the datatype python-oracledb sends (str VARCHAR2; int, float, Decimal NUMBER; date, datetime DATE),
and Oracle converts around it like around any other operand (SQL Language Reference, "Data Type Comparison
Rules" > "Implicit and Explicit Data Conversion", https://docs.oracle.com/en/database/oracle/oracle-database/23/
sqlrf/Data-Type-Comparison-Rules.html): character compared with NUMBER becomes NUMBER (ORA-01722 when it is not
a number), character compared with DATE/TIMESTAMP becomes that type with the session format, NUMBER compared with
DATE is ORA-00932. SQLite instead ranks every number below every text, so `1000 > '900'` was false.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import oracledb
import pytest

from workshop.embedded import connect


@pytest.fixture(scope="module")
def cur(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("binds") / "binds.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (n NUMBER, s VARCHAR2(20), code VARCHAR2(5), d DATE, ts TIMESTAMP, doc JSON, "
                "nn NUMBER)")
    cur.execute("INSERT INTO t VALUES (1000, 'Ann', '01', DATE '2020-06-15', TIMESTAMP '2020-06-15 10:00:00', "
                "JSON('{\"n\": 1000}'), NULL)")
    conn.commit()
    yield cur
    conn.close()


def run(cur, sql, **binds):
    try:
        return cur.execute(sql, binds).fetchall()
    except oracledb.DatabaseError as exc:
        return f"ORA-{exc.args[0].code:05d}"


# --------------------------------------------------------------------------- NUMBER expression vs bind
NUMBER_SHAPES = {
    "literal": "1000",
    "column": "t.n",
    "arithmetic": "t.n * 2 - 1000",
    "function": "ABS(-t.n)",
    "json_value_returning_number": "JSON_VALUE(t.doc, '$.n' RETURNING NUMBER)",
    "to_number_json_value": "TO_NUMBER(JSON_VALUE(t.doc, '$.n'))",
    "subquery": "(SELECT MAX(n) FROM t)",
    "case": "CASE WHEN t.n IS NOT NULL THEN 1000 END",
}
#: bind value -> what Oracle answers for `<1000-valued NUMBER expression> > :b` (1 row, 0 rows, or the error)
NUMBER_BINDS = {
    "str_900": ("900", 1),             # '900' converted to NUMBER: 1000 > 900
    "str_1e3": ("1E3", 0),             # 1000 > 1000 is false
    "str_space": (" 999 ", 1),         # TO_NUMBER accepts surrounding blanks
    "str_abc": ("abc", "ORA-01722"),
    "int": (999, 1),
    "float": (1000.5, 0),
    "decimal": (Decimal("999.99"), 1),
    "none": (None, 0),                 # NULL: the comparison is unknown
    "date": (dt.date(2020, 1, 1), "ORA-00932"),
    "datetime": (dt.datetime(2020, 1, 1, 12), "ORA-00932"),
}


@pytest.mark.parametrize("bind", NUMBER_BINDS.values(), ids=NUMBER_BINDS.keys())
@pytest.mark.parametrize("shape", NUMBER_SHAPES.values(), ids=NUMBER_SHAPES.keys())
def test_number_expression_against_bind(cur, shape, bind):
    value, expected = bind
    got = run(cur, f"SELECT COUNT(*) FROM t WHERE {shape} > :b", b=value)
    assert got == ([(expected,)] if isinstance(expected, int) else expected)


@pytest.mark.parametrize("predicate, binds, expected", [
    ("t.n = :b", {"b": "1000"}, 1),
    ("t.n <> :b", {"b": "1000.0"}, 0),
    ("1000 < :b", {"b": "10000"}, 1),            # SQLite: 1000 < '10000' is true too, but for the wrong reason
    ("1000 <= :b", {"b": "999"}, 0),             # SQLite: true (every text ranks above every number)
    ("1000 >= :b", {"b": "1000"}, 1),
    ("t.n BETWEEN :lo AND :hi", {"lo": "5", "hi": "2000"}, 1),
    ("5 BETWEEN :lo AND :hi", {"lo": 1, "hi": "20"}, 1),
    ("t.n IN (:a, :c)", {"a": "7", "c": "1000"}, 1),
    ("t.n IN (:a, :c)", {"a": "x", "c": "1000"}, "ORA-01722"),
    ("t.code = :b", {"b": 1}, 1),                 # character column vs NUMBER bind: '01' becomes 1
    ("t.s = :b", {"b": 1}, "ORA-01722"),          # 'Ann' is not a number
    ("JSON_VALUE(t.doc, '$.n') = :b", {"b": 1000}, 1),
    ("t.code = :b", {"b": "1"}, 0),               # both character: compared as text
    ("t.d > :b", {"b": "2020-01-01 00:00:00"}, 1),
    ("t.d = :b", {"b": dt.datetime(2020, 6, 15)}, 1),
    ("t.ts < :b", {"b": "2020-06-15 11:00:00"}, 1),
    ("t.ts = :b", {"b": dt.datetime(2020, 6, 15, 10)}, 1),
    ("t.ts = :b", {"b": dt.datetime(2020, 6, 15, 10, 0, 0, 1)}, 0),
    ("t.d < :b", {"b": dt.datetime(2020, 6, 15, 0, 0, 0, 1)}, 1),   # DATE vs TIMESTAMP: compared as TIMESTAMP
    ("t.d > :b", {"b": 5}, "ORA-00932"),
    ("t.n > :b", {"b": b"\x01"}, "ORA-00932"),    # RAW against NUMBER: no implicit conversion
], ids=["eq", "ne", "lt", "le", "ge", "between", "between_mixed", "in", "in_bad", "char_col_num_bind",
        "char_col_bad", "json_value_num_bind", "char_char", "date_str", "date_datetime", "ts_str", "ts_datetime", "ts_fraction", "date_vs_fraction",
        "date_num", "number_raw"])
def test_comparison_operators(cur, predicate, binds, expected):
    got = run(cur, f"SELECT COUNT(*) FROM t WHERE {predicate}", **binds)
    assert got == ([(expected,)] if isinstance(expected, int) else expected)


@pytest.mark.parametrize("text", ["garbage", "2020-13-01 00:00:00", "2020-06-15 10:00:00 x"])
@pytest.mark.parametrize("shape", ["t.d", "DATE '2020-06-15'", "ADD_MONTHS(t.d, 0)", "(SELECT MAX(d) FROM t)"],
                         ids=["column", "literal", "function", "subquery"])
def test_date_expression_against_bad_text_raises_what_to_date_raises(cur, shape, text):
    """The implicit conversion is TO_DATE(:b) in the session's format (the engine's is documented): the same
    error, never a silent text comparison."""
    expected = run(cur, "SELECT TO_DATE(:b) FROM dual", b=text)
    assert isinstance(expected, str) and expected.startswith("ORA-")
    assert run(cur, f"SELECT COUNT(*) FROM t WHERE {shape} > :b", b=text) == expected


# --------------------------------------------------------------------------- arithmetic, CASE, DECODE results
@pytest.mark.parametrize("sql, binds, expected", [
    ("SELECT :b + 1 FROM dual", {"b": "41"}, [(42,)]),
    ("SELECT :b + 1 FROM dual", {"b": "x"}, "ORA-01722"),          # SQLite: 1
    ("SELECT t.n * :b FROM t", {"b": "2"}, [(2000,)]),
    ("SELECT -:b FROM dual", {"b": "3"}, [(-3,)]),
    ("SELECT :a * :b FROM dual", {"a": "2", "b": Decimal("1.5")}, [(3,)]),
    ("SELECT CASE WHEN 1 = 1 THEN :b ELSE 0 END FROM dual", {"b": "7"}, "ORA-00932"),
    ("SELECT CASE WHEN 1 = 1 THEN :b ELSE 0 END FROM dual", {"b": 7}, [(7,)]),
    ("SELECT CASE WHEN 1 = 1 THEN :b ELSE 'x' END FROM dual", {"b": "7"}, [("7",)]),
    ("SELECT DECODE(1, 1, :b, 0) FROM dual", {"b": "5"}, [("5",)]),       # the first result's type: VARCHAR2
    ("SELECT DECODE(:b, 1, 'one', 'other') FROM dual", {"b": "1"}, [("one",)]),  # compared as the first search
    ("SELECT CASE WHEN 1000 > :b THEN 1 ELSE 0 END FROM dual", {"b": "900"}, [(1,)]),   # the example
    ("SELECT CASE WHEN 4.5 >= :b THEN 1 ELSE 0 END FROM dual", {"b": "4.5"}, [(1,)]),
], ids=["add_str", "add_bad", "mul_col", "neg", "mul_binds", "case_mixed", "case_num", "case_char",
        "decode_result", "decode_search", "issue_case", "issue_ge"])
def test_arithmetic_and_results(cur, sql, binds, expected):
    assert run(cur, sql, **binds) == expected


# --------------------------------------------------------------------------- where SQLite's cross-type order leaked
@pytest.mark.parametrize("sql, binds, expected", [
    ("SELECT x FROM (SELECT 1 x FROM dual UNION ALL SELECT :b FROM dual) ORDER BY x", {"b": "2"}, "ORA-01790"),
    ("SELECT 1 FROM dual UNION SELECT :b FROM dual", {"b": 2}, [(1,), (2,)]),
    ("SELECT GREATEST(1000, :b) FROM dual", {"b": "900"}, [(1000,)]),    # compared as NUMBER (first argument)
    ("SELECT GREATEST(:b, 1000) FROM dual", {"b": "900"}, [("900",)]),   # compared as VARCHAR2: '900' > '1000'
    ("SELECT LEAST(t.n, :b) FROM t", {"b": "20"}, [(20,)]),
    ("SELECT MAX(x) FROM (SELECT :a x FROM dual UNION ALL SELECT :b FROM dual)", {"a": 900, "b": 1000},
     [(1000,)]),
    ("SELECT MAX(x) FROM (SELECT :a x FROM dual UNION ALL SELECT :b FROM dual)", {"a": "900", "b": "1000"},
     [("900",)]),
    ("SELECT NVL(t.nn, :b) FROM t", {"b": "5"}, [(5,)]),                 # converted to NUMBER, not text '5'
    ("SELECT NVL(t.s, :b) FROM t", {"b": 5}, [("Ann",)]),
    ("SELECT NVL(t.code, :b) || 'x' FROM t", {"b": 5}, [("01x",)]),
    ("SELECT NVL(t.nn, :b) FROM t", {"b": "x"}, "ORA-01722"),
    ("SELECT NVL(t.nn, :b) FROM t", {"b": dt.date(2020, 1, 1)}, "ORA-00932"),
    ("SELECT COALESCE(t.nn, :b) FROM t", {"b": 5}, [(5,)]),
    ("SELECT COALESCE(t.nn, :b) FROM t", {"b": "5"}, "ORA-00932"),       # see probe E18-COALESCE
    ("SELECT COALESCE(t.nn, :b) FROM t", {"b": None}, [(None,)]),
    ("SELECT COUNT(*) FROM t WHERE t.n IN ('1000', :b)", {"b": 5}, [(1,)]),
    ("SELECT NVL2(t.n, :b, 0) FROM t", {"b": "7"}, [("7",)]),             # expr3 takes expr2's type: '0'
    ("SELECT NVL2(t.nn, :b, 0) FROM t", {"b": "7"}, [("0",)]),
    ("SELECT NVL2(t.nn, 1, :b) FROM t", {"b": "x"}, "ORA-01722"),
    ("SELECT NULLIF(t.n, :b) FROM t", {"b": 1000}, [(None,)]),
    ("SELECT NULLIF(t.n, :b) FROM t", {"b": "1000"}, "ORA-00932"),         # not numeric: must be the same type
    ("SELECT NULLIF(:b, 'x') FROM dual", {"b": "x"}, [(None,)]),
], ids=["union_order_by", "union_num", "greatest_num_first", "greatest_char_first", "least_col",
        "max_numbers", "max_texts", "nvl_num", "nvl_char", "nvl_char_concat", "nvl_bad", "nvl_date",
        "coalesce_num", "coalesce_mixed", "coalesce_null", "in_mixed_list", "nvl2_char", "nvl2_char_null",
        "nvl2_bad", "nullif_num", "nullif_mixed", "nullif_char"])
def test_no_cross_type_ordering(cur, sql, binds, expected):
    assert run(cur, sql, **binds) == expected


def test_executemany_types_binds_by_first_value(cur):
    """In executemany() the first non-None value fixes a bind's type (python-oracledb): a DML filter converts."""
    conn = cur.connection
    c = conn.cursor()
    c.execute("CREATE TABLE em (k NUMBER, v NUMBER)")
    c.executemany("INSERT INTO em VALUES (:1, 0)", [(1,), (2,), (3,)])
    c.executemany("UPDATE em SET v = 1 WHERE k > :1", [(None,), ("2",)])
    assert c.execute("SELECT k FROM em WHERE v = 1").fetchall() == [(3,)]
    c.execute("DROP TABLE em")


def test_a_statement_runs_with_each_bind_type_in_turn(cur):
    """The plan is cached per bind datatype: the same text with a str, then an int, then a str again."""
    sql = "SELECT COUNT(*) FROM t WHERE t.code = :b"
    assert run(cur, sql, b="1") == [(0,)]
    assert run(cur, sql, b=1) == [(1,)]
    assert run(cur, sql, b="01") == [(1,)]


# --------------------------------------------------------------------------- the libraries' SQL
@pytest.mark.parametrize("op, value, expected", [
    (">", 999, 1), (">=", 1000, 1), ("<", 1000, 0), ("<=", 1000, 1), (">", 1000.5, 0), ("<", 5, 0),
], ids=["gt", "gte", "lt", "lte", "gt_float", "lt_small"])
def test_langgraph_store_filter_shape(cur, op, value, expected):
    """langgraph-oracledb's OracleStore filter (`store/oracle/base.py` `_get_filter_condition`) binds str(value)
    against TO_NUMBER(JSON_VALUE(...)): $gt/$gte found nothing and $lt/$lte everything before."""
    sql = f"SELECT COUNT(*) FROM t WHERE TO_NUMBER(JSON_VALUE(doc, '$.n')) {op} :value"
    assert run(cur, sql, value=str(value)) == [(expected,)]
