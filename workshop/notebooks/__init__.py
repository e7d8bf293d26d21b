"""Authoring tools for the workshop notebooks: solution markup, the student-notebook build, leak audit.

`python -m workshop.notebook_build` is the command line; docs/authoring-notebooks.md the guide.
"""
from .build import Todo, analyse, build_text, list_todos, read_notebook, render, student_notebook
from .leaks import Finding, audit, telltale_lines
from .markup import (BEGIN_MARKER, END_MARKER, TAG_CHECKPOINT, TAG_SOLUTION, TAG_SOLUTION_ONLY, TAG_STUDENT_ONLY,
                     TAG_TODO, MarkupError, Region, find_regions)
from .stubs import stub_cell
from .sync import BuildReport, Problem, build_folder, check_folder, solution_files

__all__ = [
    "BEGIN_MARKER", "END_MARKER", "TAG_CHECKPOINT", "TAG_SOLUTION", "TAG_SOLUTION_ONLY", "TAG_STUDENT_ONLY",
    "TAG_TODO", "BuildReport", "Finding", "MarkupError", "Problem", "Region", "Todo", "analyse", "audit",
    "build_folder", "build_text", "check_folder", "find_regions", "list_todos", "read_notebook", "render",
    "solution_files", "student_notebook", "stub_cell", "telltale_lines",
]
