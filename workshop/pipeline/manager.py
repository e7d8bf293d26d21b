"""The one door into the schema: every stage that touches the database goes through a manager.

`KnowledgeBaseManager` holds a connection whose session is bound to one tenant (through the
trusted context package) and the stage functions it runs: by default the reference ones in this
package; the notebook passes the learner's own. Framework adapters (the LangChain retriever, the
LangGraph graph, the agentic loop) call the manager and never a cursor.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import oracledb

from . import security
from .query import understand_query as reference_understand
from .routing import route_collections
from .search import CANDIDATES
from .search import search_knowledge_base as reference_search


def reranker_label(conn: oracledb.Connection) -> str:
    """Which reranker scored the results, from the model card the set-up recorded (WORKSHOP_META).

    WORKSHOP_META is read by name through the session's schema, not looked up in USER_TABLES: on part 07's
    read-only session (a second user whose CURRENT_SCHEMA is the workshop's) USER_TABLES is empty, and the
    table is readable through its READ grant."""
    from workshop import config
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT key, value FROM workshop_meta WHERE key IN ('reranker_model', 'reranker_label')")
            meta = dict(cur.fetchall())
    except oracledb.DatabaseError as exc:
        if getattr(exc.args[0] if exc.args else None, "code", None) != 942:     # ORA-00942: not set up yet
            raise
        meta = {}
    name = config.reranker_model_name()
    if meta.get("reranker_model") != name or "reranker_label" not in meta:
        return f"{name} (no model card recorded: run python -m workshop.setup)"
    return meta["reranker_label"]


class KnowledgeBaseManager:
    def __init__(self, conn: oracledb.Connection, tenant: str, *,
                 understand: Callable[[str], dict] = reference_understand,
                 search: Callable[..., list[dict]] = reference_search):
        self.conn = conn
        self.tenant = tenant
        self._understand = understand
        self._search = search
        security.set_tenant(conn, tenant)
        self.reranker = reranker_label(conn)

    def understand_query(self, question: str, *, user_id: str | None = None) -> dict:
        """Stage 1, then (with `user_id`) stage 2's routing check: the plan's collections narrow only when the
        narrowed scope still fills a pool for this tenant and user (`routing.route_collections`)."""
        plan = self._understand(question)
        if user_id is None:
            return plan
        if security.current_tenant(self.conn) != self.tenant:
            security.set_tenant(self.conn, self.tenant)
        return route_collections(self.conn, plan, user_id=user_id)

    def search_knowledge_base(self, plan: Mapping[str, Any], *, user_id: str, top_k: int = CANDIDATES) -> list[dict]:
        """Stages 2-5 for this manager's tenant; every row says which reranker scored it."""
        if security.current_tenant(self.conn) != self.tenant:
            security.set_tenant(self.conn, self.tenant)
        rows = self._search(self.conn, plan, user_id=user_id, top_k=top_k)
        return [{**row, "reranker": self.reranker} for row in rows]
