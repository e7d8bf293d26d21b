"""python-oracledb's asyncio objects backed by the embedded engine.

`EmbeddedAsyncConnection` subclasses `oracledb.AsyncConnection` and `EmbeddedAsyncPool` subclasses
`oracledb.AsyncConnectionPool`, so langchain-oracledb's and langgraph-oracledb's `isinstance` checks pick
their async code paths. Each async connection wraps one sync `EmbeddedConnection` and owns ONE worker
thread: every statement of the session runs there, in the order the session issued it, off the event loop.
One thread per session (not `asyncio.to_thread`'s shared pool) keeps a session's statements ordered and its
SQLite connection on one thread; off the loop means a session that waits for another's write lock (SQLite's
busy timeout) does not stop the loop, so the other session can still commit (one loop thread waiting on a
lock held by a coroutine it runs would be a self-made ORA-00054).

API as python-oracledb documents it (user guide "Concurrent Programming with asyncio",
https://python-oracledb.readthedocs.io/en/latest/user_guide/asyncio.html, and the API manual's AsyncConnection,
AsyncCursor, AsyncLOB and AsyncConnectionPool pages):
`connect_async()` returns a connection to await or to use with `async with`; `pool.acquire()` the same;
cursors are sync and async context managers with coroutine execute/fetch/callproc/callfunc and sync
var/setinputsizes; temporary LOBs from `createlob()` and fetched LOB columns are `oracledb.AsyncLOB`s.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import os
from typing import Any, Callable

import oracledb
from oracledb import errors as _oracle_errors

from . import driver
from .connection import EmbeddedConnection, EmbeddedCursor

_LOB_TYPES = (oracledb.DB_TYPE_CLOB, oracledb.DB_TYPE_NCLOB, oracledb.DB_TYPE_BLOB)


# ---------------------------------------------------------------------- one session: a connection and its thread
class _Session:
    """A sync embedded connection and the one thread that runs all of its work."""

    def __init__(self, path: str | os.PathLike, busy_timeout: float | None, readonly: bool):
        self.worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="embedded-session")
        self._args = (path, busy_timeout, readonly)
        self.conn: EmbeddedConnection | None = None

    async def run(self, fn: Callable, *args: Any, **kwargs: Any) -> Any:
        """Run `fn` on this session's thread; the event loop stays free while it runs."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.worker, functools.partial(fn, *args, **kwargs))

    async def open(self) -> None:
        path, busy_timeout, readonly = self._args
        self.conn = await self.run(EmbeddedConnection, path, busy_timeout=busy_timeout, readonly=readonly)

    async def close(self) -> None:
        conn, self.conn = self.conn, None
        try:
            if conn is not None and conn.is_healthy():
                await self.run(conn.close)
        finally:
            self.worker.shutdown(wait=False)

    def close_soon(self) -> None:
        """Close from a finalizer (no loop to await on): queue the close on the session's own thread."""
        conn, self.conn = self.conn, None
        if conn is not None and conn.is_healthy():
            self.worker.submit(conn.close)
        self.worker.shutdown(wait=False)


# ---------------------------------------------------------------------- LOBs
class _AsyncLobImpl:
    """An AsyncLOB's impl over the in-memory value of an embedded LOB (values._LobImpl): the same data seen
    through coroutines. Nothing here touches the engine, so it runs on the loop."""

    def __init__(self, inner):
        self.inner = inner
        self.dbtype = inner.dbtype

    def free_lob(self) -> None:
        self.inner.free_lob()

    async def process_async_operation(self, lob, name: str, args: tuple, kwargs: dict):
        return self.inner.process_sync_operation(lob, name, args, kwargs)


def _as_async_lob(lob: oracledb.LOB) -> oracledb.AsyncLOB:
    out = oracledb.AsyncLOB.__new__(oracledb.AsyncLOB)
    out._impl = _AsyncLobImpl(lob._impl)
    return out


def _as_sync_lob(lob: oracledb.AsyncLOB) -> oracledb.LOB:
    if not isinstance(lob._impl, _AsyncLobImpl):
        raise TypeError("an AsyncLOB from another connection cannot be bound on the embedded engine")
    out = oracledb.LOB.__new__(oracledb.LOB)
    out._impl = lob._impl.inner
    return out


def _sync_binds(value: Any) -> Any:
    """Bind values as the sync cursor takes them: each AsyncLOB as the LOB it wraps (same data)."""
    if isinstance(value, oracledb.AsyncLOB):
        return _as_sync_lob(value)
    if isinstance(value, dict):
        return {k: _sync_binds(v) for k, v in value.items()} if _has_async_lob(value.values()) else value
    if isinstance(value, (list, tuple)):
        return type(value)(_sync_binds(v) for v in value) if _has_async_lob(value) else value
    return value


