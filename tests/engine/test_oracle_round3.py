"""Issue 18, items 2, 3 (IGNORE_ROW_ON_DUPKEY_INDEX), 4 and 7: leniencies closed, the duplicate-key hint,
transactions as Oracle has them, and two behaviours the libraries rely on. Each case names the page it rests on."""
from __future__ import annotations

import oracledb
import pytest

from workshop.embedded import connect


def code_of(cur, sql, *args):
    try:
        cur.execute(sql, *args)
    except oracledb.DatabaseError as exc:
        return exc.args[0].code
    return None


def outcome_of_last(tmp_path, statements) -> str | None:
    """Run all but the last statement on a new database, then the last: "ORA-nnnnn" for its error, None if it ran."""
    conn = connect(tmp_path / "outcome.db")
    try:
        cur = conn.cursor()
        for sql in statements[:-1]:
            cur.execute(sql)
        got = code_of(cur, statements[-1])
    finally:
        conn.close()
    return f"ORA-{got:05d}" if got else None


@pytest.fixture
def cur(tmp_path):
    conn = connect(tmp_path / "r3.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE m (v INTEGER PRIMARY KEY, u VARCHAR2(5) CONSTRAINT m_u UNIQUE, n NUMBER NOT NULL)")
    cur.execute("INSERT INTO m VALUES (1, 'a', 1)")
    conn.commit()
    yield cur
    conn.close()


# --------------------------------------------------------------------------- item 2: IN ()
@pytest.mark.parametrize("sql", [
    "SELECT * FROM m WHERE v IN ()",
    "SELECT * FROM m WHERE v NOT IN ()",
    "DELETE FROM m WHERE v IN ()",                 # what langchain-oracledb's OracleVS.delete([]) builds
    "UPDATE m SET n = 2 WHERE v IN ( )",
], ids=["select", "not_in", "delete", "update"])
def test_empty_in_list_is_missing_expression(cur, sql):
    """SQL Language Reference, "IN Condition": the expression list holds one expression at least."""
    assert code_of(cur, sql) == 936


# --------------------------------------------------------------------------- item 3: IGNORE_ROW_ON_DUPKEY_INDEX
@pytest.mark.parametrize("sql, binds, expected, rows", [
    ("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m (v)) */ INTO m VALUES (1, 'b', 1)", (), 0, [(1, "a", 1)]),
    ("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m, m_u) */ INTO m VALUES (3, 'a', 1)", (), 0, [(1, "a", 1)]),
    ("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m (v)) */ INTO m VALUES (2, 'b', 1)", (), 1,
     [(1, "a", 1), (2, "b", 1)]),
    ("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m (v)) */ INTO m SELECT 1, 'z', 1 FROM dual", (), 0, [(1, "a", 1)]),
    ("INSERT /*+ APPEND IGNORE_ROW_ON_DUPKEY_INDEX(M (V)) */ INTO m VALUES (:1, 'c', 1)", (1,), 0, [(1, "a", 1)]),
    ("/* first */ INSERT --+ IGNORE_ROW_ON_DUPKEY_INDEX(m (v))\n INTO m VALUES (1, 'c', 1)", (), 0, [(1, "a", 1)]),
    # the other unique key, NOT NULL: still raised
    ("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m (v)) */ INTO m VALUES (2, 'a', 1)", (), "ORA-00001", None),
    ("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m (v)) */ INTO m VALUES (1, 'c', NULL)", (), "ORA-01400", None),
    # not a unique key of the table; not an INSERT
    ("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m (n)) */ INTO m VALUES (1, 'c', 1)", (), "ORA-38913", None),
    ("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m, no_such) */ INTO m VALUES (1, 'c', 1)", (), "ORA-38913", None),
    ("UPDATE /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m (v)) */ m SET n = 2", (), "ORA-38917", None),
    # a plain comment, or a hint of another name, changes nothing
    ("INSERT /* IGNORE_ROW_ON_DUPKEY_INDEX(m (v)) */ INTO m VALUES (1, 'b', 1)", (), "ORA-00001", None),
    ("INSERT /*+ APPEND */ INTO m VALUES (1, 'b', 1)", (), "ORA-00001", None),
    ("INSERT INTO m /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m (v)) */ VALUES (1, 'b', 1)", (), "ORA-00001", None),
    ("INSERT -- IGNORE_ROW_ON_DUPKEY_INDEX(m (v))\n INTO m VALUES (1, 'b', 1)", (), "ORA-00001", None),
    ("INSERT /*+ sqlglot.meta ignore_row_on_dupkey_index */ INTO m VALUES (1, 'b', 1)", (), "ORA-00001", None),
], ids=["pk_dup_ignored", "named_unique_ignored", "new_row", "insert_select", "case_and_other_hints", "dash_hint",
        "other_key_raises", "not_null_raises", "not_a_key", "unknown_index", "update_refused",
        "plain_comment", "other_hint", "misplaced_hint", "dash_comment", "meta_comment"])
