"""The asyncio door: workshop.db.connect_async()/create_pool_async() and the embedded engine's AsyncConnection,
AsyncCursor, AsyncLOB and AsyncConnectionPool, checked against python-oracledb's documented async API and
against the sync door's answers on the same file. Each test runs its coroutine with asyncio.run (no plugin)."""
from __future__ import annotations

import asyncio
import threading

import oracledb
import pytest
from oracledb import errors as _oracle_errors

from tests.conftest import ora_code
from workshop import db
from workshop.embedded import EmbeddedAsyncConnection, connect, connect_async, create_pool_async
from workshop.embedded.engine import Engine


def run(coroutine):
    return asyncio.run(coroutine)


@pytest.fixture
def table(db_path):
    """A small committed table (and the sync session that made it, closed again)."""
    with connect(db_path) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE t (id NUMBER PRIMARY KEY, name VARCHAR2(20), body CLOB, bin BLOB)")
        cur.executemany("INSERT INTO t VALUES (:1, :2, :3, :4)",
                        [(i, f"n{i}", f"text {i}", bytes([i])) for i in range(1, 6)])
        conn.commit()
    return db_path


# ---------------------------------------------------------------------- the classes the libraries check
ATTRIBUTES = ["version", "thin", "username", "dsn", "autocommit", "readonly", "transaction_in_progress",
              "current_schema", "db_name", "service_name", "stmtcachesize", "call_timeout"]


@pytest.mark.parametrize("name", ATTRIBUTES)
def test_async_connection_answers_every_attribute_as_the_sync_one(db_path, name):
    async def case():
        conn = await connect_async(db_path)
        try:
            return getattr(conn, name)
        finally:
            await conn.close()
    sync = connect(db_path)
    try:
        assert run(case()) == getattr(sync, name)
    finally:
        sync.close()


@pytest.mark.parametrize("opener", ["await", "async_with"])
def test_connect_async_gives_an_oracledb_async_connection(db_path, opener):
    async def case():
        if opener == "await":
            conn = await connect_async(db_path)
            kinds = (isinstance(conn, oracledb.AsyncConnection), isinstance(conn.cursor(), oracledb.AsyncCursor))
            await conn.close()
        else:
            async with connect_async(db_path) as conn:
                kinds = (isinstance(conn, oracledb.AsyncConnection), isinstance(conn.cursor(), oracledb.AsyncCursor))
        with pytest.raises(oracledb.InterfaceError, match="DPY-1001"):
            conn.cursor()
        return kinds
    assert run(case()) == (True, True)


def test_a_connection_not_awaited_is_not_connected(db_path):
    conn = connect_async(db_path)
    with pytest.raises(oracledb.InterfaceError, match="DPY-1001"):
        conn.cursor()
    del conn


# ---------------------------------------------------------------------- cursor: the same answers as the sync one
QUERIES = [
    ("one row", "SELECT id, name FROM t WHERE id = :1", [3]),
    ("named bind", "SELECT name FROM t WHERE id > :lo ORDER BY id", {"lo": 2}),
    ("no rows", "SELECT id FROM t WHERE id < 0", None),
    ("aggregate", "SELECT COUNT(*), MAX(name) FROM t", None),
    ("ordered", "SELECT id FROM t ORDER BY id DESC", None),
]


@pytest.mark.parametrize("sql,binds", [q[1:] for q in QUERIES], ids=[q[0] for q in QUERIES])
@pytest.mark.parametrize("fetch", ["fetchall", "fetchone", "fetchmany", "async_for"])
def test_async_fetch_gives_the_sync_rows(table, sql, binds, fetch):
    with connect(table) as sync, sync.cursor() as cur:
        expected = cur.execute(sql, binds).fetchall()

    async def case():
        async with connect_async(table) as conn:
            async with conn.cursor() as cur:
                returned = await cur.execute(sql, binds)
                assert returned is cur                    # a query returns the cursor, as python-oracledb's does
                if fetch == "fetchall":
                    return await cur.fetchall()
                if fetch == "fetchone":
                    rows = []
                    while (row := await cur.fetchone()) is not None:
                        rows.append(row)
                    return rows
                if fetch == "fetchmany":
                    rows = []
                    while batch := await cur.fetchmany(2):
                        assert len(batch) <= 2
                        rows.extend(batch)
                    return rows
                return [row async for row in cur]
    assert run(case()) == expected


