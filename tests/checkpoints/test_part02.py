"""Checkpoints of part 02 (retrieval strategies) against a database built by the set-up.

For every TODO: (a) the solution notebook's own cell passes, (b) the generated student stub fails with a friendly
CheckpointFailed, (c) plausible wrong answers fail with a reason that names the mistake. The cells are read from
solutions/02_retrieval_strategies.ipynb and notebooks/02_retrieval_strategies.ipynb and executed here. Part 02
only reads the database, so every test uses the one shared set-up build (made once per session; see
test_part01.py, whose protocol this module shares so that both use the same build).
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from checkpoints import part02
from checkpoints.framework import CheckpointError, CheckpointFailed
from workshop.config import PROJECT_ROOT
from workshop.data import load_golden_queries

from tests.checkpoints.shared import cells, student_path

NAME = "02_retrieval_strategies.ipynb"
SOLUTION = PROJECT_ROOT / "solutions" / NAME
STUDENT = student_path(NAME)
#: The setup cell without its reset (part 02 creates nothing; the tests never drop anything).
RESET = "reset_part(2, conn)"

pytestmark = pytest.mark.slow


SOLUTION_CELLS = cells(SOLUTION)
STUDENT_CELLS = cells(STUDENT)


@pytest.fixture
def notebook(monkeypatch, built_db):
    """run(cell_id, sources=SOLUTION_CELLS, replace=()) executes a notebook cell in one namespace that has run
    the notebook's setup and helper cells against the shared build; returns the namespace."""
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.delenv("EMBED_MODEL", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(built_db))
    namespace: dict = {"__name__": "notebook"}

    def run(cell_id: str, sources: dict[str, str] = SOLUTION_CELLS, replace: tuple[tuple[str, str], ...] = ()):
        source = sources[cell_id]
        for old, new in replace:
            assert old in source, f"mutation target {old!r} not in cell {cell_id}"
            source = source.replace(old, new)
        exec(compile(source, f"{NAME}:{cell_id}", "exec"), namespace)
        return namespace

    run("setup", replace=((RESET, "pass"),))
    run("helpers")
    yield run
    namespace["conn"].close()


def failure(check: Callable, *args) -> CheckpointFailed:
    with pytest.raises(CheckpointFailed) as info:
        check(*args)
    return info.value


def stub_failure(check: Callable, *args) -> CheckpointFailed:
    error = failure(check, *args)
    assert type(error) is CheckpointFailed, error
    assert error.reason.startswith("not done yet: the code still raises NotImplementedError (TODO")
    assert "NotImplementedError" in error.hint
    return error


# --------------------------------------------------------------------------- TODO 1
def test_todo_1_solution_passes(notebook):
    ns = notebook("todo1")
    part02.todo_1(ns["conn"], ns["vector_search"])


def test_todo_1_stub_fails_friendly(notebook):
    ns = notebook("todo1", STUDENT_CELLS)
    stub_failure(part02.todo_1, ns["conn"], ns["vector_search"])


def test_todo_1_sql_error_is_reported_with_the_oracle_message(notebook):
    ns = notebook("todo1", replace=(("FROM papers", "FROM paper"),))
    error = failure(part02.todo_1, ns["conn"], ns["vector_search"])
    assert isinstance(error, CheckpointError) and error.reason.startswith("ORA-00942")


# --------------------------------------------------------------------------- TODO 2
def test_todo_2_solution_passes(notebook):
    ns = notebook("todo2")
    part02.todo_2(ns["conn"], ns["hybrid_prefilter_search"])


def test_todo_2_stub_fails_friendly(notebook):
    ns = notebook("todo2", STUDENT_CELLS)
    stub_failure(part02.todo_2, ns["conn"], ns["hybrid_prefilter_search"])


# --------------------------------------------------------------------------- TODO 3
def test_todo_3_solution_passes(notebook):
    ns = notebook("todo3")
    part02.todo_3(ns["conn"], ns["coauthor_papers"])


def test_todo_3_stub_fails_friendly(notebook):
    ns = notebook("todo3", STUDENT_CELLS)
    stub_failure(part02.todo_3, ns["conn"], ns["coauthor_papers"])


def test_todo_3_expected_sets_match_the_golden_multi_hop_judgements():
    """The checkpoint's independent answer agrees with the hand-made judgements of the multi-hop questions."""
    for query in load_golden_queries("papers"):
        if query["intent"] == "multi-hop":
            expected = part02.expected_coauthor_papers(query["seed"])
            assert {i for i, _ in expected} == set(query["relevance"])
            assert {i for i, n in expected if n >= 2} == {i for i, g in query["relevance"].items() if g == 3}
    assert set(part02.GRAPH_SEEDS) == {q["seed"] for q in load_golden_queries("papers") if q["intent"] == "multi-hop"}


