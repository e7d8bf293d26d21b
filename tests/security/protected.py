"""The attack suite's shared protected database, built once per module and shared read-only by its tests;
each test gets its own sessions.

KB is protected by a DBMS_RLS policy over the trusted context package's tenant (acme, globex, initech rows), with
an Oracle Text index on BODY, a VECTOR column, a property graph over it and an unprotected SINK table for
INSERT ... SELECT. Tests that write roll back (DML) or drop what they made (DDL)."""
from __future__ import annotations

import array

import pytest

from workshop.embedded import connect

TENANTS = ("acme", "globex", "initech")

SPEC = """CREATE OR REPLACE PACKAGE sec_pkg AS
  PROCEDURE set_tenant(p_tenant IN VARCHAR2);
  FUNCTION tenant_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
END sec_pkg;"""
BODY = """CREATE OR REPLACE PACKAGE BODY sec_pkg AS
  PROCEDURE set_tenant(p_tenant IN VARCHAR2) IS
  BEGIN
    DBMS_SESSION.SET_CONTEXT('sec_ctx', 'tenant_id', p_tenant);
  END set_tenant;
  FUNCTION tenant_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN 'tenant_id = SYS_CONTEXT(''sec_ctx'', ''tenant_id'')';
  END tenant_predicate;
END sec_pkg;"""
POLICY = """BEGIN DBMS_RLS.ADD_POLICY(object_schema => USER, object_name => 'KB', policy_name => 'KB_TENANT',
            function_schema => USER, policy_function => 'SEC_PKG.TENANT_PREDICATE',
            statement_types => 'SELECT,INSERT,UPDATE,DELETE', update_check => TRUE); END;"""
GRAPH = """CREATE PROPERTY GRAPH kb_graph
  VERTEX TABLES (kb KEY (id) LABEL doc PROPERTIES (id, tenant_id))
  EDGE TABLES (kb_link KEY (src, dst) SOURCE KEY (src) REFERENCES kb (id)
               DESTINATION KEY (dst) REFERENCES kb (id) LABEL link NO PROPERTIES)"""

#: (id, tenant, body, vector): every tenant has a row that matches the same keyword and the same vector.
ROWS = [(i + 1, tenant, f"shared vector search note number {i + 1} of {tenant}", (1.0, 0.0, float(i) / 10))
        for i, tenant in enumerate(t for t in TENANTS for _ in range(2))]


def build(path, text_index: bool = True) -> None:
    conn = connect(path, busy_timeout=5)
    cur = conn.cursor()
    cur.execute("CREATE TABLE kb (id NUMBER PRIMARY KEY, tenant_id VARCHAR2(20) NOT NULL, body CLOB, "
                "emb VECTOR(3, FLOAT32))")
    cur.execute("CREATE TABLE sink (tenant_id VARCHAR2(20), note VARCHAR2(100))")
    cur.execute("CREATE TABLE kb_link (src NUMBER, dst NUMBER, PRIMARY KEY (src, dst))")
    cur.execute("CREATE SEQUENCE kb_seq")
    cur.executemany("INSERT INTO kb VALUES (:1, :2, :3, :4)",
                    [(i, t, b, array.array("f", v)) for i, t, b, v in ROWS])
    cur.executemany("INSERT INTO kb_link VALUES (:1, :2)", [(a, b) for a in range(1, 7) for b in range(1, 7) if a != b])
    conn.commit()
    if text_index:      # a hybrid vector index brings its own
        cur.execute("CREATE INDEX kb_ctx ON kb (body) INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')")
    cur.execute("CREATE VECTOR INDEX kb_vec ON kb (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE")
    cur.execute(GRAPH)
    cur.execute("CREATE OR REPLACE CONTEXT sec_ctx USING sec_pkg")
    cur.execute(SPEC)
    cur.execute(BODY)
    cur.execute(POLICY)
    conn.commit()
    conn.close()


@pytest.fixture(scope="module")
def secured_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("security") / "secured.db"
    build(path)
    return path


def session(path, tenant: str | None = "acme", readonly: bool = False, busy_timeout: float = 2):
    conn = connect(path, busy_timeout=busy_timeout, readonly=readonly)
    if tenant is not None:
        conn.cursor().callproc("sec_pkg.set_tenant", [tenant])
    return conn


@pytest.fixture
def acme(secured_path):
    """A read-write session bound to tenant acme; its uncommitted work is rolled back."""
    conn = session(secured_path)
    yield conn.cursor()
    conn.rollback()
    conn.close()


def rows(cur, sql: str, *args, **binds) -> list[tuple]:
    cur.execute(sql, *args, **binds)
    return cur.fetchall()
