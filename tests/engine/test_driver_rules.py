"""python-oracledb 26.1 thin mode's client-side rules, one test per rule (workshop/embedded/driver.py).

Each test makes the call a learner could make and expects the exception class and DPY- code that
python-oracledb raises for it (its source: src/oracledb/impl/base/metadata.pyx, connection.pyx,
bind_var.pyx, cursor.pyx; impl/thin/var.pyx, cursor.pyx; src/oracledb/errors.py).
"""
from __future__ import annotations

import array
import datetime as dt
import decimal

import numpy as np
import oracledb
import pytest


@pytest.fixture
def t(cur):
    cur.execute("CREATE TABLE t (id NUMBER, name VARCHAR2(20), doc JSON, emb VECTOR(3, FLOAT32), "
                "d DATE, body CLOB, raw_col RAW(8))")
    return cur


def dpy(exc_info) -> str:
    return exc_info.value.args[0].full_code


# --------------------------------------------------------------------------- value types
@pytest.mark.parametrize("value, type_name", [({"a": 1}, "dict"), ((1, 2), "tuple"), ({1, 2}, "set"),
                                              (np.array([1.0, 2.0, 3.0]), "ndarray"), (object(), "object")])
def test_values_without_a_bind_type_are_dpy_3002(t, value, type_name):
    with pytest.raises(oracledb.NotSupportedError) as exc:
        t.execute("INSERT INTO t (id, doc) VALUES (1, :v)", v=value)
    assert dpy(exc) == "DPY-3002"
    assert f'Python value of type "{type_name}" is not supported' in str(exc.value)


def test_dict_and_list_bind_to_a_declared_json_bind(t):
    t.setinputsizes(v=oracledb.DB_TYPE_JSON)
    t.execute("INSERT INTO t (id, doc) VALUES (1, :v)", v={"a": [1, 2]})
    t.setinputsizes(v=oracledb.DB_TYPE_JSON)
    t.execute("INSERT INTO t (id, doc) VALUES (2, :v)", v=[1, "x"])
    t.execute("SELECT doc FROM t ORDER BY id")
    assert [r[0] for r in t.fetchall()] == [{"a": [1, 2]}, [1, "x"]]


def test_declared_types_persist_while_the_same_statement_is_re_executed(t):
    sql = "INSERT INTO t (id, doc) VALUES (:i, :v)"
    t.setinputsizes(v=oracledb.DB_TYPE_JSON)
    t.execute(sql, i=1, v={"n": 1})
    t.execute(sql, i=2, v={"n": 2})            # same statement: python-oracledb keeps the JSON variable
    with pytest.raises(oracledb.NotSupportedError) as exc:
        t.execute(sql + " ", i=3, v={"n": 3})  # stripped: still the same statement
        t.execute("INSERT INTO t (doc, id) VALUES (:v, :i)", i=4, v={"n": 4})  # a new statement forgets it
    assert dpy(exc) == "DPY-3002"


def test_a_list_bound_to_sql_is_a_plsql_array_ora_01484(t):
    with pytest.raises(oracledb.DatabaseError) as exc:
        t.execute("SELECT id FROM t WHERE id IN (:ids)", ids=[1, 2])
    assert exc.value.args[0].code == 1484


def test_a_list_with_mixed_element_types_is_dpy_2010(t):
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.execute("SELECT id FROM t WHERE id IN (:ids)", ids=[1, "two"])
    assert dpy(exc) == "DPY-2010"


# --------------------------------------------------------------------------- vectors
def test_array_array_binds_as_a_vector(t):
    t.execute("INSERT INTO t (id, emb) VALUES (1, :v)", v=array.array("f", [1, 2, 3]))
    t.execute("SELECT emb FROM t")
    assert list(t.fetchone()[0]) == [1.0, 2.0, 3.0]


def test_a_list_needs_db_type_vector_and_then_binds_as_float64(t):
    t.setinputsizes(v=oracledb.DB_TYPE_VECTOR)
    t.execute("SELECT VECTOR_DIMENSION_FORMAT(:v) FROM dual", v=[1.0, 2.0, 3.0])
    assert t.fetchone() == ("FLOAT64",)


def test_numpy_array_with_db_type_vector_is_dpy_3002(t):
    # The declared VECTOR variable rejects an ndarray, so python-oracledb falls back to the value's
    # own type, which does not exist (from_value has no ndarray branch).
    t.setinputsizes(v=oracledb.DB_TYPE_VECTOR)
    with pytest.raises(oracledb.NotSupportedError) as exc:
        t.execute("INSERT INTO t (id, emb) VALUES (1, :v)", v=np.array([1, 2, 3], dtype=np.float32))
    assert dpy(exc) == "DPY-3002"


def test_an_empty_vector_is_dpy_4031(t):
    t.setinputsizes(v=oracledb.DB_TYPE_VECTOR)
    with pytest.raises(oracledb.DatabaseError) as exc:
        t.execute("INSERT INTO t (id, emb) VALUES (1, :v)", v=[])
    assert dpy(exc) == "DPY-4031"


