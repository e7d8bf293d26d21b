"""The engine's plug-ins, in installation order: each fills `EngineHooks` (see hooks.py); the
connection hands this list to every Engine it builds, so the engine itself imports none of them."""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import graph_support, hybrid, model_support, procedures, rls, text_support
from .hooks import Plugin

if TYPE_CHECKING:
    from .engine import Engine

#: USER_OBJECTS over every kind of object the engine keeps (the catalog's own view knows only
#: tables, indexes and sequences; the subsystems add graphs, models and PL/SQL units).
_USER_OBJECTS = """SELECT table_name AS OBJECT_NAME, kind AS OBJECT_TYPE, 'VALID' AS STATUS, created AS CREATED
    FROM "ORA$TABLES"
    UNION ALL SELECT index_name, 'INDEX', 'VALID', NULL FROM "ORA$INDEXES"
    UNION ALL SELECT sequence_name, 'SEQUENCE', 'VALID', NULL FROM "ORA$SEQUENCES"
    UNION ALL SELECT graph_name, 'PROPERTY GRAPH', 'VALID', created FROM "ORA$GRAPHS"
    UNION ALL SELECT model_name, 'MINING MODEL', 'VALID', created FROM "ORA$MODEL_CATALOG"
    UNION ALL SELECT name, kind, status, NULL FROM "ORA$PLSQL_UNITS" """


class DictionaryViews:
    """USER_OBJECTS over every kind of object the engine and its plug-ins keep."""

    name = "dictionary-views"

    def install(self, engine: "Engine") -> None:
        engine.hooks.views["USER_OBJECTS"] = _USER_OBJECTS


#: Order matters: hybrid indexes build on Oracle Text and the models (and hook its CTX_DDL.SYNC_INDEX);
#: the plug-in installed last is told first about a dropped table (hybrid, then RLS, then text).
PLUGINS: tuple[Plugin, ...] = (
    procedures.PlsqlPackages(),
    model_support.Models(),
    text_support.OracleText(),
    graph_support.PropertyGraphs(),
    rls.RowLevelSecurity(),
    hybrid.HybridVectorIndexes(),
    DictionaryViews(),
)
