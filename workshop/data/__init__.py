"""Authored, pinned data sets of the workshop: research corpus, paper table, golden queries.

See ``workshop/data/README.md`` for what each file holds and ``LICENSE.md`` for the terms.
"""
from workshop.data.loaders import (
    COLLECTIONS,
    DATA_DIR,
    DATA_VERSION,
    INTENTS,
    PRIMARY_SUBJECTS,
    SECTION_TYPES,
    TENANTS,
    Author,
    Chunk,
    DataIntegrityError,
    Document,
    GoldenQuery,
    Paper,
    authorship_edges,
    load_authors,
    load_chunks,
    load_documents,
    load_golden_queries,
    load_manifest,
    load_papers,
    verify_manifest,
)

__all__ = [
    "COLLECTIONS", "DATA_DIR", "DATA_VERSION", "INTENTS", "PRIMARY_SUBJECTS", "SECTION_TYPES",
    "TENANTS", "Author", "Chunk", "DataIntegrityError", "Document", "GoldenQuery", "Paper",
    "authorship_edges", "load_authors", "load_chunks", "load_documents", "load_golden_queries",
    "load_manifest", "load_papers", "verify_manifest",
]
