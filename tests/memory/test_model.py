"""Loading the embedding model for the memory stores, and the OracleEmbeddings object they use."""
import pytest

from tests.memory.memory_db import memory_conn, memory_db, memory_template  # noqa: F401
from workshop.memory import database_embeddings, ensure_embedding_model_loaded, model_loaded


def test_loading_is_idempotent(memory_conn):
    assert model_loaded(memory_conn)
    assert ensure_embedding_model_loaded(memory_conn) == "ALL_MINILM_L6_V2"
    count = memory_conn.cursor().execute("SELECT COUNT(*) FROM user_mining_models").fetchone()
    assert count == (1,)


def test_a_model_this_project_cannot_build_must_be_loaded_by_hand(memory_conn, monkeypatch):
    monkeypatch.setenv("EMBED_MODEL", "all_minilm_l12_v2")
    assert not model_loaded(memory_conn)
    with pytest.raises(RuntimeError, match="ALL_MINILM_L12_V2 .* is not loaded"):
        ensure_embedding_model_loaded(memory_conn)


def test_embeddings_come_from_the_database(memory_conn):
    embeddings = database_embeddings(memory_conn)
    assert embeddings.params == {"provider": "database", "model": "ALL_MINILM_L6_V2"}
    vector = embeddings.embed_query("agent memory")
    with memory_conn.cursor() as cur:
        cur.execute("SELECT VECTOR_DISTANCE(VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING 'agent memory' AS data), "
                    "TO_VECTOR(:v), COSINE) FROM dual", v=str(vector))
        assert cur.fetchone()[0] < 1e-6
