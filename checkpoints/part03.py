"""Checkpoints of part 03, agent memory (solutions/03_agent_memory.ipynb).

Each check calls the learner's code with probe data of its own (thread ids and metadata marked with
a random token), verifies the effect in the live database, through a *second* connection where
"committed" matters, and removes its probe rows afterwards.

    from checkpoints import part03
    part03.check_conversation_table(conn, conversation_ddl)           # TODO 1
    part03.check_write_conversation(conn, write_conversation)          # TODO 2
    part03.check_read_conversation(conn, read_conversation)            # TODO 3
    part03.check_stores(conn, stores)                                  # TODO 4
    part03.check_write_knowledge(conn, stores, write_knowledge)        # TODO 5
    part03.check_read_knowledge(conn, stores, read_knowledge)          # TODO 6
    part03.check_write_workflow(conn, stores, write_workflow)          # TODO 7
    part03.check_write_entity(conn, stores, write_entity)              # TODO 8

(`todo_1` ... `todo_8` are deprecated aliases kept for the part 03 tests; notebooks call check_<name>.)
"""
from __future__ import annotations

import numbers
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import oracledb

from workshop import config, schema

from .framework import (RecordingConnection, Statement, calls_function, checkpoint, column_types, expect,
                        expect_at_most_k, expect_column, expect_filled, expect_keys, expect_table, fail,
                        recording_stores, sql_tokens, statement_kind, table_exists)
from .framework.dictionary import COMMIT_HINT, vector_index
from .framework.needs import needs as _needs
from .framework.registry import todo_ref

NOTEBOOK = "03_agent_memory.ipynb"

TABLE = "CONVERSATION_MEMORY"
STORE_TABLES = {"knowledge_base": "KNOWLEDGE_BASE_VS", "workflow": "WORKFLOW_VS", "toolbox": "TOOLBOX_VS",
                "entity": "ENTITY_VS", "summary": "SUMMARY_VS"}
INTERNAL_ID_KEY = "__orcl_internal_doc_id"   # where langchain-oracledb keeps a record's id in its metadata
#: Text a learner's code must store verbatim: quotes, SQL, bind-like markers, non-ASCII.
HOSTILE = "It's a \"probe\"; DROP TABLE conversation_memory; -- :id &x ünïcødé 日本 🚀"
#: How far a workflow timestamp may be from this machine's clock.
CLOCK_SLACK = timedelta(minutes=10)
DISTANCE_TOLERANCE = 1e-4

STORES_HINT = ('One OracleVS per memory type, with the database embeddings, the cosine distance and upserts (section '
               '4).',
               ("Create the five stores as in the TODO: OracleVS(conn, embeddings, \"KNOWLEDGE_BASE_VS\", "
               "DistanceStrategy.COSINE, mutate_on_duplicate=True), and so on, in a dict keyed knowledge_base, "
               "workflow, toolbox, entity, summary."))


# --------------------------------------------------------------------------- helpers
def _token() -> str:
    return uuid.uuid4().hex[:12]


def _model() -> str:
    return schema.identifier(config.embedding_model_name())


def _text(value: Any) -> Any:
    """A CLOB as str (python-oracledb gives a LOB or a str depending on fetch_lobs)."""
    return value.read() if hasattr(value, "read") and callable(value.read) else value


def _other_connection(conn: oracledb.Connection) -> oracledb.Connection:
    """A second session on the same database: the same embedded file, or workshop.db.connect() for Oracle."""
    dsn = getattr(conn, "dsn", "") or ""
    if isinstance(dsn, str) and dsn.startswith("embedded:"):
        from workshop.db import connect_embedded_file
        return connect_embedded_file(dsn[len("embedded:"):])
    from workshop.db import connect
    return connect()


@contextmanager
def _second_session(conn: oracledb.Connection) -> Iterator[oracledb.Connection]:
    other = _other_connection(conn)
    try:
        yield other
    finally:
        other.close()


def _rows(conn: oracledb.Connection, sql: str, binds: dict | None = None) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, binds or {})
        return [tuple(_text(v) for v in row) for row in cur.fetchall()]


def _expect_function(value: Any, name: str) -> None:
    expect_filled(value, name)
    expect(callable(value), f"`{name}` is a {type(value).__name__}, not a function",
           f"Run the TODO cell that defines `def {name}(...)`, then this checkpoint.")


def _cleanup(conn: oracledb.Connection, statements: list[tuple[str, str, dict]]) -> None:
    """Remove probe rows: roll back what the learner's code left uncommitted, delete, commit.

    (table, WHERE clause, binds) per statement; tables that do not exist are skipped."""
    conn.rollback()
    with conn.cursor() as cur:
        for table, where, binds in statements:
            if table_exists(conn, table):
                cur.execute(f"DELETE FROM {table} WHERE {where}", binds)
    conn.commit()


def _turn_ids(conn: oracledb.Connection) -> set:
    """The ids of every turn the learner has (so that a probe written under the wrong thread is still removed)."""
    return {row[0] for row in _rows(conn, f"SELECT id FROM {TABLE}")} if table_exists(conn, TABLE) else set()


def _cleanup_turns(conn: oracledb.Connection, where: str, binds: dict, before: set) -> None:
    """Delete the probe turns: those matching `where`, and every turn that was not there before the check."""
    _cleanup(conn, [(TABLE, where, binds)])
    stale = [{"id": i} for i in _turn_ids(conn) - before]
    if stale:
        with conn.cursor() as cur:
            cur.executemany(f"DELETE FROM {TABLE} WHERE id = :id", stale)
        conn.commit()


def _as_id(value: Any, function: str) -> int:
    """The learner's returned id as an int, or a failure that says what went wrong."""
    if isinstance(value, bool) or value is None:
        fail(f"{function} returned {value!r}, not the new row's id",
             "Add RETURNING id INTO :new_id to the INSERT, bind new_id = cur.var(int), and return "
             "new_id.getvalue()[0].")
    if isinstance(value, (list, tuple)):
        fail(f"{function} returned {type(value).__name__} {value!r}, not one id",
             "For an INSERT, new_id.getvalue() gives a list (one value per row inserted): return "
             "new_id.getvalue()[0].")
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, (float, Decimal)) and value == int(value):
        return int(value)
    fail(f"{function} returned {type(value).__name__} {value!r}, not an integer id",
         "Create the out-bind with cur.var(int) so that the id comes back as an int.")


def _store(stores: Any, key: str) -> Any:
    """stores[key], or a failure that sends the learner back to TODO 4."""
    expect_filled(stores, "stores", f"Complete {todo_ref(__name__, 'stores')} (the five stores) and run its cell and "
                                    "checkpoint first.")
    if not isinstance(stores, Mapping) or key not in stores:
        fail(f"`stores` has no {key!r} store", f"Pass the `stores` dict from {todo_ref(__name__, 'stores')} (run its "
             "cell and checkpoint first).")
    return stores[key]


def _record_id(value: Any, function: str, stored: Any) -> None:
    """The learner returned the id of the record it wrote (add_texts returns a list of ids)."""
    if isinstance(value, (list, tuple)) and len(value) == 1 and value[0] == stored:
        fail(f"{function} returned the list {value!r}; return the id itself",
             "add_texts returns a list of ids, one per text: return its first element.")
    expect(value == stored, f"{function} returned {value!r}, but the record it wrote has the id {stored!r}",
           "Return the id that add_texts gives back for the text (add_texts(...)[0]).")


def _find_in_stores(conn: oracledb.Connection, where: str, binds: dict) -> dict[str, int]:
    """How many rows match in each existing store table (to tell 'written to the wrong store')."""
    found = {}
    for table in STORE_TABLES.values():
        if table_exists(conn, table):
            found[table] = _rows(conn, f"SELECT COUNT(*) FROM {table} WHERE {where}", binds)[0][0]
    return found


def _snapshot(conn: oracledb.Connection) -> dict[str, set]:
    """The record ids of every existing store table: what the learner had before the check wrote anything."""
    return {table: {row[0] for row in _rows(conn, f"SELECT id FROM {table}")}
            for table in STORE_TABLES.values() if table_exists(conn, table)}


