"""Drop workshop objects: one part's learner-owned objects (`reset_part`), or everything (`drop_all`).

`reset_part(n)` lets a learner redo or skip part n: it drops exactly the objects the notebooks of that
part create (listed in `workshop.schema.LEARNER_OBJECTS`) and leaves the set-up's objects alone.
`drop_all` is what `python -m workshop.setup --reset` runs on Oracle; on the embedded engine the reset
deletes the database file instead, which also removes objects no registry knows about.

Every DROP is the PL/SQL idiom that ignores only "does not exist", so it is safe to repeat.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import oracledb

from . import config, db, lesson_state, schema

#: Drop order: graphs (they depend on tables), views, indexes, tables, sequences, models.
_KIND_ORDER = ("PROPERTY GRAPH", "VIEW", "INDEX", "TABLE", "SEQUENCE", "MINING MODEL")

_DICTIONARY = {
    "PROPERTY GRAPH": "SELECT graph_name FROM user_property_graphs",
    "VIEW": "SELECT view_name FROM user_views",
    "INDEX": "SELECT index_name FROM user_indexes",
    "TABLE": "SELECT table_name FROM user_tables",
    "SEQUENCE": "SELECT sequence_name FROM user_sequences",
    "MINING MODEL": "SELECT model_name FROM user_mining_models",
}


def existing_objects(conn: oracledb.Connection, kinds: Iterable[str] = _KIND_ORDER) -> dict[str, set[str]]:
    """Names of the objects of each kind in the connected schema, from the data dictionary."""
    found: dict[str, set[str]] = {}
    with conn.cursor() as cur:
        for kind in kinds:
            cur.execute(_DICTIONARY[kind])
            found[kind] = {r[0] for r in cur.fetchall()}
    return found


def drop_objects(conn: oracledb.Connection, objects: Iterable[tuple[str, str]],
                 log: Callable[[str], None] | None = None) -> list[str]:
    """Drop the (kind, name) objects that exist, in dependency order; return 'KIND NAME' of each dropped."""
    wanted = list(dict.fromkeys((kind, schema.identifier(name)) for kind, name in objects))
    unknown = [k for k, _ in wanted if k not in _KIND_ORDER]
    if unknown:
        raise ValueError(f"cannot drop objects of kind {unknown[0]!r}; known kinds: {_KIND_ORDER}")
    present = existing_objects(conn, {k for k, _ in wanted})
    dropped: list[str] = []
    with conn.cursor() as cur:
        for kind in _KIND_ORDER:
            for k, name in wanted:
                if k != kind or name not in present[kind]:
                    continue
                cur.execute(schema.drop_sql(kind, name))
                dropped.append(f"{kind} {name}")
                if log:
                    log(f"  dropped {kind.lower()} {name}")
    return dropped


def reset_part(part: int, conn: oracledb.Connection | None = None,
               log: Callable[[str], None] | None = print) -> list[str]:
    """Drop the objects that part `part`'s notebooks create, so the part can be redone; returns what was dropped.

    The set-up's tables, indexes, graph and models are not touched (run `python -m workshop.setup` if the
    doctor reports one missing). Python-side state of the part's lesson code (registered in
    `workshop.lesson_state`, e.g. part 04's fact mirrors) is cleared too, so a second "Run All" in the same kernel
    starts from the same state as the first."""
    lesson_state.clear_for_part(part)
    objects = [(o.kind, o.name) for o in schema.learner_objects(part)]
    own = conn is None
    conn = conn or db.connect()
    try:
        dropped = drop_objects(conn, objects, log)
    finally:
        if own:
            conn.close()
    if log:
        log(f"part {part:02d}: dropped {len(dropped)} object(s)" if dropped
            else f"part {part:02d}: nothing to drop")
    return dropped


def all_workshop_objects() -> list[tuple[str, str]]:
    """Every object the workshop owns: learner-owned of every part, then the set-up's."""
    objects = [(o.kind, o.name) for o in schema.learner_objects()]
    objects += [("PROPERTY GRAPH", g.name) for g in schema.GRAPHS]
    objects += [("TABLE", t.name) for t in reversed(schema.TABLES)]
    from .data.finance import FINANCE_TABLES
    objects += [("TABLE", t.name) for t in reversed(FINANCE_TABLES)]
    objects += [("MINING MODEL", m.name) for m in schema.MODELS]
    return objects


def drop_all(conn: oracledb.Connection, log: Callable[[str], None] | None = print) -> list[str]:
    """Drop every workshop object (dropping a table drops its indexes). Models chosen with EMBED_MODEL or
    RERANK_MODEL that the set-up did not load (Oracle's prebuilt ALL_MINILM_L12_V2) are kept."""
    return drop_objects(conn, all_workshop_objects(), log)


def delete_embedded_database(path: Path | None = None) -> list[Path]:
    """Delete the embedded engine's database file and its WAL/SHM companions; returns the files removed."""
    path = Path(path or config.embedded_db_path())
    removed = []
    for candidate in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if candidate.exists():
            candidate.unlink()
            removed.append(candidate)
    return removed


def reset_everything() -> str:
    """What `--reset` does before building: returns one line saying what was removed."""
    if db.engine_name() == "embedded":
        removed = delete_embedded_database()
        where = config.embedded_db_path()
        return (f"reset: deleted the embedded database {where} (restart running notebook kernels)" if removed
                else f"reset: no embedded database at {where} yet")
    conn = db.connect()
    try:
        dropped = drop_all(conn, log=None)
    finally:
        conn.close()
    return f"reset: dropped {len(dropped)} workshop object(s) on Oracle"
