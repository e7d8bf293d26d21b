"""langgraph-oracledb 1.0.2's AsyncOracleSaver (and AsyncOracleStore), unmodified, on the embedded engine's async door: setup (twice),
a graph interrupted and resumed from a new connection (or a pool), alist / aget_tuple / adelete_thread, and
channel values big enough to go to the BLOB table (AsyncLOBs from createlob, bound by executemany). What the
async saver wrote is read back by the sync OracleSaver on the same file and must be the same state."""
from __future__ import annotations

import asyncio
from typing import TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph_oracledb.checkpoint.oracle import AsyncOracleSaver, OracleSaver

from workshop.embedded import connect, connect_async, create_pool_async


class State(TypedDict):
    steps: list[str]
    notes: list[str]


def _graph(saver, ran: list[str]):
    def plan(state: State) -> dict:
        ran.append("plan")
        return {"steps": state["steps"] + ["plan"], "notes": state["notes"] + ["p" * 40] * 50}

    def act(state: State) -> dict:
        ran.append("act")
        return {"steps": state["steps"] + ["act"]}

    graph = StateGraph(State)
    graph.add_node("plan", plan)
    graph.add_node("act", act)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "act")
    graph.add_edge("act", END)
    return graph.compile(checkpointer=saver, interrupt_before=["act"])


#: Non-primitive channel values over this size (MB) go to checkpoint_blobs as BLOBs: 0.001 MB sends the notes (2 KB).
BLOB_THRESHOLD_MB = 0.001


@pytest.mark.parametrize("resume_with", ["connection", "pool"])
def test_an_async_run_interrupted_and_resumed_on_a_new_session(db_path, resume_with):
    config = {"configurable": {"thread_id": "case-7"}}

    async def first_session():
        async with connect_async(db_path) as conn:
            saver = AsyncOracleSaver(conn, json_size_threshold_mb=BLOB_THRESHOLD_MB)
            await saver.setup()
            await saver.setup()                                  # safe to repeat
            ran: list[str] = []
            stopped = await _graph(saver, ran).ainvoke({"steps": [], "notes": []}, config)
            return stopped, ran

    async def second_session():
        pool = create_pool_async(db_path, max=2) if resume_with == "pool" else None
        conn = None if pool else await connect_async(db_path)
        try:
            saver = AsyncOracleSaver(pool or conn, json_size_threshold_mb=BLOB_THRESHOLD_MB)
            ran: list[str] = []
            app = _graph(saver, ran)
            waiting = (await app.aget_state(config)).next
            finished = await app.ainvoke(None, config)
            history = [c.checkpoint["id"] async for c in saver.alist(config)]
            latest = await saver.aget_tuple(config)
            return waiting, finished, ran, history, latest.checkpoint["id"]
        finally:
            if pool:
                await pool.close()
            else:
                await conn.close()

    stopped, ran = asyncio.run(first_session())
    assert stopped["steps"] == ["plan"] and len(stopped["notes"]) == 50 and ran == ["plan"]
    waiting, finished, ran_after, history, latest = asyncio.run(second_session())
    assert waiting == ("act",) and ran_after == ["act"]                  # the first step did not run again
    assert finished == {"steps": ["plan", "act"], "notes": ["p" * 40] * 50}
    assert history[0] == latest and len(history) == len(set(history)) >= 3

    with connect(db_path) as conn, conn.cursor() as cur:                  # what the async saver wrote
        sync_state = _graph(OracleSaver(conn), []).get_state(config)
        cur.execute("SELECT COUNT(*) FROM checkpoint_blobs WHERE thread_id = :1", ["case-7"])
        blobs = cur.fetchone()[0]
    assert sync_state.values == finished and sync_state.config["configurable"]["checkpoint_id"] == latest
    assert blobs >= 1                                                      # the notes went through the BLOB path


