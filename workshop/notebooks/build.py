"""Solution notebook -> student notebook, deterministically.

The student notebook is a pure function of the solution notebook's content: solution regions
become TODO stubs, `solution-only` cells are dropped, outputs and execution counts are cleared,
metadata is reduced to what the series needs, and the file is written in nbformat's canonical
JSON. The same input always gives byte-identical output, so diffs show only real changes.
"""
from __future__ import annotations

import ast
import copy
import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

from .markup import (CHECK_PREFIX, TAG_CHECKPOINT, TAG_SOLUTION, TAG_SOLUTION_ONLY, TAG_STUDENT_ONLY, TAG_TODO,
                     MarkupError, Region, cell_lines, find_regions, has_markup, parse_cell)
from .stubs import stub_cell

KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
LANGUAGE_INFO = {"name": "python"}
#: Cell metadata key the build writes: {"todo": N, "name": "<todo name>"} on TODO stubs and their checkpoint cells.
WORKSHOP_KEY = "workshop"
#: Checkpoint functions named by position (the old convention); a checkpoint cell may not call them.
_NUMBERED_CHECK = re.compile(r"^todo_\d+$")
_DROPPED_TAGS = {TAG_SOLUTION, TAG_SOLUTION_ONLY, TAG_STUDENT_ONLY}


@dataclass(frozen=True)
class Todo:
    """One TODO of a notebook: a `solution` cell and the checkpoint cell after it."""

    number: int
    cell_index: int            # index in the solution notebook
    cell_id: str
    hints: tuple[str, ...]     # the first hint of each region, in order
    checkpoint_index: int      # index of the checkpoint cell in the solution notebook
    name: str = ""             # the TODO's name (`# BEGIN SOLUTION <name>`), its stable identity

    @property
    def check_function(self) -> str:
        """The checkpoint function its checkpoint cell calls: check_<name>."""
        return CHECK_PREFIX + self.name


def read_notebook(path: Path) -> nbformat.NotebookNode:
    return nbformat.read(str(path), as_version=4)


def tags_of(cell: dict) -> list[str]:
    return list(cell.get("metadata", {}).get("tags", []) or [])


def describe_cell(label: str, index: int, cell: dict) -> str:
    """'solutions/01.ipynb cell 7 ("first line ...")' for error messages."""
    first = next((line.strip() for line in cell_lines(cell.get("source", "")) if line.strip()), "")
    if len(first) > 50:
        first = first[:47] + "..."
    return f"{label} cell {index + 1} ({first!r})" if first else f"{label} cell {index + 1}"


def analyse(solution: nbformat.NotebookNode, label: str) -> tuple[dict[int, list[Region]], list[Todo]]:
    """Validate the markup and tags of a solution notebook; regions by cell index and the TODO list.

    Every problem found is reported in one MarkupError, so an author fixes them in one pass.
    """
    problems: list[str] = []
    regions: dict[int, list[Region]] = {}
    for index, cell in enumerate(solution.cells):
        where = describe_cell(label, index, cell)
        tags = tags_of(cell)
        if TAG_SOLUTION_ONLY in tags and TAG_STUDENT_ONLY in tags:
            problems.append(f"{where}: tagged both {TAG_SOLUTION_ONLY!r} and {TAG_STUDENT_ONLY!r}")
        if TAG_TODO in tags:
            problems.append(f"{where}: the {TAG_TODO!r} tag belongs to student notebooks; tag solution cells "
                            f"{TAG_SOLUTION!r}")
        if cell.cell_type != "code":
            if has_markup(cell.source):
                problems.append(f"{where}: solution markup in a {cell.cell_type} cell; tag the whole cell "
                                f"{TAG_SOLUTION_ONLY!r} instead")
            if TAG_SOLUTION in tags or TAG_CHECKPOINT in tags:
                problems.append(f"{where}: {TAG_SOLUTION!r}/{TAG_CHECKPOINT!r} tags belong on code cells")
            continue
        try:
            found = find_regions(cell.source, where)
        except MarkupError as exc:
            problems.append(str(exc))
            continue
        if found and (TAG_SOLUTION_ONLY in tags or TAG_STUDENT_ONLY in tags or TAG_CHECKPOINT in tags):
            problems.append(f"{where}: solution regions are not allowed in a cell tagged "
                            f"{sorted(set(tags) & {TAG_SOLUTION_ONLY, TAG_STUDENT_ONLY, TAG_CHECKPOINT})}")
            continue
        if found and TAG_SOLUTION not in tags:
            problems.append(f"{where}: has solution regions but no {TAG_SOLUTION!r} tag; add the tag")
        elif TAG_SOLUTION in tags and not found:
            problems.append(f"{where}: tagged {TAG_SOLUTION!r} but has no '# BEGIN SOLUTION <name>' region")
        if found:
            regions[index] = found
    todos = _number_todos(solution, regions, label, problems)
    _check_names(solution, todos, label, problems)
    _check_prose_numbers(solution, todos, label, problems)
    if problems:
        raise MarkupError("\n".join(problems))
    return regions, todos


