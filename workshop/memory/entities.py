"""Entity memory (ENTITY_VS): one record per person, project or thing, updated in place.

The record id is derived from the entity's type and name, so writing "Ada Lovelace (person)"
again replaces its description instead of adding a second, contradicting row.
"""
from __future__ import annotations

from .records import require_metadata, require_text
from .stores import Stores, search, store_for


def _normalise(value: str) -> str:
    return " ".join(value.split()).casefold()


def entity_id(name: str, entity_type: str) -> str:
    """The stable id of an entity: type and name, whitespace-collapsed and case-folded."""
    return f"entity:{_normalise(entity_type)}:{_normalise(name)}"


def entity_text(name: str, entity_type: str, description: str) -> str:
    """The text that is embedded and searched: 'Name (type): description'."""
    return f"{name} ({entity_type}): {description}"


def write_entity(stores: Stores, name: str, entity_type: str, description: str,
                 metadata: dict | None = None) -> str:
    """Create or update an entity; its id. The metadata gets "name" and "type" from the arguments."""
    for value, label in ((name, "name"), (entity_type, "entity_type"), (description, "description")):
        require_text(value, label)
    meta = {**require_metadata(metadata), "name": name, "type": entity_type}
    key = entity_id(name, entity_type)
    written = store_for(stores, "entity").add_texts([entity_text(name, entity_type, description)], [meta], ids=[key])
    if not written:
        raise RuntimeError(f"entity {key!r} was not written: create ENTITY_VS with mutate_on_duplicate=True so a "
                           "repeated id updates the row")
    return written[0]


def read_entity(stores: Stores, query: str, k: int = 3, entity_type: str | None = None) -> list[dict]:
    """The k entities nearest to `query` (only of `entity_type` when given), nearest first."""
    return search(store_for(stores, "entity"), query, k, {"type": entity_type} if entity_type else None)
