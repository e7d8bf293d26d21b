"""Which TODOs the series has, read from the solution notebooks: the one source of TODO numbers.

A TODO's identity is its name (`# BEGIN SOLUTION <name>` in the solution notebook); its number is
its position in the notebook, which the build computes. A checkpoint module declares which
notebook it checks (`NOTEBOOK = "01_vector_search.ipynb"`) and names each checkpoint
`check_<name>`; the label shown to learners ("TODO 3: filtered similarity search") takes its
number from here at call time, so inserting or moving a TODO can never leave a stale number in a
checkpoint, a hint or the progress table.
"""
from __future__ import annotations

import importlib
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from workshop.config import PROJECT_ROOT

CHECK_PREFIX = "check_"
_PART = re.compile(r"^(?P<part>\d\d)_")


@dataclass(frozen=True)
class TodoEntry:
    """One TODO of the series."""

    part: str           # "01"
    notebook: str       # "01_vector_search.ipynb"
    number: int         # 1-based position in the notebook
    name: str           # "search_papers"
    hint: str           # the first hint line of the TODO

    @property
    def module(self) -> str:
        return f"checkpoints.part{self.part}"

    @property
    def check_function(self) -> str:
        return CHECK_PREFIX + self.name

    @property
    def label_prefix(self) -> str:
        return f"TODO {self.number}"


def solutions_dir() -> Path:
    return PROJECT_ROOT / "solutions"


def _notebook_path(notebook: str | Path) -> Path:
    path = Path(notebook)
    if path.is_absolute():
        return path
    for folder in (solutions_dir(), PROJECT_ROOT / "notebooks"):
        if (folder / path).exists():
            return folder / path
    return solutions_dir() / path


@lru_cache(maxsize=64)
def _read_todos(path: Path, mtime: float) -> tuple[TodoEntry, ...]:
    from workshop.notebooks import analyse, read_notebook
    from workshop.notebooks.build import WORKSHOP_KEY

    nb = read_notebook(path)
    match = _PART.match(path.name)
    part = match["part"] if match else path.stem
    if any("solution" in (cell.get("metadata", {}).get("tags") or []) for cell in nb.cells):
        _, todos = analyse(nb, str(path))
        return tuple(TodoEntry(part, path.name, t.number, t.name, next((h for h in t.hints if h), ""))
                     for t in todos)
    entries = []   # a student notebook: the build wrote number and name into the stub cells' metadata
    for cell in nb.cells:
        meta = cell.get("metadata", {}).get(WORKSHOP_KEY) or {}
        if "todo" in (cell.get("metadata", {}).get("tags") or []) and meta.get("name"):
            entries.append(TodoEntry(part, path.name, int(meta["todo"]), meta["name"], ""))
    return tuple(entries)


def notebook_todos(notebook: str | Path) -> tuple[TodoEntry, ...]:
    """The TODOs of one notebook (a file name in solutions/ or notebooks/, or a path), in order."""
    path = _notebook_path(notebook)
    if not path.exists():
        return ()
    return _read_todos(path, path.stat().st_mtime)


def series(folder: Path | None = None) -> list[TodoEntry]:
    """Every TODO of every solution notebook, in series order (so later parts appear by themselves)."""
    folder = folder or solutions_dir()
    entries: list[TodoEntry] = []
    for path in sorted(folder.glob("[0-9][0-9]_*.ipynb")):
        entries.extend(notebook_todos(path))
    return entries


def module_notebook(module_name: str) -> str | Path | None:
    """The notebook a checkpoint module checks: its NOTEBOOK constant."""
    module = sys.modules.get(module_name)
    return getattr(module, "NOTEBOOK", None) if module is not None else None


def entry_for(module_name: str, name: str) -> TodoEntry | None:
    """The TODO a checkpoint `check_<name>` of `module_name` belongs to, or None (no NOTEBOOK, or no such TODO)."""
    notebook = module_notebook(module_name)
    if notebook is None:
        return None
    return next((entry for entry in notebook_todos(notebook) if entry.name == name), None)


def todo_ref(module_name: str, name: str) -> str:
    """How a hint refers to another TODO of the same part: 'TODO 1 (paper_vectors)', numbered from the notebook."""
    entry = entry_for(module_name, name)
    return f"TODO {entry.number} ({name})" if entry else f"the TODO {name}"


def checkpoint_function(entry: TodoEntry):
    """The checkpoint of a TODO (imports checkpoints.partNN), or None when the module has none for it."""
    try:
        module = importlib.import_module(entry.module)
    except ModuleNotFoundError:
        return None
    return getattr(module, entry.check_function, None)
