"""Where SQLite would answer differently from Oracle, the engine answers as Oracle does. Implicit conversions
first (SQL Language Reference,
"Data Type Comparison Rules" / "Implicit and Explicit Data Conversion": in arithmetic and in comparisons with a
NUMBER, character values are converted to NUMBER; compared with a DATE or TIMESTAMP they are converted to that
type; CAST to NUMBER(p, s) rounds to s and raises ORA-01438 beyond p; INTEGER is NUMBER(38))."""
import oracledb
import pytest

from tests.conftest import ora_code


@pytest.fixture
def emp(cur):
    cur.execute("CREATE TABLE emp (id NUMBER PRIMARY KEY, name VARCHAR2(20), code VARCHAR2(5), hired DATE)")
    cur.executemany("INSERT INTO emp VALUES (:1, :2, :3, TO_DATE(:4, 'YYYY-MM-DD'))",
                    [(1, "Ann", "01", "2020-01-15"), (2, "Bob", "2", "2021-03-01")])
    return cur


@pytest.mark.parametrize("sql, expected", [
    ("SELECT '1' + 1, 2 * '3', -'4', '10' - 1, '7' / 2 FROM dual", (2, 6, -4, 9, 3.5)),
    ("SELECT CAST(3.7 AS INTEGER), CAST(3.75 AS NUMBER(3,1)), CAST(12.5 AS NUMBER(2)), CAST(-2.5 AS INT) FROM dual",
     (4, 3.8, 13, -3)),
])
def test_character_operands_and_casts(cur, sql, expected):
    assert cur.execute(sql).fetchone() == expected


@pytest.mark.parametrize("sql, code", [
    ("SELECT 'abc' + 1 FROM dual", 1722),            # SQLite: 1
    ("SELECT 'abc' * 2 FROM dual", 1722),            # SQLite: 0
    ("SELECT -'x' FROM dual", 1722),
    ("SELECT CAST(123.4 AS NUMBER(2)) FROM dual", 1438),   # SQLite: 123.4
    ("SELECT CAST('x' AS INTEGER) FROM dual", 1722),
])
def test_invalid_numbers_are_errors(cur, sql, code):
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute(sql)
    assert ora_code(info) == code


def test_character_compared_with_number_is_converted_to_number(emp):
    # '01' = 1 on Oracle (TO_NUMBER('01')); SQLite compared text and found nothing
    assert emp.execute("SELECT id FROM emp WHERE code = 1").fetchall() == [(1,)]
    assert emp.execute("SELECT id FROM emp WHERE code > 1").fetchall() == [(2,)]
    assert emp.execute("SELECT id FROM emp WHERE id = '1'").fetchall() == [(1,)]
    assert emp.execute("SELECT id FROM emp WHERE id IN ('1', '02') ORDER BY id").fetchall() == [(1,), (2,)]
    with pytest.raises(oracledb.DatabaseError) as info:     # TO_NUMBER('Ann'); SQLite silently matched nothing
        emp.execute("SELECT id FROM emp WHERE name = 1")
    assert ora_code(info) == 1722
    with pytest.raises(oracledb.DatabaseError) as info:
        emp.execute("SELECT id FROM emp WHERE id = 'one'")
    assert ora_code(info) == 1722


def test_character_compared_with_a_date_is_converted_to_a_date(emp):
    assert emp.execute("SELECT id FROM emp WHERE hired > '2021-01-01'").fetchall() == [(2,)]
    assert emp.execute("SELECT id FROM emp WHERE '2021-01-01' > hired").fetchall() == [(1,)]
    with pytest.raises(oracledb.DatabaseError):           # not a date: an error, not a text comparison
        emp.execute("SELECT id FROM emp WHERE hired > 'soon'")


@pytest.mark.parametrize("sql, code", [
    # SQL Language Reference, "The UNION [ALL], INTERSECT, MINUS Operators": the legs must have the same number of
    # columns and corresponding columns the same datatype group (SQLite mixed text and numbers in one column)
    ("SELECT name FROM emp UNION SELECT id FROM emp", 1790),
    ("SELECT hired FROM emp UNION ALL SELECT 'x' FROM dual", 1790),
    ("SELECT name FROM emp MINUS SELECT 1 FROM dual", 1790),
    ("SELECT name, id FROM emp UNION SELECT name FROM emp", 1789),          # was ORA-20999 (internal error)
    ("SELECT name FROM emp ORDER BY 3", 1785),                               # was ORA-20999
    # CASE: "all of the return_exprs must be of the same data type group" (ORA-00932)
    ("SELECT CASE WHEN id = 1 THEN 1 ELSE 'x' END FROM emp", 932),
    ("SELECT CASE name WHEN 'Ann' THEN hired ELSE 0 END FROM emp", 932),
])
def test_mismatched_query_shapes_are_oracle_errors(emp, sql, code):
    with pytest.raises(oracledb.DatabaseError) as info:
        emp.execute(sql)
    assert ora_code(info) == code


