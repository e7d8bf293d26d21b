"""Hostile tool calls against the harness (issue 19, claims: every tool goes through the allowlist, hostile calls
are refused or recorded as failed calls, a run never stays `running`).

A planner is whatever proposes calls: a model talked into anything by a retrieved document, or a bug. Each row
is a call such a planner can propose; the harness must answer with an observation (denied, invalid, error,
timeout) and an event in the run record, and keep running. Only a KeyboardInterrupt or SystemExit ends the run,
and then the record says `interrupted`, never `running`.
"""
from __future__ import annotations

import json

import oracledb
import pytest

from tests.security.harness_support import NoMemory, pair, run_status, running_runs, small_db  # noqa: F401
from workshop.harness.budget import Budget
from workshop.harness.runlog import read_events
from workshop.harness.runner import Answer, Call, Harness, ScriptedPlanner


class Echo:
    """A tool that records that it ran."""

    def __init__(self):
        self.runs = 0

    def __call__(self, **arguments):
        self.runs += 1
        return {"echo": len(arguments)}


def deep(levels: int) -> dict:
    value: dict = {}
    for _ in range(levels):
        value = {"x": value}
    return value


#: (id, proposed call, the status it must get)
HOSTILE_CALLS = [
    ("name-none", Call(None, {}), "denied"),                                            # type: ignore[arg-type]
    ("name-int", Call(7, {}), "denied"),                                                # type: ignore[arg-type]
    ("name-list", Call(["echo"], {}), "denied"),                                        # type: ignore[arg-type]
    ("name-empty", Call("", {}), "denied"),
    ("name-over-long", Call("e" * 65, {}), "denied"),
    ("name-huge", Call("echo" * 100_000, {}), "denied"),
    ("name-with-space", Call("echo; drop", {}), "denied"),
    ("name-case-variant", Call("ECHO", {}), "denied"),
    ("name-unknown", Call("write_query", {"sql": "DELETE FROM finance_loans"}), "denied"),
    ("save-finding-not-listed", Call("save_finding", {"case_ref": "X-1", "note": "n"}), "denied"),
    ("not-a-call-object", {"name": "echo", "arguments": {}}, "denied"),
    ("arguments-none", Call("echo", None), "invalid"),                                  # type: ignore[arg-type]
    ("arguments-list", Call("echo", [1, 2]), "invalid"),                                # type: ignore[arg-type]
    ("arguments-string", Call("echo", "{}"), "invalid"),                                # type: ignore[arg-type]
    ("arguments-int-keys", Call("echo", {1: "a"}), "invalid"),
    ("arguments-deep", Call("echo", deep(50)), "invalid"),
    ("arguments-very-deep", Call("echo", deep(5000)), "invalid"),
    ("arguments-huge", Call("echo", {"rows": list(range(100_000))}), "invalid"),
    ("wrong-argument-type", Call("typed", {"limit": "10; DROP TABLE x"}), "invalid"),
    ("unknown-argument", Call("typed", {"limit": 3, "tenant_id": "initech"}), "invalid"),
    ("tool-raises-runtime-error", Call("raises_runtime", {}), "error"),
    ("tool-raises-key-error", Call("raises_key", {}), "error"),
    ("tool-raises-database-error", Call("raises_db", {}), "error"),
    ("tool-raises-ora-01031", Call("raises_readonly", {}), "denied"),
    ("tool-raises-call-timeout", Call("raises_timeout", {}), "timeout"),
    ("tool-raises-recursion", Call("raises_recursion", {}), "error"),
]


def _raise(error):
    def tool(**_):
        raise error
    return tool


def _recurse(**_):
    return _recurse()


def _typed(limit):
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise ValueError("limit must be an int")
    return [limit]


def tools() -> dict:
    from workshop.embedded import driver
    from oracledb import errors as oracle_errors
    return {"echo": Echo(), "typed": _typed,
            "raises_runtime": _raise(RuntimeError("boom")), "raises_key": _raise(KeyError("k")),
            "raises_db": _raise(oracledb.DatabaseError("ORA-00942: table or view does not exist")),
            "raises_readonly": _raise(oracledb.DatabaseError("ORA-01031: insufficient privileges")),
            "raises_timeout": _raise(driver.dpy_error(oracle_errors.ERR_CALL_TIMEOUT_EXCEEDED, timeout=5)),
            "raises_recursion": _recurse}


@pytest.mark.parametrize("call, status", [(c, s) for _, c, s in HOSTILE_CALLS], ids=[i for i, _, _ in HOSTILE_CALLS])
def test_a_hostile_call_is_refused_or_a_failed_call_and_the_run_goes_on(pair, call, status):
    rw, ro = pair
    toolset = tools()
    harness = Harness(ro, rw, allowed=list(toolset), tools=toolset, budget=lambda: Budget(max_tokens=10**6))
    planner = ScriptedPlanner([[call], [Call("echo", {"n": 1})], Answer("done")])
    result = harness.run("hostile", planner)
    events = read_events(rw, result.run_id)
    tool_events = [e for e in events if e["kind"] == "TOOL"]
    assert [e["status"] for e in tool_events] == [status, "success"]
    assert toolset["echo"].runs == 1                  # the hostile call ran nothing; the next call still ran
    assert result.status == "completed" and run_status(rw, result.run_id) == "completed"
    assert all(len(e["name"]) <= 64 for e in events)


