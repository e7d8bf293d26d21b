"""Claim: read-only means no door writes.

`connect(readonly=True)` is, on Oracle, a second user holding READ grants only (docs/troubleshooting.md, Part 07).
Attack table: every statement or procedure that could change something, each refused with the error that user
gets (ORA-01031 for DML/DDL/row locks, ORA-06550 + PLS-00201 for a package it has no EXECUTE on, ORA-02289 for
a sequence), before any effect; and nothing on the session takes the write lock, so another writer never gets
ORA-00054 after it.
"""
from __future__ import annotations

import sqlite3

import oracledb
import pytest

from tests.conftest import ora_code
from tests.security.protected import rows, session

POLICY_ARGS = "'WORKSHOP', 'KB', 'KB_TENANT'"
DOORS = {
    # DML and row locks
    "insert": ("INSERT INTO kb (id, tenant_id) VALUES (99, 'acme')", 1031),
    "insert-lower": ("insert into sink values ('acme', 'x')", 1031),
    "update": ("UPDATE kb SET body = 'x'", 1031),
    "delete": ("DELETE FROM kb", 1031),
    "merge": ("MERGE INTO sink s USING dual ON (1 = 1) WHEN NOT MATCHED THEN INSERT (tenant_id) VALUES ('x')", 1031),
    "insert-all": ("INSERT ALL INTO sink (tenant_id) VALUES ('x') SELECT * FROM dual", 1031),
    "comment-first": ("/* read only */ DELETE FROM kb", 1031),
    "line-comment-first": ("-- SELECT\nDELETE FROM kb", 1031),
    "for-update": ("SELECT * FROM kb FOR UPDATE", 1031),
    "for-update-nowait": ("select id from kb\n for   update nowait", 1031),
    "for-update-skip": ("SELECT id FROM kb FOR UPDATE SKIP LOCKED", 1031),
    "cte-for-update": ("WITH c AS (SELECT id FROM kb) SELECT id FROM c FOR UPDATE", 1031),
    "lock-table": ("LOCK TABLE kb IN EXCLUSIVE MODE", 1031),
    # DDL
    "create-table": ("CREATE TABLE ro_t (id NUMBER)", 1031),
    "create-view": ("CREATE VIEW ro_v AS SELECT * FROM kb", 1031),
    "create-index": ("CREATE INDEX ro_ix ON kb (tenant_id)", 1031),
    "create-sequence": ("CREATE SEQUENCE ro_seq", 1031),
    "create-context": ("CREATE OR REPLACE CONTEXT sec_ctx USING evil_pkg", 1031),
    "replace-package": ("CREATE OR REPLACE PACKAGE BODY sec_pkg AS FUNCTION tenant_predicate(p_schema IN VARCHAR2, "
                        "p_object IN VARCHAR2) RETURN VARCHAR2 IS BEGIN RETURN '1 = 1'; END; END sec_pkg;", 1031),
    "create-graph": ("CREATE PROPERTY GRAPH ro_g VERTEX TABLES (kb KEY (id))", 1031),
    "create-hybrid-index": ("CREATE HYBRID VECTOR INDEX ro_h ON kb(body) PARAMETERS('MODEL x')", 1031),
    "drop-table": ("DROP TABLE kb", 1031),
    "drop-index": ("DROP INDEX kb_vec", 1031),
    "drop-sequence": ("DROP SEQUENCE kb_seq", 1031),
    "drop-context": ("DROP CONTEXT sec_ctx", 1031),
    "drop-package": ("DROP PACKAGE sec_pkg", 1031),
    "drop-graph": ("DROP PROPERTY GRAPH kb_graph", 1031),
    "alter": ("ALTER TABLE kb ADD (x NUMBER)", 1031),
    "truncate": ("TRUNCATE TABLE sink", 1031),
    "comment-on": ("COMMENT ON TABLE kb IS 'owned'", 1031),
    "rename": ("RENAME sink TO sunk", 1031),
    "grant": ("GRANT SELECT ON kb TO PUBLIC", 1031),
    # PL/SQL doors
    "rls-drop": (f"BEGIN DBMS_RLS.DROP_POLICY({POLICY_ARGS}); END;", 6550),
    "rls-disable": (f"BEGIN DBMS_RLS.ENABLE_POLICY({POLICY_ARGS}, FALSE); END;", 6550),
    "rls-add": ("BEGIN DBMS_RLS.ADD_POLICY('WORKSHOP', 'SINK', 'P2', 'WORKSHOP', 'SEC_PKG.TENANT_PREDICATE'); END;",
                6550),
    "rls-sys-qualified": (f"BEGIN SYS.DBMS_RLS.DROP_POLICY({POLICY_ARGS}); END;", 6550),
    "rls-lower": (f"begin dbms_rls.drop_policy({POLICY_ARGS}); end;", 6550),
    "rls-spaced": (f"BEGIN DBMS_RLS . DROP_POLICY({POLICY_ARGS}); END;", 6550),
    "rls-named-args": ("BEGIN DBMS_RLS.DROP_POLICY(object_schema => 'WORKSHOP', object_name => 'KB', "
                       "policy_name => 'KB_TENANT'); END;", 6550),
    "rls-declare": (f"DECLARE BEGIN DBMS_RLS.DROP_POLICY({POLICY_ARGS}); END;", 3001),   # no DECLARE here
    "rls-second-statement": (f"BEGIN NULL; DBMS_RLS.DROP_POLICY({POLICY_ARGS}); END;", 6550),
    "rls-swallowed": (f"BEGIN DBMS_RLS.DROP_POLICY({POLICY_ARGS}); EXCEPTION WHEN OTHERS THEN NULL; END;", 6550),
    "rls-execute-immediate": (f"BEGIN EXECUTE IMMEDIATE 'BEGIN DBMS_RLS.DROP_POLICY(''WORKSHOP'', ''KB'', "
                              f"''KB_TENANT''); END;'; END;", 6550),
    "execute-immediate-dml": ("BEGIN EXECUTE IMMEDIATE 'DELETE FROM kb'; END;", 1031),
    "vector-drop-model": ("BEGIN DBMS_VECTOR.DROP_ONNX_MODEL('ALL_MINILM_L6_V2', force => TRUE); END;", 6550),
    "vector-load-model": ("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL('X', HEXTORAW('00'), JSON('{}')); END;", 6550),
    "mining-drop-model": ("BEGIN DBMS_DATA_MINING.DROP_MODEL('ALL_MINILM_L6_V2'); END;", 1031),
    "mining-import": ("BEGIN DBMS_DATA_MINING.IMPORT_ONNX_MODEL('X', HEXTORAW('00'), JSON('{}')); END;", 1031),
    "chain-create-pref": ("BEGIN DBMS_VECTOR_CHAIN.CREATE_PREFERENCE('P', DBMS_VECTOR_CHAIN.VECTORIZER, "
                          "JSON('{\"model\": \"X\"}')); END;", 6550),
    "chain-drop-pref": ("BEGIN DBMS_VECTOR_CHAIN.DROP_PREFERENCE('P'); END;", 6550),
    "ctx-sync": ("BEGIN CTX_DDL.SYNC_INDEX('KB_CTX'); END;", 6550),
    "set-context-directly": ("BEGIN DBMS_SESSION.SET_CONTEXT('sec_ctx', 'tenant_id', 'globex'); END;", 1031),
    # sequences
    "nextval": ("SELECT kb_seq.NEXTVAL FROM dual", 2289),
    "nextval-in-subquery": ("SELECT (SELECT kb_seq.NEXTVAL FROM dual) FROM dual", 2289),
    "currval": ("SELECT kb_seq.CURRVAL FROM dual", 2289),
    "insert-nextval": ("INSERT INTO sink (note) VALUES (TO_CHAR(kb_seq.NEXTVAL))", 1031),
    # transaction control with a payload
    "savepoint-two-names": ("SAVEPOINT a;b", 933),
    "savepoint-then-delete": ("SAVEPOINT a; DELETE FROM kb", 933),
}


