"""A second set-up changes nothing; a partial database is completed to exactly the full one; states the
set-up must not build on (another model, another data version, a foreign table) stop it with advice."""
from __future__ import annotations

import json

import oracledb
import pytest

from tests.setup.conftest import quiet
from tests.setup.setup_helpers import fingerprint, rows, same_vectors, vectors
from workshop import models
from workshop.embedded import connect
from workshop.setup import SetupError, build


@pytest.fixture
def copy_conn(db_copy):
    conn = connect(db_copy)
    yield conn
    conn.close()


def no_model_calls(monkeypatch):
    """Fail the test if anything embeds, scores or loads a model file."""
    def refuse(*_a, **_k):
        raise AssertionError("the model ran, but nothing needed embedding")
    monkeypatch.setattr(models.LoadedModel, "embed_rows", refuse)
    monkeypatch.setattr(models.LoadedModel, "predict", refuse)


def test_second_run_changes_nothing_and_is_much_faster(built, copy_conn, monkeypatch):
    first = built.report
    before = fingerprint(copy_conn)
    before_vectors = vectors(copy_conn)
    no_model_calls(monkeypatch)
    second = build(copy_conn, progress=False, log=quiet)
    assert second.actions == [] and not second.changed
    assert "everything is present" in second.text()
    assert second.counts == first.counts
    assert fingerprint(copy_conn) == before and vectors(copy_conn) == before_vectors
    print(f"\nset-up from nothing {first.seconds:.1f} s, second run {second.seconds:.2f} s")
    assert second.seconds < first.seconds / 3      # measured ratio is about 30x; this only guards "no rebuild"


def test_missing_pieces_are_rebuilt_to_exactly_the_full_database(built_conn, copy_conn):
    full = fingerprint(built_conn)
    with copy_conn.cursor() as cur:
        cur.execute("DROP PROPERTY GRAPH research_graph")
        cur.execute("DROP INDEX papers_hnsw")
        cur.execute("DROP INDEX research_chunks_text")
        cur.execute("DELETE FROM paper_similarity WHERE src_id IN (SELECT arxiv_id FROM papers WHERE arxiv_id < '2303')")
        cur.execute("UPDATE research_chunks SET embedding = NULL WHERE doc_id IN ('DOC03', 'DOC17')")
        cur.execute("DELETE FROM research_chunks WHERE doc_id = 'DOC05'")
        cur.execute("UPDATE workshop_meta SET value = 'x' WHERE key = 'reranker_label'")
    copy_conn.commit()
    report = build(copy_conn, progress=False, log=quiet)
    done = "\n".join(report.actions)
    for needle in ("created property graph RESEARCH_GRAPH", "PAPERS_HNSW", "RESEARCH_CHUNKS_TEXT",
                   "rows into PAPER_SIMILARITY", "rows into RESEARCH_CHUNKS", "rows of RESEARCH_CHUNKS"):
        assert needle in done
    assert "PAPERS_TEXT" not in done and "LOAD_ONNX_MODEL" not in done
    after = fingerprint(copy_conn, skip_meta=("updated_at",))
    assert after == fingerprint(built_conn, skip_meta=("updated_at",))
    assert full["PAPERS"] == after["PAPERS"]
    assert same_vectors(copy_conn, built_conn)


def test_missing_model_is_loaded_again(built_conn, copy_conn):
    with copy_conn.cursor() as cur:
        cur.execute("BEGIN DBMS_VECTOR.DROP_ONNX_MODEL(model_name => 'RERANKER', force => TRUE); END;")
    report = build(copy_conn, progress=False, log=quiet)
    assert report.actions == ["loaded model RERANKER (91 MB ONNX) with DBMS_VECTOR.LOAD_ONNX_MODEL"]
    assert fingerprint(copy_conn, skip_meta=("updated_at",)) == fingerprint(built_conn, skip_meta=("updated_at",))


