"""The embedded engine: an Oracle-subset SQL engine on SQLite (see ARCHITECTURE.md)."""
from __future__ import annotations

import os

from .connection import EmbeddedConnection, EmbeddedCursor, EmbeddedPool


def connect(path: str | os.PathLike, busy_timeout: float | None = None) -> EmbeddedConnection:
    """Open (creating if needed) the embedded database file at `path`."""
    return EmbeddedConnection(path, busy_timeout=busy_timeout)


__all__ = ["EmbeddedConnection", "EmbeddedCursor", "EmbeddedPool", "connect"]