def _snapshot(path) -> tuple:
    """What a door could change, read straight from the file (no engine, no policy)."""
    db = sqlite3.connect(str(path))
    try:
        return (db.execute('SELECT COUNT(*), SUM(length(body)) FROM "KB"').fetchone(),
                db.execute('SELECT COUNT(*) FROM "SINK"').fetchone(),
                db.execute('SELECT * FROM "ORA$POLICIES" ORDER BY 1, 2').fetchall(),
                db.execute('SELECT * FROM "ORA$SEQUENCES" ORDER BY 1').fetchall(),
                db.execute('SELECT * FROM "ORA$CONTEXTS" ORDER BY 1').fetchall(),
                db.execute('SELECT name, kind, source FROM "ORA$PLSQL_UNITS" ORDER BY 1, 2').fetchall(),
                db.execute("SELECT type, name FROM sqlite_master ORDER BY 1, 2").fetchall())
    finally:
        db.close()


@pytest.fixture
def ro(secured_path):
    conn = session(secured_path, "acme", readonly=True)
    yield conn
    conn.close()


@pytest.mark.parametrize("door", sorted(DOORS))
def test_every_door_is_refused_before_any_effect(secured_path, ro, door):
    sql, code = DOORS[door]
    before = _snapshot(secured_path)
    with pytest.raises(oracledb.DatabaseError) as exc:
        ro.cursor().execute(sql)
    assert ora_code(exc) == code, f"{door}: {exc.value}"
    assert _snapshot(secured_path) == before


