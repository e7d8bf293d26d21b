"""notebooks/ must be exactly what the build makes of solutions/, and must not give answers away.

The first test runs the check over the project's real folders (trivially true while both are
empty). The others prove the check fails when a student notebook is missing, stale, orphaned or
leaks solution text, on copies of the fixture folders.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest

from tooling_notebooks import FIXTURE_NAME, FIXTURE_NOTEBOOKS, FIXTURE_SOLUTIONS, code, markdown, notebook, todo
from workshop import notebook_build
from workshop.config import PROJECT_ROOT
from workshop.notebooks import audit, build_folder, check_folder, render, solution_files, student_notebook
from workshop.notebooks.leaks import telltale_lines


def test_real_notebooks_are_in_sync_with_solutions():
    problems = check_folder(PROJECT_ROOT / "solutions", PROJECT_ROOT / "notebooks")
    assert not problems, "notebooks/ drifted from solutions/; run `python -m workshop.notebook_build`:\n" + "\n".join(
        map(str, problems))


def test_fixture_folders_are_in_sync():
    assert solution_files(FIXTURE_SOLUTIONS) == [FIXTURE_SOLUTIONS / FIXTURE_NAME]
    assert check_folder(FIXTURE_SOLUTIONS, FIXTURE_NOTEBOOKS) == []


@pytest.fixture
def folders(tmp_path) -> tuple[Path, Path]:
    solutions, notebooks = tmp_path / "solutions", tmp_path / "notebooks"
    shutil.copytree(FIXTURE_SOLUTIONS, solutions)
    shutil.copytree(FIXTURE_NOTEBOOKS, notebooks)
    return solutions, notebooks


def _kinds(problems) -> list[tuple[str, str]]:
    return [(p.kind, p.path.name) for p in problems]


def test_missing_student_notebook_fails_the_check(folders):
    solutions, notebooks = folders
    (notebooks / FIXTURE_NAME).unlink()
    assert _kinds(check_folder(solutions, notebooks)) == [("missing", FIXTURE_NAME)]


def test_stale_student_notebook_fails_the_check(folders):
    solutions, notebooks = folders
    nb = nbformat.read(solutions / FIXTURE_NAME, as_version=4)
    nb.cells[0].source += "\n\nA new sentence in the solution."
    nbformat.write(nb, solutions / FIXTURE_NAME)
    problems = check_folder(solutions, notebooks)
    assert _kinds(problems) == [("stale", FIXTURE_NAME)]
    assert "cell 1 differs (source)" in problems[0].detail


def test_orphan_student_notebook_fails_the_check(folders):
    solutions, notebooks = folders
    shutil.copy(notebooks / FIXTURE_NAME, notebooks / "99_orphan.ipynb")
    assert _kinds(check_folder(solutions, notebooks)) == [("orphan", "99_orphan.ipynb")]


def test_solution_pasted_into_student_notebook_is_a_leak(folders):
    solutions, notebooks = folders
    nb = nbformat.read(notebooks / FIXTURE_NAME, as_version=4)
    nb.cells.append(nbformat.v4.new_markdown_cell("My notes:\n\n    embedding VECTOR(3, FLOAT32)"))
    nbformat.write(nb, notebooks / FIXTURE_NAME)
    problems = check_folder(solutions, notebooks)
    assert ("stale", FIXTURE_NAME) in _kinds(problems)
    leaks = [p for p in problems if p.kind == "leak"]
    assert len(leaks) == 1 and "leaks solution text 'embedding VECTOR(3, FLOAT32)'" in leaks[0].detail


def test_student_notebook_with_a_solution_region_is_flagged(folders):
    solutions, notebooks = folders
    shutil.copy(solutions / FIXTURE_NAME, notebooks / FIXTURE_NAME)  # the worst case: answers shipped
    details = [p.detail for p in check_folder(solutions, notebooks) if p.kind == "leak"]
    assert any("contains solution markup" in d for d in details)
    assert any("leaks solution text" in d for d in details)
    assert any("has outputs" in d or "leaks" in d for d in details)


def test_audit_reports_solution_only_text_outputs_and_counts():
    solution = notebook(*todo("# BEGIN SOLUTION answer\nanswer = compute_the_answer(42)\n# END SOLUTION"),
                        markdown("The trick is to call compute_the_answer with 42.", "solution-only"))
    student = student_notebook(solution)
    assert audit(solution, student, "student") == []
    student.cells.append(nbformat.v4.new_markdown_cell("The trick is to call compute_the_answer with 42."))
    student.cells[1].outputs = [nbformat.v4.new_output("stream", text="ok")]
    student.cells[1].execution_count = 3
    problems = [f.problem for f in audit(solution, student, "student")]
    assert problems == ["has outputs; student notebooks are shipped cleared", "has an execution count",
                        "leaks solution text 'The trick is to call compute_the_answer with 42.' (from solution cell 3 "
                        "('The trick is to call compute_the_answer with 42.'))"]


def test_telltales_skip_hints_kept_signatures_docstrings_and_public_lines():
    solution = notebook(
        code("query = build_query(conn)"),
        *todo('''def top(conn, k):
    """Return the top k rows."""
    # BEGIN SOLUTION answer
    # HINT: use FETCH FIRST :k ROWS ONLY
    query = build_query(conn)
    return run_query(query, k)
    # END SOLUTION'''),
        *todo('''# BEGIN SOLUTION helper
def helper(row: tuple) -> dict:
    """Row as dict."""
    return {"id": row[0]}
# END SOLUTION'''))
    telltales = telltale_lines(solution)
    assert set(telltales) == {"return run_query(query, k)", 'return {"id": row[0]}'}
    assert audit(solution, student_notebook(solution), "student") == []


def test_stub_that_does_not_compile_is_flagged():
    solution = notebook(*todo("# BEGIN SOLUTION answer\nx = 1\n# END SOLUTION"))
    student = student_notebook(solution)
    student.cells[0].source = "x = = 1"
    assert [f.problem.split(":")[0] for f in audit(solution, student, "student")] == ["TODO stub is not valid Python"]


# ------------------------------------------------------------------ building folders and the CLI

def test_build_folder_writes_then_reports_unchanged_and_removes_orphans(tmp_path):
    solutions, notebooks = tmp_path / "solutions", tmp_path / "notebooks"
    shutil.copytree(FIXTURE_SOLUTIONS, solutions)
    notebooks.mkdir()
    (notebooks / "stale_orphan.ipynb").write_text("{}")
    report = build_folder(solutions, notebooks)
    assert report.written == [notebooks / FIXTURE_NAME] and report.removed == [notebooks / "stale_orphan.ipynb"]
    assert (notebooks / FIXTURE_NAME).read_bytes() == (FIXTURE_NOTEBOOKS / FIXTURE_NAME).read_bytes()
    again = build_folder(solutions, notebooks)
    assert again.written == [] and again.unchanged == [notebooks / FIXTURE_NAME]


def test_build_with_a_markup_error_writes_nothing(tmp_path, capsys):
    solutions, notebooks = tmp_path / "solutions", tmp_path / "notebooks"
    solutions.mkdir()
    nbformat.write(notebook(*todo("# BEGIN SOLUTION answer\nx = 1")), solutions / "01_broken.ipynb")
    nbformat.write(notebook(*todo("# BEGIN SOLUTION answer\nx = 1\n# END SOLUTION")), solutions / "02_fine.ipynb")
    status = notebook_build.main(["--solutions", str(solutions), "--notebooks", str(notebooks)])
    assert status == 2
    assert "BEGIN SOLUTION without an END SOLUTION" in capsys.readouterr().err
    assert not notebooks.exists()


def test_cli_check_exit_codes_and_listing(folders, capsys):
    solutions, notebooks = folders
    args = ["--solutions", str(solutions), "--notebooks", str(notebooks)]
    assert notebook_build.main(args + ["--check"]) == 0
    assert "in sync" in capsys.readouterr().out
    (notebooks / FIXTURE_NAME).unlink()
    assert notebook_build.main(args + ["--check"]) == 1
    out = capsys.readouterr().out
    assert f"missing: {notebooks / FIXTURE_NAME}" in out and "Regenerate with" in out
    assert notebook_build.main(args) == 0
    assert notebook_build.main(args + ["--check"]) == 0


def test_cli_list_shows_todos_and_hints(folders, capsys):
    solutions, notebooks = folders
    assert notebook_build.main(["--solutions", str(solutions), "--notebooks", str(notebooks), "--list"]) == 0
    out = capsys.readouterr().out
    assert "TODO 1 notes_table (check_notes_table): cell 4 (id todo-1), checkpoint cell 5: CREATE TABLE notes" in out
    assert "TODO 3 nearest_notes (check_nearest_notes): cell 12 (id todo-3), checkpoint cell 13: ORDER BY" in out


def test_fixture_student_notebook_is_the_canonical_rendering():
    text = (FIXTURE_NOTEBOOKS / FIXTURE_NAME).read_text(encoding="utf-8")
    assert render(nbformat.reads(text, as_version=4)) == text
