"""A deterministic stand-in for OAMP's LLM extraction step: which sentences of a conversation become memories.

OAMP's custom extraction instructions (SUPPORT_EXTRACTION_INSTRUCTIONS in part 08) ask an LLM to keep exact
identifiers, confirmed case state, stable preferences and tool-confirmed facts, and to ignore greetings, small
talk and secrets. These rules do the same on a fixed conversation, so the properties the seed checks can run
in CI. They are a teaching mirror, not redaction: the application still keeps secrets out of ingestion.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

#: Record types, the names OAMP's `record_types` filter uses.
RECORD_TYPES = ("memory", "fact", "preference")
#: The message metadata a memory inherits (OAMP: memory_extraction_inherit_message_metadata).
INHERITED_KEYS = ("tenant", "source", "tags")

IDENTIFIER = re.compile(r"\b[A-Z]{2,5}-\d{3,}\b")
GREETING = re.compile(r"^\s*(hi|hello|hey|good (morning|afternoon|evening)|thanks?( you)?|thank you|cheers|bye)\b",
                      re.IGNORECASE)
SECRET = re.compile(r"\b(one-time|verification|access|lobby|door|gate) code\b|\bpassword\b|\bpasscode\b|\bPIN\b|"
                    r"\bCVV\b|\bcard number\b|\b(?:\d[ -]?){13,16}\b", re.IGNORECASE)
PREFERENCE = re.compile(r"\b(prefer|prefers|please always|please never|rather|don't call|do not call|only email)\b",
                        re.IGNORECASE)
CONFIRMED = re.compile(r"\b(confirmed|approved|opened|escalated|is delayed|was delayed|backordered|shipped|"
                       r"refunded|requested|failed|scheduled)\b", re.IGNORECASE)
SENTENCE = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    """The sentences of a message, stripped, empty ones dropped."""
    return [s.strip() for s in SENTENCE.split(text or "") if s.strip()]


def is_greeting(sentence: str) -> bool:
    """Greetings, thanks and sign-offs: never a memory."""
    return bool(GREETING.match(sentence))


def has_secret(sentence: str) -> bool:
    """A one-time/access code, a password or PIN, a card number: never stored, even next to an identifier."""
    return bool(SECRET.search(sentence))


def identifiers(sentence: str) -> list[str]:
    """Exact support identifiers (order, return, case, invoice ids) such as ORD-88412 or RMA-5531."""
    return IDENTIFIER.findall(sentence)


def is_preference(sentence: str) -> bool:
    return bool(PREFERENCE.search(sentence))


def is_confirmed_state(sentence: str) -> bool:
    """A statement of case state (requested, approved, delayed, escalated ...)."""
    return bool(CONFIRMED.search(sentence))


def inherited_metadata(message: Mapping[str, Any], keys: Sequence[str] = INHERITED_KEYS) -> dict[str, Any]:
    """The keys of the message's metadata a memory inherits (those present)."""
    metadata = message.get("metadata") or {}
    return {k: metadata[k] for k in keys if k in metadata}


def record(content: str, record_type: str, *, user_id: str, agent_id: str, metadata: Mapping[str, Any]) -> dict:
    """One memory record, the shape `store.add_memories` writes."""
    if record_type not in RECORD_TYPES:
        raise ValueError(f"record_type must be one of {RECORD_TYPES}, not {record_type!r}")
    return {"content": content, "record_type": record_type, "user_id": user_id, "agent_id": agent_id,
            "metadata": dict(metadata)}


def reference_extract(messages: Iterable[Mapping[str, Any]], *, user_id: str, agent_id: str,
                      inherit: Sequence[str] = INHERITED_KEYS) -> list[dict]:
    """The checker's own copy of the policy (the notebook's TODO writes the same)."""
    out = []
    for message in messages:
        for sentence in sentences(message["content"]):
            if is_greeting(sentence) or has_secret(sentence):
                continue
            metadata = inherited_metadata(message, inherit)
            if message["role"] == "tool":
                metadata["confirmed_by"] = f"tool:{message['tool']}"
                kind = "fact"
            elif is_preference(sentence):
                kind = "preference"
            elif identifiers(sentence) or is_confirmed_state(sentence):
                kind = "memory"
            else:
                continue
            out.append(record(sentence, kind, user_id=user_id, agent_id=agent_id, metadata=metadata))
    return out
