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

from tests.checkpoints.shared import cells

NAME = "02_retrieval_strategies.ipynb"
SOLUTION = PROJECT_ROOT / "solutions" / NAME
STUDENT = PROJECT_ROOT / "notebooks" / NAME
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


@pytest.mark.parametrize("replace, reason", [
    pytest.param((("ORDER BY distance", "ORDER BY distance DESC"),), "rows are not in ascending order of 'distance'",
                 id="farthest-first"),
    pytest.param((("FETCH APPROX FIRST :k ROWS ONLY", ""), ("query=query, k=k", "query=query")),
                 "returned 162 rows, expected at most k = 5", id="no-row-limit"),
    pytest.param((("FIRST :k ROWS", "FIRST 5 ROWS"), ("query=query, k=k", "query=query")),
                 "returned 5 rows, expected at most k = 1", id="k-hard-coded"),
    pytest.param((("COSINE) AS distance", "DOT) AS distance"),), "the distances are not cosine distances",
                 id="dot-distance"),
    pytest.param((("ORDER BY distance", "ORDER BY arxiv_id"),), "not in ascending order", id="ordered-by-id"),
    pytest.param((("return rows_as_dicts(cur)", "return cur.fetchall()"),), "row 1 is a tuple, expected a dict",
                 id="tuples"),
    pytest.param((("SELECT arxiv_id, title,", "SELECT arxiv_id,"),), "is missing the key(s) ['title']",
                 id="no-title"),
])
def test_todo_1_wrong_answers_fail(notebook, replace, reason):
    ns = notebook("todo1", replace=replace)
    error = failure(part02.todo_1, ns["conn"], ns["vector_search"])
    assert reason in error.reason


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


POSTFILTER = '''
        WITH candidates AS (
            SELECT arxiv_id, title, abstract,
                   VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({MODEL} USING :query AS data), COSINE) AS distance
            FROM papers ORDER BY distance FETCH FIRST :k ROWS ONLY)
        SELECT c.arxiv_id, c.title, c.distance, 0 AS keyword_score
        FROM candidates c JOIN papers p ON p.arxiv_id = c.arxiv_id
        WHERE CONTAINS(p.abstract, :keywords, 1) > 0
        ORDER BY c.distance"""'''


@pytest.mark.parametrize("replace, reason", [
    pytest.param((("WHERE CONTAINS(abstract, :keywords, 1) > 0", "WHERE :keywords IS NOT NULL"),
                  ("SCORE(1) AS keyword_score", "0 AS keyword_score")),
                 "returned papers whose abstract does not contain", id="keyword-filter-ignored"),
    pytest.param((("ORDER BY distance", "ORDER BY keyword_score DESC, arxiv_id"),),
                 "rows are not in ascending order of 'distance'", id="ordered-by-score"),
    pytest.param((("FETCH FIRST :k ROWS ONLY", ""), ("keywords=keywords, k=k", "keywords=keywords")),
                 "returned 18 rows, expected at most k = 4", id="no-row-limit"),
    pytest.param((("""
        SELECT arxiv_id, title,
               VECTOR_DISTANCE(embedding, VECTOR_EMBEDDING({MODEL} USING :query AS data), COSINE) AS distance,
               SCORE(1) AS keyword_score
        FROM papers
        WHERE CONTAINS(abstract, :keywords, 1) > 0
        ORDER BY distance
        FETCH FIRST :k ROWS ONLY\"\"\"""", POSTFILTER),),
                 "a vector top-k filtered afterwards", id="post-filter-instead"),
])
def test_todo_2_wrong_answers_fail(notebook, replace, reason):
    ns = notebook("todo2", replace=replace)
    error = failure(part02.todo_2, ns["conn"], ns["hybrid_prefilter_search"])
    assert reason in (error.reason + error.hint)


def test_todo_2_question_text_as_contains_query_fails(notebook):
    """Binding the raw question as the CONTAINS expression: Oracle Text parses it as its query language."""
    ns = notebook("todo2", replace=(("keywords=keywords, k=k", "keywords=query, k=k"),))
    error = failure(part02.todo_2, ns["conn"], ns["hybrid_prefilter_search"])
    assert "returned 0 rows, expected 3" in error.reason


# --------------------------------------------------------------------------- TODO 3
def test_todo_3_solution_passes(notebook):
    ns = notebook("todo3")
    part02.todo_3(ns["conn"], ns["coauthor_papers"])


def test_todo_3_stub_fails_friendly(notebook):
    ns = notebook("todo3", STUDENT_CELLS)
    stub_failure(part02.todo_3, ns["conn"], ns["coauthor_papers"])


@pytest.mark.parametrize("replace, reason", [
    pytest.param((("WHERE src.arxiv_id = :seed AND dst.arxiv_id <> src.arxiv_id", "WHERE src.arxiv_id = :seed"),),
                 "returned the seed paper itself", id="seed-included"),
    pytest.param((("(src IS paper) <-[IS wrote]- (a IS author) -[IS wrote]-> (dst IS paper)",
                   "(src IS paper) -[IS wrote]-> (a IS author) <-[IS wrote]- (dst IS paper)"),),
                 "returned 0 papers, expected 7", id="edges-against-their-direction"),
    pytest.param((("GROUP BY arxiv_id, title\n", "GROUP BY arxiv_id, title, author_id\n"),),
                 "lists ['2406.08281'] more than once", id="one-row-per-shared-author"),
    pytest.param((("ORDER BY shared_authors DESC, arxiv_id", "ORDER BY arxiv_id"),),
                 "the right papers in the wrong order", id="not-most-shared-first"),
    pytest.param((("(src IS paper) <-[IS wrote]- (a IS author) -[IS wrote]-> (dst IS paper)",
                   "(src IS paper) -[IS similar_to]-> (dst IS paper)"),
                  ("a.author_id AS author_id", "dst.arxiv_id AS author_id")),
                 "expected 7", id="similarity-edges-instead-of-authors"),
    pytest.param((("dst.title AS title", "src.title AS title"),), "titles that do not belong to their paper",
                 id="seed-title"),
    pytest.param((("COUNT(DISTINCT author_id)", "COUNT(DISTINCT author_id) - 1"),), "wrong shared_authors",
                 id="wrong-count"),
])
def test_todo_3_wrong_answers_fail(notebook, replace, reason):
    ns = notebook("todo3", replace=replace)
    error = failure(part02.todo_3, ns["conn"], ns["coauthor_papers"])
    assert reason in error.reason


def test_todo_3_expected_sets_match_the_golden_multi_hop_judgements():
    """The checkpoint's independent answer agrees with the hand-made judgements of the multi-hop questions."""
    for query in load_golden_queries("papers"):
        if query["intent"] == "multi-hop":
            expected = part02.expected_coauthor_papers(query["seed"])
            assert {i for i, _ in expected} == set(query["relevance"])
            assert {i for i, n in expected if n >= 2} == {i for i, g in query["relevance"].items() if g == 3}
    assert set(part02.GRAPH_SEEDS) == {q["seed"] for q in load_golden_queries("papers") if q["intent"] == "multi-hop"}
