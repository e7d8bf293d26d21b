"""Row-level security: nothing crosses the tenant boundary, through every statement shape the
hybrid pipeline uses; unsupported policy forms are rejected, never ignored."""
import array

import oracledb
import pytest

from tests.conftest import ora_code

PACKAGE = """CREATE OR REPLACE PACKAGE BODY tenant_pkg AS
  PROCEDURE set_tenant(p_tenant IN VARCHAR2) IS
  BEGIN
    DBMS_SESSION.SET_CONTEXT('tenant_ctx', 'tenant_id', p_tenant);
  END set_tenant;
  FUNCTION tenant_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN 'tenant_id = SYS_CONTEXT(''tenant_ctx'', ''tenant_id'')';
  END tenant_predicate;
END tenant_pkg;"""

#: The policy function is declared in the spec: DBMS_RLS calls it from outside the package.
SPEC = """CREATE OR REPLACE PACKAGE tenant_pkg AS
  PROCEDURE set_tenant(p_tenant IN VARCHAR2);
  FUNCTION tenant_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
END tenant_pkg;"""
SPEC_WITHOUT_PREDICATE = "CREATE OR REPLACE PACKAGE tenant_pkg AS PROCEDURE set_tenant(p_tenant IN VARCHAR2); END;"


def _vec(*xs):
    return array.array("f", xs)


@pytest.fixture
def secured(cur, conn):
    cur.execute("CREATE TABLE chunks (id NUMBER PRIMARY KEY, tenant_id VARCHAR2(20) NOT NULL, body CLOB, "
                "emb VECTOR(3, FLOAT32))")
    rows = [(1, "acme", "vector search for acme", _vec(1, 0, 0)), (2, "globex", "vector search for globex", _vec(1, 0, 0)),
            (3, "acme", "graph memory notes", _vec(0, 1, 0)), (4, "globex", "graph memory secrets", _vec(0, 1, 0))]
    cur.executemany("INSERT INTO chunks VALUES (:1, :2, :3, :4)", rows)
    conn.commit()
    cur.execute("CREATE INDEX chunks_ctx ON chunks (body) INDEXTYPE IS CTXSYS.CONTEXT PARAMETERS ('SYNC (ON COMMIT)')")
    cur.execute("CREATE VECTOR INDEX chunks_vec ON chunks (emb) ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE")
    cur.execute("CREATE OR REPLACE CONTEXT tenant_ctx USING tenant_pkg")
    cur.execute(SPEC)
    cur.execute(PACKAGE)
    cur.execute("""BEGIN DBMS_RLS.ADD_POLICY(object_schema => USER, object_name => 'CHUNKS',
                   policy_name => 'TENANT_ISOLATION', function_schema => USER,
                   policy_function => 'TENANT_PKG.TENANT_PREDICATE',
                   statement_types => 'SELECT,INSERT,UPDATE,DELETE', update_check => TRUE); END;""")
    cur.callproc("tenant_pkg.set_tenant", ["acme"])
    return cur


def _tenants(cur, sql, **binds):
    cur.execute(sql, **binds)
    return {r[0] for r in cur.fetchall()}


