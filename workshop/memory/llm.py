"""The optional real-LLM hook: a planner that asks an OpenAI-compatible chat-completions endpoint.

Off by default. It is used only when both WORKSHOP_LLM_BASE_URL (e.g. https://api.openai.com/v1,
or a local server such as Ollama's http://localhost:11434/v1) and WORKSHOP_LLM_MODEL are set;
WORKSHOP_LLM_API_KEY is sent as a bearer token when set. Nothing in the tests or CI needs it:
without those variables `planner_from_env()` returns the deterministic RulePlanner.
Standard library only (urllib), so no SDK is required.
"""
from __future__ import annotations

import json
import os
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any

from .agent import Plan, Planner, RulePlanner, ToolCall, ToolResult
from .context import Context
from .tool_log import output_text
from .tools import Tool

SYSTEM_PROMPT = ("You are an assistant with long-term memory stored in Oracle AI Database. Use the tools to save "
                 "what the user asks you to remember and to look things up; answer briefly.\n\n"
                 "Memory context for this turn:\n")


class LLMError(RuntimeError):
    """The endpoint answered with something that is not a chat completion."""


class OpenAICompatiblePlanner:
    """Planner backed by a real model through POST {base_url}/chat/completions with `tools`."""

    def __init__(self, base_url: str, model: str, api_key: str | None = None, *, timeout: float = 60.0,
                 opener: Callable[..., Any] = urllib.request.urlopen):
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self._open = opener
        self.name = f"LLM {model} via {self.base_url}"
        self._exchange: list[dict] = []
        self._direct_answer: str | None = None

    def _post(self, messages: list[dict], tools: Sequence[Tool] = ()) -> dict:
        payload: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": 0}
        if tools:
            payload["tools"] = [tool.schema() for tool in tools]
            payload["tool_choice"] = "auto"
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(f"{self.base_url}/chat/completions", json.dumps(payload).encode("utf-8"),
                                         headers, method="POST")
        with self._open(request, timeout=self.timeout) as response:
            body = json.loads(response.read().decode("utf-8"))
        try:
            return body["choices"][0]["message"]
        except (KeyError, IndexError, TypeError) as exc:
            raise LLMError(f"not a chat completion: {str(body)[:200]}") from exc

    def plan(self, message: str, context: Context, tools: Sequence[Tool]) -> Plan:
        self._exchange = [{"role": "system", "content": SYSTEM_PROMPT + context.text},
                          {"role": "user", "content": message}]
        reply = self._post(self._exchange, tools)
        calls = []
        for item in reply.get("tool_calls") or []:
            function = item.get("function", {})
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except json.JSONDecodeError as exc:
                raise LLMError(f"tool call arguments are not JSON: {function.get('arguments')!r}") from exc
            calls.append(ToolCall(function.get("name", ""), arguments, item.get("id")))
        self._exchange.append({"role": "assistant", "content": reply.get("content"),
                               **({"tool_calls": reply["tool_calls"]} if reply.get("tool_calls") else {})})
        self._direct_answer = reply.get("content") if not calls else None
        return Plan(calls, f"{self.model} chose: {', '.join(c.name for c in calls) or 'no tool'}")

    def respond(self, message: str, context: Context, results: Sequence[ToolResult]) -> str:
        if not results and self._direct_answer:
            return self._direct_answer
        messages = list(self._exchange)
        for result in results:
            messages.append({"role": "tool", "tool_call_id": result.call.id or result.call.name,
                             "content": output_text(result.output) or ""})
        content = self._post(messages).get("content")
        if not content:
            raise LLMError("the model returned no answer text")
        return content


def planner_from_env(environ: dict | None = None) -> Planner:
    """The LLM planner when WORKSHOP_LLM_BASE_URL and WORKSHOP_LLM_MODEL are set, else the RulePlanner."""
    env = os.environ if environ is None else environ
    base_url, model = env.get("WORKSHOP_LLM_BASE_URL"), env.get("WORKSHOP_LLM_MODEL")
    if base_url and model:
        return OpenAICompatiblePlanner(base_url, model, env.get("WORKSHOP_LLM_API_KEY") or None)
    return RulePlanner()
