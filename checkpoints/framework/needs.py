"""Cells that use a TODO's result say so in one line when the TODO is not done, instead of a misleading traceback.

    part01.needs("search_papers", search_papers)      # at the top of a cell that calls search_papers

raises `TodoNeeded` ("this cell needs TODO 3 (search_papers): ...") when a value is still the stub's None, `...`,
or a stub function (its body is the generated `raise NotImplementedError("TODO n: ...")`). Jupyter shows the one
line (no stack), and Run All stops there, as at a failed checkpoint.

A cell that calls a stub without such a line, or that uses a variable a stopped cell never defined, fails with
the stub's NotImplementedError or a NameError. `explain_unfinished_todos(NOTEBOOK)`, run in a notebook's first
cells, makes the kernel print one line for both that names the TODO to finish (from the progress log); every
other error keeps its normal traceback:

    from checkpoints.framework import explain_unfinished_todos
    explain_unfinished_todos(part02.NOTEBOOK)
"""
from __future__ import annotations

import inspect
import re
import sys
from typing import Any

from .registry import entry_for, notebook_todos

_STUB_MESSAGE = re.compile(r"^TODO (?P<number>\d+): (?P<hint>.*)", re.S)


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


# --------------------------------------------------------------------------- the kernel's one-line explanation
def unfinished(notebook: str) -> list[str]:
    """'TODO n (name)' for every TODO of the notebook whose checkpoint has not passed (per the progress log)."""
    from .progress_log import last_outcomes
    try:
        outcomes = last_outcomes()
        todos = notebook_todos(notebook)
    except Exception:  # noqa: BLE001 - the explanation must never raise on top of the learner's error
        return []
    return [f"{t.label_prefix} ({t.name})" for t in todos
            if outcomes.get(f"{t.module}.{t.check_function}", {}).get("status") != "pass"]


def explanation(error: BaseException, notebook: str) -> str | None:
    """The one-line explanation for an error caused by an unfinished TODO, or None for any other error."""
    if isinstance(error, NotImplementedError):
        stub = _STUB_MESSAGE.match(str(error))
        if stub:
            hint = " ".join(stub["hint"].split())
            hint = hint if len(hint) <= 120 else hint[:119].rstrip() + "…"
            return (f"⛔ This cell needs TODO {stub['number']}, which is not done yet ({hint}). "
                    "Complete that cell, run its checkpoint, then run this cell again.")
        return None
    if isinstance(error, NameError):
        name = getattr(error, "name", None) or str(error)
        todo = unfinished(notebook)
        if todo:
            return (f"⛔ `{name}` is not defined: the cell that defines it has not run or stopped early. Not passed "
                    f"yet: {', '.join(todo[:3])}. Finish {todo[0]} first, then run the cells after it again.")
        return (f"⛔ `{name}` is not defined: run the cells above this one first (Run → Run All Above Selected "
                "Cell).")
    return None


def explain_unfinished_todos(notebook: str, shell: Any = None) -> bool:
    """Install the one-line explanation in the running IPython kernel (or `shell`); False outside IPython.
    (TodoNeeded needs no handler: it renders itself in one line.)"""
    if shell is None:
        ipython = sys.modules.get("IPython")
        shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return False

    def handler(self, etype, value, tb, tb_offset=None):  # IPython's custom exception signature
        message = explanation(value, notebook)
        if message is None:
            return self.showtraceback((etype, value, tb), tb_offset=tb_offset)
        print(message, file=sys.stderr, flush=True)
        return [message]

    shell.set_custom_exc((NotImplementedError, NameError), handler)
    return True
