"""Python-side state of the lesson code that `reset_part` must clear along with the part's tables.

A notebook's setup cell runs `reset_part(n)` so that "Run All" works again in the same kernel. Dropping the
part's tables is not enough when lesson code keeps something in a module global that points at them: part 04's
fact mirrors (`workshop.knowledge.facts._MIRRORS`) held the previous run's store and connection, and the second
Run All failed with DPY-1001 or ORA-00942. A lesson module that keeps such state registers a function that
clears it, with the parts whose reset must call it; `tests/tooling/test_lesson_state.py` scans the lesson
packages and fails when a module-level mutable object appears that is neither registered here nor listed there
as a constant.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class LessonState:
    name: str                      # "workshop.knowledge.facts._MIRRORS": module and global
    parts: tuple[int, ...]         # reset_part(n) for any of these clears it
    clear: Callable[[], None]


#: The registry itself (the one module-level mutable object outside the lessons; it holds functions only).
_REGISTERED: dict[str, LessonState] = {}


def register(module: str, name: str, parts: Iterable[int], clear: Callable[[], None]) -> None:
    """Declare `module.name` as state that `reset_part(p)` clears (p in `parts`) by calling `clear()`.
    Registering the same name again replaces the entry (a module reloaded in a kernel registers again)."""
    parts = tuple(parts)
    if not parts:
        raise ValueError(f"{module}.{name}: say which parts' reset clears it")
    _REGISTERED[f"{module}.{name}"] = LessonState(f"{module}.{name}", parts, clear)


def registered() -> tuple[LessonState, ...]:
    """Every registration, in name order (only of the lesson modules imported so far)."""
    return tuple(_REGISTERED[k] for k in sorted(_REGISTERED))


def clear_for_part(part: int) -> list[str]:
    """Clear the state `reset_part(part)` owns; returns the names cleared."""
    cleared = []
    for state in registered():
        if part in state.parts:
            state.clear()
            cleared.append(state.name)
    return cleared
