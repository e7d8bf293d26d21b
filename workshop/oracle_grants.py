"""The privileges of the two Oracle identities of the series, each with the reason, in one place.

1. The workshop user (ORACLE_USER, `WORKSHOP`) owns every object. The devcontainer's start-up script grants it
   exactly `GRANTS` as SYSDBA (`.devcontainer/oracle/startdb/01_workshop_user.sh`; a test keeps the two in
   sync), the doctor checks them (`missing_grants`) and `python -m workshop.verify_oracle` reports them. Nothing
   broader: no DB_DEVELOPER_ROLE, no DBA.
2. The read-only user (ORACLE_READONLY_USER, `WORKSHOP_RO`) that part 07's tools and part 05's retriever use
   through `workshop.db.connect(readonly=True)`. The start-up script creates it with `READONLY_USER_GRANTS`
   only and marks it `READ ONLY`; the workshop user, as the owner, grants it `reader_grants()` on its own
   objects once they exist (`share_with_reader`: the set-up, part 05's knowledge base, part 07's case table).

Why a second user rather than a read-only session of the workshop user. 26ai documents both: the session
parameter READ_ONLY ("prohibit write operations in a user session", Oracle AI Database Reference, READ_ONLY,
https://docs.oracle.com/en/database/oracle/oracle-database/23/refrn/READ_ONLY.html) and the read-only user
property (`ALTER USER ... READ ONLY`; DIA-28192 "Only local users can be set to read-only",
https://docs.oracle.com/en/error-help/db/dia-28192). The session parameter is the session's own to undo: the
same page says "To disable read-only mode for the current session, set the READ_ONLY parameter to false",
so a statement that got past the SQL guard could switch it back, and the session would still hold every
privilege of the owner. A second user cannot grant itself what it lacks: it holds READ (not SELECT: READ
also refuses SELECT ... FOR UPDATE) on the objects the tools read and nothing else, and the READ ONLY
property refuses writes even to what it might be granted later. Row-level security applies to it as to
anyone (it has no EXEMPT ACCESS POLICY).

Owners are the documented ones: DBMS_VECTOR, DBMS_RLS and the V$ views belong to SYS; DBMS_VECTOR_CHAIN
and DBMS_HYBRID_VECTOR are Oracle Text packages and belong to CTXSYS (AI Vector Search User's Guide,
"Vector Search PL/SQL Packages", https://docs.oracle.com/en/database/oracle/oracle-database/26/vecse/
vector-search-pl-sql-packages-node.html; their error stacks read "CTXSYS.DBMS_VECTOR_CHAIN"). A GRANT that
names the wrong owner fails with ORA-04042 and the start-up script's WHENEVER SQLERROR CONTINUE would hide
it, which is why `missing_grants` looks each object up under the owner named here.
"""
from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

import oracledb


@dataclass(frozen=True)
class Grant:
    kind: str          # "system", "object", "model", "role" or "quota"
    privilege: str     # e.g. "CREATE MINING MODEL", "EXECUTE", "READ", "CTXAPP", "UNLIMITED"
    target: str = ""   # OWNER.NAME of an object grant, the model of a model grant, the tablespace of a quota
    reason: str = ""

    @property
    def owner(self) -> str:
        """The owner named in `target` ('' when the target is the grantor's own object)."""
        return self.target.split(".", 1)[0] if "." in self.target else ""

    @property
    def object_name(self) -> str:
        return self.target.split(".", 1)[-1]

    @property
    def label(self) -> str:
        if self.kind == "object":
            return f"{self.privilege} ON {self.target}"
        if self.kind == "model":
            return f"{self.privilege} ON MINING MODEL {self.target}"
        if self.kind == "quota":
            return f"QUOTA {self.privilege} ON {self.target}"
        if self.kind == "role":
            return f"role {self.privilege}"
        return self.privilege

    def sql(self, user: str) -> str:
        """The statement that grants it (no trailing semicolon, as python-oracledb requires)."""
        if self.kind == "object":
            return f"GRANT {self.privilege} ON {self.target} TO {user}"
        if self.kind == "model":
            # SQL Language Reference, GRANT: "SELECT ... ON MINING MODEL" is the mining-model object privilege
            return f"GRANT {self.privilege} ON MINING MODEL {self.target} TO {user}"
        if self.kind == "quota":
            return f"ALTER USER {user} QUOTA {self.privilege} ON {self.target}"
        return f"GRANT {self.privilege} TO {user}"


