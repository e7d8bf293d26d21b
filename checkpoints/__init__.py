"""Checkpoints: one module per part (checkpoints/partNN.py) with a check function per TODO.

In a notebook, after TODO 1 of part 1:

    from checkpoints import part01
    part01.todo_1(conn)

The shared framework (decorator, friendly PASS/FAIL, database helpers) is `checkpoints.framework`,
re-exported here.
"""
from .framework import *  # noqa: F401,F403
from .framework import __all__  # noqa: F401