def test_ignore_row_on_dupkey_index(cur, sql, binds, expected, rows):
    """SQL Language Reference, "Comments" > IGNORE_ROW_ON_DUPKEY_INDEX: the one hint with a semantic effect; the
    named key's duplicates are skipped, other errors stand, ORA-38913 for an index that is not a unique key of the
    table, ORA-38917 in UPDATE or MERGE."""
    try:
        cur.execute(sql, binds)
    except oracledb.DatabaseError as exc:
        assert f"ORA-{exc.args[0].code:05d}" == expected
        return
    assert cur.rowcount == expected
    assert cur.execute("SELECT * FROM m ORDER BY v").fetchall() == rows


def test_ignore_row_on_dupkey_index_executemany(cur):
    cur.executemany("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(m (v)) */ INTO m (v, u, n) VALUES (:1, NULL, 1)",
                    [(1,), (5,), (5,)])
    assert cur.rowcount == 1
    assert cur.execute("SELECT v FROM m ORDER BY v").fetchall() == [(1,), (5,)]


def test_langgraph_setup_twice_is_a_no_op(tmp_path):
    """OracleSaver.setup() in two kernels at once: both insert the migration rows with the hint."""
    a, b = connect(tmp_path / "lg.db"), connect(tmp_path / "lg.db")
    a.cursor().execute("CREATE TABLE IF NOT EXISTS checkpoint_migrations (v INTEGER PRIMARY KEY)")
    for conn in (a, b):
        cur = conn.cursor()
        cur.execute("CREATE TABLE IF NOT EXISTS checkpoint_migrations (v INTEGER PRIMARY KEY)")
        for v in range(3):
            cur.execute("INSERT /*+ IGNORE_ROW_ON_DUPKEY_INDEX(checkpoint_migrations (v)) */ INTO "
                        "checkpoint_migrations (v) VALUES (:1)", (v,))
        conn.commit()
    assert a.cursor().execute("SELECT COUNT(*) FROM checkpoint_migrations").fetchone() == (3,)


# --------------------------------------------------------------------------- item 4: transactions
@pytest.fixture
def two(tmp_path, monkeypatch):
    from workshop.embedded import engine as engine_module
    monkeypatch.setattr(engine_module, "DEFAULT_BUSY_TIMEOUT_S", 0.3)
    a, b = connect(tmp_path / "tx.db"), connect(tmp_path / "tx.db")
    a.cursor().execute("CREATE TABLE t (id NUMBER)")
    yield a, b
    a.close()
    b.close()


