"""What the rerun tests share (tests/notebooks/test_rerun*.py): a solution notebook driven as a learner drives it,
in ONE kernel (`workshop.notebooks.execute.KernelSession`):

1. the cells up to the middle (a learner half way through), then Kernel > Restart;
2. part 07 only: the "resume after a real restart" cell alone, as its prose says (not the setup cell, whose
   reset would drop the paused run);
3. Run All from the top (the setup cell resets the part), which must not fail;
4. Run All again, same kernel, which must not fail.

nbval runs each solution once in a fresh kernel, and a fresh kernel per run cannot see state that outlives a
rerun in one kernel: part 04's fact mirrors lived in a module global that reset_part(4) did not clear, and its
second Run All failed (issue 21). The nine parts are split over two modules so that `--dist loadfile` puts them
on both workers.
"""
from __future__ import annotations

from pathlib import Path

from workshop.notebooks.execute import CellError, KernelSession

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "solutions").glob("[0-9][0-9]_*.ipynb"))
#: Where the restart happens (the cell run last before it), when not half way. Part 07: its graph has just paused
#: before the tools, and the resume cell must pick that run up from OracleSaver's tables after the restart.
RESTART_AFTER = {"07_agent_harness": "p07-graph-run"}
RESUME_CELLS = {"07_agent_harness": ("p07-restart-resume", "status: completed")}


def _first(errors: list[CellError], notebook: Path, when: str) -> str:
    e = errors[0]
    return f"{notebook.name}, {when}: cell {e.index} ({e.cell_id}) raised {e.ename}: {e.evalue}"


def _text(session: KernelSession, index: int) -> str:
    outputs = session.nb.cells[index].get("outputs", [])
    return "".join(o.get("text", "") or str(o.get("data", {}).get("text/plain", "")) for o in outputs)


def run_as_a_learner(notebook: Path, database: Path, monkeypatch) -> None:
    """Steps 1-4 above; an AssertionError names the step, the cell and the error."""
    monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(database))
    monkeypatch.delenv("ORACLE_DSN", raising=False)
    with KernelSession(notebook, cwd=notebook.parent, timeout=600) as session:
        middle = (session.index(RESTART_AFTER[notebook.stem]) if notebook.stem in RESTART_AFTER
                  else len(session.nb.cells) // 2)
        errors = session.run(stop=middle + 1)
        assert not errors, _first(errors, notebook, "first half")
        session.restart()
        if notebook.stem in RESUME_CELLS:
            cell_id, expected = RESUME_CELLS[notebook.stem]
            resume = session.index(cell_id)
            errors = session.run(start=resume, stop=resume + 1)
            assert not errors, _first(errors, notebook, "resuming after the restart")
            assert expected in _text(session, resume), _text(session, resume)
        errors = session.run()
        assert not errors, _first(errors, notebook, "Run All after a kernel restart mid-part")
        errors = session.run()
        assert not errors, _first(errors, notebook, "second Run All in the same kernel")