@pytest.mark.parametrize("name, args", [
    ("DBMS_RLS.DROP_POLICY", ["WORKSHOP", "KB", "KB_TENANT"]),
    ("dbms_rls.enable_policy", ["WORKSHOP", "KB", "KB_TENANT", False]),
    ("DBMS_VECTOR_CHAIN.DROP_PREFERENCE", ["P"]),
])
def test_callproc_doors_are_refused(secured_path, ro, name, args):
    before = _snapshot(secured_path)
    with pytest.raises(oracledb.DatabaseError) as exc:
        ro.cursor().callproc(name, args)
    assert ora_code(exc) == 6550
    assert _snapshot(secured_path) == before


@pytest.mark.parametrize("sql, rows_, code", [
    ("INSERT INTO sink (tenant_id) VALUES (:1)", [("a",), ("b",)], 1031),
    ("BEGIN DBMS_RLS.DROP_POLICY(:1, :2, :3); END;", [("WORKSHOP", "KB", "KB_TENANT")], 6550),
    ("UPDATE kb SET body = :1", [("x",)], 1031),
], ids=["insert", "plsql", "update"])
def test_executemany_doors_are_refused(secured_path, ro, sql, rows_, code):
    before = _snapshot(secured_path)
    with pytest.raises(oracledb.DatabaseError) as exc:
        ro.cursor().executemany(sql, rows_)
    assert ora_code(exc) == code
    assert _snapshot(secured_path) == before


def test_after_every_door_another_session_writes_at_once(secured_path):
    """The claim end to end: a read-only session tries every door, keeps its transaction open with a savepoint,
    and a writer on another connection (no busy wait) still writes and commits: no ORA-00054."""
    ro = session(secured_path, "acme", readonly=True)
    cur = ro.cursor()
    for sql, _ in DOORS.values():
        with pytest.raises(oracledb.DatabaseError):
            cur.execute(sql)
    cur.execute("SAVEPOINT before_read")
    assert {r[0] for r in rows(cur, "SELECT tenant_id FROM kb")} == {"acme"}
    writer = session(secured_path, "acme", busy_timeout=0)
    try:
        writer.cursor().execute("INSERT INTO sink (tenant_id, note) VALUES ('acme', 'written')")
        writer.commit()
        writer.cursor().execute("DELETE FROM sink WHERE note = 'written'")
        writer.commit()
    finally:
        writer.close()
    cur.execute("ROLLBACK TO SAVEPOINT before_read")
    assert {r[0] for r in rows(cur, "SELECT tenant_id FROM kb")} == {"acme"}
    ro.close()


