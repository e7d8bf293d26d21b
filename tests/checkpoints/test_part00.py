"""The warm-up checkpoint of part 00: the solution cell passes, the generated stub fails friendly, wrong queries fail.

The check only reads PAPERS, so the database here is just that table (created from workshop.schema and filled from
workshop.data, without embeddings): no set-up build needed.
"""
from __future__ import annotations

import datetime as dt
import json

import nbformat
import pytest

from checkpoints import part00
from checkpoints.framework import CheckpointError, CheckpointFailed
from workshop import schema
from workshop.config import PROJECT_ROOT
from workshop.data import load_papers

NAME = "00_setup_and_orientation.ipynb"


def cell(folder: str, cell_id: str) -> str:
    nb = nbformat.read(PROJECT_ROOT / folder / NAME, as_version=4)
    return next(c.source for c in nb.cells if c.id == cell_id)


def subjects_sql(folder: str, *replace: tuple[str, str]) -> str | None:
    """The value the notebook's TODO cell assigns to subjects_sql (with text replaced first)."""
    source = cell(folder, "todo1")
    for old, new in replace:
        assert old in source, f"{old!r} not in the TODO cell"
        source = source.replace(old, new)
    namespace: dict = {}
    exec(source, namespace)
    return namespace["subjects_sql"]


@pytest.fixture(scope="module")
def papers_db(tmp_path_factory):
    from workshop.embedded import connect
    conn = connect(tmp_path_factory.mktemp("part00") / "papers.db")
    with conn.cursor() as cur:
        cur.execute(schema.PAPERS.create_sql())
        cur.executemany(
            "INSERT INTO papers (arxiv_id, title, abstract, authors, primary_subject, published) "
            "VALUES (:1, :2, :3, JSON(:4), :5, :6)",
            [(p["arxiv_id"], p["title"], p["abstract"], json.dumps(p["authors"]), p["primary_subject"],
              dt.date.fromisoformat(p["published"])) for p in load_papers()])
    conn.commit()
    yield conn
    conn.close()


def failure(conn, sql) -> CheckpointFailed:
    with pytest.raises(CheckpointFailed) as info:
        part00.check_subjects_sql(conn, sql)
    return info.value


def test_solution_passes(papers_db):
    part00.check_subjects_sql(papers_db, subjects_sql("solutions"))


def test_stub_fails_friendly(papers_db):
    error = failure(papers_db, subjects_sql("notebooks"))
    assert type(error) is CheckpointFailed
    assert error.reason == "`subjects_sql` is still empty (None)"


@pytest.mark.parametrize("replace, reason", [
    pytest.param((("ORDER BY papers DESC, primary_subject", "ORDER BY papers, primary_subject"),),
                 "rows are not in descending order of column 2", id="fewest-first"),
    pytest.param((("ORDER BY papers DESC, primary_subject", "ORDER BY primary_subject"),),
                 "rows are not in descending order of column 2", id="ordered-by-subject"),
    pytest.param((("FROM papers", "FROM papers WHERE primary_subject <> 'cs.LG'"),),
                 "missing: ('cs.LG', 6)", id="a-subject-filtered-out"),
    pytest.param((("COUNT(*) AS papers", "COUNT(*) AS papers, MIN(arxiv_id) AS first_id"),),
                 "returns 3 columns, expected 2", id="extra-column"),
    pytest.param((("COUNT(*) AS papers", "COUNT(DISTINCT primary_subject) AS papers"),),
                 "unexpected: ('cs.AI', 1)", id="counts-subjects-not-papers"),
])
def test_wrong_queries_fail(papers_db, replace, reason):
    error = failure(papers_db, subjects_sql("solutions", *replace))
    assert reason in error.reason


NO_GROUP_BY = ("    GROUP BY primary_subject\n", "")


def test_forgotten_group_by_fails(papers_db):
    failure(papers_db, subjects_sql("solutions", NO_GROUP_BY))


def test_forgotten_group_by_is_oracles_error_with_its_message(papers_db):
    error = failure(papers_db, subjects_sql("solutions", NO_GROUP_BY))
    assert isinstance(error, CheckpointError) and error.reason.startswith("ORA-00937")


def test_a_query_oracle_rejects_is_an_error_with_its_message(papers_db):
    error = failure(papers_db, subjects_sql("solutions", ("FROM papers", "FROM paper")))
    assert isinstance(error, CheckpointError) and error.reason.startswith("ORA-00942")
