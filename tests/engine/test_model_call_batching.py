"""A statement whose rows depend on a model call over binds (the query's VECTOR_EMBEDDING) and that scores
those rows with PREDICTION makes ONE batched PREDICTION call: the collection pass ranks with the real query
vector, so it collects exactly the inputs the real pass needs (part 05's one-statement pipeline)."""
import pytest

from tests.pipeline.kb_db import kb_db, kb_template  # noqa: F401  (a private copy of a set-up database)
from workshop.embedded import model_support

SQL = """WITH pool AS (
  SELECT chunk_id, ROW_NUMBER() OVER (ORDER BY VECTOR_DISTANCE(embedding,
           VECTOR_EMBEDDING(ALL_MINILM_L6_V2 USING :q AS data), COSINE), chunk_id) AS r
  FROM research_chunks ORDER BY r FETCH FIRST 8 ROWS ONLY)
SELECT p.chunk_id, PREDICTION(RERANKER USING :q AS first_input, c.title || '. ' || c.text AS second_input) AS s
FROM pool p JOIN research_chunks c ON c.chunk_id = p.chunk_id
ORDER BY s DESC, p.chunk_id"""


@pytest.fixture
def workshop(kb_db):
    from workshop.embedded import connect
    conn = connect(kb_db)
    yield conn
    conn.close()


def test_one_prediction_batch_for_rows_chosen_by_a_query_embedding(workshop, monkeypatch):
    calls = []
    real = model_support._compute

    def counting(model, function, input_names, arg_rows):
        calls.append((function, len(arg_rows)))
        return real(model, function, input_names, arg_rows)

    monkeypatch.setattr(model_support, "_compute", counting)
    with workshop.cursor() as cur:
        cur.execute(SQL, q="how long does memkeeper keep old conversation turns")
        rows = cur.fetchall()
    predictions = [n for f, n in calls if f == "PREDICTION"]
    assert len(rows) == 8 and predictions == [8]
    assert [f for f, _ in calls].count("VECTOR_EMBEDDING") == 1
    with workshop.cursor() as cur:              # the same scores as one call per pair
        for chunk_id, score in rows[:3]:
            cur.execute("SELECT PREDICTION(RERANKER USING :q AS first_input, title || '. ' || text AS second_input) "
                        "FROM research_chunks WHERE chunk_id = :id",
                        q="how long does memkeeper keep old conversation turns", id=chunk_id)
            assert cur.fetchone()[0] == pytest.approx(score, abs=1e-5)
