"""The agent-level scenario: recall across threads (with a superseded fact and a remembered tool result) and
zero harness violations when retrieved text carries an injected instruction."""
from __future__ import annotations

from workshop.harness.reports import REPORTS
from workshop.harness.runner import Harness
from workshop.harness.scenario import IDS, run_scenario, score
from workshop.memory import MemoryManager


def test_the_scenario_recalls_everything_with_zero_violations(conns):
    rw, ro = conns
    memory = MemoryManager(rw)
    rows = run_scenario(memory, Harness(ro, rw, allowed=[r.name for r in REPORTS] + ["query_finance"]))
    assert score(rows) == {"recall across threads": "3/3", "harness violations": 0}, rows
    superseded = next(r for r in rows if r["thread"] == "s4")
    assert "Rui Alves" in superseded["found"] and "Ana Costa" not in superseded["found"]
    injected = next(r for r in rows if r["thread"] == "s7")
    assert "write_query" in injected["found"] and "denied" in injected["found"]
    assert memory.stores["knowledge_base"].get_by_ids(list(IDS.values())) == []      # the scenario cleans up


def test_a_forgotten_supersession_is_scored_as_a_miss(conns, monkeypatch):
    """The score can fail: when the rewrite goes to a new id, the old fact is still the nearest."""
    from workshop.harness import scenario
    rw, ro = conns
    memory = MemoryManager(rw)
    original = memory.write_knowledge

    def new_id_for_updates(text, metadata=None, *, id=None):
        return original(text, metadata, id=(id + "-v2") if id and "now" in text else id)

    monkeypatch.setattr(memory, "write_knowledge", new_id_for_updates)
    monkeypatch.setattr(scenario, "IDS", {**scenario.IDS, "officer-v2": scenario.IDS["officer"] + "-v2"})
    rows = run_scenario(memory, Harness(ro, rw, allowed=[r.name for r in REPORTS] + ["query_finance"]))
    assert score(rows)["recall across threads"] != "3/3"