def _new_rows(conn: oracledb.Connection, table: str, snapshot: dict[str, set] | None) -> list[tuple[Any, dict]]:
    """(text, metadata) of the rows of `table` that were not there at the snapshot."""
    if snapshot is None or not table_exists(conn, table):
        return []
    before = snapshot.get(table, set())
    return [(text, dict(meta or {})) for rid, text, meta in _rows(conn, f"SELECT id, text, metadata FROM {table}")
            if rid not in before]


def _store_rows(conn: oracledb.Connection, table: str, where: str, binds: dict, *, what: str,
                expected_table_hint: str, snapshot: dict[str, set] | None = None,
                looked_for: str = "the probe text") -> list[tuple[Any, dict]]:
    """(text, metadata) of the rows matching `where` in `table`, as a second session sees them.

    When none match, says which: nothing was written, it is uncommitted, it went to another store, or a row was
    written (new since `snapshot`) but not in the form asked for."""
    with _second_session(conn) as other:
        committed = _rows(other, f"SELECT text, metadata FROM {table} WHERE {where}", binds)
    if committed:
        return [(text, dict(meta or {})) for text, meta in committed]
    if _rows(conn, f"SELECT COUNT(*) FROM {table} WHERE {where}", binds)[0][0]:
        fail(f"your session sees the {what} in {table} but other sessions do not: it is not committed", COMMIT_HINT)
    elsewhere = {t: n for t, n in _find_in_stores(conn, where, binds).items() if n and t != table}
    if elsewhere:
        fail(f"the {what} went to {', '.join(elsewhere)}, not to {table}", expected_table_hint)
    written = _new_rows(conn, table, snapshot)
    if written:
        text, meta = written[0]
        visible = {k: v for k, v in meta.items() if k != INTERNAL_ID_KEY}
        fail(f"a {what} was written to {table}, but its text does not contain {looked_for}: "
             f"{' '.join(str(_text(text)).split())[:90]!r} (metadata {visible})",
             "Build the text from the arguments as the TODO describes.")
    fail(f"nothing was written to {table}",
         "Call add_texts on the right store with the text and its metadata (metadatas=[metadata]).", nothing_yet=True)


def _missing_metadata(stored: dict, expected: dict) -> dict:
    return {key: value for key, value in expected.items() if stored.get(key) != value}


def _probe_where(token: str) -> tuple[str, dict]:
    """Rows whose text mentions the token. The probe texts are short, so their first 1000 characters
    hold it; 1000 characters also fit SQL's 4000-byte VARCHAR2 limit in any character set."""
    return "DBMS_LOB.SUBSTR(text, 1000, 1) LIKE :pattern", {"pattern": f"%{token}%"}


def _cleanup_stores(conn: oracledb.Connection, token: str, snapshot: dict[str, set] | None = None) -> None:
    """Delete the probe rows: those that mention the token, and every row written since `snapshot` (a probe
    written in the wrong form does not mention it). Leaves the stores as the learner had them."""
    where, binds = _probe_where(token)
    _cleanup(conn, [(table, where, binds) for table in STORE_TABLES.values()])
    if snapshot is None:
        return
    with conn.cursor() as cur:
        for table in STORE_TABLES.values():
            if table in snapshot:
                stale = [{"id": row[0]} for row in _rows(conn, f"SELECT id FROM {table}") if row[0] not in snapshot[table]]
                if stale:
                    cur.executemany(f"DELETE FROM {table} WHERE id = :id", stale)
    conn.commit()


def _embedded_from_text(conn: oracledb.Connection, table: str, where: str, binds: dict) -> bool:
    sql = (f"SELECT MAX(VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({_model()} USING DBMS_LOB.SUBSTR(text, 1000, 1) "
           f"AS data), COSINE)) FROM {table} WHERE {where}")
    distance = _rows(conn, sql, binds)[0][0]
    return distance is not None and distance < DISTANCE_TOLERANCE


# --------------------------------------------------------------------------- TODO 1
#: What every later cell relies on: (column, type, NOT NULL?, shortest length that works).
#: role must hold 'assistant' (9); thread ids are up to 100 bytes (MemoryManager accepts that much);
#: summary ids are 'summary:' + 16 hex digits (24).
CONVERSATION_COLUMNS = (
    ("THREAD_ID", "VARCHAR2", True, 100, "thread_id VARCHAR2(100) NOT NULL: every turn belongs to a thread."),
    ("ROLE", "VARCHAR2", True, 9, "role VARCHAR2(20) NOT NULL: it must hold 'assistant' (9 characters)."),
    ("CONTENT", "CLOB", True, None, "content CLOB NOT NULL: a turn can be longer than any VARCHAR2."),
    ("METADATA", "JSON", False, None, "metadata JSON, nullable: write_conversation stores NULL when there is no "
                                      "metadata, and NOT NULL would make that fail with ORA-01400."),
    ("CREATED_AT", "TIMESTAMP WITH TIME ZONE", True, None,
     "created_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL."),
    ("SUMMARY_ID", "VARCHAR2", False, 24, "summary_id VARCHAR2(100), nullable: it stays NULL until a summary covers "
                                          "the turn."),
)
TIMESTAMP_DEFAULTS = ("SYSTIMESTAMP", "CURRENT_TIMESTAMP")
REDO_HINT = ("CREATE TABLE IF NOT EXISTS kept the table an earlier statement made. Run "
             "conn.cursor().execute('DROP TABLE conversation_memory PURGE'), then the TODO 1 cell again.")


def _column_facts(conn: oracledb.Connection, table: str) -> dict[str, tuple[str, str]]:
    rows = _rows(conn, "SELECT column_name, identity_column, data_default FROM user_tab_columns "
                       "WHERE table_name = :t", {"t": table})
    return {name: (identity, (default or "").strip()) for name, identity, default in rows}


def _primary_key(conn: oracledb.Connection, table: str) -> list[str]:
    rows = _rows(conn, """SELECT cc.column_name FROM user_constraints c
                          JOIN user_cons_columns cc ON cc.constraint_name = c.constraint_name
                          WHERE c.table_name = :t AND c.constraint_type = 'P'""", {"t": table})
    return sorted(row[0] for row in rows)


def _is_insert_time_default(default: str) -> bool:
    """DATA_DEFAULT is SYSTIMESTAMP or CURRENT_TIMESTAMP, with or without a precision and brackets (read from
    its tokens, so `(SYSTIMESTAMP)` and `CURRENT_TIMESTAMP(3)` count, and `TIMESTAMP '2024-01-01 ...'` does not)."""
    try:
        words = [t for t in sql_tokens(default) if t.text not in ("(", ")")]
    except Exception:  # noqa: BLE001
        return False
    return bool(words) and words[0].text.upper() in TIMESTAMP_DEFAULTS and all(
        t.token_type.name == "NUMBER" or t.text.isdigit() for t in words[1:])


def _table_problem(conn: oracledb.Connection, table: str) -> tuple[str, str] | None:
    """The first way `table` (its dictionary entry and its behaviour) differs from what TODOs 2 and 3 and the
    MemoryManager rely on, as (reason, hint); None when it is right."""
    columns = column_types(conn, table)
    if not columns:
        return f"table {table} does not exist", "Run the TODO 1 cell: it executes conversation_ddl."
    if "ID" not in columns:
        return f"there is no ID column (the table has {', '.join(columns)})", "id NUMBER GENERATED ALWAYS AS IDENTITY"
    if columns["ID"].data_type != "NUMBER":
        return f"ID is {columns['ID'].declaration()}, expected NUMBER", "id NUMBER GENERATED ALWAYS AS IDENTITY"
    facts = _column_facts(conn, table)
    if facts["ID"][0] != "YES":
        return ("ID is not an identity column: the database does not number the turns",
                "Declare it as id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY.")
    if _primary_key(conn, table) != ["ID"]:
        return ("ID is not the table's primary key" if not _primary_key(conn, table) else
                f"the primary key is ({', '.join(_primary_key(conn, table))}), expected (ID)",
                "Add PRIMARY KEY to the id column.")
    for name, data_type, not_null, min_length, hint in CONVERSATION_COLUMNS:
        if name not in columns:
            return f"there is no {name} column (the table has {', '.join(columns)})", hint
        column = columns[name]
        base = re.sub(r"\(\d+\)", "", column.data_type)
        if base != data_type:
            return f"{name} is {column.declaration()}, expected {data_type}", hint
        if min_length and (column.length or 0) < min_length:
            return f"{name} is {column.declaration()}: too short (at least {min_length} characters are needed)", hint
        if column.nullable == not_null:
            return (f"{name} is {'nullable' if column.nullable else 'NOT NULL'}, expected "
                    f"{'NOT NULL' if not_null else 'nullable'}"), hint
    if not _is_insert_time_default(facts["CREATED_AT"][1]):
        return (f"CREATED_AT has no insert-time default (DEFAULT {facts['CREATED_AT'][1] or 'none'})",
                "Add DEFAULT SYSTIMESTAMP so the database stamps each turn when it is inserted.")
    required = [name for name, col in columns.items() if not col.nullable and name != "ID"
                and name not in {c[0] for c in CONVERSATION_COLUMNS} and not facts[name][1]]
    if required:
        return (f"the extra column {required[0]} is NOT NULL without a default: every INSERT of TODO 2 would fail",
                "Leave extra columns nullable (or give them a DEFAULT).")
    return None


