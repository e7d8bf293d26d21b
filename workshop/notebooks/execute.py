"""Running notebooks in a real kernel (nbclient) to check the stub contract end to end.

A student notebook, run top to bottom as "Run All" does, must stop at the checkpoint of TODO 1
with a CheckpointFailed (or CheckpointError) and nothing earlier may fail: a NameError or a
SyntaxError in a stub would mean the learner meets a raw traceback instead of a checkpoint.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import nbformat

from .build import WORKSHOP_KEY, read_notebook, tags_of
from .markup import TAG_CHECKPOINT

FRIENDLY_ERRORS = ("CheckpointFailed", "CheckpointError")


@dataclass(frozen=True)
class CellError:
    index: int                 # 0-based cell index
    cell_id: str
    tags: tuple[str, ...]
    todo: int | None           # the build's workshop.todo metadata, if any
    ename: str
    evalue: str
    traceback: tuple[str, ...]


def execute(path: Path, *, cwd: Path, allow_errors: bool = False, timeout: int = 300,
            kernel_name: str = "python3") -> tuple[nbformat.NotebookNode, list[CellError]]:
    """Run the notebook; the executed notebook and the errors it raised (only the first one unless
    allow_errors). The kernel inherits this process's environment."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = read_notebook(path)
    client = NotebookClient(nb, timeout=timeout, kernel_name=kernel_name, allow_errors=allow_errors,
                            resources={"metadata": {"path": str(cwd)}})
    try:
        client.execute()
    except CellExecutionError:
        pass
    return nb, errors_in(nb)


def errors_in(nb: nbformat.NotebookNode) -> list[CellError]:
    found = []
    for index, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found.append(CellError(index, str(cell.get("id", "")), tuple(tags_of(cell)),
                                       cell.get("metadata", {}).get(WORKSHOP_KEY, {}).get("todo"),
                                       output.get("ename", ""), output.get("evalue", ""),
                                       tuple(output.get("traceback", []))))
    return found


def stub_contract_problems(nb: nbformat.NotebookNode, errors: list[CellError]) -> list[str]:
    """Problems with a Run-All of a student notebook (see module docstring); [] when it behaves."""
    has_todo = any(cell.get("metadata", {}).get(WORKSHOP_KEY, {}).get("todo") for cell in nb.cells)
    if not errors:
        return ["ran without any failure, but its TODO 1 checkpoint should fail on the stub"] if has_todo else []
    first = errors[0]
    if TAG_CHECKPOINT not in first.tags or first.todo != 1:
        return [f"the first failure is in cell {first.index + 1} ({first.ename}: {first.evalue}), not in the "
                "checkpoint of TODO 1"]
    if first.ename not in FRIENDLY_ERRORS:
        return [f"the TODO 1 checkpoint failed with {first.ename}: {first.evalue}, not with a friendly "
                "CheckpointFailed"]
    return []
