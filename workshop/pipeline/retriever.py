"""`OracleHybridRetriever`: the six-stage pipeline behind LangChain's retriever interface.

Not langchain-oracledb's `OracleHybridSearchRetriever`, which queries a database-native hybrid
vector index (DBMS_HYBRID_VECTOR); this one runs our own statement (scope, two pools, RRF, rerank)
and our budgeting, through the manager, so the adapter gets no path around row-level security.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from .budget import budget_context

METADATA_KEYS = ("title", "source", "document_id", "version", "score", "reranker")


def to_document(row: dict) -> Document:
    return Document(page_content=row["content"], metadata={
        "title": row["title"], "source": row["source_uri"], "document_id": row["document_id"],
        "version": row["version"], "score": row["rerank_score"], "reranker": row["reranker"]})


class OracleHybridRetriever(BaseRetriever):
    manager: Any            # the one door into the schema
    user_id: str
    k: int = 8              # final results after budgeting
    candidates: int = 40    # fused candidates reranked in the SQL statement
    budget: Callable[..., tuple[list[dict], dict]] = budget_context

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        plan = self.manager.understand_query(query, user_id=self.user_id)           # stage 1 (+ routing check)
        rows = self.manager.search_knowledge_base(plan, user_id=self.user_id, top_k=self.candidates)  # 2-5
        working_set, _ = self.budget(rows, max_tokens=plan["token_budget"], diversify_by=plan["diversify_by"])  # 6
        return [to_document(r) for r in working_set[: self.k]]
