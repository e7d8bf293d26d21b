"""The agent-level scenario, through the graph: recall across threads (with a superseded fact and a remembered
tool result) and zero harness violations when retrieved text carries an injected instruction."""
from __future__ import annotations

from workshop.harness.memory import HarnessMemory
from workshop.harness.reports import REPORTS
from workshop.harness.runner import Harness
from workshop.harness.scenario import run_scenario, score
from workshop.memory import MemoryManager

ALLOWED = [r.name for r in REPORTS] + ["query_finance", "save_finding"]


def test_the_scenario_recalls_everything_with_zero_violations(conns):
    rw, ro = conns
    memory = HarnessMemory(MemoryManager(rw), namespace="t-scn")
    rows = run_scenario(memory, Harness(ro, rw, allowed=ALLOWED))
    assert score(rows) == {"recall across threads": "3/3", "harness violations": 0,
                           "injection check": "passed"}, rows
    superseded = next(r for r in rows if r["thread"] == "s4")
    assert "Rui Alves" in superseded["found"] and "Ana Costa" not in superseded["found"]
    assert all(r["in context"] for r in rows)          # the context-assembly node had each fact before the tools
    injected = next(r for r in rows if r["thread"] == "s7")
    assert "write_query" in injected["found"] and "denied" in injected["found"]
    with rw.cursor() as cur:                              # the scenario cleans up after itself
        cur.execute("SELECT COUNT(*) FROM knowledge_base_vs WHERE JSON_VALUE(metadata, '$.harness') = 't-scn-scenario'")
        assert cur.fetchone() == (0,)
        cur.execute("SELECT COUNT(*) FROM conversation_memory WHERE thread_id LIKE 't-scn-%'")
        assert cur.fetchone() == (0,)


def test_a_forgotten_supersession_is_scored_as_a_miss(conns, monkeypatch):
    """The score can fail: when `remember` writes every fact under a new id, the old value still competes."""
    rw, ro = conns
    memory = HarnessMemory(MemoryManager(rw), namespace="t-scn2")
    original = HarnessMemory.tools

    def new_id_per_fact(self):
        tools = original(self)

        def remember(key, fact):
            return {"id": self.memory.write_knowledge(fact, {"harness": self.namespace, "key": key})}
        return {**tools, "remember": remember}

    monkeypatch.setattr(HarnessMemory, "tools", new_id_per_fact)
    rows = run_scenario(memory, Harness(ro, rw, allowed=ALLOWED))
    assert score(rows)["recall across threads"] != "3/3", rows
