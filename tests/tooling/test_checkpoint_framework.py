"""The checkpoint framework on the embedded engine: every helper passes on the right state and fails,
with a friendly reason and hint, on the wrong one; the decorator shows and raises as documented."""
from __future__ import annotations

import os
from types import SimpleNamespace

import oracledb
import pytest

from checkpoints import framework as fw
from checkpoints.framework import (CheckpointError, CheckpointFailed, ColumnType, check, checkpoint, column_types,
                                   committed_row_count, expect_at_most_k, expect_column, expect_committed,
                                   expect_count, expect_filled, expect_index, expect_keys, expect_ordered_by,
                                   expect_row_count, expect_rows_equal, expect_table, find_indexes, index_exists,
                                   index_kind, row_count, table_exists)
from workshop.embedded import connect


@pytest.fixture
def db(tmp_path, monkeypatch):
    """A learner connection on a fresh file; workshop.db.connect() (the second connection) opens the same file."""
    path = tmp_path / "workshop.db"
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(path))
    conn = connect(path, busy_timeout=2)
    yield conn
    if conn.is_healthy():
        conn.rollback()
        conn.close()


@pytest.fixture
def chunks(db):
    with db.cursor() as cur:
        cur.execute("""CREATE TABLE research_chunks (
            id NUMBER(10) PRIMARY KEY, title VARCHAR2(200) NOT NULL, label VARCHAR2(50 CHAR), score NUMBER(5, 2),
            body CLOB, created TIMESTAMP, meta JSON, embedding VECTOR(384, FLOAT32), any_vec VECTOR(*, *),
            small_vec VECTOR(8, INT8))""")
    return db


def failure(excinfo) -> str:
    return excinfo.value.reason


# ------------------------------------------------------------------ dictionary facts

def test_table_exists_follows_oracle_name_rules(chunks):
    assert table_exists(chunks, "research_chunks") and table_exists(chunks, "RESEARCH_CHUNKS")
    assert table_exists(chunks, '"RESEARCH_CHUNKS"')
    assert not table_exists(chunks, '"research_chunks"')
    assert not table_exists(chunks, "missing_table")
    with pytest.raises(ValueError, match="not a valid unquoted Oracle name"):
        table_exists(chunks, "bad name")


def test_column_types_reads_types_lengths_precision_and_vector_shapes(chunks):
    types = column_types(chunks, "research_chunks")
    assert list(types) == ["ID", "TITLE", "LABEL", "SCORE", "BODY", "CREATED", "META", "EMBEDDING", "ANY_VEC",
                           "SMALL_VEC"]
    assert types["ID"] == ColumnType("NUMBER", None, 10, 0, nullable=False)
    assert types["TITLE"] == ColumnType("VARCHAR2", 200, nullable=False)
    assert types["LABEL"] == ColumnType("VARCHAR2", 50)
    assert types["SCORE"] == ColumnType("NUMBER", None, 5, 2)
    assert types["EMBEDDING"] == ColumnType("VECTOR", vector_dimensions=384, vector_format="FLOAT32")
    assert types["ANY_VEC"] == ColumnType("VECTOR")
    assert types["SMALL_VEC"].declaration() == "VECTOR(8, INT8)"
    assert types["ANY_VEC"].declaration() == "VECTOR(*, *)"
    assert types["SCORE"].declaration() == "NUMBER(5,2)" and types["TITLE"].declaration() == "VARCHAR2(200)"
    assert column_types(chunks, "no_such_table") == {}


def test_vector_format_names_from_python_oracledb_values():
    assert fw.vector_format_name(oracledb.VECTOR_FORMAT_FLOAT32) == "FLOAT32"
    assert fw.vector_format_name(oracledb.VectorFormat.INT8) == "INT8"
    assert fw.vector_format_name(int(oracledb.VECTOR_FORMAT_FLOAT64)) == "FLOAT64"
    assert fw.vector_format_name(None) is None


def test_vector_shapes_come_from_the_cursor_description_when_the_driver_reports_them(chunks, monkeypatch):
    """python-oracledb's FetchInfo carries vector_dimensions/vector_format; that path must be preferred."""
    real_cursor = chunks.cursor

    class DescribingCursor:
        def __init__(self):
            self._cur = real_cursor()

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._cur.close()

        def __getattr__(self, name):
            return getattr(self._cur, name)

        @property
        def description(self):
            infos = self._cur.description
            if infos and infos[0][0] == "EMBEDDING":  # the describe query of the vector columns
                shapes = {"EMBEDDING": (384, oracledb.VectorFormat.FLOAT32), "ANY_VEC": (None, None),
                          "SMALL_VEC": (16, oracledb.VectorFormat.BINARY)}  # differs from the dictionary on purpose
                return [SimpleNamespace(name=i[0], vector_dimensions=shapes[i[0]][0], vector_format=shapes[i[0]][1])
                        for i in infos]
            return infos

    monkeypatch.setattr(chunks, "cursor", DescribingCursor)
    types = column_types(chunks, "research_chunks")
    assert types["SMALL_VEC"].declaration() == "VECTOR(16, BINARY)"
    assert types["EMBEDDING"].declaration() == "VECTOR(384, FLOAT32)"


