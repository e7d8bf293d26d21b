"""The seed's controlled functional evaluation of hybrid memory search: five deliberately similar memories,
five queries, and the rank of the expected memory (1 is a PASS). Not a statistical benchmark.

A sixth and seventh memory sit under ANOTHER user with the target's very words, so a search that ignores the
scope would rank them; the same query under another user must return none of the five.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

USER_ID = "finance_user_123"
AGENT_ID = "support_finance_agent"
OTHER_USER = "finance_user_999"

#: key -> text (the seed's five: target, neighbour invoice, another customer, the error reference, an alias).
MEMORIES: dict[str, str] = {
    "renewal_blocker": "Northstar Renewals renewal is blocked: invoice INV-48291 failed reconciliation after "
                       "ORA-27102 during month-end processing.",
    "neighbour_invoice": "Northstar Renewals invoice INV-48290 was paid on time and needs no follow-up.",
    "milan_renewal": "Milan Office Supplies renewal is delayed by their internal approval workflow, not by "
                     "reconciliation.",
    "error_reference": "ORA-27102 means out of memory: the instance could not allocate shared memory; check "
                       "SGA_TARGET and the kernel limits before restarting.",
    "alias": "Northstar Renewals is the trading name of the enterprise account Northstar Holdings Group.",
}
#: The scope trap: the target's words under another user (never returned for USER_ID).
OTHER_USER_MEMORIES: dict[str, str] = {
    "other_blocker": "Northstar Renewals renewal is blocked: invoice INV-48291 failed reconciliation after "
                     "ORA-27102 during month-end processing (copy held for another user).",
    "other_error": "ORA-27102 out of memory reference for another user.",
}

#: (query type, query, expected memory key)
QUERIES: list[tuple[str, str, str]] = [
    ("exact invoice id", "INV-48291", "renewal_blocker"),
    ("exact error code", "ORA-27102", "error_reference"),
    ("semantic renewal question", "What blocked the Northstar renewal?", "renewal_blocker"),
    ("semantic customer question", "Why is the Milan renewal delayed?", "milan_renewal"),
    ("mixed customer + invoice", "Which Northstar invoice failed reconciliation?", "renewal_blocker"),
]


def memory_records() -> list[dict]:
    """The evaluation's records for `store.add_memories` (extraction disabled: inserted directly)."""
    rows = [{"content": text, "record_type": "memory", "user_id": USER_ID, "agent_id": AGENT_ID,
             "metadata": {"key": key, "tenant": "finance"}} for key, text in MEMORIES.items()]
    rows += [{"content": text, "record_type": "memory", "user_id": OTHER_USER, "agent_id": AGENT_ID,
              "metadata": {"key": key, "tenant": "finance"}} for key, text in OTHER_USER_MEMORIES.items()]
    return rows


def rank_of(results: Sequence[dict], expected_text: str) -> int | None:
    """1-based rank of the expected memory in a result list (by content), None when absent."""
    for position, row in enumerate(results, start=1):
        content = row.get("content")
        content = content.read() if hasattr(content, "read") else content
        if content == expected_text:
            return position
    return None


def evaluate(searches: dict[str, Callable[[str], Sequence[dict]]]) -> pd.DataFrame:
    """One row per query: the expected memory's rank under each search (name -> function of the query)."""
    rows = []
    for kind, query, key in QUERIES:
        row = {"query type": kind, "query": query, "expected": key}
        for name, search in searches.items():
            rank = rank_of(search(query), MEMORIES[key])
            row[f"{name} rank"] = rank if rank is not None else "-"
            row[f"{name}"] = "PASS" if rank == 1 else "FAIL"
        rows.append(row)
    return pd.DataFrame(rows)
