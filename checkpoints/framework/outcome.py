"""What a checkpoint concludes: the exceptions a failed check raises and the outcome it shows.

`CheckpointFailed` is an *expected* failure (the learner's work is not right yet): its message is
one friendly reason plus a hint, never a traceback. `CheckpointError` is a check that could not run
(a database error, an exception in the learner's code); it shows the error's own message (the ORA-
line) with a hint. Both render through IPython's `_render_traceback_` hook: in Jupyter and nbval the
failure is *one* block, the label, the reason and the hint wrapped to the notebook's width (no box
above it repeating the same text); set WORKSHOP_CHECKPOINT_DEBUG=1 to see the stack instead.

A hint may be a sequence of hints that escalate (see escalation.py): the first names the concept
and where to read about it, later ones get more specific when the same check fails again.
"""
from __future__ import annotations

import os
import textwrap
import traceback
from collections.abc import Sequence
from dataclasses import dataclass

PASS, FAIL, ERROR = "pass", "fail", "error"
#: Width of a failure message: JupyterLab shows about 100 characters of an output line before it scrolls.
WRAP_WIDTH = 96


@dataclass(frozen=True)
class Outcome:
    status: str          # pass | fail | error
    label: str           # "TODO 1: create the RESEARCH_CHUNKS table"
    message: str = ""    # pass: optional detail; fail: the reason; error: the error message
    hint: str = ""


def hint_levels(hint: str | Sequence[str] | None) -> list[str]:
    """A hint as its list of escalating levels ([] for none)."""
    if not hint:
        return []
    if isinstance(hint, str):
        return [hint]
    return [h for h in hint if h]


class CheckpointFailed(Exception):
    """The learner's work does not pass yet (expected failure: reason + hint, no traceback)."""

    status = FAIL

    def __init__(self, reason: str, hint: str | Sequence[str] | None = None, label: str | None = None, *,
                 nothing_yet: bool = False):
        super().__init__(reason)
        self.reason = reason
        self.label = label or ""
        #: True when the TODO's result does not exist yet (a stub, a missing table): progress shows "not yet",
        #: not "failing", and tells "nothing written" from "written wrong".
        self.nothing_yet = nothing_yet
        self.hint_levels: list[str] = []
        self.hint = ""
        self.set_hint(hint)

    def set_hint(self, hint: str | Sequence[str] | None) -> None:
        self.hint_levels = hint_levels(hint)
        self.hint = self.hint_levels[0] if self.hint_levels else ""

    def outcome(self) -> Outcome:
        return Outcome(self.status, self.label, self.reason, self.hint)

    def __str__(self) -> str:
        text = f"{self.label}: {self.reason}" if self.label else self.reason
        return f"{text} (Hint: {self.hint})" if self.hint else text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def _render_traceback_(self) -> list[str]:
        """IPython calls this instead of printing a stack (Jupyter, nbval): the one message of the failure."""
        if os.environ.get("WORKSHOP_CHECKPOINT_DEBUG"):
            return "".join(traceback.format_exception(self)).splitlines()
        from .render import as_text
        return as_text(self.outcome()).splitlines()


class CheckpointError(CheckpointFailed):
    """The check could not run: a database error or an exception in the code it checks."""

    status = ERROR


def wrap(label: str, text: str, indent: str = "   ") -> list[str]:
    """`label: text` wrapped to WRAP_WIDTH, continuation lines indented under the text."""
    first = f"{indent}{label}: "
    return textwrap.wrap(text, WRAP_WIDTH, initial_indent=first, subsequent_indent=" " * len(first),
                         break_long_words=False, break_on_hyphens=False) or [first.rstrip()]