def _behaviour_problem(conn: oracledb.Connection, table: str) -> tuple[str, str] | None:
    """Insert into a scratch copy of the table what the next cells insert; (reason, hint) of the first failure."""
    insert = (f"INSERT INTO {table} (thread_id, role, content, metadata) VALUES (:t, 'assistant', :c, NULL) "
              "RETURNING id INTO :new_id")
    with conn.cursor() as cur:
        new_id = cur.var(oracledb.DB_TYPE_NUMBER)
        try:
            cur.execute(insert, t="t" * 100, c="x", new_id=new_id)
        except oracledb.DatabaseError as exc:
            conn.rollback()
            return (f"the insert TODO 2 makes fails on this table: {str(exc).splitlines()[0]}",
                    "Compare each column with the table in the TODO.")
        try:
            cur.execute(f"INSERT INTO {table} (id, thread_id, role, content) VALUES (:id, 't', 'user', 'x')",
                        id=int(new_id.getvalue()[0]) + 1000)
        except oracledb.DatabaseError:
            return None   # ORA-32795: GENERATED ALWAYS refuses an explicit id, as it should
        finally:
            conn.rollback()
    return ("ID is GENERATED BY DEFAULT: an INSERT can still supply its own id, and that id later clashes with the "
            "one the database generates (ORA-00001)", "Declare it as id NUMBER GENERATED ALWAYS AS IDENTITY.")


def _index_problem(conn: oracledb.Connection, table: str) -> tuple[str, str] | None:
    rows = _rows(conn, """SELECT i.index_name, c.column_name FROM user_indexes i
                          JOIN user_ind_columns c ON c.index_name = i.index_name
                          WHERE i.table_name = :t ORDER BY i.index_name, c.column_position""", {"t": table})
    by_index: dict[str, list[str]] = {}
    for name, column in rows:
        by_index.setdefault(name, []).append(column)
    if any(cols[:2] == ["THREAD_ID", "CREATED_AT"] for cols in by_index.values()):
        return None
    hint = ("CREATE INDEX IF NOT EXISTS conversation_memory_thread_ix ON conversation_memory (thread_id, "
            "created_at): every read filters by thread_id and orders by created_at, so thread_id comes first.")
    led = [cols for cols in by_index.values() if cols and cols[0] in ("THREAD_ID", "CREATED_AT")]
    if led:
        return f"the index is on ({', '.join(led[0])}), expected (THREAD_ID, CREATED_AT)", hint
    return "there is no index on (THREAD_ID, CREATED_AT)", hint


def _expect_statement_type(value: Any, name: str, example: str) -> str:
    expect_filled(value, name)
    expect(isinstance(value, str), f"`{name}` is a {type(value).__name__}, expected the text of a SQL statement",
           f"Set {name} to a string: {example}")
    return value


def _rerun(conn: oracledb.Connection, sql: str, name: str, example: str) -> None:
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
    except oracledb.DatabaseError as exc:
        code = getattr(exc.args[0], "code", None) if exc.args else None
        if code in (955, 1408):
            fail(f"running {name} a second time fails with ORA-{code:05d} (it exists already)",
                 f"Write {example}, so the cell can run again.")
        raise


def conversation_table_in_database(conn: oracledb.Connection) -> str:
    """What checkpoints.progress can judge without the notebook's statements: the table and its thread index are
    right. (The statements themselves are judged when the checkpoint runs.)"""
    expect_table(conn, TABLE, "Run the TODO 1 cell: it executes conversation_ddl.")
    problem = _table_problem(conn, TABLE) or _index_problem(conn, TABLE)
    if problem:
        fail(*problem)
    return "CONVERSATION_MEMORY and its (THREAD_ID, CREATED_AT) index"


@checkpoint("create the CONVERSATION_MEMORY table and its thread index", live=conversation_table_in_database, hint=(
    'An identity key, a JSON column and an insert-time timestamp, plus an index for reading one thread by'
         " time (section 1, 'The conversation table').",
    'CREATE TABLE IF NOT EXISTS conversation_memory (id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, '
         'thread_id VARCHAR2(100) NOT NULL, role VARCHAR2(20) NOT NULL, content CLOB NOT NULL, metadata JSON, '
         'created_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL, summary_id VARCHAR2(100)); CREATE'
         ' INDEX IF NOT EXISTS ... ON conversation_memory (thread_id, created_at).'))
def check_conversation_table(conn: oracledb.Connection, conversation_ddl: str,
                             conversation_index_ddl: str | None = None) -> str:
    """Both statements are checked twice: as written, on a scratch table (so a wrong statement cannot pass
    because an earlier right one made the table), and by their effect on CONVERSATION_MEMORY itself (so a
    corrected statement says what to drop when IF NOT EXISTS kept the old table)."""
    from .scratch import scratch_index_ddl, scratch_table_ddl
    table_example = "CREATE TABLE IF NOT EXISTS conversation_memory (...)"
    index_example = "CREATE INDEX IF NOT EXISTS conversation_memory_thread_ix ON conversation_memory (...)"
    ddl = _expect_statement_type(conversation_ddl, "conversation_ddl", table_example)
    index_ddl = _expect_statement_type(conversation_index_ddl, "conversation_index_ddl", index_example)
    suffix = _token()[:8].upper()
    scratch = scratch_table_ddl(ddl, expected=TABLE, suffix=suffix)
    scratch_index = scratch_index_ddl(index_ddl, table=TABLE, scratch_table=scratch.table, suffix=suffix)
    try:
        with conn.cursor() as cur:
            cur.execute(scratch.sql)
        problem = _table_problem(conn, scratch.table) or _behaviour_problem(conn, scratch.table)
        if problem:
            fail(f"conversation_ddl: {problem[0]}", f"{problem[1]} Then drop the table "
                 "(DROP TABLE conversation_memory PURGE) and run the TODO 1 cell again.")
        with conn.cursor() as cur:
            cur.execute(scratch_index.sql)
        problem = _index_problem(conn, scratch.table)
        if problem:
            fail(f"conversation_index_ddl: {problem[0]}", problem[1])
    finally:
        with conn.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS {scratch.table} PURGE")
    expect_table(conn, TABLE, "Run the TODO 1 cell: it executes conversation_ddl.")
    problem = _table_problem(conn, TABLE)
    if problem:
        fail(f"your statement is right now, but the CONVERSATION_MEMORY table differs: {problem[0]}", REDO_HINT)
    problem = _index_problem(conn, TABLE)
    if problem:
        fail(f"your index statement is right, but CONVERSATION_MEMORY has no such index ({problem[0]})",
             "Run the TODO 1 cell again: it executes conversation_index_ddl after the table.")
    _rerun(conn, ddl, "conversation_ddl", table_example)
    _rerun(conn, index_ddl, "conversation_index_ddl", index_example)
    return ("identity ID (ALWAYS) as the primary key, CLOB content, nullable JSON metadata, CREATED_AT DEFAULT "
            "SYSTIMESTAMP; index on (THREAD_ID, CREATED_AT); both statements re-runnable")


