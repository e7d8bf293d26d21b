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
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import oracledb

from workshop import config, schema

from .framework import (checkpoint, expect, expect_at_most_k, expect_column, expect_filled, expect_keys, expect_table,
                        fail, table_exists)
from .framework.dictionary import COMMIT_HINT
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

STORES_HINT = ("Create the five stores as in the TODO: OracleVS(conn, embeddings, \"KNOWLEDGE_BASE_VS\", "
               "DistanceStrategy.COSINE, mutate_on_duplicate=True), and so on, in a dict keyed knowledge_base, "
               "workflow, toolbox, entity, summary.")


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
        fail(f"`stores` has no {key!r} store", f"Pass the `stores` dict from {todo_ref(__name__, 'stores')} (run its cell and checkpoint "
             "first).")
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


def _store_rows(conn: oracledb.Connection, table: str, where: str, binds: dict, *, what: str,
                expected_table_hint: str) -> list[tuple[Any, dict]]:
    """(text, metadata) of the rows matching `where` in `table`, as a second session sees them."""
    with _second_session(conn) as other:
        committed = _rows(other, f"SELECT text, metadata FROM {table} WHERE {where}", binds)
    if committed:
        return [(text, dict(meta or {})) for text, meta in committed]
    if _rows(conn, f"SELECT COUNT(*) FROM {table} WHERE {where}", binds)[0][0]:
        fail(f"your session sees the {what} in {table} but other sessions do not: it is not committed", COMMIT_HINT)
    elsewhere = {t: n for t, n in _find_in_stores(conn, where, binds).items() if n and t != table}
    if elsewhere:
        fail(f"the {what} went to {', '.join(elsewhere)}, not to {table}", expected_table_hint)
    fail(f"no {what} was written to {table}",
         "Call add_texts on the right store with the text and its metadata (metadatas=[metadata]).")


def _missing_metadata(stored: dict, expected: dict) -> dict:
    return {key: value for key, value in expected.items() if stored.get(key) != value}


def _probe_where(token: str) -> tuple[str, dict]:
    """Rows whose text mentions the token. The probe texts are short, so their first 1000 characters
    hold it; 1000 characters also fit SQL's 4000-byte VARCHAR2 limit in any character set."""
    return "DBMS_LOB.SUBSTR(text, 1000, 1) LIKE :pattern", {"pattern": f"%{token}%"}


def _cleanup_stores(conn: oracledb.Connection, token: str) -> None:
    where, binds = _probe_where(token)
    _cleanup(conn, [(table, where, binds) for table in STORE_TABLES.values()])


def _embedded_from_text(conn: oracledb.Connection, table: str, where: str, binds: dict) -> bool:
    sql = (f"SELECT MAX(VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({_model()} USING DBMS_LOB.SUBSTR(text, 1000, 1) "
           f"AS data), COSINE)) FROM {table} WHERE {where}")
    distance = _rows(conn, sql, binds)[0][0]
    return distance is not None and distance < DISTANCE_TOLERANCE


# --------------------------------------------------------------------------- TODO 1
def _column_facts(conn: oracledb.Connection, table: str) -> dict[str, tuple[str, str]]:
    rows = _rows(conn, "SELECT column_name, identity_column, data_default FROM user_tab_columns "
                       "WHERE table_name = :t", {"t": table})
    return {name: (identity, (default or "").strip().upper()) for name, identity, default in rows}


def _primary_key(conn: oracledb.Connection, table: str) -> list[str]:
    rows = _rows(conn, """SELECT cc.column_name FROM user_constraints c
                          JOIN user_cons_columns cc ON cc.constraint_name = c.constraint_name
                          WHERE c.table_name = :t AND c.constraint_type = 'P'""", {"t": table})
    return sorted(row[0] for row in rows)