def _has_async_lob(values) -> bool:
    return any(isinstance(v, oracledb.AsyncLOB) or isinstance(v, (dict, list, tuple)) and
               _has_async_lob(v.values() if isinstance(v, dict) else v) for v in values)


# ---------------------------------------------------------------------- cursor
def _delegate(name: str, writable: bool = True) -> property:
    def get(self):
        return getattr(self._sync, name)

    def put(self, value):
        setattr(self._sync, name, value)
    return property(get, put if writable else None)


class EmbeddedAsyncCursor(oracledb.AsyncCursor):
    """python-oracledb's AsyncCursor over an embedded cursor whose statements run on the session's thread."""

    def __init__(self, connection: "EmbeddedAsyncConnection", scrollable: bool = False):  # noqa: D107 - no super()
        self._connection = connection
        self._session = connection._session
        self._sync = EmbeddedCursor(connection._session.conn)
        self._sync._facade = self                  # output type handlers are called with this cursor

    def __del__(self):
        pass

    def __repr__(self):
        return f"<EmbeddedAsyncCursor on {self._connection!r}>"

    for _name in ("arraysize", "prefetchrows", "outputtypehandler", "inputtypehandler", "rowfactory", "scrollable"):
        locals()[_name] = _delegate(_name)
    for _name in ("rowcount", "description", "bindvars", "lastrowid", "statement"):
        locals()[_name] = _delegate(_name, writable=False)
    del _name

    @property
    def connection(self) -> "EmbeddedAsyncConnection":
        return self._connection

    @property
    def warning(self):
        return None

    def _verify_open(self) -> None:
        self._connection._verify_connected()       # a closed or released connection closes its cursors
        self._sync._check_open()

    # -------------------------------------------------------------- lifecycle: sync and async context manager
    def __enter__(self):
        self._verify_open()
        return self

    def __exit__(self, *exc_info):
        self._verify_open()
        self._sync.close()

    async def __aenter__(self):
        self._verify_open()
        return self

    async def __aexit__(self, *exc_info):
        self._verify_open()
        self._sync.close()

    def close(self) -> None:
        self._verify_open()
        self._sync.close()

    # -------------------------------------------------------------- sync API (no engine work)
    def setinputsizes(self, *args: Any, **kwargs: Any):
        return self._sync.setinputsizes(*args, **kwargs)

    def var(self, typ: Any, *args: Any, **kwargs: Any):
        return self._sync.var(typ, *args, **kwargs)

    def arrayvar(self, typ: Any, value: Any, size: int = 0):
        return self._sync.arrayvar(typ, value, size)

    def getbatcherrors(self) -> list:
        return self._sync.getbatcherrors()

    def getarraydmlrowcounts(self) -> list:
        return self._sync.getarraydmlrowcounts()

    def setoutputsize(self, size: int, column: int = 0) -> None:
        self._verify_open()

    # -------------------------------------------------------------- statements: on the session's thread
    async def execute(self, statement: str, parameters: Any = None, *, suspend_on_success: bool = False,
                      fetch_lobs: bool | None = None, fetch_decimals: bool | None = None,
                      **keyword_parameters: Any) -> "EmbeddedAsyncCursor | None":
        self._verify_open()
        result = await self._session.run(self._execute, statement, _sync_binds(parameters),
                                         fetch_lobs=fetch_lobs, fetch_decimals=fetch_decimals,
                                         **_sync_binds(keyword_parameters))
        return self if result is not None else None

    def _execute(self, statement, parameters, **kwargs):
        result = self._sync.execute(statement, parameters, **kwargs)
        self._async_lobs()
        return result

    async def executemany(self, statement: str | None, parameters: Any, *, batcherrors: bool = False,
                          arraydmlrowcounts: bool = False, suspend_on_success: bool = False,
                          batch_size: int = 2 ** 32 - 1) -> None:
        self._verify_open()
        await self._session.run(self._sync.executemany, statement, _sync_binds(parameters), batcherrors=batcherrors,
                                arraydmlrowcounts=arraydmlrowcounts, batch_size=batch_size)

    async def callproc(self, name: str, parameters: list | tuple | None = None,
                       keyword_parameters: dict | None = None) -> list:
        self._verify_open()
        return await self._session.run(self._sync.callproc, name, _sync_binds(parameters),
                                       _sync_binds(keyword_parameters))

    async def callfunc(self, name: str, return_type: Any, parameters: list | tuple | None = None,
                       keyword_parameters: dict | None = None) -> Any:
        self._verify_open()
        if keyword_parameters:
            raise oracledb.NotSupportedError("callfunc() with keyword_parameters is not supported by the "
                                             "embedded engine (nor by its sync cursor)")
        return await self._session.run(self._sync.callfunc, name, return_type, _sync_binds(parameters))

    async def parse(self, statement: str) -> None:
        self._verify_open()
        await self._session.run(self._sync.parse, statement)

    async def scroll(self, value: int = 0, mode: str = "relative") -> None:
        raise oracledb.NotSupportedError("scrollable cursors are not supported by the embedded engine")

    def _async_lobs(self) -> None:
        """Fetched LOB columns as python-oracledb's async driver returns them: AsyncLOBs (read() awaited)."""
        description = self._sync.description or []
        lob_columns = [i for i, d in enumerate(description) if d.type_code in _LOB_TYPES]
        if not lob_columns or not self._sync._rows:
            return
        rows = []
        for row in self._sync._rows:
            row = list(row)
            for i in lob_columns:
                if isinstance(row[i], oracledb.LOB):
                    row[i] = _as_async_lob(row[i])
            rows.append(tuple(row))
        self._sync._rows = rows

    # -------------------------------------------------------------- fetching: rows are already on this side
    async def fetchone(self) -> Any:
        self._verify_open()
        return self._sync.fetchone()

    async def fetchmany(self, size: int | None = None) -> list:
        self._verify_open()
        return self._sync.fetchmany(size)

    async def fetchall(self) -> list:
        self._verify_open()
        return self._sync.fetchall()