@pytest.mark.parametrize("statement", [
    "begin DBMS_VECTOR_CHAIN.DROP_PREFERENCE('NO_SUCH_PREFERENCE'); end;",   # langchain's cleanup of a missing one
    "begin DBMS_RLS.DROP_POLICY('WORKSHOP', 'T', 'NO_SUCH_POLICY'); end;",
    "DELETE FROM t WHERE id = 5",                                            # changes no row
    "UPDATE t SET id = 1 WHERE 1 = 0",
    "INSERT INTO t VALUES ('x')",                                            # fails
    "CREATE TABLE t (x NUMBER)",                                             # failed DDL
    "SELECT * FROM t",
], ids=["failed_drop_preference", "failed_drop_policy", "delete_nothing", "update_nothing", "failed_insert",
        "failed_ddl", "query"])
def test_a_session_without_changes_holds_no_lock(two, statement):
    """An Oracle session holds a transaction (and its locks) only once it changed something; the engine's SQLite
    write lock made the other session wait and fail with ORA-00054 (the real cause of the async hybrid tests'
    ORA-00054: a failed DROP_PREFERENCE in one connection left BEGIN IMMEDIATE open)."""
    a, b = two
    code_of(a.cursor(), statement)
    b.cursor().execute("INSERT INTO t VALUES (1)")
    b.commit()


def test_changes_keep_the_lock_until_commit(two):
    a, b = two
    a.cursor().execute("INSERT INTO t VALUES (1)")
    a.cursor().execute("DELETE FROM t WHERE id = 99")                        # no row, but a transaction is open
    assert code_of(b.cursor(), "INSERT INTO t VALUES (2)") == 54
    a.commit()
    b.cursor().execute("INSERT INTO t VALUES (2)")


def test_ddl_procedures_commit_before_and_after(two):
    """SQL Language Reference, "Types of SQL Statements": DDL commits before and after; the supplied procedures that
    create dictionary objects do the same, also when they fail."""
    a, b = two
    a.cursor().execute("INSERT INTO t VALUES (7)")
    assert code_of(a.cursor(), "begin DBMS_VECTOR_CHAIN.DROP_PREFERENCE('NO_SUCH'); end;") == 20000
    a.rollback()
    assert b.cursor().execute("SELECT id FROM t").fetchall() == [(7,)]       # committed before the procedure ran


def test_savepoint_keeps_its_transaction(cur):
    cur.execute("SAVEPOINT s1")
    cur.execute("DELETE FROM m WHERE v = 99")
    cur.execute("ROLLBACK TO SAVEPOINT s1")


# --------------------------------------------------------------------------- item 7
def test_create_index_if_not_exists_on_a_primary_key_column_list(cur):
    """langgraph-oracledb's OracleStore.setup(): `CREATE INDEX IF NOT EXISTS idx ON store_configs(table_suffix)`
    over the primary key works on 23ai Free; without IF NOT EXISTS it is ORA-01408 (verify_oracle E18-IDX)."""
    cur.execute("CREATE INDEX IF NOT EXISTS m_v_idx ON m (v) ONLINE")
    assert code_of(cur, "CREATE INDEX m_v_idx2 ON m (v)") == 1408
    assert cur.execute("SELECT COUNT(*) FROM user_indexes WHERE index_name LIKE 'M_V_IDX%'").fetchone() == (0,)


@pytest.mark.parametrize("sql, code", [
    ("MERGE INTO m d USING (SELECT 9 v FROM dual) s ON (d.v = s.v) "
     "WHEN NOT MATCHED THEN INSERT (v, u, n) VALUES (s.v, 'q', 1);", None),
    ("MERGE INTO m d USING (SELECT 9 v FROM dual) s ON (d.v = s.v) "
     "WHEN NOT MATCHED THEN INSERT (v, u, n) VALUES (s.v, 'q', 1);;", 933),
    ("INSERT INTO m VALUES (9, 'q', 1);", 933),
    ("SELECT * FROM m;", 933),
], ids=["merge_semicolon", "merge_two_semicolons", "insert_semicolon", "select_semicolon"])
def test_trailing_semicolon(cur, sql, code):
    """One trailing `;` after a MERGE runs (langgraph-oracledb's store MERGE ends in one; verify_oracle E18-MERGE);
    other SQL statements keep python-oracledb's rule: no terminator."""
    assert code_of(cur, sql) == code


