"""Claim: objects whose quoted names differ only in case ("Tb1" and "TB1") are distinct objects end to end, as on
Oracle (SQL Language Reference, "Database Object Names and Qualifiers": a quoted identifier is case sensitive;
"Database Object Namespaces": tables, views and sequences share one namespace, indexes have their own).

SQLite folds ASCII case in table, view, index, trigger and alias names and has a single namespace for them, so the
engine keeps such an object under a storage name of its own (catalog.assign_storage) and gives a FROM item whose
alias folds onto another a SQLite alias of its own (Scope.claim_alias). Attack table: every statement, plug-in and
dictionary path that names a table, view or index, each run against both twins, each expected to see its own
object only; plus the names that are the same object (unquoted tb1 is "TB1") and the one refusal left (columns).
"""
from __future__ import annotations

import array

import oracledb
import pytest

from tests.conftest import ora_code
from workshop.embedded import connect

LOWER, UPPER = '"Tb1"', "TB1"       # "Tb1" and TB1 (= "TB1"): two tables on Oracle


@pytest.fixture
def cur(tmp_path):
    conn = connect(tmp_path / "twins.db", busy_timeout=2)
    cur = conn.cursor()
    for name, rows in ((LOWER, [(1, "lower one"), (2, "lower two")]), (UPPER, [(10, "upper ten")])):
        cur.execute(f"CREATE TABLE {name} (id NUMBER PRIMARY KEY, body VARCHAR2(100), "
                    f"emb VECTOR(2, FLOAT32))")
        cur.executemany(f"INSERT INTO {name} (id, body, emb) VALUES (:1, :2, :3)",
                        [(i, b, array.array("f", [1.0, float(i)])) for i, b in rows])
    conn.commit()
    yield cur
    conn.close()


def ids(cur, sql, *args):
    return sorted(r[0] for r in cur.execute(sql, *args).fetchall())


#: (case, statement) -> the ids it must return: each twin's statement sees only that twin's rows
READS = [
    ("select-lower", 'SELECT id FROM "Tb1"', [1, 2]),
    ("select-upper", "SELECT id FROM TB1", [10]),
    ("select-upper-quoted", 'SELECT id FROM "TB1"', [10]),
    ("select-unquoted-lower-is-upper", "SELECT id FROM tb1", [10]),
    ("qualified-by-name", 'SELECT "Tb1".id FROM "Tb1"', [1, 2]),
    ("schema-qualified", 'SELECT id FROM workshop."Tb1"', [1, 2]),
    ("aliased", 'SELECT t.id FROM "Tb1" t', [1, 2]),
    ("star", 'SELECT "Tb1".* FROM "Tb1"', [1, 2]),
    ("both-unaliased", 'SELECT "Tb1".id + TB1.id FROM "Tb1", TB1', [11, 12]),
    ("both-star", 'SELECT * FROM TB1, "Tb1"', [10, 10]),
    ("join-on", 'SELECT a.id FROM "Tb1" a JOIN TB1 b ON b.id = a.id * 10', [1]),
    ("correlated", 'SELECT id FROM "Tb1" WHERE EXISTS (SELECT 1 FROM TB1 WHERE TB1.id = "Tb1".id * 10)', [1]),
    ("correlated-reverse", 'SELECT id FROM TB1 WHERE EXISTS (SELECT 1 FROM "Tb1" WHERE "Tb1".id * 10 = TB1.id)',
     [10]),
    ("in-subquery", 'SELECT id FROM TB1 WHERE id IN (SELECT id * 10 FROM "Tb1")', [10]),
    ("union", 'SELECT id FROM "Tb1" UNION ALL SELECT id FROM TB1', [1, 2, 10]),
    ("cte", 'WITH c AS (SELECT id FROM "Tb1") SELECT id FROM c', [1, 2]),
    ("derived", 'SELECT id FROM (SELECT id FROM TB1)', [10]),
    ("rownum", 'SELECT id FROM "Tb1" WHERE ROWNUM <= 5', [1, 2]),
    ("rownum-aggregate", 'SELECT COUNT(*) FROM "Tb1" WHERE ROWNUM <= 5', [2]),
    ("connect-by", 'SELECT id FROM "Tb1" START WITH id = 1 CONNECT BY PRIOR id = id - 1', [1, 2]),
    ("connect-by-upper", "SELECT id FROM TB1 START WITH id = 10 CONNECT BY PRIOR id = id - 1", [10]),
    ("connect-by-root", "SELECT CONNECT_BY_ROOT id FROM TB1 START WITH id > 0 CONNECT BY PRIOR id = id + 90", [10]),
    ("vector-topk", 'SELECT id FROM "Tb1" ORDER BY VECTOR_DISTANCE(emb, TO_VECTOR(\'[1, 2]\'), COSINE) '
                    "FETCH FIRST 5 ROWS ONLY", [1, 2]),
    ("vector-topk-upper", "SELECT id FROM TB1 ORDER BY VECTOR_DISTANCE(emb, TO_VECTOR('[1, 2]'), COSINE) "
                          "FETCH FIRST 5 ROWS ONLY", [10]),
]