def test_index_kinds_normal_vector_domain(chunks):
    with chunks.cursor() as cur:
        cur.execute("CREATE INDEX rc_title_ix ON research_chunks (title)")
        cur.execute("CREATE VECTOR INDEX rc_vec_ix ON research_chunks (embedding) "
                    "ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE WITH TARGET ACCURACY 95")
        cur.execute("CREATE INDEX rc_text_ix ON research_chunks (body) INDEXTYPE IS CTXSYS.CONTEXT")
    assert index_kind(chunks, "rc_title_ix") == "NORMAL"
    assert index_exists(chunks, "rc_vec_ix", "VECTOR") and index_exists(chunks, "rc_vec_ix", "vector")
    assert index_exists(chunks, "rc_text_ix", "DOMAIN")
    assert not index_exists(chunks, "rc_title_ix", "VECTOR")
    assert not index_exists(chunks, "no_such_ix")
    assert find_indexes(chunks, "research_chunks", "embedding") == ["RC_VEC_IX"]
    assert find_indexes(chunks, "research_chunks", kind="DOMAIN") == ["RC_TEXT_IX"]
    assert find_indexes(chunks, "research_chunks", "embedding", kind="NORMAL") == []
    with pytest.raises(ValueError, match="index kind must be one of"):
        index_exists(chunks, "rc_vec_ix", "HNSW")


def test_row_count_and_committed_row_count_use_a_second_connection(chunks):
    with chunks.cursor() as cur:
        cur.execute("INSERT INTO research_chunks (id, title) VALUES (1, 'a')")
        cur.execute("INSERT INTO research_chunks (id, title) VALUES (2, 'b')")
    assert row_count(chunks, "research_chunks") == 2
    assert row_count(chunks, "research_chunks", "id > :n", {"n": 1}) == 1
    assert committed_row_count("research_chunks") == 0
    chunks.commit()
    assert committed_row_count("research_chunks") == 2
    assert committed_row_count("research_chunks", "title = :t", {"t": "b"}) == 1


# ------------------------------------------------------------------ expectations on the database

def test_expect_table_passes_and_fails_with_a_hint(chunks):
    expect_table(chunks, "research_chunks")
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_table(chunks, "research_chunk")
    assert failure(excinfo) == "table RESEARCH_CHUNK does not exist"
    assert "upper case" in excinfo.value.hint


def test_expect_column_right_type_passes(chunks):
    expect_column(chunks, "research_chunks", "embedding", "VECTOR", dims=384, fmt="float32")
    expect_column(chunks, "research_chunks", "title", "VARCHAR2", length=200, nullable=False)
    expect_column(chunks, "research_chunks", "score", "NUMBER", precision=5, scale=2)
    expect_column(chunks, "research_chunks", "created", "TIMESTAMP")


@pytest.mark.parametrize("kwargs, reason", [
    (dict(column="embedding", data_type="VECTOR", dims=768, fmt="FLOAT32"),
     "column RESEARCH_CHUNKS.EMBEDDING is VECTOR(384, FLOAT32), expected VECTOR(768, FLOAT32)"),
    (dict(column="any_vec", data_type="VECTOR", dims=384, fmt="FLOAT32"),
     "column RESEARCH_CHUNKS.ANY_VEC is VECTOR(*, *), expected VECTOR(384, FLOAT32)"),
    (dict(column="title", data_type="CLOB"), "column RESEARCH_CHUNKS.TITLE is VARCHAR2(200), expected CLOB"),
    (dict(column="title", data_type="VARCHAR2", length=4000),
     "column RESEARCH_CHUNKS.TITLE is VARCHAR2(200), expected VARCHAR2(4000)"),
    (dict(column="label", data_type="VARCHAR2", nullable=False),
     "column RESEARCH_CHUNKS.LABEL is nullable, expected NOT NULL"),
    (dict(column="vector", data_type="VECTOR"), "table RESEARCH_CHUNKS has no column VECTOR (it has ID, TITLE, "
     "LABEL, SCORE, BODY, CREATED, META, EMBEDDING, ANY_VEC, SMALL_VEC)"),
])
def test_expect_column_wrong_type_fails(chunks, kwargs, reason):
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_column(chunks, "research_chunks", **kwargs)
    assert failure(excinfo) == reason
    assert excinfo.value.hint


def test_expect_column_on_a_missing_table_says_the_table_is_missing(db):
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_column(db, "research_chunks", "embedding", "VECTOR")
    assert failure(excinfo) == "table RESEARCH_CHUNKS does not exist"


