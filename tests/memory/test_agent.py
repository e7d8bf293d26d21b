"""The memory agent with its deterministic stand-in planner, the calculator tool, and the optional
OpenAI-compatible LLM hook (exercised against a local fake server, never a real model)."""
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from tests.memory.memory_db import memory, memory_conn, memory_db, memory_template  # noqa: F401
from workshop.memory import (MemoryAgent, OpenAICompatiblePlanner, RulePlanner, ToolCall, assemble_context, calculate,
                             memory_tools, planner_from_env)
from workshop.memory.agent import Plan


@pytest.mark.parametrize("expression, value", [("12 * (3 + 4)", 84), ("2 ** 10", 1024), ("-3 + 7 / 2", 0.5),
                                               ("17 // 5 % 3", 0), ("1.5 * 4", 6.0)])
def test_calculate(expression, value):
    assert calculate(expression) == value


@pytest.mark.parametrize("expression", ["__import__('os').system('echo hi')", "x + 1", "2 ** 1000", "1 / 0",
                                        "(1).real", "[1, 2]", "", "1 +", "True + 1", "1" * 300])
def test_calculate_refuses_everything_else(expression):
    with pytest.raises(ValueError):
        calculate(expression)


@pytest.mark.parametrize("message, rule, calls", [
    ("Remember that Grace Hopper is a computer scientist who wrote the first compiler.", "remember an entity",
     [("remember_entity", {"name": "Grace Hopper", "entity_type": "computer scientist",
                           "description": "Grace Hopper is a computer scientist who wrote the first compiler"})]),
    ("please remember the demo is on Friday!", "remember a fact",
     [("save_knowledge", {"text": "the demo is on Friday", "source": "user"})]),
    ("What is 12 * (3 + 4)?", "arithmetic", [("calculate", {"expression": "12 * (3 + 4)"})]),
    ("Who is Grace Hopper?", "who/what is <Name>",
     [("lookup_entity", {"name": "Grace Hopper"}), ("search_knowledge", {"query": "Who is Grace Hopper?"})]),
    ("How do I tune an HNSW index?", "how do I ...",
     [("recall_workflows", {"task": "How do I tune an HNSW index?"}),
      ("search_knowledge", {"query": "How do I tune an HNSW index?"})]),
    ("When is the demo?", "question", [("search_knowledge", {"query": "When is the demo?"})]),
    ("Thanks!", "statement (no rule)", []),
])
def test_rules(message, rule, calls):
    fired, wanted = RulePlanner().wanted(message)
    assert fired == rule and [(c.name, c.arguments) for c in wanted] == calls


def test_the_planner_only_calls_offered_tools(memory):
    tools = {t.name: t for t in memory_tools(memory)}
    context = assemble_context({}, 100)
    plan = RulePlanner().plan("Who is Grace Hopper?", context, [tools["lookup_entity"], tools["calculate"]])
    assert [c.name for c in plan.calls] == ["lookup_entity"]
    assert plan.note == "rule: who/what is <Name>; not offered this turn, so not called: search_knowledge"


@pytest.fixture
def agent(memory):
    agent = MemoryAgent(memory, summarise_after=6, keep_last=2)
    agent.register_tools()
    return agent


def test_a_conversation_writes_every_memory_type_deterministically(agent, memory):
    turn = agent.run("demo", "Remember that Grace Hopper is a computer scientist who wrote the first compiler.")
    assert turn.planner == "rule-based stand-in (no LLM)"
    assert "remember_entity" in turn.offered and [r.status for r in turn.results] == ["ok"]
    assert turn.answer == "Noted: I will remember Grace Hopper (computer scientist)."
    assert turn.workflow_id is None                     # a pure write is not a workflow
    [entity] = memory.read_entity("Grace Hopper", k=1)
    assert entity["metadata"] == {"name": "Grace Hopper", "type": "computer scientist", "source": "conversation"}

    agent.run("demo", "Remember that our team prefers COSINE distance for text embeddings.")
    asked = agent.run("demo", "Which distance does the team prefer?")
    assert asked.answer.startswith("From memory: our team prefers COSINE distance for text embeddings")
    assert asked.workflow_id is not None
    [workflow] = memory.read_workflows("Which distance does the team prefer?", k=1)
    assert workflow["metadata"]["num_steps"] == 1 and workflow["metadata"]["success"] is True

    who = agent.run("demo", "Who is Grace Hopper?")
    assert [r.call.name for r in who.results] == ["lookup_entity"]
    assert "not called: search_knowledge" in who.note
    assert who.answer == ("From memory: Grace Hopper (computer scientist): Grace Hopper is a computer scientist "
                          "who wrote the first compiler")

    log = memory.read_tool_log("demo")
    assert [r["tool_name"] for r in log] == ["remember_entity", "save_knowledge", "search_knowledge", "lookup_entity"]
    assert all(r["status"] == "ok" for r in log)
    turns = memory.read_conversation("demo", limit=50)
    assert [t["role"] for t in turns] == ["user", "assistant"] * 4
    assert turns[-1]["metadata"] == {"planner": "rule-based stand-in (no LLM)", "tools": ["lookup_entity"]}
    assert who.summary_id is not None                   # 8 unsummarised turns > summarise_after=6
    assert len(memory.read_conversation("demo", 50, include_summarised=False)) == 2
    assert memory.read_summary("Grace Hopper", thread_id="demo")[0]["metadata"]["num_messages"] == 6