def test_dml_executemany_batcherrors_setinputsizes_and_rowcounts(table):
    async def case():
        async with connect_async(table) as conn:
            cur = conn.cursor()
            assert await cur.execute("UPDATE t SET name = :1 WHERE id <= :2", ["x", 2]) is None
            assert cur.rowcount == 2
            cur.setinputsizes(None, 20)
            await cur.executemany("INSERT INTO t (id, name) VALUES (:1, :2)", [(10, "a"), (1, "dup"), (11, "b")],
                                  batcherrors=True, arraydmlrowcounts=True)
            errors = [(e.offset, e.code) for e in cur.getbatcherrors()]
            counts = cur.getarraydmlrowcounts()
            await conn.commit()
            return errors, counts, await conn.fetchall("SELECT id, name FROM t WHERE id IN (1, 2, 10, 11) ORDER BY id")
    errors, counts, rows = run(case())
    assert errors == [(1, 1)] and counts == [1, 0, 1]
    assert rows == [(1, "x"), (2, "x"), (10, "a"), (11, "b")]


def test_returning_into_var_and_callfunc(table):
    async def case():
        async with connect_async(table) as conn:
            cur = conn.cursor()
            out = cur.var(int)
            await cur.execute("UPDATE t SET name = 'z' WHERE id = 4 RETURNING id INTO :out", out=out)
            upper = await cur.callfunc("UPPER", str, ["abc"])
            await conn.rollback()
            return out.getvalue(), upper
    assert run(case()) == ([4], "ABC")


def test_the_connection_shortcuts(table):
    async def case():
        async with connect_async(table) as conn:
            await conn.execute("INSERT INTO t (id, name) VALUES (:1, :2)", [20, "s"])
            await conn.executemany("INSERT INTO t (id, name) VALUES (:1, :2)", [(21, "u"), (22, "v")])
            one = await conn.fetchone("SELECT name FROM t WHERE id = :1", [20])
            many = await conn.fetchmany("SELECT id FROM t WHERE id >= 20 ORDER BY id", num_rows=2)
            await conn.rollback()
            after = await conn.fetchall("SELECT COUNT(*) FROM t WHERE id >= 20")
            return one, many, after
    assert run(case()) == (("s",), [(20,), (21,)], [(0,)])


# ---------------------------------------------------------------------- LOBs
@pytest.mark.parametrize("lob_type,data,tail", [
    (oracledb.DB_TYPE_CLOB, "hello", " world"), (oracledb.DB_TYPE_BLOB, b"\x00\x01", b"\x02"),
    (oracledb.DB_TYPE_NCLOB, "n", "c")], ids=["clob", "blob", "nclob"])
def test_createlob_is_an_async_lob_and_binds(db_path, lob_type, data, tail):
    async def case():
        async with connect_async(db_path) as conn:
            lob = await conn.createlob(lob_type, data)
            assert isinstance(lob, oracledb.AsyncLOB) and lob.type is lob_type
            await lob.write(tail, len(data) + 1)
            size, whole, part = await lob.size(), await lob.read(), await lob.read(2, 3)
            column = "BLOB" if lob_type is oracledb.DB_TYPE_BLOB else "CLOB"
            async with conn.cursor() as cur:
                await cur.execute(f"CREATE TABLE l (v {column})")
                await cur.executemany("INSERT INTO l VALUES (:1)", [(lob,)])
                await cur.execute("SELECT v FROM l")
                fetched = (await cur.fetchone())[0]
                assert isinstance(fetched, oracledb.AsyncLOB)
                stored = await fetched.read()
                await cur.execute("SELECT v FROM l", fetch_lobs=False)
                plain = (await cur.fetchone())[0]
            return size, whole, part, stored, plain
    whole = data + tail
    assert run(case()) == (len(whole), whole, whole[1:4], whole, whole)


def test_createlob_refuses_what_python_oracledb_refuses(db_path):
    async def case():
        async with connect_async(db_path) as conn:
            with pytest.raises(oracledb.NotSupportedError):
                await conn.createlob(oracledb.DB_TYPE_VARCHAR)
            lob = await conn.createlob(oracledb.DB_TYPE_BLOB)
            with pytest.raises(TypeError):
                await lob.write("text into a BLOB")
    run(case())


