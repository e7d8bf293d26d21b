"""PL/SQL packages the embedded engine implements (called from anonymous blocks)."""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .hooks import EngineAPI as Engine


def _set_proxy(engine: "Engine", proxy=None, no_proxy_domains=None) -> None:
    """UTL_HTTP.SET_PROXY: the embedded engine makes no HTTP calls, so there is nothing to route."""


def _gather_stats(engine: "Engine", *args, **kwargs) -> None:
    """DBMS_STATS.GATHER_*_STATS: optimizer statistics never change query results."""


def install(engine: "Engine") -> None:
    engine.hooks.procedures.update({
        "UTL_HTTP.SET_PROXY": _set_proxy,
        "DBMS_STATS.GATHER_TABLE_STATS": _gather_stats,
        "DBMS_STATS.GATHER_SCHEMA_STATS": _gather_stats,
    })


class PlsqlPackages:
    """PL/SQL packages with nothing to do here: UTL_HTTP.SET_PROXY, DBMS_STATS."""

    name = "plsql-packages"

    def install(self, engine: "Engine") -> None:
        install(engine)
