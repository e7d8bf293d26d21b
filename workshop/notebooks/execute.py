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


class KernelSession:
    """One kernel that runs a notebook's cells as a learner does: "Run All" twice in the same kernel, part of the
    notebook then a kernel restart, a single cell after the restart. `execute` starts a fresh kernel per run, so
    it cannot see state that outlives a rerun in one kernel (part 04's fact mirrors did).

        with KernelSession(path, cwd=path.parent) as session:
            assert not session.run()            # Run All
            assert not session.run()            # Run All again, same kernel
            session.restart()
            assert not session.run(stop=10)     # Run All Above cell 10
    """

    def __init__(self, path: Path, *, cwd: Path, timeout: int = 300, kernel_name: str = "python3"):
        from nbclient import NotebookClient

        self.nb = read_notebook(path)
        self.client = NotebookClient(self.nb, timeout=timeout, kernel_name=kernel_name, allow_errors=False,
                                     resources={"metadata": {"path": str(cwd)}})
        self._kernel = None

    def __enter__(self) -> "KernelSession":
        self._kernel = self.client.setup_kernel()
        self._kernel.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._kernel.__exit__(*exc)

    def index(self, cell_id: str) -> int:
        """The position of the cell with this id (a KeyError names the ids there are)."""
        for index, cell in enumerate(self.nb.cells):
            if cell.get("id") == cell_id:
                return index
        raise KeyError(f"no cell {cell_id!r}; the cells are {[c.get('id') for c in self.nb.cells]}")

    def run(self, start: int = 0, stop: int | None = None) -> list[CellError]:
        """Execute the code cells start..stop-1 in order, stopping at the first error; the errors raised (at most
        one). Outputs of earlier runs are cleared first, so the errors are this run's."""
        from nbclient.exceptions import CellExecutionError

        chosen = list(range(len(self.nb.cells)))[start:stop]
        for index in chosen:
            if self.nb.cells[index].cell_type == "code":
                self.nb.cells[index].outputs = []
        try:
            for index in chosen:
                if self.nb.cells[index].cell_type == "code":
                    self.client.execute_cell(self.nb.cells[index], index)
        except CellExecutionError:
            pass
        return [e for e in errors_in(self.nb) if e.index in chosen]

    def restart(self) -> None:
        """Restart the kernel (Kernel > Restart): every name, import and module global is gone."""
        from jupyter_core.utils import ensure_async, run_sync

        async def restart() -> None:      # nbclient's kernel manager and client are the asynchronous ones
            await ensure_async(self.client.km.restart_kernel(now=True))
            await ensure_async(self.client.kc.wait_for_ready(timeout=120))
        run_sync(restart)()


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
