"""Hierarchical queries and CONNECT BY row generators (issue 18, item 3), against the SQL Language Reference,
"Hierarchical Queries": roots from START WITH, children by the CONNECT BY condition with PRIOR naming the parent,
LEVEL, SYS_CONNECT_BY_PATH, CONNECT_BY_ROOT, ORA-01436 on a loop unless NOCYCLE, WHERE after the hierarchy,
depth-first order without ORDER BY."""
from __future__ import annotations

import oracledb
import pytest

from workshop.embedded import connect, hierarchy


@pytest.fixture(scope="module")
def cur(tmp_path_factory):
    conn = connect(tmp_path_factory.mktemp("cb") / "cb.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE emp (id NUMBER PRIMARY KEY, name VARCHAR2(20), mgr NUMBER)")
    cur.executemany("INSERT INTO emp VALUES (:1, :2, :3)", [
        (1, "King", None), (2, "Jones", 1), (3, "Scott", 2), (4, "Adams", 3), (5, "Blake", 1), (6, "Allen", 5),
        (10, "Loop1", 11), (11, "Loop2", 10)])
    cur.execute("CREATE TABLE store (prefix VARCHAR2(50))")
    cur.executemany("INSERT INTO store VALUES (:1)", [("a.b.c",), ("x.y",), ("z",)])
    conn.commit()
    yield cur
    conn.close()


def run(cur, sql, **binds):
    try:
        return cur.execute(sql, binds).fetchall()
    except oracledb.DatabaseError as exc:
        return f"ORA-{exc.args[0].code:05d}"


TREE = [(1, "King", "/King", "King"), (2, "Jones", "/King/Jones", "King"), (3, "Scott", "/King/Jones/Scott", "King"),
        (4, "Adams", "/King/Jones/Scott/Adams", "King"), (2, "Blake", "/King/Blake", "King"),
        (3, "Allen", "/King/Blake/Allen", "King")]


@pytest.mark.parametrize("sql, binds, expected", [
    ("SELECT LEVEL FROM dual CONNECT BY LEVEL <= 3", {}, [(1,), (2,), (3,)]),
    ("SELECT LEVEL FROM dual CONNECT BY LEVEL <= 0", {}, [(1,)]),                 # the root row is always there
    ("SELECT LEVEL FROM dual CONNECT BY LEVEL < :n", {"n": 3}, [(1,), (2,)]),
    ("SELECT LEVEL FROM dual CONNECT BY LEVEL <= :n", {"n": None}, [(1,)]),
    ("SELECT SUM(LEVEL) FROM dual CONNECT BY LEVEL <= 100", {}, [(5050,)]),
    ("SELECT TO_CHAR(DATE '2024-01-01' + LEVEL - 1, 'DD') d FROM dual CONNECT BY LEVEL <= 3 ORDER BY d DESC", {},
     [("03",), ("02",), ("01",)]),
    # langgraph-oracledb OracleStore.list_namespaces: a generator inside a correlated scalar subquery
    ("SELECT s.prefix, CASE WHEN :num_parts IS NULL THEN s.prefix ELSE (SELECT LISTAGG(REGEXP_SUBSTR(s.prefix, "
     "'[^.]+', 1, LEVEL), '.') WITHIN GROUP (ORDER BY LEVEL) FROM dual CONNECT BY LEVEL <= LEAST(:num_parts, "
     "REGEXP_COUNT(s.prefix, '.') + 1)) END AS t FROM store s ORDER BY s.prefix", {"num_parts": 2},
     [("a.b.c", "a.b"), ("x.y", "x.y"), ("z", "z")]),
], ids=["levels", "zero_keeps_root", "lt_bind", "null_bound", "sum", "dates", "langgraph_list_namespaces"])
def test_row_generator(cur, sql, binds, expected):
    assert run(cur, sql, **binds) == expected


