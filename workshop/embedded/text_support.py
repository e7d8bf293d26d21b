"""Wires Oracle Text (workshop.embedded.text) into the engine: index DDL, CONTAINS/SCORE, sync
at commit, CTX_DDL.SYNC_INDEX, and Oracle's error stacking (ORA-29902 / ORA-20000 / DRG-nnnnn)."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from . import text
from .catalog import INDEX_NAMESPACE, stored_name
from .errors import EngineError

if TYPE_CHECKING:
    from .hooks import EngineAPI as Engine


def as_engine_error(exc: text.TextError, during: str = "query") -> EngineError:
    message = exc.message
    if isinstance(exc, text.TextUnsupportedError) or message.startswith("ORA-"):
        m = re.match(r"ORA-(\d+): (.*)", message, re.S)
        if m:
            detail = f" ({exc.detail})" if getattr(exc, "detail", None) else ""
            return EngineError(int(m.group(1)), m.group(2) + detail)
    if during == "query":
        return EngineError(29902, f"error in executing ODCIIndexStart() routine\n"
                                  f"ORA-20000: Oracle Text error:\n{message}")
    return EngineError(29855, f"error occurred in the execution of ODCIINDEXCREATE routine\n"
                              f"ORA-20000: Oracle Text error:\n{message}")


def install(engine: "Engine") -> None:
    """The text plug-in (workshop.embedded.text) keeps SQLite objects, so it works on storage names
    (catalog.assign_storage): the engine hands it those, and the names a statement or a call gives are mapped here."""
    db = engine.db

    def create(index_name, table, column, kind, parameters, is_json):
        try:
            text.create_text_index(db, index_name, table, column, kind=kind, parameters=parameters, is_json=is_json)
        except text.TextError as exc:
            raise as_engine_error(exc, "create") from None

    def search(conn, index_name, query):
        if query is None:
            raise EngineError(29902, "error in executing ODCIIndexStart() routine\n"
                                     "ORA-20000: Oracle Text error:\nDRG-50901: text query parser syntax error "
                                     "on line 1, column 1")
        try:
            return text.search(conn, index_name, str(query))
        except text.TextError as exc:
            raise as_engine_error(exc) from None

    def lookup(conn, table, column):
        info = text.text_index_for(conn, table, column)
        return info.index_name if info is not None else None

    def sync_index(engine_, idx_name=None, memory=None, part_name=None, parallel_degree=None, maxtime=None,
                   locking=None, **_):
        if idx_name is None:
            raise EngineError(6550, "PLS-00306: wrong number or types of arguments in call to 'SYNC_INDEX'")
        name = stored_name(engine_.db, _index_name(idx_name), INDEX_NAMESPACE)
        engine_.begin_write()
        try:
            text.sync_index(engine_.db, name)
        except text.TextError as exc:
            raise as_engine_error(exc, "create") from None
        for hook in engine_.hooks.on_sync_index:      # the hybrid index's vector part, in this transaction
            hook(engine_.db, name)
        engine_.commit()

    engine.hooks.create_text_index = create
    engine.hooks.drop_text_index = lambda name: text.drop_text_index(db, name)

    def drop_table(table):
        text.drop_indexes_for_table(db, stored_name(db, table))
    engine.hooks.on_drop_table.append(drop_table)
    engine.hooks.text_search = search
    engine.hooks.text_index_lookup = lookup
    engine.hooks.on_commit.append(text.on_commit)
    engine.hooks.procedures["CTX_DDL.SYNC_INDEX"] = sync_index


def _index_name(written: str) -> str:
    """The index an idx_name argument names: [owner.]name, upper-cased unless quoted."""
    written = written.strip()
    last = re.match(r'(?:(?:"[^"]*"|[^".]*)\.)?("[^"]*"|[^".]*)\Z', written)
    name = last.group(1) if last else written
    return name[1:-1] if name.startswith('"') else name.upper()


class OracleText:
    """Oracle Text: CONTEXT and SEARCH indexes, CONTAINS / SCORE, CTX_DDL.SYNC_INDEX, sync on commit."""

    name = "oracle-text"

    def install(self, engine: "Engine") -> None:
        install(engine)