# --------------------------------------------------------------------------- TODO 2
JSON_BIND_HINT = ["python-oracledb must be told that a dict is meant for a JSON column (section 2, 'declare the "
                  "JSON bind').", "Declare the bind before executing: "
                                  "cur.setinputsizes(metadata=oracledb.DB_TYPE_JSON) (or bind "
                  "json.dumps(metadata), JSON text that Oracle parses into the JSON column)."]
RETURNING_HINT = ["The INSERT itself can hand back the id the database generated (section 2: RETURNING ... INTO).",
                  "Add RETURNING id INTO :new_id to the INSERT, bind new_id = cur.var(int), and return "
                  "new_id.getvalue()[0]: the id comes back from the INSERT itself, with no second query."]


def _json_bind_problem(statement: Statement, metadata: dict) -> str | None:
    """A dict bound for the JSON column without a declared JSON type: python-oracledb refuses it (DPY-3002)."""
    declared = statement.input_sizes
    if isinstance(statement.binds, dict):
        items = [(str(name).lower(), value) for name, value in statement.binds.items()]
    else:
        items = list(enumerate(statement.binds or []))
    for key, value in items:
        if isinstance(value, (dict, list)) and value == metadata and declared.get(key) is not oracledb.DB_TYPE_JSON:
            return (f"the metadata dict is bound to :{key} without declaring its type: python-oracledb raises "
                    "DPY-3002 (a dict is not a bind type) on Oracle Database")
    return None


def _insert_of_call(recorder: RecordingConnection, before: int, call: str) -> Statement:
    inserts = [s for s in recorder.statements[before:] if statement_kind(s.sql) == "INSERT"]
    expect(inserts, f"{call} ran no INSERT statement", "INSERT INTO conversation_memory (...) VALUES (...)")
    expect(len(inserts) == 1, f"{call} ran {len(inserts)} INSERT statements for one turn", "One INSERT per turn.")
    return inserts[0]


@checkpoint("write a turn with INSERT ... RETURNING id INTO", hint=(
    'The INSERT binds every value, declares the dict as JSON and hands back the new id itself (section 2,'
         " 'Writing a turn').",
    'new_id = cur.var(int); cur.setinputsizes(metadata=oracledb.DB_TYPE_JSON); INSERT ... VALUES '
         '(:thread_id, :role, :content, :metadata) RETURNING id INTO :new_id; conn.commit(); return '
         'new_id.getvalue()[0].'))
def check_write_conversation(conn: oracledb.Connection, write_conversation: Callable) -> str:
    _expect_function(write_conversation, "write_conversation")
    expect_table(conn, TABLE)
    token = _token()
    thread = f"checkpoint-{token}"
    metadata = {"probe": token, "tags": ["a", "b"], "nested": {"ok": True}}
    plain = f"Second probe turn {token}."
    turns_before = _turn_ids(conn)
    try:
        recorder = RecordingConnection(conn)
        returned = []
        for role, content, meta in (("user", HOSTILE, dict(metadata)), ("assistant", plain, None)):
            before = len(recorder.statements)
            call = f"write_conversation(conn, {thread!r}, {role!r}, ..., metadata={'None' if meta is None else '{...}'})"
            try:
                written = write_conversation(recorder, thread, role, content, meta)
            except oracledb.Error as exc:
                if "DPY-3002" in str(exc) and meta is not None:
                    fail("the metadata dict was bound without declaring its type: python-oracledb refuses it "
                         "(DPY-3002: a dict is not a bind type)", JSON_BIND_HINT)
                raise
            value = _as_id(written, "write_conversation")
            insert = _insert_of_call(recorder, before, call)
            for statement in recorder.statements[before:]:
                expect(token not in statement.sql and "DROP TABLE" not in statement.sql.upper(),
                       f"{call} wrote a value into the SQL text instead of binding it: {statement.sql.strip()[:80]!r}",
                       "Pass every value as a bind variable (:thread_id, :content, ...), never with an f-string: a "
                       "turn may contain quotes or SQL, and must be stored verbatim.")
                if statement_kind(statement.sql) == "SELECT" and calls_function(statement.sql, "MAX"):
                    fail(f"{call} read the new id with a second query (MAX(id)): wrong as soon as two sessions "
                         "write at once", RETURNING_HINT)
            expect(content in insert.bind_values(), f"{call}: the content was not bound to the INSERT",
                   "Bind the text as :content.")
            if meta is not None:
                problem = _json_bind_problem(insert, meta)
                if problem:
                    fail(problem, JSON_BIND_HINT)
            out_values = [v.getvalue() for v in recorder.vars]
            from_returning = any(value in (got if isinstance(got, list) else [got]) for got in out_values)
            expect(from_returning, f"{call} returned {value}, which did not come back from RETURNING ... INTO",
                   RETURNING_HINT)
            returned.append(value)
        first, second = returned
        select = "SELECT id, thread_id, role, content, metadata, created_at FROM conversation_memory WHERE id = :id"
        with _second_session(conn) as other:
            seen = {new_id: _rows(other, select, {"id": new_id}) for new_id in (first, second)}
        for new_id in (first, second):
            if not seen[new_id]:
                if _rows(conn, select, {"id": new_id}):
                    fail("your session sees the new turn but other sessions do not: it is not committed",
                         COMMIT_HINT)
                fail(f"write_conversation returned {new_id}, but no turn has that id",
                     "Return the id the INSERT's RETURNING id INTO clause gives back, not a count or a guess.")
        (_, got_thread, role, content, got_meta, created_at), = seen[first]
        expect(got_thread == thread and role == "user",
               f"the turn was stored with thread_id {got_thread!r} and role {role!r}, expected {thread!r} and 'user'",
               "Bind the arguments in the order of the column list.")
        expect(content == HOSTILE, f"the content was not stored verbatim: {content!r}",
               "Pass the text as a bind variable (:content), never by formatting it into the SQL string.")
        expect(got_meta == metadata, f"the metadata came back as {got_meta!r}, expected {metadata!r}",
               "Bind the metadata to the JSON column (declared as DB_TYPE_JSON, or as JSON text); it may be None.")
        expect(created_at is not None, "CREATED_AT is empty", "Leave created_at out of the INSERT: its default fills "
                                                              "it.")
        expect(second > first, f"the second turn got id {second}, not more than the first ({first})",
               "Let the identity column number the turns: do not insert an id yourself.")
        (_, _, role2, content2, meta2, _), = seen[second]
        expect(role2 == "assistant" and content2 == plain and meta2 in (None, {}),
               f"the second turn was stored with role {role2!r} and metadata {meta2!r}",
               "Store the role as given, and NULL metadata when metadata is None.")
    finally:
        _cleanup_turns(conn, "thread_id = :thread", {"thread": thread}, turns_before)
    return f"ids {first} and {second} came back from RETURNING INTO; values bound, rows committed, text verbatim"


# --------------------------------------------------------------------------- TODO 3
#: (thread, turn number, seconds after the start) in *insertion* order: ids grow in this order, so the
#: insertion order differs from the time order (ORDER BY id gives another answer than ORDER BY created_at, id), and
#: A2/A3 share one timestamp (their order is decided by id).
PROBE_TURNS = (("a", 0, 0), ("b", 0, 1), ("a", 2, 5), ("a", 1, 3), ("b", 1, 4), ("a", 3, 5), ("a", 4, 9),
               ("b", 2, 10), ("a", 5, 8))


def _insert_probe_turns(conn: oracledb.Connection, token: str) -> dict[str, list[tuple[int, str]]]:
    """Interleaved turns of two threads; returns (id, content) per thread in (created_at, id) order."""
    threads = {"a": f"checkpoint-{token}-a", "b": f"checkpoint-{token}-b"}
    start = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=1)
    stored: dict[str, list[tuple[datetime, int, str]]] = {name: [] for name in threads.values()}
    with conn.cursor() as cur:
        for letter, number, seconds in PROBE_TURNS:
            thread = threads[letter]
            content = f"{letter.upper()}{number} {HOSTILE if number == 0 else 'turn'}"
            new_id = cur.var(oracledb.DB_TYPE_NUMBER)
            at = start + timedelta(seconds=seconds)
            cur.execute("INSERT INTO conversation_memory (thread_id, role, content, created_at) "
                        "VALUES (:thread, :role, :content, :at) RETURNING id INTO :new_id",
                        thread=thread, role="user" if number % 2 == 0 else "assistant", content=content, at=at,
                        new_id=new_id)
            stored[thread].append((at, int(new_id.getvalue()[0]), content))
    conn.commit()
    return {thread: [(i, c) for _, i, c in sorted(rows)] for thread, rows in stored.items()}


