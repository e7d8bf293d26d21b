"""The five vector stores of agent memory: one OracleVS table per kind of searchable memory.

| key            | table              | holds                                              |
|----------------|--------------------|----------------------------------------------------|
| knowledge_base | KNOWLEDGE_BASE_VS  | facts and documents the agent may cite             |
| workflow       | WORKFLOW_VS        | how earlier tasks were solved (steps, outcome)     |
| toolbox        | TOOLBOX_VS         | tool descriptions, searched to pick relevant tools |
| entity         | ENTITY_VS          | people, projects, things: one row per entity       |
| summary        | SUMMARY_VS         | summaries of older conversation turns              |

Every store embeds in the database (OracleEmbeddings, provider "database"), measures COSINE
distance, and upserts on a repeated id (`mutate_on_duplicate=True`: LangChain then issues a MERGE),
so writing an entity or a tool again updates its row instead of adding a duplicate.
"""
from __future__ import annotations

from collections.abc import Mapping

import oracledb
from langchain_core.embeddings import Embeddings
from langchain_oracledb import OracleVS
from langchain_oracledb.vectorstores.utils import DistanceStrategy

from .model import database_embeddings
from .records import document_record, require_k, require_text
from .schema import drop_tables

STORE_TABLES: dict[str, str] = {
    "knowledge_base": "KNOWLEDGE_BASE_VS",
    "workflow": "WORKFLOW_VS",
    "toolbox": "TOOLBOX_VS",
    "entity": "ENTITY_VS",
    "summary": "SUMMARY_VS",
}
DISTANCE = DistanceStrategy.COSINE

Stores = Mapping[str, OracleVS]


def create_stores(conn: oracledb.Connection, embeddings: Embeddings | None = None, *,
                  index: bool = True) -> dict[str, OracleVS]:
    """The five stores (their tables, and with `index` their HNSW indexes, are created if missing), keyed as in
    STORE_TABLES."""
    embeddings = embeddings or database_embeddings(conn)
    stores = {key: OracleVS(conn, embeddings, table, DISTANCE, mutate_on_duplicate=True)
              for key, table in STORE_TABLES.items()}
    if index:
        create_store_indexes(conn, stores)
    return stores


def index_name(table: str) -> str:
    """The fixed name of a store's HNSW index: a fixed name is what makes creating it idempotent."""
    return f"{table}_HNSW"


def create_store_indexes(conn: oracledb.Connection, stores: Mapping[str, OracleVS]) -> list[str]:
    """An HNSW index (the store's distance) on every store's EMBEDDING column, unless it exists; the names.

    One index per memory type is one reason for separate tables: each index is sized for its own rows.
    create_index checks USER_INDEXES for the name first, so a second run changes nothing (without a fixed
    name it would invent a new one and fail with ORA-01408, the column is already indexed).
    """
    from langchain_oracledb.vectorstores.oraclevs import create_index
    names = []
    for key, store in stores.items():
        name = index_name(STORE_TABLES.get(key, store.table_name.strip('"')))
        create_index(conn, store, params={"idx_name": name, "idx_type": "HNSW"})
        names.append(name)
    return names


def store_for(stores: Stores, key: str) -> OracleVS:
    """stores[key], with an error that lists the keys when it is missing."""
    if key not in stores:
        raise KeyError(f"no {key!r} store; expected the keys {list(STORE_TABLES)}")
    return stores[key]


def search(store: OracleVS, query: str, k: int, filter: dict | None = None) -> list[dict]:
    """The k records nearest to `query` that match the metadata `filter`, nearest first.

    The filter runs inside the SQL statement (JSON_EXISTS in the WHERE clause), before the top-k
    limit, so k matching rows come back whenever k exist.
    """
    require_text(query, "query")
    require_k(k)
    found = store.similarity_search_with_score(query, k=k, filter=filter)
    return [document_record(doc, float(distance)) for doc, distance in found]


def drop_stores(conn: oracledb.Connection) -> None:
    """Drop the five store tables if they exist."""
    drop_tables(conn, list(STORE_TABLES.values()))
