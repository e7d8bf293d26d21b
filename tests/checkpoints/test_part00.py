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

from tests.checkpoints.shared import Wrong, wrong_params, student_path

NAME = "00_setup_and_orientation.ipynb"


def cell(folder: str, cell_id: str) -> str:
    nb = nbformat.read(student_path(NAME) if folder == "notebooks" else PROJECT_ROOT / folder / NAME, as_version=4)
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


#: The wrong answers to the one TODO of part 00 (kinds: tests/checkpoints/shared.py KINDS). Accepted on purpose: ties
#: between subjects in any order (the TODO asks only for "most first").
HARD_CODED = """SELECT 'cs.IR' AS primary_subject, 49 AS papers FROM dual UNION ALL SELECT 'cs.CL', 44 FROM dual
    UNION ALL SELECT 'cs.AI', 30 FROM dual UNION ALL SELECT 'cs.DB', 29 FROM dual UNION ALL SELECT 'cs.LG', 6 FROM dual
    UNION ALL SELECT 'cs.CR', 4 FROM dual"""
WRONG = [
    Wrong("subjects_sql", "clause", "fewest-first", "rows are not in descending order of column 2",
          edit=(("ORDER BY papers DESC, primary_subject", "ORDER BY papers, primary_subject"),)),
    Wrong("subjects_sql", "clause", "ordered-by-subject", "rows are not in descending order of column 2",
          edit=(("ORDER BY papers DESC, primary_subject", "ORDER BY primary_subject"),)),
    Wrong("subjects_sql", "clause", "a-subject-filtered-out", "missing: ('cs.LG', 6)",
          edit=(("FROM papers", "FROM papers WHERE primary_subject <> 'cs.LG'"),)),
    Wrong("subjects_sql", "clause", "extra-column", "returns 3 columns, expected 2",
          edit=(("COUNT(*) AS papers", "COUNT(*) AS papers, MIN(arxiv_id) AS first_id"),)),
    Wrong("subjects_sql", "other", "counts-subjects-not-papers", "unexpected: ('cs.AI', 1)",
          edit=(("COUNT(*) AS papers", "COUNT(DISTINCT primary_subject) AS papers"),)),
    Wrong("subjects_sql", "method", "hard-coded-rows", "it does not count the rows of PAPERS",
          sql=(HARD_CODED + " ORDER BY 2 DESC",)),
    Wrong("subjects_sql", "probe", "hard-coded-in-a-where", "leaves that subject out",
          edit=(("FROM papers", "FROM papers WHERE primary_subject IN ('cs.IR', 'cs.CL', 'cs.AI', 'cs.DB', 'cs.LG', "
                                "'cs.CR')"),)),
    # issue 21: a clause the data shows, a limit only the probe paper exercises
    Wrong("subjects_sql", "clause", "having-filter", "missing: ('cs.CR', 4)",
          edit=(("GROUP BY primary_subject\n", "GROUP BY primary_subject HAVING COUNT(*) > 5\n"),)),
    Wrong("subjects_sql", "probe", "a-row-limit-as-many-as-today", "leaves that subject out",
          edit=(("ORDER BY papers DESC, primary_subject", "ORDER BY papers DESC, primary_subject FETCH FIRST 6 ROWS ONLY"),)),
]
#: Other correct answers: a comment, letter case, other aliases, COUNT(arxiv_id), ORDER BY position or aggregate.
CORRECT = [
    "-- papers per subject\nselect primary_subject as subject, count(arxiv_id) as n from papers "
    "group by primary_subject order by 2 desc",
    "SELECT p.primary_subject, COUNT(*) FROM papers p GROUP BY p.primary_subject ORDER BY COUNT(*) DESC, 1",
]


@pytest.mark.parametrize("wrong", wrong_params(WRONG, "subjects_sql"))
def test_wrong_queries_fail(papers_db, wrong):
    sql = wrong.sql[0] if wrong.sql else subjects_sql("solutions", *wrong.edit)
    assert wrong.reason in failure(papers_db, sql).reason


@pytest.mark.parametrize("sql", CORRECT)
def test_other_correct_queries_pass(papers_db, sql):
    part00.check_subjects_sql(papers_db, sql)


def test_the_probe_rows_are_rolled_back(papers_db):
    part00.check_subjects_sql(papers_db, subjects_sql("solutions"))
    with papers_db.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM papers WHERE primary_subject = :s", s=part00.PROBE_SUBJECT)
        assert cur.fetchone() == (0,)
        cur.execute("SELECT COUNT(*) FROM papers")
        assert cur.fetchone() == (len(load_papers()),)


def test_the_plot_cell_after_the_checkpoint_takes_any_alias(papers_db):
    """The next cell plots the learner's own query: another alias must not break it."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    def query(sql, **binds):
        with papers_db.cursor() as cur:
            cur.execute(sql, binds)
            return pd.DataFrame(cur.fetchall(), columns=[d[0].lower() for d in cur.description])
    namespace = {"query": query, "subjects_sql": CORRECT[0], "plt": plt, "part00": part00}
    exec(cell("solutions", "todo1-plot").replace("plt.show()", "plt.close('all')"), namespace)


def test_the_plot_cell_names_the_todo_when_it_is_not_done():
    from checkpoints.framework import TodoNeeded
    with pytest.raises(TodoNeeded, match=r"this cell needs TODO 1 \(subjects_sql\)"):
        exec(cell("notebooks", "todo1") + "\n" + cell("notebooks", "todo1-plot"), {"part00": part00})


NO_GROUP_BY = ("    GROUP BY primary_subject\n", "")


def test_forgotten_group_by_fails(papers_db):
    failure(papers_db, subjects_sql("solutions", NO_GROUP_BY))


def test_forgotten_group_by_is_oracles_error_with_its_message(papers_db):
    error = failure(papers_db, subjects_sql("solutions", NO_GROUP_BY))
    assert isinstance(error, CheckpointError) and error.reason.startswith("ORA-00937")


def test_a_query_oracle_rejects_is_an_error_with_its_message(papers_db):
    error = failure(papers_db, subjects_sql("solutions", ("FROM papers", "FROM paper")))
    assert isinstance(error, CheckpointError) and error.reason.startswith("ORA-00942")