def test_expect_index_by_name_or_by_column(chunks):
    with chunks.cursor() as cur:
        cur.execute("CREATE INDEX rc_title_ix ON research_chunks (title)")
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_index(chunks, table="research_chunks", column="embedding", kind="VECTOR")
    assert failure(excinfo) == "there is no VECTOR index on RESEARCH_CHUNKS(EMBEDDING)"
    assert "CREATE VECTOR INDEX" in excinfo.value.hint
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_index(chunks, "rc_title_ix", kind="VECTOR")
    assert failure(excinfo) == "index RC_TITLE_IX is a NORMAL index, expected a VECTOR index"
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_index(chunks, "rc_vec_ix")
    assert failure(excinfo) == "index RC_VEC_IX does not exist"
    with chunks.cursor() as cur:
        cur.execute("CREATE VECTOR INDEX rc_vec_ix ON research_chunks (embedding) "
                    "ORGANIZATION NEIGHBOR PARTITIONS DISTANCE COSINE")
    assert expect_index(chunks, table="research_chunks", column="embedding", kind="VECTOR") == "RC_VEC_IX"
    assert expect_index(chunks, "rc_vec_ix", kind="VECTOR") == "RC_VEC_IX"


def test_expect_row_count(chunks):
    with chunks.cursor() as cur:
        cur.executemany("INSERT INTO research_chunks (id, title) VALUES (:1, :2)", [(1, "a"), (2, "b"), (3, "c")])
    assert expect_row_count(chunks, "research_chunks", exactly=3) == 3
    expect_row_count(chunks, "research_chunks", at_least=1, at_most=3, where="id <= :n", binds={"n": 3})
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_row_count(chunks, "research_chunks", at_most=2)
    assert failure(excinfo) == "RESEARCH_CHUNKS has 3 rows, expected at most 2"
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_row_count(chunks, "research_chunks", at_least=1, where="title = 'z'")
    assert failure(excinfo) == "RESEARCH_CHUNKS (WHERE title = 'z') has 0 rows, expected at least 1"


def test_expect_committed_fails_on_uncommitted_rows_then_passes_after_commit(chunks):
    with chunks.cursor() as cur:
        cur.executemany("INSERT INTO research_chunks (id, title) VALUES (:1, :2)", [(1, "a"), (2, "b")])
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_committed(chunks, "research_chunks", at_least=2)
    assert failure(excinfo) == ("your session sees 2 rows in RESEARCH_CHUNKS but other sessions see 0: your "
                                "changes are not committed")
    assert "conn.commit()" in excinfo.value.hint
    chunks.commit()
    assert expect_committed(chunks, "research_chunks", at_least=2) == 2
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_committed(chunks, "research_chunks", at_least=3)
    assert failure(excinfo) == "RESEARCH_CHUNKS has 2 committed rows, expected at least 3"


def test_expect_committed_sees_uncommitted_deletes_too(chunks):
    with chunks.cursor() as cur:
        cur.execute("INSERT INTO research_chunks (id, title) VALUES (1, 'a')")
    chunks.commit()
    with chunks.cursor() as cur:
        cur.execute("DELETE FROM research_chunks")
    with pytest.raises(CheckpointFailed, match="sees 0 rows .* other sessions see 1"):
        expect_committed(chunks, "research_chunks", at_least=0)


# ------------------------------------------------------------------ expectations on values

def test_expect_filled():
    expect_filled("CREATE TABLE t (x NUMBER)", "ddl")
    for stub_value in (None, ...):
        with pytest.raises(CheckpointFailed) as excinfo:
            expect_filled(stub_value, "notes_ddl")
        assert failure(excinfo).startswith("`notes_ddl` is still empty")


def test_expect_rows_equal_unordered_ordered_and_rounded():
    expect_rows_equal([(2, "b"), (1, "a")], [(1, "a"), (2, "b")])
    expect_rows_equal([[1, 0.12345678]], [(1, 0.1234567)], digits=5)
    expect_rows_equal([{"ID": 1, "X": [1.0, 2.0]}], [{"X": (1.0, 2.0), "ID": 1}])
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_rows_equal([(1, "a"), (7, "x"), (8, "y")], [(1, "a"), (2, "b")])
    assert failure(excinfo) == "expected 2 rows, got 3; missing: (2, 'b'); unexpected: (7, 'x'), (8, 'y')"
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_rows_equal([(2, "b"), (1, "a")], [(1, "a"), (2, "b")], ordered=True)
    assert failure(excinfo) == "the right rows in the wrong order: position 1 holds (2, 'b'), expected (1, 'a')"
    assert "ORDER BY" in excinfo.value.hint
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_rows_equal(None, [(1,)])
    assert failure(excinfo) == "expected rows, got None"