@checkpoint("create the CONVERSATION_MEMORY table")
def check_conversation_table(conn: oracledb.Connection, conversation_ddl: str) -> str:
    expect_filled(conversation_ddl, "conversation_ddl")
    expect(isinstance(conversation_ddl, str) and re.match(r"\s*CREATE\s+TABLE\b", conversation_ddl, re.I),
           "`conversation_ddl` should be one CREATE TABLE statement",
           "Set conversation_ddl to the text of a CREATE TABLE IF NOT EXISTS conversation_memory (...) statement.")
    expect_table(conn, TABLE)
    expect_column(conn, TABLE, "id", "NUMBER")
    facts = _column_facts(conn, TABLE)
    expect(facts["ID"][0] == "YES", "ID is not an identity column: the database does not number the turns",
           "Declare it as id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, then drop and re-create the table.")
    expect(_primary_key(conn, TABLE) == ["ID"], "ID is not the table's primary key",
           "Add PRIMARY KEY to the id column.")
    expect_column(conn, TABLE, "thread_id", "VARCHAR2", nullable=False,
                  hint="thread_id VARCHAR2(100) NOT NULL: every turn belongs to a thread.")
    expect_column(conn, TABLE, "role", "VARCHAR2", nullable=False,
                  hint="role VARCHAR2(20) NOT NULL: user, assistant, system or tool.")
    expect_column(conn, TABLE, "content", "CLOB", nullable=False,
                  hint="content CLOB NOT NULL: a turn can be longer than any VARCHAR2.")
    expect_column(conn, TABLE, "metadata", "JSON", hint="metadata JSON: the native JSON type, not a CLOB.")
    expect_column(conn, TABLE, "created_at", "TIMESTAMP WITH TIME ZONE",
                  hint="created_at TIMESTAMP WITH TIME ZONE DEFAULT SYSTIMESTAMP NOT NULL.")
    expect(facts["CREATED_AT"][1] in ("SYSTIMESTAMP", "CURRENT_TIMESTAMP"),
           f"CREATED_AT has no insert-time default (DEFAULT {facts['CREATED_AT'][1] or 'none'})",
           "Add DEFAULT SYSTIMESTAMP so the database stamps each turn when it is inserted.")
    expect_column(conn, TABLE, "summary_id", "VARCHAR2", nullable=True,
                  hint="summary_id VARCHAR2(100), nullable: it stays NULL until a summary covers the turn.")
    try:
        with conn.cursor() as cur:
            cur.execute(conversation_ddl)
    except oracledb.DatabaseError as exc:
        if exc.args and getattr(exc.args[0], "code", None) == 955:
            fail("running conversation_ddl a second time fails with ORA-00955 (the table exists)",
                 "Write CREATE TABLE IF NOT EXISTS conversation_memory (...), so the cell can run again.")
        raise
    return "identity ID, CLOB content, JSON metadata, CREATED_AT DEFAULT SYSTIMESTAMP; re-runnable"


# --------------------------------------------------------------------------- TODO 2
@checkpoint("write a turn with INSERT ... RETURNING id INTO")
def check_write_conversation(conn: oracledb.Connection, write_conversation: Callable) -> str:
    _expect_function(write_conversation, "write_conversation")
    expect_table(conn, TABLE)
    token = _token()
    thread = f"checkpoint-{token}"
    metadata = {"probe": token, "tags": ["a", "b"], "nested": {"ok": True}}
    try:
        first = _as_id(write_conversation(conn, thread, "user", HOSTILE, dict(metadata)), "write_conversation")
        second = _as_id(write_conversation(conn, thread, "assistant", "Second probe turn.", None),
                        "write_conversation")
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
               "Bind the metadata dict to the JSON column (it may be None).")
        expect(created_at is not None, "CREATED_AT is empty", "Leave created_at out of the INSERT: its default fills it.")
        expect(second > first, f"the second turn got id {second}, not more than the first ({first})",
               "Let the identity column number the turns: do not insert an id yourself.")
        (_, _, role2, _, meta2, _), = seen[second]
        expect(role2 == "assistant" and meta2 in (None, {}),
               f"the second turn was stored with role {role2!r} and metadata {meta2!r}",
               "Store the role as given, and NULL metadata when metadata is None.")
    finally:
        _cleanup(conn, [(TABLE, "thread_id = :thread", {"thread": thread})])
    return f"ids {first} and {second} came back from RETURNING INTO; rows committed, text verbatim"


# --------------------------------------------------------------------------- TODO 3
def _insert_probe_turns(conn: oracledb.Connection, token: str) -> dict[str, list[str]]:
    """Interleaved turns of two threads, one second apart, oldest first; returns contents per thread."""
    a, b = f"checkpoint-{token}-a", f"checkpoint-{token}-b"
    order = [(a, 0), (b, 0), (a, 1), (a, 2), (b, 1), (a, 3), (a, 4), (b, 2)]
    start = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(hours=1)
    rows, contents = [], {a: [], b: []}
    for step, (thread, number) in enumerate(order):
        content = f"{thread[-1].upper()}{number} {HOSTILE if number == 0 else 'turn'}"
        contents[thread].append(content)
        rows.append({"thread": thread, "role": "user" if number % 2 == 0 else "assistant", "content": content,
                     "at": start + timedelta(seconds=step)})
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO conversation_memory (thread_id, role, content, created_at) "
                        "VALUES (:thread, :role, :content, :at)", rows)
    conn.commit()
    return contents


