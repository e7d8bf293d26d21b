"""Summary memory (SUMMARY_VS): older turns of a thread condensed into one searchable record.

Summarising keeps a long conversation inside the context budget: the turns a summary covers get
its summary_id in CONVERSATION_MEMORY, and the context builder then reads the summary instead of
those turns. The summariser here is an *extractive stand-in* for an LLM (it keeps each turn's
first sentence); pass your own function to use a model.
"""
from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Sequence

import oracledb

from .conversation import mark_summarised
from .records import require_k, require_short_text, require_text
from .schema import MAX_THREAD_ID_BYTES
from .stores import Stores, search, store_for

Summariser = Callable[[Sequence[dict]], str]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def first_sentence(text: str, max_chars: int = 160, min_chars: int = 40) -> str:
    """The opening of `text`: whole sentences until at least min_chars, cut to max_chars (a greeting
    such as "Hi!" alone says nothing, so the next sentence is kept too)."""
    flat = " ".join(text.split())
    opening = ""
    for sentence in _SENTENCE_END.split(flat):
        opening = f"{opening} {sentence}".strip()
        if len(opening) >= min_chars:
            break
    return opening if len(opening) <= max_chars else opening[:max_chars - 1].rstrip() + "…"


def extractive_summary(turns: Sequence[dict]) -> str:
    """A deterministic stand-in for an LLM summary: one line per turn, its role and first sentence."""
    if not turns:
        raise ValueError("nothing to summarise: no turns given")
    lines = [f"Summary of {len(turns)} earlier turns (extractive stand-in, no LLM):"]
    lines += [f"- {turn['role']}: {first_sentence(turn['content'])}" for turn in turns]
    return "\n".join(lines)


def write_summary(conn: oracledb.Connection, stores: Stores, thread_id: str, summary: str,
                  message_ids: Sequence[int]) -> str:
    """Store a summary of the given turns and mark those turns with its id, in one transaction; the id."""
    require_short_text(thread_id, "thread_id", MAX_THREAD_ID_BYTES)
    require_text(summary, "summary")
    ids = sorted({int(i) for i in message_ids})
    if not ids:
        raise ValueError("a summary must cover at least one turn (message_ids is empty)")
    summary_id = f"summary:{uuid.uuid4().hex[:16]}"
    store = store_for(stores, "summary")
    try:
        marked = mark_summarised(conn, thread_id, ids, summary_id)
        if marked != len(ids):
            raise ValueError(f"{len(ids) - marked} of the {len(ids)} turns are not unsummarised turns of thread "
                             f"{thread_id!r}")
        meta = {"thread_id": thread_id, "summary_id": summary_id, "message_ids": ids, "num_messages": len(ids)}
        store.add_texts([summary], [meta], ids=[summary_id])  # commits the store's connection
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    return summary_id


def read_summary(stores: Stores, query: str, k: int = 3, thread_id: str | None = None) -> list[dict]:
    """The k summaries nearest to `query` (of one thread when thread_id is given), nearest first."""
    require_k(k)
    return search(store_for(stores, "summary"), query, k, {"thread_id": thread_id} if thread_id else None)