def test_save_finding_is_an_allowlisted_tool_like_any_other(pair):
    """A harness whose allowlist does not list save_finding cannot start with it, and a harness with custom tools
    never gets it for free: the call is denied and no finding is written."""
    rw, ro = pair
    echo = Echo()
    harness = Harness(ro, rw, allowed=["echo"], tools={"echo": echo})
    result = harness.run("save", ScriptedPlanner([[Call("save_finding", {"case_ref": "S-1", "note": "x"})],
                                                  Answer("Saved S-1.", saved_case="S-1")]))
    assert [e["status"] for e in read_events(rw, result.run_id) if e["kind"] == "TOOL"] == ["denied"]
    assert result.verified == "unverified"
    with rw.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM agent_findings WHERE run_id = :r", r=result.run_id)
        assert cur.fetchone()[0] == 0


def test_the_default_tools_list_save_finding_and_a_planner_cannot_pass_the_run_id(pair):
    from workshop.harness.runner import QUERY_OBJECTS  # noqa: F401 - the default tools import
    from workshop.harness.reports import REPORTS
    from workshop.harness.toolset import ToolsetMismatch
    rw, ro = pair
    allowed = [r.name for r in REPORTS] + ["query_finance"]
    with pytest.raises(ToolsetMismatch, match="save_finding"):
        Harness(ro, rw, allowed=allowed)
    harness = Harness(ro, rw, allowed=[*allowed, "save_finding"])
    forged = ScriptedPlanner([[Call("save_finding", {"run_id": "someone-else", "case_ref": "F-1", "note": "x"})],
                              [Call("save_finding", {"case_ref": "F-2", "note": "mine"})], Answer("ok")])
    result = harness.run("forge", forged)
    assert [e["status"] for e in read_events(rw, result.run_id) if e["kind"] == "TOOL"] == ["invalid", "success"]
    with rw.cursor() as cur:
        cur.execute("SELECT run_id, case_ref FROM agent_findings WHERE case_ref IN ('F-1', 'F-2')")
        assert cur.fetchall() == [(result.run_id, "F-2")]


class Exploding:
    name = "exploding planner"

    def __init__(self, error: BaseException, after: int = 0):
        self.error, self.after, self.calls = error, after, 0

    def next_action(self, question, observations, round=None, context=()):
        self.calls += 1
        if self.calls > self.after:
            raise self.error
        return [Call("echo", {})]


@pytest.mark.parametrize("error, status", [(RuntimeError("planner bug"), "failed"),
                                           (KeyboardInterrupt(), "interrupted"),
                                           (SystemExit(1), "interrupted"),
                                           (GeneratorExit(), "interrupted")],
                         ids=["runtime-error", "keyboard-interrupt", "system-exit", "generator-exit"])
def test_a_run_whose_planner_raises_ends_in_a_final_status(pair, error, status):
    rw, ro = pair
    harness = Harness(ro, rw, allowed=["echo"], tools={"echo": Echo()})
    before = set(running_runs(rw))
    with pytest.raises(type(error)):
        harness.run("explode", Exploding(error, after=1))
    assert set(running_runs(rw)) == before
    with rw.cursor() as cur:
        cur.execute("SELECT status FROM agent_runs WHERE planner = 'exploding planner' ORDER BY started_at DESC, "
                    "run_id FETCH FIRST 1 ROWS ONLY")
        assert cur.fetchone()[0] == status


@pytest.mark.parametrize("error", [KeyboardInterrupt(), SystemExit(2)], ids=["keyboard-interrupt", "system-exit"])
def test_a_tool_raising_a_base_exception_ends_the_run_interrupted_and_propagates(pair, error):
    rw, ro = pair
    harness = Harness(ro, rw, allowed=["stop"], tools={"stop": _raise(error)})
    with pytest.raises(type(error)):
        harness.run("stop", ScriptedPlanner([[Call("stop", {})], Answer("never")], name="stopped planner"))
    with rw.cursor() as cur:
        cur.execute("SELECT run_id, status FROM agent_runs WHERE planner = 'stopped planner' ORDER BY started_at DESC, "
                    "run_id FETCH FIRST 1 ROWS ONLY")
        run_id, status = cur.fetchone()
    assert status == "interrupted"
    assert [(e["kind"], e["status"]) for e in read_events(rw, run_id)][-2:] == [("TOOL", "interrupted"),
                                                                                ("RUNTIME", "interrupted")]


