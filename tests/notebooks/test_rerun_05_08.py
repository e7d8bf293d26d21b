"""Parts 05-08 survive a kernel restart mid-part, Run All, and Run All again in the same kernel (see
rerun_support; a module of its own so that --dist loadfile runs it on the other worker than parts 00-04)."""
from __future__ import annotations

import pytest
from rerun_support import SOLUTIONS, run_as_a_learner

pytestmark = pytest.mark.slow
LATER = [p for p in SOLUTIONS if p.name[:2] >= "05"]


@pytest.mark.parametrize("notebook", LATER, ids=[p.stem for p in LATER])
def test_solution_survives_a_restart_mid_part_and_runs_twice_in_one_kernel(notebook, set_up_database, monkeypatch):
    run_as_a_learner(notebook, set_up_database, monkeypatch)


def test_every_part_is_in_one_of_the_two_modules():
    from test_rerun import FIRST
    assert sorted(FIRST + LATER) == SOLUTIONS