# --------------------------------------------------------------------------- booleans, dates, LOBs
def test_booleans_bind_as_boolean(t):
    t.execute("SELECT CASE WHEN :b THEN 'yes' ELSE 'no' END FROM dual", b=True)
    assert t.fetchone() == ("yes",)


def test_a_declared_number_takes_a_boolean_as_int(t):
    t.setinputsizes(n=oracledb.DB_TYPE_NUMBER)
    t.execute("INSERT INTO t (id) VALUES (:n)", n=True)
    t.execute("SELECT id FROM t")
    assert t.fetchone() == (1,)


def test_datetime_and_date_bind_into_a_date_column(t):
    t.execute("INSERT INTO t (id, d) VALUES (1, :d)", d=dt.datetime(2024, 2, 29, 13, 5, 1))
    t.execute("INSERT INTO t (id, d) VALUES (2, :d)", d=dt.date(5, 1, 2))
    t.execute("SELECT d FROM t ORDER BY id")
    assert [r[0] for r in t.fetchall()] == [dt.datetime(2024, 2, 29, 13, 5, 1), dt.datetime(5, 1, 2)]


def test_str_and_bytes_bind_to_declared_lobs_and_fetch_lobs_per_execute(t):
    t.setinputsizes(b=oracledb.DB_TYPE_CLOB)
    t.execute("INSERT INTO t (id, body) VALUES (1, :b)", b="long text")
    t.execute("SELECT body FROM t")
    assert isinstance(t.fetchone()[0], oracledb.LOB)
    t.execute("SELECT body FROM t", fetch_lobs=False)  # a keyword of execute(), not a bind
    assert t.fetchone() == ("long text",)


def test_fetch_decimals_per_execute(t):
    t.execute("SELECT 1.5, 2 FROM dual", fetch_decimals=True)
    assert t.fetchone() == (decimal.Decimal("1.5"), decimal.Decimal("2"))


def test_a_value_that_does_not_fit_a_declared_type_falls_back_to_its_own_type(t):
    t.setinputsizes(n=oracledb.DB_TYPE_NUMBER)
    t.execute("SELECT :n FROM dual", n="text")  # python-oracledb replaces the variable
    assert t.fetchone() == ("text",)


# --------------------------------------------------------------------------- executemany types
def test_executemany_first_value_fixes_the_type_dpy_3013(t):
    with pytest.raises(oracledb.NotSupportedError) as exc:
        t.executemany("INSERT INTO t (id, name) VALUES (:1, :2)", [(1, "a"), (2, 3)])
    assert dpy(exc) == "DPY-3013"
    assert "unsupported Python type int for database type DB_TYPE_VARCHAR" in str(exc.value)


def test_executemany_none_first_does_not_fix_the_type(t):
    t.executemany("INSERT INTO t (id, name) VALUES (:1, :2)", [(1, None), (2, "b")])
    t.execute("SELECT COUNT(*) FROM t")
    assert t.fetchone() == (2,)


def test_executemany_wants_a_list_dpy_2004(t):
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.executemany("INSERT INTO t (id) VALUES (:1)", ((1,), (2,)))
    assert dpy(exc) == "DPY-2004"


# --------------------------------------------------------------------------- names and counts
def test_a_bind_name_not_in_the_statement_is_dpy_4008(t):
    with pytest.raises(oracledb.DatabaseError) as exc:
        t.execute("SELECT id FROM t WHERE id = :id", id=1, extra=2)
    assert dpy(exc) == "DPY-4008"
    assert 'no bind placeholder named ":extra"' in str(exc.value)


def test_a_missing_bind_value_is_dpy_4010(t):
    with pytest.raises(oracledb.DatabaseError) as exc:
        t.execute("SELECT id FROM t WHERE id = :id AND name = :name", id=1)
    assert dpy(exc) == "DPY-4010"
    assert ':NAME' in str(exc.value)


def test_positional_counts_every_occurrence_in_sql_dpy_4009(t):
    with pytest.raises(oracledb.DatabaseError) as exc:
        t.execute("SELECT id FROM t WHERE id = :1 OR id = :1", [1])
    assert dpy(exc) == "DPY-4009"
    assert "2 positional bind values are required but 1 were provided" in str(exc.value)


def test_bind_names_are_case_insensitive_unless_quoted(t):
    t.execute("SELECT :Name FROM dual", {"NAME": "a"})
    assert t.fetchone() == ("a",)


def test_positional_and_keyword_parameters_together_are_dpy_2005(t):
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.execute("SELECT :a FROM dual", [1], a=1)
    assert dpy(exc) == "DPY-2005"


def test_parameters_of_the_wrong_type_are_dpy_2003(t):
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.execute("SELECT :1 FROM dual", 5)
    assert dpy(exc) == "DPY-2003"


def test_mixing_named_and_positional_binds_is_dpy_2006(t):
    t.setinputsizes(a=oracledb.DB_TYPE_NUMBER)
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.execute("SELECT :a FROM dual", [1])
    assert dpy(exc) == "DPY-2006"
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.executemany("INSERT INTO t (id, name) VALUES (:1, :2)", [(1, "a"), {"1": 2, "2": "b"}])
    assert dpy(exc) == "DPY-2006"