@pytest.mark.parametrize("sql, expected", [c[1:] for c in READS], ids=[c[0] for c in READS])
def test_each_twin_reads_its_own_rows(cur, sql, expected):
    assert ids(cur, sql) == expected


#: aliases that differ only in case are distinct too (SQLite folds them onto one another: before the engine gave
#: them SQLite aliases of their own, "correlated-outer" answered with the inner table's value, a wrong answer, and
#: "two-aliases" and "star" raised ORA-00918). Plain tables: no case twins needed.
ALIASES = [
    ("two-aliases", 'SELECT "a".x, "A".x FROM p "a", q "A"', [(1, 2)]),
    ("star", 'SELECT * FROM p "a", q "A"', [(1, 10, 2, 20)]),
    ("correlated-outer", 'SELECT (SELECT "a".x FROM q "A") FROM p "a"', [(1,)]),
    ("correlated-inner", 'SELECT (SELECT "A".x FROM q "A") FROM p "a"', [(2,)]),
    ("correlated-where", 'SELECT "a".x FROM p "a" WHERE EXISTS (SELECT 1 FROM q "A" WHERE "A".x = "a".x + 1)',
     [(1,)]),
    ("derived-alias", 'SELECT "a".y, "A".z FROM p "a", (SELECT z FROM q) "A"', [(10, 20)]),
    ("alias-like-table", 'SELECT "p".x, P.x FROM q "p", p', [(2, 1)]),
    ("three-ways", 'SELECT "ab".x + "AB".x + "Ab".x FROM p "ab", q "AB", p "Ab"', [(4,)]),
]


@pytest.mark.parametrize("sql", ['SELECT A.x FROM q "A", p A', 'SELECT "a".x FROM p "a", q "a"'])
def test_the_same_alias_twice_is_still_ambiguous(plain, sql):
    """Oracle: a qualifier two FROM items answer to is ORA-00918 (renaming must not hide that)."""
    with pytest.raises(oracledb.DatabaseError) as info:
        plain.execute(sql)
    assert ora_code(info) == 918


@pytest.fixture
def plain(tmp_path):
    conn = connect(tmp_path / "aliases.db", busy_timeout=2)
    cur = conn.cursor()
    cur.execute("CREATE TABLE p (x NUMBER, y NUMBER)")
    cur.execute("CREATE TABLE q (x NUMBER, z NUMBER)")
    cur.execute("INSERT INTO p VALUES (1, 10)")
    cur.execute("INSERT INTO q VALUES (2, 20)")
    yield cur
    conn.close()


@pytest.mark.parametrize("sql, expected", [c[1:] for c in ALIASES], ids=[c[0] for c in ALIASES])
def test_aliases_that_differ_only_in_case(plain, sql, expected):
    assert plain.execute(sql).fetchall() == expected


TWIN_ALIASES = [
    ("two-aliases", 'SELECT "a".id, "A".id FROM "Tb1" "a", TB1 "A" WHERE "a".id = 1', [(1, 10)]),
    ("correlated-outer", 'SELECT (SELECT "a".id FROM TB1 "A") FROM "Tb1" "a" ORDER BY 1', [(1,), (2,)]),
    ("alias-like-other-table", 'SELECT "tb1".id FROM TB1 "tb1", "Tb1" WHERE "Tb1".id = 2', [(10,)]),
]


@pytest.mark.parametrize("sql, expected", [c[1:] for c in TWIN_ALIASES], ids=[c[0] for c in TWIN_ALIASES])
def test_twins_under_aliases_that_differ_only_in_case(cur, sql, expected):
    assert cur.execute(sql).fetchall() == expected


