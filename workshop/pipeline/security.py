"""Row-level security on the tenant boundary: a trusted context package and DBMS_RLS policies.

The tenant is an attribute of the application context KB_CTX. Only the package named in
`CREATE CONTEXT kb_ctx USING kb_security` may set it (DBMS_SESSION.SET_CONTEXT raises ORA-01031
anywhere else), so application code can choose the tenant of its session but cannot forge a
predicate. The policy function returns the predicate Oracle appends to every reference to a
protected table, in every statement, so the tenant holds "even if every other stage of the
pipeline has a bug".

On Oracle the schema needs CREATE ANY CONTEXT, CREATE PROCEDURE and EXECUTE ON DBMS_RLS (a DBA
grants them once; the Codespace's workshop user has them). The policy function is declared in the
package specification, because DBMS_RLS calls it from outside the package.
"""
from __future__ import annotations

import oracledb

CONTEXT = "KB_CTX"
PACKAGE = "KB_SECURITY"
POLICY = "TENANT_ISOLATION"
POLICY_FUNCTION = "KB_SECURITY.TENANT_PREDICATE"

CONTEXT_SQL = "CREATE OR REPLACE CONTEXT kb_ctx USING kb_security"

PACKAGE_SPEC_SQL = """CREATE OR REPLACE PACKAGE kb_security AS
  PROCEDURE set_tenant(p_tenant IN VARCHAR2);
  PROCEDURE clear_tenant;
  FUNCTION tenant_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2;
END kb_security;"""

PACKAGE_BODY_SQL = """CREATE OR REPLACE PACKAGE BODY kb_security AS
  PROCEDURE set_tenant(p_tenant IN VARCHAR2) IS
  BEGIN
    DBMS_SESSION.SET_CONTEXT('kb_ctx', 'tenant_id', p_tenant);
  END set_tenant;
  PROCEDURE clear_tenant IS
  BEGIN
    DBMS_SESSION.CLEAR_CONTEXT('kb_ctx');
  END clear_tenant;
  FUNCTION tenant_predicate(p_schema IN VARCHAR2, p_object IN VARCHAR2) RETURN VARCHAR2 IS
  BEGIN
    RETURN 'tenant_id = SYS_CONTEXT(''kb_ctx'', ''tenant_id'')';
  END tenant_predicate;
END kb_security;"""

ADD_POLICY_SQL = """BEGIN
  DBMS_RLS.ADD_POLICY(
    object_schema   => USER,
    object_name     => :table_name,
    policy_name     => 'TENANT_ISOLATION',
    function_schema => USER,
    policy_function => 'KB_SECURITY.TENANT_PREDICATE',
    statement_types => 'SELECT,INSERT,UPDATE,DELETE',
    update_check    => TRUE);
END;"""

DROP_POLICY_SQL = """BEGIN
  DBMS_RLS.DROP_POLICY(object_schema => USER, object_name => :table_name, policy_name => 'TENANT_ISOLATION');
END;"""

#: Every table of the schema that carries a tenant, whatever it is called.
TENANT_TABLES_SQL = """SELECT table_name FROM user_tab_columns
WHERE column_name = 'TENANT_ID'
ORDER BY table_name"""

POLICIES_SQL = """SELECT object_name FROM user_policies
WHERE policy_name = 'TENANT_ISOLATION' AND sel = 'YES'
ORDER BY object_name"""


def install_context(conn: oracledb.Connection) -> None:
    """The context and its trusted package (CREATE OR REPLACE: safe to run again)."""
    with conn.cursor() as cur:
        for sql in (CONTEXT_SQL, PACKAGE_SPEC_SQL, PACKAGE_BODY_SQL):
            cur.execute(sql)


def set_tenant(conn: oracledb.Connection, tenant: str | None) -> None:
    """Choose this session's tenant through the trusted package (None clears it: then nothing is visible)."""
    with conn.cursor() as cur:
        if tenant is None:
            cur.callproc("kb_security.clear_tenant")
        else:
            cur.callproc("kb_security.set_tenant", [tenant])


def current_tenant(conn: oracledb.Connection) -> str | None:
    with conn.cursor() as cur:
        cur.execute("SELECT SYS_CONTEXT('kb_ctx', 'tenant_id') FROM dual")
        return cur.fetchone()[0]


def tenant_tables(conn: oracledb.Connection) -> list[str]:
    with conn.cursor() as cur:
        cur.execute(TENANT_TABLES_SQL)
        return [r[0] for r in cur.fetchall()]


def protected_tables(conn: oracledb.Connection) -> list[str]:
    """Tables with an enabled SELECT policy named TENANT_ISOLATION."""
    with conn.cursor() as cur:
        cur.execute(POLICIES_SQL)
        return [r[0] for r in cur.fetchall()]


def add_tenant_policy(conn: oracledb.Connection, table: str) -> bool:
    """Add the policy to one table unless it is there (ORA-28101 otherwise); True when added."""
    if table.upper() in protected_tables(conn):
        return False
    with conn.cursor() as cur:
        cur.execute(ADD_POLICY_SQL, table_name=table.upper())
    return True


def drop_tenant_policy(conn: oracledb.Connection, table: str) -> bool:
    if table.upper() not in protected_tables(conn):
        return False
    with conn.cursor() as cur:
        cur.execute(DROP_POLICY_SQL, table_name=table.upper())
    return True


def protect_all_tenant_tables(conn: oracledb.Connection) -> list[str]:
    """The reference policy loop: every table with a TENANT_ID column gets the policy."""
    for table in tenant_tables(conn):
        add_tenant_policy(conn, table)
    return protected_tables(conn)