def test_matching_shapes_still_run(emp):
    assert emp.execute("SELECT name, id FROM emp UNION ALL SELECT 'x', NULL FROM dual ORDER BY 2 NULLS FIRST"
                       ).fetchall() == [("x", None), ("Ann", 1), ("Bob", 2)]
    assert emp.execute("SELECT CASE WHEN id = 1 THEN 'one' ELSE name END FROM emp ORDER BY id").fetchall() == [
        ("one",), ("Bob",)]


@pytest.fixture
def docs(cur):
    cur.execute("CREATE TABLE docs (id NUMBER PRIMARY KEY, body CLOB, emb VECTOR(3, FLOAT32))")
    cur.executemany("INSERT INTO docs VALUES (:1, :2, TO_VECTOR(:3))", [(1, "vector search", "[1,0,0]"),
                                                                       (2, "graph memory", "[0,1,0]")])
    return cur


@pytest.mark.parametrize("sql", [
    # "ORA-22848: cannot use VECTOR type as comparison key" (Oracle AI Vector Search: vectors are compared only
    # through VECTOR_DISTANCE and friends); SQLite compared the stored bytes
    "SELECT id FROM docs WHERE emb = emb",
    "SELECT id FROM docs WHERE emb <> TO_VECTOR('[1,0,0]')",
    "SELECT id FROM docs ORDER BY emb",
    "SELECT COUNT(*) FROM docs GROUP BY emb",
    "SELECT DISTINCT emb FROM docs",
    "SELECT emb FROM docs UNION SELECT emb FROM docs",
])
def test_vectors_are_not_comparison_keys(docs, sql):
    with pytest.raises(oracledb.DatabaseError) as info:
        docs.execute(sql)
    assert ora_code(info) == 22848


@pytest.mark.parametrize("sql", [
    # LOB Restrictions (SecureFiles and LOB Developer's Guide): no LOB in comparisons, ORDER BY, GROUP BY, DISTINCT,
    # UNION / MINUS: ORA-00932 inconsistent datatypes: expected - got CLOB
    "SELECT id FROM docs WHERE body = 'graph memory'",
    "SELECT id FROM docs ORDER BY body",
    "SELECT body, COUNT(*) FROM docs GROUP BY body",
    "SELECT DISTINCT body FROM docs",
    "SELECT body FROM docs MINUS SELECT body FROM docs WHERE id = 1",
])
def test_lobs_are_not_comparison_keys(docs, sql):
    with pytest.raises(oracledb.DatabaseError) as info:
        docs.execute(sql)
    assert ora_code(info) == 932


def test_what_oracle_allows_on_vectors_and_lobs(docs):
    assert docs.execute("SELECT id FROM docs ORDER BY VECTOR_DISTANCE(emb, TO_VECTOR('[1,0,0]'), COSINE)"
                        ).fetchall() == [(1,), (2,)]
    assert len(docs.execute("SELECT emb FROM docs UNION ALL SELECT emb FROM docs").fetchall()) == 4
    assert docs.execute("SELECT id FROM docs WHERE body LIKE 'graph%'").fetchall() == [(2,)]
    assert docs.execute("SELECT id FROM docs WHERE DBMS_LOB.SUBSTR(body, 100, 1) = 'graph memory'").fetchall() == [(2,)]
    assert docs.execute("SELECT id FROM docs WHERE body IS NOT NULL ORDER BY id").fetchall() == [(1,), (2,)]


@pytest.mark.parametrize("sql, code", [
    # SELECT, "group_by_clause": HAVING and ORDER BY of a grouped query may refer only to grouping expressions,
    # aggregates, constants (and, in ORDER BY, select-list aliases); SQLite read the column from some row
    ("SELECT code FROM emp GROUP BY code HAVING id > 1", 979),
    ("SELECT code FROM emp GROUP BY code ORDER BY name", 979),
    ("SELECT COUNT(*) FROM emp ORDER BY name", 937),
])
def test_having_and_order_by_see_only_the_groups(emp, sql, code):
    with pytest.raises(oracledb.DatabaseError) as info:
        emp.execute(sql)
    assert ora_code(info) == code


def test_grouped_order_by_with_aliases_aggregates_and_group_keys(emp):
    assert emp.execute("SELECT code c, COUNT(*) n FROM emp GROUP BY code HAVING MAX(id) > 0 ORDER BY n DESC, c"
                       ).fetchall() == [("01", 1), ("2", 1)]
    assert emp.execute("SELECT UPPER(name), COUNT(*) FROM emp GROUP BY UPPER(name) ORDER BY UPPER(name)"
                       ).fetchall() == [("ANN", 1), ("BOB", 1)]
    assert emp.execute("SELECT e.code FROM emp e GROUP BY e.code ORDER BY MAX(e.id) DESC").fetchall() == [("2",), ("01",)]


