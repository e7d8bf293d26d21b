"""Context engineering: one bounded block of text assembled from every kind of memory.

`assemble_context` is pure: it takes candidate lines per section (already ranked) and a token
budget, and fills the sections in priority order. Each section may use its share of the budget
plus whatever earlier sections left unused, so an empty section never wastes room and a long one
never starves the rest. Conversation turns are kept newest first (the oldest are dropped first)
and shown oldest first; the other sections keep their ranking (nearest first). A line that does
not fit is shortened with '…' if at least MIN_LINE_TOKENS remain, else the section stops.

The result never exceeds the budget in `tokens.estimate_tokens` units (the whole text, headers
and newlines included).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .tokens import estimate_tokens, truncate_to_tokens

#: Section key -> (heading, share of the budget), in priority order.
SECTIONS: dict[str, tuple[str, float]] = {
    "conversation": ("Conversation so far", 0.35),
    "summary": ("Earlier in this thread (summaries)", 0.10),
    "knowledge": ("Knowledge", 0.20),
    "entity": ("Entities", 0.10),
    "workflow": ("Workflows that worked before", 0.15),
    "toolbox": ("Tools you can call", 0.10),
}
DEFAULT_BUDGET = 1500
MIN_LINE_TOKENS = 8


@dataclass(frozen=True)
class Section:
    key: str
    heading: str
    lines: tuple[str, ...]   # what made it into the context, in display order
    available: int           # candidate lines there were
    tokens: int              # estimated tokens this section uses (heading and newlines included)


@dataclass(frozen=True)
class Context:
    text: str
    sections: tuple[Section, ...]
    budget: int

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)

    def usage(self) -> dict:
        """{"tokens", "budget", "percent"} (percent of the budget used, one decimal)."""
        return {"tokens": self.tokens, "budget": self.budget,
                "percent": round(100.0 * self.tokens / self.budget, 1) if self.budget else 0.0}

    def as_frame(self):
        """One row per section: key, lines used, lines available, tokens (a pandas DataFrame)."""
        import pandas as pd
        return pd.DataFrame([{"section": s.key, "lines used": len(s.lines), "lines available": s.available,
                              "tokens": s.tokens} for s in self.sections])

    def __str__(self) -> str:
        return self.text


def _line_cost(line: str) -> int:
    return estimate_tokens(line + "\n")


def _fill(candidates: Sequence[str], allowance: int) -> tuple[list[str], int]:
    """Lines taken from the front of `candidates` within `allowance` tokens; (lines, tokens used)."""
    taken: list[str] = []
    used = 0
    for line in candidates:
        flat = " ".join(str(line).split())
        if not flat:
            continue
        cost = _line_cost(flat)
        if used + cost <= allowance:
            taken.append(flat)
            used += cost
            continue
        room = allowance - used - 1  # one token kept for the newline
        if room >= MIN_LINE_TOKENS:
            cut = truncate_to_tokens(flat, room)
            taken.append(cut)
            used += _line_cost(cut)
        break
    return taken, used


def assemble_context(candidates: Mapping[str, Sequence[str]], budget: int = DEFAULT_BUDGET, *,
                     headings: Mapping[str, str] | None = None) -> Context:
    """Build the context text from ranked candidate lines per section (see the module docstring).

    `candidates` keys must be SECTIONS keys; the conversation lines are given oldest first.
    """
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ValueError(f"budget must be a positive int (tokens), got {budget!r}")
    unknown = set(candidates) - set(SECTIONS)
    if unknown:
        raise ValueError(f"unknown context sections {sorted(unknown)}; expected some of {list(SECTIONS)}")
    sections: list[Section] = []
    carried = 0
    for key, (default_heading, share) in SECTIONS.items():
        allowance = int(budget * share) + carried
        lines = list(candidates.get(key, ()))
        heading = f"### {(headings or {}).get(key, default_heading)}"
        heading_cost = _line_cost(heading)
        if not lines or allowance < heading_cost + MIN_LINE_TOKENS:
            carried = allowance
            sections.append(Section(key, heading[4:], (), len(lines), 0))
            continue
        ranked = list(reversed(lines)) if key == "conversation" else lines
        taken, used = _fill(ranked, allowance - heading_cost)
        if key == "conversation":
            taken.reverse()
        cost = heading_cost + used if taken else 0
        carried = allowance - cost
        sections.append(Section(key, heading[4:], tuple(taken), len(lines), cost))
    text = "\n".join(f"### {s.heading}\n" + "\n".join(s.lines) for s in sections if s.lines)
    return Context(text, tuple(sections), budget)
