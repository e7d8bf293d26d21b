"""`retrieval_result` records: which chunks a retrieval returned, in order, for later labelling.

Seed 003 calls conversation memory "the flight recorder". Besides the tool call itself, the agent
writes one TOOL_LOG row with tool_name = 'retrieval_result' per retrieval, whose JSON arguments
hold the user turn it answered, the question, the tenant and the candidate ids in rank order.
Part 06's harvest query joins these rows back to CONVERSATION_MEMORY.

A tool opts in by returning `Retrieved` (a list of its usual output that also carries the ids).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import oracledb

from .tool_log import write_tool_log

RETRIEVAL_RESULT = "retrieval_result"


class Retrieved(list):
    """A tool's output (a list) that also names the chunk ids it came from, best first."""

    def __init__(self, items: Sequence[Any], candidate_ids: Sequence[str], tenant: str | None = None):
        super().__init__(items)
        if isinstance(candidate_ids, str) or not all(isinstance(i, str) for i in candidate_ids):
            raise TypeError("candidate_ids must be a list of id strings")
        self.candidate_ids = list(candidate_ids)
        self.tenant = tenant


def write_retrieval_result(conn: oracledb.Connection, thread_id: str, turn_id: int, question: str,
                           candidate_ids: Sequence[str], *, tool: str, tenant: str | None = None,
                           commit: bool = True) -> int:
    """Log one retrieval's candidates (in rank order) against the user turn it served; the new TOOL_LOG id."""
    arguments = {"turn_id": int(turn_id), "question": question, "tool": tool, "tenant": tenant,
                 "candidates": list(candidate_ids)}
    return write_tool_log(conn, thread_id, RETRIEVAL_RESULT, arguments, None, commit=commit)