# --------------------------------------------------------------------------- every wrong answer, one table
CHECKS = {"todo1": part02.todo_1, "todo2": part02.todo_2, "todo3": part02.todo_3}
FUNCTIONS = {"todo1": "vector_search", "todo2": "hybrid_prefilter_search", "todo3": "coauthor_papers"}

POSTFILTER = """
        WITH candidates AS (
            SELECT arxiv_id, title, abstract,
                   VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({MODEL} USING :query AS data), COSINE) AS distance
            FROM papers ORDER BY distance FETCH FIRST :k ROWS ONLY)
        SELECT c.arxiv_id, c.title, c.distance, SCORE(1) AS keyword_score
        FROM candidates c JOIN papers p ON p.arxiv_id = c.arxiv_id
        WHERE CONTAINS(p.abstract, :keywords, 1) > 0
        ORDER BY c.distance\"\"\""""
PREFILTER_SQL = """
        SELECT arxiv_id, title,
               VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({MODEL} USING :query AS data), COSINE) AS distance,
               SCORE(1) AS keyword_score
        FROM papers
        WHERE CONTAINS(abstract, :keywords, 1) > 0
        ORDER BY distance, arxiv_id
        FETCH FIRST :k ROWS ONLY\"\"\""""

#: (cell, name, [(old, new) edits of the solution cell], what the failure must say). Classes: [clause] a clause the
#: TODO asks for left out; [method] the right result by the wrong method; [probe] only an edge probe shows it;
#: [next] passes alone but breaks a later cell.
WRONG_ANSWERS = [
    # TODO 1: vector search
    ("todo1", "farthest first [clause]", [("ORDER BY distance", "ORDER BY distance DESC")],
     "rows are not in ascending order of 'distance'"),
    ("todo1", "no row limit [clause]", [("FETCH APPROX FIRST :k ROWS ONLY", ""), ("query=query, k=k", "query=query")],
     "returned 162 rows, expected at most k = 5"),
    ("todo1", "k hard-coded [probe]", [("FIRST :k ROWS", "FIRST 5 ROWS"), ("query=query, k=k", "query=query")],
     "returned 5 rows, expected at most k = 1"),
    ("todo1", "dot distance [clause]", [("COSINE) AS distance", "DOT) AS distance")], "the distances are not cosine distances"),
    ("todo1", "ordered by id [clause]", [("ORDER BY distance", "ORDER BY arxiv_id")], "not in ascending order"),
    ("todo1", "tuples [next]", [("return rows_as_dicts(cur)", "return cur.fetchall()")], "row 1 is a tuple, expected a dict"),
    ("todo1", "no title [next]", [("SELECT arxiv_id, title,", "SELECT arxiv_id,")], "is missing the key(s) ['title']"),
    ("todo1", "sliced in Python [method]", [("FETCH APPROX FIRST :k ROWS ONLY", ""), ("query=query, k=k", "query=query"),
                                             ("return rows_as_dicts(cur)", "return rows_as_dicts(cur)[:k]")],
     "fetched 162 rows from the database and returned 5"),
    ("todo1", "question formatted into the SQL [method]", [
        ("USING :query AS data", "USING '{query}' AS data"), ("cur.execute(sql, query=query, k=k)",
                                                              "cur.execute(sql.format(query=query.replace(\"'\", \"''\")), k=k)")],
     "wrote the query into the SQL text instead of binding it"),
    # TODO 2: hybrid pre-filter
    ("todo2", "keyword filter ignored [clause]", [("WHERE CONTAINS(abstract, :keywords, 1) > 0", "WHERE :keywords IS NOT NULL"),
                                                   ("SCORE(1) AS keyword_score", "0 AS keyword_score")],
     "returned papers whose abstract does not contain"),
    ("todo2", "ordered by score [clause]", [("ORDER BY distance", "ORDER BY keyword_score DESC, arxiv_id")],
     "rows are not in ascending order of 'distance'"),
    ("todo2", "no row limit [clause]", [("FETCH FIRST :k ROWS ONLY", ""), ("keywords=keywords, k=k", "keywords=keywords")],
     "returned 18 rows, expected at most k = 4"),
    ("todo2", "post-filter instead [method]", [(PREFILTER_SQL, POSTFILTER)], "a vector top-k filtered afterwards"),
    ("todo2", "no keyword_score [clause]", [(",\n               SCORE(1) AS keyword_score", "")],
     "is missing the key(s) ['keyword_score']"),
    ("todo2", "constant keyword_score [clause]", [("SCORE(1) AS keyword_score", "1 AS keyword_score")],
     "keyword_score is not the CONTAINS score"),
    ("todo2", "another label's score [clause]", [("SCORE(1) AS keyword_score", "SCORE(2) AS keyword_score")],
     "ORA-"),
    ("todo2", "the question as the CONTAINS query [probe]", [("keywords=keywords, k=k", "keywords=query, k=k")],
     "returned 0 rows, expected 3"),
    ("todo2", "sliced in Python [method]", [("FETCH FIRST :k ROWS ONLY", ""), ("keywords=keywords, k=k", "keywords=keywords"),
                                             ("return rows_as_dicts(cur)", "return rows_as_dicts(cur)[:k]")],
     "fetched"),
    ("todo2", "keywords formatted into the SQL [method]", [
        ("CONTAINS(abstract, :keywords, 1)", "CONTAINS(abstract, '{keywords}', 1)"),
        ("cur.execute(sql, query=query, keywords=keywords, k=k)", "cur.execute(sql.replace('{keywords}', keywords), query=query, k=k)")],
     "wrote the keywords into the SQL text instead of binding it"),
    # TODO 3: co-authors through GRAPH_TABLE
    ("todo3", "seed included [clause]", [("WHERE src.arxiv_id = :seed AND dst.arxiv_id <> src.arxiv_id", "WHERE src.arxiv_id = :seed")],
     "returned the seed paper itself"),
    ("todo3", "edges against their direction [clause]", [("(src IS paper) <-[IS wrote]- (a IS author) -[IS wrote]-> (dst IS paper)",
                                                           "(src IS paper) -[IS wrote]-> (a IS author) <-[IS wrote]- (dst IS paper)")],
     "returned 0 papers, expected 7"),
    ("todo3", "one row per shared author [clause]", [("GROUP BY arxiv_id, title\n", "GROUP BY arxiv_id, title, author_id\n")],
     "lists ['2406.08281'] more than once"),
    ("todo3", "not most shared first [clause]", [("ORDER BY shared_authors DESC, arxiv_id", "ORDER BY arxiv_id")],
     "the right papers in the wrong order"),
    ("todo3", "ties not broken by id [probe]", [("ORDER BY shared_authors DESC, arxiv_id", "ORDER BY shared_authors DESC, arxiv_id DESC")],
     "the right papers in the wrong order"),
    ("todo3", "similarity edges instead of authors [clause]", [
        ("(src IS paper) <-[IS wrote]- (a IS author) -[IS wrote]-> (dst IS paper)", "(src IS paper) -[IS similar_to]-> (dst IS paper)"),
        ("a.author_id AS author_id", "dst.arxiv_id AS author_id")], "expected 7"),
    ("todo3", "seed title [next]", [("dst.title AS title", "src.title AS title")], "titles that do not belong to their paper"),
    ("todo3", "wrong count [clause]", [("COUNT(DISTINCT author_id)", "COUNT(DISTINCT author_id) - 1")], "wrong shared_authors"),
    ("todo3", "grouped in Python [method]", [
        ("SELECT arxiv_id, title, COUNT(DISTINCT author_id) AS shared_authors", "SELECT arxiv_id, title, author_id"),
        ("GROUP BY arxiv_id, title\n        ORDER BY shared_authors DESC, arxiv_id", "ORDER BY arxiv_id"),
        ("return rows_as_dicts(cur)", "found = {}\n        for r in rows_as_dicts(cur):\n            found.setdefault((r['arxiv_id'], r['title']), set()).add(r['author_id'])\n"
                                       "        return sorted([{'arxiv_id': i, 'title': t, 'shared_authors': len(a)} for (i, t), a in found.items()], key=lambda r: (-r['shared_authors'], r['arxiv_id']))")],
     "fetched"),
    # issue 21: accepted, and the next cell broke; a probe the data never exercised
    ("todo1", "a DataFrame [next]", [("return rows_as_dicts(cur)", "return pd.DataFrame(rows_as_dicts(cur))")],
     "returned a DataFrame, expected a list of dicts"),
    ("todo1", "a generator [next]", [("return rows_as_dicts(cur)", "return (row for row in rows_as_dicts(cur))")],
     "returned a generator, expected a list of dicts"),
    ("todo2", "a DataFrame [next]", [("return rows_as_dicts(cur)", "return pd.DataFrame(rows_as_dicts(cur))")],
     "returned a DataFrame, expected a list of dicts"),
    ("todo3", "a DataFrame [next]", [("return rows_as_dicts(cur)", "return pd.DataFrame(rows_as_dicts(cur))")],
     "returned a DataFrame, expected a list of dicts"),
    ("todo3", "no tie-break [probe]", [("ORDER BY shared_authors DESC, arxiv_id", "ORDER BY shared_authors DESC")],
     "the ORDER BY does not end with arxiv_id"),
    ("todo3", "ties broken by title [probe]", [("ORDER BY shared_authors DESC, arxiv_id", "ORDER BY shared_authors DESC, title")],
     "wrong order"),
]

