"""A memory agent you can run without an LLM: a deterministic, rule-based *stand-in* for the model.

What an LLM would decide (which tool to call, with which arguments, and how to phrase the answer)
is done here by a `RulePlanner`: a few regular expressions, clearly not a language model. Every
thing around it is what a real agent application does, and runs unchanged with a real model
(`llm.planner_from_env()` returns an LLM planner when WORKSHOP_LLM_BASE_URL and WORKSHOP_LLM_MODEL
are set; nothing in CI needs one):

programmatic (the application, every turn)      agent-triggered (the planner chooses tools)
- write the user turn                           - save_knowledge / remember_entity (writes)
- build the context from all memory types       - search_knowledge / lookup_entity /
- retrieve the relevant tools (TOOLBOX_VS)        recall_workflows (reads)
- log every tool call (TOOL_LOG)                - summarise_conversation / expand_summary
- write the assistant turn                      - calculate
- write a workflow after a turn that used tools to answer
- summarise the thread when it grows long (a backstop: the agent may summarise earlier)

Too much of the left column floods every turn's context with memory nobody asked for; too much of the right
one means important state is missed whenever the model forgets to ask. So both exist here.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .context import Context
from .manager import MemoryManager
from .tool_log import output_text
from .tools import Tool, memory_tools

#: Tools that only store what the user said or manage the conversation; a turn that used nothing else is not a
#: workflow.
WRITE_TOOLS = frozenset({"save_knowledge", "remember_entity", "summarise_conversation", "expand_summary"})


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict
    id: str | None = None      # the LLM's tool_call id, when a model made the call


@dataclass(frozen=True)
class ToolResult:
    call: ToolCall
    status: str                # "ok" | "error"
    output: Any


@dataclass(frozen=True)
class Plan:
    calls: list[ToolCall]
    note: str                  # why: which rule fired, or what the model chose


class Planner(Protocol):
    name: str

    def plan(self, message: str, context: Context, tools: Sequence[Tool]) -> Plan: ...

    def respond(self, message: str, context: Context, results: Sequence[ToolResult]) -> str: ...


_REMEMBER = re.compile(r"^\s*(?:please\s+)?remember\s+(?:that\s+)?(?P<fact>.+?)\s*[.!]?\s*$", re.I | re.S)
_ENTITY = re.compile(r"^(?P<name>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)\s+is\s+(?:a|an|our|my|the)\s+"
                     r"(?P<type>[a-z][\w-]*(?:\s+(?!(?:who|that|which|and|with|for|of|in)\b)[a-z][\w-]*)?)")
_ARITHMETIC = re.compile(r"^\s*(?:what\s+is|calculate|compute)\s+(?P<expr>[-+*/%().\d\s]*\d[-+*/%().\d\s]*)\??\s*$",
                         re.I)
_WHO = re.compile(r"^\s*(?i:who|what)\s+(?i:is|was|are)\s+(?P<name>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*)\s*\??\s*$")
_SUMMARISE = re.compile(r"^\s*(?:please\s+)?(?:summari[sz]e|condense)\b", re.I)
_SUMMARY_ID = re.compile(r"summary:[0-9a-f]{16}")
_EXPAND = re.compile(r"\b(?:expand|exactly|word for word|earlier)\b.*\b(?:summary|said|say|wrote|earlier)\b", re.I)
_HOW = re.compile(r"^\s*how\s+(?:do|did|can|could|should|would|to)\b", re.I)
_QUESTION = re.compile(r"\?\s*$|^\s*(?:what|which|why|when|where|who|how|is|are|does|do|can)\b", re.I)


class RulePlanner:
    """Deterministic stand-in for an LLM (no model): regex rules choose tools; templates answer.

    Like a model, it can only call tools it was offered this turn; a rule whose tool was not
    offered is skipped and the Plan's note says so.
    """

    name = "rule-based stand-in (no LLM)"

    def wanted(self, message: str, context: Context | None = None) -> tuple[str, list[ToolCall]]:
        """The rule that fires for `message` and the calls it wants, before the offered-tools check."""
        if _SUMMARISE.match(message):
            return "summarise the conversation", [ToolCall("summarise_conversation", {})]
        summary_ids = _SUMMARY_ID.findall(message) or (_SUMMARY_ID.findall(context.text) if context else [])
        if _EXPAND.search(message) and summary_ids:
            return "expand a summary", [ToolCall("expand_summary", {"summary_id": summary_ids[0]})]
        remember = _REMEMBER.match(message)
        if remember:
            fact = " ".join(remember["fact"].split())
            entity = _ENTITY.match(fact)
            if entity:
                return "remember an entity", [ToolCall("remember_entity", {
                    "name": entity["name"], "entity_type": entity["type"].lower(), "description": fact})]
            return "remember a fact", [ToolCall("save_knowledge", {"text": fact, "source": "user"})]
        arithmetic = _ARITHMETIC.match(message)
        if arithmetic:
            return "arithmetic", [ToolCall("calculate", {"expression": arithmetic["expr"].strip()})]
        who = _WHO.match(message)
        if who:
            return "who/what is <Name>", [ToolCall("lookup_entity", {"name": who["name"]}),
                                          ToolCall("search_knowledge", {"query": message.strip()})]
        if _HOW.match(message):
            return "how do I ...", [ToolCall("recall_workflows", {"task": message.strip()}),
                                    ToolCall("search_knowledge", {"query": message.strip()})]
        if _QUESTION.search(message):
            return "question", [ToolCall("search_knowledge", {"query": message.strip()})]
        return "statement (no rule)", []

    def plan(self, message: str, context: Context, tools: Sequence[Tool]) -> Plan:
        rule, calls = self.wanted(message, context)
        offered = {tool.name for tool in tools}
        kept = [call for call in calls if call.name in offered]
        skipped = [call.name for call in calls if call.name not in offered]
        note = f"rule: {rule}" + (f"; not offered this turn, so not called: {', '.join(skipped)}" if skipped else "")
        return Plan(kept, note)

    def respond(self, message: str, context: Context, results: Sequence[ToolResult]) -> str:
        if not results:
            return "Noted. (I had no tool to call for that.)"
        parts: list[str] = []
        found: list[str] = []
        searched = False
        for result in results:
            call = result.call
            if result.status != "ok":
                parts.append(f"The {call.name} tool failed: {result.output}")
            elif call.name == "save_knowledge":
                parts.append(f"Noted: I will remember that {call.arguments['text']}.")
            elif call.name == "remember_entity":
                parts.append(f"Noted: I will remember {call.arguments['name']} ({call.arguments['entity_type']}).")
            elif call.name == "calculate":
                parts.append(f"{call.arguments['expression']} = {result.output}")
            elif call.name == "summarise_conversation":
                output = result.output or {}
                parts.append(f"Summarised {output.get('turns', 0)} earlier turns as {output.get('summary_id')}."
                             if output.get("summary_id") else "There was nothing old enough to summarise yet.")
            elif call.name == "expand_summary":
                parts.append("Earlier, word for word: " + " | ".join(" ".join(t.split()) for t in result.output[:4])
                             if result.output else f"I found no turns for {call.arguments['summary_id']}.")
            else:
                searched = True
                found += [text for text in result.output if text not in found]
        if searched:
            parts.append("From memory: " + " | ".join(" ".join(t.split()) for t in found[:3]) if found else
                         "I have nothing in memory about that yet.")
        return " ".join(parts)


@dataclass
class AgentTurn:
    thread_id: str
    message: str
    planner: str
    offered: list[str]
    note: str
    results: list[ToolResult]
    answer: str
    context: Context
    workflow_id: str | None = None
    summary_id: str | None = None
    turn_ids: list[int] = field(default_factory=list)

    def calls_frame(self):
        """The tool calls of this turn as a pandas DataFrame."""
        import pandas as pd
        return pd.DataFrame([{"tool": r.call.name, "arguments": json.dumps(r.call.arguments, ensure_ascii=False),
                              "status": r.status, "output": output_text(r.output)} for r in self.results],
                            columns=["tool", "arguments", "status", "output"])


class MemoryAgent:
    """Runs turns: programmatic memory around the planner's (agent-triggered) tool calls."""

    def __init__(self, memory: MemoryManager, planner: Planner | None = None, *, tools: Sequence[Tool] | None = None,
                 tools_per_turn: int = 3, context_budget: int = 1200, summarise_after: int = 8, keep_last: int = 4):
        self.memory = memory
        self.planner = planner or RulePlanner()
        self.tools = {tool.name: tool for tool in (tools if tools is not None else memory_tools(memory))}
        self.tools_per_turn = tools_per_turn
        self.context_budget = context_budget
        self.summarise_after = summarise_after
        self.keep_last = keep_last

    def register_tools(self) -> list[str]:
        """Write every tool's description to TOOLBOX_VS (programmatic, at start-up; upserts)."""
        return [self.memory.write_toolbox(t.name, t.description, t.parameters) for t in self.tools.values()]

    def offered_tools(self, message: str) -> list[Tool]:
        """Tool retrieval: the registered tools nearest to the message (unknown names are ignored)."""
        found = self.memory.read_toolbox(message, k=self.tools_per_turn)
        return [self.tools[r["metadata"]["name"]] for r in found if r["metadata"].get("name") in self.tools]

    def run(self, thread_id: str, message: str) -> AgentTurn:
        memory = self.memory
        user_turn = memory.write_conversation(thread_id, "user", message)
        context = memory.build_context(message, thread_id, self.context_budget, k=self.tools_per_turn)
        offered = self.offered_tools(message)
        plan = self.planner.plan(message, context, offered)
        results = [self._call(thread_id, call, offered) for call in plan.calls]
        answer = self.planner.respond(message, context, results)
        assistant_turn = memory.write_conversation(thread_id, "assistant", answer,
                                                   {"planner": self.planner.name,
                                                    "tools": [r.call.name for r in results]})
        turn = AgentTurn(thread_id, message, self.planner.name, [t.name for t in offered], plan.note, results,
                         answer, context, turn_ids=[user_turn, assistant_turn])
        if any(r.call.name not in WRITE_TOOLS for r in results):
            steps = [f"{r.call.name}({json.dumps(r.call.arguments, ensure_ascii=False)}) -> {r.status}"
                     for r in results]
            turn.workflow_id = memory.write_workflow(message, steps, answer,
                                                     success=all(r.status == "ok" for r in results))
        if len(memory.read_conversation(thread_id, self.summarise_after + 1, include_summarised=False)) \
                > self.summarise_after:
            turn.summary_id = memory.summarise_thread(thread_id, keep_last=self.keep_last)
        return turn

    def _call(self, thread_id: str, call: ToolCall, offered: Sequence[Tool]) -> ToolResult:
        """Run one tool call and log it, success or failure (a model may ask for a tool it was not offered)."""
        tool = self.tools.get(call.name)
        try:
            if tool is None or tool not in offered:
                raise LookupError(f"tool {call.name!r} was not offered this turn")
            result = ToolResult(call, "ok", tool.invoke(call.arguments, thread_id))
        except Exception as exc:  # noqa: BLE001 - a failing tool is reported to the model and logged, not fatal
            result = ToolResult(call, "error", f"{type(exc).__name__}: {exc}")
        self.memory.write_tool_log(thread_id, call.name, call.arguments, result.output, result.status)
        return result