# ---------------------------------------------------------------------- errors as python-oracledb raises them
ERRORS = [
    ("ora from the engine", lambda conn, cur: cur.execute("SELECT * FROM no_such_table"), oracledb.DatabaseError,
     "ORA-00942"),
    ("fetch after DML", lambda conn, cur: _fetch_after(cur, "UPDATE t SET name = name"), oracledb.InterfaceError,
     "DPY-1003"),
    ("closed cursor", lambda conn, cur: _closed_cursor(cur), oracledb.InterfaceError, "DPY-1006"),
    ("closed connection", lambda conn, cur: _closed_connection(conn), oracledb.InterfaceError, "DPY-1001"),
]


async def _fetch_after(cur, sql):
    await cur.execute(sql)
    await cur.fetchall()


async def _closed_cursor(cur):
    cur.close()
    await cur.execute("SELECT 1 FROM dual")


async def _closed_connection(conn):
    cur = conn.cursor()
    await conn.close()
    await cur.execute("SELECT 1 FROM dual")


@pytest.mark.parametrize("action,error,code", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors_are_python_oracledb_errors(table, action, error, code):
    async def case():
        conn = await connect_async(table)
        try:
            with pytest.raises(error, match=code):
                await action(conn, conn.cursor())
        finally:
            if conn.is_healthy():
                await conn.close()
    run(case())


def test_unsupported_operations_say_so(db_path):
    async def case():
        async with connect_async(db_path) as conn:
            with pytest.raises(oracledb.NotSupportedError, match="tpc_begin"):
                await conn.tpc_begin(conn.xid(1, "a", "b"))
    run(case())


# ---------------------------------------------------------------------- off the loop, one thread per session
def test_each_session_runs_on_its_own_thread_off_the_loop(db_path, monkeypatch):
    seen: list[tuple[int, int]] = []
    original = Engine.execute

    def recording(self, sql, *args, **kwargs):
        seen.append((id(self), threading.get_ident()))
        return original(self, sql, *args, **kwargs)
    monkeypatch.setattr(Engine, "execute", recording)

    async def case():
        loop_thread = threading.get_ident()
        first, second = await connect_async(db_path), await connect_async(db_path)
        for _ in range(3):
            await asyncio.gather(first.execute("SELECT 1 FROM dual"), second.execute("SELECT 2 FROM dual"))
        await first.close()
        await second.close()
        return loop_thread
    loop_thread = run(case())
    threads = {}
    for engine, thread in seen:
        threads.setdefault(engine, set()).add(thread)
    assert len(threads) == 2 and all(len(t) == 1 for t in threads.values())
    assert len(set().union(*threads.values())) == 2 and loop_thread not in set().union(*threads.values())


def test_a_session_waiting_for_a_lock_leaves_the_loop_free_for_the_holder(table):
    """A holds the write lock; B's write waits for it (SQLite busy timeout) on B's thread; meanwhile the loop
    runs A's COMMIT, and B's write then goes through. Waiting on the loop thread would stall A's commit until
    B's timeout and fail with ORA-00054: a lock problem the async door must not add."""
    async def case():
        a = await connect_async(table, busy_timeout=10)
        b = await connect_async(table, busy_timeout=10)
        await a.execute("UPDATE t SET name = 'a' WHERE id = 1")
        ticks = 0

        async def b_writes():
            await b.execute("UPDATE t SET name = 'b' WHERE id = 2")
            await b.commit()

        async def a_commits_later():
            nonlocal ticks
            for _ in range(5):
                await asyncio.sleep(0.05)
                ticks += 1
            await a.commit()
        await asyncio.wait_for(asyncio.gather(b_writes(), a_commits_later()), timeout=20)
        rows = await a.fetchall("SELECT id, name FROM t WHERE id <= 2 ORDER BY id")
        await a.close()
        await b.close()
        return ticks, rows
    ticks, rows = run(case())
    assert ticks == 5 and rows == [(1, "a"), (2, "b")]


def test_a_sessions_statements_keep_their_order_under_gather(db_path):
    async def case():
        async with connect_async(db_path) as conn:
            await conn.execute("CREATE TABLE seq_log (n NUMBER)")
            await asyncio.gather(*(conn.execute("INSERT INTO seq_log VALUES (:1)", [i]) for i in range(20)))
            await conn.commit()
            return await conn.fetchall("SELECT COUNT(*) FROM seq_log")
    assert run(case()) == [(20,)]


# ---------------------------------------------------------------------- the pool
def test_pool_acquire_release_and_its_counts(table):
    async def case():
        pool = create_pool_async(table, min=1, max=2)
        assert isinstance(pool, oracledb.AsyncConnectionPool)
        async with pool.acquire() as conn:
            assert isinstance(conn, oracledb.AsyncConnection) and pool.busy == 1
            await conn.execute("UPDATE t SET name = 'lost' WHERE id = 1")      # never committed
        conn2 = await pool.acquire()
        assert (pool.busy, pool.opened) == (1, 1)                             # the released session again
        name = await conn2.fetchone("SELECT name FROM t WHERE id = 1")
        with pytest.raises(oracledb.InterfaceError, match="DPY-1005"):
            await pool.close()
        await pool.release(conn2)
        with pytest.raises(oracledb.InterfaceError, match="DPY-1001"):
            conn2.cursor()
        await pool.close()
        with pytest.raises(oracledb.InterfaceError, match="DPY-1002"):
            pool.acquire()
        return name
    assert run(case()) == ("n1",)                                             # release rolled the update back


def test_pool_acquire_waits_while_max_sessions_are_out(db_path):
    async def case():
        pool = create_pool_async(db_path, max=1)
        first = await pool.acquire()
        waiting = asyncio.ensure_future(pool.acquire().__aenter__())
        await asyncio.sleep(0.2)
        blocked = not waiting.done()
        await first.close()
        second = await asyncio.wait_for(waiting, 10)
        await second.close()
        await pool.close()
        return blocked
    assert run(case()) is True


# ---------------------------------------------------------------------- workshop.db's door
def test_workshop_db_connect_async_is_the_embedded_engine_by_default(monkeypatch, tmp_path):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(tmp_path / "w.db"))

    async def case():
        conn = await db.connect_async()
        pool = db.create_pool_async(max=2)
        try:
            assert isinstance(conn, EmbeddedAsyncConnection) and db.is_embedded(conn)
            assert isinstance(pool, oracledb.AsyncConnectionPool)
            async with pool.acquire() as pooled:
                assert pooled.dsn == conn.dsn == f"embedded:{tmp_path / 'w.db'}"
        finally:
            await conn.close()
            await pool.close()
    run(case())