GRANTS: tuple[Grant, ...] = (
    Grant("system", "CREATE SESSION", reason="connect at all"),
    Grant("system", "CREATE TABLE",
          reason="the set-up's tables and the learners' own (01 TODO 1, 03 memory tables with identity columns, "
                 "OracleVS stores)"),
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
    Grant("object", "EXECUTE", "CTXSYS.DBMS_VECTOR_CHAIN",
          reason="langchain-oracledb OracleEmbeddings and the hybrid index's vectorizer preference "
                 "(UTL_TO_EMBEDDINGS, CREATE_PREFERENCE; parts 01, 03, 04 and 08)"),
    Grant("object", "EXECUTE", "CTXSYS.DBMS_HYBRID_VECTOR",
          reason="DBMS_HYBRID_VECTOR.SEARCH over a hybrid vector index (part 04 section 7, OAMP in part 08)"),
    Grant("object", "EXECUTE", "SYS.DBMS_RLS", reason="DBMS_RLS.ADD_POLICY / DROP_POLICY (parts 05 and 07)"),
    Grant("object", "SELECT", "SYS.V_$VECTOR_MEMORY_POOL",
          reason="the doctor's vector memory pool check (V$VECTOR_MEMORY_POOL)"),
    Grant("quota", "UNLIMITED", "USERS", reason="rows, LOBs and indexes in the default tablespace"),
)
# Not granted, on purpose: CREATE SEQUENCE (identity columns need only CREATE TABLE: Oracle creates and owns
# their ISEQ$$ sequence; nothing in the series creates a sequence); DBMS_SESSION (EXECUTE is PUBLIC's, and
# only the trusted package calls it); CTX_DDL (CTXSYS's, reached through CTXAPP); DBMS_DATA_MINING (the series
# loads models with DBMS_VECTOR only).

#: What the start-up script grants the read-only user as SYSDBA: only the right to connect.
READONLY_USER_GRANTS: tuple[Grant, ...] = (
    Grant("system", "CREATE SESSION", reason="connect at all; every other privilege comes from the owner's grants"),
)

#: The workshop's objects part 07's tools and part 05's retriever read on the read-only session, by creator.
FINANCE_READS = ("FINANCE_CUSTOMERS", "FINANCE_ACCOUNTS", "FINANCE_BRANCHES", "FINANCE_MERCHANTS",
                 "FINANCE_LOANS", "FINANCE_TRANSACTIONS")
KNOWLEDGE_BASE_READS = ("KNOWLEDGE_BASE_DOCUMENT", "KNOWLEDGE_BASE_CHUNK")
CONTEXT_PACKAGE = "KB_SECURITY"
CASES_TABLE = "AGENT_CASES"


def reader_grants(embedding_model: str | None = None, reranker_model: str | None = None) -> tuple[Grant, ...]:
    """What the owner grants the read-only user, each object in the owner's own schema (no owner prefix)."""
    from . import config, schema
    embedding = schema.identifier(embedding_model or config.embedding_model_name())
    reranker = schema.identifier(reranker_model or config.reranker_model_name())
    return (
        *(Grant("object", "READ", t, reason="part 07's governed reports and query_finance (set-up's table)")
          for t in FINANCE_READS),
        Grant("object", "READ", "WORKSHOP_META",
              reason="the reranker's model card, which part 05's manager shows on the tools' session"),
        Grant("model", "SELECT", embedding, reason="VECTOR_EMBEDDING in part 05's retriever (part 07 section 8)"),
        Grant("model", "SELECT", reranker, reason="PREDICTION in part 05's retriever (part 07 section 8)"),
        *(Grant("object", "READ", t, reason="part 05's retriever on the tools' session (built by part 05 or by "
                                            "part 07's harness_memory)") for t in KNOWLEDGE_BASE_READS),
        Grant("object", "EXECUTE", CONTEXT_PACKAGE,
              reason="the trusted context package: the harness binds the caller's tenant (parts 05 and 07)"),
        Grant("object", "READ", CASES_TABLE, reason="part 07's open_cases tool (created in section 7)"),
    )


