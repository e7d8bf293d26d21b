"""Notebooks built in memory for the tooling tests, and where the fixture folders are."""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FIXTURE_SOLUTIONS = FIXTURES / "solutions"
FIXTURE_NOTEBOOKS = FIXTURES / "notebooks"
FIXTURE_NAME = "01_fixture_notes.ipynb"


def _id(kind: str, source: str, tags: tuple) -> str:
    return kind + hashlib.sha1(repr((source, tags)).encode()).hexdigest()[:10]


def code(source: str, *tags: str, id: str | None = None) -> nbformat.NotebookNode:
    cell = new_code_cell(source, metadata={"tags": list(tags)} if tags else {})
    cell.id = id or _id("c", source, tags)
    return cell


def markdown(source: str, *tags: str, id: str | None = None) -> nbformat.NotebookNode:
    cell = new_markdown_cell(source, metadata={"tags": list(tags)} if tags else {})
    cell.id = id or _id("m", source, tags)
    return cell


def notebook(*cells) -> nbformat.NotebookNode:
    nb = new_notebook()
    nb.cells = list(cells)
    return nb


def todo(source: str, checkpoint: str | None = None) -> list:
    """A solution cell and the checkpoint cell that must follow it (by default `check_<the region's name>(conn)`)."""
    if checkpoint is None:
        match = re.search(r"# BEGIN SOLUTION (\w+)", source)
        checkpoint = f"check_{match[1] if match else 'answer'}(conn)"
    return [code(source, "solution"), code(checkpoint, "checkpoint")]
