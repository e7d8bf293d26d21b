"""`python -m workshop.verify_oracle`: its checks pass where the database behaves as the notebooks expect (the
embedded engine's build, which implements the same SQL), and each one fails when the database differs
(scripted Oracle answers): a vector off by more than 1e-5, a missing model, a wrong index type, an Oracle Text
expression that does not raise, a leaking RLS policy, too few approximate rows. The report is pasteable
Markdown and the exit code says whether anything differed."""
from __future__ import annotations


import numpy as np
import pytest

from tests.oracle.fakes import FakeOracle, ora_error
from workshop import models, schema, verify_oracle as vo

PASSING_ON_THE_ENGINE = (vo.embedding_model, vo.reranker, vo.stored_embeddings, vo.approximate_search,
                         vo.oracle_text, vo.property_graph, vo.row_level_security)


def statuses(steps) -> dict[str, str]:
    return {s.name: s.status for s in steps}


@pytest.fixture(scope="module")
def local_embedder():
    return models.load_model("ALL_MINILM_L6_V2", models.ensure_embedding_model().read_bytes(), None)


# --------------------------------------------------------------------------- passing where the SQL behaves
@pytest.mark.parametrize("step", PASSING_ON_THE_ENGINE, ids=lambda f: f.__name__)
def test_each_check_passes_on_a_database_that_behaves_as_expected(embedded_copy, step):
    steps = step(embedded_copy)
    assert steps and all(s.status == "PASS" for s in steps), [s for s in steps if s.status != "PASS"]


def test_parity_covers_accented_emoji_empty_and_over_long_text(embedded_copy):
    names = statuses(vo.embedding_model(embedded_copy))
    assert {"parity: accented", "parity: emoji", "parity: over-long", "empty text is NULL"} <= set(names)
    long_text = vo.PARITY_TEXTS["over-long"]
    assert len(long_text.split()) > 256                    # beyond the 256-token truncation


def test_the_rls_check_leaves_nothing_behind(embedded_copy):
    vo.row_level_security(embedded_copy)
    with embedded_copy.cursor() as cur:
        cur.execute("SELECT table_name FROM user_tables WHERE table_name LIKE 'VO%' ORDER BY table_name")
        assert cur.fetchall() == []


def test_driver_checks_returning_and_json_literal_on_the_engine(embedded_copy):
    found = statuses(vo.driver_semantics(embedded_copy))
    assert found["INSERT ... RETURNING id INTO :new_id, dict bound as DB_TYPE_JSON"] == "PASS"
    assert found["JSON_EXISTS with a JSON true literal (D9)"] == "PASS"
    with embedded_copy.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_tables WHERE table_name = 'VO_PROBE'")
        assert cur.fetchone() == (0,)


# --------------------------------------------------------------------------- failing where Oracle differs
def embedding_script(local_embedder, noise_for: str | None):
    def vector(sql, binds):
        text = binds["t"]
        if text == "":
            return [(None,)]
        v = local_embedder.embed([text])[0].astype(np.float64)
        if noise_for and text == vo.PARITY_TEXTS[noise_for]:
            v = v + 3e-4
        return [(list(v),)]
    return {"user_mining_models": [("ALL_MINILM_L6_V2", "EMBEDDING")], "VECTOR_EMBEDDING": vector}


def test_parity_fails_on_a_vector_off_by_more_than_the_tolerance(local_embedder):
    clean = statuses(vo.embedding_model(FakeOracle(embedding_script(local_embedder, None))))
    assert set(clean.values()) == {"PASS"}
    noisy = vo.embedding_model(FakeOracle(embedding_script(local_embedder, "emoji")))
    assert statuses(noisy)["parity: emoji"] == "FAIL" and statuses(noisy)["parity: accented"] == "PASS"
    assert "3.00e-04" in next(s.detail for s in noisy if s.name == "parity: emoji")


def test_an_empty_string_that_is_not_null_fails(local_embedder):
    script = embedding_script(local_embedder, None)
    inner = script["VECTOR_EMBEDDING"]
    script["VECTOR_EMBEDDING"] = lambda sql, binds: [([0.0] * 384,)] if binds["t"] == "" else inner(sql, binds)
    assert statuses(vo.embedding_model(FakeOracle(script)))["empty text is NULL"] == "FAIL"