def _turn_contents(result: Any, call: str) -> list[str]:
    if result is None:
        fail(f"{call} returned None", "Return the list of turns (a `return` may be missing).")
    if isinstance(result, (str, bytes, Mapping)) or not hasattr(result, "__iter__"):
        fail(f"{call} returned a {type(result).__name__}, expected a list of dicts",
             "Return [{'id': ..., 'role': ..., 'content': ..., ...}, ...], one dict per turn.")
    turns = list(result)
    expect_keys(turns, ["role", "content"], what="turn",
                hint="Build one dict per row, e.g. dict(zip(['id', 'role', 'content', 'created_at'], row)).")
    return [_text(turn["content"]) for turn in turns]


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
             "Return them oldest first (the order a prompt needs): order the newest N by created_at, id.")
    fail(f"{call} returned {got}, expected the newest {len(want)} turns, oldest first: {want}",
         "Take the newest turns (ORDER BY created_at DESC, id DESC FETCH FIRST :limit ROWS ONLY in an inline "
         "view), then ORDER BY created_at, id outside it." if got else
         "Select the thread's turns: SELECT ... FROM conversation_memory WHERE thread_id = :thread_id.")


@checkpoint("read a thread's newest turns, oldest first")
def check_read_conversation(conn: oracledb.Connection, read_conversation: Callable) -> str:
    _expect_function(read_conversation, "read_conversation")
    expect_table(conn, TABLE)
    token = _token()
    try:
        contents = _insert_probe_turns(conn, token)
        (a, turns_a), (b, turns_b) = contents.items()
        for thread, limit, want, others in ((a, 3, turns_a[-3:], turns_b), (a, 10, turns_a, turns_b),
                                            (b, 2, turns_b[-2:], turns_a)):
            call = f"read_conversation(conn, {thread!r}, {limit})"
            _expect_turns(_turn_contents(read_conversation(conn, thread, limit), call), want, others, call, limit)
    finally:
        _cleanup(conn, [(TABLE, "thread_id LIKE :pattern", {"pattern": f"checkpoint-{token}-%"})])
    return "thread-scoped, at most `limit` turns, the newest ones, oldest first"


# --------------------------------------------------------------------------- TODO 4
def _model_dimensions(conn: oracledb.Connection) -> int:
    return int(_rows(conn, f"SELECT VECTOR_DIMENSION_COUNT(VECTOR_EMBEDDING({_model()} USING 'x' AS data)) "
                           "FROM dual")[0][0])


@checkpoint("the five OracleVS stores")
def check_stores(conn: oracledb.Connection, stores: Any) -> str:
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
    return f"5 stores, COSINE, embeddings by {model} in the database ({dims} dimensions)"


# --------------------------------------------------------------------------- TODO 5
@checkpoint("write to the knowledge base")
def check_write_knowledge(conn: oracledb.Connection, stores: Any, write_knowledge: Callable) -> str:
    _expect_function(write_knowledge, "write_knowledge")
    _store(stores, "knowledge_base")
    token = _token()
    text = f"Checkpoint fact {token}: HNSW is a graph index; it's \"approximate\" — ünïcødé."
    metadata = {"source": "checkpoint", "probe": token, "page": 7}
    where, binds = _probe_where(token)
    try:
        returned = write_knowledge(stores, text, dict(metadata))
        rows = _store_rows(conn, "KNOWLEDGE_BASE_VS", where, binds, what="fact",
                           expected_table_hint="Write with stores['knowledge_base'].add_texts(...).")
        expect(len(rows) == 1, f"the fact was written {len(rows)} times", "Call add_texts once, with one text.")
        [(stored_text, stored_meta)] = rows
        expect(stored_text == text, f"the text was stored as {stored_text!r}", "Store the text as given.")
        wrong = _missing_metadata(stored_meta, metadata)
        expect(not wrong, f"the metadata is missing or differs for {sorted(wrong)} (stored: "
               f"{ {k: v for k, v in stored_meta.items() if k != INTERNAL_ID_KEY} })",
               "Pass the metadata along: add_texts([text], metadatas=[metadata]).")
        _record_id(returned, "write_knowledge", stored_meta.get(INTERNAL_ID_KEY))
        expect(_embedded_from_text(conn, "KNOWLEDGE_BASE_VS", where, binds),
               "the stored vector is not the in-database embedding of the text",
               "Let the store embed the text: pass the text itself to add_texts.")
    finally:
        _cleanup_stores(conn, token)
    return "stored verbatim with its metadata, embedded in the database, id returned"