def _number_todos(solution, regions: dict[int, list[Region]], label: str, problems: list[str]) -> list[Todo]:
    todos: list[Todo] = []
    for index in sorted(regions):
        cell = solution.cells[index]
        following = next((i for i in range(index + 1, len(solution.cells))
                          if solution.cells[i].cell_type == "code"
                          and TAG_SOLUTION_ONLY not in tags_of(solution.cells[i])), None)
        if following is None or TAG_CHECKPOINT not in tags_of(solution.cells[following]):
            problems.append(f"{describe_cell(label, index, cell)}: the next code cell must be the TODO's "
                            f"checkpoint, tagged {TAG_CHECKPOINT!r}")
            continue
        hints = tuple(region.hints[0] if region.hints else "" for region in regions[index])
        todos.append(Todo(len(todos) + 1, index, str(cell.get("id", "")), hints, following, regions[index][0].name))
    return todos


def called_names(source: str, where: str) -> list[str]:
    """Names of the functions a cell calls (`f(...)` and `module.f(...)`), in order."""
    try:
        tree = parse_cell(source, where)
    except MarkupError:
        return []
    return [node.func.id if isinstance(node.func, ast.Name) else node.func.attr for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))]


_PROSE_TODO = re.compile(r"\bTODO\s+(\d+)\b")


def _check_prose_numbers(solution, todos: list[Todo], label: str, problems: list[str]) -> None:
    """Markdown that numbers TODOs follows the build's numbering: no 'TODO n' beyond the last TODO, and the prose
    that introduces a TODO (the markdown since the previous checkpoint), if it names TODO numbers, names its own.
    So moving or inserting a TODO fails the build until the prose is renumbered too."""
    for index, cell in enumerate(solution.cells):
        if cell.cell_type == "markdown":
            beyond = sorted({int(n) for n in _PROSE_TODO.findall(cell.source) if int(n) > len(todos)})
            if beyond:
                problems.append(f"{describe_cell(label, index, cell)}: mentions TODO {beyond[0]}, but the notebook has "
                                f"{len(todos)} TODO(s)")
    previous_end = -1
    for todo in todos:
        mentioned: set[int] = set()
        for index in range(previous_end + 1, todo.cell_index):
            if solution.cells[index].cell_type == "markdown":
                mentioned.update(int(n) for n in _PROSE_TODO.findall(solution.cells[index].source))
        if mentioned and todo.number not in mentioned:
            problems.append(f"{describe_cell(label, todo.cell_index, solution.cells[todo.cell_index])}: the prose "
                            f"before TODO {todo.number} ({todo.name}) names TODO {', '.join(map(str, sorted(mentioned)))} "
                            f"but not {todo.number}; renumber the prose")
        previous_end = todo.checkpoint_index