def _turns(result: Any, call: str) -> list[dict]:
    if result is None:
        fail(f"{call} returned None", "Return the list of turns (a `return` may be missing).")
    if isinstance(result, (str, bytes, Mapping)) or not hasattr(result, "__iter__"):
        fail(f"{call} returned a {type(result).__name__}, expected a list of dicts",
             "Return [{'id': ..., 'role': ..., 'content': ..., ...}, ...], one dict per turn.")
    if not isinstance(result, list):
        fail(f"{call} returned a {type(result).__name__}, expected a list of dicts: the next cells index it and "
             "read it more than once", ("Return the turns themselves: a list, one dict per turn (section 3).",
                                        "return [{'id': ..., 'role': ..., 'content': ...} for ... in rows]"))
    turns = list(result)
    expect_keys(turns, ["id", "role", "content"], what="turn",
                hint="Build one dict per row with at least id, role and content: a later cell compares your turns "
                     "with the package's by t['id'].")
    return turns


def _expect_turns(got: list[str], want: list[str], others: list[str], call: str, limit: int) -> None:
    foreign = [c for c in got if c in others]
    if foreign:
        fail(f"{call} returned turns of another thread ({foreign[0]!r})",
             "Filter the rows: WHERE thread_id = :thread_id.")
    expect_at_most_k(got, limit, what="turns",
                     hint="Return at most `limit` turns: FETCH FIRST :limit ROWS ONLY (in the inner query).")
    if got == want:
        return
    if sorted(got) == sorted(want):
        fail(f"{call} returned the right turns in the wrong order: {got}",
             "Return them oldest first (the order a prompt needs): ORDER BY created_at, id (id breaks ties; ids are "
             "not in time order when turns are stored late).")
    fail(f"{call} returned {got}, expected the newest {len(want)} turns, oldest first: {want}",
         ("Two orderings in one query: the newest by time inside an inline view, then oldest first outside it "
          "(section 3, 'Reading a thread').", "Take the newest turns (ORDER BY created_at DESC, id DESC FETCH FIRST "
          ":limit ROWS ONLY in an inline view), then ORDER BY created_at, id outside it.") if got else
         "Select the thread's turns: SELECT ... FROM conversation_memory WHERE thread_id = :thread_id.")


@checkpoint("read a thread's newest turns, oldest first", hint=(
    "The newest turns of one thread, by time, returned oldest first: two orderings (section 3, 'Reading a"
         " thread').",
    'SELECT ... FROM (SELECT ... FROM conversation_memory WHERE thread_id = :thread_id ORDER BY '
         'created_at DESC, id DESC FETCH FIRST :limit ROWS ONLY) ORDER BY created_at, id.'))
def check_read_conversation(conn: oracledb.Connection, read_conversation: Callable) -> str:
    _expect_function(read_conversation, "read_conversation")
    expect_table(conn, TABLE)
    token = _token()
    before = _turn_ids(conn)
    try:
        contents = _insert_probe_turns(conn, token)
        (a, turns_a), (b, turns_b) = contents.items()
        for thread, limit, want, others in ((a, 3, turns_a[-3:], turns_b), (a, 10, turns_a, turns_b),
                                            (b, 2, turns_b[-2:], turns_a), (a, 4, turns_a[-4:], turns_b)):
            call = f"read_conversation(conn, {thread!r}, {limit})"
            recorder = RecordingConnection(conn)
            turns = _turns(read_conversation(recorder, thread, limit), call)
            got = [_text(t["content"]) for t in turns]
            _expect_turns(got, [c for _, c in want], [c for _, c in others], call, limit)
            fetched = recorder.rows_fetched
            expect(fetched <= limit, f"{call} fetched {fetched} rows from the database and kept {len(got)} in "
                   "Python", "Let the query return only what is needed: WHERE thread_id = :thread_id and FETCH "
                   "FIRST :limit ROWS ONLY in SQL, not a slice or a filter in Python.")
            expect(not any(thread in s.sql for s in recorder.statements),
                   f"{call} wrote the thread id into the SQL text", "Bind it: WHERE thread_id = :thread_id.")
            ids = [t["id"] for t in turns]
            expect(ids == [i for i, _ in want], f"{call} returned the ids {ids}, expected {[i for i, _ in want]}",
                   "Return each turn's own id (the ID column).")
    finally:
        _cleanup_turns(conn, "thread_id LIKE :pattern", {"pattern": f"checkpoint-{token}-%"}, before)
    return "thread-scoped in SQL, at most `limit` rows fetched, the newest by time, oldest first, with ids"


# --------------------------------------------------------------------------- TODO 4
def _model_dimensions(conn: oracledb.Connection) -> int:
    return int(_rows(conn, f"SELECT VECTOR_DIMENSION_COUNT(VECTOR_EMBEDDING({_model()} USING 'x' AS data)) "
                           "FROM dual")[0][0])


INDEX_HINT_FIRST = "Each store needs one HNSW index with a fixed name, so that a second run finds it (section 4)."
INDEX_HINT = ('Each store gets its own HNSW index, under a fixed name so a rerun finds it (section 4).',
              ("For each store: create_index(conn, store, params={'idx_name': f'{table}_HNSW', 'idx_type': 'HNSW'}). "
              "The fixed name lets create_index see that the index exists when the cell runs again."))


def _store_indexes(conn: oracledb.Connection) -> dict[str, list[tuple[str, str]]]:
    """Per store table: (index name, kind) of the indexes on its EMBEDDING column."""
    found: dict[str, list[tuple[str, str]]] = {table: [] for table in STORE_TABLES.values()}
    rows = _rows(conn, """SELECT i.table_name, i.index_name, i.index_type FROM user_indexes i
                          JOIN user_ind_columns c ON c.index_name = i.index_name
                          WHERE c.column_name = 'EMBEDDING' ORDER BY i.table_name, i.index_name""")
    for table, name, kind in rows:
        if table in found:
            found[table].append((name, kind))
    return found


def _expect_store_indexes(conn: oracledb.Connection, when: str) -> dict[str, str]:
    names = {}
    for table, indexes in _store_indexes(conn).items():
        vector = [name for name, kind in indexes if kind == "VECTOR"]
        expect(vector, f"{when}: {table} has no vector index on EMBEDDING", [INDEX_HINT_FIRST, INDEX_HINT])
        expect(len(vector) == 1, f"{when}: {table} has {len(vector)} vector indexes ({', '.join(vector)})",
               "One HNSW index per store: drop the extra ones (DROP INDEX <name>).")
        facts = vector_index(conn, vector[0])
        if facts is not None:
            expect(facts.organization == "HNSW", f"{when}: {vector[0]} on {table} is an {facts.organization} index, "
                   "expected HNSW (ORGANIZATION INMEMORY NEIGHBOR GRAPH)",
                   f"Drop it (DROP INDEX {vector[0]}) and create an HNSW index: {INDEX_HINT}")
            expect(facts.distance in (None, "COSINE"), f"{when}: {vector[0]} on {table} measures {facts.distance}, "
                   "expected COSINE (the stores' distance)",
                   f"Drop it (DROP INDEX {vector[0]}) and create it with DISTANCE COSINE: an index built for another "
                   "distance is not used by the stores' COSINE searches.")
        names[table] = vector[0]
    return names


def store_indexes_in_database(conn: oracledb.Connection) -> str:
    """What checkpoints.progress can judge from the database: the five store tables, each with one HNSW index."""
    for table in STORE_TABLES.values():
        expect_table(conn, table, "Run the stores TODO cell: creating an OracleVS creates its table.")
    _expect_store_indexes(conn, "in the database")
    return "five store tables, one HNSW index each"


@checkpoint("the five OracleVS stores, each with an HNSW index", live=store_indexes_in_database, hint=(
    'One store per memory type: database embeddings, cosine distance, upserts, and an HNSW index each '
         '(section 4).',
    'OracleVS(conn, embeddings, table, DistanceStrategy.COSINE, mutate_on_duplicate=True) per '
         "STORE_TABLES entry; create_index(conn, store, params={'idx_name': f'{table}_HNSW', 'idx_type': "
         "'HNSW'})."))