# ---------------------------------------------------------------------- connection
class _NoImpl:
    """Stands in for python-oracledb's connection impl: operations the embedded engine does not have
    (sessionless and two-phase transactions, pipelining, data frames, direct path load) say so."""

    async def process_async_operation(self, conn, name: str, args: tuple, kwargs: dict):
        raise oracledb.NotSupportedError(f"AsyncConnection.{name}() is not supported by the embedded engine")


def _delegate_connection(name: str, prop: property) -> property:
    def get(self):
        self._verify_connected()
        return getattr(self._session.conn, name)

    def put(self, value):
        self._verify_connected()
        setattr(self._session.conn, name, value)
    return property(get, put if prop.fset is not None else None, doc=prop.__doc__)


class EmbeddedAsyncConnection(oracledb.AsyncConnection):
    """An `oracledb.AsyncConnection` on the embedded engine: await it (or `async with` it) to open it."""

    def __init__(self, path: str | os.PathLike, busy_timeout: float | None = None,  # noqa: D107 - no super()
                 readonly: bool = False, *, pool: "EmbeddedAsyncPool | None" = None):
        self._version = None
        self._path = path
        self._pool = pool
        self._session: _Session | None = None
        self._impl = None
        self._connect_coroutine = self._open(busy_timeout, readonly)

    async def _open(self, busy_timeout, readonly) -> "EmbeddedAsyncConnection":
        if self._pool is not None:
            self._session = await self._pool._checkout()
        else:
            session = _Session(self._path, busy_timeout, readonly)
            try:
                await session.open()
            except BaseException:
                session.worker.shutdown(wait=False)
                raise
            self._session = session
        self._impl = _NoImpl()
        return self

    def __await__(self):
        coroutine, self._connect_coroutine = self._connect_coroutine, None
        if coroutine is None:
            raise driver.dpy_error(_oracle_errors.ERR_NOT_CONNECTED) if self._session is None else \
                TypeError("this connection was already awaited")
        return coroutine.__await__()

    def __del__(self):
        coroutine = getattr(self, "_connect_coroutine", None)
        if coroutine is not None:
            coroutine.close()
        session = getattr(self, "_session", None)
        if session is not None and getattr(self, "_pool", None) is None:
            try:
                session.close_soon()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass

    def __repr__(self):
        state = "open" if self._session is not None else "not connected"
        return f"<EmbeddedAsyncConnection embedded:{self._path} ({state}, embedded engine)>"

    def _verify_connected(self) -> None:
        if self._session is None or self._session.conn is None:
            raise driver.dpy_error(_oracle_errors.ERR_NOT_CONNECTED)

    # The sync connection's attributes (version, thin, username, dsn, autocommit, current_schema, type
    # handlers, readonly, ...), read and written on the wrapped EmbeddedConnection.
    for _name, _prop in list(vars(EmbeddedConnection).items()):
        if isinstance(_prop, property):
            locals()[_name] = _delegate_connection(_name, _prop)
    del _name, _prop

    # -------------------------------------------------------------- methods
    def cursor(self, scrollable: bool = False) -> EmbeddedAsyncCursor:
        self._verify_connected()
        return EmbeddedAsyncCursor(self, scrollable)

    async def commit(self) -> None:
        self._verify_connected()
        await self._session.run(self._session.conn.commit)

    async def rollback(self) -> None:
        self._verify_connected()
        await self._session.run(self._session.conn.rollback)

    async def close(self) -> None:
        """Closes the session (rolling back what it did not commit); a pooled one goes back to its pool."""
        self._verify_connected()
        session, self._session = self._session, None
        self._impl = None
        if self._pool is not None:
            await self._pool._checkin(session)
        else:
            await session.close()

    async def ping(self) -> None:
        self._verify_connected()

    def is_healthy(self) -> bool:
        return self._session is not None and self._session.conn is not None and self._session.conn.is_healthy()

    async def gettype(self, name: str):
        self._verify_connected()
        return await self._session.run(self._session.conn.gettype, name)

    async def createlob(self, lob_type, data: str | bytes | None = None) -> oracledb.AsyncLOB:
        """A temporary CLOB/NCLOB/BLOB (python-oracledb's AsyncConnection.createlob), held in memory."""
        self._verify_connected()
        return _as_async_lob(self._session.conn.createlob(lob_type, data))


