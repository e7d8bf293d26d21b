"""Running a checkpoint: the `@checkpoint(...)` decorator and the `check(...)` context manager.

Both run the checks, show PASS/FAIL/ERROR (render.show) and, on failure, raise CheckpointFailed
(or CheckpointError) so that "Run All" stops at the first unfinished TODO and nbval marks the
cell as failed, with the friendly message as the whole traceback.
"""
from __future__ import annotations

import functools
import traceback
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Callable, Iterator, TypeVar

import oracledb

from .outcome import PASS, CheckpointError, CheckpointFailed, Outcome
from .render import show

F = TypeVar("F", bound=Callable[..., object])

NOT_IMPLEMENTED_HINT = ("Replace the `raise NotImplementedError(...)` line in the TODO cell with your code, run that "
                        "cell, then run this checkpoint again.")
UNEXPECTED_HINT = ("Run your code on its own to see the full error, fix it, re-run the TODO cell, then run this "
                   "checkpoint again.")

#: Hints for the Oracle (and python-oracledb DPY-) errors learners meet most.
ORA_HINTS = {
    "ORA-00942": "A table or view does not exist (yet): run the cell that creates it, and check the name. Unquoted "
                 "names are stored in upper case.",
    "ORA-00904": "A column name is wrong: compare it with the table definition (USER_TAB_COLUMNS).",
    "ORA-00955": "The name is already used by an existing object: drop it first, or use CREATE ... IF NOT EXISTS.",
    "ORA-00054": "Another notebook or session has an uncommitted transaction: run conn.commit() or conn.rollback() "
                 "there, then try again.",
    "ORA-01400": "A NOT NULL column got no value (in Oracle '' is NULL): supply every required column.",
    "ORA-12899": "A value is longer than its column allows: check the VARCHAR2 length in your CREATE TABLE.",
    "ORA-01438": "A number is larger than the column's NUMBER(p, s) allows.",
    "ORA-51803": "The vector's dimension count does not match the column's VECTOR(n, ...): embed with the model the "
                 "column was created for.",
    "ORA-00001": "A row with the same key already exists: use MERGE, or delete the old row first.",
    "ORA-03001": "The embedded engine does not implement this construct: use the supported subset "
                 "(docs/embedded-engine.md) or run against Oracle AI Database.",
    "ORA-00933": "The SQL statement is not properly ended: look for a stray clause or a ';' at the end of the string.",
    "ORA-00936": "An expression is missing in the SQL statement: look for an empty select list or a dangling comma.",
    "DPY-1001": "The connection is closed: re-run the cell that opens it (conn = connect()).",
}
ORA_DEFAULT_HINT = "Read the Oracle message, fix the statement in the TODO cell, run it again, then this checkpoint."


@dataclass
class CheckContext:
    """Handed to the body of `with check(...) as ctx`; set ctx.detail for the PASS line."""

    label: str
    detail: str = ""


def database_hint(exc: oracledb.Error) -> str:
    error = exc.args[0] if exc.args else None
    code = getattr(error, "full_code", "") or ""
    return ORA_HINTS.get(code, ORA_DEFAULT_HINT)


def as_failure(exc: Exception, label: str, hint: str | None = None) -> CheckpointFailed:
    """Translate whatever a check raised into the friendly exception that is shown and raised."""
    if isinstance(exc, CheckpointFailed):
        exc.label = exc.label or label
        exc.hint = exc.hint or hint or ""
        return exc
    if isinstance(exc, NotImplementedError) and str(exc).startswith("TODO"):  # the generated stub's own raise
        return CheckpointFailed(f"not done yet: the code still raises NotImplementedError ({exc})",
                                NOT_IMPLEMENTED_HINT, label)
    if isinstance(exc, oracledb.Error):
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return CheckpointError(first_line, database_hint(exc), label)
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (in {frames[-1].name}, line {frames[-1].lineno})" if frames else ""
    return CheckpointError(f"{type(exc).__name__}: {exc}{where}", UNEXPECTED_HINT, label)


@contextmanager
def check(label: str, *, hint: str | None = None) -> Iterator[CheckContext]:
    """`with check("TODO 2: ...") as ctx:` runs the block as a checkpoint (see module docstring).

    `hint` is used for failures that do not bring their own hint.
    """
    context = CheckContext(label)
    try:
        yield context
    except Exception as exc:
        failure = as_failure(exc, label, hint)
        show(failure.outcome())
        if failure is exc:
            raise
        raise failure from exc
    show(Outcome(PASS, label, context.detail))


def checkpoint(label: str, *, hint: str | None = None) -> Callable[[F], F]:
    """Decorate a check function; calling it runs the checks as a checkpoint and returns None.

    The function may return a short string, shown on the PASS line ("3 rows, nearest first").
    """
    def decorate(function: F) -> F:
        @functools.wraps(function)
        def run(*args, **kwargs) -> None:
            with check(label, hint=hint) as context:
                detail = function(*args, **kwargs)
                if detail is not None and not isinstance(detail, str):
                    raise TypeError(f"checkpoint {function.__name__} returned {type(detail).__name__}; "
                                    "return None or a short str")
                context.detail = detail or ""
        run.label = label  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]
    return decorate
