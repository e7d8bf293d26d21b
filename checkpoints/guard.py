"""One line instead of a traceback when a cell fails because a TODO is not finished yet.

A skipped TODO breaks the cells that use it: the stub's `NotImplementedError("TODO 2: ...")`, or a
`NameError` for a variable that a cell stopped before defining (`by_intent`). In a Jupyter kernel,
`explain_unfinished_todos(NOTEBOOK)` (run in a notebook's first cells) makes both print one line that
names the TODO to finish; every other error keeps its normal traceback.

    from checkpoints.guard import explain_unfinished_todos
    explain_unfinished_todos("02_retrieval_strategies.ipynb")

(Written for parts 02 and 03; it reads the framework's progress log and notebook registry, and could move
into checkpoints.framework.)
"""
from __future__ import annotations

import re
import sys
from typing import Any

_STUB = re.compile(r"^TODO (?P<number>\d+): (?P<hint>.*)", re.S)


class TodoNeeded(Exception):
    """Raised by needs(): the cell uses the result of a TODO whose checkpoint has not passed."""


def unfinished(notebook: str) -> list[str]:
    """'TODO n (name)' for every TODO of the notebook whose checkpoint has not passed (per the progress log)."""
    from .framework.progress_log import last_outcomes
    from .framework.registry import notebook_todos
    try:
        outcomes = last_outcomes()
        todos = notebook_todos(notebook)
    except Exception:  # noqa: BLE001 - the guard must never raise on top of the learner's error
        return []
    return [f"{t.label_prefix} ({t.name})" for t in todos
            if outcomes.get(f"{t.module}.{t.check_function}", {}).get("status") != "pass"]


def needs(notebook: str, *names: str) -> None:
    """Stop a cell that uses the result of TODOs `names` before their checkpoints have passed, with one line that
    names them (per the progress log; without a log, e.g. WORKSHOP_PROGRESS_FILE=off, nothing is stopped)."""
    from .framework.progress_log import log_path
    if log_path() is None:
        return
    missing = [ref for ref in unfinished(notebook) if ref.split("(")[-1].rstrip(")") in names]
    if missing:
        which = "it (until its checkpoint passes)" if len(missing) == 1 else "them (until their checkpoints pass)"
        raise TodoNeeded(f"⛔ This cell needs {', '.join(missing)}: finish {which}, then run this cell again.")


def explanation(error: BaseException, notebook: str) -> str | None:
    """The one-line explanation for an error caused by an unfinished TODO, or None for any other error."""
    if isinstance(error, TodoNeeded):
        return str(error)
    if isinstance(error, NotImplementedError):
        stub = _STUB.match(str(error))
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
    """Install the handler in the running IPython kernel (or `shell`); False outside IPython."""
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

    shell.set_custom_exc((NotImplementedError, NameError, TodoNeeded), handler)
    return True
