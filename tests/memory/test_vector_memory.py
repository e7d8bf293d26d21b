"""The five OracleVS stores: in-database embeddings, k, metadata filters (applied before top-k),
nearest-first order against a SQL reference, commits, upserts, computed workflow metadata and summaries."""
from datetime import datetime, timedelta, timezone

import pytest

from checkpoints.framework import column_types
from tests.memory.memory_db import memory, memory_conn, memory_db, memory_template, other_connection  # noqa: F401
from workshop import config
from workshop.memory import STORE_TABLES, create_stores, entity_id, read_knowledge, workflow_metadata, workflow_text

FACTS = [
    ("HNSW builds a navigable graph over vectors for approximate nearest neighbour search.", {"topic": "vector", "page": 1}),
    ("IVF partitions vectors into clusters and probes the nearest partitions.", {"topic": "vector", "page": 2}),
    ("Oracle Text CONTAINS finds documents by keyword and scores them.", {"topic": "keyword", "page": 3}),
    ("Reciprocal rank fusion adds 1/(k + rank) across several result lists.", {"topic": "hybrid", "page": 4}),
    ("A property graph links papers through shared authors.", {"topic": "graph", "page": 5}),
]
QUERY = "graph index for approximate nearest neighbour vector search"


def reference_order(conn, table, query, where="1 = 1"):
    """Texts of `table` nearest first, computed by SQL with VECTOR_EMBEDDING in the query."""
    model = config.embedding_model_name()
    with conn.cursor() as cur:
        cur.execute(f"""SELECT text FROM {table} WHERE {where} ORDER BY
                        VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({model} USING :q AS data), COSINE)""", q=query)
        return [row[0] if isinstance(row[0], str) else row[0].read() for row in cur.fetchall()]


@pytest.fixture
def facts(memory):
    """The FACTS in one add_texts call (one statement: the model runs once for all five)."""
    return memory.stores["knowledge_base"].add_texts([t for t, _ in FACTS], [dict(m) for _, m in FACTS])


def test_five_tables_with_384_float32_vectors_and_creation_is_idempotent(memory_conn, facts):
    for table in STORE_TABLES.values():
        assert column_types(memory_conn, table)["EMBEDDING"].declaration() == "VECTOR(384, FLOAT32)"
    again = create_stores(memory_conn)
    assert sorted(again) == sorted(STORE_TABLES)
    assert len(read_knowledge(again, "vectors", k=10)) == len(FACTS)


def test_embeddings_are_the_in_database_models(memory_conn, facts):
    model = config.embedding_model_name()
    with memory_conn.cursor() as cur:
        cur.execute(f"""SELECT MAX(VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({model} USING text AS data), COSINE))
                        FROM knowledge_base_vs""")
        assert cur.fetchone()[0] < 1e-5


def test_k_order_and_distances_match_the_sql_reference(memory, memory_conn, facts):
    found = memory.read_knowledge(QUERY, k=3)
    assert [r["text"] for r in found] == reference_order(memory_conn, "knowledge_base_vs", QUERY)[:3]
    assert [r["distance"] for r in found] == sorted(r["distance"] for r in found)
    assert all(set(r) == {"id", "text", "metadata", "distance"} for r in found)
    assert found[0]["id"] in facts and "__orcl_internal_doc_id" not in found[0]["metadata"]
    assert len(memory.read_knowledge(QUERY, k=1)) == 1


FILTERS = [
    ({"topic": "keyword"}, {"keyword"}),
    ({"topic": {"$in": ["hybrid", "graph"]}}, {"hybrid", "graph"}),
    ({"page": {"$gt": 3}}, {"hybrid", "graph"}),
    ({"$or": [{"topic": "keyword"}, {"page": 1}]}, {"keyword", "vector"}),
]


def test_filters_are_honoured(memory, facts):
    for flt, topics in FILTERS:
        found = memory.read_knowledge(QUERY, k=5, filter=flt)
        assert {r["metadata"]["topic"] for r in found} == topics, flt


def test_the_filter_runs_before_the_top_k_limit(memory, facts):
    """k=1 with a filter that excludes the overall nearest row still returns a matching row."""
    nearest = memory.read_knowledge(QUERY, k=1)[0]["metadata"]["topic"]
    assert nearest == "vector"
    [only] = memory.read_knowledge(QUERY, k=1, filter={"topic": "hybrid"})
    assert only["metadata"]["topic"] == "hybrid"


