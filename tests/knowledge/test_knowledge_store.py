"""The knowledge store: sync (counts, idempotence, exclusions) and mirroring of later writes."""
from __future__ import annotations

import uuid

import pytest

from workshop.knowledge import (Fact, mirror_writes, open_knowledge_store, stored_fingerprints, sync_knowledge,
                                write_facts)

pytestmark = pytest.mark.slow
MODEL = "ALL_MINILM_L6_V2"


def _facts(token: str) -> list[Fact]:
    return [Fact("column", f"T{token}.LEDGER.AMOUNT_MILLS", f"Column T{token}.LEDGER.AMOUNT_MILLS: mills."),
            Fact("column", f"T{token}.LEDGER.FEE_BP", f"Column T{token}.LEDGER.FEE_BP: basis points."),
            Fact("policy", f"AML.T{token}", f"AML.T{token}: hold probe payments.", source="aml_policy"),
            Fact("table", f"T{token}.OLD", f"Table T{token}.OLD: retired.", valid=False),
            Fact("tool_output", f"T{token}.run", f"T{token} tool returned 3 rows.", source="tool_log"),
            Fact("chat_extraction", f"T{token}.chat", f"T{token} the user is in a hurry.", source="chat")]


def test_sync_inserts_updates_deletes_and_is_idempotent(kconn, probe_table):
    store = open_knowledge_store(kconn, MODEL, probe_table)
    facts = _facts(uuid.uuid4().hex[:6])
    assert sync_knowledge(kconn, store, facts) == {"inserted": 3, "updated": 0, "deleted": 0, "unchanged": 0}
    held = stored_fingerprints(kconn, store)
    assert set(held) == {f.id for f in facts if f.publishable}
    assert all(held[f.id] == f.fingerprint for f in facts if f.publishable)
    assert sync_knowledge(kconn, store, facts) == {"inserted": 0, "updated": 0, "deleted": 0, "unchanged": 3}

    changed = [facts[0].replace(body=facts[0].body + " Now in cents."), facts[2]]     # facts[1] is stale
    assert sync_knowledge(kconn, store, changed) == {"inserted": 0, "updated": 1, "deleted": 1, "unchanged": 1}
    docs = {d.id: d for d in store.get_by_ids([f.id for f in changed])}
    assert docs[facts[0].id].page_content.endswith("Now in cents.")
    assert set(stored_fingerprints(kconn, store)) == {facts[0].id, facts[2].id}
    assert sync_knowledge(kconn, store, changed) == {"inserted": 0, "updated": 0, "deleted": 0, "unchanged": 2}
    assert sync_knowledge(kconn, store, []) == {"inserted": 0, "updated": 0, "deleted": 2, "unchanged": 0}
    assert stored_fingerprints(kconn, store) == {}


def test_the_store_metadata_is_filterable_by_kind(kconn, probe_table):
    store = open_knowledge_store(kconn, MODEL, probe_table)
    sync_knowledge(kconn, store, _facts(uuid.uuid4().hex[:6]))
    kinds = {d.metadata["kind"] for d, _ in store.similarity_search_with_score(
        "basis points", k=5, filter={"kind": {"$in": ["policy"]}})}
    assert kinds == {"policy"}


def test_mirrored_writes_reach_the_store_without_a_sync_and_stop_when_asked(kconn, probe_table, knowledge_db):
    store = open_knowledge_store(kconn, MODEL, probe_table)
    token = uuid.uuid4().hex[:6]
    stop = mirror_writes(store)
    new = Fact("policy", f"AML.M{token}", f"AML.M{token}: cash-outs of probe coins need approval.",
               source="aml_policy")
    late = Fact("policy", f"AML.L{token}", f"AML.L{token}: written after the mirror stopped.", source="aml_policy")
    try:
        write_facts(kconn, [new])
        assert new.id in stored_fingerprints(kconn, store)
        write_facts(kconn, [new.replace(valid=False)])
        assert new.id not in stored_fingerprints(kconn, store)
        stop()
        write_facts(kconn, [late])
        assert late.id not in stored_fingerprints(kconn, store)
    finally:
        stop()
        with kconn.cursor() as cur:
            cur.execute("DELETE FROM knowledge_facts WHERE id IN (:1, :2)", [new.id, late.id])
        kconn.commit()


def test_mirroring_the_same_table_twice_registers_one_mirror(kconn, probe_table):
    from workshop.knowledge import facts as facts_module
    first = open_knowledge_store(kconn, MODEL, probe_table)
    mirror_writes(first)
    mirror_writes(open_knowledge_store(kconn, MODEL, probe_table))
    assert len([k for k in facts_module._MIRRORS if probe_table in k]) == 1
