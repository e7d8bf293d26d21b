"""Stand-ins that record what a learner's function asks the database (or a vector store) to do.

A result comparison cannot tell a right answer from the right rows reached by the wrong method: all
rows fetched and sliced in Python, the id read back with MAX(id), a value formatted into the SQL
text. These wrappers pass every call through to the real object and write down what was asked:

    recorder = RecordingConnection(conn)
    rows = vector_search(recorder, "a question", k=3)
    recorder.statements[-1].sql, .binds, .fetched      # what ran, with which binds, how many rows came back

    store = RecordingStore(stores["knowledge_base"])
    read_knowledge({"knowledge_base": store}, "q", k=2, filter=...)
    store.calls                                        # [StoreCall("similarity_search_with_score", args, kwargs)]

(Written for parts 02 and 03; the framework's own recording proxies can replace these when they land.)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import oracledb
import sqlglot
from sqlglot.tokens import TokenType


@dataclass
class Statement:
    """One execute()/executemany() call: the SQL, its binds, declared input types, rows fetched."""

    sql: str
    binds: dict | list | None
    input_sizes: dict = field(default_factory=dict)   # bind name (lower case) or position -> declared type
    many: bool = False
    fetched: int = 0

    @property
    def kind(self) -> str:
        """The statement's first keyword, upper case (SELECT, INSERT, WITH, ...); '' when it has none."""
        return first_keyword(self.sql)

    def bind_values(self) -> list[Any]:
        """Every value bound (for executemany: of every row)."""
        rows = self.binds if self.many else [self.binds]
        values: list[Any] = []
        for row in rows or []:
            if isinstance(row, dict):
                values.extend(row.values())
            elif isinstance(row, (list, tuple)):
                values.extend(row)
        return values

    def named_binds(self) -> dict[str, Any]:
        """Binds by lower-case name (a dict bind, or keyword binds); {} for positional binds."""
        return {str(k).lower(): v for k, v in self.binds.items()} if isinstance(self.binds, dict) else {}


def first_keyword(sql: Any) -> str:
    """The first token of a SQL text that is not a comment, upper case ('' when there is none)."""
    if not isinstance(sql, str):
        return ""
    try:
        tokens = sqlglot.tokenize(sql, read="oracle")
    except Exception:  # noqa: BLE001 - an unparsable text has no reliable keyword
        return sql.strip().split(None, 1)[0].upper() if sql.strip() else ""
    return tokens[0].text.upper() if tokens else ""


def sql_tokens(sql: str) -> list:
    """sqlglot's Oracle tokens of a SQL text (comments dropped)."""
    return sqlglot.tokenize(sql, read="oracle")


def has_aggregate_call(sql: str, name: str) -> bool:
    """The SQL calls the function `name` (e.g. MAX), judged from its tokens, not a regex over the text."""
    tokens = sql_tokens(sql)
    return any(t.text.upper() == name.upper() and i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.L_PAREN
               for i, t in enumerate(tokens))


class RecordingCursor:
    """A cursor that passes everything through and records statements, binds and rows fetched."""

    def __init__(self, owner: "RecordingConnection", cursor: oracledb.Cursor):
        self._owner = owner
        self._cursor = cursor
        self._input_sizes: dict = {}
        self._current: Statement | None = None
        self.vars: list[Any] = []

    # -- execution
    def setinputsizes(self, *args: Any, **kwargs: Any) -> Any:
        self._input_sizes = {**{i: t for i, t in enumerate(args)}, **{k.lower(): t for k, t in kwargs.items()}}
        return self._cursor.setinputsizes(*args, **kwargs)

    def var(self, *args: Any, **kwargs: Any) -> Any:
        variable = self._cursor.var(*args, **kwargs)
        self.vars.append(variable)
        self._owner.vars.append(variable)
        return variable

    def execute(self, statement: str, parameters: Any = None, **kwargs: Any) -> Any:
        binds = dict(kwargs) if kwargs else parameters
        self._current = Statement(statement, binds, dict(self._input_sizes))
        self._owner.statements.append(self._current)
        result = self._cursor.execute(statement, parameters, **kwargs) if parameters is not None else \
            self._cursor.execute(statement, **kwargs)
        return self if result is self._cursor else result

    def executemany(self, statement: str, parameters: Any, **kwargs: Any) -> Any:
        self._current = Statement(statement, list(parameters) if not isinstance(parameters, int) else parameters,
                                  dict(self._input_sizes), many=True)
        self._owner.statements.append(self._current)
        return self._cursor.executemany(statement, self._current.binds, **kwargs)

    # -- fetching (counted)
    def _count(self, rows: int) -> None:
        if self._current is not None:
            self._current.fetched += rows

    def fetchone(self) -> Any:
        row = self._cursor.fetchone()
        self._count(row is not None)
        return row

    def fetchmany(self, *args: Any, **kwargs: Any) -> list:
        rows = self._cursor.fetchmany(*args, **kwargs)
        self._count(len(rows))
        return rows

    def fetchall(self) -> list:
        rows = self._cursor.fetchall()
        self._count(len(rows))
        return rows

    def __iter__(self):
        for row in self._cursor:
            self._count(1)
            yield row

    # -- everything else
    def __enter__(self) -> "RecordingCursor":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._cursor.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)


class RecordingConnection:
    """A connection whose cursors record what they run (see the module docstring)."""

    def __init__(self, conn: oracledb.Connection):
        self._conn = conn
        self.statements: list[Statement] = []
        self.vars: list[Any] = []
        self.commits = 0

    def cursor(self, *args: Any, **kwargs: Any) -> RecordingCursor:
        return RecordingCursor(self, self._conn.cursor(*args, **kwargs))

    def commit(self) -> None:
        self.commits += 1
        self._conn.commit()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def of_kind(self, *kinds: str) -> list[Statement]:
        wanted = {k.upper() for k in kinds}
        return [s for s in self.statements if s.kind in wanted]


@dataclass
class StoreCall:
    method: str
    args: tuple
    kwargs: dict


class RecordingStore:
    """An OracleVS stand-in that records the learner's calls (add_texts, similarity_search_with_score, ...)."""

    def __init__(self, store: Any):
        self._store = store
        self.calls: list[StoreCall] = []

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._store, name)
        if not callable(attribute) or name.startswith("_"):
            return attribute

        def recorded(*args: Any, **kwargs: Any) -> Any:
            self.calls.append(StoreCall(name, args, kwargs))
            return attribute(*args, **kwargs)
        return recorded

    def called(self, *methods: str) -> list[StoreCall]:
        return [c for c in self.calls if c.method in methods]


def recording_stores(stores: dict) -> dict:
    """The same dict of stores, each wrapped in a RecordingStore."""
    return {key: RecordingStore(store) for key, store in stores.items()}


def argument(call: StoreCall, name: str, position: int, default: Any = None) -> Any:
    """A call's argument by keyword, else by position (0 = first argument after self)."""
    if name in call.kwargs:
        return call.kwargs[name]
    return call.args[position] if len(call.args) > position else default
