"""Budget edges (issue 19, claim: one budget per run across every round of the LangGraph graph, and a call that
raises counts against the cap).

The graph used to give every round a fresh token budget: with outputs of a third of the budget, `Harness.run`
stopped after 3 calls and the graph ran 5. Each row runs the same planner through `Harness.run` and through the
graph, with the same budget, and both must stop at the same count. The memory nodes are not under test here: a
memory that remembers nothing stands in for part 03's (the graph only calls `assemble` and `write_back`).
"""
from __future__ import annotations

import pytest

from tests.security.harness_support import NoMemory, pair, run_status, small_db  # noqa: F401 - fixtures
from workshop.harness.budget import Budget
from workshop.harness.graph import build_agent_graph
from workshop.memory.tokens import estimate_tokens
from workshop.harness.runner import Call, Harness, ScriptedPlanner

TEXT = "x" * 400                       # estimate_tokens: 100
COST = estimate_tokens(TEXT)


class Probe:
    def __init__(self, output=TEXT, error: Exception | None = None):
        self.output, self.error, self.runs = output, error, 0

    def __call__(self, **_):
        self.runs += 1
        if self.error is not None:
            raise self.error
        return self.output


#: (id, budget, the tool, how many times it may run)
EDGES = [
    ("tokens-run-out-in-round-4", Budget(max_tool_calls=50, max_tokens=3 * COST, max_rounds=50), Probe(), 4),
    ("tokens-fit-exactly", Budget(max_tool_calls=3, max_tokens=3 * COST, max_rounds=50), Probe(), 3),
    ("call-cap", Budget(max_tool_calls=5, max_tokens=10**6, max_rounds=50), Probe("ok"), 5),
    ("raising-calls-count", Budget(max_tool_calls=4, max_tokens=10**6, max_rounds=50), Probe(error=RuntimeError("x")), 4),
    ("invalid-calls-count", Budget(max_tool_calls=4, max_tokens=10**6, max_rounds=50), Probe(error=ValueError("x")), 4),
    ("rounds", Budget(max_tool_calls=50, max_tokens=10**6, max_rounds=3), Probe("ok"), 3),
    ("zero-calls", Budget(max_tool_calls=0, max_tokens=10**6, max_rounds=50), Probe("ok"), 0),
]


def _planner():
    return ScriptedPlanner([[Call("probe", {})]], name="looping planner", repeat_last=True)


@pytest.mark.parametrize("budget, probe, runs", [(b, p, r) for _, b, p, r in EDGES], ids=[i for i, *_ in EDGES])
def test_the_run_loop_and_the_graph_stop_at_the_same_call(pair, budget, probe, runs):
    rw, ro = pair
    limits = lambda: Budget(budget.max_tool_calls, budget.max_tokens, budget.max_rounds)  # noqa: E731
    harness = Harness(ro, rw, allowed=["probe"], tools={"probe": probe}, budget=limits)
    result = harness.run("loop", _planner())
    by_run_loop, probe.runs = probe.runs, 0
    final = build_agent_graph(harness, _planner(), NoMemory()).invoke(
        {"question": "loop", "thread_id": "budget"}, {"recursion_limit": 400})
    assert (by_run_loop, probe.runs) == (runs, runs)
    assert result.status == final["status"] == "budget_exhausted"
    assert result.tool_calls == final["tool_calls"] == runs
    assert run_status(rw, final["run_id"]) == "budget_exhausted"


def test_the_graph_takes_the_harness_budget_when_given_none(pair):
    rw, ro = pair
    probe = Probe("ok")
    harness = Harness(ro, rw, allowed=["probe"], tools={"probe": probe}, budget=lambda: Budget(max_tool_calls=2))
    final = build_agent_graph(harness, _planner(), NoMemory()).invoke({"question": "loop", "thread_id": "b"},
                                                                       {"recursion_limit": 400})
    assert probe.runs == 2 and final["status"] == "budget_exhausted"


def test_many_calls_proposed_in_one_round_stop_at_the_cap(pair):
    rw, ro = pair
    probe = Probe("ok")
    harness = Harness(ro, rw, allowed=["probe"], tools={"probe": probe}, budget=lambda: Budget(max_tool_calls=3))
    result = harness.run("burst", ScriptedPlanner([[Call("probe", {})] * 100]))
    assert probe.runs == 3 and result.status == "budget_exhausted"


@pytest.mark.parametrize("proposal", [Call("write_query", {}), Call(None, {}), Call("probe", None)],  # type: ignore[arg-type]
                         ids=["not-allowlisted", "no-name", "bad-arguments"])
def test_a_flood_of_refused_proposals_ends_the_run(pair, proposal):
    """Refused proposals run nothing and cost no tool call, but 1000 of them in one round must not write 1000
    events: the run ends at max_refused_calls, in the run loop and in the graph alike."""
    from workshop.harness.runlog import read_events
    rw, ro = pair
    probe = Probe("ok")
    harness = Harness(ro, rw, allowed=["probe"], tools={"probe": probe},
                      budget=lambda: Budget(max_refused_calls=5))
    result = harness.run("flood", ScriptedPlanner([[proposal] * 1000]))
    final = build_agent_graph(harness, ScriptedPlanner([[proposal] * 1000]), NoMemory()).invoke(
        {"question": "flood", "thread_id": "flood"})
    for run_id, status in ((result.run_id, result.status), (final["run_id"], final["status"])):
        tool_events = [e for e in read_events(rw, run_id) if e["kind"] == "TOOL"]
        assert status == "budget_exhausted" and len(tool_events) == 5
    assert probe.runs == 0