def test_expect_ordered_by_index_key_function_and_nulls():
    expect_ordered_by([(1, 0.1), (2, 0.2), (3, None)], 1)
    expect_ordered_by([{"score": 3}, {"score": 2}, {"score": 2}], "score", descending=True)
    expect_ordered_by([(None,), (5,), (1,)], 0, descending=True)  # Oracle: NULLS FIRST when descending
    expect_ordered_by([SimpleNamespace(d=1), SimpleNamespace(d=2)], "d")
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_ordered_by([(1, 0.1), (2, 0.52), (3, 0.41)], 1)
    assert failure(excinfo) == "rows are not in ascending order of column 2: row 3 has 0.41 after 0.52"
    assert "ORDER BY ... ASC" in excinfo.value.hint
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_ordered_by([{"DISTANCE": None}, {"DISTANCE": 0.3}], "DISTANCE", what="notes")
    assert failure(excinfo) == "notes are not in ascending order of 'DISTANCE': note 2 has 0.3 after None"
    def score(row):
        return row[0]

    with pytest.raises(CheckpointFailed, match="rows are not in descending order of score: row 2 has 2 after 1"):
        expect_ordered_by([(1,), (2,)], score, descending=True)


def test_expect_at_most_k_and_count():
    expect_at_most_k([1, 2, 3], 3)
    expect_at_most_k([], 3)
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_at_most_k(list(range(12)), 5, what="chunks")
    assert failure(excinfo) == "expected at most 5 chunks, got 12"
    assert "FETCH FIRST :k ROWS ONLY" in excinfo.value.hint
    with pytest.raises(CheckpointFailed, match="expected a list of rows, got str"):
        expect_at_most_k("abc", 5)
    expect_count((r for r in range(3)), exactly=3)
    with pytest.raises(CheckpointFailed, match="expected at least 1 rows, got 0"):
        expect_count([], at_least=1)


def test_expect_keys_on_a_dict_and_on_a_list_of_dicts():
    expect_keys({"id": 1, "rrf_score": 0.5, "extra": 1}, ["id", "rrf_score"])
    expect_keys([{"id": 1, "rrf_score": 0.5}] * 2, ["id", "rrf_score"], what="hit")
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_keys([{"id": 1, "rrf_score": 0.5}, {"id": 2}], ["id", "rrf_score"], what="hit")
    assert failure(excinfo) == "hit 2 is missing the key(s) ['rrf_score'] (it has ['id'])"
    with pytest.raises(CheckpointFailed) as excinfo:
        expect_keys({"id": 1}, ["id", "kind"])
    assert failure(excinfo) == "the result is missing the key(s) ['kind'] (it has ['id'])"
    with pytest.raises(CheckpointFailed, match="expected each hit to be a dict, hit 1 is a tuple"):
        expect_keys([(1, 2)], ["id"], what="hit")


# ------------------------------------------------------------------ the decorator and the context manager

def test_passing_checkpoint_prints_a_pass_line_and_returns_none(chunks, capsys):
    @checkpoint("TODO 1: create the RESEARCH_CHUNKS table")
    def todo_1(conn):
        expect_column(conn, "research_chunks", "embedding", "VECTOR", dims=384, fmt="FLOAT32")
        return "VECTOR(384, FLOAT32)"

    assert todo_1(chunks) is None
    assert todo_1.label == "TODO 1: create the RESEARCH_CHUNKS table"
    assert capsys.readouterr().out == "✅ TODO 1: create the RESEARCH_CHUNKS table — passed (VECTOR(384, FLOAT32))\n"


def test_failing_checkpoint_prints_reason_and_hint_and_raises_a_friendly_exception(db, capsys):
    @checkpoint("TODO 1: create the RESEARCH_CHUNKS table")
    def todo_1(conn):
        expect_table(conn, "research_chunks", hint="Run the CREATE TABLE cell above.")

    with pytest.raises(CheckpointFailed) as excinfo:
        todo_1(db)
    assert capsys.readouterr().out == ("❌ TODO 1: create the RESEARCH_CHUNKS table — not yet\n"
                                       "   Why: table RESEARCH_CHUNKS does not exist\n"
                                       "   Hint: Run the CREATE TABLE cell above.\n")
    error = excinfo.value
    assert type(error) is CheckpointFailed and error.label == "TODO 1: create the RESEARCH_CHUNKS table"
    assert error._render_traceback_() == ["❌ TODO 1: create the RESEARCH_CHUNKS table — not yet",
                                          "   Why: table RESEARCH_CHUNKS does not exist",
                                          "   Hint: Run the CREATE TABLE cell above."]
    assert repr(error).startswith("CheckpointFailed('TODO 1: create the RESEARCH_CHUNKS table: table")


def test_decorator_hint_applies_to_failures_without_their_own():
    @checkpoint("TODO 4: fuse the rankings", hint="Use 1 / (60 + rank) for each list.")
    def todo_4(rows):
        expect_count(rows, exactly=10)

    with pytest.raises(CheckpointFailed) as excinfo:
        todo_4([1])
    assert excinfo.value.hint == "Use 1 / (60 + rank) for each list."


def test_stub_function_raising_not_implemented_is_an_expected_failure(capsys):
    def nearest(conn, k):
        raise NotImplementedError("TODO 3: ORDER BY VECTOR_DISTANCE")

    @checkpoint("TODO 3: nearest notes")
    def todo_3(function):
        function(None, 3)

    with pytest.raises(CheckpointFailed) as excinfo:
        todo_3(nearest)
    assert type(excinfo.value) is CheckpointFailed
    assert excinfo.value.reason == ("not done yet: the code still raises NotImplementedError "
                                    "(TODO 3: ORDER BY VECTOR_DISTANCE)")
    assert "Replace the `raise NotImplementedError(...)` line" in capsys.readouterr().out