def test_a_failing_tool_is_logged_and_the_workflow_marked_failed(agent, memory):
    turn = agent.run("calc", "What is 1 / 0?")
    assert [(r.call.name, r.status) for r in turn.results] == [("calculate", "error")]
    assert turn.answer == "The calculate tool failed: ValueError: division by zero"
    assert memory.read_tool_log("calc")[0]["status"] == "error"
    assert memory.read_workflows("What is 1 / 0?", k=5) == []
    assert memory.read_workflows("What is 1 / 0?", k=5, successful_only=False)[0]["metadata"]["success"] is False


class _Scripted:
    """A planner double that asks for a tool it was not offered and for bad arguments."""
    name = "scripted"

    def plan(self, message, context, tools):
        return Plan([ToolCall("calculate", {"expression": "1 + 1", "extra": 1}), ToolCall("drop_tables", {})], "")

    def respond(self, message, context, results):
        return "; ".join(r.status for r in results)


def test_bad_calls_from_a_model_become_logged_errors(memory):
    agent = MemoryAgent(memory, _Scripted(), tools_per_turn=6)
    agent.register_tools()
    turn = agent.run("t", "What is 1 + 1?")
    assert turn.answer == "error; error"
    assert [r["output"] for r in memory.read_tool_log("t")] == [
        "TypeError: calculate: unknown arguments ['extra'], missing []",
        "LookupError: tool 'drop_tables' was not offered this turn"]


class _FakeChatCompletions(BaseHTTPRequestHandler):
    requests: list = []

    def do_POST(self):  # noqa: N802 - http.server's name
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append((self.path, self.headers.get("Authorization"), body))
        if body.get("tools"):
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "calculate", "arguments": json.dumps({"expression": "6 * 7"})}}]}
        else:
            message = {"role": "assistant", "content": f"The answer is {body['messages'][-1]['content']}."}
        payload = json.dumps({"choices": [{"message": message}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_llm():
    _FakeChatCompletions.requests = []
    server = HTTPServer(("127.0.0.1", 0), _FakeChatCompletions)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}/v1", _FakeChatCompletions.requests
    server.shutdown()
    server.server_close()


def test_the_llm_hook_speaks_openai_chat_completions(memory, fake_llm):
    base_url, requests = fake_llm
    planner = planner_from_env({"WORKSHOP_LLM_BASE_URL": base_url + "/", "WORKSHOP_LLM_MODEL": "fake-model",
                                "WORKSHOP_LLM_API_KEY": "k-123"})
    assert isinstance(planner, OpenAICompatiblePlanner)
    agent = MemoryAgent(memory, planner)
    agent.register_tools()
    turn = agent.run("llm", "What is 6 * 7?")
    assert [(r.call.name, r.call.id, r.output) for r in turn.results] == [("calculate", "call_1", 42)]
    assert turn.answer == "The answer is 42."
    (path1, auth1, first), (path2, _, second) = requests
    assert path1 == path2 == "/v1/chat/completions" and auth1 == "Bearer k-123"
    assert first["model"] == "fake-model" and "calculate" in [t["function"]["name"] for t in first["tools"]]
    assert first["messages"][0]["content"].endswith(turn.context.text)
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "call_1", "content": "42"}
    assert memory.read_tool_log("llm")[0]["tool_name"] == "calculate"


def test_without_settings_the_stand_in_runs():
    assert isinstance(planner_from_env({}), RulePlanner)
    assert isinstance(planner_from_env({"WORKSHOP_LLM_MODEL": "m"}), RulePlanner)


def test_unrelated_memories_are_not_offered_as_answers(agent, memory):
    memory.write_knowledge("Reciprocal rank fusion adds 1 / (60 + rank) over the rankings.", {"source": "docs"})
    turn = agent.run("t", "When is the demo?")
    assert [r.call.name for r in turn.results] == ["search_knowledge"]
    assert turn.results[0].output == [] and turn.answer == "I have nothing in memory about that yet."
    memory.write_knowledge("The demo is on Friday at 10:00.", {"source": "user"})
    assert agent.run("t", "When is the demo?").answer == "From memory: The demo is on Friday at 10:00."


def test_summarising_and_expanding_are_agent_tools(memory):
    """The agent can summarise its own thread (thread-scoped: the application passes the thread) and expand a
    summary back into the exact turns it replaced, in order."""
    agent = MemoryAgent(memory, tools_per_turn=8, summarise_after=100)
    agent.register_tools()
    for text in ("My budget is 1200 euros.", "The deadline is the 14th.", "I prefer the blue design."):
        agent.run("dora", text)
    turn = agent.run("dora", "Summarise our conversation so far.")
    assert [r.call.name for r in turn.results] == ["summarise_conversation"] and turn.results[0].status == "ok"
    summary_id = turn.results[0].output["summary_id"]
    replaced = memory.expand_summary(summary_id)
    assert replaced[0]["content"] == "My budget is 1200 euros." and all(t["summary_id"] == summary_id for t in replaced)
    assert [t["id"] for t in replaced] == sorted(t["id"] for t in replaced)
    expanded = agent.run("dora", f"What exactly did I say earlier in {summary_id}?")
    assert [r.call.name for r in expanded.results] == ["expand_summary"]
    assert "My budget is 1200 euros." in expanded.answer
    assert expanded.workflow_id is None      # conversation management is not a workflow worth recalling


def test_the_summarise_rule_and_the_expand_rule():
    assert RulePlanner().wanted("Please summarize the conversation")[0] == "summarise the conversation"
    context = assemble_context({"summary": ["Summary of 4 turns [summary:0123456789abcdef]"]}, 200)
    rule, calls = RulePlanner().wanted("What exactly did we say earlier?", context)
    assert rule == "expand a summary" and calls[0].arguments == {"summary_id": "summary:0123456789abcdef"}
    assert RulePlanner().wanted("What exactly did we say earlier?")[0] != "expand a summary"   # no id, no call
