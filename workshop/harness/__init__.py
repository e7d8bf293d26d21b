"""The harness around the agent (part 07): what the model may do, where it lands, and what counts as done.

"The model proposes, the harness authorises, the environment acts, and a verifier decides whether any of it
counted." One module per piece:

* toolset: the fail-closed tool allowlist (start-up check and per-call refusal);
* guard: the read-only SQL tool's statement guard (sqlglot) and its bound row cap;
* reports: governed report tools over the FINANCE schema (typed inputs, fixed SQL, binds);
* budget: tool-call, token and rounds budgets (`budgeted_call`);
* runlog: the run record in the database (ordered events, redacted inputs and outputs);
* verifier: reads authoritative state back before a claim counts;
* identity: the caller's tenant carried into the session (trusted context package, RLS);
* approvals: a human's approval, bound to the exact call and consumed once, before a consequential write;
* runner: the loop that ties them together around a pluggable planner;
* memory, graph: part 03's memory and part 05's retriever behind the LangGraph graph's context-assembly and
  write-back nodes, its state in the database (OracleSaver);
* scenario: the agent-level evaluation; chat: the optional OpenAI-compatible planner; mcp_server: the
  memory tools over MCP (optional).
"""
from __future__ import annotations

from .budget import Budget, BudgetExhausted, budgeted_call
from .guard import DEFAULT_MAX_ROWS, GuardRefused, guard_select, run_readonly_query
from .reports import REPORTS, ReportTool, report_tools
from .runlog import create_run_tables, read_events, redact
from .toolset import ToolsetMismatch, check_toolset

__all__ = ["Budget", "BudgetExhausted", "budgeted_call", "DEFAULT_MAX_ROWS", "GuardRefused", "REPORTS", "ReportTool",
           "ToolsetMismatch", "check_toolset", "create_run_tables", "guard_select", "read_events", "redact",
           "report_tools", "run_readonly_query"]