#: Other correct answers: each must pass.
CORRECT_ANSWERS = [
    ("todo1", "exact search, another alias, a CTE", [
        ("""        SELECT arxiv_id, title,
               VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({MODEL} USING :query AS data), COSINE) AS distance
        FROM papers
        ORDER BY distance, arxiv_id
        FETCH APPROX FIRST :k ROWS ONLY""", """        WITH q AS (SELECT VECTOR_EMBEDDING({MODEL} USING :query AS data) AS v FROM dual)
        SELECT p.arxiv_id AS arxiv_id, p.title AS title, VECTOR_DISTANCE(p.embedding, q.v, COSINE) AS distance
        FROM papers p CROSS JOIN q
        ORDER BY VECTOR_DISTANCE(p.embedding, q.v, COSINE), p.arxiv_id
        FETCH FIRST :k ROWS ONLY""")]),
    ("todo1", "positional binds and a loop", [
        ("USING :query AS data", "USING :1 AS data"), ("FIRST :k ROWS", "FIRST :2 ROWS"),
        ("""        cur.execute(sql, query=query, k=k)
        return rows_as_dicts(cur)""", """        cur.execute(sql, [query, k])
        names = [d[0].lower() for d in cur.description]
        return [dict(zip(names, row)) for row in cur]""")]),
    ("todo2", "a distance function in ORDER BY, score first", [
        ("""        SELECT arxiv_id, title,
               VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({MODEL} USING :query AS data), COSINE) AS distance,
               SCORE(1) AS keyword_score""", """        SELECT SCORE(1) AS keyword_score, arxiv_id, title,
               COSINE_DISTANCE(embedding, VECTOR_EMBEDDING({MODEL} USING :query AS data)) AS distance"""),
        ("ORDER BY distance, arxiv_id", "ORDER BY 4, 2")]),
    ("todo2", "the embedding in a CTE", [(PREFILTER_SQL, """
        WITH q AS (SELECT VECTOR_EMBEDDING({MODEL} USING :query AS data) AS v FROM dual)
        SELECT p.arxiv_id, p.title, VECTOR_DISTANCE(p.embedding, q.v, COSINE) AS distance, SCORE(1) AS keyword_score
        FROM papers p, q
        WHERE CONTAINS(p.abstract, :keywords, 1) > 0
        ORDER BY distance
        FETCH FIRST :k ROWS ONLY\"\"\"""")]),
    ("todo3", "COUNT(*) over distinct pairs", [
        ("COUNT(DISTINCT author_id) AS shared_authors", "COUNT(*) AS shared_authors"),
        ("COLUMNS (dst.arxiv_id AS arxiv_id, dst.title AS title, a.author_id AS author_id))",
         "COLUMNS (dst.arxiv_id AS arxiv_id, dst.title AS title))")]),
    ("todo3", "a subquery and other aliases", [
        ("""        SELECT arxiv_id, title, COUNT(DISTINCT author_id) AS shared_authors
        FROM GRAPH_TABLE(research_graph""", """        SELECT g.arxiv_id, g.title, COUNT(DISTINCT g.author_id) AS shared_authors
        FROM GRAPH_TABLE(research_graph"""),
        ("          COLUMNS (dst.arxiv_id AS arxiv_id, dst.title AS title, a.author_id AS author_id))",
         "          COLUMNS (dst.arxiv_id AS arxiv_id, dst.title AS title, a.author_id AS author_id)) g"),
        ("GROUP BY arxiv_id, title\n", "GROUP BY g.arxiv_id, g.title\n")]),
    ("todo3", "ORDER BY positions", [("ORDER BY shared_authors DESC, arxiv_id", "ORDER BY 3 DESC, 1")]),
    ("todo1", "a list built by a comprehension over the cursor", [
        ("return rows_as_dicts(cur)", "return [dict(zip([d[0].lower() for d in cur.description], r)) for r in cur]")]),
]