# ---------------------------------------------------------------------- pool
class EmbeddedAsyncPool(oracledb.AsyncConnectionPool):
    """An `oracledb.AsyncConnectionPool` of embedded sessions on one file. `acquire()` waits while `max`
    sessions are out (python-oracledb's default POOL_GETMODE_WAIT); released sessions are rolled back and
    kept for the next acquire, as a pool keeps its sessions."""

    def __init__(self, path: str | os.PathLike, min: int = 1, max: int = 4, increment: int = 1,  # noqa: A002
                 busy_timeout: float | None = None, readonly: bool = False, **kwargs: Any):
        self._path = path
        self._min, self._max, self._increment = min, max, increment
        self._session_args = (busy_timeout, readonly)
        self._free: list[_Session] = []
        self._busy = 0
        self._slots: asyncio.Semaphore | None = None
        self._impl = True                                  # python-oracledb's "pool is open" marker
        self._cache_name = None
        self._connection_type = EmbeddedAsyncConnection

    def __repr__(self):
        return f"<EmbeddedAsyncPool embedded:{self._path}>"

    def __del__(self):
        for session in getattr(self, "_free", []):
            try:
                session.close_soon()
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass

    def _verify_open(self) -> None:
        if self._impl is None:
            raise driver.dpy_error(_oracle_errors.ERR_POOL_NOT_OPEN)

    def acquire(self, *args: Any, **kwargs: Any) -> EmbeddedAsyncConnection:
        """A pooled connection: await it or use it with `async with` (which releases it at the end)."""
        self._verify_open()
        busy_timeout, readonly = self._session_args
        return EmbeddedAsyncConnection(self._path, busy_timeout, readonly, pool=self)

    async def _checkout(self) -> _Session:
        self._verify_open()
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._max)
        await self._slots.acquire()
        try:
            if self._free:
                session = self._free.pop()
            else:
                session = _Session(self._path, *self._session_args)
                await session.open()
        except BaseException:
            self._slots.release()
            raise
        self._busy += 1
        return session

    async def _checkin(self, session: _Session) -> None:
        self._busy -= 1
        self._slots.release()
        if self._impl is None:
            await session.close()
            return
        await session.run(session.conn.rollback)
        self._free.append(session)

    async def release(self, connection: EmbeddedAsyncConnection, tag: str | None = None) -> None:
        self._verify_open()
        if not isinstance(connection, oracledb.AsyncConnection):
            raise TypeError("connection must be an instance of oracledb.AsyncConnection")
        await connection.close()

    async def drop(self, connection: EmbeddedAsyncConnection) -> None:
        """Close the connection's session instead of keeping it."""
        self._verify_open()
        connection._verify_connected()
        session, connection._session = connection._session, None
        self._busy -= 1
        self._slots.release()
        await session.close()

    async def close(self, force: bool = False) -> None:
        self._verify_open()
        if self._busy and not force:
            raise driver.dpy_error(_oracle_errors.ERR_POOL_HAS_BUSY_CONNECTIONS)
        self._impl = None
        free, self._free = self._free, []
        for session in free:
            await session.close()

    @property
    def opened(self) -> int:
        return self._busy + len(self._free)

    @property
    def busy(self) -> int:
        return self._busy

    @property
    def max(self) -> int:
        return self._max

    @property
    def min(self) -> int:
        return self._min

    @property
    def increment(self) -> int:
        return self._increment

    @property
    def thin(self) -> bool:
        return True

    @property
    def dsn(self) -> str:
        return f"embedded:{self._path}"

    @property
    def username(self) -> str:
        return "WORKSHOP"
