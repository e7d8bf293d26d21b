"""The embedded engine: an Oracle-subset SQL engine on SQLite (see ARCHITECTURE.md)."""
from __future__ import annotations

import os

from .async_connection import EmbeddedAsyncConnection, EmbeddedAsyncCursor, EmbeddedAsyncPool
from .connection import EmbeddedConnection, EmbeddedCursor, EmbeddedPool


def connect(path: str | os.PathLike, busy_timeout: float | None = None, *, readonly: bool = False) -> EmbeddedConnection:
    """Open (creating if needed) the embedded database file at `path`; `readonly=True` gives a session the
    engine refuses every write, DDL and row lock on (ORA-01031), as Oracle does for a read-only user."""
    return EmbeddedConnection(path, busy_timeout=busy_timeout, readonly=readonly)


def connect_async(path: str | os.PathLike, busy_timeout: float | None = None, *,
                  readonly: bool = False) -> EmbeddedAsyncConnection:
    """python-oracledb's `connect_async()` on the embedded file at `path`: a connection to await (or to open
    with `async with`), whose statements run on its own thread, off the event loop."""
    return EmbeddedAsyncConnection(path, busy_timeout=busy_timeout, readonly=readonly)


def create_pool_async(path: str | os.PathLike, min: int = 1, max: int = 4, increment: int = 1,  # noqa: A002
                      busy_timeout: float | None = None) -> EmbeddedAsyncPool:
    """python-oracledb's `create_pool_async()` on the embedded file at `path`."""
    return EmbeddedAsyncPool(path, min=min, max=max, increment=increment, busy_timeout=busy_timeout)


__all__ = ["EmbeddedAsyncConnection", "EmbeddedAsyncCursor", "EmbeddedAsyncPool", "EmbeddedConnection",
           "EmbeddedCursor", "EmbeddedPool", "connect", "connect_async", "create_pool_async"]