def _check_names(solution, todos: list[Todo], label: str, problems: list[str]) -> None:
    """TODO names are unique, and each checkpoint cell calls its own TODO's check_<name>, no other TODO's check
    and no check named by position (todo_N): so a moved or inserted TODO cannot pair a stub with the wrong check."""
    seen: dict[str, Todo] = {}
    for todo in todos:
        if todo.name in seen:
            problems.append(f"{describe_cell(label, todo.cell_index, solution.cells[todo.cell_index])}: the TODO "
                            f"name {todo.name!r} is already used by TODO {seen[todo.name].number}; names are unique "
                            "in a notebook")
        seen.setdefault(todo.name, todo)
    own_checks = {todo.check_function: todo for todo in todos}
    for todo in todos:
        cell = solution.cells[todo.checkpoint_index]
        where = describe_cell(label, todo.checkpoint_index, cell)
        calls = called_names(cell.source, where)
        others = sorted({f"{call} (TODO {own_checks[call].number})" for call in calls
                         if call in own_checks and call != todo.check_function})
        numbered = sorted({call for call in calls if _NUMBERED_CHECK.match(call)})
        if others:
            problems.append(f"{where}: the checkpoint of TODO {todo.number} ({todo.name}) calls the checkpoint of "
                            f"another TODO: {', '.join(others)}")
        if numbered:
            problems.append(f"{where}: calls {', '.join(numbered)}; checkpoints are named after their TODO, call "
                            f"{todo.check_function}(...)")
        if todo.check_function not in calls:
            problems.append(f"{where}: the checkpoint cell of TODO {todo.number} must call "
                            f"{todo.check_function}(...) (the check of the region named {todo.name!r})")


def student_notebook(solution: nbformat.NotebookNode, label: str = "notebook") -> nbformat.NotebookNode:
    """The student notebook for a solution notebook (see module docstring)."""
    regions, todos = analyse(solution, label)
    todo_by_cell = {todo.cell_index: todo for todo in todos}
    todo_by_checkpoint = {todo.checkpoint_index: todo for todo in todos}
    cells = []
    used_ids: set[str] = set()
    for index, cell in enumerate(solution.cells):
        tags = tags_of(cell)
        if TAG_SOLUTION_ONLY in tags:
            continue
        source = cell.source.replace("\r\n", "\n").replace("\r", "\n")
        new_tags = [tag for tag in tags if tag not in _DROPPED_TAGS]
        workshop_meta = None
        if index in todo_by_cell:
            todo = todo_by_cell[index]
            source = stub_cell(source, regions[index], todo.number, describe_cell(label, index, cell))
            new_tags.append(TAG_TODO)
            workshop_meta = {"todo": todo.number, "name": todo.name}
        elif index in todo_by_checkpoint:
            workshop_meta = {"todo": todo_by_checkpoint[index].number, "name": todo_by_checkpoint[index].name}
        metadata: dict = {}
        if new_tags:
            metadata["tags"] = new_tags
        if workshop_meta:
            metadata[WORKSHOP_KEY] = workshop_meta
        new = {"cell_type": cell.cell_type, "id": _cell_id(cell, index, used_ids), "metadata": metadata,
               "source": source}
        if cell.cell_type == "code":
            new.update(execution_count=None, outputs=[])
        elif cell.cell_type == "markdown" and cell.get("attachments"):
            new["attachments"] = copy.deepcopy(dict(cell.attachments))
        elif cell.cell_type == "raw" and cell.get("metadata", {}).get("format"):
            metadata["format"] = cell.metadata["format"]  # the raw cell's target format (rst, html, ...)
        cells.append(new)
    nb = nbformat.from_dict({"cells": cells, "metadata": {"kernelspec": KERNELSPEC, "language_info": LANGUAGE_INFO},
                             "nbformat": 4, "nbformat_minor": 5})
    nbformat.validate(nb)
    return nb


def _cell_id(cell: dict, index: int, used: set[str]) -> str:
    """Keep the solution's cell id (so student and solution cells pair up); derive one if absent."""
    candidate = str(cell.get("id") or f"cell-{index + 1}")
    while candidate in used:
        candidate = f"{candidate}-{index + 1}"
    used.add(candidate)
    return candidate


def render(nb: nbformat.NotebookNode) -> str:
    """Canonical notebook text: what Jupyter itself writes, plus a final newline."""
    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def build_text(solution_path: Path, label: str | None = None) -> str:
    """The student notebook text for one solution notebook file."""
    return render(student_notebook(read_notebook(solution_path), label or str(solution_path)))


def list_todos(solution_path: Path, label: str | None = None) -> list[Todo]:
    return analyse(read_notebook(solution_path), label or str(solution_path))[1]