def test_a_missing_model_is_one_failure_not_a_crash():
    steps = vo.embedding_model(FakeOracle({"user_mining_models": []}))
    assert [(s.name, s.status) for s in steps] == [("ALL_MINILM_L6_V2 loaded", "FAIL")]
    steps = vo.reranker(FakeOracle({"user_mining_models": [("RERANKER", "CLASSIFICATION")]}))
    assert steps[0].status == "FAIL" and "CLASSIFICATION" in steps[0].detail


def test_a_reranker_that_prefers_the_irrelevant_passage_fails():
    scores = iter([0.1, 0.9] * len(vo.RERANK_CASES))
    conn = FakeOracle({"user_mining_models": [("RERANKER", "REGRESSION")], "PREDICTION": lambda s, b: [(next(scores),)]})
    found = statuses(vo.reranker(conn))
    assert found["case 1: relevant above irrelevant"] == "FAIL"
    assert found["case 1: scores equal the local runtime"] == "FAIL"


def test_wrong_index_types_fail():
    rows = [(i.name, "NORMAL" if i.kind == "VECTOR" else "DOMAIN", None if i.kind == "VECTOR" else "CTXSYS",
             None if i.kind == "VECTOR" else "CONTEXT") for i in schema.INDEXES]
    conn = FakeOracle([("index_subtype", [(i.name, None) for i in schema.INDEXES]), ("user_indexes", rows)])
    found = statuses(vo.index_types(conn))
    assert found["PAPERS_HNSW"] == "FAIL" and found["PAPERS_TEXT"] == "PASS"
    missing = statuses(vo.index_types(FakeOracle([("index_subtype", []), ("user_indexes", [])])))
    assert set(missing.values()) == {"FAIL"} and len(missing) == len(schema.INDEXES)


def test_an_oracle_text_expression_that_does_not_raise_fails():
    def contains(sql, binds):
        if "research_chunks" in sql:
            return [(3,)]
        if binds["q"] == "near-duplicate":
            return [(2,)]                               # Oracle parsed it: the lesson's claim would be wrong
        if binds["q"].endswith("?"):
            return ora_error(29902, "error in executing ODCIIndexStart() routine\nDRG-50901: text query parser error")
        return [(5,)]
    found = statuses(vo.oracle_text(FakeOracle({"CONTAINS": contains})))
    assert found["CONTAINS 'near-duplicate' gives a DRG- error"] == "FAIL"
    assert found["CONTAINS \"what's the memory footprint of HNSW?\" gives a DRG- error"] == "PASS"
    assert found["CONTAINS '{long-term}' gives matches, no error"] == "PASS"


def test_an_error_without_a_drg_line_fails():
    conn = FakeOracle({"research_chunks": [(1,)], "CONTAINS": ora_error(942, "table or view does not exist")})
    steps = vo.oracle_text(conn)
    assert any(s.status == "FAIL" and "no DRG- line" in s.detail for s in steps)


def test_too_few_approximate_rows_fail():
    conn = FakeOracle({"FETCH APPROX": [("2301.00001",)], "FETCH FIRST 1 ROWS": [("2301.00001",)]})
    steps = vo.approximate_search(conn)
    assert [s.status for s in steps[:-1]] == ["FAIL"] * (len(steps) - 1)
    sql, binds = next((s, b) for s, b in conn.executed if "FETCH APPROX" in s)
    assert ":k" in sql and isinstance(binds["k"], int)


def test_a_refused_float64_query_vector_fails_with_the_fix():
    conn = FakeOracle({"FETCH APPROX": lambda s, b: [("x",)] * b["k"],
                       "FETCH FIRST 1 ROWS": ora_error(51812, "vector format mismatch")})
    last = vo.approximate_search(conn)[-1]
    assert last.status == "FAIL" and "vector_bind must bind float32" in last.detail