def test_merge_matching_a_target_row_twice_is_ora_30926(emp, conn):
    """SQL Language Reference, MERGE: a target row can be updated once per statement; two source rows matching it
    raise ORA-30926 (SQLite's UPDATE ... FROM applied one of them)."""
    conn.commit()
    with pytest.raises(oracledb.DatabaseError) as info:
        emp.execute("MERGE INTO emp d USING (SELECT 1 id, 'a' n FROM dual UNION ALL SELECT 1, 'b' FROM dual) s "
                    "ON (d.id = s.id) WHEN MATCHED THEN UPDATE SET d.name = s.n")
    assert ora_code(info) == 30926
    conn.rollback()
    emp.execute("MERGE INTO emp d USING (SELECT :1 id, :2 n FROM dual UNION ALL SELECT 2, 'b' FROM dual) s "
                "ON (d.id = s.id) WHEN MATCHED THEN UPDATE SET d.name = s.n", [1, "a"])
    assert emp.rowcount == 2
    assert emp.execute("SELECT name FROM emp ORDER BY id").fetchall() == [("a",), ("b",)]


@pytest.mark.parametrize("sql, expected", [
    # documented in docs/embedded-engine.md and registered, but sqlglot parses them into typed nodes that the
    # translator refused with ORA-03001 (SQL Language Reference: CEIL, FLOOR, INITCAP, CHR, STDDEV_POP, ...)
    ("SELECT CEIL(2.1), FLOOR(-2.1), CEIL(-2.5), FLOOR(2) FROM dual", (3, -3, -2, 2)),
    ("SELECT INITCAP('hello wORLD'), CHR(65) FROM dual", ("Hello World", "A")),
    ("SELECT VAR_POP(id), VAR_SAMP(id), STDDEV_SAMP(id) FROM emp", (0.25, 0.5, 0.5 ** 0.5)),
])
def test_functions_sqlglot_parses_into_typed_nodes(emp, sql, expected):
    row = emp.execute(sql).fetchone()
    assert row == pytest.approx(expected) if all(isinstance(v, (int, float)) for v in expected) else row == expected


@pytest.mark.parametrize("sql", [
    # "ORA-01427: single-row subquery returns more than one row" (SQL Language Reference, Scalar Subquery
    # Expressions); SQLite returned the first row
    "SELECT (SELECT name FROM emp) FROM dual",
    "SELECT id FROM emp WHERE id = (SELECT id FROM emp)",
    "UPDATE emp SET name = (SELECT name FROM emp) WHERE id = 1",
    "SELECT id, (SELECT x.name FROM emp x WHERE x.id >= e.id) FROM emp e",
])
def test_a_scalar_subquery_returning_two_rows_is_ora_01427(emp, sql):
    with pytest.raises(oracledb.DatabaseError) as info:
        emp.execute(sql)
    assert ora_code(info) == 1427


def test_scalar_subqueries_returning_one_row_keep_their_value_and_type(emp):
    import datetime
    assert emp.execute("SELECT (SELECT name FROM emp WHERE id = 1) FROM dual").fetchall() == [("Ann",)]
    assert emp.execute("SELECT (SELECT hired FROM emp WHERE id = 1) + 1 FROM dual").fetchone() == (
        datetime.datetime(2020, 1, 16),)
    assert emp.execute("SELECT id, (SELECT COUNT(*) FROM emp x WHERE x.id <= e.id) FROM emp e ORDER BY id"
                       ).fetchall() == [(1, 1), (2, 2)]
    assert emp.execute("SELECT (SELECT name FROM emp ORDER BY id DESC FETCH FIRST 1 ROWS ONLY) FROM dual"
                       ).fetchone() == ("Bob",)
    assert emp.execute("SELECT (SELECT name FROM emp WHERE id = 9) FROM dual").fetchone() == (None,)


def test_listagg_distinct_names_itself(emp):
    """LISTAGG (DISTINCT ...) is Oracle SQL the engine does not implement: ORA-03001 naming it (was ORA-20999)."""
    with pytest.raises(oracledb.DatabaseError) as info:
        emp.execute("SELECT LISTAGG(DISTINCT code, ',') WITHIN GROUP (ORDER BY code) FROM emp")
    assert ora_code(info) == 3001 and "LISTAGG (DISTINCT" in str(info.value)


def test_expression_headings_are_written_as_oracle_writes_them(emp):
    """cursor.description names an expression by its text without spaces: `ID+1`, `UPPER(NAME)` (was `"ID"+1`,
    `UPPER("NAME")`, which pandas column names then carried)."""
    emp.execute("SELECT id + 1, UPPER(name), name AS \"Full Name\", name n FROM emp")
    assert [d[0] for d in emp.description] == ["ID+1", "UPPER(NAME)", "Full Name", "N"]