def test_writes_are_committed_for_other_sessions(memory, other_connection):
    memory.write_knowledge("committed fact", {"source": "test"})
    other = other_connection()
    assert other.cursor().execute("SELECT COUNT(*) FROM knowledge_base_vs").fetchone() == (1,)
    assert [r["text"] for r in read_knowledge(create_stores(other), "fact", k=1)] == ["committed fact"]


@pytest.mark.parametrize("text", ["'); DELETE FROM knowledge_base_vs; --", "ünïcødé 日本語 🚀 \"quoted\" 'single'",
                                  "$val :value0 ?(@ == $x) {braces}", "y" * 20_000])
def test_hostile_text_and_metadata_round_trip(memory, text):
    meta = {"source": text[:300], "json-ish": "{\"a\": [1, 2]}", "nested": {"k": text[:50]}}
    new_id = memory.write_knowledge(text, meta)
    [found] = memory.read_knowledge(text[:200], k=1, filter={"source": text[:300]})
    assert (found["id"], found["text"], found["metadata"]) == (new_id, text, meta)


def test_explicit_ids_upsert(memory):
    memory.write_knowledge("first version", {"v": 1}, id="doc-1")
    memory.write_knowledge("second version", {"v": 2}, id="doc-1")
    assert [(r["id"], r["text"], r["metadata"]) for r in memory.read_knowledge("version", k=5)] == [
        ("doc-1", "second version", {"v": 2})]