def check_stores(conn: oracledb.Connection, stores: Any, index_stores: Callable | None = None) -> str:
    from langchain_oracledb import OracleEmbeddings, OracleVS
    from langchain_oracledb.vectorstores.utils import DistanceStrategy

    expect_filled(stores, "stores")
    expect(isinstance(stores, Mapping), f"`stores` is a {type(stores).__name__}, expected a dict", STORES_HINT)
    missing = [key for key in STORE_TABLES if key not in stores]
    extra = [key for key in stores if key not in STORE_TABLES]
    expect(not missing and not extra, f"`stores` has the keys {list(stores)}; expected {list(STORE_TABLES)}",
           STORES_HINT)
    model = config.embedding_model_name()
    dims = _model_dimensions(conn)
    for key, table in STORE_TABLES.items():
        store = stores[key]
        expect(isinstance(store, OracleVS), f"stores[{key!r}] is a {type(store).__name__}, not an OracleVS",
               STORES_HINT)
        expect(store.table_name == f'"{table}"', f"stores[{key!r}] uses the table {store.table_name}, expected {table}",
               f"Name the table \"{table}\" (upper case, so that SQL can write it without quotes).")
        embedder = store.embedding_function
        params = getattr(embedder, "params", None) or {}
        expect(isinstance(embedder, OracleEmbeddings) and params.get("provider") == "database",
               f"stores[{key!r}] does not embed in the database (its embedding function is "
               f"{type(embedder).__name__} {params or ''})",
               "Use embeddings = OracleEmbeddings(conn=conn, params={'provider': 'database', 'model': MODEL}) for "
               "every store.")
        expect(str(params.get("model", "")).upper() == model,
               f"stores[{key!r}] uses the model {params.get('model')!r}, expected {model}",
               f"Pass 'model': '{model}' (workshop.config.embedding_model_name()).")
        expect(store.distance_strategy == DistanceStrategy.COSINE,
               f"stores[{key!r}] measures {store.distance_strategy.name}, expected COSINE",
               "Pass DistanceStrategy.COSINE: the OracleVS default is EUCLIDEAN_DISTANCE.")
        expect(store.mutate_on_duplicate is True,
               f"stores[{key!r}] skips a record whose id exists instead of updating it",
               "Pass mutate_on_duplicate=True, so that writing an entity or a tool again updates its row.")
        expect_column(conn, table, "embedding", "VECTOR", dims=dims, fmt="FLOAT32",
                      hint=f"Drop {table} and create the store again with the in-database model.")
    _expect_function(index_stores, "index_stores")
    names = _expect_store_indexes(conn, "after the TODO 4 cell")
    try:
        index_stores(conn, stores)
    except Exception as exc:  # noqa: BLE001 - the rerun's own error is the finding
        fail(f"running index_stores(conn, stores) a second time fails: {str(exc).strip().splitlines()[0]}",
             INDEX_HINT)
    again = _expect_store_indexes(conn, "after running index_stores a second time")
    expect(again == names, f"a second run replaced the indexes: {names} became {again}", INDEX_HINT)
    return (f"5 stores, COSINE, embeddings by {model} in the database ({dims} dimensions); one vector index each, "
            "a second run changes nothing")


# --------------------------------------------------------------------------- TODO 5
@checkpoint("write to the knowledge base", hint=(
    'A fact goes into the knowledge_base store with its metadata; the store gives back its id (section '
         '5).',
    "ids = stores['knowledge_base'].add_texts([text], metadatas=[metadata or {}]); return ids[0]."))
def check_write_knowledge(conn: oracledb.Connection, stores: Any, write_knowledge: Callable) -> str:
    _expect_function(write_knowledge, "write_knowledge")
    _store(stores, "knowledge_base")
    token = _token()
    text = f"Checkpoint fact {token}: HNSW is a graph index; it's \"approximate\" — ünïcødé."
    bare = f"Checkpoint fact {token} without metadata."
    metadata = {"source": "checkpoint", "probe": token, "page": 7}
    where, binds = _probe_where(token)
    snapshot = _snapshot(conn)
    hint = "Write with stores['knowledge_base'].add_texts(...)."
    try:
        returned = write_knowledge(stores, text, dict(metadata))
        rows = _store_rows(conn, "KNOWLEDGE_BASE_VS", where, binds, what="fact", expected_table_hint=hint,
                           snapshot=snapshot, looked_for="the fact's text")
        expect(len(rows) == 1, f"the fact was written {len(rows)} times", "Call add_texts once, with one text.")
        [(stored_text, stored_meta)] = rows
        expect(stored_text == text, f"the text was stored as {stored_text!r}", "Store the text as given.")
        wrong = _missing_metadata(stored_meta, metadata)
        expect(not wrong, f"the metadata is missing or differs for {sorted(wrong)} (stored: "
               f"{ {k: v for k, v in stored_meta.items() if k != INTERNAL_ID_KEY} })",
               ("A record's metadata travels with its text into the store (section 5).",
                "Pass the metadata along: add_texts([text], metadatas=[metadata])."))
        _record_id(returned, "write_knowledge", stored_meta.get(INTERNAL_ID_KEY))
        expect(_embedded_from_text(conn, "KNOWLEDGE_BASE_VS", where, binds),
               "the stored vector is not the in-database embedding of the text",
               "Let the store embed the text: pass the text itself to add_texts.")
        try:
            write_knowledge(stores, bare, None)
        except Exception as exc:  # noqa: BLE001 - the learner's error is the finding
            fail(f"write_knowledge(stores, text, None) raised {type(exc).__name__}: {exc}",
                 "metadata may be None (the default): pass metadatas=[metadata or {}].")
        rows = _store_rows(conn, "KNOWLEDGE_BASE_VS", "DBMS_LOB.SUBSTR(text, 1000, 1) = :text", {"text": bare},
                           what="fact written with metadata=None", expected_table_hint=hint, snapshot=snapshot)
        extra = {k: v for k, v in rows[0][1].items() if k != INTERNAL_ID_KEY}
        expect(not extra, f"with metadata=None the fact was stored with the metadata {extra}",
               "No metadata means an empty dict: metadatas=[metadata or {}].")
    finally:
        _cleanup_stores(conn, token, snapshot)
    return "stored verbatim with its metadata (and with none), embedded in the database, id returned"


# --------------------------------------------------------------------------- TODO 6
#: (text, topic, rank). The second text is the first's twin: the two tie on distance, and either order is right.
KNOWLEDGE_PROBES = (
    ("HNSW builds a navigable graph over vectors for approximate nearest neighbour search.", "vector", 1),
    ("HNSW builds a navigable graph over vectors for approximate nearest neighbour search.", "keyword", 3),
    ("IVF partitions vectors into clusters and searches the nearest partitions.", "vector", 2),
    ("Oracle Text CONTAINS finds documents by keyword and scores each match.", "keyword", 2),
    ("Reciprocal rank fusion adds 1/(k + rank) over several result lists.", "hybrid", 1),
    ("A keyword index maps every word to the rows that contain it.", "keyword", 1),
)
KNOWLEDGE_QUERY = "graph index for approximate nearest neighbour vector search"
TIE = 1e-6


def _knowledge_records(result: Any, call: str) -> list[dict]:
    if result is None:
        fail(f"{call} returned None", "Return the list of results (a `return` may be missing).")
    if isinstance(result, (str, bytes, Mapping)) or not hasattr(result, "__iter__"):
        fail(f"{call} returned a {type(result).__name__}, expected a list of dicts")
    records = list(result)
    expect_keys(records, ["text", "metadata", "distance"], what="result",
                hint=("A search with scores gives (document, distance) pairs; the next cells show text, metadata and "
                      "distance of each (section 6).",
                      "Return {'text': doc.page_content, 'metadata': doc.metadata, 'distance': score} (and 'id': "
                      "doc.id) for each (doc, score)."))
    return records