# --------------------------------------------------------------------------- TODO 6
KNOWLEDGE_PROBES = (
    ("HNSW builds a navigable graph over vectors for approximate nearest neighbour search.", "vector"),
    ("IVF partitions vectors into clusters and searches the nearest partitions.", "vector"),
    ("Oracle Text CONTAINS finds documents by keyword and scores each match.", "keyword"),
    ("Reciprocal rank fusion adds 1/(k + rank) over several result lists.", "hybrid"),
)
KNOWLEDGE_QUERY = "graph index for approximate nearest neighbour vector search"


def _knowledge_records(result: Any, call: str) -> list[dict]:
    if result is None:
        fail(f"{call} returned None", "Return the list of results (a `return` may be missing).")
    if isinstance(result, (str, bytes, Mapping)) or not hasattr(result, "__iter__"):
        fail(f"{call} returned a {type(result).__name__}, expected a list of dicts")
    records = list(result)
    expect_keys(records, ["text", "metadata", "distance"], what="result",
                hint="Use similarity_search_with_score and return {'text': doc.page_content, 'metadata': "
                     "doc.metadata, 'distance': score} for each (doc, score).")
    return records


def _reference_order(conn: oracledb.Connection, token: str, topic: str | None = None) -> list[str]:
    where = "JSON_VALUE(metadata, '$.probe') = :token" + (" AND JSON_VALUE(metadata, '$.topic') = :topic" if topic
                                                          else "")
    binds = {"token": token, "query": KNOWLEDGE_QUERY, **({"topic": topic} if topic else {})}
    rows = _rows(conn, f"""SELECT text FROM knowledge_base_vs WHERE {where} ORDER BY
                           VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({_model()} USING :query AS data), COSINE)""",
                 binds)
    return [row[0] for row in rows]


@checkpoint("search the knowledge base (k and a metadata filter)")
def check_read_knowledge(conn: oracledb.Connection, stores: Any, read_knowledge: Callable) -> str:
    _expect_function(read_knowledge, "read_knowledge")
    store = _store(stores, "knowledge_base")
    token = _token()
    try:
        store.add_texts([f"{text} [{token}]" for text, _ in KNOWLEDGE_PROBES],
                        [{"probe": token, "topic": topic} for _, topic in KNOWLEDGE_PROBES])
        cases = ((2, {"probe": token}, None), (3, {"probe": token, "topic": "keyword"}, "keyword"))
        for k, flt, topic in cases:
            call = f"read_knowledge(stores, query, k={k}, filter={flt})"
            records = _knowledge_records(read_knowledge(stores, KNOWLEDGE_QUERY, k=k, filter=flt), call)
            expect_at_most_k(records, k, what="results",
                             hint="Pass k on to the store: similarity_search_with_score(query, k=k, filter=filter).")
            outside = [r for r in records if (r["metadata"] or {}).get("probe") != token
                       or (topic and r["metadata"].get("topic") != topic)]
            if outside:
                fail(f"{call} returned a record that does not match the filter: {_text(outside[0]['text'])!r}",
                     "Pass the filter on to the store: similarity_search_with_score(query, k=k, filter=filter).")
            want = _reference_order(conn, token, topic)[:k]
            got = [_text(r["text"]) for r in records]
            expect(len(got) == len(want), f"{call} returned {len(got)} results, expected {len(want)}",
                   "Return every result the search gives, up to k.")
            expect(got == want, f"{call} returned {got}, expected the nearest first: {want}",
                   "Keep the store's order (nearest first) and its distances.")
            distances = [r["distance"] for r in records]
            expect(all(isinstance(d, (int, float)) for d in distances) and distances == sorted(distances),
                   f"{call} returned the distances {distances}, expected numbers in ascending order",
                   "Return the score that similarity_search_with_score gives with each document.")
    finally:
        _cleanup_stores(conn, token)
    return "at most k results, filter applied, nearest first with distances"


# --------------------------------------------------------------------------- TODO 7
WORKFLOW_KEYS = ("query", "num_steps", "success", "timestamp")


