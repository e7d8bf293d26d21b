"""solutions/ -> notebooks/ for a whole folder: write, or check that nothing drifted or leaked."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from .build import build_text, read_notebook, render, student_notebook
from .leaks import audit
from .markup import MarkupError


@dataclass(frozen=True)
class Problem:
    path: Path
    kind: str      # missing | stale | orphan | leak | markup
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.path}: {self.detail}"


@dataclass
class BuildReport:
    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)


def solution_files(solutions_dir: Path) -> list[Path]:
    """Every solution notebook, in a stable order (checkpoint folders and hidden folders skipped)."""
    if not solutions_dir.is_dir():
        return []
    return sorted(p for p in solutions_dir.rglob("*.ipynb")
                  if not any(part.startswith(".") for part in p.relative_to(solutions_dir).parts))


def student_path(solution: Path, solutions_dir: Path, notebooks_dir: Path) -> Path:
    return notebooks_dir / solution.relative_to(solutions_dir)


def build_folder(solutions_dir: Path, notebooks_dir: Path) -> BuildReport:
    """Write every student notebook whose text changed; remove student notebooks with no solution.

    All solution notebooks are built in memory first, so a markup error writes nothing.
    """
    report = BuildReport()
    planned: dict[Path, str] = {}
    errors: list[str] = []
    for solution in solution_files(solutions_dir):
        try:
            planned[student_path(solution, solutions_dir, notebooks_dir)] = build_text(solution)
        except MarkupError as exc:
            errors.append(str(exc))
    if errors:
        raise MarkupError("\n".join(errors))
    for target, text in planned.items():
        if target.exists() and target.read_bytes() == text.encode("utf-8"):
            report.unchanged.append(target)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(text.encode("utf-8"))
        report.written.append(target)
    for orphan in _student_files(notebooks_dir):
        if orphan not in planned:
            orphan.unlink()
            report.removed.append(orphan)
    return report


def check_folder(solutions_dir: Path, notebooks_dir: Path) -> list[Problem]:
    """Everything that makes notebooks/ differ from what the build would write, plus leak findings."""
    problems: list[Problem] = []
    expected_paths = set()
    for solution in solution_files(solutions_dir):
        target = student_path(solution, solutions_dir, notebooks_dir)
        expected_paths.add(target)
        try:
            solution_nb = read_notebook(solution)
            expected = student_notebook(solution_nb, str(solution))
        except MarkupError as exc:
            problems.append(Problem(solution, "markup", str(exc)))
            continue
        if not target.exists():
            problems.append(Problem(target, "missing", f"no student notebook for {solution}"))
            continue
        actual_text = target.read_bytes().decode("utf-8")
        if actual_text != render(expected):
            problems.append(Problem(target, "stale", _first_difference(expected, actual_text)))
        try:
            actual = nbformat.reads(actual_text, as_version=4)
        except Exception as exc:  # unreadable JSON is drift too, and says why
            problems.append(Problem(target, "stale", f"not a readable notebook: {exc}"))
            continue
        problems += [Problem(target, "leak", str(f)) for f in audit(solution_nb, actual, str(target))]
    for orphan in _student_files(notebooks_dir):
        if orphan not in expected_paths:
            problems.append(Problem(orphan, "orphan", "no solution notebook produces this file"))
    return problems


def _student_files(notebooks_dir: Path) -> list[Path]:
    return solution_files(notebooks_dir)


def _first_difference(expected: nbformat.NotebookNode, actual_text: str) -> str:
    try:
        actual = nbformat.reads(actual_text, as_version=4)
    except Exception:
        return "file is not a readable notebook"
    for index, (want, got) in enumerate(zip(expected.cells, actual.cells)):
        if want != got:
            fields = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
            return f"cell {index + 1} differs ({', '.join(fields)}) from what the build writes"
    if len(expected.cells) != len(actual.cells):
        return f"{len(actual.cells)} cells, the build writes {len(expected.cells)}"
    return "notebook metadata or formatting differs from what the build writes"