def _reference(conn: oracledb.Connection, token: str) -> list[tuple[str, dict, float, str]]:
    """(text, metadata, distance, id) of every probe, nearest first, computed in SQL by the checkpoint."""
    rows = _rows(conn, f"""SELECT text, metadata,
                                  VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({_model()} USING :query AS data), COSINE)
                                  AS distance, RAWTOHEX(id)
                           FROM knowledge_base_vs WHERE JSON_VALUE(metadata, '$.probe') = :token
                           ORDER BY distance, RAWTOHEX(id)""", {"token": token, "query": KNOWLEDGE_QUERY})
    return [(text, dict(meta), float(distance), rid) for text, meta, distance, rid in rows]


def _expect_nearest_with_ties(got: list[dict], want: list[tuple[str, dict, float, str]], pool: list, call: str,
                              k: int) -> None:
    """got is the top k of `pool` by distance; among equal distances any order (and any member at the cut) is right."""
    expect(len(got) == len(want), f"{call} returned {len(got)} results, expected {len(want)}",
           "Return every result the search gives, up to k (the filter runs in SQL, before the limit).")
    for position, (record, (_, _, distance, _)) in enumerate(zip(got, want), start=1):
        text = _text(record["text"])
        tied = [t for t, _, d, _ in pool if abs(d - distance) <= TIE]
        if text not in tied:
            fail(f"{call}: result {position} is {text!r}, expected {want[position - 1][0]!r} (nearest first; "
                 f"expected order {[w[0][:30] for w in want]})",
                 "Keep the store's order (nearest first) and pass k and the filter on to the store.")
        expect(isinstance(record["distance"], (int, float)) and abs(float(record["distance"]) - distance) <= 1e-4,
               f"{call}: result {position} has the distance {record['distance']!r}, expected {distance:.4f}",
               "Return the score that similarity_search_with_score gives with each document.")


@checkpoint("search the knowledge base (k and a metadata filter)", hint=(
    'The store searches with k and the filter in SQL and returns (document, distance) pairs (section 6).',
    "results = stores['knowledge_base'].similarity_search_with_score(query, k=k, filter=filter); one dict"
         ' per (doc, distance).'))
def check_read_knowledge(conn: oracledb.Connection, stores: Any, read_knowledge: Callable) -> str:
    _expect_function(read_knowledge, "read_knowledge")
    store = _store(stores, "knowledge_base")
    token = _token()
    snapshot = _snapshot(conn)
    try:
        store.add_texts([f"{text} [{token}]" for text, _, _ in KNOWLEDGE_PROBES],
                        [{"probe": token, "topic": topic, "rank": rank} for _, topic, rank in KNOWLEDGE_PROBES])
        reference = _reference(conn, token)
        cases = (  # (k, filter, which probes match)
            (2, {"probe": token}, lambda m: True),
            (1, {"probe": token}, lambda m: True),   # the cut falls inside the tie: either twin is right
            (2, {"probe": token, "topic": "keyword"}, lambda m: m["topic"] == "keyword"),
            (3, {"$and": [{"probe": token}, {"rank": {"$gte": 2}}]}, lambda m: m["rank"] >= 2),
            (4, {"probe": token, "topic": {"$in": ["hybrid", "vector"]}}, lambda m: m["topic"] in ("hybrid", "vector")),
        )
        for k, flt, matches in cases:
            call = f"read_knowledge(stores, query, k={k}, filter={flt})"
            recorded = recording_stores(stores)
            records = _knowledge_records(read_knowledge(recorded, KNOWLEDGE_QUERY, k=k, filter=flt), call)
            expect_at_most_k(records, k, what="results",
                             hint=("The store returns at most k results: k is the search's own argument (section 6).",
                                  "Pass k on to the store: similarity_search_with_score(query, k=k, filter=filter)."))
            pool = [r for r in reference if matches(r[1])]
            outside = [r for r in records if _text(r["text"]) not in {p[0] for p in pool}
                       or not matches({**{"topic": None, "rank": 0}, **(r["metadata"] or {})})]
            if outside:
                fail(f"{call} returned a record that does not match the filter: {_text(outside[0]['text'])!r}",
                     ('The store applies the filter in SQL, before its top-k limit (section 6).',
                "Pass the filter on to the store: similarity_search_with_score(query, k=k, filter=filter)."))
            searches = recorded["knowledge_base"].searches()
            expect(searches, f"{call} did not search stores['knowledge_base']",
                   ('Knowledge is searched in its own store, the knowledge_base one (section 6).',
                "Call stores['knowledge_base'].similarity_search_with_score(query, k=k, filter=filter)."))
            asked = [(4 if c.k is None else c.k, c.filter) for c in searches]   # 4: OracleVS's default k
            if not any(a_k == k and a_filter == flt for a_k, a_filter in asked):
                a_k, a_filter = asked[0]
                if a_k == k:
                    fail(f"{call} did not pass the filter on to the store (it searched with filter={a_filter})",
                         ('The store applies the filter in SQL, before its top-k limit (section 6).',
                "Pass it on: similarity_search_with_score(query, k=k, filter=filter); the store applies it in "
                         "SQL, before the top-k limit."))
                fail(f"{call} asked the store for k={a_k} and filter={a_filter}: the filter and the limit must run in "
                     "the database, not as a slice or a filter in Python",
                     ("k and the filter both belong to the store's search, so the database does the work (section 6).",
                "Pass both on: similarity_search_with_score(query, k=k, filter=filter)."))
            _expect_nearest_with_ties(records, pool[:k], pool, call, k)
            for record in (r for r in records if "id" in r):      # the id is optional (the prose: "and id")
                text = _text(record["text"])
                valid = {p[1].get(INTERNAL_ID_KEY) for p in pool if p[0] == text}
                expect(record["id"] in valid, f"{call}: the result {text[:40]!r} has the id {record['id']!r}, not its "
                       "record's id", "Return doc.id, the id the store gave the record.")
        call = "read_knowledge(stores, query, k=2)"          # the next cell asks without a filter
        try:
            unfiltered = read_knowledge(recording_stores(stores), KNOWLEDGE_QUERY, k=2)
        except (TypeError, AttributeError, KeyError) as error:
            fail(f"{call}, without a filter, raised {type(error).__name__}: {error}; the next cell searches without "
                 "one (filter=None means: no filter)", ("filter=None is the default: hand it on as it is (section 6).",
                                                         "similarity_search_with_score(query, k=k, filter=filter) with "
                                                         "filter None searches everything."))
        records = _knowledge_records(unfiltered, call)
        expect(len(records) == 2, f"{call} returned {len(records)} results, expected 2 (the store holds more)")
    finally:
        _cleanup_stores(conn, token, snapshot)
    return "at most k results, filters (also $and, $gte, $in) applied in SQL, nearest first (ties either way), ids"


# --------------------------------------------------------------------------- TODO 7
WORKFLOW_KEYS = ("query", "num_steps", "success", "timestamp")
FROZEN_CLOCK_MARGIN = 0.05      # past the next whole second: two stamps of seconds resolution must then differ


def _wait_for_the_next_second() -> None:
    """Sleep until the wall clock has entered the next second (0.05 to 1.05 s, 0.55 s on average): a stamp of
    seconds resolution written after it differs from one written before, and the checkpoint waits no longer."""
    time.sleep(1 + FROZEN_CLOCK_MARGIN - time.time() % 1)


