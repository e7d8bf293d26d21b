"""`connect()`: the one door to the database, for notebooks, checkpoints, setup and tests.

With `ORACLE_DSN` set it opens a python-oracledb thin connection to Oracle AI Database (with a
bounded retry while the database is still starting); without it, the embedded engine on a local
SQLite file. Either way the caller gets an `oracledb.Connection`. `connect_async()` and
`create_pool_async()` are the asyncio door with the same settings: python-oracledb's `AsyncConnection` /
`AsyncConnectionPool` on Oracle, the embedded engine's subclasses of them without ORACLE_DSN.
"""
from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Awaitable, Callable

import oracledb

from . import config

#: ORA-/DPY- codes that mean "not reachable or not ready yet", worth waiting for.
_TRANSIENT_CODES = {12514, 12516, 12520, 12521, 12528, 12537, 12541, 12543, 12170, 1033, 1034, 1089, 1109}
_TRANSIENT_DPY = ("DPY-6005", "DPY-6000", "DPY-4011", "DPY-6001")


@dataclass(frozen=True)
class OracleSettings:
    dsn: str
    user: str
    password: str

    @classmethod
    def from_env(cls) -> "OracleSettings":
        dsn = config.oracle_dsn()
        if not dsn:
            raise RuntimeError("ORACLE_DSN is not set")
        user = os.environ.get("ORACLE_USER")
        password = os.environ.get("ORACLE_PASSWORD")
        if not user or not password:
            raise RuntimeError("ORACLE_DSN is set but ORACLE_USER / ORACLE_PASSWORD are missing: set all three "
                               "(see README, 'Running on Oracle AI Database').")
        return cls(dsn, user, password)


def engine_name() -> str:
    """'oracle' when ORACLE_DSN is set, else 'embedded'."""
    return "oracle" if config.oracle_dsn() else "embedded"


def connect(*, retries: int | None = None, first_delay: float = 1.0,
            sleep: Callable[[float], None] = time.sleep,
            say: Callable[[str], None] | None = None, readonly: bool = False) -> oracledb.Connection:
    """Open a connection to the configured engine (see module docstring). While Oracle is not answering yet, each
    retry says what it is waiting for (`say`, default: print).

    `readonly=True` opens a session that the database itself refuses writes on: on the embedded engine a
    read-only connection (ORA-01031 for DML, DDL and FOR UPDATE); on Oracle the read-only user named by
    ORACLE_READONLY_USER / ORACLE_READONLY_PASSWORD, which holds only READ grants (workshop/oracle_grants.py says
    why a second user; the devcontainer creates it). There is no fallback to the read-write user."""
    if not config.oracle_dsn():
        from .embedded import connect as connect_embedded
        return connect_embedded(config.embedded_db_path(), readonly=readonly)
    settings = OracleSettings.from_env()
    if readonly:
        user, password = _readonly_credentials()
        owner = settings.user
        conn = connect_oracle(OracleSettings(settings.dsn, user, password), retries=retries,
                              first_delay=first_delay, sleep=sleep, say=say)
        conn.current_schema = owner      # unqualified names resolve to the workshop schema it may only read
        return conn
    return connect_oracle(settings, retries=retries, first_delay=first_delay, sleep=sleep, say=say)


async def connect_async(*, retries: int | None = None, first_delay: float = 1.0,
                        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                        say: Callable[[str], None] | None = None, readonly: bool = False) -> oracledb.AsyncConnection:
    """`connect()` for asyncio code (langchain-oracledb's a* methods, langgraph-oracledb's AsyncOracleSaver):
    an open `oracledb.AsyncConnection`, to the same engine, user and schema as `connect()` would give, with the
    same bounded retry while Oracle is starting (waiting with `asyncio.sleep`, so the loop keeps running).

    ``conn = await connect_async()``; close it with ``await conn.close()`` (or ``async with conn:``)."""
    if not config.oracle_dsn():
        from .embedded import connect_async as connect_embedded_async
        return await connect_embedded_async(config.embedded_db_path(), readonly=readonly)
    settings = OracleSettings.from_env()
    if readonly:
        user, password = _readonly_credentials()
        conn = await connect_oracle_async(OracleSettings(settings.dsn, user, password), retries=retries,
                                          first_delay=first_delay, sleep=sleep, say=say)
        conn.current_schema = settings.user
        return conn
    return await connect_oracle_async(settings, retries=retries, first_delay=first_delay, sleep=sleep, say=say)


