"""checkpoints.progress: every TODO of the series with pass / not yet / failing, from the live database (checks that
need only the connection) and from the outcomes recorded when a checkpoint last ran in a notebook."""
from __future__ import annotations

import shutil

import pytest

from checkpoints import part01, progress
from checkpoints.framework import CheckpointFailed, escalation, progress_log, registry
from workshop.embedded import connect

PART01 = [e for e in registry.series() if e.part == "01"]


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "workshop.db"
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(path))
    monkeypatch.setenv("WORKSHOP_PROGRESS_FILE", str(tmp_path / "progress.json"))
    escalation.reset()
    conn = connect(path)
    yield conn
    conn.close()


def by_name(rows):
    return {r.name: r for r in rows}


def test_nothing_done_is_not_yet_everywhere_with_the_reason(db):
    rows = by_name(progress.collect(db, PART01))
    assert list(rows) == ["paper_vectors", "vector_index", "search_papers", "papers_store"]
    assert {r.status for r in rows.values()} == {progress.NOT_YET}
    assert rows["paper_vectors"].reason == "table PAPER_VECTORS does not exist"
    assert rows["paper_vectors"].checked == "database now"
    assert rows["search_papers"].reason.startswith("not checked yet")


def test_a_wrong_table_is_failing_with_the_checkpoints_reason(db):
    with db.cursor() as cur:
        cur.execute("CREATE TABLE paper_vectors (arxiv_id VARCHAR2(20) PRIMARY KEY, title VARCHAR2(500), "
                    "primary_subject VARCHAR2(20), embedding VECTOR(768, FLOAT32))")
    rows = by_name(progress.collect(db, PART01))
    assert rows["paper_vectors"].status == progress.FAILING
    assert "is VECTOR(768, FLOAT32), expected VECTOR(384, FLOAT32)" in rows["paper_vectors"].reason


def test_function_todos_report_the_last_run_in_a_notebook(db):
    def search(conn, query, subject=None, k=5):
        raise NotImplementedError("TODO 3: write it")

    with pytest.raises(CheckpointFailed):
        part01.check_search_papers(db, search)       # the stub, run in the "notebook": recorded as not yet
    assert by_name(progress.collect(db, PART01))["search_papers"].status == progress.NOT_YET
    progress_log.record(part01.check_search_papers.key, "fail", "returned papers of other subjects", db)
    row = by_name(progress.collect(db, PART01))["search_papers"]
    assert (row.status, row.reason) == (progress.FAILING, "returned papers of other subjects")
    progress_log.record(part01.check_search_papers.key, "pass", "3 searches", db)
    row = by_name(progress.collect(db, PART01))["search_papers"]
    assert row.status == progress.PASS and row.checked.startswith("last run ")


def test_a_live_failure_wins_over_a_recorded_pass(db):
    progress_log.record(part01.check_papers_store.key, "pass", "ok", db)
    row = by_name(progress.collect(db, PART01))["papers_store"]
    assert (row.status, row.reason) == (progress.NOT_YET, "table PAPERS_VS does not exist")


def test_records_belong_to_their_database(db, tmp_path):
    progress_log.record(part01.check_search_papers.key, "pass", "ok", db)
    other = connect(tmp_path / "other.db")
    try:
        assert by_name(progress.collect(other, PART01))["search_papers"].status == progress.NOT_YET
    finally:
        other.close()


def test_later_parts_appear_by_themselves(tmp_path, db):
    from workshop.config import PROJECT_ROOT
    folder = tmp_path / "solutions"
    folder.mkdir()
    shutil.copy(PROJECT_ROOT / "solutions" / "01_vector_search.ipynb", folder)
    shutil.copy(PROJECT_ROOT / "tests" / "tooling" / "fixtures" / "solutions" / "01_fixture_notes.ipynb",
                folder / "09_future_part.ipynb")
    rows = progress.collect(db, registry.series(folder))
    future = [r for r in rows if r.part == "09"]
    assert [r.name for r in future] == ["notes_table", "insert_notes", "nearest_notes"]
    assert all(r.status == progress.NOT_YET and "no checkpoint check_" in r.reason for r in future)


def test_progress_is_quiet_and_leaves_no_trace(db, capsys):
    before = progress_log.last_outcomes(db)
    frame = progress.progress(db)
    assert len(frame) == len(registry.series()) and list(frame.columns)[:4] == ["part", "TODO", "name", "status"]
    assert capsys.readouterr().out == "" and progress_log.last_outcomes(db) == before
    assert escalation.failures(part01.check_paper_vectors.key) == 0


def test_command_line_table(db, capsys, monkeypatch):
    monkeypatch.setattr("workshop.doctor.preflight", lambda *a, **k: None)
    assert progress.main(["--part", "01"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["part", "TODO", "name", "status", "reason"]
    assert "01    1     paper_vectors         not yet   table PAPER_VECTORS does not exist" in out
    assert out.rstrip().endswith("0 passed, 4 not yet, 0 failing (4 TODOs)")


def test_command_line_without_a_database_says_what_to_run(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(tmp_path / "missing.db"))
    assert progress.main([]) == 2
    assert "-m workshop.setup" in capsys.readouterr().out
    assert not (tmp_path / "missing.db").exists()


def test_checkpoints_progress_is_callable_as_the_issue_promises(db):
    import checkpoints
    from checkpoints import progress as imported
    assert len(checkpoints.progress(db)) == len(imported(db)) == len(registry.series())