def _check_workflow(meta: dict, text: str, query: str, steps: list[str], answer: str, success: bool) -> None:
    visible = {k: v for k, v in meta.items() if k != INTERNAL_ID_KEY}
    missing = [key for key in WORKFLOW_KEYS if key not in meta]
    expect(not missing, f"the workflow metadata is missing {missing} (it has {visible})",
           ("A workflow's metadata has four computed keys: query, num_steps, success, timestamp (section 7).",
                "metadata = {'query': query, 'num_steps': len(steps), 'success': success, 'timestamp': "
           "datetime.now(timezone.utc).isoformat()}"))
    expect(meta["query"] == query, f"metadata['query'] is {meta['query']!r}, expected {query!r}",
           "Store the query as given.")
    steps_count = meta["num_steps"]
    expect(isinstance(steps_count, int) and not isinstance(steps_count, bool) and steps_count == len(steps),
           f"metadata['num_steps'] is {steps_count!r} for {len(steps)} steps",
           "Compute it: num_steps = len(steps) (an int).")
    expect(meta["success"] is success, f"metadata['success'] is {meta['success']!r}, expected {success!r}",
           "Store the bool itself (a JSON true/false), not a string, so that SQL can filter on it.")
    stamp = meta["timestamp"]
    try:
        moment = datetime.fromisoformat(stamp) if isinstance(stamp, str) else None
    except ValueError:
        moment = None
    expect(moment is not None and moment.tzinfo is not None,
           f"metadata['timestamp'] is {stamp!r}, not an ISO 8601 time with a time zone",
           ('An ISO 8601 time with its UTC offset sorts and compares anywhere (section 7).',
                "Use datetime.now(timezone.utc).isoformat()."))
    expect(abs(moment - datetime.now(timezone.utc)) <= CLOCK_SLACK,
           f"metadata['timestamp'] {stamp} is not the time the workflow was written",
           ('Metadata is computed when the workflow is written (section 7).',
                "Compute it when writing: datetime.now(timezone.utc).isoformat()."))
    absent = [part for part in (query, *steps, answer) if part not in text]
    if absent:
        fail(f"the workflow text does not contain {absent[0]!r}",
             "Build the text from the query, every step and the final answer, so a search can find them.")


@checkpoint("write a workflow with computed metadata", hint=(
    "A workflow's metadata is computed when it is written, never typed (section 7, 'Workflow memory').",
    "metadata = {'query': query, 'num_steps': len(steps), 'success': bool(success), 'timestamp': "
         'datetime.now(timezone.utc).isoformat()}.'))
def check_write_workflow(conn: oracledb.Connection, stores: Any, write_workflow: Callable) -> str:
    _expect_function(write_workflow, "write_workflow")
    _store(stores, "workflow")
    token = _token()
    cases = (
        (f"How do I tune an HNSW index? ({token})", ["Look up the index parameters", "Raise EFCONSTRUCTION to 500",
                                                     "Re-measure recall@10"], "Raise EFCONSTRUCTION, then re-measure "
                                                                              "recall.", True),
        (f"How do I fix ORA-51962? ({token})", ["Restart without reading the error"], "It still fails.", False),
    )
    where, binds = _probe_where(token)
    snapshot = _snapshot(conn)
    try:
        returned = []
        for number, (query, steps, answer, success) in enumerate(cases):
            if number:
                _wait_for_the_next_second()           # a stamp computed once, when the cell ran, shows now
            returned.append(write_workflow(stores, query, list(steps), answer, success=success))
        rows = _store_rows(conn, "WORKFLOW_VS", where, binds, what="workflow",
                           expected_table_hint="Write with stores['workflow'].add_texts(...).", snapshot=snapshot,
                           looked_for="the query")
        expect(len(rows) == 2, f"2 workflows were written, {len(rows)} rows hold them",
               "Call add_texts once per workflow.")
        stamps: list[datetime] = []
        for (query, steps, answer, success), value in zip(cases, returned):
            matches = [(text, meta) for text, meta in rows if query in text]
            expect(len(matches) == 1, f"no workflow text contains the query {query!r}",
                   "Put the query in the workflow's text (e.g. 'Query: ...').")
            [(text, meta)] = matches
            _check_workflow(meta, text, query, steps, answer, success)
            _record_id(value, "write_workflow", meta.get(INTERNAL_ID_KEY))
            stamps.append(datetime.fromisoformat(meta["timestamp"]))
        expect(stamps[1] > stamps[0], "two workflows written in different seconds carry the timestamps "
               f"{stamps[0].isoformat()} and {stamps[1].isoformat()}: the time was taken once (when the cell ran, or "
               "as a default argument), not when each workflow is written",
               ("Metadata is computed at write time (section 7): every call reads the clock itself.",
                "timestamp = datetime.now(timezone.utc).isoformat() inside write_workflow's body."))
    finally:
        _cleanup_stores(conn, token, snapshot)
    return "num_steps, success (a JSON boolean) and an ISO 8601 UTC timestamp computed; steps searchable"


# --------------------------------------------------------------------------- TODO 8
@checkpoint("write an entity (one row per entity, updated in place)", hint=(
    "A stable id from the entity's type and name makes a second write an update (section 8, 'Entity "
         "memory').",
    "stores['entity'].add_texts([f'{name} ({entity_type}): {description}'], metadatas=[{**(metadata or "
         "{}), 'name': name, 'type': entity_type}], ids=[f'entity:{entity_type}:{name}'.lower()])."))
def check_write_entity(conn: oracledb.Connection, stores: Any, write_entity: Callable) -> str:
    _expect_function(write_entity, "write_entity")
    _store(stores, "entity")
    token = _token()
    name = f"Grace Hopper {token}"
    first, second = ("Computer scientist who wrote the first compiler.",
                     "Rear admiral; her A-0 system was the first compiler.")
    twin = f"Mercury {token}"
    where, binds = _probe_where(token)
    hint = "Write with stores['entity'].add_texts(...)."
    snapshot = _snapshot(conn)
    try:
        returned = write_entity(stores, name, "person", first, {"source": "checkpoint"})
        rows = _store_rows(conn, "ENTITY_VS", where, binds, what="entity", expected_table_hint=hint,
                           snapshot=snapshot, looked_for="the entity's name")
        [(text, meta)] = rows[:1]
        wrong = _missing_metadata(meta, {"name": name, "type": "person", "source": "checkpoint"})
        expect(not wrong, f"the entity's metadata is missing or differs for {sorted(wrong)} (stored: "
               f"{ {k: v for k, v in meta.items() if k != INTERNAL_ID_KEY} })",
               ("An entity's metadata is the caller's plus its name and type (section 8).",
                "metadata = {**(metadata or {}), 'name': name, 'type': entity_type}"))
        expect(name in text and first in text, f"the entity text {text!r} lacks the name or the description",
               ('The embedded text names the entity, its type and its description (section 8).',
                "Embed a text such as f'{name} ({entity_type}): {description}'."))
        _record_id(returned, "write_entity", meta.get(INTERNAL_ID_KEY))
        write_entity(stores, name, "person", second, {"source": "checkpoint"})
        rows = _store_rows(conn, "ENTITY_VS", where, binds, what="entity", expected_table_hint=hint, snapshot=snapshot)
        expect(len(rows) == 1, f"writing the same entity twice left {len(rows)} rows",
               "Give add_texts a stable id made from the type and the name, e.g. ids=[f'entity:{entity_type}:"
               "{name}'.lower()]: with mutate_on_duplicate=True the second write then updates the row.")
        [(text, _)] = rows
        expect(second in text and first not in text, f"after the update the entity still reads {text!r}",
               "The second write must replace the description (same id, mutate_on_duplicate=True).")
        try:
            write_entity(stores, twin, "planet", "The smallest planet, nearest to the Sun.", None)
            write_entity(stores, twin, "element", "A metal that is liquid at room temperature.", None)
        except Exception as exc:  # noqa: BLE001 - the learner's error is the finding
            fail(f"write_entity(stores, name, entity_type, description, None) raised {type(exc).__name__}: {exc}",
                 ('metadata=None is the default: the function must work without it (section 8).',
                "metadata may be None (the default): start from {**(metadata or {}), ...}."))
        twins = _store_rows(conn, "ENTITY_VS", "DBMS_LOB.SUBSTR(text, 1000, 1) LIKE :p", {"p": f"%Mercury {token}%"},
                            what="entity", expected_table_hint=hint, snapshot=snapshot)
        expect(len(twins) == 2, f"two entities named {twin!r} (a planet and an element) left {len(twins)} row(s): one "
               "overwrote the other", "Make the id from the type and the name, so that a planet and an element of the "
                                      "same name are two entities.")
    finally:
        _cleanup_stores(conn, token, snapshot)
    return "name and type in the metadata; a second write updated the same row; same name, other type: two rows"


todo_1, todo_2, todo_3, todo_4 = check_conversation_table, check_write_conversation, check_read_conversation, check_stores
todo_5, todo_6, todo_7, todo_8 = check_write_knowledge, check_read_knowledge, check_write_workflow, check_write_entity


def needs(todo: str, *values) -> None:
    """In a cell that uses a TODO's result: one line naming the TODO when it is not done yet (framework.needs)."""
    _needs(__name__, todo, *values)
