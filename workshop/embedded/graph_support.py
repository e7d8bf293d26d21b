"""Wires SQL property graphs (workshop.embedded.graph) into the engine: CREATE/DROP PROPERTY GRAPH
in the catalog, USER_PROPERTY_GRAPHS, and GRAPH_TABLE rewritten to plain joins before parsing."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from . import graph
from .catalog import bump_ddl_version
from .errors import EngineError

if TYPE_CHECKING:
    from .hooks import EngineAPI as Engine

_CATALOG = """CREATE TABLE IF NOT EXISTS "ORA$GRAPHS" (graph_name TEXT PRIMARY KEY, definition TEXT NOT NULL,
    created TEXT)"""

VIEWS = {
    "USER_PROPERTY_GRAPHS": """SELECT graph_name AS GRAPH_NAME, 'TRUSTED' AS GRAPH_MODE, 'YES' AS ALLOWS_MIXED_TYPES,
        'NO' AS INMEMORY FROM "ORA$GRAPHS\"""",
    "ALL_PROPERTY_GRAPHS": """SELECT 'WORKSHOP' AS OWNER, graph_name AS GRAPH_NAME, 'TRUSTED' AS GRAPH_MODE
        FROM "ORA$GRAPHS\"""",
}


def _as_engine_error(exc: graph.GraphError) -> EngineError:
    message = exc.message
    m = re.match(r"ORA-\d+: (.*)", message, re.S)
    return EngineError(exc.code, m.group(1) if m else message)


def install(engine: "Engine") -> None:
    db = engine.db
    engine.hooks.views.update(VIEWS)
    engine.hooks.bootstrap.append(_CATALOG)

    def columns_of(table: str) -> list[str]:
        found = engine.catalog.table(table)
        if found is None:
            raise EngineError(942, f'table or view "{table}" does not exist')
        return [c.name for c in found.columns]

    def primary_key_of(table: str) -> list[str]:
        import json
        row = db.execute('SELECT columns FROM "ORA$CONSTRAINTS" WHERE table_name = ? AND constraint_type = \'P\'',
                         (table,)).fetchone()
        return json.loads(row[0]) if row else []

    def resolve(name: str):
        row = db.execute('SELECT definition FROM "ORA$GRAPHS" WHERE graph_name = ?', (name.split(".")[-1],)).fetchone()
        return graph.GraphDef.from_json(row[0]) if row else None

    def create(sql: str) -> None:
        engine.catalog.refresh()
        try:
            definition = graph.parse_create_property_graph(sql, columns_of, primary_key_of)
        except graph.GraphError as exc:
            raise _as_engine_error(exc) from None
        exists = db.execute('SELECT 1 FROM "ORA$GRAPHS" WHERE graph_name = ?', (definition.name,)).fetchone()
        clash = db.execute('SELECT 1 FROM "ORA$TABLES" WHERE table_name = ? UNION ALL '
                           'SELECT 1 FROM "ORA$INDEXES" WHERE index_name = ?',
                           (definition.name, definition.name)).fetchone()
        if clash or (exists and not definition.or_replace):
            if exists and definition.if_not_exists:
                return
            raise EngineError(955, "name is already used by an existing object")
        db.execute('INSERT OR REPLACE INTO "ORA$GRAPHS" VALUES (?, ?, datetime())',
                   (definition.name, definition.to_json()))
        bump_ddl_version(db)

    def drop(sql: str) -> None:
        try:
            target = graph.parse_drop_property_graph(sql)
        except graph.GraphError as exc:
            raise _as_engine_error(exc) from None
        cur = db.execute('DELETE FROM "ORA$GRAPHS" WHERE graph_name = ?', (target.name,))
        if cur.rowcount == 0 and not target.if_exists:
            raise EngineError(942, f'property graph "{target.name}" does not exist (the pages do not name this '
                                      "error: probe E18-DDL-PGDROP)")

    def rewrite(engine_, sql: str) -> str:
        if "graph_table" not in sql.lower():
            return sql
        try:
            return graph.rewrite_graph_tables(sql, resolve)
        except graph.GraphError as exc:
            raise _as_engine_error(exc) from None

    for key in ("CREATE PROPERTY GRAPH", "CREATE OR REPLACE PROPERTY"):
        engine.hooks.statements[key] = create
    engine.hooks.statements["DROP PROPERTY GRAPH"] = drop
    engine.hooks.rewrite_sql = rewrite


class PropertyGraphs:
    """SQL/PGQ: CREATE PROPERTY GRAPH and GRAPH_TABLE (rewritten to SQL before parsing)."""

    name = "property-graphs"

    def install(self, engine: "Engine") -> None:
        install(engine)