def _check_workflow(meta: dict, text: str, query: str, steps: list[str], answer: str, success: bool) -> None:
    visible = {k: v for k, v in meta.items() if k != INTERNAL_ID_KEY}
    missing = [key for key in WORKFLOW_KEYS if key not in meta]
    expect(not missing, f"the workflow metadata is missing {missing} (it has {visible})",
           "metadata = {'query': query, 'num_steps': len(steps), 'success': success, 'timestamp': "
           "datetime.now(timezone.utc).isoformat()}")
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
           "Use datetime.now(timezone.utc).isoformat().")
    expect(abs(moment - datetime.now(timezone.utc)) <= CLOCK_SLACK,
           f"metadata['timestamp'] {stamp} is not the time the workflow was written",
           "Compute it when writing: datetime.now(timezone.utc).isoformat().")
    absent = [part for part in (query, *steps, answer) if part not in text]
    if absent:
        fail(f"the workflow text does not contain {absent[0]!r}",
             "Build the text from the query, every step and the final answer, so a search can find them.")


@checkpoint("write a workflow with computed metadata")
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
    try:
        returned = [write_workflow(stores, query, list(steps), answer, success=success)
                    for query, steps, answer, success in cases]
        rows = _store_rows(conn, "WORKFLOW_VS", where, binds, what="workflow",
                           expected_table_hint="Write with stores['workflow'].add_texts(...).")
        expect(len(rows) == 2, f"2 workflows were written, {len(rows)} rows hold them",
               "Call add_texts once per workflow.")
        for (query, steps, answer, success), value in zip(cases, returned):
            matches = [(text, meta) for text, meta in rows if query in text]
            expect(len(matches) == 1, f"no workflow text contains the query {query!r}",
                   "Put the query in the workflow's text (e.g. 'Query: ...').")
            [(text, meta)] = matches
            _check_workflow(meta, text, query, steps, answer, success)
            _record_id(value, "write_workflow", meta.get(INTERNAL_ID_KEY))
    finally:
        _cleanup_stores(conn, token)
    return "num_steps, success (a JSON boolean) and an ISO 8601 UTC timestamp computed; steps searchable"


# --------------------------------------------------------------------------- TODO 8
@checkpoint("write an entity (one row per entity, updated in place)")
def check_write_entity(conn: oracledb.Connection, stores: Any, write_entity: Callable) -> str:
    _expect_function(write_entity, "write_entity")
    _store(stores, "entity")
    token = _token()
    name = f"Grace Hopper {token}"
    first, second = ("Computer scientist who wrote the first compiler.",
                     "Rear admiral; her A-0 system was the first compiler.")
    where, binds = _probe_where(token)
    try:
        returned = write_entity(stores, name, "person", first, {"source": "checkpoint"})
        rows = _store_rows(conn, "ENTITY_VS", where, binds, what="entity",
                           expected_table_hint="Write with stores['entity'].add_texts(...).")
        [(text, meta)] = rows[:1]
        wrong = _missing_metadata(meta, {"name": name, "type": "person", "source": "checkpoint"})
        expect(not wrong, f"the entity's metadata is missing or differs for {sorted(wrong)} (stored: "
               f"{ {k: v for k, v in meta.items() if k != INTERNAL_ID_KEY} })",
               "metadata = {**(metadata or {}), 'name': name, 'type': entity_type}")
        expect(name in text and first in text, f"the entity text {text!r} lacks the name or the description",
               "Embed a text such as f'{name} ({entity_type}): {description}'.")
        _record_id(returned, "write_entity", meta.get(INTERNAL_ID_KEY))
        write_entity(stores, name, "person", second, {"source": "checkpoint"})
        rows = _store_rows(conn, "ENTITY_VS", where, binds, what="entity",
                           expected_table_hint="Write with stores['entity'].add_texts(...).")
        expect(len(rows) == 1, f"writing the same entity twice left {len(rows)} rows",
               "Give add_texts a stable id made from the type and the name, e.g. ids=[f'entity:{entity_type}:"
               "{name}'.lower()]: with mutate_on_duplicate=True the second write then updates the row.")
        [(text, _)] = rows
        expect(second in text and first not in text, f"after the update the entity still reads {text!r}",
               "The second write must replace the description (same id, mutate_on_duplicate=True).")
    finally:
        _cleanup_stores(conn, token)
    return "name and type in the metadata; a second write updated the same row"


todo_1, todo_2, todo_3, todo_4 = check_conversation_table, check_write_conversation, check_read_conversation, check_stores
todo_5, todo_6, todo_7, todo_8 = check_write_knowledge, check_read_knowledge, check_write_workflow, check_write_entity