@pytest.mark.parametrize("action", [None, "DELETE FROM finance_loans", 42, {"name": "echo"}],
                         ids=["none", "text", "number", "dict"])
def test_a_planner_action_that_is_neither_calls_nor_an_answer_is_a_denied_call(pair, action):
    rw, ro = pair
    echo = Echo()
    harness = Harness(ro, rw, allowed=["echo"], tools={"echo": echo})
    result = harness.run("garbage", ScriptedPlanner([action, Answer("done")]))
    assert [e["status"] for e in read_events(rw, result.run_id) if e["kind"] == "TOOL"] == ["denied"]
    assert echo.runs == 0 and run_status(rw, result.run_id) == "completed"


def test_a_tool_output_with_keys_json_cannot_sort_is_still_recorded(pair):
    rw, ro = pair
    harness = Harness(ro, rw, allowed=["mixed"], tools={"mixed": lambda: {1: "one", "two": 2, (3, 4): b"five"}})
    result = harness.run("mixed", ScriptedPlanner([[Call("mixed", {})], Answer("done")]))
    outputs = [e["outputs"] for e in read_events(rw, result.run_id) if e["kind"] == "TOOL"]
    assert json.loads(outputs[0])["1"] == "one" and result.status == "completed"


@pytest.mark.parametrize("error, status", [(RuntimeError("planner bug"), "failed"), (KeyboardInterrupt(), "interrupted")],
                         ids=["runtime-error", "keyboard-interrupt"])
def test_a_graph_run_whose_planner_raises_ends_in_a_final_status(pair, error, status):
    from workshop.harness.graph import build_agent_graph
    rw, ro = pair
    harness = Harness(ro, rw, allowed=["echo"], tools={"echo": Echo()})
    before = set(running_runs(rw))
    with pytest.raises(type(error)):
        build_agent_graph(harness, Exploding(error, after=1), NoMemory()).invoke(
            {"question": "explode", "thread_id": "graph-explode"})
    new = set(running_runs(rw)) - before
    assert not new
    with rw.cursor() as cur:
        cur.execute("SELECT status FROM agent_runs WHERE planner = 'exploding planner' ORDER BY started_at DESC, "
                    "run_id FETCH FIRST 1 ROWS ONLY")
        assert cur.fetchone()[0] == status


@pytest.mark.parametrize("call, status", [(c, s) for _, c, s in HOSTILE_CALLS[:12]], ids=[i for i, *_ in HOSTILE_CALLS[:12]])
def test_a_hostile_call_in_the_graph_is_refused_and_the_run_completes(pair, call, status):
    from workshop.harness.graph import build_agent_graph
    rw, ro = pair
    toolset = tools()
    harness = Harness(ro, rw, allowed=list(toolset), tools=toolset)
    final = build_agent_graph(harness, ScriptedPlanner([[call], [Call("echo", {"n": 1})], Answer("done")]),
                              NoMemory()).invoke({"question": "hostile", "thread_id": "graph-hostile"})
    assert [o["status"] for o in final["observations"]] == [status, "success"]
    assert final["status"] == "completed" and run_status(rw, final["run_id"]) == "completed"


#: (id, the model's tool_calls entry, the status the harness gives it)
MODEL_CALLS = [
    ("arguments-not-json", {"function": {"name": "echo", "arguments": "{not json"}}, "invalid"),
    ("arguments-a-list", {"function": {"name": "echo", "arguments": "[1, 2]"}}, "invalid"),
    ("arguments-a-number", {"function": {"name": "echo", "arguments": 5}}, "invalid"),
    ("no-function", {"type": "function"}, "denied"),
    ("function-a-string", {"function": "echo"}, "denied"),
    ("name-missing", {"function": {"arguments": "{}"}}, "denied"),
    ("name-not-listed", {"function": {"name": "drop_everything", "arguments": "{}"}}, "denied"),
    ("not-a-dict", "echo()", "denied"),
]


@pytest.mark.parametrize("tool_call, status", [(c, s) for _, c, s in MODEL_CALLS], ids=[i for i, *_ in MODEL_CALLS])
def test_a_malformed_call_from_a_chat_model_is_refused_not_a_crash(pair, tool_call, status):
    import io

    from workshop.harness.chat import ChatPlanner
    replies = [{"tool_calls": [tool_call]}, {"content": "done"}]

    def endpoint(request, timeout):
        return io.BytesIO(json.dumps({"choices": [{"message": replies.pop(0)}]}).encode())
    rw, ro = pair
    echo = Echo()
    harness = Harness(ro, rw, allowed=["echo"], tools={"echo": echo})
    result = harness.run("hi", ChatPlanner("http://fake/v1", "m", [], opener=endpoint))
    assert [e["status"] for e in read_events(rw, result.run_id) if e["kind"] == "TOOL"] == [status]
    assert echo.runs == 0 and result.status == "completed"
