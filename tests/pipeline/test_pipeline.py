"""The one-statement pipeline, the knowledge-base build, and the adapters around the manager."""
import pytest
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from workshop.pipeline import kb, security
from workshop.pipeline.budget import budget_context
from workshop.pipeline.graph import agentic_retrieval, build_retrieval_graph
from workshop.pipeline.manager import KnowledgeBaseManager
from workshop.pipeline.plan_view import EMBEDDED_MESSAGE, explain
from workshop.pipeline.query import understand_query
from workshop.pipeline.retriever import METADATA_KEYS, OracleHybridRetriever
from workshop.pipeline.running_question import ANSWERING_PASSAGE, QUESTION, TENANT, USER, second_source_ranks
from workshop.pipeline.search import fuse, polyglot_search, search_knowledge_base
from workshop.retrieval import rrf_fuse


def test_fuse_agrees_with_rrf_fuse_when_ranks_are_positions():
    vector, lexical = ["a", "b", "c", "d"], ["c", "e", "a"]
    ours = fuse([(i, n) for n, i in enumerate(vector, 1)], [(i, n) for n, i in enumerate(lexical, 1)])
    assert [(i, pytest.approx(s, abs=1e-12)) for i, s, _, _ in ours] == rrf_fuse({"v": vector, "l": lexical})


def test_dense_lexical_ranks_give_tied_chunks_the_same_vote():
    fused = dict((i, s) for i, s, _, _ in fuse([], [("x", 1), ("y", 1), ("z", 2)]))
    assert fused["x"] == fused["y"] == 1 / 61 and fused["z"] == 1 / 62


@pytest.fixture
def acme(secured):
    security.set_tenant(secured, TENANT)
    return secured


def test_the_running_question_needs_fusion_to_find_its_second_source(acme):
    ranks = second_source_ranks(acme)
    assert ranks["passage"] == ANSWERING_PASSAGE
    assert ranks["vector rank"] > 10 and ranks["fused rank"] <= 40 and ranks["rerank rank"] is not None


def test_one_statement_and_three_give_the_same_ranking(acme):
    plan = understand_query(QUESTION)
    one = search_knowledge_base(acme, plan, user_id=USER)
    three, trips = polyglot_search(acme, plan, user_id=USER)
    assert trips == 3 and len(one) == 40
    assert [r["id"] for r in one] == [r["id"] for r in three]
    assert [r["rrf_score"] for r in one] == pytest.approx([r["rrf_score"] for r in three], abs=1e-12)
    private = {r["document_id"] for r in one}
    assert "KB-J01" in private and "KB-O01" not in private and "KB-D01" not in private and "DOC28" not in private
    assert all(r["metadata"]["section_type"] != "references" for r in one)


class SpyManager:
    """A manager that records calls and owns no connection: the retriever must need nothing else."""

    def __init__(self, real):
        self.real, self.calls = real, []

    def understand_query(self, question, *, user_id=None):
        self.calls.append("understand")
        return self.real.understand_query(question, user_id=user_id)

    def search_knowledge_base(self, plan, *, user_id, top_k):
        self.calls.append(("search", user_id, top_k))
        return self.real.search_knowledge_base(plan, user_id=user_id, top_k=top_k)


def test_the_retriever_goes_through_the_manager_only(acme):
    spy = SpyManager(KnowledgeBaseManager(acme, TENANT))
    retriever = OracleHybridRetriever(manager=spy, user_id=USER)
    docs = retriever.invoke(QUESTION)
    assert isinstance(retriever, BaseRetriever) and spy.calls == ["understand", ("search", USER, 40)]
    assert 0 < len(docs) <= 8 and all(isinstance(d, Document) for d in docs)
    assert all(tuple(d.metadata) == METADATA_KEYS for d in docs)
    plan = understand_query(QUESTION)
    expected, _ = budget_context(spy.real.search_knowledge_base(plan, user_id=USER), max_tokens=plan["token_budget"],
                                 diversify_by=plan["diversify_by"])
    assert [d.page_content for d in docs] == [r["content"] for r in expected[:8]]
    assert all(d.metadata["reranker"] == spy.real.reranker for d in docs)
    other = OracleHybridRetriever(manager=spy, user_id="omar").invoke(QUESTION)
    assert "KB-J01" not in {d.metadata["document_id"] for d in other}