def test_executemany_checks_the_terminator_too(cur):
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.executemany("INSERT INTO m VALUES (:1, NULL, 1);", [(9,)])
    assert info.value.args[0].code == 933


def test_verify_oracle_round3_probes_pass_on_the_engine(tmp_path):
    """The probes that record Oracle's answer where the pages are unclear expect what the engine does."""
    import workshop.verify_oracle as vo
    conn = connect(tmp_path / "vo.db")
    steps = vo.engine_round3(conn)
    assert [s.status for s in steps] == ["PASS"] * 18, steps
    assert conn.cursor().execute("SELECT COUNT(*) FROM user_tables").fetchone() == (0,)


# --------------------------------------------------------------------------- names: namespaces and case
@pytest.mark.parametrize("statements, outcome", [
    (["CREATE TABLE u (x NUMBER)", "CREATE SEQUENCE u"], "ORA-00955"),          # one namespace
    (["CREATE SEQUENCE s1", "CREATE TABLE s1 (x NUMBER)"], "ORA-00955"),
    (["CREATE SEQUENCE s1", "CREATE VIEW s1 AS SELECT 1 x FROM dual"], "ORA-00955"),
    (["CREATE TABLE u (x NUMBER)", "CREATE INDEX ix ON u (x)", "CREATE SEQUENCE ix"], None),   # indexes: their own
    (["CREATE TABLE u (x NUMBER)", "CREATE INDEX u ON u (x)"], None),          # an index may share a table's name
    (["CREATE TABLE u (x NUMBER)", "CREATE INDEX ix ON u (x)", "CREATE TABLE ix (y NUMBER)"], None),
    (['CREATE TABLE "Tb1" (x NUMBER)', 'CREATE TABLE "TB1" (x NUMBER)'], None),     # two tables
    (['CREATE TABLE t ("a" NUMBER, "A" NUMBER)'], "ORA-03001"),
    (['CREATE TABLE t (x NUMBER)', 'ALTER TABLE t ADD ("x" NUMBER)'], "ORA-03001"),
    (['CREATE TABLE t (x NUMBER)', 'CREATE INDEX "ix" ON t (x)', 'CREATE INDEX "IX" ON t (x)'], "ORA-01408"),
    (['CREATE TABLE t (x NUMBER, y NUMBER)', 'CREATE INDEX "ix" ON t (x)', 'CREATE INDEX "IX" ON t (y)'], None),
    (['CREATE VIEW "v" AS SELECT 1 x FROM dual', 'CREATE VIEW "V" AS SELECT 1 x FROM dual'], None),
], ids=["table_then_sequence", "sequence_then_table", "sequence_then_view", "index_beside_sequence",
        "index_named_like_table", "table_named_like_index", "tables_case", "columns_case", "added_column_case",
        "indexes_case_same_columns", "indexes_case", "views_case"])
def test_names_differing_only_in_case_or_namespace(tmp_path, statements, outcome):
    """SQL Language Reference, "Database Object Namespaces" and "Database Object Naming Rules": tables, views and
    sequences share a namespace (ORA-00955), indexes have their own; quoted names that differ only in case are two
    objects (tests/engine/test_case_twins.py follows them end to end). Columns that differ only in case are the one
    case the engine cannot keep apart: it says so (ORA-03001), never a false ORA-00955."""
    assert outcome_of_last(tmp_path, statements) == outcome


