"""Budgets that end a run instead of letting it loop: tool calls (the refunds harness stops at ten), estimated
tokens of tool output fed back to the planner, and planning rounds."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from workshop.memory.tokens import estimate_tokens

DEFAULT_MAX_TOOL_CALLS = 10


class BudgetExhausted(RuntimeError):
    """A budget ran out; `.which` is 'tool_calls', 'tokens', 'rounds' or 'refused_calls'."""

    def __init__(self, which: str, message: str):
        super().__init__(message)
        self.which = which


@dataclass
class Budget:
    max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS
    max_tokens: int = 20000
    max_rounds: int = 6
    #: proposals the harness refused without running them (no tool name, not on the allowlist, bad arguments):
    #: they cost no tool call, but a planner that proposes thousands of them in one round must still stop.
    max_refused_calls: int = 2 * DEFAULT_MAX_TOOL_CALLS
    tool_calls: int = field(default=0, init=False)
    tokens: int = field(default=0, init=False)
    rounds: int = field(default=0, init=False)
    refused_calls: int = field(default=0, init=False)

    def start_round(self) -> None:
        if self.rounds >= self.max_rounds:
            raise BudgetExhausted("rounds", f"rounds budget of {self.max_rounds} exhausted")
        self.rounds += 1

    def charge_call(self) -> None:
        """Call before a tool runs: the call that would exceed the cap never runs."""
        if self.tool_calls >= self.max_tool_calls:
            raise BudgetExhausted("tool_calls", f"tool-call cap of {self.max_tool_calls} reached")
        self.tool_calls += 1

    def charge_refusal(self) -> None:
        """Count one refused proposal; the one past the limit ends the run."""
        if self.refused_calls >= self.max_refused_calls:
            raise BudgetExhausted("refused_calls", f"{self.max_refused_calls} refused calls: the planner keeps "
                                                   "proposing calls the harness cannot run")
        self.refused_calls += 1

    def admit_text(self, text: str) -> str:
        """Admit tool output into the planner's context only if it fits the token budget."""
        cost = estimate_tokens(text)
        if self.tokens + cost > self.max_tokens:
            raise BudgetExhausted("tokens", f"token budget of {self.max_tokens} would be exceeded "
                                            f"({self.tokens} used, {cost} more)")
        self.tokens += cost
        return text


def budgeted_call(budget: Budget, tool: Callable[..., Any], arguments: dict) -> Any:
    """Run one tool call inside the run's budget: the cap is checked *before* the tool runs (the call that would
    exceed it never runs), the tokens of its output after (output that would overflow is never admitted)."""
    budget.charge_call()
    output = tool(**arguments)
    budget.admit_text(str(output))
    return output
