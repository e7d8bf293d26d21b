"""Checkpoints of part 01 (vector search) against a database built by the set-up.

For every TODO: (a) the solution notebook's own cell passes, (b) the generated student stub fails with a friendly
CheckpointFailed, (c) plausible wrong answers fail with a reason that names the mistake. The cells are read from
solutions/01_vector_search.ipynb and notebooks/01_vector_search.ipynb and executed here, so the tests follow the
notebooks. One set-up build is shared by the whole test session (the first xdist worker builds it, the others
wait); each module solves TODOs 1, 2 and 4 once in its own copy; tests that change the database work on a copy.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from checkpoints import part01
from checkpoints.framework import CheckpointError, CheckpointFailed
from workshop.config import PROJECT_ROOT
from workshop.embedded import connect

from tests.checkpoints.shared import cells, copy_db, shared_file

NAME = "01_vector_search.ipynb"
SOLUTION = PROJECT_ROOT / "solutions" / NAME
STUDENT = PROJECT_ROOT / "notebooks" / NAME
#: Cells every TODO cell needs before it (imports, conn, MODEL, rows_as_dicts); the sys.path cell is not needed.
PREAMBLE = ("setup", "helpers")
#: The setup cell's reset of the part, which the tests skip: they prepare the database state themselves.
RESET = "reset_part(1, conn)"

pytestmark = pytest.mark.slow


SOLUTION_CELLS = cells(SOLUTION)
STUDENT_CELLS = cells(STUDENT)


def run(namespace: dict, sources: dict[str, str], *ids: str, replace: tuple[tuple[str, str], ...] = ()) -> dict:
    """Execute notebook cells in `namespace`; `replace` applies (old, new) edits to the last cell first."""
    for position, cell_id in enumerate(ids):
        source = sources[cell_id]
        if position == len(ids) - 1:
            for old, new in replace:
                assert old in source, f"mutation target {old!r} not in cell {cell_id}"
                source = source.replace(old, new)
        exec(compile(source, f"{NAME}:{cell_id}", "exec"), namespace)
    return namespace


def notebook(monkeypatch, db_path: Path, sources: dict[str, str] = SOLUTION_CELLS, *ids: str,
             replace: tuple[tuple[str, str], ...] = ()) -> dict:
    """The notebook's namespace after its preamble and `ids`, connected to `db_path` (as the checkpoint's second
    connection will be)."""
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.delenv("EMBED_MODEL", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(db_path))
    namespace: dict = {"__name__": "notebook"}
    run(namespace, SOLUTION_CELLS, *PREAMBLE[:-1], replace=((RESET, "pass"),))   # keep the prepared tables
    run(namespace, SOLUTION_CELLS, PREAMBLE[-1])
    if ids:
        run(namespace, sources, *ids, replace=replace)
    return namespace


@pytest.fixture
def close_later():
    connections = []
    yield connections.append
    for conn in connections:
        conn.close()


def make_solved_db(built_db: Path) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        copy_db(built_db, path)
        with pytest.MonkeyPatch.context() as mp:
            ns = notebook(mp, path, SOLUTION_CELLS, "todo1", "todo2", "docs", "todo4")
            ns["conn"].close()
    return make


@pytest.fixture(scope="session")
def solved_db(tmp_path_factory, worker_id, built_db) -> Path:
    """A copy of the built database after the solution cells of TODOs 1, 2 and 4 (read-only by convention)."""
    return shared_file(tmp_path_factory, worker_id, "part01-solved", make_solved_db(built_db))


@pytest.fixture
def built_copy(built_db, tmp_path) -> Path:
    return copy_db(built_db, tmp_path / "built.db")


@pytest.fixture
def solved_copy(solved_db, tmp_path) -> Path:
    return copy_db(solved_db, tmp_path / "solved.db")


def failure(check: Callable, *args) -> CheckpointFailed:
    with pytest.raises(CheckpointFailed) as info:
        check(*args)
    return info.value


def execute(conn, *statements: str, commit: bool = True) -> None:
    with conn.cursor() as cur:
        for statement in statements:
            cur.execute(statement)
    if commit:
        conn.commit()


CREATE_TABLE = """CREATE TABLE paper_vectors (arxiv_id VARCHAR2(20) PRIMARY KEY, title VARCHAR2(500),
                  primary_subject VARCHAR2(20), embedding VECTOR({dims}, FLOAT32))"""
COPY_VECTORS = ("INSERT INTO paper_vectors (arxiv_id, title, primary_subject, embedding) "
                "SELECT arxiv_id, title, primary_subject, embedding FROM papers")


# --------------------------------------------------------------------------- TODO 1
def test_todo_1_solution_passes(monkeypatch, solved_db, close_later):
    ns = notebook(monkeypatch, solved_db)
    close_later(ns["conn"])
    part01.check_paper_vectors(ns["conn"])


def test_todo_1_stub_fails_friendly(monkeypatch, built_copy, close_later):
    ns = notebook(monkeypatch, built_copy, STUDENT_CELLS, "todo1")
    close_later(ns["conn"])
    error = failure(part01.check_paper_vectors, ns["conn"])
    assert type(error) is CheckpointFailed
    assert "table PAPER_VECTORS does not exist" in error.reason and error.hint


def test_todo_1_wrong_dimension_fails(monkeypatch, built_copy, close_later):
    ns = notebook(monkeypatch, built_copy, SOLUTION_CELLS, "todo1",
                  replace=(("VECTOR(384, FLOAT32)", "VECTOR(768, FLOAT32)"),
                           ("VECTOR_EMBEDDING({MODEL} USING title || '. ' || abstract AS data)", "NULL")))
    close_later(ns["conn"])
    error = failure(part01.check_paper_vectors, ns["conn"])
    assert "is VECTOR(768, FLOAT32), expected VECTOR(384, FLOAT32)" in error.reason


def test_todo_1_uncommitted_rows_fail(monkeypatch, built_copy, close_later):
    ns = notebook(monkeypatch, built_copy)
    conn = ns["conn"]
    close_later(conn)
    execute(conn, CREATE_TABLE.format(dims=384))
    execute(conn, COPY_VECTORS, commit=False)
    error = failure(part01.check_paper_vectors, conn)
    assert "not committed" in error.reason and "commit" in error.hint
    conn.rollback()


def test_todo_1_embedding_of_the_wrong_text_fails(monkeypatch, built_copy, close_later):
    ns = notebook(monkeypatch, built_copy, SOLUTION_CELLS, "todo1",
                  replace=(("USING title || '. ' || abstract AS data", "USING title AS data"),))
    close_later(ns["conn"])
    error = failure(part01.check_paper_vectors, ns["conn"])
    assert "are not embeddings of their paper's title and abstract" in error.reason


def test_todo_1_missing_rows_fail(monkeypatch, built_copy, close_later):
    ns = notebook(monkeypatch, built_copy)
    conn = ns["conn"]
    close_later(conn)
    execute(conn, CREATE_TABLE.format(dims=384), COPY_VECTORS + " WHERE primary_subject = 'cs.IR'")
    error = failure(part01.check_paper_vectors, conn)
    assert "PAPER_VECTORS has 49 rows, expected 162" in error.reason


def test_todo_1_columns_in_the_wrong_order_fail(monkeypatch, built_copy, close_later):
    ns = notebook(monkeypatch, built_copy)
    conn = ns["conn"]
    close_later(conn)
    execute(conn, CREATE_TABLE.format(dims=384).replace("VARCHAR2(20), embedding", "VARCHAR2(500), embedding"),
            "INSERT INTO paper_vectors SELECT arxiv_id, primary_subject, title, embedding FROM papers")
    error = failure(part01.check_paper_vectors, conn)
    assert "do not carry their paper's arxiv_id, title and primary_subject" in error.reason


# --------------------------------------------------------------------------- TODO 2
def test_todo_2_solution_passes(monkeypatch, solved_db, close_later):
    ns = notebook(monkeypatch, solved_db)
    close_later(ns["conn"])
    part01.check_vector_index(ns["conn"])


def test_todo_2_stub_fails_friendly(monkeypatch, solved_copy, close_later):
    ns = notebook(monkeypatch, solved_copy, STUDENT_CELLS, "todo2")   # the stub's cell drops the index first
    close_later(ns["conn"])
    error = failure(part01.check_vector_index, ns["conn"])
    assert type(error) is CheckpointFailed
    assert "there is no VECTOR index on PAPER_VECTORS(EMBEDDING)" in error.reason
    assert "CREATE VECTOR INDEX" in error.hint


def test_todo_2_ordinary_index_fails(monkeypatch, solved_copy, close_later):
    ns = notebook(monkeypatch, solved_copy)
    conn = ns["conn"]
    close_later(conn)
    execute(conn, "DROP INDEX paper_vectors_hnsw",
            "CREATE INDEX paper_vectors_subject ON paper_vectors (primary_subject)")
    error = failure(part01.check_vector_index, conn)
    assert "there is no VECTOR index on PAPER_VECTORS(EMBEDDING)" in error.reason


def test_todo_2_index_on_the_wrong_table_fails(monkeypatch, solved_copy, close_later):
    ns = notebook(monkeypatch, solved_copy, SOLUTION_CELLS, "todo2",
                  replace=(("ON paper_vectors (embedding)", "ON papers_vs (embedding)"),
                           ("paper_vectors_hnsw ON", "wrong_table_hnsw ON")))
    close_later(ns["conn"])
    error = failure(part01.check_vector_index, ns["conn"])
    assert "no VECTOR index on PAPER_VECTORS(EMBEDDING)" in error.reason


# --------------------------------------------------------------------------- TODO 3
def search_function(monkeypatch, db_path, sources, close_later, *replace):
    ns = notebook(monkeypatch, db_path, sources, "todo3", replace=tuple(replace))
    close_later(ns["conn"])
    return ns["conn"], ns["search_papers"]


def test_todo_3_solution_passes(monkeypatch, solved_db, close_later):
    part01.check_search_papers(*search_function(monkeypatch, solved_db, SOLUTION_CELLS, close_later))


def test_todo_3_stub_fails_friendly(monkeypatch, solved_db, close_later):
    error = failure(part01.check_search_papers, *search_function(monkeypatch, solved_db, STUDENT_CELLS, close_later))
    assert type(error) is CheckpointFailed
    assert error.reason.startswith("not done yet: the code still raises NotImplementedError (TODO 3:")


@pytest.mark.parametrize("replace, reason", [
    pytest.param((('binds["subject"] = subject', 'where = ""'),), "returned papers of other subjects",
                 id="filter-ignored"),
    pytest.param((('binds = {"query": query, "k": k}', 'binds = {"query": query}'),
                  ("FETCH APPROX FIRST :k ROWS ONLY WITH TARGET ACCURACY 95", "")), "expected at most k = 4",
                 id="no-row-limit"),
    pytest.param((('binds = {"query": query, "k": k}', 'binds = {"query": query}'),
                  ("FIRST :k ROWS", "FIRST 5 ROWS")), "expected at most k = 4", id="k-hard-coded"),
    pytest.param((("ORDER BY distance", "ORDER BY distance DESC"),), "rows are not in ascending order of 'distance'",
                 id="farthest-first"),
    pytest.param(((", COSINE) AS distance", ", EUCLIDEAN) AS distance"),), "the distances are not cosine distances",
                 id="euclidean-distance"),
    pytest.param((("return rows_as_dicts(cur)", "return cur.fetchall()"),), "row 1 is a tuple, expected a dict",
                 id="tuples"),
])
def test_todo_3_wrong_answers_fail(monkeypatch, solved_db, close_later, replace, reason):
    error = failure(part01.check_search_papers, *search_function(monkeypatch, solved_db, SOLUTION_CELLS, close_later, *replace))
    assert reason in error.reason


# --------------------------------------------------------------------------- TODO 4
def store_namespace(monkeypatch, db_path, close_later, *replace):
    """The solution's search_store (or a mutation of it) and an OracleVS over the PAPERS_VS rows the solution
    cell wrote when the shared database was prepared."""
    from langchain_oracledb import OracleEmbeddings, OracleVS
    from langchain_oracledb.vectorstores.utils import DistanceStrategy

    source = SOLUTION_CELLS["todo4"]
    solution_search = source[source.index("def search_store"):]
    ns = notebook(monkeypatch, db_path)
    close_later(ns["conn"])
    for old, new in replace:
        assert old in solution_search
        solution_search = solution_search.replace(old, new)
    exec(solution_search, ns)
    embeddings = OracleEmbeddings(conn=ns["conn"], params={"provider": "database", "model": ns["MODEL"]})
    ns["papers_vs"] = OracleVS(ns["conn"], embeddings, "PAPERS_VS", DistanceStrategy.COSINE)
    return ns


def test_todo_4_solution_passes(monkeypatch, solved_db, close_later):
    ns = store_namespace(monkeypatch, solved_db, close_later)
    part01.check_papers_store(ns["conn"], ns["papers_vs"], ns["search_store"])


def test_todo_4_solution_cell_writes_the_store(solved_db):
    conn = connect(solved_db)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*), COUNT(DISTINCT JSON_VALUE(metadata, '$.arxiv_id')) FROM papers_vs")
            assert cur.fetchone() == (162, 162)
    finally:
        conn.close()


def test_todo_4_stub_fails_friendly(monkeypatch, built_copy, close_later):
    ns = notebook(monkeypatch, built_copy, STUDENT_CELLS, "docs", "todo4")
    close_later(ns["conn"])
    error = failure(part01.check_papers_store, ns["conn"], ns["papers_vs"], ns["search_store"])
    assert type(error) is CheckpointFailed
    assert "`papers_vs` is still empty (None)" in error.reason


def test_todo_4_stub_search_fails_friendly(monkeypatch, solved_db, close_later):
    ns = store_namespace(monkeypatch, solved_db, close_later)
    exec(STUDENT_CELLS["todo4"][STUDENT_CELLS["todo4"].index("def search_store"):], ns)
    error = failure(part01.check_papers_store, ns["conn"], ns["papers_vs"], ns["search_store"])
    assert error.reason.startswith("not done yet: the code still raises NotImplementedError (TODO 4:")


@pytest.mark.parametrize("replace, reason", [
    pytest.param(((', filter={"primary_subject": subject}', ""),), "returned documents of other subjects",
                 id="filter-ignored"),
    pytest.param((("return store.similarity_search(query, k=k, filter={\"primary_subject\": subject})",
                   "return [d for d in store.similarity_search(query, k=k) "
                   "if d.metadata['primary_subject'] == subject]"),),
                 "returned 2 documents, expected 3 (the store has enough cs.DB papers)",
                 id="filtered-afterwards-in-python"),
    pytest.param((("k=k, filter", "filter"),), "returned 4 documents, expected at most 3", id="k-ignored"),
])
def test_todo_4_wrong_search_fails(monkeypatch, solved_db, close_later, replace, reason):
    ns = store_namespace(monkeypatch, solved_db, close_later, *replace)
    error = failure(part01.check_papers_store, ns["conn"], ns["papers_vs"], ns["search_store"])
    assert reason in error.reason


def test_todo_4_embeddings_outside_the_database_fail(monkeypatch, solved_db, close_later):
    from langchain_core.embeddings import FakeEmbeddings
    from langchain_oracledb import OracleVS

    ns = store_namespace(monkeypatch, solved_db, close_later)
    store = OracleVS(ns["conn"], FakeEmbeddings(size=384), "PAPERS_VS")
    error = failure(part01.check_papers_store, ns["conn"], store, ns["search_store"])
    assert "papers_vs embeds with FakeEmbeddings" in error.reason and "provider" in error.hint


def test_todo_4_a_search_that_raises_is_an_error_not_a_crash(monkeypatch, solved_db, close_later):
    ns = store_namespace(monkeypatch, solved_db, close_later, ("return store.", "return stor."))
    error = failure(part01.check_papers_store, ns["conn"], ns["papers_vs"], ns["search_store"])
    assert isinstance(error, CheckpointError) and "NameError" in error.reason


# --------------------------------------------------------------------------- Oracle's approximate answers
def near_exact_search(search_papers, swap_last: bool, far: bool = False):
    """The solution's answer with its last row replaced by the next nearest paper (what an HNSW index may return
    on Oracle); with far=True the nearest paper and then the farthest ones (in order, but no approximation)."""
    def search(conn, query, subject=None, k=5):
        ranked = search_papers(conn, query, subject=subject, k=200)
        if not swap_last or k < 2:
            return ranked[:k]
        return ranked[:1] + ranked[-(k - 1):] if far else ranked[:k - 1] + [ranked[k]]
    return search


@pytest.mark.parametrize("exact_engine, far, passes", [
    pytest.param(True, False, False, id="embedded-engine-requires-the-exact-top-k"),
    pytest.param(False, False, True, id="oracle-accepts-a-near-exact-top-k"),
    pytest.param(False, True, False, id="oracle-rejects-a-far-answer"),
])
def test_todo_3_approximate_answers(monkeypatch, solved_db, close_later, exact_engine, far, passes):
    conn, search_papers = search_function(monkeypatch, solved_db, SOLUTION_CELLS, close_later)
    monkeypatch.setattr(part01, "answers_exactly", lambda _conn: exact_engine)
    search = near_exact_search(search_papers, swap_last=True, far=far)
    if passes:
        part01.check_search_papers(conn, search)
    else:
        assert "expected the nearest" in failure(part01.check_search_papers, conn, search).reason
