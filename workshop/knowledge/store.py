"""The knowledge store AML_KNOWLEDGE_VS: an OracleVS table embedded in the database, kept in step with
KNOWLEDGE_FACTS by `sync_knowledge` (a full reconcile) and `mirror_writes` (every later write).

Each store row reuses its fact's id (`column:FINANCE.LOANS.RATE_BP`) and carries the fact's
fingerprint in its metadata, so a sync can tell new, changed, stale and unchanged rows apart without
re-embedding anything.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable

import oracledb
from langchain_oracledb import OracleEmbeddings, OracleVS
from langchain_oracledb.vectorstores.utils import DistanceStrategy

from .facts import Fact, add_mirror

KNOWLEDGE_TABLE = "AML_KNOWLEDGE_VS"
TEXT_INDEX = "AML_KNOWLEDGE_TEXT_IDX"
VECTOR_INDEX = "AML_KNOWLEDGE_HNSW"


def open_knowledge_store(conn: oracledb.Connection, model: str, table: str = KNOWLEDGE_TABLE) -> OracleVS:
    """OracleVS over `table` with in-database embeddings (the series' model), COSINE, upsert on duplicate ids."""
    embeddings = OracleEmbeddings(conn=conn, params={"provider": "database", "model": model})
    return OracleVS(conn, embeddings, table, DistanceStrategy.COSINE, mutate_on_duplicate=True)


def _table(store: OracleVS) -> str:
    return store.table_name            # already quoted by OracleVS


def stored_fingerprints(conn: oracledb.Connection, store: OracleVS) -> dict[str, str]:
    """{fact id: fingerprint} of every row in the store."""
    with conn.cursor() as cur:
        cur.execute(f"""SELECT JSON_VALUE(metadata, '$.fact_id'), JSON_VALUE(metadata, '$.fingerprint')
                        FROM {_table(store)} ORDER BY 1""")
        return {fid: fp for fid, fp in cur.fetchall()}


def upsert(store: OracleVS, facts: list[Fact]) -> None:
    """Write facts to the store under their own ids (MERGE, because the store mutates on duplicates)."""
    if facts:
        store.add_texts([f.body for f in facts], metadatas=[f.store_metadata() for f in facts],
                        ids=[f.id for f in facts])


def sync_knowledge(conn: oracledb.Connection, store: OracleVS, facts: Iterable[Fact]) -> dict[str, int]:
    """Make the store hold exactly the publishable `facts`: upsert new or changed ones by their own id,
    delete stale rows; returns {"inserted", "updated", "deleted", "unchanged"} counts."""
    wanted = {f.id: f for f in facts if f.publishable}
    present = stored_fingerprints(conn, store)
    new = [f for i, f in wanted.items() if i not in present]
    changed = [f for i, f in wanted.items() if i in present and present[i] != f.fingerprint]
    stale = sorted(i for i in present if i not in wanted)
    upsert(store, new + changed)
    if stale:
        store.delete(stale)
    return {"inserted": len(new), "updated": len(changed), "deleted": len(stale),
            "unchanged": len(wanted) - len(new) - len(changed)}


def refresh_text_index(conn: oracledb.Connection, index: str = TEXT_INDEX) -> None:
    """CTX_DDL.SYNC_INDEX: make rows written since the last sync searchable by keyword now (Oracle's
    automatic maintenance would otherwise pick them up a few seconds later)."""
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_indexes WHERE index_name = :n", n=index.upper())
        if cur.fetchone()[0]:
            cur.callproc("CTX_DDL.SYNC_INDEX", [index.upper()])


def mirror_writes(store: OracleVS) -> Callable[[], None]:
    """From now on every `write_facts` also upserts its publishable facts into `store` and deletes the
    others (an invalidated fact leaves the store). Returns a function that stops the mirroring.
    Registering a store again for the same table replaces the earlier one."""
    def mirror(facts: list[Fact]) -> None:
        upsert(store, [f for f in facts if f.publishable])
        gone = [f.id for f in facts if not f.publishable]
        if gone:
            store.delete(gone)
        refresh_text_index(store.client)
    return add_mirror(f"store:{_table(store)}", mirror)