def test_database_errors_become_checkpoint_errors_with_the_ora_message_and_a_hint(db, capsys):
    @checkpoint("TODO 2: count the chunks")
    def todo_2(conn):
        row_count(conn, "research_chunks")

    with pytest.raises(CheckpointError) as excinfo:
        todo_2(db)
    error = excinfo.value
    assert error.reason == 'ORA-00942: table or view "RESEARCH_CHUNKS" does not exist'
    assert "run the cell that creates it" in error.hint
    assert isinstance(error.__cause__, oracledb.DatabaseError)
    out = capsys.readouterr().out
    assert out.startswith("⚠️ TODO 2: count the chunks — the check could not run\n"
                          '   Error: ORA-00942: table or view "RESEARCH_CHUNKS" does not exist\n')


def test_not_implemented_without_a_todo_message_is_not_mistaken_for_a_stub():
    @checkpoint("TODO 3: nearest notes")
    def todo_3():
        raise NotImplementedError("this retriever has no async API")

    with pytest.raises(CheckpointError) as excinfo:
        todo_3()
    assert excinfo.value.reason.startswith("NotImplementedError: this retriever has no async API (in todo_3, line ")


def test_other_exceptions_name_the_type_and_place(capsys):
    def learner_code():
        return None + 1

    @checkpoint("TODO 5: add")
    def todo_5():
        learner_code()

    with pytest.raises(CheckpointError) as excinfo:
        todo_5()
    assert excinfo.value.reason.startswith("TypeError: unsupported operand type(s) for +: 'NoneType' and 'int' "
                                           "(in learner_code, line ")


def test_checkpoint_returning_a_non_string_is_an_author_error():
    @checkpoint("TODO 6: bad author")
    def todo_6():
        return 42

    with pytest.raises(CheckpointError, match="returned int; return None or a short str"):
        todo_6()


def test_debug_mode_shows_the_stack(monkeypatch):
    @checkpoint("TODO 7: anything")
    def todo_7():
        expect_count([], at_least=1)

    with pytest.raises(CheckpointFailed) as excinfo:
        todo_7()
    monkeypatch.setenv("WORKSHOP_CHECKPOINT_DEBUG", "1")
    lines = excinfo.value._render_traceback_()
    assert lines[0].startswith("Traceback") and any("todo_7" in line for line in lines)


def test_check_context_manager(capsys):
    with check("TODO 8: inline") as ctx:
        expect_count([1, 2], exactly=2)
        ctx.detail = "2 rows"
    assert capsys.readouterr().out == "✅ TODO 8: inline — passed (2 rows)\n"
    with pytest.raises(CheckpointFailed, match="expected 3 rows, got 2"):
        with check("TODO 8: inline"):
            expect_count([1, 2], exactly=3)
    with pytest.raises(KeyboardInterrupt):  # not swallowed: the learner can still interrupt
        with check("TODO 8: inline"):
            raise KeyboardInterrupt


def test_html_rendering_escapes_and_notebook_display(monkeypatch):
    outcome = fw.Outcome("fail", "TODO 1: <table>", "got <script>", "use a & b")
    page = fw.as_html(outcome)
    assert "&lt;script&gt;" in page and "<script>" not in page and "use a &amp; b" in page and "❌" in page
    assert fw.in_notebook() is False
    shown = []
    import IPython.display
    monkeypatch.setattr(IPython.display, "display", lambda bundle, raw: shown.append((bundle, raw)))
    monkeypatch.setattr(fw.render, "in_notebook", lambda: True)
    fw.show(fw.Outcome("pass", "TODO 1: x"))
    assert shown == [({"text/plain": "✅ TODO 1: x — passed",
                       "text/html": fw.as_html(fw.Outcome("pass", "TODO 1: x"))}, True)]


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("ORACLE_DSN"), reason="needs ORACLE_DSN (real Oracle AI Database)")
def test_column_types_and_index_kinds_on_oracle():
    from workshop.db import connect as connect_configured
    conn = connect_configured()
    try:
        with conn.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS ckpt_fw_probe PURGE")
            cur.execute("CREATE TABLE ckpt_fw_probe (id NUMBER(10) PRIMARY KEY, title VARCHAR2(50 CHAR), "
                        "embedding VECTOR(384, FLOAT32), any_vec VECTOR(*, *))")
            cur.execute("CREATE VECTOR INDEX ckpt_fw_probe_vec ON ckpt_fw_probe (embedding) "
                        "ORGANIZATION NEIGHBOR PARTITIONS DISTANCE COSINE")
        types = column_types(conn, "ckpt_fw_probe")
        assert types["TITLE"] == ColumnType("VARCHAR2", 50)
        assert types["EMBEDDING"].declaration() == "VECTOR(384, FLOAT32)"
        assert types["ANY_VEC"].declaration() == "VECTOR(*, *)"
        assert index_exists(conn, "ckpt_fw_probe_vec", "VECTOR")
        assert find_indexes(conn, "ckpt_fw_probe", "embedding", "VECTOR") == ["CKPT_FW_PROBE_VEC"]
    finally:
        with conn.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS ckpt_fw_probe PURGE")
        conn.close()


