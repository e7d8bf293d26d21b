"""Every Oracle-only branch of workshop/ and checkpoints/, run against a scripted Oracle connection
(tests/oracle/fakes.py), so they are tested in every session; test_oracle_live.py runs the same branches
against a real database in the Oracle CI job."""
from __future__ import annotations

import pytest

from checkpoints import part01
from tests.oracle.fakes import FakeOracle, ora_error
from workshop import doctor, models, schema
from workshop import setup as setup_mod
from workshop.oracle_grants import GRANTS, missing_grants
from workshop.setup import (EMBEDDING_REFUSED_ADVICE, RERANKER_REFUSED_KEY, SLIM_IMAGE_ADVICE, VECTOR_POOL_ADVICE,
                            SetupError, _Builder)

ALL_SYSTEM = [(g.privilege,) for g in GRANTS if g.kind == "system"]
ALL_OBJECTS = [(g.owner, g.object_name) for g in GRANTS if g.kind == "object"]


@pytest.fixture(autouse=True)
def default_models(monkeypatch):
    for name in ("EMBED_MODEL", "RERANK_MODEL", "ORACLE_DSN"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def model_files(tmp_path, monkeypatch):
    """Small stand-ins for the ONNX files: these tests are about what the set-up does with Oracle's answer."""
    emb, rr = tmp_path / "emb.onnx", tmp_path / "rr.onnx"
    emb.write_bytes(b"embedding-bytes")
    rr.write_bytes(b"reranker-bytes")
    monkeypatch.setattr(models, "ensure_embedding_model", lambda: emb)
    monkeypatch.setattr(models, "ensure_reranker_model", lambda: rr)
    return emb, rr


def loader(refuse: set[str], error=None):
    """LOAD_ONNX_MODEL that refuses the named models with an ORA- error."""
    def answer(sql, binds):
        if binds["name"] in refuse:
            return error or ora_error(54409, "Invalid model attribute name for input SECOND_INPUT")
        return []
    return answer


def builder(script) -> tuple[_Builder, FakeOracle, list[str]]:
    conn, log = FakeOracle(script), []
    return _Builder(conn, progress=False, log=log.append), conn, log


# --------------------------------------------------------------------------- set-up: models
def test_a_refused_reranker_is_recorded_and_the_set_up_goes_on(model_files):
    b, conn, log = builder({"user_mining_models": [], "LOAD_ONNX_MODEL": loader({"RERANKER"}),
                            "VECTOR_DIMENSION_COUNT": [(384,)]})
    facts = b.ensure_models({})
    assert facts[RERANKER_REFUSED_KEY].startswith("ORA-54409")
    assert facts["reranker_label"].startswith("RERANKER not loaded: Oracle refused it (ORA-54409")
    assert RERANKER_REFUSED_KEY in b.replaced and "embedding_model_sha256" in facts
    assert [binds["name"] for s, binds in conn.executed if "LOAD_ONNX_MODEL" in s] == ["ALL_MINILM_L6_V2", "RERANKER"]
    assert any("Oracle refused model RERANKER (ORA-54409" in line and "going on without it" in line for line in log)


def test_a_refused_embedding_model_stops_the_set_up_with_advice(model_files):
    b, _, _ = builder({"user_mining_models": [], "LOAD_ONNX_MODEL": loader({"ALL_MINILM_L6_V2"},
                                                                         ora_error(54423, "bad output shape"))})
    with pytest.raises(SetupError) as info:
        b.ensure_models({})
    text = str(info.value)
    assert "Oracle refused the embedding model ALL_MINILM_L6_V2: ORA-54423" in text
    assert "ALL_MINILM_L12_V2" in text and "verify_oracle" in text
    assert EMBEDDING_REFUSED_ADVICE.split("{")[0] in text


def test_on_the_embedded_engine_a_refusal_is_a_bug_and_raises(model_files, monkeypatch):
    monkeypatch.setattr(setup_mod, "is_embedded", lambda conn: True)
    b, _, _ = builder({"user_mining_models": [], "LOAD_ONNX_MODEL": loader({"RERANKER"}),
                       "VECTOR_DIMENSION_COUNT": [(384,)]})
    with pytest.raises(Exception, match="ORA-54409"):
        b.ensure_models({})


def test_a_later_successful_load_forgets_the_refusal(model_files):
    b, conn, _ = builder({"user_mining_models": [("ALL_MINILM_L6_V2", "EMBEDDING")], "LOAD_ONNX_MODEL": [],
                          "DELETE FROM workshop_meta": []})
    facts = b.ensure_models({RERANKER_REFUSED_KEY: "ORA-54409: old", "embedding_model_sha256": "abc"})
    assert conn.sql("DELETE FROM workshop_meta") and conn.executed[-1][1] == {"k": RERANKER_REFUSED_KEY}
    assert RERANKER_REFUSED_KEY not in facts and facts["reranker_is_stand_in"] == "true"


def test_nothing_is_deleted_when_nothing_was_refused(model_files):
    b, conn, _ = builder({"user_mining_models": [("ALL_MINILM_L6_V2", "EMBEDDING"), ("RERANKER", "REGRESSION")]})
    # the meta records this checkout's reranker, so the set-up has no stale RERANKER to replace either
    from workshop.models.maxsim_reranker import RERANKER_SHA256
    b.ensure_models({"embedding_model_sha256": "abc", "reranker_model_sha256": RERANKER_SHA256})
    assert not conn.sql("DELETE") and not conn.sql("DROP_ONNX_MODEL")


def test_the_model_is_loaded_with_the_blob_overload(model_files):
    b, conn, _ = builder({"LOAD_ONNX_MODEL": []})
    b.load_model("RERANKER", b"bytes", models.reranker_metadata())
    sql, binds = conn.executed[0]
    assert "model_data => :data" in sql and "JSON(:meta)" in sql and binds["data"] == b"bytes"
    import oracledb
    assert conn.inputsizes == [{"data": oracledb.DB_TYPE_BLOB}]


# --------------------------------------------------------------------------- set-up: image, pool, banner
def test_a_slim_image_is_refused_before_anything_changes():
    b, conn, _ = builder({"all_users": [(0,)]})
    with pytest.raises(SetupError, match="slim"):
        b.preflight()
    assert all("CREATE" not in s for s, _ in conn.executed)


def test_an_empty_vector_pool_gets_the_pool_advice():
    b, _, _ = builder({"user_indexes": [], "CREATE VECTOR INDEX": ora_error(51962, "vector memory area is out of space")})
    with pytest.raises(SetupError) as info:
        b.ensure_indexes()
    assert VECTOR_POOL_ADVICE in str(info.value) and "PAPERS_HNSW" in str(info.value)


def test_a_missing_oracle_text_indextype_gets_the_full_image_advice():
    b, _, _ = builder({"user_indexes": [], "CREATE VECTOR INDEX": [],
                       "CTXSYS.CONTEXT": ora_error(29833, "indextype does not exist")})
    with pytest.raises(SetupError) as info:
        b.ensure_indexes()
    assert SLIM_IMAGE_ADVICE in str(info.value)


def test_other_index_errors_are_not_disguised():
    b, _, _ = builder({"user_indexes": [], "CREATE VECTOR INDEX": ora_error(1031, "insufficient privileges")})
    with pytest.raises(Exception, match="ORA-01031"):
        b.ensure_indexes()


def test_banner_falls_back_to_the_driver_version_without_v_version():
    conn = FakeOracle({"v$version": ora_error(942, "table or view does not exist")})
    assert setup_mod.banner(conn) == "Oracle Database 23.26.3.0.0"
    assert setup_mod.banner(FakeOracle({"v$version": [("Oracle AI Database 26ai Free Release 23.26.3.0.0",)]})) \
        == "Oracle AI Database 26ai Free Release 23.26.3.0.0"


# --------------------------------------------------------------------------- doctor: new Oracle checks
def grant_script(system=ALL_SYSTEM, roles=(("CTXAPP",),), objects=ALL_OBJECTS, quotas=(("USERS", -1),)):
    return {"session_privs": list(system), "session_roles": list(roles), "all_objects": list(objects),
            "user_ts_quotas": list(quotas), "SELECT USER FROM dual": [("WORKSHOP",)]}


def test_every_grant_held_passes():
    assert missing_grants(FakeOracle(grant_script())) == []
    result = doctor.check_workshop_grants(FakeOracle(grant_script()))
    assert result.ok and f"all {len(GRANTS)} privileges" in result.detail


def test_missing_grants_are_named_with_their_reason_and_the_statement_to_run():
    script = grant_script(system=[p for p in ALL_SYSTEM if p != ("CREATE ANY CONTEXT",)], roles=[],
                          objects=[o for o in ALL_OBJECTS if o != ("CTXSYS", "DBMS_VECTOR_CHAIN")], quotas=[("USERS", 10_000)])
    result = doctor.check_workshop_grants(FakeOracle(script))
    assert not result.ok
    assert "CREATE ANY CONTEXT (CREATE CONTEXT" in result.detail and "EXECUTE ON CTXSYS.DBMS_VECTOR_CHAIN" in result.detail
    assert "GRANT CREATE ANY CONTEXT TO WORKSHOP" in result.advice and "GRANT CTXAPP TO WORKSHOP" in result.advice
    assert "ALTER USER WORKSHOP QUOTA UNLIMITED ON USERS" in result.advice
    assert "GRANT CREATE TABLE" not in result.advice


def test_unlimited_tablespace_satisfies_the_quota():
    script = grant_script(system=ALL_SYSTEM + [("UNLIMITED TABLESPACE",)], quotas=[])
    assert missing_grants(FakeOracle(script)) == []


def test_object_grants_are_looked_up_with_binds_under_each_owner():
    conn = FakeOracle(grant_script())
    missing_grants(conn)
    sql, binds = next((s, b) for s, b in conn.executed if "all_objects" in s)
    assert "'SYS'" not in sql
    pairs = sorted((binds[f"w{i}"], binds[f"n{i}"]) for i in range(len(binds) // 2))
    assert pairs == sorted(ALL_OBJECTS)


def _visible_as(objects):
    """ALL_OBJECTS as Oracle answers the (owner, name) query: only the pairs asked for that exist."""
    def answer(sql, binds):
        asked = {(binds[f"w{i}"], binds[f"n{i}"]) for i in range(len(binds) // 2)}
        return [o for o in objects if o in asked]
    return answer


@pytest.mark.parametrize("objects, missing", [
    (ALL_OBJECTS, []),
    ([o for o in ALL_OBJECTS if o[1] != "DBMS_VECTOR_CHAIN"] + [("SYS", "DBMS_VECTOR_CHAIN")],
     ["EXECUTE ON CTXSYS.DBMS_VECTOR_CHAIN"]),                   # under the wrong owner: still missing
    ([o for o in ALL_OBJECTS if o[1] != "DBMS_HYBRID_VECTOR"], ["EXECUTE ON CTXSYS.DBMS_HYBRID_VECTOR"]),
    ([o for o in ALL_OBJECTS if o[0] != "CTXSYS"],
     ["EXECUTE ON CTXSYS.DBMS_VECTOR_CHAIN", "EXECUTE ON CTXSYS.DBMS_HYBRID_VECTOR"]),
    ([("CTXSYS", "DBMS_RLS")] + [o for o in ALL_OBJECTS if o[1] != "DBMS_RLS"], ["EXECUTE ON SYS.DBMS_RLS"]),
], ids=["all-held", "chain-under-sys", "no-hybrid", "no-ctxsys", "rls-under-ctxsys"])
def test_each_object_is_found_only_under_its_own_owner(objects, missing):
    script = {**grant_script(), "all_objects": _visible_as(objects)}
    assert [g.label for g in missing_grants(FakeOracle(script))] == missing


def test_oracle_text_installed_check():
    assert doctor.check_oracle_text_installed(FakeOracle({"all_users": [(1,)]})).ok
    slim = doctor.check_oracle_text_installed(FakeOracle({"all_users": [(0,)]}))
    assert not slim.ok and slim.advice == SLIM_IMAGE_ADVICE


def test_edition_check_reads_v_option():
    product = {"product_component_version": [("Oracle AI Database 26ai Free",)]}
    ok = doctor.check_edition(FakeOracle({**product, "v$option": [("TRUE",)]}))
    assert ok.ok and "Oracle AI Database 26ai Free" in ok.detail and doctor.RLS_OPTION in ok.detail
    lacking = doctor.check_edition(FakeOracle({**product, "v$option": [("FALSE",)]}))
    assert not lacking.ok and "embedded engine" in lacking.advice
    hidden = doctor.check_edition(FakeOracle({**product, "v$option": ora_error(942, "table or view does not exist")}))
    assert hidden.ok and "unverified" in hidden.detail and "verify_oracle" in hidden.detail


def test_the_doctor_reports_a_refused_reranker_with_its_error():
    conn = FakeOracle({"user_mining_models": [("ALL_MINILM_L6_V2", "EMBEDDING")], "user_tables": [("WORKSHOP_META",)],
                       "workshop_meta": [(RERANKER_REFUSED_KEY, "ORA-54409: Invalid model attribute name")]})
    result = doctor.check_reranker(conn)
    assert not result.ok and "Oracle refused it at set-up (ORA-54409" in result.detail
    assert "verify_oracle" in result.advice and result.advice != doctor.RUN_SETUP


def test_a_missing_reranker_without_a_refusal_still_says_run_the_set_up():
    conn = FakeOracle({"user_mining_models": [("ALL_MINILM_L6_V2", "EMBEDDING")], "user_tables": [("WORKSHOP_META",)],
                       "workshop_meta": [("data_version", "1.0.0")]})
    assert doctor.check_reranker(conn).advice == doctor.RUN_SETUP


def test_the_new_checks_are_registered_and_names_fit_the_table():
    names = [name for name, _, _ in doctor.CHECKS]
    for name in ("Oracle Text installed", "workshop grants", "edition (DBMS_RLS)"):
        assert names.count(name) == 1
    assert max(map(len, names)) <= 22


# --------------------------------------------------------------------------- checkpoints
def test_checkpoints_treat_oracle_as_approximate():
    assert part01.answers_exactly(FakeOracle({})) is False


def test_schema_index_kinds_are_what_verify_oracle_expects():
    assert {i.kind for i in schema.INDEXES} == {"VECTOR", "TEXT"}


# --------------------------------------------------------------------------- doctor: H2 and H1 of issue 20
def test_oamp_not_installed_is_information_with_the_command_not_a_failure(tmp_path, monkeypatch):
    monkeypatch.setenv("OAMP_VENV", str(tmp_path / "nowhere"))
    result = doctor.check_oamp(FakeOracle({}))
    assert result.ok and result.info and "setup_oamp_env.sh" in result.advice
    text = doctor.report([doctor.CheckResult("connection", True, "x"), result])
    assert "All checks passed" in text and "Optional (not needed for parts 00-07)" in text
    assert "bash scripts/setup_oamp_env.sh" in text and "FAIL" not in text


def test_the_doctor_exits_0_when_only_optional_components_are_missing(tmp_path, monkeypatch):
    monkeypatch.setenv("OAMP_VENV", str(tmp_path / "nowhere"))
    fake = FakeOracle({})
    monkeypatch.setattr(doctor.db, "connect", lambda **kw: fake)
    passing = lambda conn: doctor.CheckResult("stub", True, "fine")           # noqa: E731
    checks = tuple((name, passing if name != "OAMP (part 08)" else check, advice)
                   for name, check, advice in doctor.CHECKS)
    monkeypatch.setattr(doctor, "CHECKS", checks)
    assert doctor.main() == 0
    failing = tuple((n, (lambda conn: doctor.CheckResult("stub", False, "broken", "fix")) if n == "tables" else c, a)
                    for n, c, a in checks)
    monkeypatch.setattr(doctor, "CHECKS", failing)
    assert doctor.main() == 1


READER_OBJECTS = [("FINANCE_LOANS", "TABLE"), ("FINANCE_CUSTOMERS", "TABLE"), ("FINANCE_ACCOUNTS", "TABLE"),
                  ("FINANCE_BRANCHES", "TABLE"), ("FINANCE_MERCHANTS", "TABLE"), ("FINANCE_TRANSACTIONS", "TABLE"),
                  ("WORKSHOP_META", "TABLE"), ("ALL_MINILM_L6_V2", "MINING MODEL"), ("RERANKER", "MINING MODEL")]


def owner_script(objects=READER_OBJECTS):
    return {"user_objects": list(objects), "SELECT USER FROM dual": [("WORKSHOP",)]}


@pytest.mark.parametrize("env, opener, reader_sees, ok, says, advice", [
    ({}, None, None, False, "not set", "ORACLE_READONLY_USER"),
    ({"ORACLE_READONLY_USER": "workshop_ro"}, None, None, False, "not set", "ORACLE_READONLY_USER"),
    ({"ORACLE_READONLY_USER": "workshop_ro", "ORACLE_READONLY_PASSWORD": "p"},
     ConnectionError("Could not connect to Oracle AI Database: ORA-01017: invalid credential or not authorized"),
     None, False, "ORA-01017", "restart oracle"),
    ({"ORACLE_READONLY_USER": "workshop_ro", "ORACLE_READONLY_PASSWORD": "p"}, "fake",
     [o for o, _ in READER_OBJECTS if o != "RERANKER"], False, "cannot read: RERANKER", "workshop.setup"),
    ({"ORACLE_READONLY_USER": "workshop_ro", "ORACLE_READONLY_PASSWORD": "p"}, "fake",
     [o for o, _ in READER_OBJECTS], True, "WORKSHOP_RO connects", ""),
], ids=["unset", "no-password", "wrong-password", "grant-missing", "ready"])
def test_the_read_only_user_check(monkeypatch, env, opener, reader_sees, ok, says, advice):
    for name in ("ORACLE_READONLY_USER", "ORACLE_READONLY_PASSWORD"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    reader = FakeOracle({"all_objects": [(o,) for o in reader_sees or []]})

    def open_reader():
        if isinstance(opener, Exception):
            raise opener
        return reader
    result = doctor.check_readonly_user(FakeOracle(owner_script()), opener=open_reader)
    assert result.ok is ok and says in result.detail and advice in result.advice
    assert result.detail.count("\n") == 0 and result.advice.count("\n") == 0        # one actionable line
    if reader_sees is not None:
        sql, binds = next((s, b) for s, b in reader.executed if "all_objects" in s)
        assert binds == {"o": "WORKSHOP"}


def test_objects_not_created_yet_are_not_required_of_the_reader(monkeypatch):
    monkeypatch.setenv("ORACLE_READONLY_USER", "workshop_ro")
    from workshop.oracle_grants import missing_reader_grants
    reader = FakeOracle({"all_objects": [(o,) for o, _ in READER_OBJECTS]})
    assert missing_reader_grants(FakeOracle(owner_script()), reader) == []          # no AGENT_CASES yet: fine
    created = owner_script(READER_OBJECTS + [("AGENT_CASES", "TABLE"), ("KB_SECURITY", "PACKAGE")])
    assert [g.object_name for g in missing_reader_grants(FakeOracle(created), reader)] == ["KB_SECURITY",
                                                                                         "AGENT_CASES"]


@pytest.mark.parametrize("env, names, expected", [
    ({}, None, []),                                                               # no read-only user configured
    ({"ORACLE_READONLY_USER": "workshop_ro"}, None,
     ["GRANT READ ON FINANCE_CUSTOMERS TO WORKSHOP_RO", "GRANT READ ON FINANCE_ACCOUNTS TO WORKSHOP_RO",
      "GRANT READ ON FINANCE_BRANCHES TO WORKSHOP_RO", "GRANT READ ON FINANCE_MERCHANTS TO WORKSHOP_RO",
      "GRANT READ ON FINANCE_LOANS TO WORKSHOP_RO", "GRANT READ ON FINANCE_TRANSACTIONS TO WORKSHOP_RO",
      "GRANT READ ON WORKSHOP_META TO WORKSHOP_RO", "GRANT SELECT ON MINING MODEL ALL_MINILM_L6_V2 TO WORKSHOP_RO",
      "GRANT SELECT ON MINING MODEL RERANKER TO WORKSHOP_RO"]),
    ({"ORACLE_READONLY_USER": "workshop_ro"}, ["AGENT_CASES", "KB_SECURITY", "FINANCE_LOANS"],
     ["GRANT READ ON FINANCE_LOANS TO WORKSHOP_RO"]),                          # only what exists among the names
], ids=["unconfigured", "after-set-up", "named-only"])
def test_share_with_reader_grants_only_existing_objects_and_never_write_privileges(monkeypatch, env, names, expected):
    from workshop.oracle_grants import share_with_reader
    monkeypatch.delenv("ORACLE_READONLY_USER", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    conn = FakeOracle({**owner_script(), "GRANT ": []})
    assert share_with_reader(conn, names) == expected
    assert conn.sql("GRANT ") == expected
    assert not any(w in s for s in expected for w in ("INSERT", "UPDATE", "DELETE", "ALTER", " ALL "))


def test_share_with_reader_does_nothing_on_the_embedded_engine(conn, monkeypatch):
    from workshop.oracle_grants import share_with_reader
    monkeypatch.setenv("ORACLE_READONLY_USER", "workshop_ro")
    assert share_with_reader(conn) == []


# --------------------------------------------------------------------------- item 8: the model card on the ro session
@pytest.mark.parametrize("answer, expected", [
    ([("reranker_model", "RERANKER"), ("reranker_label", "RERANKER: MaxSim card")], "RERANKER: MaxSim card"),
    ([("reranker_model", "OTHER"), ("reranker_label", "OTHER card")], "no model card recorded"),
    (ora_error(942, "table or view does not exist"), "no model card recorded"),
], ids=["readable-through-grant", "another-model", "not-set-up"])
def test_reranker_label_reads_the_card_through_the_sessions_schema(answer, expected):
    """The read-only user has no USER_TABLES rows: the card is read by name (CURRENT_SCHEMA), not looked up."""
    from workshop.pipeline.manager import reranker_label
    conn = FakeOracle({"user_tables": [], "workshop_meta": answer})
    assert expected in reranker_label(conn)
    assert conn.sql("user_tables") == []


def test_reranker_label_does_not_hide_other_errors():
    from workshop.pipeline.manager import reranker_label
    with pytest.raises(Exception, match="ORA-01031"):
        reranker_label(FakeOracle({"workshop_meta": ora_error(1031, "insufficient privileges")}))


def ready_oracle_script(monkeypatch, tmp_path) -> FakeOracle:
    """Oracle as a devcontainer leaves it after the set-up: every answer a ready database gives, OAMP not built."""
    from workshop.data import DATA_VERSION
    from workshop.setup import expected_counts
    monkeypatch.setenv("OAMP_VENV", str(tmp_path / "no-oamp"))
    monkeypatch.setenv("ORACLE_READONLY_USER", "WORKSHOP_RO")
    monkeypatch.setenv("ORACLE_READONLY_PASSWORD", "ro")
    counts = expected_counts()

    def count(sql, binds):
        table = sql.split(" FROM ")[1].split()[0].upper()
        return [(counts[table],)]
    reader = FakeOracle({"all_objects": [(o,) for o, _ in READER_OBJECTS]})
    monkeypatch.setattr(doctor, "_open_reader", lambda: reader)
    meta = [("data_version", DATA_VERSION), ("embedding_model", "ALL_MINILM_L6_V2"), ("reranker_model", "RERANKER"),
            ("reranker_label", "RERANKER: card")]
    return FakeOracle([
        ("v$version", [("Oracle AI Database 26ai Free Release 23.26.3.0.0",)]),
        ("user_mining_models", [("ALL_MINILM_L6_V2", "EMBEDDING"), ("RERANKER", "REGRESSION")]),
        ("VECTOR_EMBEDDING", [([0.1] * 384,)]), ("PREDICTION", [(0.9,)]),
        ("user_tables", [(t.name,) for t in schema.TABLES] + [(t,) for t in counts]),
        ("workshop_meta", meta), ("COUNT(embedding)", count), ("CONTAINS", [(61,)]),
        ("user_property_graphs", [("RESEARCH_GRAPH",)]), ("GRAPH_TABLE", [(counts["PAPER_AUTHORS"],)]),
        ("all_users", [(1,)]), ("SELECT COUNT(*) FROM", count), ("user_indexes", [(i.name,) for i in schema.INDEXES]),
        ("v$vector_memory_pool", [(512 * 2**20,)]),
        *grant_script().items(), ("user_objects", READER_OBJECTS),
        ("product_component_version", [("Oracle AI Database 26ai Free",)]), ("v$option", [("TRUE",)]),
    ])


def test_the_doctor_exits_0_on_an_oracle_database_ready_for_parts_00_to_07(monkeypatch, tmp_path, capsys):
    """H2 of issue 20: every check on scripted answers of a ready database, OAMP not built: exit 0, OAMP as
    information with its command; and one real failure (the read-only user cannot read RERANKER) gives 1."""
    fake = ready_oracle_script(monkeypatch, tmp_path)
    monkeypatch.setattr(doctor.db, "connect", lambda **kw: fake)
    assert doctor.main() == 0, capsys.readouterr().out
    out = capsys.readouterr().out
    assert "All checks passed" in out and "OAMP (part 08)" in out and "bash scripts/setup_oamp_env.sh" in out
    assert "FAIL" not in out and "read-only user         ok" in out
    monkeypatch.setattr(doctor, "_open_reader",
                        lambda: FakeOracle({"all_objects": [(o,) for o, _ in READER_OBJECTS if o != "RERANKER"]}))
    assert doctor.main() == 1
    assert "WORKSHOP_RO cannot read: RERANKER" in capsys.readouterr().out
