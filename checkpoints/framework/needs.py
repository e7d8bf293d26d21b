"""Cells that use a TODO's result say so in one line when the TODO is not done, instead of a misleading traceback.

    part01.needs("search_papers", search_papers)      # at the top of a cell that calls search_papers

raises `TodoNeeded` ("this cell needs TODO 3 (search_papers): ...") when a value is still the stub's None, `...`,
or a stub function (its body is the generated `raise NotImplementedError("TODO n: ...")`). Jupyter shows the one
line (no stack), and Run All stops there, as at a failed checkpoint.
"""
from __future__ import annotations

import inspect
from typing import Any

from .registry import entry_for


class TodoNeeded(RuntimeError):
    """A cell ran before the TODO it depends on was done."""

    def _render_traceback_(self) -> list[str]:
        return [f"⬜ {self}"]


def is_stub(value: Any) -> bool:
    """True for the stub's placeholders: None, `...`, or a function whose code raises the generated
    NotImplementedError("TODO n: ...") (a callable object or a class is looked at through its __call__/__init__)."""
    if value is None or value is Ellipsis:
        return True
    function = inspect.unwrap(value) if callable(value) else None
    code = getattr(function, "__code__", None)
    if code is None:
        return False
    raises = "NotImplementedError" in code.co_names
    return raises and any(isinstance(c, str) and c.startswith("TODO ") for c in code.co_consts)


def needs(module: str, todo: str, *values: Any) -> None:
    """Raise TodoNeeded when any of `values` is still a stub of the TODO `todo` of the part `module`."""
    if not any(is_stub(value) for value in values):
        return
    entry = entry_for(module, todo)
    which = f"TODO {entry.number} ({todo})" if entry else f"the TODO {todo}"
    raise TodoNeeded(f"this cell needs {which}: complete it and run its checkpoint, then run this cell again")