# ------------------------------------------------------------------ one message, wrapped hints, escalation

def test_hints_escalate_on_repeated_failures_and_reset_after_a_pass():
    fw.escalation.reset()
    state = {"ok": False}

    @checkpoint("TODO 9: escalate", hint=("Read section 2, 'Top-k': the concept.", "ORDER BY distance, then FETCH."))
    def todo_9():
        if not state["ok"]:
            fw.fail("no rows yet")

    hints = []
    for _ in range(3):
        with pytest.raises(CheckpointFailed) as excinfo:
            todo_9()
        hints.append(excinfo.value.hint)
    assert hints == ["Read section 2, 'Top-k': the concept.", "ORDER BY distance, then FETCH.",
                     "ORDER BY distance, then FETCH."]
    state["ok"] = True
    todo_9()
    state["ok"] = False
    with pytest.raises(CheckpointFailed) as excinfo:
        todo_9()
    assert excinfo.value.hint == "Read section 2, 'Top-k': the concept."


def test_a_failure_is_one_wrapped_message_and_nothing_else_in_ipython(monkeypatch, capsys):
    long_hint = "word " * 60

    @checkpoint("TODO 10: long")
    def todo_10():
        fw.fail("a reason " * 20, long_hint)

    monkeypatch.setattr(fw.render, "in_ipython", lambda: True)
    with pytest.raises(CheckpointFailed) as excinfo:
        todo_10()
    assert capsys.readouterr().out == ""            # nothing displayed before the raised message
    lines = excinfo.value._render_traceback_()
    assert lines[0] == "❌ TODO 10: long — not yet"
    assert lines[1].startswith("   Why: a reason") and any(line.startswith("   Hint: word") for line in lines)
    assert all(len(line) <= fw.outcome.WRAP_WIDTH for line in lines)
    assert " ".join(" ".join(lines).split()).count("word") == 60


# ------------------------------------------------------------------ recorders, SQL structure, probes

def _search(conn, subject, k, *, formatted=False, in_python=False):
    sql = "SELECT id, title FROM research_chunks"
    binds = {}
    if in_python:
        with conn.cursor() as cur:
            cur.execute(sql + " ORDER BY id")
            return [r for r in cur.fetchall() if r[1].startswith(subject)][:k]
    if formatted:
        sql += f" WHERE SUBSTR(title, 1, 2) = '{subject}' ORDER BY id FETCH FIRST {k} ROWS ONLY"
    else:
        sql += " WHERE title LIKE :subject || '%' ORDER BY id FETCH FIRST :k ROWS ONLY"
        binds = {"subject": subject, "k": k}
    with conn.cursor() as cur:
        cur.execute(sql, binds)
        return cur.fetchall()


@pytest.fixture
def titled(chunks):
    with chunks.cursor() as cur:
        cur.executemany("INSERT INTO research_chunks (id, title) VALUES (:1, :2)",
                        [(i, ("db " if i % 2 else "ml ") + str(i)) for i in range(1, 11)])
    chunks.commit()
    return chunks


@pytest.mark.parametrize("how, message", [
    ("formatted", "writes subject='db', k=2 into the SQL text instead of binding them"),
    ("in_python", "fetched 10 rows from the database to return 2"),
])
def test_recording_connection_sees_the_method(titled, how, message):
    recorder = fw.RecordingConnection(titled)
    rows = _search(recorder, "db", 2, **{how: True})
    assert [r[0] for r in rows] == [1, 3]          # the right rows either way
    with pytest.raises(CheckpointFailed, match=message):
        fw.expect_bound(recorder, {"subject": "db", "k": 2}, "search")
        fw.expect_database_limits(recorder, 2, "search")


def test_recording_connection_passes_the_right_method_and_logs_binds_and_fetches(titled):
    recorder = fw.RecordingConnection(titled)
    assert [r[0] for r in _search(recorder, "db", 2)] == [1, 3]
    fw.expect_bound(recorder, {"subject": "db", "k": 2}, "search")
    fw.expect_database_limits(recorder, 2, "search")
    (statement,) = recorder.statements
    assert statement.binds == {"subject": "db", "k": 2} and statement.rows_fetched == 2
    assert statement.fetches == [("fetchall", None)]


def test_recording_connection_counts_iterated_rows_as_rows(titled):
    recorder = fw.RecordingConnection(titled)
    with recorder.cursor() as cur:
        cur.execute("SELECT id, title FROM research_chunks WHERE id <= 3 ORDER BY id")
        assert [row[0] for row in cur] == [1, 2, 3]
    assert recorder.rows_fetched == 3      # three rows of two columns: rows, not values


