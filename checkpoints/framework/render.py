"""Showing an outcome: an HTML box in Jupyter, one block of plain text anywhere else."""
from __future__ import annotations

import html
import sys

from .outcome import ERROR, FAIL, PASS, Outcome

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
    lines = [head, f"   {_FIRST_LABEL[outcome.status]}: {outcome.message}"]
    if outcome.hint:
        lines.append(f"   Hint: {outcome.hint}")
    return "\n".join(lines)


def as_html(outcome: Outcome) -> str:
    icon, verdict, color, background = _STYLE[outcome.status]
    label = html.escape(outcome.label)
    parts = [f'<div style="border-left:4px solid {color};background:{background};padding:6px 10px;'
             f'margin:4px 0;color:#1f1f1f">',
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


def show(outcome: Outcome) -> None:
    text = as_text(outcome)
    if in_notebook():
        from IPython.display import display
        display({"text/plain": text, "text/html": as_html(outcome)}, raw=True)
    else:
        print(text, flush=True)
