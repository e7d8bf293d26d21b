"""Toolbox memory (TOOLBOX_VS): tool descriptions, searched so an agent is offered only relevant tools.

With dozens of tools, putting every schema in every prompt wastes the context window and makes
the model pick worse; retrieving the few tools whose description is nearest to the request is
the memory-backed alternative.
"""
from __future__ import annotations

import re

from .records import require_metadata, require_text
from .stores import Stores, search, store_for

_TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,63}$")


def tool_id(name: str) -> str:
    return f"tool:{name}"


def write_toolbox(stores: Stores, name: str, description: str, parameters: dict | None = None) -> str:
    """Register (or update) a tool: its name, what it does, and its parameters (JSON-schema style)."""
    if not isinstance(name, str) or not _TOOL_NAME.match(name):
        raise ValueError(f"tool name must be an identifier of at most 64 characters, got {name!r}")
    require_text(description, "description")
    meta = {"name": name, "parameters": require_metadata(parameters)}
    written = store_for(stores, "toolbox").add_texts([f"{name}: {description}"], [meta], ids=[tool_id(name)])
    if not written:
        raise RuntimeError(f"tool {name!r} was not written: create TOOLBOX_VS with mutate_on_duplicate=True")
    return written[0]


def read_toolbox(stores: Stores, query: str, k: int = 3) -> list[dict]:
    """The k tools whose descriptions are nearest to `query`, nearest first (metadata: name, parameters)."""
    return search(store_for(stores, "toolbox"), query, k)