def grant_statements(user: str) -> list[str]:
    return [g.sql(user) for g in GRANTS]


def readonly_user_statements(user: str) -> list[str]:
    return [g.sql(user) for g in READONLY_USER_GRANTS]


def _rows(conn: oracledb.Connection, sql: str, binds: dict | None = None) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, binds or {})
        return cur.fetchall()


def missing_grants(conn: oracledb.Connection) -> list[Grant]:
    """The grants the current Oracle user lacks (directly, through a role or through PUBLIC), in GRANTS order.
    Each object is looked up under its own owner (ALL_OBJECTS lists what the user may use)."""
    system = {r[0] for r in _rows(conn, "SELECT privilege FROM session_privs")}
    roles = {r[0] for r in _rows(conn, "SELECT role FROM session_roles")}
    wanted = sorted({(g.owner, g.object_name) for g in GRANTS if g.kind == "object"})
    pairs = " OR ".join(f"(owner = :w{i} AND object_name = :n{i})" for i in range(len(wanted)))
    binds = {k: v for i, (owner, name) in enumerate(wanted) for k, v in ((f"w{i}", owner), (f"n{i}", name))}
    visible = {(r[0], r[1]) for r in _rows(conn, f"SELECT owner, object_name FROM all_objects WHERE {pairs}", binds)}
    quotas = {r[0]: r[1] for r in _rows(conn, "SELECT tablespace_name, max_bytes FROM user_ts_quotas")}
    missing = []
    for g in GRANTS:
        if g.kind == "system":
            ok = g.privilege in system
        elif g.kind == "role":
            ok = g.privilege in roles
        elif g.kind == "object":
            ok = (g.owner, g.object_name) in visible
        else:
            ok = "UNLIMITED TABLESPACE" in system or quotas.get(g.target) == -1
        if not ok:
            missing.append(g)
    return missing


# --------------------------------------------------------------------------- the read-only user
def readonly_user() -> str | None:
    """The read-only user of ORACLE_READONLY_USER, upper-cased as Oracle stores an unquoted name; None if unset."""
    name = (os.environ.get("ORACLE_READONLY_USER") or "").strip()
    return name.upper() or None


def _owned(conn: oracledb.Connection) -> dict[str, str]:
    """The current user's objects of the kinds reader_grants names: name -> object type."""
    return dict(_rows(conn, "SELECT object_name, object_type FROM user_objects WHERE object_type IN "
                            "('TABLE', 'PACKAGE', 'MINING MODEL')"))


def share_with_reader(conn: oracledb.Connection, names: Iterable[str] | None = None) -> list[str]:
    """As the owner: grant the read-only user (ORACLE_READONLY_USER) what `reader_grants` names, for the objects
    that exist (all of them, or only `names`). GRANT of a privilege already held is a no-op in Oracle, so this
    runs after every creation. Returns the statements run. Nothing to do on the embedded engine (no
    privileges: its read-only session opens the same file read-only) or when no read-only user is configured."""
    from .db import is_embedded
    reader = readonly_user()
    if is_embedded(conn) or reader is None:
        return []
    only = None if names is None else {n.upper() for n in names}
    owned = _owned(conn)
    statements = [g.sql(reader) for g in reader_grants()
                  if g.object_name in owned and (only is None or g.object_name in only)]
    with conn.cursor() as cur:
        for sql in statements:
            cur.execute(sql)
    return statements


def missing_reader_grants(owner: oracledb.Connection, reader: oracledb.Connection) -> list[Grant]:
    """The reader grants whose object exists in the owner's schema but which the read-only session cannot see
    (ALL_OBJECTS of the reader lists exactly the objects it holds a privilege on)."""
    owned = _owned(owner)
    schema_owner = _rows(owner, "SELECT USER FROM dual")[0][0]
    seen = {r[0] for r in _rows(reader, "SELECT object_name FROM all_objects WHERE owner = :o", {"o": schema_owner})}
    return [g for g in reader_grants() if g.object_name in owned and g.object_name not in seen]
