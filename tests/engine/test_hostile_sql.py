"""Malformed and hostile SQL never lets a raw sqlite3, sqlglot or Python exception reach a learner.

Every statement below either runs or raises an `oracledb.Error` (an ORA- error from the engine or a
DPY- error from the driver rules), and the connection keeps working afterwards. Property tests run
derandomized (tests/conftest.py); HYPOTHESIS_RANDOM=1 explores fresh examples.
"""
from __future__ import annotations

import oracledb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SEEDS = [
    "SELECT id, name FROM h WHERE id = :id",
    "SELECT COUNT(*), MAX(name) FROM h GROUP BY name HAVING COUNT(*) > 1 ORDER BY 1",
    "SELECT name FROM h ORDER BY VECTOR_DISTANCE(emb, TO_VECTOR('[1,2,3]'), COSINE) FETCH FIRST 2 ROWS ONLY",
    "SELECT JSON_VALUE(doc, '$.a') FROM h WHERE JSON_EXISTS(doc, '$.b?(@ > 1)')",
    "INSERT INTO h (id, name) VALUES (:1, :2)",
    "UPDATE h SET name = UPPER(name) WHERE id IN (SELECT id FROM h WHERE ROWNUM <= 2)",
    "DELETE FROM h WHERE name LIKE 'a%'",
    "MERGE INTO h t USING (SELECT 9 id FROM dual) s ON (t.id = s.id) WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)",
    "CREATE TABLE h2 (id NUMBER PRIMARY KEY, txt VARCHAR2(10))",
    "WITH x AS (SELECT 1 a FROM dual) SELECT a FROM x UNION ALL SELECT 2 FROM dual",
    "SELECT TO_CHAR(SYSDATE, 'YYYY-MM-DD'), DATE '2020-01-01' + 1 FROM dual",
    "BEGIN EXECUTE IMMEDIATE 'DROP TABLE nope'; EXCEPTION WHEN OTHERS THEN NULL; END;",
]

FRAGMENTS = ["'", '"', "(", ")", ";", ";;", "--", "/*", "*/", ":", ":x", ":1", ",", "SELECT", "FROM", "WHERE",
             "DROP TABLE h", "' OR '1'='1", "\x00", "é", "🙂", "NULL", "ROWNUM", "FETCH FIRST", "CONNECT BY",
             "q'[", "]'", "||", "<=>", "JSON_TABLE(", "GRAPH_TABLE(", "CONTAINS(name, 'x') > 0", "x" * 200,
             "9" * 60, "1e400", "TO_DATE('x', 'YYYY')", "CAST(", "AS VARCHAR2(", "PRAGMA", "ATTACH DATABASE"]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    from workshop.embedded import connect
    conn = connect(tmp_path_factory.mktemp("hostile") / "h.db", busy_timeout=2)
    cur = conn.cursor()
    cur.execute("CREATE TABLE h (id NUMBER PRIMARY KEY, name VARCHAR2(40), doc JSON, emb VECTOR(3, FLOAT32))")
    cur.executemany("INSERT INTO h (id, name) VALUES (:1, :2)", [(1, "ann"), (2, "bob"), (3, "ann")])
    conn.commit()
    yield conn
    conn.close()


@st.composite
def mutated(draw):
    sql = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["insert", "delete", "truncate", "duplicate"]))
        pos = draw(st.integers(0, len(sql)))
        if kind == "insert":
            sql = sql[:pos] + " " + draw(st.sampled_from(FRAGMENTS)) + " " + sql[pos:]
        elif kind == "delete":
            sql = sql[:pos] + sql[pos + draw(st.integers(1, 8)):]
        elif kind == "truncate":
            sql = sql[:pos] or sql
        else:
            sql = sql + " " + sql[:pos]
    return sql


BIND_VALUES = st.one_of(st.none(), st.integers(-10**20, 10**20), st.floats(allow_nan=True), st.text(max_size=30),
                        st.booleans(), st.binary(max_size=10))


def _runs_or_raises_oracle_error(conn, sql, binds):
    cur = conn.cursor()
    try:
        cur.execute(sql, binds)
        if cur.description is not None:
            cur.fetchall()
    except oracledb.Error:
        pass
    finally:
        conn.rollback()
    assert conn.cursor().execute("SELECT COUNT(*) FROM h").fetchone() == (3,)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sql=mutated(), values=st.lists(BIND_VALUES, max_size=3))
def test_mutated_statements_raise_only_oracle_errors(hostile, sql, values):
    _runs_or_raises_oracle_error(hostile, sql, values)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sql=st.text(alphabet=st.sampled_from(list("SELECTFROMWHEREdual :;'\"()*,.=<>|-/0123456789")), max_size=60))
def test_character_soup_raises_only_oracle_errors(hostile, sql):
    _runs_or_raises_oracle_error(hostile, sql or "x", None)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(max_size=10), value=BIND_VALUES)
def test_hostile_bind_names_and_values(hostile, name, value):
    _runs_or_raises_oracle_error(hostile, "SELECT name FROM h WHERE id = :id", {name or "id": value})


def test_the_engine_is_still_usable_after_every_kind_of_error(hostile):
    cur = hostile.cursor()
    for sql in ["SELECT", "SELECT 1 FROM dual;;", "CREATE TABLE", "PRAGMA table_info(h)", "ATTACH DATABASE 'x' AS y",
                "SELECT * FROM sqlite_master", "SELECT load_extension('x') FROM dual", "VACUUM"]:
        with pytest.raises(oracledb.Error):
            cur.execute(sql)
    assert cur.execute("SELECT COUNT(*) FROM h").fetchone() == (3,)
