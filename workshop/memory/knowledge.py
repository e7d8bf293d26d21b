"""Knowledge-base memory (KNOWLEDGE_BASE_VS): facts and documents, searched by meaning with metadata filters."""
from __future__ import annotations

from .records import require_metadata, require_text
from .stores import Stores, search, store_for


def write_knowledge(stores: Stores, text: str, metadata: dict | None = None, *, id: str | None = None) -> str:
    """Store `text` with its metadata; the record id (given, or a new UUID).

    Writing an existing id updates that record (the stores upsert).
    """
    require_text(text, "text")
    meta = require_metadata(metadata)
    written = store_for(stores, "knowledge_base").add_texts([text], [meta], ids=[id] if id else None)
    if not written:
        raise RuntimeError("the knowledge record was not written (see the warning LangChain logged)")
    return written[0]


def read_knowledge(stores: Stores, query: str, k: int = 3, filter: dict | None = None) -> list[dict]:
    """The k knowledge records nearest to `query` among those matching `filter` (LangChain's
    metadata filter syntax: {"source": "manual"}, {"page": {"$gt": 2}}, {"$or": [...]}), nearest first."""
    return search(store_for(stores, "knowledge_base"), query, k, filter)