WRITES = [
    ("insert", "INSERT INTO TB1 (id, body) VALUES (11, 'x')", [1, 2], [10, 11]),
    ("insert-select", 'INSERT INTO "Tb1" (id, body) SELECT id + 1, body FROM TB1', [1, 2, 11], [10]),
    ("update", "UPDATE \"Tb1\" SET id = id + 100", [101, 102], [10]),
    ("update-aliased", "UPDATE TB1 t SET t.id = 20 WHERE t.id = 10", [1, 2], [20]),
    ("delete", "DELETE FROM TB1", [1, 2], []),
    ("delete-rownum", 'DELETE FROM "Tb1" WHERE ROWNUM <= 5', [], [10]),
    ("merge-insert", "MERGE INTO TB1 t USING (SELECT id FROM \"Tb1\") s ON (t.id = s.id) "
                     "WHEN NOT MATCHED THEN INSERT (id, body) VALUES (s.id, 'merged')", [1, 2], [1, 2, 10]),
    ("merge-update", "MERGE INTO \"Tb1\" t USING TB1 s ON (t.id * 10 = s.id) "
                     "WHEN MATCHED THEN UPDATE SET t.body = s.body", [1, 2], [10]),
    ("truncate", "TRUNCATE TABLE \"Tb1\"", [], [10]),
]


@pytest.mark.parametrize("sql, lower, upper", [c[1:] for c in WRITES], ids=[c[0] for c in WRITES])
def test_each_write_touches_its_own_twin(cur, sql, lower, upper):
    cur.execute(sql)
    assert (ids(cur, 'SELECT id FROM "Tb1"'), ids(cur, "SELECT id FROM TB1")) == (lower, upper)


def test_merge_update_reads_the_right_source(cur):
    cur.execute("MERGE INTO \"Tb1\" t USING TB1 s ON (t.id * 10 = s.id) WHEN MATCHED THEN UPDATE SET t.body = s.body")
    assert cur.execute('SELECT body FROM "Tb1" WHERE id = 1').fetchone() == ("upper ten",)


def test_dictionary_views_show_the_oracle_names_never_storage_names(cur):
    cur.execute('CREATE INDEX "Ix" ON "Tb1" (body)')
    cur.execute("CREATE INDEX IX ON TB1 (body)")
    cur.execute('CREATE VIEW "Vw" AS SELECT id FROM "Tb1"')
    cur.execute("CREATE VIEW VW AS SELECT id FROM TB1")
    assert cur.execute("SELECT table_name FROM user_tables WHERE upper(table_name) = 'TB1' ORDER BY 1"
                       ).fetchall() == [("TB1",), ("Tb1",)]
    assert cur.execute("SELECT index_name, table_name FROM user_indexes WHERE upper(index_name) = 'IX' ORDER BY 1"
                       ).fetchall() == [("IX", "TB1"), ("Ix", "Tb1")]
    assert cur.execute("SELECT view_name FROM user_views ORDER BY 1").fetchall() == [("VW",), ("Vw",)]
    assert cur.execute("SELECT DISTINCT table_name FROM user_tab_columns WHERE upper(table_name) = 'TB1' "
                       "ORDER BY 1").fetchall() == [("TB1",), ("Tb1",)]
    names = [r[0] for r in cur.execute("SELECT object_name FROM user_objects")]
    assert not [n for n in names if "#" in n]
    assert ids(cur, 'SELECT id FROM "Vw"') == [1, 2] and ids(cur, "SELECT id FROM VW") == [10]


def test_an_index_may_share_a_tables_name(cur):
    """Indexes have a namespace of their own: an index TB1 on "Tb1" beside the table TB1."""
    cur.execute('CREATE INDEX TB1 ON "Tb1" (body)')
    cur.execute('CREATE INDEX "Tb1" ON TB1 (body)')
    assert cur.execute("SELECT index_name, table_name FROM user_indexes WHERE index_type = 'NORMAL' "
                       "AND upper(index_name) = 'TB1' ORDER BY 1").fetchall() == [("TB1", "Tb1"), ("Tb1", "TB1")]
    cur.execute("DROP INDEX TB1")
    assert ids(cur, "SELECT id FROM TB1") == [10]
    cur.execute('DROP INDEX "Tb1"')
    assert ids(cur, 'SELECT id FROM "Tb1"') == [1, 2]


SAME_OBJECT = [
    ("unquoted-is-upper", "CREATE TABLE tb1 (x NUMBER)", 955),
    ("quoted-upper", 'CREATE TABLE "TB1" (x NUMBER)', 955),
    ("exact-twin", 'CREATE TABLE "Tb1" (x NUMBER)', 955),
    ("view-in-table-namespace", 'CREATE VIEW "Tb1" AS SELECT 1 x FROM dual', 955),
    ("sequence-in-table-namespace", 'CREATE SEQUENCE "Tb1"', 955),
]


@pytest.mark.parametrize("sql, code", [c[1:] for c in SAME_OBJECT], ids=[c[0] for c in SAME_OBJECT])
def test_the_same_name_is_still_the_same_object(cur, sql, code):
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute(sql)
    assert ora_code(info) == code


