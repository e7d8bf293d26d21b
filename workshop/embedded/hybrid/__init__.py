"""Hybrid vector indexes for the embedded engine: vectorizer preferences
(DBMS_VECTOR_CHAIN.CREATE_PREFERENCE / DROP_PREFERENCE), CREATE HYBRID VECTOR INDEX and its DROP, and
DBMS_HYBRID_VECTOR.SEARCH.

A hybrid index is the engine's Oracle Text SEARCH index over the column (workshop.embedded.text)
plus a vector part of chunks embedded with the in-database model (workshop.embedded.model_support);
see index.py for storage and maintenance, spec.py for the JSON query specification and search.py for
fusion and scoring.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..catalog import stored_name
from ..errors import EngineError, ora_error
from . import index as hybrid_index
from . import preferences
from .search import PIPELINE_COLUMNS, PIPELINE_TYPES, Searcher

if TYPE_CHECKING:
    from ..hooks import EngineAPI as Engine


def install(engine: "Engine") -> None:
    """Register the procedures, DDL hooks, SQL function and commit-time sync (after text and models)."""
    from ..text.storage import get_index as get_text_index

    db = engine.db
    engine.hooks.bootstrap.extend(preferences.BOOTSTRAP + hybrid_index.BOOTSTRAP)
    engine.hooks.plsql_constants["DBMS_VECTOR_CHAIN.VECTORIZER"] = preferences.VECTORIZER

    def embed(model_name: str, texts: list[str]):
        model = engine.models.load(model_name)
        return model.embed_rows({model.input_names[0]: [str(t) for t in texts]})

    # -------------------------------------------------------------- DBMS_VECTOR_CHAIN preferences
    def create_preference(engine_, *args, **kwargs):
        names = ("pref_name", "pref_type", "params")
        values = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names or key in values:
                raise EngineError(6550, "PLS-00306: wrong number or types of arguments in call to 'CREATE_PREFERENCE'")
            values[key] = value
        if len(args) > 3 or "pref_name" not in values or "pref_type" not in values:
            raise EngineError(6550, "PLS-00306: wrong number or types of arguments in call to 'CREATE_PREFERENCE'")
        engine_.begin_write()
        preferences.create(engine_.db, values["pref_name"], values["pref_type"], values.get("params"))
        engine_.commit()

    def drop_preference(engine_, *args, **kwargs):
        if len(args) + len(kwargs) != 1 or (kwargs and "pref_name" not in kwargs):
            raise EngineError(6550, "PLS-00306: wrong number or types of arguments in call to 'DROP_PREFERENCE'")
        engine_.begin_write()
        preferences.drop(engine_.db, args[0] if args else kwargs["pref_name"])
        engine_.commit()

    engine.hooks.procedures["DBMS_VECTOR_CHAIN.CREATE_PREFERENCE"] = create_preference
    engine.hooks.procedures["DBMS_VECTOR_CHAIN.DROP_PREFERENCE"] = drop_preference

    # -------------------------------------------------------------- DDL
    def create_hybrid_index(index_name, storage, table, columns, rest):
        # the plug-in keeps SQLite objects: it works on the index's and the table's storage names
        parameters = hybrid_index.create(db, index_name=storage, table=table, columns=columns, rest=rest,
                                         create_text_index=engine.hooks.create_text_index,
                                         load_model=engine.models.load, embed=embed)
        db.execute('INSERT INTO "ORA$INDEXES" (index_name, table_name, index_type, uniqueness, columns, '
                   'ityp_owner, ityp_name, parameters) VALUES (?,?,?,?,?,?,?,?)',
                   (index_name, table.name, "DOMAIN", "NONUNIQUE", json.dumps(columns), "CTXSYS", "CONTEXT_V2",
                    parameters))

    engine.hooks.create_hybrid_index = create_hybrid_index
    engine.hooks.drop_hybrid_index = lambda name: hybrid_index.drop(db, name)

    def drop_table(table):
        hybrid_index.drop_for_table(db, stored_name(db, table))
    engine.hooks.on_drop_table.append(drop_table)

    # -------------------------------------------------------------- sync with the text part
    def on_commit(conn):
        for info in hybrid_index.all_indexes(conn):
            text_info = get_text_index(conn, info.index_name)
            if text_info is not None and text_info.syncs_at_commit and hybrid_index.has_pending(conn, info):
                try:
                    hybrid_index.sync(conn, info, embed)
                except EngineError as exc:   # e.g. the model was dropped with force => TRUE
                    raise ora_error(exc.code, f"{exc.message} (hybrid vector index {info.index_name} cannot "
                                              f"embed the rows of this transaction; roll back or recreate "
                                              f"the index)") from None
    engine.hooks.on_commit.append(on_commit)

    def sync_index(conn, name: str) -> None:
        """CTX_DDL.SYNC_INDEX on a hybrid index's text part syncs its vector part too (hooks.on_sync_index)."""
        info = hybrid_index.get(conn, name)
        if info is not None:
            hybrid_index.sync(conn, info, embed)
    engine.hooks.on_sync_index.append(sync_index)

    # -------------------------------------------------------------- DBMS_HYBRID_VECTOR.SEARCH
    searcher = Searcher(db, embed=embed, text_search=engine.hooks.text_search,
                        text_info=lambda name: get_text_index(db, name), visible=engine.visible_rowids)
    engine.register("ORA_HYBRID_VECTOR_SEARCH", searcher.run, 1)
    engine.map_function("DBMS_HYBRID_VECTOR.SEARCH", "ORA_HYBRID_VECTOR_SEARCH", "CLOB")
    engine.register_table_function("DBMS_HYBRID_VECTOR.SEARCHPIPELINE", [c.upper() for c in PIPELINE_COLUMNS],
                                   list(PIPELINE_TYPES), lambda engine_, spec: searcher.pipeline_rows(spec))

    # The search returns rowids as text; Oracle's examples join back with CHARTOROWID(r.row_id).
    engine.register("ORA_CHARTOROWID", chartorowid, 1, deterministic=True)
    engine.register("ORA_ROWIDTOCHAR", rowidtochar, 1, deterministic=True)
    engine.map_function("CHARTOROWID", "ORA_CHARTOROWID")
    engine.map_function("ROWIDTOCHAR", "ORA_ROWIDTOCHAR", "VARCHAR2")


def chartorowid(value):
    """CHARTOROWID: the engine's rowids are the SQLite row numbers, written as decimal text."""
    if value is None:
        return None
    text = str(value).strip()
    if not text.isdigit():
        raise EngineError(1410, "invalid ROWID")
    return int(text)


def rowidtochar(value):
    return None if value is None else str(value)


class HybridVectorIndexes:
    """Hybrid vector indexes: DBMS_VECTOR_CHAIN preferences, CREATE HYBRID VECTOR INDEX, DBMS_HYBRID_VECTOR (after text and models)."""

    name = "hybrid-vector-indexes"

    def install(self, engine: "Engine") -> None:
        install(engine)
