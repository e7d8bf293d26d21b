"""An audit of a student notebook that does not trust the generator: does it give answers away?

It finds the *telltale* lines of the solution notebook (lines inside solution regions and in
`solution-only` cells that appear nowhere else in what learners are meant to see) and reports any
that occur verbatim in the student notebook. It also reports leftover markers, outputs and
execution counts, and TODO stub cells that do not compile.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass

import nbformat

from .build import describe_cell, tags_of
from .markup import TAG_SOLUTION_ONLY, TAG_TODO, MarkupError, Region, cell_lines, find_regions, has_markup, python_source

#: Shorter lines ('pass', ')', 'x = 1') carry no answer worth protecting and recur by chance.
MIN_TELLTALE_CHARS = 8


@dataclass(frozen=True)
class Finding:
    where: str
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


def _norm(line: str) -> str:
    return " ".join(line.split())


def _kept_by_design(body: list[str]) -> set[int]:
    """0-based lines of a region that stubs keep on purpose: def/class headers, decorators, docstrings."""
    try:
        tree = ast.parse(python_source("\n".join(body), "region"))
    except (SyntaxError, MarkupError):
        return set()
    kept: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            first = node.body[0]
            kept.update(range(start - 1, max(first.lineno - 1, node.lineno)))
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                kept.update(range(first.lineno - 1, first.end_lineno))
    return kept


def telltale_lines(solution: nbformat.NotebookNode) -> dict[str, str]:
    """Normalised telltale line -> where it comes from in the solution notebook."""
    private: dict[str, str] = {}
    public: set[str] = set()
    for index, cell in enumerate(solution.cells):
        lines = cell_lines(cell.source)
        where = describe_cell("solution", index, cell)
        if TAG_SOLUTION_ONLY in tags_of(cell):
            for line in lines:
                private.setdefault(_norm(line), where)
            continue
        regions: list[Region] = []
        if cell.cell_type == "code" and has_markup(cell.source):
            try:
                regions = find_regions(cell.source, where)
            except MarkupError:
                regions = []
        inside: set[int] = set()
        for region in regions:
            inside.update(range(region.begin, region.end + 1))
            public.update(_norm(hint) for hint in region.hints)
            body = region.body_lines(lines)
            kept = _kept_by_design([line[len(region.indent):] for line in body])
            for offset, line in enumerate(body):
                target = public if offset in kept else None
                if target is not None:
                    target.add(_norm(line))
                else:
                    private.setdefault(_norm(line), where)
        public.update(_norm(line) for number, line in enumerate(lines) if number not in inside)
    return {line: where for line, where in private.items()
            if line not in public and len(line) >= MIN_TELLTALE_CHARS and any(ch.isalnum() for ch in line)
            and not line.startswith("# HINT:")}


def audit(solution: nbformat.NotebookNode, student: nbformat.NotebookNode, label: str) -> list[Finding]:
    """Everything wrong with `student` as the learner's copy of `solution` (empty list: clean)."""
    findings: list[Finding] = []
    telltales = telltale_lines(solution)
    for index, cell in enumerate(student.cells):
        where = describe_cell(label, index, cell)
        if has_markup(cell.source):
            findings.append(Finding(where, "contains solution markup (BEGIN/END SOLUTION or HINT)"))
        for line in cell_lines(cell.source):
            norm = _norm(line)
            if norm in telltales:
                findings.append(Finding(where, f"leaks solution text {norm!r} (from {telltales[norm]})"))
        if cell.cell_type == "code":
            if TAG_TODO in tags_of(cell):
                try:
                    ast.parse(python_source(cell.source, where))
                except (SyntaxError, MarkupError) as exc:
                    findings.append(Finding(where, f"TODO stub is not valid Python: {exc}"))
            if cell.get("outputs"):
                findings.append(Finding(where, "has outputs; student notebooks are shipped cleared"))
            if cell.get("execution_count") is not None:
                findings.append(Finding(where, "has an execution count"))
    return findings
