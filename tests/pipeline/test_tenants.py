"""Nothing crosses tenants through any statement of part 05: the pipeline (with and without the rerank),
each pool, the polyglot variant, the notebook's own queries, the manager, the retriever and the graph; with
no tenant in the context every statement sees nothing; writes across the boundary fail with ORA-28115."""
import oracledb
import pytest

from checkpoints.part05 import _scope_facts
from workshop.pipeline import security
from workshop.pipeline.graph import build_retrieval_graph
from workshop.pipeline.manager import KnowledgeBaseManager
from workshop.pipeline.query import understand_query
from workshop.pipeline.retriever import OracleHybridRetriever
from workshop.pipeline.search import (fetch_dicts, pipeline_sql, plan_binds, polyglot_search, pool,
                                      search_knowledge_base)

FACTS = _scope_facts()
#: A question every tenant's corpus can answer something to (all three have runbooks on the same topics).
QUESTION = "How do memkeeper runbooks handle retention, ORA-51962 and tenant isolation with VPD?"
NOTEBOOK_QUERIES = {
    "chunks by tenant": "SELECT tenant_id AS id FROM knowledge_base_chunk",
    "special documents": "SELECT id FROM knowledge_base_document WHERE user_id IS NOT NULL OR valid_until IS NOT NULL "
                         "OR deleted_at IS NOT NULL",
    "ties": "SELECT id FROM knowledge_base_chunk WHERE CONTAINS(content, '{memkeeper} OR {retention}', 1) > 0",
}


def tenants_of(ids):
    return {FACTS[i]["tenant"] if i in FACTS else i for i in ids}


def statements(conn, tenant):
    """(name, chunk ids) of every statement shape of the part, run in the session as it is."""
    plan = understand_query(QUESTION)
    out = [("pipeline + rerank", [r["id"] for r in search_knowledge_base(conn, plan, user_id="jane", top_k=6)])]
    collection_list, binds = plan_binds(plan, "jane", 40)
    with conn.cursor() as cur:
        cur.execute(pipeline_sql("ALL_MINILM_L6_V2", None, collection_list), binds)
        out.append(("pipeline, no rerank", [r["id"] for r in fetch_dicts(cur)]))
        for name, sql in NOTEBOOK_QUERIES.items():
            cur.execute(sql)
            ids = [r[0] for r in cur.fetchall()]
            out.append((name, ids if name != "special documents" else
                        [next(c for c, f in FACTS.items() if f["document"] == d) for d in ids]))
            if name == "chunks by tenant":
                out[-1] = (name, [next(c for c, f in FACTS.items() if f["tenant"] == t) for t in ids])
    out += [(f"{kind} pool", [i for i, _ in pool(conn, kind, plan, user_id="jane")]) for kind in ("vector", "lexical")]
    return out


@pytest.mark.parametrize("tenant", ["acme", "globex", "initech"])
def test_every_statement_sees_only_its_tenant(secured, tenant):
    security.set_tenant(secured, tenant)
    seen_any = False
    for name, ids in statements(secured, tenant):
        assert tenants_of(ids) <= {tenant}, f"{name} crossed from {tenant}: {tenants_of(ids)}"
        seen_any = seen_any or bool(ids)
    assert seen_any


def test_with_no_tenant_every_statement_sees_nothing(secured):
    security.set_tenant(secured, None)
    for name, ids in statements(secured, None):
        assert ids == [], name


def test_the_polyglot_variant_and_the_adapters_stay_inside_the_tenant(secured):
    security.set_tenant(secured, "globex")
    rows, trips = polyglot_search(secured, understand_query(QUESTION), user_id="jane", top_k=5)
    assert trips == 3 and rows and tenants_of(r["id"] for r in rows) == {"globex"}
    manager = KnowledgeBaseManager(secured, "globex")
    docs = OracleHybridRetriever(manager=manager, user_id="jane", candidates=5).invoke(QUESTION)
    document_tenant = {f["document"]: f["tenant"] for f in FACTS.values()}
    assert docs and {document_tenant[d.metadata["document_id"]] for d in docs} == {"globex"}
    state = build_retrieval_graph(manager, "jane", candidates=5).invoke({"query": QUESTION})
    assert tenants_of(r["id"] for r in state["candidates"]) == {"globex"}


def test_the_manager_resets_a_session_whose_tenant_was_changed(secured):
    manager = KnowledgeBaseManager(secured, "initech")
    security.set_tenant(secured, "acme")            # someone else's code changed the session's tenant
    rows = manager.search_knowledge_base(understand_query(QUESTION), user_id="jane", top_k=5)
    assert rows and tenants_of(r["id"] for r in rows) == {"initech"}
    assert all(r["reranker"].startswith("RERANKER") for r in rows)


def test_writes_across_the_boundary_fail(kb_db):
    from workshop.embedded import connect
    conn = connect(kb_db)
    security.protect_all_tenant_tables(conn)
    security.set_tenant(conn, "acme")
    with conn.cursor() as cur:
        with pytest.raises(oracledb.DatabaseError, match="ORA-28115"):
            cur.execute("INSERT INTO knowledge_base_chunk (id, document_id, tenant_id, content, chunk_index) "
                        "VALUES ('X-1', 'DOC14', 'globex', 'planted', 1)")
        with pytest.raises(oracledb.DatabaseError, match="ORA-28115"):
            cur.execute("UPDATE knowledge_base_document SET tenant_id = 'globex' WHERE id = 'DOC02'")
        cur.execute("DELETE FROM knowledge_base_chunk WHERE tenant_id = 'globex'")
        assert cur.rowcount == 0
    conn.rollback()
    security.set_tenant(conn, "globex")
    assert conn.cursor().execute("SELECT COUNT(*) FROM knowledge_base_chunk WHERE tenant_id = 'globex'").fetchone()[0] > 0
    conn.close()


def test_only_the_trusted_package_sets_the_tenant(secured):
    with pytest.raises(oracledb.DatabaseError, match="ORA-01031"):
        secured.cursor().execute("BEGIN DBMS_SESSION.SET_CONTEXT('kb_ctx', 'tenant_id', 'acme'); END;")