def test_a_third_twin_and_a_name_like_a_storage_name(cur):
    cur.execute('CREATE TABLE "tB1" (id NUMBER)')
    cur.execute('CREATE TABLE "TB1#2" (id NUMBER)')
    cur.execute('CREATE TABLE "tb1#2" (id NUMBER)')
    for n, name in enumerate(['"tB1"', '"TB1#2"', '"tb1#2"']):
        cur.execute(f"INSERT INTO {name} VALUES ({100 + n})")
    got = {name: ids(cur, f"SELECT id FROM {name}") for name in ['"Tb1"', "TB1", '"tB1"', '"TB1#2"', '"tb1#2"']}
    assert got == {'"Tb1"': [1, 2], "TB1": [10], '"tB1"': [100], '"TB1#2"': [101], '"tb1#2"': [102]}


def test_drop_one_twin_keeps_the_other_and_a_new_twin_is_distinct(cur):
    cur.execute('DROP TABLE "Tb1" PURGE')
    assert ids(cur, "SELECT id FROM TB1") == [10]
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute('SELECT id FROM "Tb1"')
    assert ora_code(info) == 942
    cur.execute('CREATE TABLE "Tb1" (id NUMBER)')
    cur.execute('INSERT INTO "Tb1" VALUES (7)')
    assert (ids(cur, 'SELECT id FROM "Tb1"'), ids(cur, "SELECT id FROM TB1")) == ([7], [10])
    cur.execute("DROP TABLE TB1")
    cur.execute('DROP TABLE "Tb1"')
    assert cur.connection._engine.db.execute('SELECT COUNT(*) FROM "ORA$STORAGE"').fetchone() == (0,)


def test_ddl_on_each_twin(cur):
    cur.execute('ALTER TABLE "Tb1" ADD (note VARCHAR2(10))')
    cur.execute("COMMENT ON TABLE TB1 IS 'upper'")
    cur.execute('COMMENT ON TABLE "Tb1" IS \'lower\'')
    assert [r[0] for r in cur.execute('SELECT column_name FROM user_tab_columns WHERE table_name = \'Tb1\' '
                                      "ORDER BY column_id")] == ["ID", "BODY", "EMB", "NOTE"]
    assert [r[0] for r in cur.execute("SELECT column_name FROM user_tab_columns WHERE table_name = 'TB1' "
                                      "ORDER BY column_id")] == ["ID", "BODY", "EMB"]
    assert cur.execute("SELECT table_name, comments FROM user_tab_comments WHERE upper(table_name) = 'TB1' "
                       "ORDER BY 1").fetchall() == [("TB1", "upper"), ("Tb1", "lower")]


def test_a_foreign_key_is_checked_against_the_twin_it_names(cur):
    cur.execute('CREATE TABLE child (id NUMBER, parent NUMBER REFERENCES "Tb1" (id))')
    cur.execute("INSERT INTO child VALUES (1, 2)")           # 2 is in "Tb1", not in TB1
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute("INSERT INTO child VALUES (2, 10)")     # 10 is in TB1 only
    assert ora_code(info) == 2291


def test_a_self_reference_on_a_twin(cur):
    cur.execute('CREATE TABLE "tb1" (id NUMBER PRIMARY KEY, parent NUMBER REFERENCES "tb1" (id))')
    cur.execute('INSERT INTO "tb1" VALUES (1, NULL)')
    cur.execute('INSERT INTO "tb1" VALUES (2, 1)')
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute('INSERT INTO "tb1" VALUES (3, 99)')
    assert ora_code(info) == 2291


def test_vector_index_and_top_k_on_each_twin(cur):
    cur.execute('CREATE VECTOR INDEX "vx" ON "Tb1" (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE')
    cur.execute("CREATE VECTOR INDEX VX ON TB1 (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE")
    query = "SELECT id FROM {} ORDER BY VECTOR_DISTANCE(emb, TO_VECTOR('[1, 2]'), COSINE) FETCH FIRST 1 ROWS ONLY"
    assert ids(cur, query.format('"Tb1"')) == [2] and ids(cur, query.format("TB1")) == [10]
    cur.execute("INSERT INTO TB1 (id, emb) VALUES (3, TO_VECTOR('[1, 2]'))")    # the cache sees TB1's new row
    assert ids(cur, query.format("TB1")) == [3] and ids(cur, query.format('"Tb1"')) == [2]