def test_a_leaking_rls_policy_fails():
    def count(sql, binds):
        return [(3,)]                                    # every row visible without a context
    conn = FakeOracle([("DROP", []), ("CREATE", []), ("INSERT INTO vo_secured (id, tenant_id) VALUES (:1", []),
                       ("BEGIN DBMS_RLS", []), ("SELECT COUNT(*) FROM vo_secured", count), ("CALL", []),
                       ("SELECT DISTINCT tenant_id", [("acme",), ("globex",)]), ("VALUES (9", [])])
    found = statuses(vo.row_level_security(conn))
    assert found["no context set: no rows"] == "FAIL" and found["tenant acme sees only acme"] == "FAIL"
    assert found["cross-tenant INSERT refused (ORA-28115)"] == "FAIL"
    assert conn.sql("DBMS_RLS.DROP_POLICY") and conn.sql("DROP PACKAGE vo_tenant_pkg")   # cleaned up
    assert conn.sql("CREATE OR REPLACE CONTEXT vo_ctx USING vo_tenant_pkg")              # the one fixed context
    assert not conn.sql("DROP CONTEXT")             # needs DROP ANY CONTEXT: reused, never dropped


def test_both_rls_probes_reuse_one_fixed_context_and_never_drop_it():
    conn = _private_script(ora_error(28110, "policy function or package has error"))
    vo.private_policy_function(conn)
    assert conn.sql("CREATE OR REPLACE CONTEXT vo_ctx USING vo_private_pkg") and not conn.sql("DROP CONTEXT")
    created = {s.split()[4] for s in conn.sql("CREATE OR REPLACE CONTEXT")}
    assert created == {"vo_ctx"} and "vo_ctx" in vo.PRIVATE_BODY


def test_binds_python_oracledb_refuses_are_expected_to_be_refused():
    def insert(sql, binds):
        if "RETURNING" in sql:
            binds["new_id"].value = [1]
            return []
        unsized = "VALUES (:doc, :emb)" in sql              # the statements bound without setinputsizes
        if unsized and (isinstance(binds.get("doc"), dict) or isinstance(binds.get("emb"), np.ndarray)):
            return TypeError('DPY-3002: Python value of type "dict" is not supported')
        return []
    conn = FakeOracle([("DROP TABLE", []), ("CREATE TABLE", []), ("INSERT", insert), ("JSON_EXISTS", [(1,)])])
    found = statuses(vo.driver_semantics(conn))
    assert set(found.values()) == {"PASS"}, found
    lenient = FakeOracle([("DROP TABLE", []), ("CREATE TABLE", []),
                          ("INSERT", lambda s, b: (b.get("new_id") and setattr(b["new_id"], "value", [1])) or []),
                          ("JSON_EXISTS", [(1,)])])
    found = statuses(vo.driver_semantics(lenient))
    assert found["dict without DB_TYPE_JSON is refused (DPY-3002)"] == "FAIL"
    assert found["numpy array as a vector is refused (DPY-3002)"] == "FAIL"


# --------------------------------------------------------------------------- running, reporting, exit codes
def test_a_step_that_raises_is_one_failed_line_and_the_rest_still_run():
    def boom(conn):
        raise ValueError("unexpected | shape\nsecond line")
    steps = vo.run_steps(FakeOracle({"user_mining_models": []}), (boom, vo.embedding_model))
    assert steps[0].status == "FAIL" and steps[0].detail == "ValueError: unexpected | shape"
    assert steps[1].name == "ALL_MINILM_L6_V2 loaded"


def test_the_report_is_pasteable_markdown():
    steps = [vo.Step("3 embedding model", "parity: emoji", "FAIL", "max |Δ| = 3e-4\nmore"),
             vo.Step("1 environment", "database", "PASS", "x"), vo.Step("1 environment", "pool", "SKIP", "y")]
    text = vo.report(steps, dsn="db:1521/FREEPDB1")
    assert "| 3 embedding model | parity: emoji | FAIL | max \\|Δ\\| = 3e-4 more |" in text
    assert text.splitlines()[-1] == "Result: DIFFERENCES FOUND (1 pass, 1 fail, 1 skipped)"
    assert "#### What to change" in text and f"**3 embedding model / parity: emoji**: {vo.NO_ADVICE}" in text
    assert "db:1521/FREEPDB1" in text and "python-oracledb" in text


