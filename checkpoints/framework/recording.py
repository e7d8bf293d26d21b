"""Stand-ins that record what the learner's code asks the database (or a vector store) to do.

A result comparison cannot see *how* a result was made: fetching every row and filtering or slicing
in Python, or formatting a value into the SQL text, returns the right rows. A checkpoint hands the
learner's function a recorder instead of the real object and then reads the log:

    recorder = RecordingConnection(conn)
    rows = search_papers(recorder, "memory for chatbots", subject="cs.CL", k=4)
    recorder.statements        # [Statement(sql=..., binds={...}, rows_fetched=4, fetches=[...]), ...]
    recorder.rows_fetched      # 4: the database limited the result, not Python
    recorder.vars              # the out-bind variables made with cursor.var() (RETURNING ... INTO)

    store = RecordingStore(papers_vs)
    docs = search_store(store, "indexes", "cs.DB", k=3)
    store.calls                # [StoreCall(method='similarity_search', k=3, filter={'primary_subject': 'cs.DB'})]
    recording_stores(stores)   # a dict of stores (part 03's five), each wrapped in a RecordingStore

Everything the recorder does not intercept is passed to the real object, so the learner's code
runs unchanged (context managers, iteration, description, var(), setinputsizes(), commit()).
"""
from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import oracledb


@dataclass
class Statement:
    """One execute()/executemany() call and what was fetched from it."""

    sql: str
    binds: Any = None                 # dict (named), list/tuple (positional), list of rows (executemany) or None
    many: bool = False
    input_sizes: dict = field(default_factory=dict)   # bind name (lower case) or position -> declared type
    rows_fetched: int = 0
    fetches: list[tuple[str, int | None]] = field(default_factory=list)   # ("fetchmany", 10), ("fetchall", None)
    arraysize: int | None = None

    def bind_values(self) -> list[Any]:
        """Every bound value (for executemany: every value of every row)."""
        rows = self.binds if self.many else [self.binds]
        values: list[Any] = []
        for row in rows or []:
            if isinstance(row, dict):
                values.extend(row.values())
            elif isinstance(row, (list, tuple)):
                values.extend(row)
        return values


class RecordingCursor:
    """A python-oracledb cursor that logs statements, binds and fetches (see module docstring)."""

    def __init__(self, cursor: oracledb.Cursor, log: list[Statement], out_vars: list[Any] | None = None):
        self._cursor = cursor
        self._log = log
        self._out_vars = out_vars if out_vars is not None else []
        self._current: Statement | None = None
        self._input_sizes: dict = {}

    # -- statements
    def execute(self, statement: str, parameters: Any = None, **kw_parameters: Any) -> Any:
        binds = parameters if parameters is not None else (dict(kw_parameters) if kw_parameters else None)
        self._current = Statement(str(statement), binds, input_sizes=dict(self._input_sizes),
                                  arraysize=getattr(self._cursor, "arraysize", None))
        self._log.append(self._current)
        result = self._cursor.execute(statement, parameters, **kw_parameters)
        return self if result is self._cursor else result

    def executemany(self, statement: str, parameters: Any, **kwargs: Any) -> Any:
        self._current = Statement(str(statement), list(parameters) if not isinstance(parameters, int) else parameters,
                                  many=True, input_sizes=dict(self._input_sizes))
        self._log.append(self._current)
        return self._cursor.executemany(statement, parameters, **kwargs)

    def setinputsizes(self, *args: Any, **kwargs: Any) -> Any:
        # bind names are case-insensitive in Oracle: kept lower case, as Statement.binds are read
        self._input_sizes = {**dict(enumerate(args)), **{name.lower(): v for name, v in kwargs.items()}}
        return self._cursor.setinputsizes(*args, **kwargs)

    def var(self, *args: Any, **kwargs: Any) -> Any:
        """cursor.var(), the variable also kept in the connection's `vars` (read after a RETURNING ... INTO)."""
        variable = self._cursor.var(*args, **kwargs)
        self._out_vars.append(variable)
        return variable

    # -- fetches
    def _fetched(self, kind: str, size: int | None, rows: Any) -> Any:
        if self._current is not None:
            count = 0 if rows is None else (1 if kind in ("fetchone", "iterate") else len(rows))   # one row, or a list
            self._current.rows_fetched += count
            self._current.fetches.append((kind, size))
        return rows

    def fetchone(self) -> Any:
        return self._fetched("fetchone", 1, self._cursor.fetchone())

    def fetchmany(self, size: int | None = None, *args: Any, **kwargs: Any) -> list:
        rows = self._cursor.fetchmany(size, *args, **kwargs) if size is not None else self._cursor.fetchmany()
        return self._fetched("fetchmany", size, rows)

    def fetchall(self) -> list:
        return self._fetched("fetchall", None, self._cursor.fetchall())

    def __iter__(self):
        for row in self._cursor:
            self._fetched("iterate", 1, row)
            yield row

    def __next__(self) -> Any:
        return self._fetched("fetchone", 1, next(self._cursor))

    # -- plumbing
    def __enter__(self) -> RecordingCursor:
        self._cursor.__enter__()
        return self

    def __exit__(self, *exc: Any) -> Any:
        return self._cursor.__exit__(*exc)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._cursor, name, value)