def create_pool_async(*, min: int = 1, max: int = 4, increment: int = 1) -> oracledb.AsyncConnectionPool:  # noqa: A002
    """An `oracledb.AsyncConnectionPool` to the configured engine (as python-oracledb's `create_pool_async()`,
    it opens sessions as they are acquired: ``async with pool.acquire() as conn``; ``await pool.close()``)."""
    if not config.oracle_dsn():
        from .embedded import create_pool_async as create_embedded_pool_async
        return create_embedded_pool_async(config.embedded_db_path(), min=min, max=max, increment=increment)
    settings = OracleSettings.from_env()
    return oracledb.create_pool_async(user=settings.user, password=settings.password, dsn=settings.dsn,
                                      min=min, max=max, increment=increment)


def _readonly_credentials() -> tuple[str, str]:
    user = os.environ.get("ORACLE_READONLY_USER")
    password = os.environ.get("ORACLE_READONLY_PASSWORD")
    if not user or not password:
        raise RuntimeError("connect(readonly=True) on Oracle needs ORACLE_READONLY_USER and "
                           "ORACLE_READONLY_PASSWORD: a user with only READ grants (the devcontainer sets both; "
                           "docs/troubleshooting.md, Part 07); it never falls back to the read-write user.")
    return user, password


async def connect_oracle_async(settings: OracleSettings, *, retries: int | None = None, first_delay: float = 1.0,
                               sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
                               opener: Callable[..., Awaitable[oracledb.AsyncConnection]] = oracledb.connect_async,
                               say: Callable[[str], None] | None = None) -> oracledb.AsyncConnection:
    """`connect_oracle()` for asyncio: the same bounded backoff and the same one-line messages."""
    attempts = retries if retries is not None else int(os.environ.get("ORACLE_CONNECT_RETRIES", "6"))
    say = say or _say
    delay = first_delay
    last: Exception | None = None
    for attempt in range(1, attempts + 1):
        try:
            return await opener(user=settings.user, password=settings.password, dsn=settings.dsn)
        except oracledb.Error as exc:
            last = exc
            if not is_transient(exc) or attempt == attempts:
                break
            say(_retry_message(settings, exc, attempt, attempts, delay))
            await sleep(delay)
            delay = min(delay * 2, 30.0)
    raise ConnectionError(_advice(settings, last)) from last


def connect_oracle(settings: OracleSettings, *, retries: int | None = None, first_delay: float = 1.0,
                   sleep: Callable[[float], None] = time.sleep,
                   opener: Callable[..., oracledb.Connection] | None = None,
                   say: Callable[[str], None] | None = None) -> oracledb.Connection:
    """Thin-mode connection with a bounded exponential backoff for a database that is starting.

    Before each wait it says, in one line, what it is waiting for and why (the DPY-/ORA- code), so a notebook
    cell is never silent for half a minute.
    """
    attempts = retries if retries is not None else int(os.environ.get("ORACLE_CONNECT_RETRIES", "6"))
    say = say or _say
    delay = first_delay
    last: Exception | None = None
    for attempt in range(1, attempts + 1):
        try:
            return (opener or oracledb.connect)(user=settings.user, password=settings.password, dsn=settings.dsn)
        except oracledb.Error as exc:
            last = exc
            if not is_transient(exc) or attempt == attempts:
                break
            say(_retry_message(settings, exc, attempt, attempts, delay))
            sleep(delay)
            delay = min(delay * 2, 30.0)
    raise ConnectionError(_advice(settings, last)) from last


def _retry_message(settings: OracleSettings, exc: BaseException, attempt: int, attempts: int, delay: float) -> str:
    return (f"waiting for Oracle AI Database at {settings.dsn} ({_error_code(exc)}: {_waiting_for(exc)}); "
            f"attempt {attempt} of {attempts} failed, trying again in {delay:g} s")