def test_recording_connection_keeps_out_binds_and_declared_types_by_lower_case_name(titled):
    recorder = fw.RecordingConnection(titled)
    with recorder.cursor() as cur:
        new_id = cur.var(int)
        cur.setinputsizes(TITLE=oracledb.DB_TYPE_VARCHAR)
        cur.execute("INSERT INTO research_chunks (id, title) VALUES (42, :title) RETURNING id INTO :new_id",
                    title="x", new_id=new_id)
    assert recorder.vars == [new_id] and new_id.getvalue() == [42]
    assert recorder.statements[0].input_sizes == {"title": oracledb.DB_TYPE_VARCHAR}
    titled.rollback()


def test_recording_stores_wraps_every_store_of_a_dict():
    class Store:
        def similarity_search_with_score(self, query, k=4, filter=None):
            return [(query, 0.0)] * k
    recorded = fw.recording_stores({"a": Store(), "b": Store()})
    recorded["b"].similarity_search_with_score("q", 2, {"x": 1})
    assert [(c.method, c.k, c.filter) for c in recorded["b"].searches()] == [("similarity_search_with_score", 2,
                                                                              {"x": 1})]
    assert recorded["a"].calls == []


@pytest.mark.parametrize("sql, called", [
    ("SELECT MAX(id) FROM t", True), ("select max (id) from t", True), ("SELECT id FROM t", False),
    ("SELECT 'MAX(id)' FROM t", False), ("SELECT max_id FROM t", False), ("SELECT t.max FROM t", False),
])
def test_calls_function_reads_tokens_not_text(sql, called):
    assert fw.calls_function(sql, "MAX") is called


def test_sql_tokens_names_text_it_cannot_read():
    assert [t.text for t in fw.sql_tokens("SELECT 1 -- note\nFROM dual")] == ["SELECT", "1", "FROM", "dual"]
    with pytest.raises(ValueError, match="cannot read the SQL text"):
        fw.sql_tokens("SELECT 'unterminated FROM dual")


def test_recording_store_records_k_and_filter():
    class Store:
        def similarity_search(self, query, k=4, filter=None, **kwargs):
            return [query] * k
    store = fw.RecordingStore(Store())
    assert store.similarity_search("q", 3, filter={"s": {"$eq": "x"}}) == ["q"] * 3
    fw.expect_store_searched(store, "search", k=3, filter={"s": "x"})
    with pytest.raises(CheckpointFailed, match="asked the store for k=3, expected k=5"):
        fw.expect_store_searched(store, "search", k=5)
    store.similarity_search("q")
    with pytest.raises(CheckpointFailed, match="searched with filter=None"):
        fw.expect_store_searched(store, "search", filter={"s": "x"})


@pytest.mark.parametrize("sql, kind", [
    ("-- first a comment\nCREATE VECTOR INDEX i ON t (e)", "CREATE VECTOR INDEX"),
    ("/* c */ create table t (x number)", "CREATE TABLE"),
    ("CREATE UNIQUE INDEX i ON t (x)", "CREATE INDEX"),
    ("WITH q AS (SELECT 1 FROM dual) SELECT * FROM q", "SELECT"),
    ("(SELECT 1 FROM dual)", "SELECT"),
    ("insert into t values (1)", "INSERT"),
])
def test_statement_kind_ignores_comments_and_case(sql, kind):
    assert fw.statement_kind(sql) == kind


def test_literals_binds_and_fetch_read_the_structure_not_the_text():
    sql = """SELECT 'it''s', x FROM t -- 'not a literal'
             WHERE a = :subject AND b = :1 AND c = 7 ORDER BY d FETCH APPROX FIRST :k ROWS ONLY WITH TARGET ACCURACY 90"""
    assert [(lit.value, lit.is_string) for lit in fw.literals(sql)] == [("it's", True), ("7", False), ("90", False)]
    assert fw.bind_names(sql) == ["SUBJECT", "1", "K"]
    assert fw.fetch_clause(sql) == fw.Fetch(":K", True, "90")
    assert fw.fetch_clause("SELECT 1 FROM dual FETCH FIRST 5 ROWS ONLY") == fw.Fetch("5", False, None)
    assert fw.formatted_values(sql, {"subject": "cs.CL", "k": 7}) == {"k": 7}
    assert fw.same_statement("select a from t -- x\n where b = :b", "SELECT a\nFROM t WHERE b = :b")
    assert not fw.same_statement("select a from t where b = :b", "SELECT a FROM t WHERE b = :c")


def test_savepoint_rolls_back_probe_rows_and_keeps_earlier_work(titled):
    with titled.cursor() as cur:
        cur.execute("INSERT INTO research_chunks (id, title) VALUES (100, 'learner, uncommitted')")
    with pytest.raises(CheckpointFailed):
        with fw.savepoint(titled):
            with titled.cursor() as cur:
                cur.execute("INSERT INTO research_chunks (id, title) VALUES (101, 'probe')")
            fw.fail("the check failed")
    assert row_count(titled, "research_chunks", "id >= 100") == 1
    titled.rollback()