SHAPES = {
    "plain": "SELECT tenant_id FROM chunks",
    "cte": "WITH c AS (SELECT tenant_id FROM chunks) SELECT tenant_id FROM c",
    "subquery": "SELECT tenant_id FROM (SELECT * FROM chunks WHERE id > 0)",
    "in-subquery": "SELECT t.tenant_id FROM chunks t WHERE t.id IN (SELECT id FROM chunks)",
    "self-join": "SELECT b.tenant_id FROM chunks a JOIN chunks b ON a.id <> b.id",
    "left-join": "SELECT c.tenant_id FROM dual d LEFT JOIN chunks c ON 1 = 1",
    "text": "SELECT tenant_id FROM chunks WHERE CONTAINS(body, 'vector OR graph', 1) > 0",
    "vector": "SELECT tenant_id FROM chunks ORDER BY VECTOR_DISTANCE(emb, TO_VECTOR('[1,0,0]'), COSINE) "
              "FETCH APPROX FIRST 4 ROWS ONLY",
    "hybrid-rrf": """WITH v AS (SELECT id, ROW_NUMBER() OVER (ORDER BY VECTOR_DISTANCE(emb, TO_VECTOR('[1,0,0]'), COSINE)) r
                                 FROM chunks FETCH FIRST 10 ROWS ONLY),
                          k AS (SELECT id, ROW_NUMBER() OVER (ORDER BY SCORE(1) DESC) r FROM chunks
                                 WHERE CONTAINS(body, 'vector OR graph', 1) > 0 FETCH FIRST 10 ROWS ONLY)
                     SELECT c.tenant_id FROM v FULL OUTER JOIN k ON v.id = k.id
                     JOIN chunks c ON c.id = COALESCE(v.id, k.id)""",
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_reads_never_cross_tenants(secured, shape):
    assert _tenants(secured, SHAPES[shape]) == {"acme"}


def test_no_context_sees_nothing(secured, db_path):
    from workshop.embedded import connect
    other = connect(db_path)
    assert other.cursor().execute("SELECT COUNT(*) FROM chunks").fetchone() == (0,)
    other.cursor().callproc("tenant_pkg.set_tenant", ["globex"])
    assert _tenants(other.cursor(), SHAPES["hybrid-rrf"]) == {"globex"}
    other.close()


def test_writes_stay_inside_the_tenant(secured, conn):
    secured.execute("UPDATE chunks SET body = 'overwritten'")
    assert secured.rowcount == 2
    secured.execute("DELETE FROM chunks WHERE id IN (2, 4)")      # globex rows: invisible, untouched
    assert secured.rowcount == 0
    with pytest.raises(oracledb.DatabaseError) as exc:
        secured.execute("INSERT INTO chunks (id, tenant_id, body) VALUES (9, 'globex', 'planted')")
    assert ora_code(exc) == 28115
    with pytest.raises(oracledb.DatabaseError) as exc:
        secured.execute("UPDATE chunks SET tenant_id = 'globex' WHERE id = 1")   # update_check
    assert ora_code(exc) == 28115
    secured.execute("""MERGE INTO chunks t USING (SELECT 1 AS id, 'merged' AS body FROM dual
                                                   UNION ALL SELECT 5, 'new acme' FROM dual) s
                       ON (t.id = s.id)
                       WHEN MATCHED THEN UPDATE SET t.body = s.body
                       WHEN NOT MATCHED THEN INSERT (id, tenant_id, body) VALUES (s.id, 'acme', s.body)""")
    assert secured.rowcount == 2
    with pytest.raises(oracledb.IntegrityError) as exc:   # globex's id 2 is invisible: MERGE inserts, the key clashes
        secured.execute("""MERGE INTO chunks t USING (SELECT 2 AS id FROM dual) s ON (t.id = s.id)
                           WHEN MATCHED THEN UPDATE SET t.body = 'hijack'
                           WHEN NOT MATCHED THEN INSERT (id, tenant_id, body) VALUES (s.id, 'acme', 'x')""")
    assert ora_code(exc) == 1
    conn.commit()
    secured.execute("BEGIN DBMS_RLS.DROP_POLICY(USER, 'CHUNKS', 'TENANT_ISOLATION'); END;")
    secured.execute("SELECT id, tenant_id, body FROM chunks WHERE tenant_id = 'globex' ORDER BY id")
    rows = [(i, t, b.read()) for i, t, b in secured.fetchall()]
    assert rows == [(2, "globex", "vector search for globex"), (4, "globex", "graph memory secrets")]


def test_update_check_still_holds_after_a_rollback(secured, conn):
    """The check triggers are made inside the first write's transaction; a rollback removes them. The next write
    must be checked all the same (a learner re-running a checkpoint that rolls back met this)."""
    with pytest.raises(oracledb.DatabaseError) as exc:
        secured.execute("INSERT INTO chunks (id, tenant_id, body) VALUES (9, 'globex', 'planted')")
    assert ora_code(exc) == 28115
    secured.execute("UPDATE chunks SET body = 'changed' WHERE id = 1")
    conn.rollback()
    for _ in range(2):
        with pytest.raises(oracledb.DatabaseError) as exc:
            secured.execute("INSERT INTO chunks (id, tenant_id, body) VALUES (9, 'globex', 'planted')")
        assert ora_code(exc) == 28115
        conn.rollback()


def test_context_can_only_be_set_by_its_package(secured):
    with pytest.raises(oracledb.DatabaseError) as exc:
        secured.execute("BEGIN DBMS_SESSION.SET_CONTEXT('tenant_ctx', 'tenant_id', 'globex'); END;")
    assert ora_code(exc) == 1031
    assert secured.execute("SELECT SYS_CONTEXT('tenant_ctx', 'tenant_id') FROM dual").fetchone() == ("acme",)


def test_unenforceable_policies_are_rejected(secured):
    with pytest.raises(oracledb.DatabaseError) as exc:
        secured.execute("""CREATE OR REPLACE FUNCTION clever(s VARCHAR2, t VARCHAR2) RETURN VARCHAR2 IS
                           BEGIN IF SYS_CONTEXT('tenant_ctx', 'tenant_id') IS NULL THEN RETURN '1=0'; END IF;
                           RETURN 'tenant_id = 1'; END;""")
    assert ora_code(exc) == 3001
    with pytest.raises(oracledb.DatabaseError) as exc:
        secured.execute("""BEGIN DBMS_RLS.ADD_POLICY(object_schema => USER, object_name => 'CHUNKS',
                           policy_name => 'MASK', function_schema => USER,
                           policy_function => 'TENANT_PKG.TENANT_PREDICATE', sec_relevant_cols => 'BODY'); END;""")
    assert ora_code(exc) == 3001
    with pytest.raises(oracledb.DatabaseError) as exc:
        secured.execute("""BEGIN DBMS_RLS.ADD_POLICY(object_schema => USER, object_name => 'CHUNKS',
                           policy_name => 'TENANT_ISOLATION', function_schema => USER,
                           policy_function => 'TENANT_PKG.TENANT_PREDICATE'); END;""")
    assert ora_code(exc) == 28101


def test_langchain_similarity_search_respects_policy(secured, conn):
    from langchain_core.embeddings import Embeddings
    from langchain_oracledb import OracleVS
    from langchain_oracledb.vectorstores.utils import DistanceStrategy

    class Fixed(Embeddings):
        def embed_documents(self, texts):
            return [[1.0, 0.0, 0.0] for _ in texts]

        def embed_query(self, text):
            return [1.0, 0.0, 0.0]

    store = OracleVS(conn, Fixed(), "MEMORIES", DistanceStrategy.COSINE)
    store.add_texts(["acme fact", "globex fact"], [{"tenant_id": "acme"}, {"tenant_id": "globex"}])
    # a policy on a langchain table: predicate over its JSON metadata
    secured.execute("""CREATE OR REPLACE FUNCTION memories_predicate(s VARCHAR2, t VARCHAR2) RETURN VARCHAR2 IS
                       BEGIN RETURN 'JSON_VALUE(metadata, ''$.tenant_id'') = SYS_CONTEXT(''tenant_ctx'', ''tenant_id'')';
                       END;""")
    secured.execute("""BEGIN DBMS_RLS.ADD_POLICY(object_schema => USER, object_name => 'MEMORIES',
                       policy_name => 'MEM_TENANT', function_schema => USER,
                       policy_function => 'MEMORIES_PREDICATE', statement_types => 'SELECT'); END;""")
    assert [d.page_content for d in store.similarity_search("fact", k=5)] == ["acme fact"]


def test_replacing_the_package_spec_keeps_the_body(secured, conn):
    """Oracle keeps a spec (PACKAGE) and its body (PACKAGE BODY) as two objects: CREATE OR REPLACE PACKAGE
    invalidates the body but keeps it, and the body is recompiled on its next use. Re-running the set-up cell's
    spec (policies in place) leaves the policy working; before, the spec overwrote the body's entry."""
    cur = secured
    cur.execute(SPEC)
    assert _tenants(cur, "SELECT tenant_id FROM chunks") == {"acme"}
    cur.callproc("tenant_pkg.set_tenant", ["globex"])
    assert _tenants(cur, "SELECT tenant_id FROM chunks") == {"globex"}
    cur.execute("SELECT object_type, status FROM user_objects WHERE object_name = 'TENANT_PKG' ORDER BY 1")
    # the engine does not record the recompilation on use: the body shows INVALID until it is re-created
    assert cur.fetchall() == [("PACKAGE", "VALID"), ("PACKAGE BODY", "INVALID")]
    cur.execute(PACKAGE)
    cur.execute("SELECT object_type, status FROM user_objects WHERE object_name = 'TENANT_PKG' ORDER BY 1")
    assert cur.fetchall() == [("PACKAGE", "VALID"), ("PACKAGE BODY", "VALID")]


def test_a_policy_function_missing_from_the_spec_fails_its_tables(secured, conn):
    """A member defined only in the body is private: DBMS_RLS cannot call it, so on Oracle the protected table's
    statements fail (verify_oracle's R2 probe) while the rest of the session keeps working."""
    cur = secured
    cur.execute(SPEC_WITHOUT_PREDICATE)
    cur.execute("SELECT 1 FROM dual")
    assert cur.fetchall() == [(1,)]
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute("SELECT tenant_id FROM chunks")
    assert ora_code(info) == 28112
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute("INSERT INTO chunks (id, tenant_id, body) VALUES (9, 'acme', 'x')")
    assert ora_code(info) == 28112
    conn.rollback()
    cur.execute(PACKAGE)               # the body alone does not make a private function public
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute("SELECT tenant_id FROM chunks")
    assert ora_code(info) == 28112
    cur.execute(SPEC)                  # the set-up cell re-run: spec, then body
    cur.execute(PACKAGE)
    cur.callproc("tenant_pkg.set_tenant", ["acme"])
    assert _tenants(cur, "SELECT tenant_id FROM chunks") == {"acme"}


def test_spec_and_body_are_two_objects(cur):
    """USER_OBJECTS lists PACKAGE and PACKAGE BODY; DROP PACKAGE BODY keeps the spec, DROP PACKAGE drops both."""
    cur.execute(SPEC)
    cur.execute("SELECT object_type, status FROM user_objects WHERE object_name = 'TENANT_PKG'")
    assert cur.fetchall() == [("PACKAGE", "VALID")]
    cur.execute(PACKAGE)
    cur.execute("SELECT object_type, status FROM user_objects WHERE object_name = 'TENANT_PKG' ORDER BY 1")
    assert cur.fetchall() == [("PACKAGE", "VALID"), ("PACKAGE BODY", "VALID")]
    cur.execute("DROP PACKAGE BODY tenant_pkg")
    cur.execute("SELECT object_type FROM user_objects WHERE object_name = 'TENANT_PKG'")
    assert cur.fetchall() == [("PACKAGE",)]
    with pytest.raises(oracledb.DatabaseError) as info:   # a spec without a body cannot run
        cur.callproc("tenant_pkg.set_tenant", ["acme"])
    assert ora_code(info) == 4067
    cur.execute(PACKAGE)
    cur.execute("DROP PACKAGE tenant_pkg")
    cur.execute("SELECT COUNT(*) FROM user_objects WHERE object_name = 'TENANT_PKG'")
    assert cur.fetchone() == (0,)


def test_a_body_without_its_spec_is_invalid(cur):
    """Oracle creates a body with no spec with compilation errors (PLS-00304): it exists, INVALID, and cannot run."""
    cur.execute(PACKAGE)
    cur.execute("SELECT object_type, status FROM user_objects WHERE object_name = 'TENANT_PKG'")
    assert cur.fetchall() == [("PACKAGE BODY", "INVALID")]
    with pytest.raises(oracledb.DatabaseError):
        cur.callproc("tenant_pkg.set_tenant", ["acme"])


def test_names_are_shared_with_other_objects(cur):
    """A package, a function, a procedure and a table share one namespace (ORA-00955, OR REPLACE included)."""
    cur.execute(SPEC)
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute("CREATE OR REPLACE FUNCTION tenant_pkg(s VARCHAR2, t VARCHAR2) RETURN VARCHAR2 IS "
                    "BEGIN RETURN '1=1'; END;")
    assert ora_code(info) == 955
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute("CREATE PACKAGE tenant_pkg AS PROCEDURE set_tenant(p_tenant IN VARCHAR2); END;")
    assert ora_code(info) == 955
    cur.execute("CREATE TABLE t_obj (id NUMBER)")
    with pytest.raises(oracledb.DatabaseError) as info:
        cur.execute("CREATE OR REPLACE PACKAGE t_obj AS PROCEDURE p; END;")
    assert ora_code(info) == 955


def test_an_older_file_keeps_its_pl_sql_units(tmp_path):
    """A file made when ORA$PLSQL was keyed by name alone (a body had overwritten its spec): its rows move to
    ORA$PLSQL_UNITS on open."""
    import sqlite3

    from workshop.embedded import connect

    path = tmp_path / "old.db"
    conn = connect(path)
    with conn.cursor() as c:
        c.execute(SPEC)
        c.execute(PACKAGE)
    conn.close()
    with sqlite3.connect(path) as raw:
        raw.execute('CREATE TABLE "ORA$PLSQL" (name TEXT PRIMARY KEY, kind TEXT NOT NULL, members TEXT NOT NULL, '
                    'source TEXT)')
        raw.execute('INSERT INTO "ORA$PLSQL" SELECT name, kind, members, source FROM "ORA$PLSQL_UNITS" '
                    "WHERE kind = 'PACKAGE BODY'")
        raw.execute('DELETE FROM "ORA$PLSQL_UNITS"')
        raw.execute("UPDATE \"ORA$META\" SET value = 5 WHERE key = 'catalog_version'")
    conn = connect(path)
    try:
        with conn.cursor() as c:
            # the old store had lost the spec: it comes back declaring the body's members, so calls keep working
            c.execute("SELECT object_type, status FROM user_objects WHERE object_name = 'TENANT_PKG' ORDER BY 1")
            assert c.fetchall() == [("PACKAGE", "VALID"), ("PACKAGE BODY", "VALID")]
            c.execute("CREATE OR REPLACE CONTEXT tenant_ctx USING tenant_pkg")
            c.callproc("tenant_pkg.set_tenant", ["acme"])
            c.execute("SELECT SYS_CONTEXT('tenant_ctx', 'tenant_id') FROM dual")
            assert c.fetchone() == ("acme",)
    finally:
        conn.close()
    with sqlite3.connect(path) as raw:
        assert raw.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'ORA$PLSQL'").fetchone() == (0,)
