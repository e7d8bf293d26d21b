"""Showing an outcome: an HTML box in Jupyter for a pass, one block of plain text anywhere else.

A failure is shown once: inside a notebook (and in terminal IPython) the raised exception's
`_render_traceback_` is the message, so nothing is displayed before it; in a plain script or
under pytest it is printed, then raised.
"""
from __future__ import annotations

import html
import sys

from .outcome import ERROR, FAIL, PASS, CheckpointFailed, Outcome, wrap

_STYLE = {
    PASS: ("✅", "passed", "#1a7f37", "#e6f4ea"),
    FAIL: ("❌", "not yet", "#b3261e", "#fdecea"),
    ERROR: ("⚠️", "the check could not run", "#8a4b00", "#fff4e5"),
}
_FIRST_LABEL = {PASS: "", FAIL: "Why", ERROR: "Error"}


def as_text(outcome: Outcome) -> str:
    icon, verdict, _, _ = _STYLE[outcome.status]
    head = f"{icon} {outcome.label} — {verdict}" if outcome.label else f"{icon} {verdict}"
    if outcome.status == PASS:
        return f"{head} ({outcome.message})" if outcome.message else head
    lines = [head, *wrap(_FIRST_LABEL[outcome.status], outcome.message)]
    if outcome.hint:
        lines += wrap("Hint", outcome.hint)
    return "\n".join(lines)


def as_html(outcome: Outcome) -> str:
    icon, verdict, color, background = _STYLE[outcome.status]
    label = html.escape(outcome.label)
    parts = [f'<div style="border-left:4px solid {color};background:{background};padding:6px 10px;'
             f'margin:4px 0;color:#1f1f1f;white-space:normal;overflow-wrap:anywhere">',
             f'<strong style="color:{color}">{icon} {label}</strong> — {html.escape(verdict)}']
    if outcome.status == PASS:
        if outcome.message:
            parts.append(f" <span>({html.escape(outcome.message)})</span>")
    else:
        parts.append(f"<div><strong>{_FIRST_LABEL[outcome.status]}:</strong> {html.escape(outcome.message)}</div>")
        if outcome.hint:
            parts.append(f"<div><strong>Hint:</strong> {html.escape(outcome.hint)}</div>")
    parts.append("</div>")
    return "".join(parts)


def in_notebook() -> bool:
    """True inside a Jupyter kernel (where HTML displays), False in scripts, pytest and terminal IPython."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell is not None and getattr(shell, "kernel", None) is not None


def in_ipython() -> bool:
    """True when IPython runs the code (a kernel or the terminal shell): it renders the raised failure itself."""
    ipython = sys.modules.get("IPython")
    return ipython is not None and ipython.get_ipython() is not None


def show(outcome: Outcome) -> None:
    text = as_text(outcome)
    if in_notebook():
        from IPython.display import display
        display({"text/plain": text, "text/html": as_html(outcome)}, raw=True)
    else:
        print(text, flush=True)


def show_failure(failure: CheckpointFailed) -> None:
    """A failure about to be raised: printed only where nothing else would show it (scripts, pytest)."""
    if not in_ipython():
        print(as_text(failure.outcome()), flush=True)
