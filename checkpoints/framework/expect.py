"""Expectations about values a learner produced (rows, dicts, variables).

Each `expect_*` returns quietly when the expectation holds and otherwise raises CheckpointFailed
with a one-line reason that says what was expected and what was found, plus a hint. Pass `hint=`
to replace the default hint with one specific to the TODO.
"""
from __future__ import annotations

import array
import collections
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Callable, NoReturn

from .outcome import CheckpointFailed

_SHOW = 3  # how many example rows a reason quotes


def fail(reason: str, hint: str | Sequence[str] | None = None, *, nothing_yet: bool = False) -> NoReturn:
    """Fail the running checkpoint with a reason and an optional hint (a str, or escalating hints).

    nothing_yet=True says the TODO's result does not exist yet (not that it is wrong)."""
    raise CheckpointFailed(reason, hint, nothing_yet=nothing_yet)


def expect(condition: object, reason: str, hint: str | Sequence[str] | None = None) -> None:
    """Fail with `reason` unless `condition` is true."""
    if not condition:
        fail(reason, hint)


def expect_filled(value: Any, name: str, hint: str | None = None) -> None:
    """The learner's variable is set: not None (the stub's value) and not `...`."""
    if value is None or value is Ellipsis:
        fail(f"`{name}` is still empty ({value!r})",
             hint or f"Complete the TODO cell that sets `{name}` and run it, then run this checkpoint again.",
             nothing_yet=True)


def _rows(value: Any, what: str) -> list:
    if value is None:
        fail(f"expected {what}, got None", "Make sure your code returns its result (a `return` may be missing).")
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        fail(f"expected a list of {what}, got {type(value).__name__}")
    return list(value)


def _freeze(value: Any, digits: int | None) -> Any:
    """A hashable, comparable form of a fetched value (tuples, dicts, arrays, LOBs, floats rounded)."""
    if isinstance(value, float):
        return round(value, digits) if digits is not None else value
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _freeze(v, digits)) for k, v in value.items()))
    if isinstance(value, (list, tuple, array.array)):
        return tuple(_freeze(v, digits) for v in value)
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        return _freeze(value.tolist(), digits)
    if hasattr(value, "read") and callable(value.read):  # oracledb.LOB
        return value.read()
    return value


def _quote(items: list, limit: int = _SHOW) -> str:
    shown = ", ".join(repr(item) for item in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def expect_rows_equal(actual: Any, expected: Sequence, *, ordered: bool = False, digits: int | None = None,
                      what: str = "rows", hint: str | None = None) -> None:
    """The same rows as `expected` (as a multiset, or in order with ordered=True).

    `digits` rounds floats before comparing (distances and scores differ in the last bits between
    engines).
    """
    got = [_freeze(row, digits) for row in _rows(actual, what)]
    want = [_freeze(row, digits) for row in expected]
    if got == want:
        return
    got_count, want_count = collections.Counter(got), collections.Counter(want)
    if got_count == want_count:
        if ordered:
            position = next(i for i, (g, w) in enumerate(zip(got, want)) if g != w)
            fail(f"the right {what} in the wrong order: position {position + 1} holds {got[position]!r}, "
                 f"expected {want[position]!r}", hint or "Check the ORDER BY clause (and ASC/DESC).")
        return
    extra = list((got_count - want_count).elements())
    missing = list((want_count - got_count).elements())
    parts = [f"expected {len(want)} {what}, got {len(got)}"]
    if missing:
        parts.append(f"missing: {_quote(missing)}")
    if extra:
        parts.append(f"unexpected: {_quote(extra)}")
    fail("; ".join(parts), hint or "Compare your query's filters and joins with the task description.")


def _key_function(key: int | str | Callable[[Any], Any]) -> tuple[Callable[[Any], Any], str]:
    if callable(key):
        return key, getattr(key, "__name__", "the key")
    if isinstance(key, int):
        return (lambda row: row[key]), f"column {key + 1}"
    return (lambda row: row[key] if isinstance(row, Mapping) else getattr(row, key)), repr(key)


def expect_ordered_by(rows: Any, key: int | str | Callable[[Any], Any], *, descending: bool = False,
                      what: str = "rows", hint: str | None = None) -> None:
    """Rows are sorted by `key` (index, dict key/attribute name, or function); NULLs as Oracle sorts them
    (last when ascending, first when descending)."""
    items = _rows(rows, what)
    get, name = _key_function(key)
    values = [get(row) for row in items]
    direction = "descending" if descending else "ascending"
    for position in range(1, len(values)):
        before, after = values[position - 1], values[position]
        if _in_order(before, after, descending):
            continue
        fail(f"{what} are not in {direction} order of {name}: {what[:-1] if what.endswith('s') else what} "
             f"{position + 1} has {after!r} after {before!r}",
             hint or f"Add (or fix) ORDER BY ... {'DESC' if descending else 'ASC'} in your query.")


def _in_order(before: Any, after: Any, descending: bool) -> bool:
    if before is None or after is None:  # Oracle: NULLS LAST for ASC, NULLS FIRST for DESC
        return (after is None) if not descending else (before is None)
    return before >= after if descending else before <= after


def expect_count(rows: Any, *, exactly: int | None = None, at_least: int | None = None, at_most: int | None = None,
                 what: str = "rows", hint: str | None = None) -> None:
    """The number of rows is exactly / at least / at most the given numbers."""
    count = len(_rows(rows, what))
    if exactly is not None and count != exactly:
        fail(f"expected {exactly} {what}, got {count}", hint)
    if at_least is not None and count < at_least:
        fail(f"expected at least {at_least} {what}, got {count}",
             hint or "Your query returns too few rows: check its WHERE clause.")
    if at_most is not None and count > at_most:
        fail(f"expected at most {at_most} {what}, got {count}", hint)


def expect_at_most_k(rows: Any, k: int, *, what: str = "rows", hint: str | None = None) -> None:
    """No more than k rows: the top-k limit was applied."""
    expect_count(rows, at_most=k, what=what,
                 hint=hint or "Limit the result to k rows: FETCH FIRST :k ROWS ONLY at the end of the query.")


def expect_keys(value: Any, keys: Sequence[str], *, what: str = "result", hint: str | None = None) -> None:
    """A dict (or every dict in a list) has all of `keys`."""
    items = [value] if isinstance(value, Mapping) else _rows(value, f"{what}s")
    for position, item in enumerate(items):
        if not isinstance(item, Mapping):
            fail(f"expected each {what} to be a dict, {what} {position + 1} is a {type(item).__name__}", hint)
        missing = [key for key in keys if key not in item]
        if missing:
            where = f"{what} {position + 1}" if len(items) > 1 or not isinstance(value, Mapping) else f"the {what}"
            fail(f"{where} is missing the key(s) {missing} (it has {sorted(map(str, item))})",
                 hint or f"Every {what} needs the keys {list(keys)}.")
