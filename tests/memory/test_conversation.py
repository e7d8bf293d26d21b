"""Conversational memory and the tool log: identity ids via RETURNING INTO, commits, thread scope,
order, limits, and hostile text stored verbatim."""
from datetime import datetime, timedelta, timezone

import oracledb
import pytest

from checkpoints.framework import column_types
from tests.memory.memory_db import memory, memory_conn, memory_db, memory_template, other_connection  # noqa: F401
from workshop.memory import (CONVERSATION_TABLE, MEMORY_TABLES, TOOL_LOG_TABLE, create_memory_tables,
                             read_conversation, read_tool_log, reset_memory, write_conversation, write_tool_log)

HOSTILE = [
    "It's a 'quoted' \"string\"",
    "'); DROP TABLE conversation_memory; --",
    "SELECT * FROM user_tables WHERE 1=1 OR ''=''",
    ":thread_id :1 &var %s {0} $val",
    "ünïcødé — 日本語 — עברית — 🚀🧠",
    "line one\nline two\r\n\ttabbed\\backslash",
    "x" * 40_000,
]


def _table_names(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT table_name FROM user_tables")
        return {row[0] for row in cur.fetchall()}


def test_tables_have_the_documented_columns(memory_conn):
    columns = column_types(memory_conn, CONVERSATION_TABLE)
    assert {name: col.data_type for name, col in columns.items()} == {
        "ID": "NUMBER", "THREAD_ID": "VARCHAR2", "ROLE": "VARCHAR2", "CONTENT": "CLOB", "METADATA": "JSON",
        "CREATED_AT": "TIMESTAMP WITH TIME ZONE", "SUMMARY_ID": "VARCHAR2"}
    assert not columns["THREAD_ID"].nullable and not columns["CONTENT"].nullable and columns["SUMMARY_ID"].nullable
    with memory_conn.cursor() as cur:
        cur.execute("SELECT column_name, identity_column, data_default FROM user_tab_columns "
                    "WHERE table_name = 'CONVERSATION_MEMORY' AND column_name IN ('ID', 'CREATED_AT') "
                    "ORDER BY column_name")
        assert cur.fetchall() == [("CREATED_AT", "NO", "SYSTIMESTAMP"), ("ID", "YES", None)]
    assert set(column_types(memory_conn, TOOL_LOG_TABLE)) == {
        "ID", "THREAD_ID", "TOOL_NAME", "ARGUMENTS", "OUTPUT", "STATUS", "CREATED_AT"}


def test_creation_is_idempotent_and_keeps_rows(memory_conn):
    new_id = write_conversation(memory_conn, "t", "user", "kept")
    create_memory_tables(memory_conn)
    create_memory_tables(memory_conn)
    assert [t["id"] for t in read_conversation(memory_conn, "t")] == [new_id]


def test_reset_drops_every_memory_table_and_can_run_twice(memory_conn):
    assert set(MEMORY_TABLES) <= _table_names(memory_conn)
    reset_memory(memory_conn)
    reset_memory(memory_conn)
    assert not set(MEMORY_TABLES) & _table_names(memory_conn)


def test_returning_into_gives_the_committed_rows_id(memory_conn, other_connection):
    first = write_conversation(memory_conn, "t1", "user", "hello", {"channel": "web"})
    second = write_conversation(memory_conn, "t1", "assistant", "hi there")
    assert isinstance(first, int) and second > first
    with other_connection().cursor() as cur:
        cur.execute("SELECT id, thread_id, role, metadata FROM conversation_memory ORDER BY id")
        assert cur.fetchall() == [(first, "t1", "user", {"channel": "web"}), (second, "t1", "assistant", None)]


def test_commit_false_leaves_the_transaction_to_the_caller(memory_conn, other_connection):
    new_id = write_conversation(memory_conn, "t1", "user", "pending", commit=False)
    other = other_connection()
    count = "SELECT COUNT(*) FROM conversation_memory WHERE id = :id"
    assert other.cursor().execute(count, id=new_id).fetchone() == (0,)
    memory_conn.commit()
    assert other.cursor().execute(count, id=new_id).fetchone() == (1,)


def test_reads_are_thread_scoped_newest_n_oldest_first(memory_conn):
    written = {"a": [], "b": []}
    for number in range(6):
        for thread in ("a", "b"):
            written[thread].append(write_conversation(memory_conn, thread, "user", f"{thread}-{number}"))
    latest = read_conversation(memory_conn, "a", limit=3)
    assert [t["content"] for t in latest] == ["a-3", "a-4", "a-5"]
    assert [t["id"] for t in latest] == written["a"][3:]
    assert {t["thread_id"] for t in read_conversation(memory_conn, "a", limit=100)} == {"a"}
    assert len(read_conversation(memory_conn, "b", limit=100)) == 6
    assert read_conversation(memory_conn, "nobody") == []


def test_order_follows_created_at_then_id(memory_conn):
    base = datetime(2026, 1, 1, tzinfo=timezone.utc)
    rows = [("t", "user", "third", base + timedelta(seconds=5)), ("t", "user", "first", base),
            ("t", "user", "second-a", base + timedelta(seconds=2)), ("t", "user", "second-b", base + timedelta(seconds=2))]
    with memory_conn.cursor() as cur:
        cur.executemany("INSERT INTO conversation_memory (thread_id, role, content, created_at) VALUES (:1, :2, :3, :4)",
                        rows)
    memory_conn.commit()
    assert [t["content"] for t in read_conversation(memory_conn, "t")] == ["first", "second-a", "second-b", "third"]
    assert [t["content"] for t in read_conversation(memory_conn, "t", limit=2)] == ["second-b", "third"]


@pytest.mark.parametrize("text", HOSTILE, ids=range(len(HOSTILE)))
def test_hostile_text_round_trips_verbatim(memory_conn, other_connection, text):
    thread = "thread " + text[:40]
    metadata = {"note": text[:500], "nested": {"list": [text[:20], 1, None, True]}}
    new_id = write_conversation(memory_conn, thread, "user", text, metadata)
    [turn] = read_conversation(memory_conn, thread)
    assert (turn["id"], turn["thread_id"], turn["content"], turn["metadata"]) == (new_id, thread, text, metadata)
    assert read_conversation(other_connection(), thread)[0]["content"] == text
    assert {row[0] for row in memory_conn.cursor().execute("SELECT table_name FROM user_tables")} >= {
        "CONVERSATION_MEMORY"}


def test_content_is_read_as_text_whatever_fetch_lobs_says(memory_conn, monkeypatch):
    write_conversation(memory_conn, "t", "user", "a CLOB")
    for fetch_lobs in (True, False):
        monkeypatch.setattr(oracledb.defaults, "fetch_lobs", fetch_lobs)
        assert read_conversation(memory_conn, "t")[0]["content"] == "a CLOB"


@pytest.mark.parametrize("args, error", [
    (("t", "robot", "x"), ValueError), (("t", "user", ""), ValueError), (("t", "user", "   "), ValueError),
    (("", "user", "x"), ValueError), (("é" * 51, "user", "x"), ValueError), (("t", "user", 42), TypeError),
    (("t", "user", "x", ["not", "a", "dict"]), TypeError),
])
def test_bad_writes_raise_before_touching_the_database(memory_conn, args, error):
    with pytest.raises(error):
        write_conversation(memory_conn, *args)
    assert memory_conn.cursor().execute("SELECT COUNT(*) FROM conversation_memory").fetchone() == (0,)


@pytest.mark.parametrize("limit, error", [(0, ValueError), (-1, ValueError), (2.5, TypeError), (True, TypeError)])
def test_bad_limits_are_refused(memory_conn, limit, error):
    with pytest.raises(error):
        read_conversation(memory_conn, "t", limit=limit)


def test_the_check_constraint_guards_sql_written_by_hand(memory_conn):
    with pytest.raises(oracledb.DatabaseError) as excinfo:
        memory_conn.cursor().execute("INSERT INTO conversation_memory (thread_id, role, content) "
                                     "VALUES ('t', 'robot', 'x')")
    assert excinfo.value.args[0].code == 2290


def test_tool_log_round_trip_scope_and_order(memory_conn, other_connection):
    ids = [write_tool_log(memory_conn, "t1", "calculate", {"expression": "1 + 1"}, 2),
           write_tool_log(memory_conn, "t2", "search_knowledge", {"query": HOSTILE[1]}, ["a", "b"]),
           write_tool_log(memory_conn, "t1", "lookup_entity", {"name": "Ada"}, "LookupError: nope", "error"),
           write_tool_log(memory_conn, "t1", "noop", None, None)]
    log = read_tool_log(other_connection(), "t1")
    assert [(r["id"], r["tool_name"], r["arguments"], r["output"], r["status"]) for r in log] == [
        (ids[0], "calculate", {"expression": "1 + 1"}, "2", "ok"),
        (ids[2], "lookup_entity", {"name": "Ada"}, "LookupError: nope", "error"),
        (ids[3], "noop", {}, None, "ok")]
    assert read_tool_log(memory_conn, "t2")[0]["output"] == '["a", "b"]'
    assert [r["id"] for r in read_tool_log(memory_conn, "t1", limit=1)] == [ids[3]]
    with pytest.raises(ValueError):
        write_tool_log(memory_conn, "t1", "x", {}, "y", status="maybe")


def test_reset_part_3_knows_every_memory_table():
    from workshop.schema import learner_objects
    assert {(o.kind, o.name) for o in learner_objects(3)} == {("TABLE", name) for name in MEMORY_TABLES}


def test_expand_summary_returns_the_replaced_turns_in_time_order(memory):
    """Turns stored out of id order come back by created_at, then id; other threads' turns never."""
    from datetime import datetime, timedelta, timezone
    start = datetime.now(timezone.utc) - timedelta(hours=1)
    with memory.conn.cursor() as cur:
        for content, seconds, thread in (("second", 2, "t"), ("first", 1, "t"), ("other", 0, "u"), ("third", 2, "t")):
            cur.execute("INSERT INTO conversation_memory (thread_id, role, content, created_at) "
                        "VALUES (:t, 'user', :c, :at)", t=thread, c=content, at=start + timedelta(seconds=seconds))
    memory.conn.commit()
    ids = [t["id"] for t in memory.read_conversation("t", limit=10)]
    summary_id = memory.write_summary("t", "three turns", ids)
    assert [t["content"] for t in memory.expand_summary(summary_id)] == ["first", "second", "third"]
    assert memory.expand_summary("summary:0000000000000000") == []


def test_store_indexes_are_created_once(memory_conn):
    from workshop.memory import create_store_indexes, create_stores
    stores = create_stores(memory_conn)
    assert create_store_indexes(memory_conn, stores) == create_store_indexes(memory_conn, stores)
    rows = memory_conn.cursor().execute(
        "SELECT table_name, COUNT(*) FROM user_indexes WHERE index_type = 'VECTOR' AND table_name LIKE '%\\_VS' "
        "ESCAPE '\\' GROUP BY table_name ORDER BY table_name").fetchall()
    assert rows == [(t, 1) for t in sorted(["ENTITY_VS", "KNOWLEDGE_BASE_VS", "SUMMARY_VS", "TOOLBOX_VS", "WORKFLOW_VS"])]