# --------------------------------------------------------------------------- DDL refusals (docs/embedded-engine.md)
@pytest.mark.parametrize("statements, outcome", [
    (["CREATE TABLE u (x NUMBER)", "CREATE VIEW w AS SELECT x FROM u", "CREATE INDEX iw ON w (x)"], "ORA-01702"),
    (["CREATE TABLE u (x NUMBER)", "CREATE VIEW w AS SELECT x FROM u", "TRUNCATE TABLE w"], "ORA-00942"),
    (["CREATE TABLE u (x NUMBER)", "CREATE VIEW w AS SELECT x FROM u", "ALTER TABLE w ADD (y NUMBER)"], "ORA-00942"),
    (["CREATE TABLE u (c VARCHAR2(4001))"], "ORA-00910"),
    (["CREATE TABLE u (c VARCHAR2(4000 CHAR))"], None),
    (["CREATE TABLE u (c CHAR(2001))"], "ORA-00910"),
    (["CREATE TABLE u (c RAW(2001))"], "ORA-00910"),
    (["CREATE TABLE u (c RAW(2000))"], None),
    (["CREATE TABLE u (c NVARCHAR2(2001))"], "ORA-00910"),       # 4002 bytes in AL16UTF16
    (["CREATE TABLE u (c NVARCHAR2(2000))"], None),
    (["CREATE TABLE u (c NCHAR(1001))"], "ORA-00910"),
    (["CREATE TABLE u (x NUMBER, v VECTOR(3))", "CREATE VECTOR INDEX vx ON u (x)"], "ORA-51900"),
    (["CREATE TABLE u (v VECTOR(8, FOO))"], "ORA-51802"),
    (["CREATE TABLE u (v VECTOR(8, INT8))"], None),
    (["CREATE TABLE u (a VARCHAR2(9), b VARCHAR2(9))", "CREATE SEARCH INDEX sx ON u (a, b)"], "ORA-29851"),
    (["CREATE TABLE u (a VARCHAR2(9), b VARCHAR2(9))",
      "CREATE INDEX cx ON u (a, b) INDEXTYPE IS CTXSYS.CONTEXT"], "ORA-29851"),
], ids=["index_on_view", "truncate_view", "alter_view", "varchar2_4001", "varchar2_4000_char", "char_2001",
        "raw_2001", "raw_2000", "nvarchar2_2001", "nvarchar2_2000", "nchar_1001", "vector_index_on_number", "vector_format_foo", "vector_format_int8",
        "search_index_two_columns", "context_index_two_columns"])
def test_ddl_refusals(tmp_path, statements, outcome):
    """CREATE INDEX on a view was ORA-00942 (the view exists: ORA-01702, probe E18-DDL-IDXVIEW); TRUNCATE and ALTER
    TABLE on a view were internal errors (probes E18-DDL-TRUNCVIEW, -ALTERVIEW); VARCHAR2 took up to 32767 bytes
    (SQLRF "Data Types" with MAX_STRING_SIZE = STANDARD: 4000, CHAR and RAW 2000; probe E18-DDL-VC4001); a vector
    index on a NUMBER and an unknown vector format were ORA-51801 (the error reference: ORA-51900, ORA-51802); a text
    index on two columns was ORA-29855 (ORA-29851 "cannot build a domain index on more than one column")."""
    assert outcome_of_last(tmp_path, statements) == outcome


def test_nextval_in_a_query_holds_no_lock(two):
    """A sequence is not transactional: SELECT s.NEXTVAL leaves the session without a transaction."""
    a, b = two
    a.cursor().execute("CREATE SEQUENCE s")
    assert a.cursor().execute("SELECT s.NEXTVAL FROM dual").fetchone() == (1,)
    b.cursor().execute("INSERT INTO t VALUES (1)")
    b.commit()
    assert a.cursor().execute("SELECT s.NEXTVAL, s.CURRVAL FROM dual").fetchone() == (2, 2)


