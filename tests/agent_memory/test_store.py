"""AGENT_MEMORIES on the embedded engine: JSON metadata, in-database embeddings, ON COMMIT text sync, scope, and
the five-case evaluation (hybrid vs vector-only) with the workshop's model."""
from __future__ import annotations

import oracledb
import pytest

from workshop.agent_memory import evaluation as ev
from workshop.agent_memory import store
from workshop.pipeline.search import fuse
from workshop.retrieval import keyword_terms

MODEL = "ALL_MINILM_L6_V2"


def hybrid(conn, query, user_id=ev.USER_ID, k=5, pool_size=store.POOL_SIZE):
    with conn.cursor() as cur:
        cur.execute(store.hybrid_search_sql(MODEL), query=query, lex_query=keyword_terms(query, "or"), user_id=user_id,
                    agent_id=ev.AGENT_ID, pool_size=pool_size, rrf_k=store.RRF_K, k=k)
        return [{"memory_id": r[0], "content": r[1], "vec_rank": r[2], "lex_rank": r[3], "rrf_score": float(r[4])}
                for r in cur.fetchall()]


def test_create_runs_twice(conn):
    store.create(conn)
    store.create(conn)
    with conn.cursor() as cur:
        cur.execute("SELECT index_type FROM user_indexes WHERE index_name = 'AGENT_MEMORIES_TEXT_IDX'")
        assert cur.fetchone()[0] == "DOMAIN"


def test_metadata_round_trips_as_json(memories):
    rows = store.fetch_memories(memories, ev.USER_ID, ev.AGENT_ID)
    assert [r["metadata"]["key"] for r in rows] == list(ev.MEMORIES)


def test_a_dict_bound_without_db_type_json_is_refused_like_python_oracledb(conn):
    store.create(conn)
    with conn.cursor() as cur, pytest.raises(oracledb.Error):
        cur.execute(store.insert_sql(MODEL), user_id="u", agent_id="a", record_type="memory", content="x",
                    metadata={"a": 1})


def test_the_text_index_syncs_on_commit(memories):
    with memories.cursor() as cur:
        cur.setinputsizes(metadata=oracledb.DB_TYPE_JSON)
        cur.execute(store.insert_sql(MODEL), user_id=ev.USER_ID, agent_id=ev.AGENT_ID, record_type="memory",
                    content="Quokka QZX-1 is pending.", metadata={})
        cur.execute("SELECT COUNT(*) FROM agent_memories WHERE CONTAINS(content, '{QZX-1}', 1) > 0")
        assert cur.fetchone()[0] == 0                       # not yet: SYNC (ON COMMIT)
        memories.commit()
        cur.execute("SELECT COUNT(*) FROM agent_memories WHERE CONTAINS(content, '{QZX-1}', 1) > 0")
        assert cur.fetchone()[0] == 1


def test_hybrid_puts_every_expected_memory_first_and_vector_only_misses_the_invoice_id(memories):
    table = ev.evaluate({"vector": lambda q: store.vector_search(memories, q, user_id=ev.USER_ID,
                                                                 agent_id=ev.AGENT_ID, model=MODEL),
                         "hybrid": lambda q: hybrid(memories, q)})
    assert list(table["hybrid"]) == ["PASS"] * 5
    assert list(table["vector rank"]) == [2, 1, 1, 1, 1]     # measured with ALL_MINILM_L6_V2 on the embedded engine


def test_the_error_code_case_rests_on_tied_text_scores(memories):
    """ORA-27102: both memories contain the code once; DENSE_RANK ties them and the vector leg decides."""
    rows = hybrid(memories, "ORA-27102")
    top = {r["content"]: r for r in rows[:2]}
    assert rows[0]["content"] == ev.MEMORIES["error_reference"]
    assert top[ev.MEMORIES["error_reference"]]["lex_rank"] == top[ev.MEMORIES["renewal_blocker"]]["lex_rank"] == 1
    row_number = store.hybrid_search_sql(MODEL).replace("DENSE_RANK() OVER (ORDER BY SCORE(1) DESC)",
                                                        "ROW_NUMBER() OVER (ORDER BY SCORE(1) DESC, memory_id)")
    with memories.cursor() as cur:
        cur.execute(row_number, query="ORA-27102", lex_query="{ORA-27102}", user_id=ev.USER_ID, agent_id=ev.AGENT_ID,
                    pool_size=20, rrf_k=60, k=5)
        first = cur.fetchall()[0]
    assert first[1] == ev.MEMORIES["renewal_blocker"]       # the tie broken by memory_id: the seed's case fails


def test_the_fused_scores_match_rrf_over_the_two_pools(memories):
    query = "Which Northstar invoice failed reconciliation?"
    rows = hybrid(memories, query, k=5)
    vector = [(r["memory_id"], i) for i, r in enumerate(store.vector_search(
        memories, query, user_id=ev.USER_ID, agent_id=ev.AGENT_ID, model=MODEL, k=20), start=1)]
    with memories.cursor() as cur:
        cur.execute("SELECT memory_id, DENSE_RANK() OVER (ORDER BY SCORE(1) DESC) FROM agent_memories "
                    "WHERE CONTAINS(content, :q, 1) > 0 AND user_id = :u ORDER BY memory_id",
                    q=keyword_terms(query, "or"), u=ev.USER_ID)
        lexical = [(r[0], int(r[1])) for r in cur.fetchall()]
    expected = fuse(vector, lexical, k=60, top_k=5)
    assert [r["memory_id"] for r in rows] == [e[0] for e in expected]
    assert [round(r["rrf_score"], 9) for r in rows] == [round(e[1], 9) for e in expected]


def test_scope_keeps_other_users_out(memories):
    mine = {r["memory_id"] for r in hybrid(memories, "INV-48291", k=20)}
    theirs = {r["memory_id"] for r in hybrid(memories, "INV-48291", user_id=ev.OTHER_USER, k=20)}
    assert mine and theirs and not mine & theirs
    assert hybrid(memories, "INV-48291", user_id="nobody") == []


@pytest.mark.parametrize("query", ["ORA-27102 AND NOT {x", "'; DROP TABLE agent_memories --", "within near"])
def test_hostile_queries_are_bound_and_braced(memories, query):
    assert isinstance(hybrid(memories, query), list)
    assert store.vector_search(memories, query, user_id=ev.USER_ID, agent_id=ev.AGENT_ID, model=MODEL)
