"""Identity comes from the session, never from a tool argument (the REST article's pattern, on RLS).

The harness, not the model, holds who the caller is: it sets the tenant of the tools' read-only session
through part 05's trusted context package (`kb_security.set_tenant`; DBMS_SESSION.SET_CONTEXT works only
inside it), and a DBMS_RLS policy filters every statement on AGENT_CASES by SYS_CONTEXT. The case tool takes
no tenant argument at all, so a planner that passes one gets `invalid`, and the session still sees only its
tenant's rows.

Setting the tenant and running the statement are one step under a lock of the session (`as_tenant`): two tools
bound to different tenants may share one session and be called from two threads, and without the lock one
thread's `set_tenant` lands between the other's `set_tenant` and its query, which then reads the wrong tenant.
(On Oracle, python-oracledb serialises calls on one connection but not the pair; a connection per tenant, or
this lock, keeps the pair together.)
"""
from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import oracledb

from workshop import lesson_state, oracle_grants
from workshop.oracle_grants import share_with_reader
from workshop.pipeline import security

from .reports import ReportTool, bounded_int

CASES_TABLE = "AGENT_CASES"
CASES_DDL = """CREATE TABLE agent_cases (
  tenant_id   VARCHAR2(30) NOT NULL,
  case_ref    VARCHAR2(20) NOT NULL,
  customer_id NUMBER(8) NOT NULL,
  status      VARCHAR2(12) NOT NULL,
  CONSTRAINT agent_cases_pk PRIMARY KEY (tenant_id, case_ref)
)"""
CASES = [("acme", "AC-1", 1001, "open"), ("acme", "AC-2", 1002, "open"), ("acme", "AC-3", 1003, "closed"),
         ("initech", "IN-1", 2001, "open"), ("initech", "IN-2", 2002, "open")]

OPEN_CASES = ReportTool(
    "open_cases",
    "Open AML cases of the caller's tenant (the tenant comes from the session, not from an argument).",
    {"limit": bounded_int(1, 50)},
    """SELECT case_ref, customer_id, status FROM agent_cases
WHERE status = 'open'
ORDER BY case_ref
FETCH FIRST :limit ROWS ONLY""",
    {"limit": "at most this many cases, 1..50"})


_LOCKS: "weakref.WeakKeyDictionary[Any, threading.RLock]" = weakref.WeakKeyDictionary()
_LOCKS_GUARD = threading.Lock()


def _forget_locks() -> None:
    """reset_part(7): the sessions the locks belonged to are gone with the part (a lock is made again on first use)."""
    with _LOCKS_GUARD:
        _LOCKS.clear()


lesson_state.register(__name__, "_LOCKS", parts=(7,), clear=_forget_locks)


def session_lock(conn: oracledb.Connection) -> threading.RLock:
    """The one lock of this session, shared by every tool that binds an identity on it."""
    with _LOCKS_GUARD:
        lock = _LOCKS.get(conn)
        if lock is None:
            lock = _LOCKS[conn] = threading.RLock()
        return lock


@contextmanager
def as_tenant(conn: oracledb.Connection, tenant: str) -> Iterator[oracledb.Connection]:
    """The session bound to `tenant` for the statements of the `with` block, and to nobody else meanwhile:
    the lock is held from set_tenant to the end of the block, then the session's previous tenant is restored."""
    if not isinstance(tenant, str) or not tenant:
        raise ValueError("the harness needs a verified tenant to open the tools' session")
    with session_lock(conn):
        previous = security.current_tenant(conn)
        security.set_tenant(conn, tenant)
        try:
            yield conn
        finally:
            security.set_tenant(conn, previous)


def create_case_table(conn: oracledb.Connection) -> None:
    """AGENT_CASES with its rows and the tenant policy (the context package of part 05 is (re)installed)."""
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_objects WHERE object_name = 'KB_SECURITY' AND object_type = 'PACKAGE BODY'")
        if cur.fetchone()[0] == 0:          # part 05 may have installed it already, with policies that use it
            security.install_context(conn)
        cur.execute("SELECT COUNT(*) FROM user_tables WHERE table_name = 'AGENT_CASES'")
        if cur.fetchone()[0] == 0:
            cur.execute(CASES_DDL)
        cur.execute("SELECT COUNT(*) FROM user_policies WHERE object_name = 'AGENT_CASES' "
                    "AND policy_name = 'TENANT_ISOLATION'")
        if cur.fetchone()[0] == 0:
            cur.execute(security.ADD_POLICY_SQL, table_name=CASES_TABLE)
        for tenant in sorted({c[0] for c in CASES}):
            security.set_tenant(conn, tenant)           # update_check: each tenant inserts only its own rows
            cur.execute("DELETE FROM agent_cases")
            cur.executemany("INSERT INTO agent_cases (tenant_id, case_ref, customer_id, status) "
                            "VALUES (:1, :2, :3, :4)", [c for c in CASES if c[0] == tenant])
        security.set_tenant(conn, None)
    conn.commit()
    share_with_reader(conn, [CASES_TABLE, oracle_grants.CONTEXT_PACKAGE])    # Oracle: the tools' read-only user


def bind_identity(conn: oracledb.Connection, tenant: str) -> None:
    """Carry the verified caller into the session: the trusted package sets the context RLS reads."""
    if not isinstance(tenant, str) or not tenant:
        raise ValueError("the harness needs a verified tenant to open the tools' session")
    security.set_tenant(conn, tenant)


def open_cases_tool(conn: oracledb.Connection, tenant: str) -> Callable[..., list[dict]]:
    """The `open_cases` tool for the verified `tenant`: each call carries the tenant into the session through the
    trusted package, then runs the governed report; the tool takes the report's arguments only, never a tenant."""
    if not isinstance(tenant, str) or not tenant:
        raise ValueError("the harness needs a verified tenant to open the tools' session")

    def open_cases(**arguments: Any) -> list[dict]:
        with as_tenant(conn, tenant):       # every call, under the session's lock: another tool may share it
            return OPEN_CASES.run(conn, **arguments)
    return open_cases
