"""TODO identity across the series: every named TODO of solutions/ has its check_<name> in checkpoints/partNN.py,
every checkpoint there belongs to a TODO, and labels take their numbers from the notebook."""
from __future__ import annotations

import importlib

import pytest

from checkpoints.framework import checkpoint, registry

SERIES = registry.series()


def test_the_series_has_named_todos():
    assert SERIES and all(entry.name for entry in SERIES)
    assert [e.part for e in SERIES] == sorted(e.part for e in SERIES)


@pytest.mark.parametrize("entry", SERIES, ids=lambda e: f"{e.part}-{e.name}")
def test_every_todo_has_its_checkpoint_numbered_from_the_notebook(entry):
    check = registry.checkpoint_function(entry)
    assert check is not None, f"{entry.module} has no {entry.check_function} for TODO {entry.number} ({entry.name})"
    assert check.todo_name == entry.name
    assert check.label_now() == f"TODO {entry.number}: {check.title}"


@pytest.mark.parametrize("part", sorted({e.part for e in SERIES}))
def test_every_checkpoint_of_a_part_belongs_to_a_todo(part):
    module = importlib.import_module(f"checkpoints.part{part}")
    names = {e.name for e in SERIES if e.part == part}
    checks = {value.todo_name for value in vars(module).values() if getattr(value, "todo_name", None)}
    assert checks == names


def test_a_part_module_refuses_numbered_titles_and_positional_names():
    import types
    import sys
    module = types.ModuleType("checkpoints.part99_probe")
    module.NOTEBOOK = "99_none.ipynb"
    sys.modules[module.__name__] = module
    try:
        def check_thing(conn):
            return None
        check_thing.__module__ = module.__name__
        with pytest.raises(ValueError, match="carries a TODO number"):
            checkpoint("TODO 3: a thing")(check_thing)

        def todo_3(conn):
            return None
        todo_3.__module__ = module.__name__
        with pytest.raises(ValueError, match="is named check_<todo name>"):
            checkpoint("a thing")(todo_3)
        # A TODO the notebook does not have: the label is the title alone (the test above catches the drift).
        assert checkpoint("a thing")(check_thing).label_now() == "a thing"
    finally:
        del sys.modules[module.__name__]


def test_todo_ref_numbers_from_the_notebook():
    assert registry.todo_ref("checkpoints.part01", "paper_vectors") == "TODO 1 (paper_vectors)"
    assert registry.todo_ref("checkpoints.part01", "no_such_todo") == "the TODO no_such_todo"


def test_student_notebooks_give_the_same_registry(tmp_path):
    from tests.checkpoints.shared import student_path
    from workshop.config import PROJECT_ROOT
    for notebook in sorted({e.notebook for e in SERIES}):
        student = registry.notebook_todos(student_path(notebook))
        solution = registry.notebook_todos(PROJECT_ROOT / "solutions" / notebook)
        assert [(e.number, e.name) for e in student] == [(e.number, e.name) for e in solution]
