"""The one seam between the engine's core and its plug-ins (Oracle Text, models, property graphs,
row-level security, PL/SQL packages, hybrid vector indexes).

A plug-in is a class with a ``name`` and an ``install(engine)`` that fills the engine's `EngineHooks`:
typed slots instead of string keys, lists where several plug-ins may each want a say (a dropped
table, a write, a commit), and registries that belong to one engine (the SQL names a plug-in adds go to
``engine.names`` through ``Engine.map_function`` / ``register_table_function``). The engine imports no plug-in;
`workshop.embedded.extensions` lists them and the connection hands them to the engine it builds.

`EngineAPI` is the engine as everything it calls back sees it (the plug-ins, the function registry, PL/SQL): they
annotate with it and import this module, never `engine.py`, so the executor's modules import one way (the
layers in docs/architecture.md; .importlinter counts type-checking imports too).
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol

if TYPE_CHECKING:
    from .catalog import Catalog, SqlNames
    from .statement import Result
    from .translate import Plan

#: A PL/SQL procedure: called with the engine, then the call's positional and named arguments.
Procedure = Callable[..., Any]


class EngineAPI(Protocol):
    """What `workshop.embedded.engine.Engine` offers the code it calls: its SQLite connection, catalog, hooks and
    SQL names, function registration, and the session's transaction and statement entry points."""

    db: sqlite3.Connection
    catalog: "Catalog"
    hooks: "EngineHooks"
    #: Set by the model plug-in (the loaded in-database models) and by RLS (the session's application context).
    models: Any
    session_context: Any

    @property
    def names(self) -> "SqlNames": ...

    def register(self, name: str, fn: Callable, nargs: int = -1, deterministic: bool = False) -> None: ...

    def register_aggregate(self, name: str, cls: type, nargs: int = -1) -> None: ...

    def map_function(self, sql_name: str, registered: str, result_type: str | None = None) -> None: ...

    def register_table_function(self, name: str, columns: Any, types: Any, rows: Callable[..., Any]) -> None: ...

    def begin_write(self) -> None: ...

    def commit(self) -> None: ...

    def _execute(self, sql: str, binds: Any, input_types: Any) -> "Result": ...


class Plugin(Protocol):
    """An optional subsystem of the engine."""

    name: str

    def install(self, engine: EngineAPI) -> None:
        """Add the subsystem's hooks, procedures, functions and catalog views to ``engine.hooks``."""


@dataclass
class EngineHooks:
    """Everything the plug-ins add to one engine; the core reads these slots and nothing else."""

    # -- catalog: dictionary views (name -> SELECT over the ORA$ tables) and the DDL creating those tables
    views: dict[str, str] = field(default_factory=dict)
    bootstrap: list[str] = field(default_factory=list)
    #: RLS: loads the policies by table (the catalog calls it when its version changes).
    policies: Callable[[], dict] | None = None

    # -- PL/SQL
    procedures: dict[str, Procedure] = field(default_factory=dict)
    #: Package constants a PL/SQL expression may name (DBMS_VECTOR_CHAIN.VECTORIZER ...).
    plsql_constants: dict[str, Any] = field(default_factory=dict)
    #: A user-defined procedure by name (CREATE PROCEDURE units), or None.
    user_procedure: Callable[[str], Procedure | None] | None = None
    #: Table functions: name -> rows producer, called with the engine and the call's arguments (their
    #: columns are in engine.names.table_functions: Engine.register_table_function fills both).
    table_functions: dict[str, Callable[..., Any]] = field(default_factory=dict)

    # -- DDL
    #: Statements the core does not know, by their leading words ("CREATE CONTEXT", "DROP DIRECTORY"):
    #: the handler gets the statement text. A head matches its own key, else the first key it starts with.
    statements: dict[str, Callable[[str], Any]] = field(default_factory=dict)
    create_text_index: Callable[..., None] | None = None
    drop_text_index: Callable[[str], None] | None = None
    #: (index name, its storage name, table, columns, the text after the column list)
    create_hybrid_index: Callable[..., None] | None = None
    drop_hybrid_index: Callable[[str], None] | None = None
    #: Told the name of each table about to be dropped; the last registered runs first.
    on_drop_table: list[Callable[[str], None]] = field(default_factory=list)
    #: Told (connection, index name) after CTX_DDL.SYNC_INDEX synced an Oracle Text index, inside the same
    #: transaction, before it commits: an index built on that text index syncs its own part (hybrid).
    on_sync_index: list[Callable[[sqlite3.Connection, str], None]] = field(default_factory=list)
    #: Set by the engine: a query text to its Plan (CREATE VIEW checks the view's body).
    translate_query: Callable[[str], "Plan"] | None = None

    # -- statements
    #: Rewrites a statement's text before it is parsed (GRAPH_TABLE).
    rewrite_sql: Callable[[EngineAPI, str], str] | None = None
    #: Runs before each INSERT / UPDATE / DELETE / MERGE (RLS check triggers).
    before_write: list[Callable[[EngineAPI], None]] = field(default_factory=list)
    #: Oracle Text: (connection, index name, query) -> {rowid: score}.
    text_search: Callable[..., dict[int, int]] | None = None
    #: Oracle Text: (connection, table, column) -> the CONTEXT index on it, or None.
    text_index_lookup: Callable[..., str | None] | None = None
    #: Models: computes a statement's VECTOR_EMBEDDING / PREDICTION calls in batches.
    prepare_model_calls: Callable[..., Any] | None = None
    model_call: Callable[..., dict] | None = None

    # -- transactions and the cursor
    #: Run inside COMMIT, before SQLite commits (Oracle Text SYNC ON COMMIT, hybrid index sync).
    on_commit: list[Callable[[sqlite3.Connection], None]] = field(default_factory=list)
    #: connection.gettype(name): the object types a plug-in defines (SYS.VECTOR_ARRAY_T ...).
    gettype: Callable[..., Any] | None = None

    def statement_handler(self, head: str) -> Callable[[str], Any] | None:
        """The plug-in handler for a DDL statement starting with ``head``, or None."""
        handler = self.statements.get(head)
        if handler is not None:
            return handler
        return next((h for key, h in self.statements.items() if head.startswith(key)), None)

    def drop_table(self, name: str) -> None:
        """Tell every plug-in that table ``name`` is about to be dropped (last installed first)."""
        for hook in reversed(self.on_drop_table):
            hook(name)