@pytest.mark.parametrize("sql, expected", [
    ("SELECT LEVEL, name, SYS_CONNECT_BY_PATH(name, '/'), CONNECT_BY_ROOT name FROM emp "
     "START WITH mgr IS NULL CONNECT BY PRIOR id = mgr", TREE),
    ("SELECT LEVEL, e.name, SYS_CONNECT_BY_PATH(e.name, '/'), CONNECT_BY_ROOT e.name FROM emp e "
     "START WITH e.mgr IS NULL CONNECT BY e.mgr = PRIOR e.id", TREE),
    ("SELECT name FROM emp WHERE LEVEL = 2 START WITH id = 1 CONNECT BY PRIOR id = mgr", [("Jones",), ("Blake",)]),
    ("SELECT name, LEVEL FROM emp START WITH id = 2 CONNECT BY PRIOR id = mgr AND LEVEL <= 2",
     [("Jones", 1), ("Scott", 2)]),
    ("SELECT name FROM emp START WITH id = 1 CONNECT BY PRIOR id = mgr ORDER BY name",
     [("Adams",), ("Allen",), ("Blake",), ("Jones",), ("King",), ("Scott",)]),
    ("SELECT COUNT(*) FROM emp START WITH id = 1 CONNECT BY PRIOR id = mgr", [(6,)]),
    ("SELECT name FROM emp START WITH id = 10 CONNECT BY PRIOR id = mgr", "ORA-01436"),
    ("SELECT name, LEVEL FROM emp START WITH id = 10 CONNECT BY NOCYCLE PRIOR id = mgr", [("Loop1", 1), ("Loop2", 2)]),
    ("SELECT e.name, (SELECT COUNT(*) FROM emp x START WITH x.id = e.id CONNECT BY PRIOR x.id = x.mgr) FROM emp e "
     "WHERE e.id IN (1, 5) ORDER BY e.id", [("King", 6), ("Blake", 2)]),         # correlated START WITH
    ("SELECT name FROM emp CONNECT BY PRIOR id = mgr ORDER SIBLINGS BY name", "ORA-03001"),
    ("SELECT name, CONNECT_BY_ISLEAF FROM emp START WITH mgr IS NULL CONNECT BY PRIOR id = mgr",
     [("King", 0), ("Jones", 0), ("Scott", 0), ("Adams", 1), ("Blake", 0), ("Allen", 1)]),
    ("SELECT e.name FROM emp e WHERE CONNECT_BY_ISLEAF = 1 START WITH e.id = 2 "
     "CONNECT BY PRIOR e.id = e.mgr AND LEVEL <= 2", [("Scott",)]),           # a leaf under the LEVEL bound too
    ("SELECT CONNECT_BY_ISCYCLE FROM emp CONNECT BY NOCYCLE PRIOR id = mgr", "ORA-03001"),
    ("SELECT e.name FROM emp e JOIN emp m ON m.id = e.mgr CONNECT BY PRIOR e.id = e.mgr", "ORA-03001"),
    ("SELECT LEVEL FROM emp CONNECT BY LEVEL <= 2", "ORA-03001"),
    # a chain by arithmetic: the loop check must see only the pairs the condition joins (it once saw a row paired
    # with itself before the join condition was tested, and raised ORA-01436 on a chain without a loop)
    ("SELECT name FROM emp START WITH id = 1 CONNECT BY PRIOR id = id - 1",
     [("King",), ("Jones",), ("Scott",), ("Adams",), ("Blake",), ("Allen",)]),
    ("SELECT id FROM emp START WITH id = 5 CONNECT BY id = PRIOR id + 1", [(5,), (6,)]),
    ("SELECT id FROM emp START WITH id = 10 CONNECT BY PRIOR id = id - 1", [(10,), (11,)]),
], ids=["tree", "tree_alias_prior_right", "where_after", "level_in_condition", "order_by", "aggregate", "loop",
        "nocycle", "correlated_start_with", "siblings", "isleaf", "isleaf_with_level", "iscycle", "join",
        "generator_not_dual", "chain_minus", "chain_plus", "chain_from_a_loop_row"])
def test_hierarchy(cur, sql, expected):
    assert run(cur, sql) == expected


@pytest.mark.parametrize("sql, headings, rows", [
    ("SELECT * FROM emp START WITH mgr IS NULL CONNECT BY PRIOR id = mgr", ["ID", "NAME", "MGR"],
     [(1, "King", None), (2, "Jones", 1)]),
    ("SELECT * FROM dual CONNECT BY LEVEL <= 2", ["DUMMY"], [("X",), ("X",)]),
    ("SELECT LEVEL, dummy FROM dual d CONNECT BY LEVEL <= 3", ["LEVEL", "DUMMY"], [(1, "X"), (2, "X")]),
    ("SELECT LEVEL, SYS_CONNECT_BY_PATH(name, '/'), CONNECT_BY_ROOT name FROM emp START WITH mgr IS NULL "
     "CONNECT BY PRIOR id = mgr", ["LEVEL", "SYS_CONNECT_BY_PATH(NAME,'/')", "CONNECT_BY_ROOTNAME"],
     [(1, "/King", "King"), (2, "/King/Jones", "King")]),
], ids=["star_hierarchy", "star_generator", "generator_headings", "hierarchy_headings"])
def test_columns_and_headings_are_the_query_s_own(cur, sql, headings, rows):
    """The rewrite's own columns (ROWID, level, path key) never show; headings are the projections as written."""
    cur.execute(sql)
    assert [d[0] for d in cur.description] == headings
    assert cur.fetchall()[:2] == rows


def test_a_generator_that_never_stops_is_ora_30009(cur, monkeypatch):
    monkeypatch.setattr(hierarchy, "MAX_LEVELS", 50)
    assert run(cur, "SELECT COUNT(*) FROM dual CONNECT BY 1 = 1") == "ORA-30009"


@pytest.mark.parametrize("name", ["ORA_CONNECT_BY_GUARD", "ORA_CONNECT_BY_KEY"])
def test_the_engines_connect_by_helpers_are_not_callable_from_sql_text(cur, name):
    """The row generator's own calls are marked as the translator's; written in a statement they are unknown."""
    with pytest.raises(oracledb.DatabaseError, match="ORA-00904"):
        cur.execute(f"SELECT {name}(1, 5) FROM dual")
