"""Query semantics that differ between Oracle and SQLite: the engine must give Oracle's answers."""
import datetime as dt

import oracledb
import pytest

from tests.conftest import ora_code


@pytest.fixture
def people(cur):
    cur.execute("CREATE TABLE emp (id NUMBER PRIMARY KEY, name VARCHAR2(30), dept VARCHAR2(10), sal NUMBER(8,2), "
                "mgr NUMBER, hired DATE)")
    rows = [(1, "Ada", "ENG", 5000, None, dt.datetime(2020, 1, 15)),
            (2, "Grace", "ENG", 6000, 1, dt.datetime(2021, 3, 1)),
            (3, "Linus", "OPS", 4000, 1, dt.datetime(2019, 7, 30)),
            (4, "Barbara", "OPS", 4500, 3, dt.datetime(2022, 11, 2)),
            (5, "Ken", None, 3000, 3, dt.datetime(2023, 5, 5))]
    cur.executemany("INSERT INTO emp VALUES (:1, :2, :3, :4, :5, :6)", rows)
    cur.connection.commit()
    return cur


def test_empty_string_is_null_and_concat_ignores_null(cur):
    cur.execute("SELECT 'a' || NULL || 'b', NVL('', 'was null'), LENGTH(''), "
                "CASE WHEN '' IS NULL THEN 'yes' END FROM dual")
    assert cur.fetchone() == ("ab", "was null", None, "yes")


def test_division_and_numbers(cur):
    cur.execute("SELECT 1/4, 7/7, MOD(-7, 3), ROUND(2.5), ROUND(-2.5), TRUNC(2.78, 1) FROM dual")
    assert cur.fetchone() == (0.25, 1, -1, 3, -3, 2.7)
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("SELECT 1/0 FROM dual")
    assert ora_code(exc) == 1476


def test_case_sensitive_like_and_string_functions(people):
    people.execute("SELECT name FROM emp WHERE name LIKE 'a%' ORDER BY id")
    assert people.fetchall() == []
    people.execute("SELECT name FROM emp WHERE name LIKE 'A%'")
    assert people.fetchall() == [("Ada",)]
    people.execute("SELECT SUBSTR(name, 2, 3), INSTR(name, 'a'), UPPER(name), LPAD(id, 3, '0') FROM emp WHERE id = 4")
    assert people.fetchone() == ("arb", 2, "BARBARA", "004")


def test_joins_including_full_outer(people):
    people.execute("""SELECT e.name, m.name FROM emp e LEFT JOIN emp m ON e.mgr = m.id ORDER BY e.id""")
    assert people.fetchall() == [("Ada", None), ("Grace", "Ada"), ("Linus", "Ada"), ("Barbara", "Linus"),
                                 ("Ken", "Linus")]
    people.execute("""WITH a AS (SELECT 1 AS k FROM dual UNION ALL SELECT 2 FROM dual),
                          b AS (SELECT 2 AS k FROM dual UNION ALL SELECT 3 FROM dual)
                      SELECT a.k, b.k FROM a FULL OUTER JOIN b ON a.k = b.k ORDER BY COALESCE(a.k, b.k)""")
    assert people.fetchall() == [(1, None), (2, 2), (None, 3)]


def test_group_by_window_and_listagg(people):
    people.execute("""SELECT dept, COUNT(*), SUM(sal), LISTAGG(name, ', ') WITHIN GROUP (ORDER BY name DESC)
                      FROM emp WHERE dept IS NOT NULL GROUP BY dept ORDER BY dept""")
    assert people.fetchall() == [("ENG", 2, 11000, "Grace, Ada"), ("OPS", 2, 8500, "Linus, Barbara")]
    people.execute("""SELECT name, RANK() OVER (ORDER BY sal DESC) r,
                      ROW_NUMBER() OVER (PARTITION BY dept ORDER BY sal) rn FROM emp ORDER BY r""")
    assert [r[:2] for r in people.fetchall()] == [("Grace", 1), ("Ada", 2), ("Barbara", 3), ("Linus", 4), ("Ken", 5)]


def test_nulls_ordering_follows_oracle(people):
    people.execute("SELECT dept FROM emp ORDER BY dept")
    assert people.fetchall()[-1] == (None,)   # ASC: NULLS LAST
    people.execute("SELECT dept FROM emp ORDER BY dept DESC")
    assert people.fetchall()[0] == (None,)    # DESC: NULLS FIRST


def test_fetch_offset_and_rownum(people):
    people.execute("SELECT id FROM emp ORDER BY id OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY")
    assert people.fetchall() == [(2,), (3,)]
    people.execute("SELECT id FROM emp ORDER BY sal DESC FETCH FIRST 1 ROWS ONLY")
    assert people.fetchall() == [(2,)]
    people.execute("SELECT id FROM (SELECT id FROM emp ORDER BY sal) WHERE ROWNUM <= 2")
    assert people.fetchall() == [(5,), (3,)]
    people.execute("SELECT COUNT(*) FROM emp WHERE ROWNUM < 1")
    assert people.fetchone() == (0,)
    # ROWNUM is assigned before ORDER BY in the same block: 2 arbitrary rows, then sorted.
    people.execute("SELECT id FROM emp WHERE ROWNUM <= 2 ORDER BY id DESC")
    ids = [r[0] for r in people.fetchall()]
    assert len(ids) == 2 and ids == sorted(ids, reverse=True)
    people.execute("SELECT ROWNUM, name FROM emp WHERE id > 3")  # unordered: any order of the two rows
    rows = people.fetchall()
    assert [r[0] for r in rows] == [1, 2] and {r[1] for r in rows} == {"Barbara", "Ken"}


