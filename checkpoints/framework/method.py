"""Expectations about *how* the learner's code got its result, read from a recorder's log (recording.py).

Each returns quietly or fails with a reason that names the wrong method and a hint that names the
right one, like the value expectations in expect.py.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .expect import fail
from .recording import RecordingConnection, RecordingStore
from .sql import formatted_values, statement_kind


def expect_queried(recorder: RecordingConnection, call: str, hint: str | None = None) -> None:
    """The function ran at least one query through the connection it was given."""
    if not recorder.queries():
        fail(f"{call} ran no query on the connection it was given",
             hint or "Use the `conn` argument: with conn.cursor() as cur: cur.execute(sql, binds).")


def expect_bound(recorder: RecordingConnection, values: Mapping[str, Any], call: str,
                 hint: str | None = None) -> None:
    """None of `values` (name -> the probe value passed in) is written into the SQL text: they are bound."""
    written = formatted_values(recorder.statements, values)
    if written:
        shown = ", ".join(f"{name}={value!r}" for name, value in written.items())
        fail(f"{call} writes {shown} into the SQL text instead of binding {'it' if len(written) == 1 else 'them'}",
             hint or ("Pass values as binds: put :" + next(iter(written)) + " in the SQL and the value in "
                      "cur.execute(sql, {...}). Formatted values break on quotes (It's), let SQL injection in, "
                      "and make the database parse a new statement for every value."))


def expect_database_limits(recorder: RecordingConnection, expected_rows: int, call: str,
                           hint: str | None = None) -> None:
    """The database returned no more rows than the answer needs: filtering and top-k happen in SQL, not in Python
    (fetching everything and slicing or filtering the list gives the same rows, and moves the whole table)."""
    fetched = sum(s.rows_fetched for s in recorder.statements if statement_kind(s.sql) == "SELECT")
    if fetched > expected_rows:
        fail(f"{call} fetched {fetched} rows from the database to return {expected_rows}: the filtering or the "
             "top-k happens in Python",
             hint or "Let the database do it: the filter in WHERE, the limit with FETCH FIRST :k ROWS ONLY.")


def expect_store_searched(store: RecordingStore, call: str, *, k: int | None = None,
                          filter: Mapping[str, Any] | None = None, hint: str | None = None) -> None:
    """The function searched the store once per call with k (and the metadata filter) passed to the store."""
    searches = store.searches()
    if not searches:
        fail(f"{call} never searched the store it was given", hint or "Call store.similarity_search(...).")
    last = searches[-1]
    if k is not None and last.k != k:
        fail(f"{call} asked the store for k={last.k!r}, expected k={k}",
             hint or "Pass k=k to the search, so the store returns k documents (not its default of 4).")
    if filter is not None and not _filter_includes(last.filter, filter):
        fail(f"{call} searched with filter={last.filter!r}; the store must filter on {dict(filter)!r}",
             hint or "Pass filter={...} to the search: the database filters before it takes the top k.")


def _filter_includes(given: Any, wanted: Mapping[str, Any]) -> bool:
    """The store's filter asks for each wanted key = value (plain equality, or {'$eq': value}, or inside $and)."""
    if not isinstance(given, Mapping):
        return False
    if "$and" in given and isinstance(given["$and"], list):
        return all(any(_filter_includes(part, {k: v}) for part in given["$and"]) for k, v in wanted.items())
    for key, value in wanted.items():
        got = given.get(key)
        if isinstance(got, Mapping):
            got = got.get("$eq", got.get("$in", [None])[0] if isinstance(got.get("$in"), list)
                          and len(got["$in"]) == 1 else None)
        if got != value:
            return False
    return True