@pytest.mark.parametrize("cell, name, replace, reason", WRONG_ANSWERS,
                         ids=[f"{c}-{n.replace(' ', '-')}" for c, n, _, _ in WRONG_ANSWERS])
def test_a_plausible_wrong_answer_fails(notebook, cell, name, replace, reason):
    ns = notebook(cell, replace=tuple(replace))
    error = failure(CHECKS[cell], ns["conn"], ns[FUNCTIONS[cell]])
    assert reason in (error.reason + " " + error.hint), error


@pytest.mark.parametrize("cell, name, replace", CORRECT_ANSWERS,
                         ids=[f"{c}-{n.replace(' ', '-')}" for c, n, _ in CORRECT_ANSWERS])
def test_another_correct_answer_passes(notebook, cell, name, replace):
    ns = notebook(cell, replace=tuple(replace))
    CHECKS[cell](ns["conn"], ns[FUNCTIONS[cell]])


# --------------------------------------------------------------------------- a cell that needs an unfinished TODO
def test_a_cell_needing_an_unfinished_todo_says_which_in_one_line(monkeypatch, tmp_path):
    """In a kernel with the explanation installed, the stub's NotImplementedError and a NameError left by a stopped cell
    each print one line naming the TODO, instead of a traceback; other errors keep theirs."""
    from IPython.core.interactiveshell import InteractiveShell
    from checkpoints.framework import explain_unfinished_todos
    monkeypatch.setenv("WORKSHOP_PROGRESS_FILE", str(tmp_path / "progress.json"))
    shell = InteractiveShell.instance()
    try:
        assert explain_unfinished_todos(part02.NOTEBOOK, shell=shell)
        shown = []
        monkeypatch.setattr("sys.stderr", type("E", (), {"write": lambda self, t: shown.append(t), "flush": lambda self: None})())
        result = shell.run_cell("raise NotImplementedError('TODO 1: ORDER BY the distance')")
        assert not result.success and "⛔ This cell needs TODO 1, which is not done yet (ORDER BY the distance)" in "".join(shown)
        shown.clear()
        shell.run_cell("by_intent.plot()")
        line = "".join(shown)
        assert "⛔ `by_intent` is not defined" in line and "TODO 1 (vector_search)" in line
        assert line.count("\n") == 1
        from checkpoints.framework.needs import explanation
        assert explanation(ValueError("x"), part02.NOTEBOOK) is None
        assert explanation(NotImplementedError("something else"), part02.NOTEBOOK) is None
    finally:
        shell.set_custom_exc((), None)
        InteractiveShell.clear_instance()