def test_reads_identity_and_transaction_control_still_work(ro):
    cur = ro.cursor()
    cur.callproc("sec_pkg.set_tenant", ["globex"])         # the trusted package: the read-only user may run it
    assert {r[0] for r in rows(cur, "SELECT tenant_id FROM kb")} == {"globex"}
    cur.execute("SAVEPOINT s1")
    cur.execute("SAVEPOINT \"Mixed Case\"")
    cur.execute("ROLLBACK TO \"Mixed Case\"")
    cur.execute("ROLLBACK TO SAVEPOINT s1")
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("ROLLBACK TO never_made")
    assert ora_code(exc) == 1086
    ro.commit()
    ro.rollback()


def test_the_file_itself_refuses_writes_from_a_read_only_session(ro):
    """The last net: whatever door the engine forgets, SQLite's authorizer denies the write to the file (the
    session's temporary tables stay usable, as Oracle's private temporary data is)."""
    db = ro._engine.db
    with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
        db.execute('INSERT INTO "SINK" (TENANT_ID) VALUES (\'x\')')
    with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
        db.execute('CREATE TABLE "EVIL" (x)')
    with pytest.raises(sqlite3.DatabaseError, match="not authorized"):
        db.execute("ATTACH DATABASE ':memory:' AS other")
    db.execute("CREATE TEMP TABLE scratch (x)")
    db.execute("INSERT INTO temp.scratch VALUES (1)")
    db.execute("DROP TABLE temp.scratch")
    from workshop.embedded.errors import EngineError
    with pytest.raises(EngineError) as exc:      # and the engine never asks SQLite for the write lock
        ro._engine.begin_write()
    assert exc.value.code == 1031
    assert not db.in_transaction


def test_every_read_path_still_works_on_a_read_only_session(secured_path):
    """Refusing every door must not refuse a read: the RLS read table runs on a read-only session, with the same
    answers (acme only), and nothing on it is mistaken for a write (the authorizer passes reads and temp tables)."""
    from tests.security.test_rls_read_paths import READS, _tenants
    ro = session(secured_path, "acme", readonly=True)
    cur = ro.cursor()
    answered = 0
    for case, sql in sorted(READS.items()):
        sql, binds = sql if isinstance(sql, tuple) else (sql, {})
        try:
            cur.execute(sql, binds)
        except oracledb.DatabaseError as exc:
            assert exc.args[0].code in (3001, 32039, 942), f"{case}: {exc}"
            continue
        assert _tenants(cur.fetchall(), [d[0] for d in cur.description]) <= {"acme"}, case
        answered += 1
    assert answered > 40
    ro.close()


#: Statements any Oracle session may run without a privilege (they change the session or the transaction only:
#: SQL Language Reference, ALTER SESSION / SET TRANSACTION / SET ROLE prerequisites). The engine implements none
#: of them, so a read-only session must answer exactly as a read-write one does (ORA-03001), never with a
#: privilege error (ORA-01031) that Oracle would not raise: read-only is not stricter than Oracle.
SESSION_ONLY = {
    "alter-session-nls": "ALTER SESSION SET NLS_DATE_FORMAT = 'YYYY-MM-DD'",
    "alter-session-time-zone": "ALTER SESSION SET TIME_ZONE = '+02:00'",
    "alter-session-schema": "ALTER SESSION SET CURRENT_SCHEMA = WORKSHOP",
    "set-transaction-read-only": "SET TRANSACTION READ ONLY",
    "set-role": "SET ROLE NONE",
}


@pytest.mark.parametrize("name", sorted(SESSION_ONLY))
def test_session_statements_get_the_read_write_answer_not_a_privilege_error(secured_path, ro, name):
    sql = SESSION_ONLY[name]
    rw = session(secured_path, "acme")
    try:
        with pytest.raises(oracledb.DatabaseError) as on_rw:
            rw.cursor().execute(sql)
    finally:
        rw.close()
    before = _snapshot(secured_path)
    with pytest.raises(oracledb.DatabaseError) as on_ro:
        ro.cursor().execute(sql)
    assert (ora_code(on_ro), str(on_ro.value)) == (ora_code(on_rw), str(on_rw.value)) and ora_code(on_ro) == 3001
    assert _snapshot(secured_path) == before