def test_a_database_set_up_with_the_old_reranker_gets_the_new_one(built_conn, copy_conn):
    """A database whose RERANKER is the former bi-encoder cosine stand-in (no reranker sha recorded)."""
    with copy_conn.cursor() as cur:
        cur.execute("BEGIN DBMS_VECTOR.DROP_ONNX_MODEL(model_name => 'RERANKER', force => TRUE); END;")
        cur.setinputsizes(data=oracledb.DB_TYPE_BLOB)
        cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(model_name => 'RERANKER', model_data => :data, "
                    "metadata => JSON(:meta)); END;", {"data": models.ensure_cosine_reranker_model().read_bytes(),
                                                       "meta": json.dumps(models.reranker_metadata())})
        cur.execute("DELETE FROM workshop_meta WHERE key = 'reranker_model_sha256'")
        cur.execute("UPDATE workshop_meta SET value = 'RERANKER stand-in (bi-encoder cosine, not a cross-encoder)' "
                    "WHERE key = 'reranker_label'")
    copy_conn.commit()
    report = build(copy_conn, progress=False, log=quiet)
    assert report.actions[:2] == ["dropped model RERANKER: it is not the reranker this checkout builds",
                                  "loaded model RERANKER (91 MB ONNX) with DBMS_VECTOR.LOAD_ONNX_MODEL"]
    assert fingerprint(copy_conn, skip_meta=("updated_at",)) == fingerprint(built_conn, skip_meta=("updated_at",))
    with copy_conn.cursor() as cur:
        cur.execute("SELECT comments FROM user_mining_models WHERE model_name = 'RERANKER'")
        assert cur.fetchone()[0] == models.describe_reranker()["label"]     # the card inside the loaded file
        cur.execute("SELECT key, value FROM workshop_meta WHERE key LIKE 'reranker%' ORDER BY key")
        meta = dict(cur.fetchall())
    assert meta["reranker_label"] == models.describe_reranker()["label"]
    assert build(copy_conn, progress=False, log=quiet).actions == []    # and the next run leaves it alone


def test_refuses_tables_embedded_with_another_model(copy_conn, monkeypatch):
    monkeypatch.setenv("EMBED_MODEL", "ALL_MINILM_L12_V2")
    with pytest.raises(SetupError, match="embedded with ALL_MINILM_L6_V2.*--reset"):
        build(copy_conn, progress=False, log=quiet)


def test_refuses_a_model_that_is_not_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBED_MODEL", "ALL_MINILM_L12_V2")
    conn = connect(tmp_path / "fresh.db")
    try:
        with pytest.raises(SetupError, match="no model of that name is loaded"):
            build(conn, progress=False, log=quiet)
    finally:
        conn.close()


def test_refuses_another_data_version(copy_conn):
    with copy_conn.cursor() as cur:
        cur.execute("UPDATE workshop_meta SET value = '0.9.0' WHERE key = 'data_version'")
    copy_conn.commit()
    with pytest.raises(SetupError, match="data version 0.9.0.*--reset"):
        build(copy_conn, progress=False, log=quiet)


def test_refuses_vectors_of_an_unknown_model(copy_conn):
    with copy_conn.cursor() as cur:
        cur.execute("DELETE FROM workshop_meta WHERE key = 'embedding_model'")
    copy_conn.commit()
    with pytest.raises(SetupError, match="does not say which model"):
        build(copy_conn, progress=False, log=quiet)


def test_refuses_a_reloaded_model_file_with_another_digest(copy_conn):
    with copy_conn.cursor() as cur:
        cur.execute("UPDATE workshop_meta SET value = 'f00d' WHERE key = 'embedding_model_sha256'")
        cur.execute("BEGIN DBMS_VECTOR.DROP_ONNX_MODEL(model_name => 'ALL_MINILM_L6_V2'); END;")
    copy_conn.commit()
    with pytest.raises(SetupError, match="sha256 f00d"):
        build(copy_conn, progress=False, log=quiet)


def test_refuses_a_foreign_table_of_the_same_name(tmp_path):
    conn = connect(tmp_path / "foreign.db")
    try:
        with conn.cursor() as cur:
            cur.execute("CREATE TABLE papers (arxiv_id VARCHAR2(20) PRIMARY KEY, title VARCHAR2(100))")
        with pytest.raises(SetupError, match="PAPERS exists but has no column.*ABSTRACT"):
            build(conn, progress=False, log=quiet)
        assert rows(conn, "SELECT COUNT(*) FROM user_mining_models") == [(0,)]    # stopped before loading models
    finally:
        conn.close()