def test_the_explorer_still_works_after_run_all_closed_the_connection(notebook):
    """The notebook's last cell closes `conn`; the explorer has its own connection and keeps answering."""
    for cell in ("questions", "todo1", "todo2", "todo3", "keyword-vs-vector", "graph-search", "rrf-sql", "run-all",
                 "explorer", "close"):
        ns = notebook(cell)
    explorer = ns["explorer"]
    try:
        explorer.box.value = "papers by the authors of LEDGER"
        shown = "".join(o.get("text", "") for o in explorer.output.outputs)
        assert "the search failed" not in shown and shown.startswith("papers by the authors of LEDGER")
        assert any("data" in o for o in explorer.output.outputs)          # the side-by-side table
    finally:
        explorer.close()
        from workshop.db import connect
        ns["conn"] = connect()        # the fixture closes the notebook's connection at the end


def test_part03_needs_names_the_todo_whose_value_is_still_the_stub():
    """part03.needs is the framework's: a stub value (None, or the stub function) stops the cell with one line
    naming the TODO by its number; a real value lets the cell run. The kernel explanation leaves it alone (it
    renders itself in one line)."""
    from checkpoints import part03
    from checkpoints.framework import TodoNeeded
    from checkpoints.framework.needs import explanation
    from checkpoints.framework.registry import notebook_todos

    def write_conversation(conn, thread_id, role, content, metadata=None):
        raise NotImplementedError("TODO 2: INSERT INTO conversation_memory ...")
    number = {entry.name: entry.number for entry in notebook_todos(part03.NOTEBOOK)}
    with pytest.raises(TodoNeeded) as info:
        part03.needs("write_conversation", write_conversation)
    assert str(info.value) == (f"this cell needs TODO {number['write_conversation']} (write_conversation): complete "
                               "it and run its checkpoint, then run this cell again")
    assert info.value._render_traceback_() == [f"⬜ {info.value}"]
    assert explanation(info.value, part03.NOTEBOOK) is None
    with pytest.raises(TodoNeeded, match=rf"TODO {number['stores']} \(stores\)"):
        part03.needs("stores", None)
    part03.needs("read_conversation", lambda conn, thread_id, limit=10: [])     # a real value: the cell runs
