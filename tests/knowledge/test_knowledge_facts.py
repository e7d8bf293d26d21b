"""Facts, the facts table and the schema scan."""
from __future__ import annotations

import uuid

import pytest

from workshop.data.finance import FINANCE_TABLES
from workshop.knowledge import (AML_POLICY_NOTES, KNOWLEDGE_KINDS, Fact, fact_id, like_prefix, policy_facts,
                                read_facts, scan_schema, write_facts)

pytestmark = pytest.mark.slow


def test_a_fact_has_a_stable_id_and_a_fingerprint_of_what_the_store_holds():
    fact = Fact("column", "FINANCE.LOANS.RATE_BP", "Column FINANCE.LOANS.RATE_BP: basis points.", {"table": "X"})
    assert fact.id == fact_id("column", "FINANCE.LOANS.RATE_BP") == "column:FINANCE.LOANS.RATE_BP"
    assert fact.replace(body=fact.body + "!").fingerprint != fact.fingerprint
    assert fact.replace(metadata={"table": "Y"}).fingerprint != fact.fingerprint
    assert fact.replace(valid=False).fingerprint == fact.fingerprint          # validity decides presence, not text
    meta = fact.store_metadata()
    assert meta["fact_id"] == fact.id and meta["kind"] == "column" and meta["fingerprint"] == fact.fingerprint


@pytest.mark.parametrize("kind, valid, publishable", [
    ("table", True, True), ("column", True, True), ("policy", True, True), ("column", False, False),
    ("tool_output", True, False), ("chat_extraction", True, False)])
def test_only_valid_knowledge_kinds_are_publishable(kind, valid, publishable):
    assert Fact(kind, "S", "body", valid=valid).publishable is publishable


def test_the_policy_notes_are_a_few_dozen_distinct_policy_facts():
    facts = policy_facts()
    assert 30 <= len(facts) == len(AML_POLICY_NOTES) <= 60
    assert len({f.id for f in facts}) == len(facts)
    assert all(f.kind == "policy" and f.body.startswith(f.subject + ": ") and f.publishable for f in facts)


def test_write_facts_upserts_by_id_and_read_facts_filters(kconn, knowledge_db):
    token = uuid.uuid4().hex[:8]
    facts = [Fact("policy", f"AML.T{token}", f"AML.T{token}: first text.", {"n": 1}, source="aml_policy"),
             Fact("tool_output", f"T{token}.run", "tool said 3 rows", source="tool_log")]
    try:
        assert write_facts(kconn, facts) == 2
        assert write_facts(kconn, [facts[0].replace(body=f"AML.T{token}: second text.")]) == 1
        rows = {f.id: f for f in read_facts(kconn, publishable_only=False)}
        assert rows[facts[0].id].body.endswith("second text.") and rows[facts[0].id].metadata == {"n": 1}
        assert facts[1].id in rows
        published = {f.id for f in read_facts(kconn)}
        assert facts[0].id in published and facts[1].id not in published
        assert all(f.kind in KNOWLEDGE_KINDS and f.valid for f in read_facts(kconn))
        write_facts(kconn, [facts[0].replace(valid=False)])
        assert facts[0].id not in {f.id for f in read_facts(kconn)}
    finally:
        with kconn.cursor() as cur:
            cur.execute("DELETE FROM knowledge_facts WHERE id IN (:1, :2)", [f.id for f in facts])
        kconn.commit()


def test_write_facts_binds_hostile_text_verbatim(kconn, knowledge_db):
    body = "It's a \"probe\"; DROP TABLE knowledge_facts; -- :id &x ünïcødé"
    fact = Fact("policy", f"AML.H{uuid.uuid4().hex[:6]}", body, source="aml_policy")
    try:
        write_facts(kconn, [fact])
        assert {f.id: f.body for f in read_facts(kconn)}[fact.id] == body
    finally:
        with kconn.cursor() as cur:
            cur.execute("DELETE FROM knowledge_facts WHERE id = :1", [fact.id])
        kconn.commit()


def test_scan_gives_one_fact_per_commented_finance_table_and_column(kconn):
    facts = scan_schema(kconn, "FINANCE")
    tables = [f for f in facts if f.kind == "table"]
    columns = [f for f in facts if f.kind == "column"]
    assert len(tables) == len(FINANCE_TABLES)
    assert len(columns) == sum(len(t.columns) for t in FINANCE_TABLES)
    by_subject = {f.subject: f for f in facts}
    assert len(by_subject) == len(facts)
    rate = by_subject["FINANCE.LOANS.RATE_BP"]
    assert rate.kind == "column" and "BASIS POINTS" in rate.body and rate.id == "column:FINANCE.LOANS.RATE_BP"
    assert "cents" in by_subject["FINANCE.TRANSACTIONS.AMOUNT_CENTS"].body
    assert all(f.subject.startswith("FINANCE.") and not f.subject.startswith("FINANCE.FINANCE_") for f in facts)
    assert [f.id for f in scan_schema(kconn, "finance")] == [f.id for f in facts]     # owner is case-insensitive


def test_scan_skips_uncommented_columns_and_other_schemas(kconn):
    with kconn.cursor() as cur:
        cur.execute("CREATE TABLE finance_scan_probe (a NUMBER, b NUMBER)")
        cur.execute("CREATE TABLE financex_probe (a NUMBER)")              # FINANCEX_ is not FINANCE_
        try:
            cur.execute("COMMENT ON TABLE finance_scan_probe IS 'probe table'")
            cur.execute("COMMENT ON COLUMN finance_scan_probe.a IS 'probe column'")
            cur.execute("COMMENT ON TABLE financex_probe IS 'another schema'")
            subjects = {f.subject: f for f in scan_schema(kconn, "FINANCE")}
            assert subjects["FINANCE.SCAN_PROBE"].body == "Table FINANCE.SCAN_PROBE: probe table"
            assert "FINANCE.SCAN_PROBE.A" in subjects and "FINANCE.SCAN_PROBE.B" not in subjects
            assert not [s for s in subjects if "FINANCEX" in s or s == "FINANCE.X_PROBE"]
            assert not scan_schema(kconn, "NOSUCH")
        finally:
            cur.execute("DROP TABLE finance_scan_probe PURGE")
            cur.execute("DROP TABLE financex_probe PURGE")


def test_like_prefix_escapes_the_underscore_wildcard():
    assert like_prefix("finance") == "FINANCE\\_%"
    assert like_prefix("MY_APP") == "MY\\_APP\\_%"


def test_the_notebook_solution_scans_like_the_library(kconn):
    from tests.checkpoints.shared import cells
    from workshop.config import PROJECT_ROOT
    namespace = {"Fact": Fact}
    exec(cells(PROJECT_ROOT / "solutions" / "04_knowledge_retrieval.ipynb")["p04-todo1"], namespace)  # noqa: S102
    mine = {(f.id, f.body) for f in namespace["scan_schema"](kconn, "FINANCE")}
    assert mine == {(f.id, f.body) for f in scan_schema(kconn, "FINANCE")}
