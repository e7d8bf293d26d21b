"""The doctor passes on a freshly built database, and each check fails, with its advice, when the object it
checks is missing or wrong (and no other check fails). Oracle-only branches run against a scripted fake."""
from __future__ import annotations

import oracledb
import pytest

from tests.setup.setup_helpers import ScriptedOracle
from workshop import doctor
from workshop.doctor import RUN_RESET, RUN_SETUP
from workshop.embedded import connect
from workshop.setup import SLIM_IMAGE_ADVICE, VECTOR_POOL_ADVICE

ALL_CHECKS = [name for name, _, _ in doctor.CHECKS]


def failures(results) -> dict[str, str]:
    return {r.name: r.advice for r in results if not r.ok}


def test_all_checks_pass_on_a_built_database(built_conn):
    results = doctor.run_checks(built_conn)
    assert [r.name for r in results] == ALL_CHECKS
    assert failures(results) == {}
    by_name = {r.name: r.detail for r in results}
    assert "384-dimension" in by_name["VECTOR_EMBEDDING works"]
    assert "late-interaction (MaxSim)" in by_name["reranker"] and "not a cross-encoder" in by_name["reranker"]
    assert "embedded engine" in by_name["connection"] and "not applicable" in by_name["vector memory pool"]
    assert "402 wrote edges" in by_name["property graph"]


MUTATIONS = {
    "embedding model dropped": (
        ["BEGIN DBMS_VECTOR.DROP_ONNX_MODEL(model_name => 'ALL_MINILM_L6_V2', force => TRUE); END;"],
        {"embedding model": RUN_SETUP, "VECTOR_EMBEDDING works": RUN_SETUP}),
    "reranker dropped": (
        ["BEGIN DBMS_VECTOR.DROP_ONNX_MODEL(model_name => 'RERANKER', force => TRUE); END;"],
        {"reranker": RUN_SETUP}),
    "text index dropped": (
        ["DROP INDEX research_chunks_text"],
        {"indexes": RUN_SETUP, "Oracle Text (CONTAINS)": RUN_SETUP}),
    "vector index dropped": (["DROP INDEX papers_hnsw"], {"indexes": RUN_SETUP}),
    "graph dropped": (["DROP PROPERTY GRAPH research_graph"], {"property graph": RUN_SETUP}),
    "similarity rows deleted": (["DELETE FROM paper_similarity WHERE rank_no = 5"], {"row counts": RUN_SETUP}),
    "embeddings cleared": (["UPDATE papers SET embedding = NULL WHERE arxiv_id < '2302'"], {"row counts": RUN_SETUP}),
    "authorship deleted": (["DELETE FROM paper_authors WHERE author_id = 'A001'"],
                           {"row counts": RUN_SETUP, "property graph": RUN_SETUP}),
    "table dropped": (["DROP TABLE research_chunks"],
                      {"tables": RUN_SETUP, "row counts": RUN_SETUP, "indexes": RUN_SETUP,
                       "Oracle Text (CONTAINS)": RUN_SETUP}),
    "other data version": (["UPDATE workshop_meta SET value = '0.9.0' WHERE key = 'data_version'"],
                           {"data version": RUN_RESET}),
    "other model recorded": (["UPDATE workshop_meta SET value = 'OTHER_MODEL' WHERE key = 'embedding_model'"],
                             {"tables embedded with": RUN_RESET}),
}


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_each_check_fails_with_its_advice_when_its_object_is_missing(db_copy, mutation):
    statements, expected = MUTATIONS[mutation]
    conn = connect(db_copy)
    try:
        with conn.cursor() as cur:
            for sql in statements:
                cur.execute(sql)
        conn.commit()
        results = doctor.run_checks(conn)
    finally:
        conn.close()
    failed = failures(results)
    assert set(failed) == set(expected), mutation
    for name, advice in expected.items():
        assert advice in failed[name], (name, failed[name])
    assert "What to do" in doctor.report(results)


def test_another_embed_model_setting_is_reported(built_conn, monkeypatch):
    monkeypatch.setenv("EMBED_MODEL", "ALL_MINILM_L12_V2")
    failed = failures(doctor.run_checks(built_conn))
    assert set(failed) == {"embedding model", "VECTOR_EMBEDDING works", "tables embedded with"}
    assert "unset EMBED_MODEL" in failed["embedding model"] and RUN_RESET in failed["tables embedded with"]


def test_cli_exit_code_and_table(db_copy, monkeypatch, capsys):
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(db_copy))
    assert doctor.main() == 0
    out = capsys.readouterr().out
    assert "All checks passed" in out and out.splitlines()[0].split() == ["check", "status", "detail"]
    conn = connect(db_copy)
    with conn.cursor() as cur:
        cur.execute("DROP PROPERTY GRAPH research_graph")
    conn.close()
    assert doctor.main() == 1
    out = capsys.readouterr().out
    assert "property graph         FAIL" in out
    assert "  - property graph: the set-up creates or repairs these." in out
    assert out.count("-m workshop.setup") == 1         # the pasteable command, printed once
    conn = connect(db_copy)
    try:
        doctor.show(conn)
    finally:
        conn.close()
    assert "1 check(s) failed" in capsys.readouterr().out


# --------------------------------------------------------------------------- Oracle-only branches, scripted
def test_slim_image_gets_the_full_image_advice():
    conn = ScriptedOracle({"CONTAINS": oracledb.DatabaseError('ORA-00904: "CONTAINS": invalid identifier'),
                           "all_users": [(0,)]})
    result = doctor.check_oracle_text(conn)
    assert not result.ok and result.advice == SLIM_IMAGE_ADVICE and "full" in result.advice and "slim" in result.advice


def test_vector_pool_advice_on_oracle():
    empty = ScriptedOracle({"v$vector_memory_pool": [(0,)]})
    result = doctor.check_vector_pool(empty)
    assert not result.ok and "ORA-51962" in result.detail and "vector_memory_size" in result.advice
    assert result.advice == VECTOR_POOL_ADVICE
    sized = ScriptedOracle({"v$vector_memory_pool": [(512 * 2**20,)]})
    assert doctor.check_vector_pool(sized).ok and "512 MB" in doctor.check_vector_pool(sized).detail
    hidden = {"v$vector_memory_pool": oracledb.DatabaseError("ORA-00942: table or view does not exist")}
    built = ScriptedOracle({**hidden, "user_indexes": [("PAPERS_HNSW",), ("RESEARCH_CHUNKS_HNSW",)]})
    assert doctor.check_vector_pool(built).ok
    unbuilt = ScriptedOracle({**hidden, "user_indexes": []})
    assert doctor.check_vector_pool(unbuilt).advice == VECTOR_POOL_ADVICE


def test_cli_reports_a_connection_it_cannot_open(monkeypatch, capsys):
    monkeypatch.setenv("ORACLE_DSN", "localhost:1521/FREEPDB1")
    monkeypatch.delenv("ORACLE_USER", raising=False)
    monkeypatch.delenv("ORACLE_PASSWORD", raising=False)
    assert doctor.main() == 1
    out = capsys.readouterr().out
    assert "connection FAIL" in " ".join(out.split()) and "ORACLE_USER / ORACLE_PASSWORD are missing" in out
    assert "check ORACLE_DSN / ORACLE_USER / ORACLE_PASSWORD, or unset ORACLE_DSN" in out