# --------------------------------------------------------------------------- GROUP BY constants
@pytest.mark.parametrize("sql, expected", [
    ("SELECT COUNT(*) FROM g GROUP BY 1", [(3,)]),                     # a constant, not a position (SQLite's reading)
    ("SELECT k, COUNT(*) FROM g GROUP BY k, 2 ORDER BY k", [("a", 2), ("b", 1)]),
    ("SELECT 1, SUM(id) FROM g GROUP BY 1", [(1, 6)]),
    ("SELECT id FROM g GROUP BY 1", "ORA-00979"),                      # id is not grouped
], ids=["count_group_by_1", "group_by_column_and_constant", "constant_in_both", "ungrouped_column"])
def test_group_by_a_number_is_a_constant(tmp_path, sql, expected):
    """SQL Language Reference, SELECT: group_by_clause takes expressions (only ORDER BY takes positions). SQLite
    read GROUP BY 1 as a position: COUNT(*) ... GROUP BY 1 was an internal error."""
    conn = connect(tmp_path / "g.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE g (id NUMBER, k VARCHAR2(5))")
    cur.executemany("INSERT INTO g VALUES (:1, :2)", [(1, "a"), (2, "a"), (3, "b")])
    try:
        got = cur.execute(sql).fetchall()
    except oracledb.DatabaseError as exc:
        got = f"ORA-{exc.args[0].code:05d}"
    assert got == expected
    conn.close()


# --------------------------------------------------------------------------- blank-padded comparison
@pytest.mark.parametrize("sql, binds, expected", [
    ("SELECT id FROM c WHERE f = 'ab'", {}, [1]),                     # CHAR with a text literal: padded
    ("SELECT id FROM c WHERE 'ab' = 'ab  '", {}, [1]),                # two text literals: padded
    ("SELECT id FROM c WHERE f = n", {}, [1]),                        # CHAR with NCHAR: padded
    ("SELECT id FROM c WHERE f IN ('x', 'ab ')", {}, [1]),
    ("SELECT id FROM c WHERE f = v", {}, []),                         # a VARCHAR2 operand: nonpadded
    ("SELECT id FROM c WHERE f = :b", {"b": "ab"}, []),               # a str bind is VARCHAR2: nonpadded
    ("SELECT id FROM c WHERE v = 'ab '", {}, []),                     # VARCHAR2 with a literal: nonpadded
    ("SELECT id FROM c WHERE f > 'ab'", {}, []),
], ids=["char_literal", "two_literals", "char_nchar", "in_list", "char_varchar2", "char_bind", "varchar2_literal",
        "greater"])
def test_blank_padded_comparison(tmp_path, sql, binds, expected):
    """SQL Language Reference, "Blank-Padded and Nonpadded Comparison Semantics": when both values are CHAR, NCHAR or
    text literals the shorter is padded with blanks; one VARCHAR2 value makes it nonpadded. SQLite compared the
    stored 'ab   ' with 'ab' as unequal."""
    conn = connect(tmp_path / "c.db")
    cur = conn.cursor()
    cur.execute("CREATE TABLE c (id NUMBER, f CHAR(5), v VARCHAR2(5), n NCHAR(4))")
    cur.execute("INSERT INTO c VALUES (1, 'ab', 'ab', 'ab')")
    assert [r[0] for r in cur.execute(sql, binds).fetchall()] == expected
    conn.close()


def test_a_keyword_that_is_not_a_metric_is_ora_51964(tmp_path):
    """Error reference DIA-51964: "Invalid or unsupported metric specified for VECTOR_DISTANCE" (the engine said
    ORA-51806, which is a dimension value outside its format's range). FLOAT32 is a keyword the engine knows (a
    vector format), so it reaches the metric check; a word it does not know is ORA-00904 before that."""
    conn = connect(tmp_path / "m.db")
    with pytest.raises(oracledb.DatabaseError) as info:
        conn.cursor().execute("SELECT VECTOR_DISTANCE(TO_VECTOR('[1, 2]'), TO_VECTOR('[2, 1]'), FLOAT32) FROM dual")
    assert info.value.args[0].code == 51964
    conn.close()