def _say(message: str) -> None:
    print(message, flush=True)


def _error_code(exc: BaseException) -> str:
    error = exc.args[0] if exc.args else None
    return getattr(error, "full_code", "") or type(exc).__name__


def _waiting_for(exc: BaseException) -> str:
    """What a transient error means we are waiting for, in words."""
    error = exc.args[0] if exc.args else None
    code = getattr(error, "code", 0)
    if code in (1033, 1034, 1089, 1109):
        return "the database is starting or not open yet"
    if code in (12514, 12516, 12520, 12521, 12528):
        return "the listener answers, the database service is not registered yet"
    return "nothing is listening on that host and port yet"


def is_transient(exc: BaseException) -> bool:
    """True for errors that mean 'still starting / not listening yet' rather than 'wrong settings'."""
    if not isinstance(exc, oracledb.Error) or not exc.args:
        return False
    error = exc.args[0]
    code = getattr(error, "code", 0)
    full = getattr(error, "full_code", "") or ""
    return code in _TRANSIENT_CODES or full.startswith(_TRANSIENT_DPY)


def _advice(settings: OracleSettings, exc: Exception | None) -> str:
    error = exc.args[0] if exc is not None and exc.args else None
    code = getattr(error, "code", 0)
    text = str(exc).splitlines()[0] if exc is not None else "unknown error"
    if code == 1017:
        hint = "the user name or password is wrong: check ORACLE_USER and ORACLE_PASSWORD."
    elif code in (1033, 1034, 1089, 1109):
        hint = "the database is still starting or not open: wait for the container's healthcheck, then retry."
    elif is_transient(exc) if exc else False:
        hint = (f"nothing answered at {settings.dsn}: is the database container running "
                "(docker compose ps) and is ORACLE_DSN host:port/service right?")
    else:
        hint = f"check ORACLE_DSN ({settings.dsn}), ORACLE_USER and ORACLE_PASSWORD."
    return f"Could not connect to Oracle AI Database: {text}\nWhat to check: {hint}"


# ---------------------------------------------------------------------- the engine's pieces the lessons use
# The lessons and checkpoints reach the embedded engine only through these functions (an import-linter
# contract in tests/engine/test_architecture.py keeps it so); each imports the engine lazily, so a session on
# Oracle never loads it.

def copy_embedded_database(target: str | os.PathLike) -> Path:
    """A consistent private copy (SQLite's online backup) of the workshop's embedded database, for a script that
    must not change the learner's own file. Raises FileNotFoundError, saying what to run, when there is none."""
    source = config.embedded_db_path()
    if not source.exists():
        raise FileNotFoundError(f"no workshop database at {source}: run python -m workshop.setup first")
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    src.close()
    dst.close()
    return Path(target)


def connect_embedded_file(path: str | os.PathLike) -> oracledb.Connection:
    """A connection to one embedded database file (a second session on the same file, a scratch database)."""
    from .embedded import connect as connect_embedded
    return connect_embedded(path)


def is_embedded(conn: object) -> bool:
    """True when ``conn`` is an embedded-engine connection, sync or async (not python-oracledb's)."""
    from .embedded import EmbeddedAsyncConnection, EmbeddedConnection
    return isinstance(conn, (EmbeddedConnection, EmbeddedAsyncConnection))


def oracle_dialect() -> type:
    """sqlglot's Oracle dialect as the embedded engine extends it (to tokenize, parse and print Oracle SQL)."""
    from .embedded.dialect import OracleX
    return OracleX


def parse_oracle(sql: str):
    """The sqlglot tree of one Oracle statement, parsed as the embedded engine parses it."""
    from .embedded.dialect import parse
    return parse(sql)


def oracle_text_default_stoplist() -> frozenset[str]:
    """Oracle Text's default English stoplist (CTXSYS.DEFAULT_STOPLIST), as the embedded engine's lexer uses it."""
    from .embedded.text.lexer import DEFAULT_STOPWORDS
    return DEFAULT_STOPWORDS