def test_the_report_says_what_to_change_for_each_difference_and_nothing_when_there_is_none():
    steps = [vo.Step("13 probes", "a | b", "FAIL", "x", "grant X in oracle_grants"),
             vo.Step("13 probes", "fine", "PASS", "y", "never shown")]
    text = vo.report(steps, dsn="d")
    assert "- **13 probes / a \\| b**: grant X in oracle_grants" in text and "never shown" not in text
    assert "What to change" not in vo.report(steps[1:], dsn="d")
    assert vo._ok("s", "n", True, "d", "change").change == "" and vo._ok("s", "n", False, "d", "c").change == "c"


def test_without_oracle_dsn_it_refuses_to_pretend(monkeypatch, capsys):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    assert vo.main(["--skip-notebooks"]) == 2
    assert "ORACLE_DSN is not set" in capsys.readouterr().err


def test_exit_codes_and_the_report_file(embedded_copy, monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(vo.db, "connect", lambda: embedded_copy)
    monkeypatch.setattr(embedded_copy, "close", lambda: None, raising=False)
    monkeypatch.setattr(vo, "DATABASE_STEPS", (vo.property_graph,))
    out = tmp_path / "report.md"
    assert vo.main(["--allow-embedded", "--skip-notebooks", "--output", str(out)]) == 0
    assert "Result: no difference (2 pass, 0 fail, 1 skipped)" in out.read_text()     # probes: Oracle only
    assert "embedded engine" in capsys.readouterr().out
    monkeypatch.setattr(vo, "DATABASE_STEPS", (vo.property_graph, lambda conn: [vo.Step("x", "y", "FAIL", "z")]))
    assert vo.main(["--allow-embedded", "--skip-notebooks"]) == 1


def _private_script(select_outcome):
    return FakeOracle([("DROP", []), ("CREATE", []), ("BEGIN DBMS_RLS", []),
                       ("SELECT COUNT(*) FROM vo_private", select_outcome)])


def test_a_policy_function_missing_from_the_spec_must_be_refused():
    refused = vo.private_policy_function(_private_script(ora_error(28110, "policy function or package has error")))
    assert refused[0].status == "PASS" and "ORA-28110" in refused[0].detail
    accepted = vo.private_policy_function(_private_script([(2,)]))
    assert accepted[0].status == "FAIL" and "accepted: SELECT returned 2 rows" in accepted[0].detail


def test_the_private_policy_probe_cleans_up_on_the_engine(embedded_copy):
    steps = vo.private_policy_function(embedded_copy)
    assert len(steps) == 1 and steps[0].status in ("PASS", "FAIL")     # the engine's answer is recorded, not judged
    with embedded_copy.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM user_tables WHERE table_name = 'VO_PRIVATE'")
        assert cur.fetchone() == (0,)


def test_hostile_searches_reach_oracle_text_escaped(embedded_copy):
    steps = [s for s in vo.oracle_text(embedded_copy) if s.name.startswith("hostile search")]
    assert len(steps) == len(vo.HOSTILE_SEARCHES) and all(s.status == "PASS" for s in steps), steps


def test_oracle_only_steps_skip_on_the_engine(embedded_copy):
    for step in (vo.environment, vo.grants):
        assert [s.status for s in step(embedded_copy)] == ["SKIP"]


def test_environment_and_grants_on_oracle():
    from tests.oracle.test_oracle_branches import grant_script
    conn = FakeOracle({**grant_script(), "v$version": [("Oracle AI Database 26ai Free Release 23.26.3.0.0",)],
                       "product_component_version": [("Oracle AI Database 26ai Free",)], "all_users": [(1,)],
                       "v$vector_memory_pool": [(512 * 2**20,)], "v$option": [("TRUE",)]})
    assert {s.status for s in vo.environment(conn) + vo.grants(conn)} == {"PASS"}
    empty = FakeOracle({"v$version": [("x",)], "product_component_version": [("x",)], "all_users": [(0,)],
                        "v$vector_memory_pool": [(0,)], "v$option": [("FALSE",)]})
    assert [s.status for s in vo.environment(empty)] == ["PASS", "FAIL", "FAIL", "FAIL"]
