"""Part 04: knowledge an agent stores and finds again, over the FINANCE schema and the AML policy.

    facts = scan_schema(conn, "FINANCE") + policy_facts()   # the source of truth, in KNOWLEDGE_FACTS
    store = open_knowledge_store(conn, model)               # AML_KNOWLEDGE_VS, embedded in the database
    sync_knowledge(conn, store, read_facts(conn))
    rerank = prepare_search(conn, store)                    # indexes, mirroring, in-database reranker
    hybrid_search_knowledge(store, "which column holds RATE_BP")
"""
from .facts import (EXCLUDED_KINDS, FACTS_DDL, FACTS_TABLE, KNOWLEDGE_KINDS, Fact, add_mirror, create_facts_table,
                    fact_id, read_facts, write_facts)
from .policy import AML_POLICY_NOTES, policy_facts
from .scan import like_prefix, scan_schema
from .search import (hybrid_search_knowledge, make_reranker, prepare_search, reranker_label, seed_keyword_terms,
                     to_hit)
from .store import (KNOWLEDGE_TABLE, TEXT_INDEX, VECTOR_INDEX, mirror_writes, open_knowledge_store,
                    refresh_text_index, stored_fingerprints, sync_knowledge, upsert)

__all__ = [
    "AML_POLICY_NOTES", "EXCLUDED_KINDS", "FACTS_DDL", "FACTS_TABLE", "KNOWLEDGE_KINDS", "KNOWLEDGE_TABLE", "TEXT_INDEX",
    "VECTOR_INDEX", "Fact", "add_mirror", "create_facts_table", "fact_id", "hybrid_search_knowledge", "like_prefix",
    "make_reranker", "mirror_writes", "open_knowledge_store", "policy_facts", "prepare_search", "read_facts",
    "refresh_text_index", "reranker_label", "scan_schema", "seed_keyword_terms", "stored_fingerprints",
    "sync_knowledge", "to_hit", "upsert", "write_facts",
]