def test_restore_rows_deletes_what_committing_code_added(titled):
    with fw.restore_rows(titled, "research_chunks", "id"):
        with titled.cursor() as cur:
            cur.execute("INSERT INTO research_chunks (id, title) VALUES (200, 'probe')")
        titled.commit()
    assert row_count(titled, "research_chunks") == 10 and committed_row_count("research_chunks") == 10


# ------------------------------------------------------------------ cells that need a TODO

def test_needs_names_the_todo_in_one_line_when_a_value_is_still_a_stub():
    from checkpoints import part01

    def stub(conn, query, subject=None, k=5):
        """The k nearest papers."""
        raise NotImplementedError("TODO 3: SELECT ...")

    def done(conn, query, subject=None, k=5):
        raise NotImplementedError("this retriever has no async API")

    for value in (None, ..., stub):
        with pytest.raises(fw.TodoNeeded) as excinfo:
            part01.needs("search_papers", value)
        assert excinfo.value._render_traceback_() == [
            "⬜ this cell needs TODO 3 (search_papers): complete it and run its checkpoint, then run this cell again"]
    part01.needs("search_papers", done, lambda: 1, 0, "", [])     # real values pass


# ------------------------------------------------------------------ vector indexes as Oracle's dictionary shows them

@pytest.mark.parametrize("ddl, facts", [
    ("CREATE VECTOR INDEX v_idx ON research_chunks (embedding) ORGANIZATION INMEMORY NEIGHBOR GRAPH "
     "DISTANCE COSINE WITH TARGET ACCURACY 95", ("INMEMORY_NEIGHBOR_GRAPH_HNSW", "HNSW", "COSINE", 95)),
    ("CREATE VECTOR INDEX v_idx ON research_chunks (embedding) ORGANIZATION NEIGHBOR PARTITIONS DISTANCE L2",
     ("NEIGHBOR_PARTITIONS_IVF", "IVF", "EUCLIDEAN", None)),
    ("-- a comment first\ncreate vector index v_idx on research_chunks (embedding) organization inmemory neighbor "
     "graph distance dot parameters (type hnsw, neighbors 16, efconstruction 100)",
     ("INMEMORY_NEIGHBOR_GRAPH_HNSW", "HNSW", "DOT", None)),
])
def test_vector_index_facts_come_from_the_dictionary(chunks, ddl, facts):
    with chunks.cursor() as cur:
        cur.execute(ddl)
    index = fw.vector_index(chunks, "v_idx")
    assert (index.subtype, index.organization, index.distance, index.accuracy) == facts
    assert index.table == "RESEARCH_CHUNKS" and index.columns == ("EMBEDDING",)
    assert fw.vector_index(chunks, "no_such_index") is None


def test_vecsys_vector_index_needs_its_owner_as_on_oracle(chunks):
    with chunks.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM vecsys.vector$index")
        assert cur.fetchone() == (0,)
        with pytest.raises(oracledb.DatabaseError, match="ORA-00942"):
            cur.execute("SELECT COUNT(*) FROM vector$index")
        cur.execute("SELECT index_subtype FROM user_indexes WHERE index_type <> 'VECTOR'")
        assert {row[0] for row in cur.fetchall()} <= {None}


def test_primary_key_columns_in_key_order(db):
    with db.cursor() as cur:
        cur.execute("CREATE TABLE pk_probe (b NUMBER, a NUMBER, c NUMBER, CONSTRAINT pk_probe_pk PRIMARY KEY (b, a))")
        cur.execute("CREATE TABLE no_pk_probe (a NUMBER)")
    assert fw.primary_key(db, "pk_probe") == ("B", "A") and fw.primary_key(db, "no_pk_probe") == ()


@pytest.mark.oracle
@pytest.mark.skipif(not os.environ.get("ORACLE_DSN"), reason="needs ORACLE_DSN (real Oracle AI Database)")
def test_vector_index_facts_on_oracle():
    from workshop.db import connect as connect_configured
    conn = connect_configured()
    try:
        with conn.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS ckpt_fw_vix PURGE")
            cur.execute("CREATE TABLE ckpt_fw_vix (id NUMBER PRIMARY KEY, embedding VECTOR(3, FLOAT32))")
            cur.execute("CREATE VECTOR INDEX ckpt_fw_vix_hnsw ON ckpt_fw_vix (embedding) ORGANIZATION INMEMORY "
                        "NEIGHBOR GRAPH DISTANCE COSINE WITH TARGET ACCURACY 95")
        index = fw.vector_index(conn, "ckpt_fw_vix_hnsw")
        assert (index.organization, index.distance, index.accuracy) == ("HNSW", "COSINE", 95)
    finally:
        with conn.cursor() as cur:
            cur.execute("DROP TABLE IF EXISTS ckpt_fw_vix PURGE")
        conn.close()