def test_adelete_thread_removes_only_that_thread(db_path):
    async def case():
        async with connect_async(db_path) as conn:
            saver = AsyncOracleSaver(conn)
            await saver.setup()
            for thread in ("keep", "drop"):
                await _graph(saver, []).ainvoke({"steps": [], "notes": []}, {"configurable": {"thread_id": thread}})
            await saver.adelete_thread("drop")
            counts = {}
            for thread in ("keep", "drop"):
                counts[thread] = len([c async for c in saver.alist({"configurable": {"thread_id": thread}})])
            return counts
    counts = asyncio.run(case())
    assert counts["drop"] == 0 and counts["keep"] >= 2


def test_async_oracle_store_put_get_search(db_path):
    """langgraph-oracledb's AsyncOracleStore: setup (twice), aput/aget/adelete, asearch with a filter (the
    string binds of $gt compared as Oracle compares them) and alist_namespaces (CONNECT BY LEVEL inside)."""
    from langgraph_oracledb.store.oracle import AsyncOracleStore

    async def case():
        async with connect_async(db_path) as conn:
            store = AsyncOracleStore(conn)
            await store.setup()
            await store.setup()
            await store.aput(("users", "1"), "prefs", {"theme": "dark", "n": 5})
            await store.aput(("users", "1"), "other", {"theme": "light", "n": 12})
            await store.aput(("users", "2"), "prefs", {"theme": "dark", "n": 7})
            got = (await store.aget(("users", "1"), "prefs")).value
            dark = sorted((i.namespace, i.key) for i in await store.asearch(("users",), filter={"theme": "dark"}))
            above = sorted((i.namespace, i.key) for i in await store.asearch(("users",), filter={"n": {"$gt": 6}}))
            spaces = sorted(await store.alist_namespaces(prefix=("users",)))
            await store.adelete(("users", "1"), "prefs")
            return got, dark, above, spaces, await store.aget(("users", "1"), "prefs")
    got, dark, above, spaces, gone = asyncio.run(case())
    assert got == {"theme": "dark", "n": 5}
    assert dark == [(("users", "1"), "prefs"), (("users", "2"), "prefs")]
    assert above == [(("users", "1"), "other"), (("users", "2"), "prefs")]
    assert spaces == [("users", "1"), ("users", "2")] and gone is None


def test_async_oracle_store_vector_search_answers_as_the_sync_store(db_path):
    """AsyncOracleStore with a vector index (the in-database model through OracleEmbeddings on a sync session):
    asearch(query=) ranks as the sync OracleStore.search does on the same rows."""
    import json

    from langchain_oracledb import OracleEmbeddings
    from langgraph_oracledb.store.oracle import AsyncOracleStore, OracleStore

    from workshop import models

    sync = connect(db_path)
    with sync.cursor() as cur:
        cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :blob, JSON(:meta)); END;", name="ALL_MINILM_L6_V2",
                    blob=models.ensure_embedding_model().read_bytes(), meta=json.dumps(models.embedding_metadata()))
    embed = OracleEmbeddings(conn=sync, params={"provider": "database", "model": "ALL_MINILM_L6_V2"})
    index = {"dims": 384, "embed": embed, "fields": ["text"]}
    texts = {"a": "Oracle vector search with HNSW index", "b": "Recipes for dinner", "c": "Graph retrieval over papers"}

    async def case():
        async with connect_async(db_path) as conn:
            store = AsyncOracleStore(conn, index=index)
            await store.setup()
            for key, text in texts.items():
                await store.aput(("docs",), key, {"text": text})
            return [(r.key, round(r.score, 6)) for r in await store.asearch(("docs",), query="vector index", limit=2)]
    found = asyncio.run(case())
    try:
        sync_store = OracleStore(sync, index=index)
        sync_store.setup()                                   # (finds the tables the async store made)
        expected = [(r.key, round(r.score, 6)) for r in sync_store.search(("docs",), query="vector index", limit=2)]
    finally:
        sync.close()
    assert found == expected and found[0][0] == "a"
