"""The privileges the workshop user needs on Oracle AI Database, each with the reason, in one place.

The devcontainer's start-up script grants exactly these (`.devcontainer/oracle/startdb/01_workshop_user.sh`;
a test keeps the two in sync), the doctor checks them (`missing_grants`), and `python -m
workshop.verify_oracle` reports them. Nothing broader is granted: no DB_DEVELOPER_ROLE, no DBA.
"""
from __future__ import annotations

from dataclasses import dataclass

import oracledb


@dataclass(frozen=True)
class Grant:
    kind: str          # "system", "object", "role" or "quota"
    privilege: str     # e.g. "CREATE MINING MODEL", "EXECUTE", "CTXAPP", "UNLIMITED"
    target: str = ""   # the object of an object grant (SYS.DBMS_VECTOR) or the tablespace of a quota
    reason: str = ""

    @property
    def label(self) -> str:
        if self.kind == "object":
            return f"{self.privilege} ON {self.target}"
        if self.kind == "quota":
            return f"QUOTA {self.privilege} ON {self.target}"
        if self.kind == "role":
            return f"role {self.privilege}"
        return self.privilege

    def sql(self, user: str) -> str:
        """The statement that grants it (no trailing semicolon, as python-oracledb requires)."""
        if self.kind == "object":
            return f"GRANT {self.privilege} ON {self.target} TO {user}"
        if self.kind == "quota":
            return f"ALTER USER {user} QUOTA {self.privilege} ON {self.target}"
        return f"GRANT {self.privilege} TO {user}"


GRANTS: tuple[Grant, ...] = (
    Grant("system", "CREATE SESSION", reason="connect at all"),
    Grant("system", "CREATE TABLE",
          reason="the set-up's tables and the learners' own (01 TODO 1, 03 memory tables, OracleVS stores)"),
    Grant("system", "CREATE SEQUENCE",
          reason="identity columns (03 TODO 1: id ... GENERATED ALWAYS AS IDENTITY) create a system sequence"),
    Grant("system", "CREATE PROCEDURE",
          reason="the trusted context package and the RLS policy function (parts 05 and 07)"),
    Grant("system", "CREATE MINING MODEL",
          reason="DBMS_VECTOR.LOAD_ONNX_MODEL of ALL_MINILM_L6_V2 and RERANKER"),
    Grant("system", "CREATE PROPERTY GRAPH", reason="RESEARCH_GRAPH (part 02, GRAPH_TABLE)"),
    Grant("system", "CREATE ANY CONTEXT",
          reason="CREATE CONTEXT ... USING <package> for row-level security (parts 05 and 07)"),
    Grant("system", "CREATE JOB",
          reason="Oracle AI Agent Memory's purge job for expired records (part 08)"),
    Grant("role", "CTXAPP",
          reason="CTX_DDL.SYNC_INDEX and CREATE SEARCH INDEX (parts 04 and 05); ORA-29855 without it"),
    Grant("object", "EXECUTE", "SYS.DBMS_VECTOR", reason="LOAD_ONNX_MODEL and DROP_ONNX_MODEL (set-up, reset)"),
    Grant("object", "EXECUTE", "SYS.DBMS_VECTOR_CHAIN",
          reason="langchain-oracledb OracleEmbeddings (UTL_TO_EMBEDDINGS, parts 01 and 03)"),
    Grant("object", "EXECUTE", "SYS.DBMS_RLS", reason="DBMS_RLS.ADD_POLICY / DROP_POLICY (parts 05 and 07)"),
    Grant("object", "SELECT", "SYS.V_$VECTOR_MEMORY_POOL",
          reason="the doctor's vector memory pool check (V$VECTOR_MEMORY_POOL)"),
    Grant("quota", "UNLIMITED", "USERS", reason="rows, LOBs and indexes in the default tablespace"),
)


def grant_statements(user: str) -> list[str]:
    return [g.sql(user) for g in GRANTS]


def _rows(conn: oracledb.Connection, sql: str, binds: dict | None = None) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, binds or {})
        return cur.fetchall()


def missing_grants(conn: oracledb.Connection) -> list[Grant]:
    """The grants the current Oracle user lacks (directly, through a role or through PUBLIC), in GRANTS order."""
    system = {r[0] for r in _rows(conn, "SELECT privilege FROM session_privs")}
    roles = {r[0] for r in _rows(conn, "SELECT role FROM session_roles")}
    wanted = sorted({g.target.split(".", 1)[1] for g in GRANTS if g.kind == "object"})
    marks = ", ".join(f":o{i}" for i in range(len(wanted)))
    visible = {r[0] for r in _rows(conn, f"SELECT object_name FROM all_objects WHERE owner = 'SYS' "
                                         f"AND object_name IN ({marks})",
                                   {f"o{i}": name for i, name in enumerate(wanted)})}
    quotas = {r[0]: r[1] for r in _rows(conn, "SELECT tablespace_name, max_bytes FROM user_ts_quotas")}
    missing = []
    for g in GRANTS:
        if g.kind == "system":
            ok = g.privilege in system
        elif g.kind == "role":
            ok = g.privilege in roles
        elif g.kind == "object":
            ok = g.target.split(".", 1)[1] in visible
        else:
            ok = "UNLIMITED TABLESPACE" in system or quotas.get(g.target) == -1
        if not ok:
            missing.append(g)
    return missing
