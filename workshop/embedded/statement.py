"""What one statement produces (Result) and what user functions may read while it runs
(StatementState): kept apart from the engine so PL/SQL and the plug-ins need not import it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Result:
    rows: list[tuple] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    column_types: list[str | None] = field(default_factory=list)
    rowcount: int = 0
    returning: list[list[Any]] | None = None
    is_query: bool = False
    column_specs: list = field(default_factory=list)


class StatementState:
    """What user functions may read while one statement runs."""

    def __init__(self):
        self.text_hits: dict[int, dict[int, int]] = {}
        self.model_outputs: dict[int, dict[tuple, Any]] = {}
        self.error: BaseException | None = None
        self.plan = None
        self.collect: dict[int, list[tuple]] | None = None
        self.placeholders: dict[int, Any] = {}