def test_workflow_metadata_is_computed(memory, memory_conn):
    before = datetime.now(timezone.utc).replace(microsecond=0)
    memory.write_workflow("How do I tune HNSW?", ["read the docs", "raise EFCONSTRUCTION", "re-measure recall"],
                          "Raise EFCONSTRUCTION and check recall.")
    [row] = memory.read_workflows("tune an HNSW index", k=5, successful_only=False)
    meta = row["metadata"]
    assert {k: meta[k] for k in ("query", "num_steps", "success")} == {
        "query": "How do I tune HNSW?", "num_steps": 3, "success": True}
    stamp = datetime.fromisoformat(meta["timestamp"])
    assert stamp.utcoffset() == timedelta(0) and before <= stamp <= datetime.now(timezone.utc)
    assert row["text"] == ("Query: How do I tune HNSW?\nSteps:\n1. read the docs\n2. raise EFCONSTRUCTION\n"
                           "3. re-measure recall\nAnswer: Raise EFCONSTRUCTION and check recall.")
    assert workflow_text("q", ["a"], "b") == "Query: q\nSteps:\n1. a\nAnswer: b"
    fixed = datetime(2026, 5, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
    assert workflow_metadata("q", ["a", "b"], False, now=fixed) == {
        "query": "q", "num_steps": 2, "success": False, "timestamp": "2026-05-01T10:00:00+00:00"}


def test_read_workflows_keeps_successful_ones_nearest_first_within_k(memory):
    memory.write_workflow("How do I tune HNSW?", ["raise EFCONSTRUCTION"], "done")
    memory.write_workflow("How do I tune HNSW faster?", ["guess"], "it broke", success=False)
    memory.write_workflow("How do I add a keyword index?", ["CREATE INDEX ... INDEXTYPE IS CTXSYS.CONTEXT"], "done")
    memory.write_workflow("How do I fuse rankings?", ["RRF"], "done")
    found = memory.read_workflows("tune HNSW", k=2)
    assert len(found) == 2 and all(r["metadata"]["success"] is True for r in found)
    assert found[0]["metadata"]["query"] == "How do I tune HNSW?"
    assert [r["distance"] for r in found] == sorted(r["distance"] for r in found)
    everything = memory.read_workflows("tune HNSW", k=10, successful_only=False)
    assert len(everything) == 4 and everything[0]["metadata"]["query"].startswith("How do I tune HNSW")


@pytest.mark.parametrize("steps, error", [([], ValueError), ("one string", TypeError), (["ok", ""], ValueError)])
def test_workflow_input_is_checked(memory, steps, error):
    with pytest.raises(error):
        memory.write_workflow("q", steps, "a")
    with pytest.raises(TypeError):
        memory.write_workflow("q", ["a"], "b", success="yes")


def test_entities_upsert_by_name_and_type(memory, memory_conn):
    first = memory.write_entity("Ada Lovelace", "person", "Mathematician.", {"source": "book"})
    again = memory.write_entity("  ada   LOVELACE ", "Person", "Wrote the first published program.")
    memory.write_entity("Ada", "language", "A programming language named after her.")
    assert first == again == entity_id("Ada Lovelace", "person")
    count = memory_conn.cursor().execute("SELECT COUNT(*) FROM entity_vs").fetchone()
    assert count == (2,)
    people = memory.read_entity("who wrote the first program", k=5, entity_type="Person")
    assert [(r["text"], r["metadata"]) for r in people] == [
        ("  ada   LOVELACE  (Person): Wrote the first published program.", {"name": "  ada   LOVELACE ", "type": "Person"})]
    assert {r["metadata"]["type"] for r in memory.read_entity("Ada", k=5)} == {"Person", "language"}


def test_toolbox_upserts_by_name_and_returns_parameters(memory):
    memory.write_toolbox("calculate", "Adds numbers.", {"expression": {"type": "string"}})
    memory.write_toolbox("calculate", "Evaluates arithmetic.", {"expression": {"type": "string"}})
    memory.write_toolbox("search_knowledge", "Searches the knowledge base.")
    found = memory.read_toolbox("evaluate 2 + 2", k=1)
    assert [(r["text"], r["metadata"]) for r in found] == [
        ("calculate: Evaluates arithmetic.", {"name": "calculate", "parameters": {"expression": {"type": "string"}}})]
    assert len(memory.read_toolbox("anything", k=10)) == 2
    with pytest.raises(ValueError):
        memory.write_toolbox("bad name; DROP", "x")


def test_summaries_cover_old_turns_which_reads_can_then_skip(memory, other_connection):
    ids = [memory.write_conversation("t", "user" if i % 2 == 0 else "assistant", f"Turn {i} is about tuning the HNSW index for recall. More text.")
           for i in range(6)]
    memory.write_conversation("other", "user", "unrelated")
    summary_id = memory.summarise_thread("t", keep_last=2)
    assert summary_id.startswith("summary:")
    turns = memory.read_conversation("t", limit=10)
    assert [t["summary_id"] for t in turns] == [summary_id] * 4 + [None, None]
    assert [t["id"] for t in memory.read_conversation("t", 10, include_summarised=False)] == ids[4:]
    [summary] = memory.read_summary("earlier turns", thread_id="t")
    assert summary["metadata"] == {"thread_id": "t", "summary_id": summary_id, "message_ids": ids[:4],
                                   "num_messages": 4}
    assert summary["text"].splitlines()[1:] == [
        f"- {role}: Turn {i} is about tuning the HNSW index for recall."
        for i, role in enumerate(["user", "assistant", "user", "assistant"])]
    assert memory.read_summary("earlier turns", thread_id="other") == []
    assert memory.summarise_thread("t", keep_last=2) is None  # nothing new to summarise
    other = other_connection().cursor()
    assert other.execute("SELECT COUNT(*) FROM conversation_memory WHERE summary_id IS NOT NULL").fetchone() == (4,)


@pytest.mark.parametrize("text, opening", [
    ("Hi! I'm tuning the HNSW index on our papers table. Later text.",
     "Hi! I'm tuning the HNSW index on our papers table."),
    ("A single sentence without an end", "A single sentence without an end"),
    ("word " * 100, ("word " * 100)[:159].rstrip() + "…"),
])
def test_the_extractive_stand_in_keeps_a_useful_opening(text, opening):
    from workshop.memory.summaries import first_sentence
    assert first_sentence(text) == opening


def test_a_summary_of_another_threads_turns_is_refused_and_rolled_back(memory, memory_conn):
    mine = memory.write_conversation("mine", "user", "hello")
    theirs = memory.write_conversation("theirs", "user", "secret")
    with pytest.raises(ValueError, match="not unsummarised turns"):
        memory.write_summary("mine", "summary", [mine, theirs])
    assert memory_conn.cursor().execute(
        "SELECT COUNT(*) FROM conversation_memory WHERE summary_id IS NOT NULL").fetchone() == (0,)
    assert memory.read_summary("summary", k=5) == []