def test_decode_nvl2_greatest_and_dates(people):
    people.execute("SELECT DECODE(dept, 'ENG', 'engineering', NULL, 'none', 'other'), NVL2(mgr, 'has', 'top'), "
                   "GREATEST(sal, 4200) FROM emp ORDER BY id")
    rows = people.fetchall()
    assert rows[0] == ("engineering", "top", 5000)
    assert rows[4] == ("none", "has", 4200)
    people.execute("SELECT hired, TO_CHAR(hired, 'YYYY-MM-DD'), EXTRACT(YEAR FROM hired), hired + 1 "
                   "FROM emp WHERE id = 1")
    hired, text, year, next_day = people.fetchone()
    assert hired == dt.datetime(2020, 1, 15) and text == "2020-01-15" and year == 2020
    assert next_day == dt.datetime(2020, 1, 16)
    people.execute("SELECT COUNT(*) FROM emp WHERE hired > TO_DATE('2021-01-01', 'YYYY-MM-DD')")
    assert people.fetchone() == (3,)


def test_binds_named_positional_and_errors(people):
    people.execute("SELECT name FROM emp WHERE id = :id", id=2)
    assert people.fetchone() == ("Grace",)
    people.execute("SELECT name FROM emp WHERE id = :1 OR id = :2 ORDER BY id", [1, 3])
    assert people.fetchall() == [("Ada",), ("Linus",)]
    people.execute("SELECT name FROM emp WHERE id = :ID", {"id": 5})
    assert people.fetchone() == ("Ken",)
    with pytest.raises(oracledb.DatabaseError, match="^DPY-4010:"):  # python-oracledb checks before sending
        people.execute("SELECT name FROM emp WHERE id = :id")
    with pytest.raises(oracledb.DatabaseError) as exc:
        people.execute("SELECT nope FROM emp")
    assert ora_code(exc) == 904
    with pytest.raises(oracledb.DatabaseError) as exc:
        people.execute("SELECT name FROM emp WHERE")
    assert ora_code(exc) in (900, 933, 936)


def test_hostile_strings_are_data_not_sql(people):
    evil = "x'; DROP TABLE emp; --"
    people.execute("INSERT INTO emp (id, name) VALUES (:1, :2)", [9, evil])
    people.execute("SELECT name FROM emp WHERE id = 9")
    assert people.fetchone() == (evil,)
    people.execute("SELECT COUNT(*) FROM emp")
    assert people.fetchone() == (6,)


def test_description_and_fetch_api(people):
    people.arraysize = 2
    people.execute("SELECT id, name, sal FROM emp ORDER BY id")
    assert [d[0] for d in people.description] == ["ID", "NAME", "SAL"]
    assert people.description[0].type_code is oracledb.DB_TYPE_NUMBER
    assert people.fetchmany() == [(1, "Ada", 5000), (2, "Grace", 6000)]
    assert people.fetchone() == (3, "Linus", 4000)
    assert len(list(people)) == 2
    people.execute("SELECT sal FROM emp WHERE id = 1")
    assert isinstance(people.fetchone()[0], int)


@pytest.mark.parametrize("n, expected", [(None, 0), (-1, 0), (0, 0), (1.5, 1), (2, 2), ("3", 3)])
def test_fetch_first_bind_follows_oracle(people, n, expected):
    people.execute("SELECT id FROM emp ORDER BY id FETCH FIRST :n ROWS ONLY", n=n)
    assert len(people.fetchall()) == expected


def test_internal_errors_do_not_look_like_a_lost_connection(cur):
    from workshop.embedded.errors import from_sqlite
    import sqlite3
    err = from_sqlite(sqlite3.OperationalError("something odd"))
    assert "DPY-4011" not in str(err) and err.args[0].code == 20999


@pytest.mark.parametrize("sql, code", [
    ("SELECT dept, COUNT(*) AS n FROM emp ORDER BY n DESC", 937),
    ("SELECT dept, name, COUNT(*) FROM emp GROUP BY dept", 979),
])
def test_bare_columns_beside_aggregates_are_errors(people, sql, code):
    with pytest.raises(oracledb.DatabaseError) as exc:
        people.execute(sql)
    assert ora_code(exc) == code


def test_grouping_forms_oracle_accepts(people):
    people.execute("SELECT e.dept, COUNT(*) FROM emp e GROUP BY dept ORDER BY 1")
    assert people.fetchall()[0] == ("ENG", 2)
    people.execute("SELECT UPPER(dept), COUNT(*) + 1 FROM emp GROUP BY UPPER(dept) ORDER BY 1")
    assert people.fetchall()[0] == ("ENG", 3)


def test_binds_dropped_by_a_rewrite_are_still_legal(cur):
    cur.execute("CREATE TABLE v (id NUMBER PRIMARY KEY)")
    cur.execute("CREATE TABLE w (id NUMBER PRIMARY KEY)")
    cur.execute("CREATE TABLE e (s NUMBER, d NUMBER, PRIMARY KEY (s, d))")
    cur.execute("CREATE PROPERTY GRAPH g VERTEX TABLES (v KEY (id) LABEL vee, w KEY (id) LABEL dub) "
                "EDGE TABLES (e KEY (s, d) SOURCE KEY (s) REFERENCES v (id) DESTINATION KEY (d) REFERENCES w (id) "
                "LABEL link)")
    # links only go v -> w: this pattern cannot match, the compiled query drops :seed, and binding it is still legal
    cur.execute("SELECT id FROM GRAPH_TABLE(g MATCH (a IS dub) -[IS link]-> (b IS vee) WHERE a.id = :seed "
                "COLUMNS (b.id AS id))", seed=1)
    assert cur.fetchall() == []
