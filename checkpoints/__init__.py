"""Checkpoints: one module per part (checkpoints/partNN.py) with a check function per TODO.

In a notebook, after the TODO named `paper_vectors` (`# BEGIN SOLUTION paper_vectors`) of part 1:

    from checkpoints import part01
    part01.check_paper_vectors(conn)

The shared framework (decorator, friendly PASS/FAIL, database helpers) is `checkpoints.framework`,
re-exported here.
"""
from .framework import *  # noqa: F401,F403
from .framework import __all__  # noqa: F401