class RecordingConnection:
    """A connection whose cursors record (see module docstring); everything else is the real connection."""

    def __init__(self, conn: oracledb.Connection):
        self._conn = conn
        self.statements: list[Statement] = []
        self.vars: list[Any] = []        # every cursor.var() made through this connection, in order
        self.commits = 0
        self.rollbacks = 0

    def cursor(self, *args: Any, **kwargs: Any) -> RecordingCursor:
        return RecordingCursor(self._conn.cursor(*args, **kwargs), self.statements, self.vars)

    def commit(self) -> None:
        self.commits += 1
        self._conn.commit()

    def rollback(self) -> None:
        self.rollbacks += 1
        self._conn.rollback()

    def __enter__(self) -> RecordingConnection:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None   # the checkpoint owns the real connection: a learner's `with conn:` must not close it

    def close(self) -> None:
        return None   # likewise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    @property
    def rows_fetched(self) -> int:
        return sum(statement.rows_fetched for statement in self.statements)

    def queries(self) -> list[Statement]:
        """The statements that were queries (SELECT / WITH), in order."""
        from .sql import statement_kind
        return [s for s in self.statements if statement_kind(s.sql) == "SELECT"]


@dataclass
class StoreCall:
    """One call of a vector-store method: its name, k and filter as the store received them."""

    method: str
    args: tuple
    kwargs: dict
    k: int | None = None
    filter: Any = None
    result_count: int | None = None


#: Vector-store methods whose calls are recorded (langchain's VectorStore API and OracleVS's extras).
RECORDED_METHODS = frozenset({
    "similarity_search", "similarity_search_with_score", "similarity_search_by_vector",
    "similarity_search_by_vector_with_relevance_scores", "similarity_search_with_relevance_scores",
    "max_marginal_relevance_search", "max_marginal_relevance_search_by_vector", "as_retriever", "invoke",
    "add_texts", "add_documents", "delete", "get_by_ids", "search",
})


class RecordingStore:
    """A vector store (e.g. OracleVS) that records each search/write call with its k and filter."""

    def __init__(self, store: Any):
        self._store = store
        self.calls: list[StoreCall] = []

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._store, name)
        if name not in RECORDED_METHODS or not callable(value):
            return value

        def recorded(*args: Any, **kwargs: Any) -> Any:
            bound = _bind(value, args, kwargs)
            call = StoreCall(name, args, kwargs, k=bound.get("k"), filter=bound.get("filter"))
            self.calls.append(call)
            result = value(*args, **kwargs)
            if isinstance(result, list):
                call.result_count = len(result)
            return result
        return recorded

    def searches(self) -> list[StoreCall]:
        return [call for call in self.calls if "search" in call.method]


def recording_stores(stores: Mapping[str, Any]) -> dict[str, RecordingStore]:
    """The same stores by the same keys, each wrapped in a RecordingStore (for code that takes a dict of stores)."""
    return {key: RecordingStore(store) for key, store in stores.items()}


def _bind(function: Any, args: tuple, kwargs: dict) -> dict:
    """The call's arguments by parameter name (k, filter, ...), as far as the signature tells."""
    try:
        bound = inspect.signature(function).bind_partial(*args, **kwargs)
    except (TypeError, ValueError):
        return dict(kwargs)
    named = dict(bound.arguments)
    named.update(named.pop("kwargs", {}) or {})
    return named
