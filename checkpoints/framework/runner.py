"""Running a checkpoint: the `@checkpoint(...)` decorator and the `check(...)` context manager.

Both run the checks, show PASS/FAIL/ERROR (render.show) and, on failure, raise CheckpointFailed
(or CheckpointError) so that "Run All" stops at the first unfinished TODO and nbval marks the
cell as failed, with the friendly message as the whole traceback.
"""
from __future__ import annotations

import functools
import inspect
import re
import sys
import traceback
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, TypeVar, Union

import oracledb

from . import escalation, progress_log, registry
from .outcome import PASS, CheckpointError, CheckpointFailed, Outcome, hint_levels
from .render import show, show_failure

HintText = Union[str, Sequence[str], None]

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


def as_failure(exc: Exception, label: str, hint: HintText = None) -> CheckpointFailed:
    """Translate whatever a check raised into the friendly exception that is shown and raised."""
    if isinstance(exc, CheckpointFailed):
        exc.label = exc.label or label
        if not exc.hint_levels and hint:
            exc.set_hint(hint)
        return exc
    if isinstance(exc, NotImplementedError) and str(exc).startswith("TODO"):  # the generated stub's own raise
        return CheckpointFailed(f"not done yet: the code still raises NotImplementedError ({exc})",
                                NOT_IMPLEMENTED_HINT, label, nothing_yet=True)
    if isinstance(exc, oracledb.Error):
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return CheckpointError(first_line, database_hint(exc), label)
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (in {frames[-1].name}, line {frames[-1].lineno})" if frames else ""
    return CheckpointError(f"{type(exc).__name__}: {exc}{where}", UNEXPECTED_HINT, label)


_NUMBERED_TITLE = re.compile(r"^\s*TODO\s+\d+\b")
_FRAMEWORK = Path(__file__).resolve().parent


def failure_kind(exc: BaseException) -> str:
    """What kind of failure this is, for escalation: the line that raised it outside the framework (the check's
    expectation that failed, or the line of the learner's code that raised), with the exception's type."""
    if isinstance(exc, NotImplementedError) and str(exc).startswith("TODO"):
        return "stub"
    site = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve().parent != _FRAMEWORK:
            site = f"{Path(frame.filename).name}:{frame.lineno}"
    return f"{type(exc).__name__}@{site}"


@contextmanager
def check(label: str, *, hint: HintText = None, key: str | None = None,
          on_outcome: Callable[[CheckpointFailed | None, str], None] | None = None) -> Iterator[CheckContext]:
    """`with check("an inline check") as ctx:` runs the block as a checkpoint (see module docstring).

    `hint` is used for failures that do not bring their own hint (a str, or a sequence of hints that
    escalate: the first failure shows the first, each repeated failure of the same check the next).
    `key` identifies the check for escalation (default: the label); `on_outcome(failure, detail)` is
    told the outcome, failure None on a pass (the decorator records it for checkpoints.progress).
    """
    context = CheckContext(label)
    key = key or label
    try:
        yield context
    except Exception as exc:
        own = exc.hint_levels if isinstance(exc, CheckpointFailed) else []
        failure = as_failure(exc, label, hint)
        if not own and not (isinstance(exc, CheckpointFailed) and exc is failure):
            own = failure.hint_levels             # the hint as_failure chose: the ORA- error's, the stub's
        levels = escalation.levels_for(own, hint_levels(hint), nothing_yet=failure.nothing_yet)
        failure.hint_levels = levels
        failure.hint = escalation.choose(escalation.kind_key(key, failure_kind(exc)), levels)
        if on_outcome is not None:
            on_outcome(failure, failure.reason)
        show_failure(failure)
        if failure is exc:
            raise
        raise failure from exc
    escalation.reset(key)
    if on_outcome is not None:
        on_outcome(None, context.detail)
    show(Outcome(PASS, label, context.detail))


def checkpoint(title: str, *, hint: HintText = None,
               live: Callable[[oracledb.Connection], str | None] | bool | None = None) -> Callable[[F], F]:
    """Decorate the check of one TODO; calling it runs the checks as a checkpoint and returns None.

    In a part module (one that declares NOTEBOOK), the function is named check_<todo name> and the
    title carries no number: the label "TODO 3: <title>" is numbered from the notebook at call time
    (checkpoints.framework.registry). `hint` may be a sequence of escalating hints. `live` says how
    `checkpoints.progress` can judge the TODO from the database alone: True when the check takes
    only the connection, a function of the connection for a database-only variant, None when only
    the last outcome recorded in the notebook can tell.

    The function may return a short string, shown on the PASS line ("3 rows, nearest first").
    """
    def decorate(function: F) -> F:
        module = sys.modules.get(function.__module__)
        todo_name = None
        if getattr(module, "NOTEBOOK", None) is not None:
            if not function.__name__.startswith(registry.CHECK_PREFIX):
                raise ValueError(f"{function.__module__}.{function.__name__}: a part's checkpoint is named "
                                 f"{registry.CHECK_PREFIX}<todo name>")
            if _NUMBERED_TITLE.match(title):
                raise ValueError(f"{function.__module__}.{function.__name__}: the title {title!r} carries a TODO "
                                 "number; the number comes from the notebook, write the title only")
            todo_name = function.__name__[len(registry.CHECK_PREFIX):]
        only_conn = list(inspect.signature(function).parameters) == ["conn"]
        live_check = (function if only_conn else None) if live is None or live is True else (live or None)

        def label() -> str:
            entry = registry.entry_for(function.__module__, todo_name) if todo_name else None
            return f"{entry.label_prefix}: {title}" if entry else title

        @functools.wraps(function)
        def run(*args, **kwargs) -> None:
            conn = next((a for a in args if isinstance(a, oracledb.Connection)), kwargs.get("conn"))

            def remember(failure: CheckpointFailed | None, message: str) -> None:
                if todo_name is not None:
                    progress_log.record(run.key, failure.status if failure else PASS, message, conn,
                                        nothing_yet=bool(failure and failure.nothing_yet))

            with check(label(), hint=hint, key=run.key, on_outcome=remember) as context:
                detail = function(*args, **kwargs)
                if detail is not None and not isinstance(detail, str):
                    raise TypeError(f"checkpoint {function.__name__} returned {type(detail).__name__}; "
                                    "return None or a short str")
                context.detail = detail or ""
        run.title = title  # type: ignore[attr-defined]
        run.todo_name = todo_name  # type: ignore[attr-defined]
        run.key = f"{function.__module__}.{function.__name__}"  # type: ignore[attr-defined]
        run.live = live_check  # type: ignore[attr-defined]
        run.label_now = label  # type: ignore[attr-defined]
        run.hint_levels = hint_levels(hint)  # type: ignore[attr-defined]
        if todo_name is None:
            run.label = title  # type: ignore[attr-defined]
        return run  # type: ignore[return-value]
    return decorate
