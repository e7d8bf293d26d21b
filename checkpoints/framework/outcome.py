"""What a checkpoint concludes: the exceptions a failed check raises and the outcome it shows.

`CheckpointFailed` is an *expected* failure (the learner's work is not right yet): its message is
one friendly reason plus a hint, never a traceback. `CheckpointError` is a check that could not run
(a database error, an exception in the learner's code); it shows the error's own message (the ORA-
line) with a hint. Both render through IPython's `_render_traceback_` hook, so Jupyter and nbval
show the friendly text instead of a stack; set WORKSHOP_CHECKPOINT_DEBUG=1 to see the stack.
"""
from __future__ import annotations

import os
import traceback
from dataclasses import dataclass

PASS, FAIL, ERROR = "pass", "fail", "error"


@dataclass(frozen=True)
class Outcome:
    status: str          # pass | fail | error
    label: str           # "TODO 1: create the RESEARCH_CHUNKS table"
    message: str = ""    # pass: optional detail; fail: the reason; error: the error message
    hint: str = ""


class CheckpointFailed(Exception):
    """The learner's work does not pass yet (expected failure: reason + hint, no traceback)."""

    status = FAIL

    def __init__(self, reason: str, hint: str | None = None, label: str | None = None):
        super().__init__(reason)
        self.reason = reason
        self.hint = hint or ""
        self.label = label or ""

    def outcome(self) -> Outcome:
        return Outcome(self.status, self.label, self.reason, self.hint)

    def __str__(self) -> str:
        text = f"{self.label}: {self.reason}" if self.label else self.reason
        return f"{text} (Hint: {self.hint})" if self.hint else text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def _render_traceback_(self) -> list[str]:
        """IPython calls this instead of printing a stack (Jupyter, nbval)."""
        if os.environ.get("WORKSHOP_CHECKPOINT_DEBUG"):
            return "".join(traceback.format_exception(self)).splitlines()
        return [f"{type(self).__name__}: {self}"]


class CheckpointError(CheckpointFailed):
    """The check could not run: a database error or an exception in the code it checks."""

    status = ERROR
