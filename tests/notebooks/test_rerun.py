"""Parts 00-04 survive what a learner does to a notebook: a kernel restart mid-part, Run All, Run All again in the
same kernel (see rerun_support; parts 05-08 are in test_rerun_05_08.py). Marked slow: about 1.5 runs of each
notebook plus a warm second run, on one copy of the set-up database per module."""
from __future__ import annotations

import pytest
from rerun_support import SOLUTIONS, run_as_a_learner

from workshop.notebooks.execute import KernelSession

pytestmark = pytest.mark.slow
FIRST = [p for p in SOLUTIONS if p.name[:2] < "05"]


@pytest.mark.parametrize("notebook", FIRST, ids=[p.stem for p in FIRST])
def test_solution_survives_a_restart_mid_part_and_runs_twice_in_one_kernel(notebook, set_up_database, monkeypatch):
    run_as_a_learner(notebook, set_up_database, monkeypatch)


def test_a_second_run_in_one_kernel_sees_module_state(tmp_path):
    """The harness can fail: module state set by a first run is still there in the second run of one kernel, and
    gone after a restart (what a fresh kernel per run could never show)."""
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import json\nassert not hasattr(json, '_probe'), 'left by a run'"),
                nbformat.v4.new_code_cell("json._probe = 1")]
    path = tmp_path / "probe.ipynb"
    nbformat.write(nb, path)
    with KernelSession(path, cwd=tmp_path, timeout=60) as session:
        assert session.run() == []
        again = session.run()
        assert [e.index for e in again] == [0] and again[0].ename == "AssertionError"
        session.restart()
        assert session.run() == []


def test_there_are_solution_notebooks():
    assert len(SOLUTIONS) >= 9
    assert any(p.name.startswith("04_") for p in SOLUTIONS)      # part 04 (knowledge retrieval) is covered
    assert any(p.name.startswith("08_") for p in SOLUTIONS)      # part 08 (OAMP and its mirror) is covered