# --------------------------------------------------------------------------- setinputsizes types
def test_setinputsizes_not_a_type_is_dpy_2007(t):
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.setinputsizes(a="VARCHAR2")
    assert dpy(exc) == "DPY-2007"


def test_setinputsizes_unsupported_python_type_is_dpy_3003(t):
    with pytest.raises(oracledb.NotSupportedError) as exc:
        t.setinputsizes(a=dict)
    assert dpy(exc) == "DPY-3003"


def test_setinputsizes_bad_array_definition_is_dpy_2011(t):
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.setinputsizes(a=[int])
    assert dpy(exc) == "DPY-2011"


def test_setinputsizes_args_and_kwargs_is_dpy_2005(t):
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.setinputsizes(int, a=int)
    assert dpy(exc) == "DPY-2005"


def test_a_declared_varchar_rejects_nothing_it_cannot_hold_dpy_3013_in_executemany(t):
    t.setinputsizes(None, oracledb.DB_TYPE_VARCHAR)
    with pytest.raises(oracledb.NotSupportedError) as exc:
        t.executemany("INSERT INTO t (id, name) VALUES (:1, :2)", [(1, "a"), (2, dt.date(2020, 1, 1))])
    assert dpy(exc) == "DPY-3013"


# --------------------------------------------------------------------------- statements and fetches
def test_an_empty_statement_is_dpy_2066(t):
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.execute("   ")
    assert dpy(exc) == "DPY-2066"


def test_an_unterminated_quote_is_dpy_2041(t):
    with pytest.raises(oracledb.ProgrammingError) as exc:
        t.execute("SELECT 'abc FROM dual")
    assert dpy(exc) == "DPY-2041"


def test_fetching_after_dml_is_dpy_1003(t):
    t.execute("INSERT INTO t (id) VALUES (1)")
    with pytest.raises(oracledb.InterfaceError) as exc:
        t.fetchone()
    assert dpy(exc) == "DPY-1003"


def test_getarraydmlrowcounts_needs_arraydmlrowcounts_dpy_4006(t):
    t.executemany("INSERT INTO t (id) VALUES (:1)", [(1,), (2,)])
    with pytest.raises(oracledb.DatabaseError) as exc:
        t.getarraydmlrowcounts()
    assert dpy(exc) == "DPY-4006"


def test_arraydmlrowcounts_counts_rows_per_iteration(t):
    t.executemany("INSERT INTO t (id) VALUES (:1)", [(1,), (1,), (2,)])
    t.executemany("UPDATE t SET name = 'x' WHERE id = :1", [(1,), (2,), (3,)], arraydmlrowcounts=True)
    assert t.getarraydmlrowcounts() == [2, 1, 0]
    assert t.rowcount == 3


def test_python_oracledb_raises_the_same_classes():
    """The classes above are python-oracledb's own: DPY-1xxx Interface, 2xxx Programming, 3xxx NotSupported."""
    from workshop.embedded.driver import dpy_error
    from oracledb import errors as E
    assert type(dpy_error(E.ERR_NOT_A_QUERY)) is oracledb.InterfaceError
    assert type(dpy_error(E.ERR_MIXED_POSITIONAL_AND_NAMED_BINDS)) is oracledb.ProgrammingError
    assert type(dpy_error(E.ERR_PYTHON_VALUE_NOT_SUPPORTED, type_name="dict")) is oracledb.NotSupportedError
    assert type(dpy_error(E.ERR_INVALID_BIND_NAME, name="x")) is oracledb.DatabaseError


def test_a_fetched_lob_binds_back_and_a_lob_of_the_wrong_type_is_dpy_3014(t):
    t.setinputsizes(b=oracledb.DB_TYPE_CLOB)
    t.execute("INSERT INTO t (id, body) VALUES (1, :b)", b="text kept in a CLOB")
    lob = t.execute("SELECT body FROM t WHERE id = 1").fetchone()[0]
    t.execute("INSERT INTO t (id, body) VALUES (2, :b)", b=lob)          # a LOB binds as its own type
    assert t.execute("SELECT body FROM t WHERE id = 2").fetchone()[0].read() == "text kept in a CLOB"
    t.setinputsizes(b=oracledb.DB_TYPE_BLOB)
    t.executemany("INSERT INTO t (id, raw_col) VALUES (:i, :b)", [{"i": 3, "b": b"\x01"}])
    t.setinputsizes(b=oracledb.DB_TYPE_BLOB)
    with pytest.raises(oracledb.NotSupportedError) as exc:
        t.executemany("INSERT INTO t (id, raw_col) VALUES (:i, :b)", [{"i": 4, "b": b"\x01"}, {"i": 5, "b": lob}])
    assert dpy(exc) == "DPY-3014"


def test_execute_none_re_executes_the_prepared_statement_dpy_2001_without_one(cur):
    with pytest.raises(oracledb.ProgrammingError) as exc:
        cur.execute(None)
    assert dpy(exc) == "DPY-2001"
    cur.execute("SELECT :x FROM dual", x=1)
    assert cur.execute(None, x=2).fetchone() == (2,)