def test_workshop_db_connect_async_readonly_refuses_writes(monkeypatch, table):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(table))

    async def case():
        async with await db.connect_async(readonly=True) as conn:
            assert conn.readonly
            with pytest.raises(oracledb.DatabaseError) as excinfo:
                await conn.execute("DELETE FROM t")
            return ora_code(excinfo), await conn.fetchall("SELECT COUNT(*) FROM t")
    assert run(case()) == (1031, [(5,)])


def _error(code, message):
    return oracledb.DatabaseError(_oracle_errors._Error(message=message, code=code))


@pytest.mark.parametrize("failures,code,outcome", [
    (2, 12541, "connected"), (9, 1033, "still starting"), (1, 1017, "ORACLE_PASSWORD")],
    ids=["transient-then-up", "never-up", "wrong-password"])
def test_oracle_async_retries_as_the_sync_door(failures, code, outcome):
    sleeps, calls, said = [], [], []

    async def opener(**kwargs):
        calls.append(kwargs)
        if len(calls) <= failures:
            raise _error(code, f"ORA-{code:05d}: failure")
        return "connected"

    async def sleep(seconds):
        sleeps.append(seconds)

    async def case():
        return await db.connect_oracle_async(db.OracleSettings("h/S", "u", "p"), retries=3, sleep=sleep,
                                             opener=opener, say=said.append)
    if outcome == "connected":
        assert run(case()) == "connected" and sleeps == [1, 2] and len(said) == 2
        assert calls[0] == {"user": "u", "password": "p", "dsn": "h/S"}
    else:
        with pytest.raises(ConnectionError, match=outcome):
            run(case())
        assert len(calls) == (3 if code == 1033 else 1)


def test_the_sync_createlob_keeps_the_type_asked_for(conn):
    assert [conn.createlob(t).type for t in (oracledb.DB_TYPE_CLOB, oracledb.DB_TYPE_NCLOB, oracledb.DB_TYPE_BLOB)] \
        == [oracledb.DB_TYPE_CLOB, oracledb.DB_TYPE_NCLOB, oracledb.DB_TYPE_BLOB]


