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
    engine.catalog.policy_loader = engine.extensions["policies"]