def test_text_index_and_contains_on_each_twin(cur):
    cur.execute('CREATE INDEX "tx" ON "Tb1" (body) INDEXTYPE IS CTXSYS.CONTEXT')
    cur.execute("CREATE INDEX TX ON TB1 (body) INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')")
    assert ids(cur, "SELECT id FROM \"Tb1\" WHERE CONTAINS(body, 'lower OR upper') > 0") == [1, 2]
    assert ids(cur, "SELECT id FROM TB1 WHERE CONTAINS(body, 'lower OR upper') > 0") == [10]
    cur.execute("INSERT INTO TB1 (id, body) VALUES (12, 'upper twelve')")
    cur.connection.commit()
    assert ids(cur, "SELECT id FROM TB1 WHERE CONTAINS(body, 'upper') > 0") == [10, 12]
    cur.execute("BEGIN CTX_DDL.SYNC_INDEX('\"tx\"'); END;")
    cur.execute('DROP INDEX "tx"')
    assert ids(cur, "SELECT id FROM TB1 WHERE CONTAINS(body, 'twelve') > 0") == [12]
    with pytest.raises(oracledb.DatabaseError):
        cur.execute("SELECT id FROM \"Tb1\" WHERE CONTAINS(body, 'lower') > 0")


def test_row_level_security_on_one_twin_only(cur):
    cur.execute("""CREATE OR REPLACE FUNCTION only_one(p_schema IN VARCHAR2, p_object IN VARCHAR2)
                   RETURN VARCHAR2 IS BEGIN RETURN 'id = 1'; END;""")
    cur.execute("""BEGIN DBMS_RLS.ADD_POLICY(object_schema => USER, object_name => '"Tb1"', policy_name => 'ONE',
                   function_schema => USER, policy_function => 'ONLY_ONE', statement_types => 'SELECT,UPDATE',
                   update_check => TRUE); END;""")
    assert ids(cur, 'SELECT id FROM "Tb1"') == [1]
    assert ids(cur, "SELECT id FROM TB1") == [10]
    assert ids(cur, 'SELECT a.id FROM "Tb1" a, TB1 b') == [1]
    cur.execute("UPDATE TB1 SET id = 5")                       # TB1 has no policy: no check option
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute('UPDATE "Tb1" SET id = 3')                 # the policy's check option, on "Tb1" only
    assert ora_code(info) == 28115


def test_the_twins_survive_a_new_session(cur, tmp_path):
    cur.execute('CREATE INDEX "Ix" ON "Tb1" (body)')
    cur.execute("CREATE INDEX IX ON TB1 (body)")
    cur.connection.commit()
    other = connect(tmp_path / "twins.db", busy_timeout=2)
    try:
        c2 = other.cursor()
        assert (ids(c2, 'SELECT id FROM "Tb1"'), ids(c2, "SELECT id FROM TB1")) == ([1, 2], [10])
        c2.execute("DROP INDEX IX")
        assert [r[0] for r in c2.execute("SELECT index_name FROM user_indexes WHERE upper(index_name) = 'IX'")] \
            == ["Ix"]
    finally:
        other.close()


def test_tables_named_like_the_dictionary_in_lower_case(cur):
    """"dual" and "user_tables" are legal table names of their own (the dictionary's are DUAL and USER_TABLES)."""
    cur.execute('CREATE TABLE "dual" (dummy VARCHAR2(1))')
    cur.execute('CREATE TABLE "user_tables" (table_name VARCHAR2(10))')
    cur.execute("INSERT INTO \"dual\" VALUES ('Y')")
    cur.execute("INSERT INTO \"user_tables\" VALUES ('mine')")
    assert cur.execute('SELECT dummy FROM "dual"').fetchall() == [("Y",)]
    assert cur.execute("SELECT dummy FROM dual").fetchall() == [("X",)]
    assert cur.execute('SELECT table_name FROM "user_tables"').fetchall() == [("mine",)]
    assert ("Tb1",) in cur.execute("SELECT table_name FROM user_tables").fetchall()


def test_sequences_that_differ_only_in_case(cur):
    cur.execute('CREATE SEQUENCE "Sq" START WITH 100')
    cur.execute("CREATE SEQUENCE SQ START WITH 1")
    assert cur.execute('SELECT "Sq".NEXTVAL, SQ.NEXTVAL FROM dual').fetchone() == (100, 1)


def test_columns_that_differ_only_in_case_are_refused_by_name(cur):
    """The one case left: two columns of one table ("a" and "A"). Oracle accepts them; SQLite folds column names
    and the engine does not map them, so it says so (ORA-03001) rather than answer wrongly."""
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute('CREATE TABLE cols ("a" NUMBER, "A" NUMBER)')
    assert ora_code(info) == 3001
