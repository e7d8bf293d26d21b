"""Plugs the engine's optional subsystems (Oracle Text, models, property graphs, row-level
security) into an Engine: each adds DDL hooks, procedures, user functions and statement hooks."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .engine import Engine


def install(engine: "Engine") -> None:
    from . import graph_support, model_support, procedures, rls, text_support
    procedures.install(engine)
    model_support.install(engine)
    text_support.install(engine)
    graph_support.install(engine)
    rls.install(engine)
    from . import hybrid
    hybrid.install(engine)
    engine.catalog.policy_loader = engine.extensions["policies"]
    engine.extensions["views"]["USER_OBJECTS"] = _USER_OBJECTS


#: USER_OBJECTS over every kind of object the engine keeps (the catalog's own view knows only
#: tables, indexes and sequences; the subsystems add graphs, models and PL/SQL units).
_USER_OBJECTS = """SELECT table_name AS OBJECT_NAME, kind AS OBJECT_TYPE, 'VALID' AS STATUS, created AS CREATED
    FROM "ORA$TABLES"
    UNION ALL SELECT index_name, 'INDEX', 'VALID', NULL FROM "ORA$INDEXES"
    UNION ALL SELECT sequence_name, 'SEQUENCE', 'VALID', NULL FROM "ORA$SEQUENCES"
    UNION ALL SELECT graph_name, 'PROPERTY GRAPH', 'VALID', created FROM "ORA$GRAPHS"
    UNION ALL SELECT model_name, 'MINING MODEL', 'VALID', created FROM "ORA$MODEL_CATALOG"
    UNION ALL SELECT name, kind, 'VALID', NULL FROM "ORA$PLSQL" """
