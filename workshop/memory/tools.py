"""The tools the agent may call: seven memory tools and one ordinary tool (a calculator).

The *agent* decides to call these (agent-triggered memory operations); the application
registers their descriptions in TOOLBOX_VS so that each turn offers only the nearest few.
"""
from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .manager import MemoryManager


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict                   # {"arg": {"type": "string", "description": "..."}}; all required
    function: Callable[..., Any] = field(repr=False)
    memory: str | None = None          # the memory type it reads or writes, None for other tools
    thread_scoped: bool = False        # the application passes the current thread_id (the model never names it)

    def schema(self) -> dict:
        """The OpenAI-style function schema an LLM is given."""
        return {"type": "function", "function": {
            "name": self.name, "description": self.description,
            "parameters": {"type": "object", "properties": self.parameters, "required": list(self.parameters)}}}

    def __call__(self, **arguments: Any) -> Any:
        unknown = set(arguments) - set(self.parameters)
        missing = set(self.parameters) - set(arguments)
        if unknown or missing:
            raise TypeError(f"{self.name}: unknown arguments {sorted(unknown)}, missing {sorted(missing)}")
        return self.function(**arguments)

    def invoke(self, arguments: dict, thread_id: str) -> Any:
        """Call the tool with the model's arguments (checked) plus, for a thread-scoped tool, the thread."""
        if not self.thread_scoped:
            return self(**arguments)
        unknown = set(arguments) - set(self.parameters)
        missing = set(self.parameters) - set(arguments)
        if unknown or missing:
            raise TypeError(f"{self.name}: unknown arguments {sorted(unknown)}, missing {sorted(missing)}")
        return self.function(thread_id=thread_id, **arguments)


#: Cosine distance above which a memory is not returned by the read tools: the nearest record is not
#: necessarily a relevant one, and an unrelated memory in an answer misleads. Chosen on the notebook's
#: data with all-MiniLM-L6-v2: relevant records lie below about 0.7, unrelated ones near 0.9.
MAX_TOOL_DISTANCE = 0.7


def _relevant(records: list[dict]) -> list[str]:
    return [r["text"] for r in records if r["distance"] <= MAX_TOOL_DISTANCE]


def _string(description: str) -> dict:
    return {"type": "string", "description": description}


def memory_tools(memory: "MemoryManager") -> list[Tool]:
    """The agent-facing memory tools, bound to one MemoryManager."""
    def save_knowledge(text: str, source: str) -> dict:
        return {"saved": memory.write_knowledge(text, {"source": source})}

    def remember_entity(name: str, entity_type: str, description: str) -> dict:
        return {"saved": memory.write_entity(name, entity_type, description, {"source": "conversation"})}

    def search_knowledge(query: str) -> list[str]:
        return _relevant(memory.read_knowledge(query, k=2))

    def lookup_entity(name: str) -> list[str]:
        return _relevant(memory.read_entity(name, k=2))

    def recall_workflows(task: str) -> list[str]:
        return _relevant(memory.read_workflows(task, k=1))

    def summarise_conversation(thread_id: str) -> dict:
        summary_id = memory.summarise_thread(thread_id, keep_last=2)
        return {"summary_id": summary_id,
                "turns": len(memory.expand_summary(summary_id)) if summary_id else 0}

    def expand_summary(summary_id: str) -> list[str]:
        return [f"{t['role']}: {t['content']}" for t in memory.expand_summary(summary_id)]

    return [
        Tool("save_knowledge", "Remember a fact, date or preference for later conversations. Use when the user says "
             "'remember that ...' about something that is not a named person or project, e.g. 'remember that the "
             "demo is on Friday'.",
             {"text": _string("the fact, as one sentence"), "source": _string("who said it, e.g. 'user'")},
             save_knowledge, "knowledge base"),
        Tool("remember_entity", "Remember who or what a named person, project or product is. Use when the user says "
             "'remember that <Name> is a ...', e.g. 'remember that Ada Lovelace is a mathematician'.",
             {"name": _string("the entity's name"), "entity_type": _string("person, project, product ..."),
              "description": _string("what the user said about it")},
             remember_entity, "entity"),
        Tool("search_knowledge", "Answer a question from the knowledge base: what, when, which or why questions about "
             "facts, documents, dates and preferences, e.g. 'when is the demo?', 'what does RRF do?'.",
             {"query": _string("the question")}, search_knowledge, "knowledge base"),
        Tool("lookup_entity", "Look up who a person is or what a named project or product is, e.g. "
             "'who is Grace Hopper?'.",
             {"name": _string("the name to look up")}, lookup_entity, "entity"),
        Tool("recall_workflows", "Recall how to do a task: the steps that worked before, for 'how do I ...' or "
             "'how can I ...' questions, e.g. 'how do I tune an index?'.",
             {"task": _string("the task to do")}, recall_workflows, "workflow"),
        Tool("summarise_conversation", "Summarise this conversation so far: condense the older turns into one "
             "summary, e.g. when the user says 'summarise our conversation' or the talk changes topic.",
             {}, summarise_conversation, "summary", thread_scoped=True),
        Tool("expand_summary", "Expand a summary back into the exact earlier turns it replaced, when a detail of the "
             "earlier conversation is needed, e.g. 'what exactly did I say earlier?' (needs the summary id).",
             {"summary_id": _string("the id of the summary, e.g. summary:0123abcd...")}, expand_summary, "summary"),
        Tool("calculate", "Calculate arithmetic with numbers, e.g. 'what is 12 * (3 + 4)?'.",
             {"expression": _string("the arithmetic expression")}, calculate, None),
    ]


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
              ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
              ast.USub: operator.neg, ast.UAdd: operator.pos}
MAX_EXPRESSION_CHARS = 200
MAX_EXPONENT = 100


def calculate(expression: str) -> float | int:
    """Evaluate + - * / // % ** and parentheses over numbers; anything else raises ValueError."""
    if not isinstance(expression, str) or not expression.strip():
        raise ValueError("expression must be a non-empty string")
    if len(expression) > MAX_EXPRESSION_CHARS:
        raise ValueError(f"expression is longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not an arithmetic expression: {expression!r}") from exc
    return _evaluate(tree.body)


def _evaluate(node: ast.AST) -> float | int:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ValueError(f"exponent {right} is larger than {MAX_EXPONENT}")
        try:
            return _OPERATORS[type(node.op)](left, right)
        except ZeroDivisionError as exc:
            raise ValueError("division by zero") from exc
    raise ValueError(f"unsupported in an arithmetic expression: {type(node).__name__}")
