"""Checkpoints: one module per part (checkpoints/partNN.py) with a check function per TODO.

In a notebook, after the TODO named `paper_vectors` (`# BEGIN SOLUTION paper_vectors`) of part 1:

    from checkpoints import part01
    part01.check_paper_vectors(conn)

`checkpoints.progress()` (or `python -m checkpoints.progress`) shows every TODO of the series with pass / not yet /
failing. The shared framework (decorator, friendly PASS/FAIL, database helpers) is `checkpoints.framework`,
re-exported here.
"""
from .framework import *  # noqa: F401,F403
from .framework import __all__  # noqa: F401


def __getattr__(name: str):
    """`checkpoints.progress` is imported on first use, so `python -m checkpoints.progress` runs it only once."""
    if name == "progress":
        import importlib
        return importlib.import_module(".progress", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
