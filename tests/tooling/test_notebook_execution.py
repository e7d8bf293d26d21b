"""The stub contract end to end, in real Jupyter kernels, on the fixture notebook.

The solution runs clean with a PASS per checkpoint; the generated student notebook runs without a
NameError or SyntaxError and every checkpoint fails with a friendly CheckpointFailed (the first at
TODO 1, which is where "Run All" stops); each stub alone, dropped into the solution, fails its own
checkpoint and no earlier one; and nbval reports the failure as the one friendly line.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from tooling_notebooks import FIXTURE_NAME, FIXTURE_NOTEBOOKS, FIXTURE_SOLUTIONS, FIXTURES
from workshop.config import PROJECT_ROOT
from workshop.notebooks.execute import execute, stub_contract_problems

pytestmark = pytest.mark.slow


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    """A folder with the fixture's checkpoint module; kernels get the project on PYTHONPATH and a fresh DB."""
    shutil.copy(FIXTURES / "fixture_checks.py", tmp_path / "fixture_checks.py")
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(tmp_path / "workshop.db"))
    monkeypatch.setenv("WORKSHOP_PROGRESS_FILE", str(tmp_path / "progress.json"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(PROJECT_ROOT), os.environ.get("PYTHONPATH")])))
    return tmp_path


def _checkpoint_displays(nb) -> list[str]:
    shown = []
    for cell in nb.cells:
        if "checkpoint" in cell.metadata.get("tags", []):
            for output in cell.outputs:
                if output.output_type == "display_data":
                    assert output.data["text/html"].startswith("<div")
                    shown.append(output.data["text/plain"])
    return shown


def test_solution_notebook_passes_every_checkpoint(workdir):
    nb, errors = execute(FIXTURE_SOLUTIONS / FIXTURE_NAME, cwd=workdir)
    assert errors == []
    assert _checkpoint_displays(nb) == [
        "✅ TODO 1: create the NOTES table — passed (NOTES(ID, BODY, EMBEDDING VECTOR(3, FLOAT32)))",
        "✅ TODO 2: insert the three notes and commit — passed",
        "✅ TODO 3: the k nearest notes — passed (2 notes, nearest first)",
    ]


def test_student_notebook_fails_only_at_checkpoints_with_friendly_messages(workdir):
    nb, errors = execute(FIXTURE_NOTEBOOKS / FIXTURE_NAME, cwd=workdir, allow_errors=True)
    assert stub_contract_problems(nb, errors) == []
    assert [(e.todo, e.tags, e.ename) for e in errors] == [
        (n, ("checkpoint",), "CheckpointFailed") for n in (1, 2, 3)]
    assert [e.traceback[0] for e in errors] == ["❌ TODO 1: create the NOTES table — not yet",
                                                "❌ TODO 2: insert the three notes and commit — not yet",
                                                "❌ TODO 3: the k nearest notes — not yet"]
    assert [" ".join(" ".join(e.traceback[1:]).split()) for e in errors] == [
        "Why: `notes_ddl` is still empty (None) Hint: Complete the TODO cell that sets `notes_ddl` and run it, then "
        "run this checkpoint again.",
        "Why: table NOTES does not exist Hint: Run the cell that creates it, and check the name. Unquoted names are "
        "stored in upper case, so research_chunks and RESEARCH_CHUNKS are the same table.",
        "Why: not done yet: the code still raises NotImplementedError (TODO 3: ORDER BY VECTOR_DISTANCE(embedding, "
        "TO_VECTOR(:q), COSINE), then FETCH FIRST :k ROWS ONLY) Hint: Replace the `raise NotImplementedError(...)` "
        "line in the TODO cell with your code, run that cell, then run this checkpoint again.",
    ]
    # One message per failure: the error block above, no box repeating it, every line readable without scrolling.
    assert _checkpoint_displays(nb) == []
    assert all(len(line) <= 100 for error in errors for line in error.traceback)


@pytest.mark.parametrize("todo_number, reason", [
    (1, "`notes_ddl` is still empty (None)"),
    (2, "NOTES has 0 committed rows, expected at least 3"),
    (3, "not done yet: the code still raises NotImplementedError"),
])
def test_each_stub_alone_fails_its_own_checkpoint(workdir, todo_number, reason):
    solution = nbformat.read(FIXTURE_SOLUTIONS / FIXTURE_NAME, as_version=4)
    student = nbformat.read(FIXTURE_NOTEBOOKS / FIXTURE_NAME, as_version=4)
    stub = next(cell for cell in student.cells if cell.metadata.get("workshop", {}).get("todo") == todo_number
                and "todo" in cell.metadata["tags"])
    index = next(i for i, cell in enumerate(solution.cells) if cell.id == stub.id)
    solution.cells[index] = stub
    hybrid = workdir / "hybrid.ipynb"
    nbformat.write(solution, hybrid)
    nb, errors = execute(hybrid, cwd=workdir, allow_errors=True)
    failed = [(e.index, e.ename) for e in errors]
    checkpoint_index = index + 1
    assert failed[0] == (checkpoint_index, "CheckpointFailed")
    assert reason in errors[0].evalue
    assert all(index > checkpoint_index for index, _ in failed[1:])  # later TODOs may depend on this one


def test_nbval_reports_the_friendly_line_for_a_stub_notebook(workdir):
    shutil.copy(FIXTURE_NOTEBOOKS / FIXTURE_NAME, workdir / "student.ipynb")
    (workdir / "pytest.ini").write_text("[pytest]\n")
    run = subprocess.run([sys.executable, "-m", "pytest", "--nbval-lax", "-p", "no:cacheprovider", "-q",
                          "student.ipynb"], cwd=workdir, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "3 failed" in run.stdout
    assert "TODO 1: create the NOTES table — not yet" in run.stdout
    assert "Why: `notes_ddl` is still empty (None)" in run.stdout
    assert "Traceback (most recent call last)" not in run.stdout
