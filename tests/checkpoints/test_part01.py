"""Checkpoints of part 01 (vector search) against a database built by the set-up.

For every TODO: (a) the solution notebook's own cell passes, (b) the generated student stub fails with a friendly
CheckpointFailed, (c) plausible wrong answers fail with a reason that names the mistake. The cells are read from
solutions/01_vector_search.ipynb and notebooks/01_vector_search.ipynb and executed here, so the tests follow the
notebooks. One set-up build is shared by the whole test session (the first xdist worker builds it, the others
wait); each module solves TODOs 1, 2 and 4 once in its own copy; tests that change the database work on a copy.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from checkpoints import part01
from checkpoints.framework import CheckpointError, CheckpointFailed
from workshop.config import PROJECT_ROOT
from workshop.embedded import connect

from tests.checkpoints.shared import Wrong, cells, copy_db, kinds_covered, shared_file, wrong_params, student_path

NAME = "01_vector_search.ipynb"
SOLUTION = PROJECT_ROOT / "solutions" / NAME
STUDENT = student_path(NAME)
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


# --------------------------------------------------------------------------- the wrong answers, one table
#: Every plausible wrong answer the part's checkpoints must reject, by TODO and kind (shared.KINDS). `edit` changes the
#: TODO's solution cell; `sql` builds the wrong state directly. Accepted on purpose (not in the table):
#: paper_vectors filled by a Python loop of INSERTs with VECTOR_EMBEDDING (the same rows, committed), and
#: paper_vectors.embedding copied from PAPERS.EMBEDDING (the set-up embedded the same text with the same model: the
#: vectors are identical, to 1e-15).
WRONG = [
    # paper_vectors (TODO 1)
    Wrong("paper_vectors", "clause", "wrong-dimension", "is VECTOR(768, FLOAT32), expected VECTOR(384, FLOAT32)",
          edit=(("VECTOR(384, FLOAT32)", "VECTOR(768, FLOAT32)"),
                ("VECTOR_EMBEDDING({MODEL} USING title || '. ' || abstract AS data)", "NULL"))),
    Wrong("paper_vectors", "clause", "no-primary-key", "PAPER_VECTORS has no primary key",
          edit=(("VARCHAR2(20) PRIMARY KEY", "VARCHAR2(20)"),)),
    Wrong("paper_vectors", "clause", "title-only-embedded", "are not embeddings of their paper's title and abstract",
          edit=(("USING title || '. ' || abstract AS data", "USING title AS data"),)),
    Wrong("paper_vectors", "clause", "a-where-clause", "PAPER_VECTORS has 49 rows, expected 162",
          edit=(("        FROM papers\"\"\")", "        FROM papers WHERE primary_subject = 'cs.IR'\"\"\")"),)),
    Wrong("paper_vectors", "clause", "columns-swapped", "do not carry their paper's arxiv_id, title and primary_subject",
          sql=(CREATE_TABLE.format(dims=384).replace("VARCHAR2(20), embedding", "VARCHAR2(500), embedding"),
               "INSERT INTO paper_vectors SELECT arxiv_id, primary_subject, title, embedding FROM papers")),
    Wrong("paper_vectors", "next-cell", "not-committed", "not committed",
          edit=(("conn.commit()\n# END SOLUTION", "# END SOLUTION"),)),
    # vector_index (TODO 2)
    Wrong("vector_index", "clause", "ivf-not-hnsw", "is an IVF index (NEIGHBOR_PARTITIONS_IVF), expected HNSW",
          edit=(("ORGANIZATION INMEMORY NEIGHBOR GRAPH", "ORGANIZATION NEIGHBOR PARTITIONS"),)),
    Wrong("vector_index", "clause", "euclidean", "is built for EUCLIDEAN distance, expected COSINE",
          edit=(("DISTANCE COSINE", "DISTANCE EUCLIDEAN"),)),
    Wrong("vector_index", "clause", "accuracy-90", "has target accuracy 90, expected 95",
          edit=(("WITH TARGET ACCURACY 95", "WITH TARGET ACCURACY 90"),)),
    Wrong("vector_index", "clause", "no-accuracy", "has target accuracy (none given), expected 95",
          edit=(("\n  WITH TARGET ACCURACY 95", ""),)),
    Wrong("vector_index", "clause", "ordinary-index", "there is no VECTOR index on PAPER_VECTORS(EMBEDDING)",
          sql=("DROP INDEX paper_vectors_hnsw", "CREATE INDEX paper_vectors_subject ON paper_vectors (primary_subject)")),
    Wrong("vector_index", "clause", "wrong-table", "no VECTOR index on PAPER_VECTORS(EMBEDDING)",
          edit=(("ON paper_vectors (embedding)", "ON papers_vs (embedding)"), ("paper_vectors_hnsw ON", "other_hnsw ON"))),
    Wrong("vector_index", "next-cell", "another-name", "is called PV_INDEX, expected PAPER_VECTORS_HNSW",
          edit=(("CREATE VECTOR INDEX paper_vectors_hnsw", "CREATE VECTOR INDEX pv_index"),)),
    # search_papers (TODO 3)
    Wrong("search_papers", "clause", "filter-ignored", "returned papers of other subjects",
          edit=(('binds["subject"] = subject', 'where = ""'),)),
    Wrong("search_papers", "clause", "no-row-limit", "expected at most k = 4",
          edit=(('binds = {"query": query, "k": k}', 'binds = {"query": query}'),
                ("FETCH APPROX FIRST :k ROWS ONLY WITH TARGET ACCURACY 95", ""))),
    Wrong("search_papers", "clause", "farthest-first", "rows are not in ascending order of 'distance'",
          edit=(("ORDER BY distance", "ORDER BY distance DESC"),)),
    Wrong("search_papers", "clause", "euclidean-distance", "the distances are not cosine distances",
          edit=((", COSINE) AS distance", ", EUCLIDEAN) AS distance"),)),
    Wrong("search_papers", "method", "k-formatted", "writes k=4 into the SQL text instead of binding it",
          edit=(('binds = {"query": query, "k": k}', 'binds = {"query": query}'), ("FIRST :k ROWS", "FIRST {k} ROWS"))),
    Wrong("search_papers", "method", "subject-formatted", "writes subject='cs.CL' into the SQL text",
          edit=(('where = "WHERE primary_subject = :subject"', "where = f\"WHERE primary_subject = '{subject}'\""),
                ('binds["subject"] = subject', "pass"))),
    Wrong("search_papers", "method", "query-formatted", "writes query=\"keeping a chatbot's memory of earlier "
          "sessions\" into the SQL text, and its quote broke the statement",
          edit=(('binds = {"query": query, "k": k}', 'binds = {"k": k}'), ("USING :query AS data", "USING '{query}' AS data"))),
    Wrong("search_papers", "method", "filtered-in-python", "fetched 162 rows from the database to return 4",
          edit=(('binds = {"query": query, "k": k}', 'binds = {"query": query}'), ('binds["subject"] = subject', "pass"),
                ('where = "WHERE primary_subject = :subject"', 'where = ""'),
                ("FETCH APPROX FIRST :k ROWS ONLY WITH TARGET ACCURACY 95", ""),
                ("return rows_as_dicts(cur)", "return [r for r in rows_as_dicts(cur) "
                                              "if subject is None or r['primary_subject'] == subject][:k]"))),
    Wrong("search_papers", "method", "sliced-in-python", "fetched 44 rows from the database to return 4",
          edit=(('binds = {"query": query, "k": k}', 'binds = {"query": query}'),
                ("FETCH APPROX FIRST :k ROWS ONLY WITH TARGET ACCURACY 95", ""),
                ("return rows_as_dicts(cur)", "return rows_as_dicts(cur)[:k]"))),
    Wrong("search_papers", "probe", "none-subject-filters-everything", "returned 0 rows, expected 3",
          edit=(("if subject is not None:", "if True:"),)),
    Wrong("search_papers", "next-cell", "tuples", "row 1 is a tuple, expected a dict",
          edit=(("return rows_as_dicts(cur)", "return cur.fetchall()"),)),
    Wrong("search_papers", "next-cell", "upper-case-keys", "returns rows keyed ['ARXIV_ID', 'TITLE', 'PRIMARY_SUBJECT']",
          edit=(("return rows_as_dicts(cur)",
                 "return [dict(zip([d[0] for d in cur.description], row)) for row in cur.fetchall()]"),)),
    # papers_store (TODO 4): edits of search_store, or `store` to build papers_vs another way
    Wrong("papers_store", "clause", "filter-ignored", "returned documents of other subjects",
          edit=((', filter={"primary_subject": subject}', ""),)),
    Wrong("papers_store", "method", "filtered-afterwards-in-python", "searched with filter=None",
          edit=(("return store.similarity_search(query, k=k, filter={\"primary_subject\": subject})",
                 "return [d for d in store.similarity_search(query, k=k) if d.metadata['primary_subject'] == subject]"),)),
    Wrong("papers_store", "clause", "k-ignored", "returned 4 documents, expected at most 3",
          edit=(("k=k, filter", "filter"),)),
    Wrong("papers_store", "clause", "euclidean-store", "papers_vs measures EUCLIDEAN_DISTANCE distance, expected COSINE",
          sql=("store:EUCLIDEAN_DISTANCE",)),
    Wrong("papers_store", "clause", "embedded-outside-the-database", "papers_vs embeds with FakeEmbeddings",
          sql=("store:fake-embeddings",)),
    Wrong("papers_store", "probe", "padded-to-k-with-other-subjects", "returned documents of other subjects",
          edit=(("return store.similarity_search(query, k=k, filter={\"primary_subject\": subject})",
                 "docs = store.similarity_search(query, k=k, filter={\"primary_subject\": subject})\n"
                 "    if len(docs) < k:   # always return k documents\n"
                 "        docs += [d for d in store.similarity_search(query, k=2 * k) if d not in docs][:k - len(docs)]\n"
                 "    return docs"),)),
    Wrong("papers_store", "next-cell", "documents-with-scores", "expected a list of langchain Documents",
          edit=(("store.similarity_search(", "store.similarity_search_with_score("),)),
]

#: Different correct answers: each must pass (comments, letter case, column order, other aliases, equivalent SQL).
CORRECT = {
    "paper_vectors": [
        ("lower-case-comment-column-order", (
            ("        CREATE TABLE paper_vectors (\n            arxiv_id        VARCHAR2(20) PRIMARY KEY,\n"
             "            title           VARCHAR2(500) NOT NULL,\n            primary_subject VARCHAR2(20),\n"
             "            embedding       VECTOR(384, FLOAT32)\n        )",
             "        -- my vector table\n        create table paper_vectors (\n"
             "            embedding vector(384, float32), primary_subject varchar2(20), title varchar2(600),\n"
             "            arxiv_id varchar2(20), constraint paper_vectors_pk primary key (arxiv_id))"),
            ("INSERT INTO paper_vectors (arxiv_id, title, primary_subject, embedding)",
             "insert into paper_vectors (embedding, primary_subject, title, arxiv_id)"),
            ("SELECT arxiv_id, title, primary_subject,\n               VECTOR_EMBEDDING({MODEL} USING title || '. ' || "
             "abstract AS data)",
             "select VECTOR_EMBEDDING({MODEL} USING title || '. ' || abstract AS data) AS v, primary_subject, title, "
             "p.arxiv_id"),
            ("        FROM papers\"\"\")", "        FROM papers p\"\"\")"))),
    ],
    "vector_index": [
        ("comment-lower-case-parameters", (
            ("\nCREATE VECTOR INDEX paper_vectors_hnsw ON paper_vectors (embedding)\n  ORGANIZATION INMEMORY NEIGHBOR "
             "GRAPH\n  DISTANCE COSINE\n  WITH TARGET ACCURACY 95",
             "\n-- HNSW for the cosine searches below\ncreate vector index PAPER_VECTORS_HNSW on paper_vectors(embedding)"
             " organization inmemory neighbor graph distance cosine with target accuracy 95 "
             "parameters (type HNSW, neighbors 32, efconstruction 200)"),)),
    ],
    "search_papers": [
        ("always-bound-subject-positional-order", (
            ('    binds = {"query": query, "k": k}\n    where = ""\n    if subject is not None:\n'
             '        where = "WHERE primary_subject = :subject"\n        binds["subject"] = subject\n',
             '    binds = {"q": query, "s": subject, "n": k}\n    where = "WHERE (:s IS NULL OR primary_subject = :s)"\n'),
            ("VECTOR_EMBEDDING({MODEL} USING :query AS data)", "VECTOR_EMBEDDING({MODEL} USING :q AS data)"),
            ("ORDER BY distance\n", "-- nearest first\n        ORDER BY 4\n"),
            ("FETCH APPROX FIRST :k ROWS ONLY WITH TARGET ACCURACY 95", "FETCH FIRST :n ROWS ONLY"))),
    ],
    "papers_store": [
        ("eq-operator-filter", ((', filter={"primary_subject": subject}', ', filter={"primary_subject": {"$eq": subject}}'),)),
        ("with-scores-then-documents", (
            ("return store.similarity_search(query, k=k, filter={\"primary_subject\": subject})",
             "pairs = store.similarity_search_with_score(query, k=k, filter={\"primary_subject\": subject})\n"
             "    return [doc for doc, _distance in pairs]"),)),
    ],
}


def test_the_table_covers_every_todo_with_the_kinds_that_apply():
    covered = kinds_covered(WRONG)
    assert set(covered) == {"paper_vectors", "vector_index", "search_papers", "papers_store"} == set(CORRECT)
    assert covered["search_papers"] >= {"clause", "method", "probe", "next-cell"}
    assert covered["papers_store"] >= {"clause", "method", "probe", "next-cell"}
    assert all({"clause", "next-cell"} <= kinds for kinds in covered.values())


# --------------------------------------------------------------------------- paper_vectors (TODO 1)
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


@pytest.mark.parametrize("wrong", wrong_params(WRONG, "paper_vectors"))
def test_todo_1_wrong_answers_fail(monkeypatch, built_copy, close_later, wrong):
    ns = notebook(monkeypatch, built_copy, SOLUTION_CELLS, *(() if wrong.sql else ("todo1",)), replace=wrong.edit)
    close_later(ns["conn"])
    if wrong.sql:
        execute(ns["conn"], *wrong.sql)
    assert wrong.reason in failure(part01.check_paper_vectors, ns["conn"]).reason
    ns["conn"].rollback()


@pytest.mark.parametrize("edit", [pytest.param(e, id=i) for i, e in CORRECT["paper_vectors"]])
def test_todo_1_other_correct_answers_pass(monkeypatch, built_copy, close_later, edit):
    ns = notebook(monkeypatch, built_copy, SOLUTION_CELLS, "todo1", replace=edit)
    close_later(ns["conn"])
    part01.check_paper_vectors(ns["conn"])


# --------------------------------------------------------------------------- vector_index (TODO 2)
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
    assert "section 5" in error.hint


def test_todo_2_hints_escalate_to_the_statement(monkeypatch, solved_copy, close_later):
    ns = notebook(monkeypatch, solved_copy, STUDENT_CELLS, "todo2")
    close_later(ns["conn"])
    first, second = (failure(part01.check_vector_index, ns["conn"]) for _ in range(2))
    assert "section 5" in first.hint and "CREATE VECTOR INDEX" not in first.hint
    assert second.hint.startswith("CREATE VECTOR INDEX paper_vectors_hnsw")


@pytest.mark.parametrize("wrong", wrong_params(WRONG, "vector_index"))
def test_todo_2_wrong_answers_fail(monkeypatch, solved_copy, close_later, wrong):
    ns = notebook(monkeypatch, solved_copy, SOLUTION_CELLS, *(() if wrong.sql else ("todo2",)), replace=wrong.edit)
    close_later(ns["conn"])
    if wrong.sql:
        execute(ns["conn"], *wrong.sql)
    assert wrong.reason in failure(part01.check_vector_index, ns["conn"]).reason


@pytest.mark.parametrize("edit", [pytest.param(e, id=i) for i, e in CORRECT["vector_index"]])
def test_todo_2_other_correct_answers_pass(monkeypatch, solved_copy, close_later, edit):
    ns = notebook(monkeypatch, solved_copy, SOLUTION_CELLS, "todo2", replace=edit)
    close_later(ns["conn"])
    part01.check_vector_index(ns["conn"])


# --------------------------------------------------------------------------- search_papers (TODO 3)
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


@pytest.mark.parametrize("wrong", wrong_params(WRONG, "search_papers"))
def test_todo_3_wrong_answers_fail(monkeypatch, solved_db, close_later, wrong):
    conn, search = search_function(monkeypatch, solved_db, SOLUTION_CELLS, close_later, *wrong.edit)
    assert wrong.reason in failure(part01.check_search_papers, conn, search).reason


@pytest.mark.parametrize("edit", [pytest.param(e, id=i) for i, e in CORRECT["search_papers"]])
def test_todo_3_other_correct_answers_pass(monkeypatch, solved_db, close_later, edit):
    part01.check_search_papers(*search_function(monkeypatch, solved_db, SOLUTION_CELLS, close_later, *edit))


# --------------------------------------------------------------------------- papers_store (TODO 4)
def store_namespace(monkeypatch, db_path, close_later, *replace, strategy: str = "COSINE", fake: bool = False):
    """The solution's search_store (or a mutation of it) and an OracleVS over the PAPERS_VS rows the solution
    cell wrote when the shared database was prepared."""
    from langchain_core.embeddings import FakeEmbeddings
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
    embeddings = (FakeEmbeddings(size=384) if fake else
                  OracleEmbeddings(conn=ns["conn"], params={"provider": "database", "model": ns["MODEL"]}))
    ns["papers_vs"] = OracleVS(ns["conn"], embeddings, "PAPERS_VS", getattr(DistanceStrategy, strategy))
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


@pytest.mark.parametrize("wrong", wrong_params(WRONG, "papers_store"))
def test_todo_4_wrong_answers_fail(monkeypatch, solved_db, close_later, wrong):
    how = wrong.sql[0].split(":", 1)[1] if wrong.sql else ""
    ns = store_namespace(monkeypatch, solved_db, close_later, *wrong.edit, fake=how == "fake-embeddings",
                         strategy=how if how and how != "fake-embeddings" else "COSINE")
    error = failure(part01.check_papers_store, ns["conn"], ns["papers_vs"], ns["search_store"])
    assert wrong.reason in error.reason


@pytest.mark.parametrize("edit", [pytest.param(e, id=i) for i, e in CORRECT["papers_store"]])
def test_todo_4_other_correct_answers_pass(monkeypatch, solved_db, close_later, edit):
    ns = store_namespace(monkeypatch, solved_db, close_later, *edit)
    part01.check_papers_store(ns["conn"], ns["papers_vs"], ns["search_store"])


def test_todo_4_a_search_that_raises_is_an_error_not_a_crash(monkeypatch, solved_db, close_later):
    ns = store_namespace(monkeypatch, solved_db, close_later, ("return store.", "return stor."))
    error = failure(part01.check_papers_store, ns["conn"], ns["papers_vs"], ns["search_store"])
    assert isinstance(error, CheckpointError) and "NameError" in error.reason


# --------------------------------------------------------------------------- cells after an unfinished TODO
@pytest.mark.parametrize("todo_cell, later_cell, todo", [
    ("todo3", "todo3-compare", "TODO 3 (search_papers)"),
    ("todo4", "postfilter-demo", "TODO 4 (papers_store)"),
    ("todo4", "store-index-run", "TODO 4 (papers_store)"),
])
def test_cells_after_an_unfinished_todo_name_it_in_one_line(monkeypatch, built_copy, close_later, todo_cell,
                                                            later_cell, todo):
    from checkpoints.framework import TodoNeeded
    ns = notebook(monkeypatch, built_copy, STUDENT_CELLS, *(("docs",) if todo_cell == "todo4" else ()), todo_cell)
    close_later(ns["conn"])
    with pytest.raises(TodoNeeded, match=f"this cell needs {re.escape(todo)}"):
        run(ns, STUDENT_CELLS, later_cell)


# --------------------------------------------------------------------------- Oracle's approximate answers
def near_exact_search(search_papers, swap_last: bool, far: bool = False):
    """The solution's answer with its last row replaced by the next nearest paper (what an HNSW index may return
    on Oracle); with far=True the nearest paper and then the farthest ones (in order, but no approximation)."""
    def search(conn, query, subject=None, k=5):
        ranked = search_papers(conn, query, subject=subject, k=200)
        if not swap_last or k < 2 or len(ranked) <= k:   # nothing to swap in when the subject has <= k papers
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
    # The simulation fetches more rows than k to build the approximate answer: not what this test is about.
    monkeypatch.setattr(part01, "expect_database_limits", lambda *args, **kwargs: None)
    search = near_exact_search(search_papers, swap_last=True, far=far)
    if passes:
        part01.check_search_papers(conn, search)
    else:
        assert "expected the nearest" in failure(part01.check_search_papers, conn, search).reason
