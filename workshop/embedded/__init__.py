"""The embedded engine: an Oracle-subset SQL engine on SQLite (see ARCHITECTURE.md)."""
from __future__ import annotations

import os

from .connection import EmbeddedConnection, EmbeddedCursor, EmbeddedPool


def connect(path: str | os.PathLike, busy_timeout: float | None = None, *, readonly: bool = False) -> EmbeddedConnection:
    """Open (creating if needed) the embedded database file at `path`; `readonly=True` gives a session the
    engine refuses every write, DDL and row lock on (ORA-01031), as Oracle does for a read-only user."""
    return EmbeddedConnection(path, busy_timeout=busy_timeout, readonly=readonly)


__all__ = ["EmbeddedConnection", "EmbeddedCursor", "EmbeddedPool", "connect"]