def test_an_output_type_handler_gets_the_async_cursor(table):
    seen = []

    def handler(cursor, metadata):
        seen.append(cursor)
        if metadata.type_code is oracledb.DB_TYPE_CLOB:
            return cursor.var(oracledb.DB_TYPE_LONG, arraysize=cursor.arraysize)

    async def case():
        async with connect_async(table) as conn:
            cur = conn.cursor()
            cur.outputtypehandler = handler
            await cur.execute("SELECT body FROM t WHERE id = 2")
            return cur, await cur.fetchall()
    cur, rows = run(case())
    assert rows == [("text 2",)] and seen == [cur]


@pytest.mark.parametrize("door", ["sync", "async"])
@pytest.mark.parametrize("autocommit", [True, False], ids=["autocommit", "no-autocommit"])
def test_autocommit_commits_each_statement_and_releases_the_write_lock(table, door, autocommit):
    """python-oracledb user guide, Managing Transactions: with Connection.autocommit True every DML statement is
    committed as it is executed, so another session sees it and can write at once."""
    async def writes() -> bool:
        if door == "sync":
            conn = connect(table, busy_timeout=0.2)
            conn.autocommit = autocommit
            with conn.cursor() as cur:
                cur.execute("UPDATE t SET name = 'auto' WHERE id = 1")
                cur.executemany("INSERT INTO t (id, name) VALUES (:1, :2)", [(30, "x")])
            in_txn = conn.transaction_in_progress
            conn.close()
            return in_txn
        conn = await connect_async(table, busy_timeout=0.2)
        conn.autocommit = autocommit
        async with conn.cursor() as cur:
            await cur.execute("UPDATE t SET name = 'auto' WHERE id = 1")
            await cur.executemany("INSERT INTO t (id, name) VALUES (:1, :2)", [(30, "x")])
        in_txn = conn.transaction_in_progress
        other = connect(table, busy_timeout=0.2)
        try:
            if autocommit:
                other.cursor().execute("UPDATE t SET name = 'other' WHERE id = 2")   # no ORA-00054
                other.commit()
            seen = other.cursor().execute("SELECT name FROM t WHERE id = 1").fetchone()[0]
        finally:
            other.close()
        await conn.close()
        assert seen == ("auto" if autocommit else "n1")
        return in_txn
    assert run(writes()) is (not autocommit)


class _FakeOracleConnection:
    current_schema = None


@pytest.mark.parametrize("readonly", [False, True], ids=["owner", "readonly"])
def test_oracle_connect_async_uses_the_sync_doors_settings(monkeypatch, readonly):
    monkeypatch.setenv("ORACLE_DSN", "db:1521/FREEPDB1")
    monkeypatch.setenv("ORACLE_USER", "workshop")
    monkeypatch.setenv("ORACLE_PASSWORD", "pw")
    monkeypatch.setenv("ORACLE_READONLY_USER", "reader")
    monkeypatch.setenv("ORACLE_READONLY_PASSWORD", "rpw")
    opened = []

    async def fake(settings, **kwargs):
        opened.append(settings)
        return _FakeOracleConnection()
    monkeypatch.setattr(db, "connect_oracle_async", fake)
    conn = run(db.connect_async(readonly=readonly))
    user, password = ("reader", "rpw") if readonly else ("workshop", "pw")
    assert opened == [db.OracleSettings("db:1521/FREEPDB1", user, password)]
    assert conn.current_schema == ("workshop" if readonly else None)


def test_oracle_readonly_async_never_falls_back_to_the_owner(monkeypatch):
    monkeypatch.setenv("ORACLE_DSN", "db:1521/FREEPDB1")
    monkeypatch.setenv("ORACLE_USER", "workshop")
    monkeypatch.setenv("ORACLE_PASSWORD", "pw")
    monkeypatch.delenv("ORACLE_READONLY_USER", raising=False)
    with pytest.raises(RuntimeError, match="ORACLE_READONLY_USER"):
        run(db.connect_async(readonly=True))


def test_oracle_pool_async_is_python_oracledbs_with_the_same_settings(monkeypatch):
    monkeypatch.setenv("ORACLE_DSN", "db:1521/FREEPDB1")
    monkeypatch.setenv("ORACLE_USER", "workshop")
    monkeypatch.setenv("ORACLE_PASSWORD", "pw")
    calls = []
    monkeypatch.setattr(oracledb, "create_pool_async", lambda **kwargs: calls.append(kwargs) or "pool")
    assert db.create_pool_async(min=2, max=5) == "pool"
    assert calls == [{"user": "workshop", "password": "pw", "dsn": "db:1521/FREEPDB1", "min": 2, "max": 5,
                      "increment": 1}]