def test_the_graph_has_three_nodes_and_matches_the_retriever(acme):
    manager = KnowledgeBaseManager(acme, TENANT)
    graph = build_retrieval_graph(manager, USER)
    drawn = graph.get_graph()
    assert {n for n in drawn.nodes if not n.startswith("__")} == {"understand", "retrieve", "budget"}
    assert {(e.source, e.target) for e in drawn.edges} == {("__start__", "understand"), ("understand", "retrieve"),
                                                           ("retrieve", "budget"), ("budget", "__end__")}
    state = graph.invoke({"query": QUESTION})
    assert len(state["candidates"]) <= 40
    assert sum(r["tokens"] for r in state["working_set"]) <= state["plan"]["token_budget"]
    docs = OracleHybridRetriever(manager=manager, user_id=USER).invoke(QUESTION)
    assert [r["content"] for r in state["working_set"][:8]] == [d.page_content for d in docs]


def test_agentic_retrieval_respects_its_rounds_budget(acme):
    graph = build_retrieval_graph(KnowledgeBaseManager(acme, TENANT), USER, candidates=10)
    assert len(agentic_retrieval(graph, QUESTION, max_rounds=2)["rounds"]) == 2
    assert len(agentic_retrieval(graph, QUESTION, max_rounds=1)["rounds"]) == 1
    assert len(agentic_retrieval(graph, "What does MEMKEEPER_PURGE_EPISODES do?", max_rounds=3)["rounds"]) == 1
    with pytest.raises(ValueError):
        agentic_retrieval(graph, QUESTION, max_rounds=0)


def test_the_plan_view_says_it_needs_oracle_on_the_embedded_engine(acme):
    assert explain(acme, "SELECT 1 FROM dual") == EMBEDDED_MESSAGE


def test_the_knowledge_base_build_is_rerunnable(kb_db):
    from workshop.embedded import connect
    conn = connect(kb_db)
    first = kb.counts(conn)
    security.protect_all_tenant_tables(conn)
    assert kb.build_knowledge_base(conn, "ALL_MINILM_L6_V2") == first      # the policies went with the tables
    assert security.protected_tables(conn) == []
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM knowledge_base_chunk WHERE embedding IS NULL")
        assert cur.fetchone() == (0,)
        cur.execute("SELECT COUNT(*) FROM research_chunks")
        corpus = cur.fetchone()[0]
    assert first["KNOWLEDGE_BASE_CHUNK"] == corpus + len(kb.authored_chunks())
    conn.close()


def test_the_chunk_table_has_its_text_and_vector_indexes_and_syncs_on_commit(kb_db):
    from checkpoints.framework import find_indexes
    from workshop.embedded import connect
    conn = connect(kb_db)
    assert find_indexes(conn, "KNOWLEDGE_BASE_CHUNK", kind="DOMAIN") == ["KB_CHUNK_TEXT"]
    assert find_indexes(conn, "KNOWLEDGE_BASE_CHUNK", kind="VECTOR") == ["KB_CHUNK_HNSW"]
    with conn.cursor() as cur:
        cur.execute("INSERT INTO knowledge_base_chunk (id, document_id, tenant_id, content, chunk_index, metadata) "
                    "VALUES ('DOC29-C99', 'DOC29', 'acme', 'zanzibarquartz appears once', 99, "
                    "JSON_OBJECT('section_type' VALUE 'faq'))")
        conn.commit()
        cur.execute("SELECT id FROM knowledge_base_chunk WHERE CONTAINS(content, '{zanzibarquartz}', 1) > 0 ORDER BY id")
        assert cur.fetchall() == [("DOC29-C99",)]
    conn.close()
