"""Part 05: the six-stage hybrid retrieval pipeline (seed 003) over the knowledge-base tables.

* ``query``: stage 1, `understand_query` (rules and a thesaurus; entities from ``corpus_terms``, what the
  loaded data says is rare or a name);
* ``routing``: stage 2's check of stage 1's collection routing (narrow only when the scope still fills a pool);
* ``kb``: stage 2's tables, built from the corpus (`build_knowledge_base`);
* ``security``: the tenant boundary (context package, DBMS_RLS policies);
* ``search``: stages 3-5 as one statement (`search_knowledge_base`), and the polyglot contrast;
* ``budget``: stage 6, `budget_context`;
* ``manager``, ``retriever``, ``graph``: the manager, `OracleHybridRetriever`, the LangGraph graph and
  the agentic two-hop loop;
* ``plan_view``: Oracle's execution plan (Oracle only).
"""
from .budget import budget_context
from .kb import build_knowledge_base
from .manager import KnowledgeBaseManager, reranker_label
from .query import understand_query
from .search import polyglot_search, search_knowledge_base

__all__ = ["KnowledgeBaseManager", "budget_context", "build_knowledge_base", "polyglot_search", "reranker_label",
           "search_knowledge_base", "understand_query"]
