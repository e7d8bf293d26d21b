"""Workflow memory (WORKFLOW_VS): how earlier tasks were solved, so a similar task can reuse the steps.

The metadata is computed, never typed in: num_steps from the steps, success as a JSON boolean,
timestamp as ISO 8601 in UTC. Reads keep only successful workflows by default: a failed attempt
is worth keeping for analysis, not worth imitating.
"""
from __future__ import annotations

import array
from collections.abc import Sequence
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Iterator

import oracledb
from langchain_oracledb import OracleVS
from langchain_oracledb.vectorstores.oraclevs import INTERNAL_ID_KEY

from .records import require_k, require_text, text_of
from .stores import Stores, store_for

#: Successful workflows nearest to a query vector. The boolean test is written in the SQL/JSON
#: path (`== true`) because a PASSING clause cannot carry a BOOLEAN (only VARCHAR2, NUMBER,
#: BINARY_DOUBLE, DATE and TIMESTAMP types), so LangChain's {"success": True} filter is not portable.
SUCCESSFUL_NEAREST = """SELECT text, metadata, VECTOR_DISTANCE(embedding, :query_vector, COSINE) AS distance
FROM {table}
WHERE JSON_EXISTS(metadata, '$?(@.success == true)')
ORDER BY distance, id
FETCH FIRST :k ROWS ONLY"""


def workflow_text(query: str, steps: Sequence[str], final_answer: str) -> str:
    """The searchable text: the task, the numbered steps and the answer."""
    lines = [f"Query: {query}", "Steps:"]
    lines += [f"{number}. {step}" for number, step in enumerate(steps, start=1)]
    lines.append(f"Answer: {final_answer}")
    return "\n".join(lines)


def workflow_metadata(query: str, steps: Sequence[str], success: bool, now: datetime | None = None) -> dict:
    """{"query", "num_steps", "success", "timestamp"}, computed from the arguments and the clock."""
    moment = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    return {"query": query, "num_steps": len(steps), "success": bool(success),
            "timestamp": moment.isoformat(timespec="seconds")}


def _check_steps(steps: Sequence[str]) -> list[str]:
    if isinstance(steps, str) or not isinstance(steps, Sequence):
        raise TypeError("steps must be a list of str (one entry per step)")
    if not steps:
        raise ValueError("a workflow needs at least one step")
    for number, step in enumerate(steps, start=1):
        require_text(step, f"step {number}")
    return list(steps)


def write_workflow(stores: Stores, query: str, steps: Sequence[str], final_answer: str,
                   success: bool = True) -> str:
    """Store how a task was solved; the record id."""
    require_text(query, "query")
    require_text(final_answer, "final_answer")
    if not isinstance(success, bool):
        raise TypeError(f"success must be True or False, not {success!r}")
    steps = _check_steps(steps)
    written = store_for(stores, "workflow").add_texts([workflow_text(query, steps, final_answer)],
                                                      [workflow_metadata(query, steps, success)])
    if not written:
        raise RuntimeError("the workflow was not written (see the warning LangChain logged)")
    return written[0]


@contextmanager
def _connection(store: OracleVS) -> Iterator[oracledb.Connection]:
    client = store.client
    if isinstance(client, oracledb.ConnectionPool):
        with client.acquire() as conn:
            yield conn
    else:
        yield client


def read_workflows(stores: Stores, query: str, k: int = 3, *, successful_only: bool = True) -> list[dict]:
    """The k workflows nearest to `query` (successful ones only, by default), nearest first."""
    require_text(query, "query")
    require_k(k)
    store = store_for(stores, "workflow")
    if not successful_only:
        return [{"id": doc.id, "text": doc.page_content, "metadata": dict(doc.metadata), "distance": float(d)}
                for doc, d in store.similarity_search_with_score(query, k=k)]
    vector = array.array("f", store.embedding_function.embed_query(query))
    with _connection(store) as conn, conn.cursor() as cur:
        cur.execute(SUCCESSFUL_NEAREST.format(table=store.table_name), query_vector=vector, k=k)
        rows = cur.fetchall()
    records = []
    for text, metadata, distance in rows:
        metadata = dict(metadata or {})
        records.append({"id": metadata.pop(INTERNAL_ID_KEY, None), "text": text_of(text), "metadata": metadata,
                        "distance": float(distance)})
    return records
