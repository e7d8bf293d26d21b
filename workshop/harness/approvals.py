"""Approval for consequential writes (H8): a human decides, the database records it, the write consumes it once.

An approval is a row of AGENT_APPROVALS bound to the run, the tool, the exact arguments (their digest), the
actor the harness runs for, and an expiry. The harness asks for one when the planner proposes a high-risk call;
a human approves or rejects it (in the graph, a LangGraph `interrupt` pauses the run until they answer); the
tool runs only if one compare-and-set UPDATE turns an *approved, unexpired* approval of exactly that call and
actor into *consumed* (affected rows = 1). So an approval cannot be reused, moved to other arguments, given by
another actor, or used after it expired; cancelling (rejecting) consumes nothing and writes nothing.

On Oracle the write itself would be a procedure that re-validates under a lock and raises
`RAISE_APPLICATION_ERROR(-20007, ...)` when the data went stale; here the write is one guarded UPDATE whose
affected-row count says the same thing.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import oracledb

from .identity import as_tenant
from .runlog import create_if_missing

APPROVALS_TABLE = "AGENT_APPROVALS"
APPROVALS_DDL = """CREATE TABLE agent_approvals (
  approval_id  VARCHAR2(40) PRIMARY KEY,
  run_id       VARCHAR2(40) NOT NULL,
  tool         VARCHAR2(64) NOT NULL,
  args_digest  VARCHAR2(64) NOT NULL,
  arguments    VARCHAR2(2000),
  status       VARCHAR2(12) NOT NULL,
  actor        VARCHAR2(64),
  expires_at   TIMESTAMP NOT NULL,   -- UTC: SYS_EXTRACT_UTC(SYSTIMESTAMP) + ttl, compared with the same
  CONSTRAINT agent_approvals_status_ck CHECK (status IN ('pending', 'approved', 'rejected', 'consumed'))
)"""

REQUEST_SQL = """INSERT INTO agent_approvals (approval_id, run_id, tool, args_digest, arguments, status, expires_at)
VALUES (:approval_id, :run_id, :tool, :digest, :arguments, 'pending',
        SYS_EXTRACT_UTC(SYSTIMESTAMP) + NUMTODSINTERVAL(:ttl, 'SECOND'))"""
DECIDE_SQL = """UPDATE agent_approvals SET status = :decision, actor = :actor
WHERE approval_id = :approval_id AND status = 'pending' AND expires_at > SYS_EXTRACT_UTC(SYSTIMESTAMP)"""
#: The compare-and-set that lets one high-risk call run: exactly this approval, still approved and unexpired,
#: for exactly this run, tool, arguments and actor. Expiry is the database's clock in UTC on both sides: a
#: TIMESTAMP compared with SYSTIMESTAMP (WITH TIME ZONE) is first converted in the *session* time zone (the
#: client's, ORA_SDTZ), so that comparison would move the expiry by the client's offset (SQL Language Reference,
#: "Datetime and Interval Arithmetic" / SYS_EXTRACT_UTC).
CONSUME_SQL = """UPDATE agent_approvals SET status = 'consumed'
WHERE approval_id = :approval_id AND status = 'approved' AND run_id = :run_id AND tool = :tool
  AND args_digest = :digest AND actor = :actor AND expires_at > SYS_EXTRACT_UTC(SYSTIMESTAMP)"""


class ApprovalRefused(RuntimeError):
    """A decision that cannot be recorded (unknown, expired or already decided approval)."""


def create_approvals_table(conn: oracledb.Connection) -> None:
    with conn.cursor() as cur:
        create_if_missing(cur, APPROVALS_DDL)


def digest(tool: str, arguments: dict) -> str:
    """The exact call an approval is for: the tool and its arguments, canonical JSON, SHA-256."""
    return hashlib.sha256(json.dumps([tool, arguments], sort_keys=True, default=str).encode()).hexdigest()


def approval_id_for(run_id: str, tool: str, arguments: dict) -> str:
    """Deterministic, so a node re-run after a resume finds the request it made instead of making another."""
    return "ap-" + hashlib.sha256(f"{run_id}:{digest(tool, arguments)}".encode()).hexdigest()[:32]


def request_approval(conn: oracledb.Connection, run_id: str, tool: str, arguments: dict, *,
                     ttl_seconds: int = 900) -> str:
    """A pending approval for this call (the existing one if it was requested already); its id."""
    approval_id = approval_id_for(run_id, tool, arguments)
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM agent_approvals WHERE approval_id = :a", a=approval_id)
        if cur.fetchone()[0] == 0:
            cur.execute(REQUEST_SQL, approval_id=approval_id, run_id=run_id, tool=tool,
                        digest=digest(tool, arguments),
                        arguments=json.dumps(arguments, sort_keys=True, default=str)[:2000], ttl=ttl_seconds)
    conn.commit()
    return approval_id


def decide(conn: oracledb.Connection, approval_id: str, actor: str, approve: bool) -> str:
    """Record a human's decision on a pending, unexpired approval: 'approved' or 'rejected'."""
    if not isinstance(actor, str) or not actor:
        raise ApprovalRefused("a decision needs the actor who made it")
    decision = "approved" if approve else "rejected"
    with conn.cursor() as cur:
        cur.execute(DECIDE_SQL, decision=decision, actor=actor, approval_id=approval_id)
        changed = cur.rowcount
    conn.commit()
    if changed != 1:
        raise ApprovalRefused(f"approval {approval_id} is unknown, expired or already decided")
    return decision


def consume_approval(conn: oracledb.Connection, approval_id: str, run_id: str, tool: str, arguments: dict,
                     actor: str) -> bool:
    """True when this call may run: one compare-and-set consumed its approval (affected rows = 1)."""
    with conn.cursor() as cur:
        cur.execute(CONSUME_SQL, approval_id=approval_id, run_id=run_id, tool=tool,
                    digest=digest(tool, arguments), actor=actor)
        consumed = cur.rowcount == 1
    conn.commit()
    return consumed


def approval_status(conn: oracledb.Connection, approval_id: str) -> str | None:
    with conn.cursor() as cur:
        cur.execute("SELECT status FROM agent_approvals WHERE approval_id = :a", a=approval_id)
        row = cur.fetchone()
    return row[0] if row else None


def close_case_tool(conn: oracledb.Connection, tenant: str) -> Callable[..., dict]:
    """`close_case(case_ref)`, the consequential write: on the harness's connection, under the verified tenant
    (RLS with update_check), and re-validated by its own WHERE: a case that is no longer open is stale."""
    if not isinstance(tenant, str) or not tenant:
        raise ValueError("close_case needs a verified tenant")

    def close_case(case_ref: Any) -> dict:
        if not isinstance(case_ref, str) or not 1 <= len(case_ref) <= 20:
            raise ValueError("close_case needs a case_ref of 1..20 characters")
        with as_tenant(conn, tenant), conn.cursor() as cur:
            cur.execute("UPDATE agent_cases SET status = 'closed' WHERE case_ref = :c AND status = 'open'",
                        c=case_ref)
            if cur.rowcount != 1:
                conn.rollback()
                raise ValueError(f"case {case_ref} is not an open case of this tenant (stale or unknown)")
            conn.commit()
        return {"closed": case_ref}
    return close_case
